//! Reading a system's output: dense score matrices and TREC runs.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::bail;
use kgeval_formats::kgc::npy::{ScoreMatrix, DEFAULT_BLOCK_BYTES};
use kgeval_formats::kgc::{read_queries_file, QueryLine};
use kgeval_formats::trec::RunFile;
use kgeval_formats::FormatError;
use kgeval_metrics::kgc::{observe_run, KgcData, RunObservations, ScorePlan};
use kgeval_metrics::ranking::RowOptions;
use kgeval_model::kgc::AnswerObservation;
use kgeval_model::{Diagnostic, Location};

use crate::output::progress_bar;

/// Observations of a run: its qids resolved through the question list `queries_path`.
pub(super) fn run_observations(
    data: &KgcData<'_>,
    path: &Path,
    queries_path: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> anyhow::Result<RunObservations> {
    let rows: Vec<QueryLine> = read_queries_file(queries_path, data.vocabulary)?;
    let queries_file = queries_path.display().to_string();
    let mut question_of: HashMap<&str, u32> = HashMap::new();
    let mut outside = 0usize;
    for row in &rows {
        match row.key.as_ref().and_then(|k| data.test.questions.index_of(k)) {
            Some(index) => {
                question_of.insert(row.qid.as_str(), index);
            }
            None => {
                outside += 1;
                if outside <= 20 {
                    warnings.push(
                        Diagnostic::warning(
                            "query-without-test-question",
                            format!("{} asks no test question; ignored", row.qid),
                        )
                        .at(Location { file: queries_file.clone(), line: row.line, column: 1 }),
                    );
                }
            }
        }
    }
    let asked = question_of.values().collect::<HashSet<_>>().len();
    if asked < data.test.questions.len() {
        warnings.push(Diagnostic::warning(
            "test-question-without-query",
            format!(
                "{} of {} test questions are not in {queries_file}; scored as not retrieved",
                data.test.questions.len() - asked,
                data.test.questions.len()
            ),
        ));
    }
    let run = RunFile::open(&path.display().to_string())?;
    let read = observe_run(data, &run, |qid| question_of.get(qid).copied())?;
    warnings.extend(read.warnings.iter().cloned());
    Ok(read)
}

/// Observations of every planned row of a score matrix, in parallel with bounded memory.
pub(super) fn score_observations(
    data: &KgcData<'_>,
    path: &Path,
    questions_path: &Path,
    row_options: RowOptions,
    warnings: &mut Vec<Diagnostic>,
) -> anyhow::Result<Vec<AnswerObservation>> {
    let rows: Vec<QueryLine> = read_queries_file(questions_path, data.vocabulary)?;
    let keys: Vec<_> = rows.iter().map(|r| r.key).collect();
    let plan = ScorePlan::new(data, &keys);
    let questions_file = questions_path.display().to_string();
    if let Some(&missing) = plan.missing_questions().first() {
        let q = data.test.questions.get(missing);
        bail!(
            "{questions_file}: found no row for question {} ({} {}, {} of {} questions missing), expected one row per test question",
            q.id,
            data.vocabulary.entities.resolve(q.key.anchor),
            data.vocabulary.relations.resolve(q.key.relation),
            plan.missing_questions().len(),
            data.test.questions.len()
        );
    }
    if let Some(&(row, first)) = plan.repeated_rows().first() {
        bail!(
            "{questions_file}:{}:1: found the question of line {} again, expected each question once",
            rows[row].line,
            rows[first].line
        );
    }
    for &row in plan.rows_without_question().iter().take(20) {
        warnings.push(
            Diagnostic::warning("row-without-test-question", format!("row {} asks no test question; skipped", row + 1))
                .at(kgeval_model::Location { file: questions_file.clone(), line: rows[row].line, column: 1 }),
        );
    }
    let matrix = ScoreMatrix::open(path)?;
    matrix.expect_shape(rows.len(), data.vocabulary.entity_count())?;
    let bar = progress_bar(matrix.rows() as u64, 64, "score rows");
    let per_row =
        |index: usize, row: kgeval_model::ranking::ScoreRow<'_>| -> Result<Vec<AnswerObservation>, RowError> {
            bar.inc(1);
            plan.observe(index, &row, row_options).map_err(|nan| RowError::Nan { row: index, column: nan.column })
        };
    let result = matrix.try_map_rows(DEFAULT_BLOCK_BYTES, per_row);
    bar.finish_and_clear();
    let per_row = match result {
        Ok(per_row) => per_row,
        Err(RowError::Format(e)) => return Err(e.into()),
        Err(RowError::Nan { row, column }) => bail!(
            "{}:{}:{}: found a NaN score (question {}, entity column {}), expected a number (or --nan worst)",
            matrix.name(),
            row + 1,
            column + 1,
            rows[row].qid,
            column + 1
        ),
    };
    Ok(per_row.into_iter().flatten().collect())
}

/// A failed row: a read error or a NaN score.
enum RowError {
    Format(FormatError),
    Nan { row: usize, column: usize },
}

impl From<FormatError> for RowError {
    fn from(e: FormatError) -> Self {
        RowError::Format(e)
    }
}
