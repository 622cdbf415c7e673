//! Reading a KGC task's inputs: the triple files with one vocabulary, the options that read
//! files (relation weights, categories), and the system's output as per-answer observations
//! (ranks, dense score matrices, TREC runs).

use std::collections::{HashMap, HashSet};

use kgeval_formats::kgc::npy::{ScoreMatrix, DEFAULT_BLOCK_BYTES};
use kgeval_formats::kgc::{read_entities, read_queries, read_relation_weights, read_triples, QueryLine};
use kgeval_formats::trec::RunFile;
use kgeval_formats::{FormatError, Input};
use kgeval_metrics::kgc::ScorePlan;
use kgeval_metrics::kgc::{observe_run, relation_categories, relation_counts, Categories, KgcData, RunObservations};
use kgeval_metrics::ranking::RowOptions;
use kgeval_model::kgc::conventions::RelationWeightSource;
use kgeval_model::kgc::{AnswerObservation, CategoryRule, KgcVocabulary, TestSet, TripleFile};
use kgeval_model::ranking::ScoreRow;
use kgeval_model::{Diagnostic, Location, TermId};

use super::{KgcTask, RelationWeights};
use crate::{Error, Progress};

/// At most this many located warnings per kind of coverage gap (question-list lines that ask
/// no test question, score rows without a question); the rest are left out.
pub(super) const MAX_COVERAGE_WARNINGS: usize = 20;

/// The triple files of one evaluation, read with one vocabulary.
pub(super) struct Splits {
    /// Entities and relations.
    pub(super) vocabulary: KgcVocabulary,
    /// The entity list and its count, when given.
    pub(super) entity_list: Option<(String, usize)>,
    /// The evaluated split and its questions.
    pub(super) test: TestSet,
    /// The filter files.
    pub(super) filters: Vec<TripleFile>,
}

/// Reads `input` as triples into `vocabulary`.
pub(super) fn triples(input: &Input, vocabulary: &mut KgcVocabulary) -> Result<TripleFile, Error> {
    let opened = input.open()?;
    Ok(read_triples(opened.bytes(), opened.name(), vocabulary)?)
}

/// Reads the entity list, the test split and the filter files.
pub(super) fn splits(task: &KgcTask) -> Result<Splits, Error> {
    let (mut vocabulary, entity_list) = match &task.entities {
        Some(input) => {
            let opened = input.open()?;
            let vocabulary = read_entities(opened.bytes(), opened.name())?;
            let count = vocabulary.entity_count();
            (vocabulary, Some((opened.name().to_owned(), count)))
        }
        None => (KgcVocabulary::open(), None),
    };
    let test = triples(&task.test, &mut vocabulary)?;
    if test.triples.is_empty() {
        return Err(Error::invalid(format!(
            "{}: found no triple, expected `head<TAB>relation<TAB>tail` lines",
            task.test.name()
        )));
    }
    let filters = task.filters.iter().map(|input| triples(input, &mut vocabulary)).collect::<Result<Vec<_>, _>>()?;
    Ok(Splits { vocabulary, entity_list, test: TestSet::new(test), filters })
}

/// The relation weights and their source.
pub(super) fn weights(
    spec: &RelationWeights,
    splits: &mut Splits,
) -> Result<(Vec<(TermId, f64)>, RelationWeightSource), Error> {
    Ok(match spec {
        RelationWeights::Uniform => {
            let mut relations: Vec<TermId> = splits.test.file.triples.iter().map(|t| t.relation).collect();
            relations.sort_unstable();
            relations.dedup();
            (relations.into_iter().map(|r| (r, 1.0)).collect(), RelationWeightSource::Uniform)
        }
        RelationWeights::Triples(input) => {
            let file = triples(input, &mut splits.vocabulary)?;
            (relation_counts(&file.triples), RelationWeightSource::Triples(input.name()))
        }
        RelationWeights::File(input) => {
            let opened = input.open()?;
            let weights = read_relation_weights(opened.bytes(), opened.name(), &mut splits.vocabulary)?;
            (weights, RelationWeightSource::File(input.name()))
        }
    })
}

/// The relation categories, counted on `categories_from` (default: the first filter file).
pub(super) fn categories(task: &KgcTask, splits: &mut Splits) -> Result<Option<Categories>, Error> {
    let mut triples_read = Vec::new();
    let mut names = Vec::new();
    if task.categories_from.is_empty() {
        let Some(first) = splits.filters.first() else { return Ok(None) };
        triples_read.extend_from_slice(&first.triples);
        names.push(first.name.clone());
    }
    for input in &task.categories_from {
        let file = triples(input, &mut splits.vocabulary)?;
        triples_read.extend(file.triples);
        names.push(file.name);
    }
    let rule = CategoryRule {
        threshold: task.category_threshold,
        inclusive: task.category_inclusive,
        source: names.join(" + "),
    };
    Ok(Some(Categories { relations: relation_categories(&triples_read, &rule), rule }))
}

/// Reads a question list (`qid<TAB>entity<TAB>relation`).
fn question_list(input: &Input, vocabulary: &KgcVocabulary) -> Result<Vec<QueryLine>, Error> {
    let opened = input.open()?;
    Ok(read_queries(opened.bytes(), opened.name(), vocabulary)?)
}

/// Observations of a run: its qids resolved through the question list `queries`.
pub(super) fn run_observations(
    data: &KgcData<'_>,
    run: &Input,
    queries: &Input,
    warnings: &mut Vec<Diagnostic>,
) -> Result<RunObservations, Error> {
    let rows = question_list(queries, data.vocabulary)?;
    let queries_file = queries.name();
    let mut question_of: HashMap<&str, u32> = HashMap::new();
    let mut outside = 0usize;
    for row in &rows {
        match row.key.as_ref().and_then(|k| data.test.questions.index_of(k)) {
            Some(index) => {
                question_of.insert(row.qid.as_str(), index);
            }
            None => {
                outside += 1;
                if outside <= MAX_COVERAGE_WARNINGS {
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
    let run = RunFile::from_input(run.open()?)?;
    let read = observe_run(data, &run, |qid| question_of.get(qid).copied())?;
    warnings.extend(read.warnings.iter().cloned());
    Ok(read)
}

/// The rows of a score matrix: its question list, read and planned.
pub(super) struct PlannedRows {
    /// What each row asks.
    pub(super) plan: ScorePlan,
    /// The question list's lines (qids and line numbers for messages).
    pub(super) lines: Vec<QueryLine>,
}

impl PlannedRows {
    /// The error for a NaN score in `row`, `column` of the matrix `source` (0-based);
    /// `instead` names the other NaN policy as the caller spells it.
    pub(super) fn nan_error(&self, source: &str, row: usize, column: usize, instead: &str) -> Error {
        Error::invalid(format!(
            "{source}:{}:{}: found a NaN score (question {}, entity column {}), expected a number ({instead})",
            row + 1,
            column + 1,
            self.lines[row].qid,
            column + 1
        ))
    }
}

/// Reads and plans the question list of a score matrix: a test question without a row or a
/// question asked twice is an error; rows asking no test question are warned about (at most
/// [`MAX_COVERAGE_WARNINGS`]) and skipped.
pub(super) fn plan_rows(
    data: &KgcData<'_>,
    questions: &Input,
    warnings: &mut Vec<Diagnostic>,
) -> Result<PlannedRows, Error> {
    let rows = question_list(questions, data.vocabulary)?;
    let keys: Vec<_> = rows.iter().map(|r| r.key).collect();
    let plan = ScorePlan::new(data, &keys);
    let questions_file = questions.name();
    if let Some(&missing) = plan.missing_questions().first() {
        let q = data.test.questions.get(missing);
        return Err(Error::invalid(format!(
            "{questions_file}: found no row for question {} ({} {}, {} of {} questions missing), expected one row per test question",
            q.id,
            data.vocabulary.entities.resolve(q.key.anchor),
            data.vocabulary.relations.resolve(q.key.relation),
            plan.missing_questions().len(),
            data.test.questions.len()
        )));
    }
    if let Some(&(row, first)) = plan.repeated_rows().first() {
        return Err(Error::invalid(format!(
            "{questions_file}:{}:1: found the question of line {} again, expected each question once",
            rows[row].line, rows[first].line
        )));
    }
    for &row in plan.rows_without_question().iter().take(MAX_COVERAGE_WARNINGS) {
        warnings.push(
            Diagnostic::warning("row-without-test-question", format!("row {} asks no test question; skipped", row + 1))
                .at(Location { file: questions_file.clone(), line: rows[row].line, column: 1 }),
        );
    }
    Ok(PlannedRows { plan, lines: rows })
}

/// Observations of every planned row of a score matrix, in parallel with bounded memory; the
/// rows are reported to `progress` (from the ranking threads).
pub(super) fn score_observations(
    data: &KgcData<'_>,
    scores: &Input,
    questions: &Input,
    row_options: RowOptions,
    warnings: &mut Vec<Diagnostic>,
    progress: &dyn Progress,
) -> Result<Vec<AnswerObservation>, Error> {
    let planned = plan_rows(data, questions, warnings)?;
    let Some(path) = scores.as_path() else {
        return Err(Error::invalid(format!(
            "{}: expected a file: a .npy score matrix is mapped block by block, not read from a stream",
            scores.name()
        )));
    };
    let matrix = ScoreMatrix::open(path)?;
    matrix.expect_shape(planned.lines.len(), data.vocabulary.entity_count())?;
    progress.start("score rows", matrix.rows() as u64);
    let per_row = |index: usize, row: ScoreRow<'_>| -> Result<Vec<AnswerObservation>, RowError> {
        progress.advance(1);
        planned.plan.observe(index, &row, row_options).map_err(|nan| RowError::Nan { row: index, column: nan.column })
    };
    let result = matrix.try_map_rows(DEFAULT_BLOCK_BYTES, per_row);
    progress.finish();
    match result {
        Ok(per_row) => Ok(per_row.into_iter().flatten().collect()),
        Err(RowError::Format(e)) => Err(e.into()),
        Err(RowError::Nan { row, column }) => Err(planned.nan_error(matrix.name(), row, column, "or --nan worst")),
    }
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
