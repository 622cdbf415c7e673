//! Dense scores already in memory (a numpy array, a tensor's buffer): blocks of consecutive
//! rows borrowed as slices, ranked by the same [`ScorePlan`](kgeval_metrics::kgc::ScorePlan)
//! as the rows of a `.npy` file, with the same checks and warnings.

use std::borrow::Cow;

use half::f16;
use kgeval_metrics::ranking::RowOptions;
use kgeval_model::kgc::conventions::SystemSource;
use kgeval_model::kgc::{AnswerObservation, FilterScope};
use kgeval_model::ranking::{ScoreDtype, ScoreRow};
use kgeval_model::Diagnostic;
use rayon::prelude::*;

use super::read::{plan_rows, PlannedRows};
use super::{KgcTask, Observed, Prepared};
use crate::{system_names, Error, Evaluation, NoProgress, Progress};

/// The values of a block of score rows, row-major, each type kept in its own precision
/// (float64 compared in float64, as from a `.npy` file).
#[derive(Debug, Clone, Copy)]
pub enum ScoreValues<'a> {
    /// float64 scores (numpy's and PyTorch's `double`).
    F64(&'a [f64]),
    /// float32 scores.
    F32(&'a [f32]),
    /// float16 scores.
    F16(&'a [f16]),
}

impl ScoreValues<'_> {
    /// The number of values.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            ScoreValues::F64(v) => v.len(),
            ScoreValues::F32(v) => v.len(),
            ScoreValues::F16(v) => v.len(),
        }
    }

    /// Whether there is no value.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element type.
    #[must_use]
    pub fn dtype(&self) -> ScoreDtype {
        match self {
            ScoreValues::F64(_) => ScoreDtype::F64,
            ScoreValues::F32(_) => ScoreDtype::F32,
            ScoreValues::F16(_) => ScoreDtype::F16,
        }
    }
}

/// A block of consecutive score rows in memory (row-major: row `i` is
/// `values[i * columns..(i + 1) * columns]`), one column per entity of the entity list.
#[derive(Debug, Clone, Copy)]
pub struct ScoreRows<'a> {
    values: ScoreValues<'a>,
    columns: usize,
}

impl<'a> ScoreRows<'a> {
    /// The rows of `values`, `columns` values each.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the number of values is not a multiple of `columns`.
    pub fn new(values: ScoreValues<'a>, columns: usize) -> Result<Self, Error> {
        let len = values.len();
        if (columns == 0 && len > 0) || (columns > 0 && len % columns != 0) {
            return Err(Error::invalid(format!(
                "scores: found {len} values, expected whole rows of {columns} (a multiple of the column count)"
            )));
        }
        Ok(ScoreRows { values, columns })
    }

    /// The number of rows.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.values.len().checked_div(self.columns).unwrap_or(0)
    }

    /// The number of columns.
    #[must_use]
    pub fn columns(&self) -> usize {
        self.columns
    }

    /// The element type.
    #[must_use]
    pub fn dtype(&self) -> ScoreDtype {
        self.values.dtype()
    }

    /// Row `i` of the block, borrowed.
    pub(super) fn row(&self, i: usize) -> ScoreRow<'a> {
        let range = i * self.columns..(i + 1) * self.columns;
        match self.values {
            ScoreValues::F64(v) => ScoreRow::F64(Cow::Borrowed(&v[range])),
            ScoreValues::F32(v) => ScoreRow::F32(Cow::Borrowed(&v[range])),
            ScoreValues::F16(v) => ScoreRow::F16(Cow::Borrowed(&v[range])),
        }
    }
}

/// A KGC evaluation of dense scores given in blocks of rows ([`KgcTask::score_evaluator`]):
/// the splits, filters and row plan are read once; [`add_batch`](Self::add_batch) ranks each
/// block as it comes (the block can be dropped afterwards), [`finalize`](Self::finalize)
/// evaluates once every row was given. The result equals [`KgcTask::run`] on the same matrix
/// saved as a `.npy` file.
pub struct ScoreEvaluator {
    task: KgcTask,
    name: String,
    source: String,
    prepared: Prepared,
    planned: PlannedRows,
    row_options: RowOptions,
    observed: Vec<Option<Vec<AnswerObservation>>>,
    given: usize,
    warnings: Vec<Diagnostic>,
}

impl std::fmt::Debug for ScoreEvaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScoreEvaluator")
            .field("name", &self.name)
            .field("rows", &self.rows())
            .field("columns", &self.columns())
            .field("given", &self.given)
            .finish_non_exhaustive()
    }
}

impl KgcTask {
    /// What the conventions call a score matrix given in memory when the task's `scores`
    /// does not name it.
    pub const MEMORY_SCORES: &'static str = "(in memory)";

    /// The system name of a score matrix given in memory when the task's `scores` does not
    /// name it.
    pub const MEMORY_SYSTEM: &'static str = "scores";

    /// An evaluator of scores given in memory, in blocks of rows: the task needs `questions`
    /// (one row per line) and `entities` (one column per entity), and neither `ranks` nor
    /// `run`. Its one `scores`, when set, only names the system and the matrix (it is not read);
    /// otherwise they are [`MEMORY_SYSTEM`](Self::MEMORY_SYSTEM) and
    /// [`MEMORY_SCORES`](Self::MEMORY_SCORES).
    ///
    /// # Errors
    /// Invalid options; a split, filter or question list that cannot be read or is malformed;
    /// a test question without a row, or a question on two rows (as [`KgcTask::run`]).
    pub fn score_evaluator(&self) -> Result<ScoreEvaluator, Error> {
        self.check_options()?;
        if !self.ranks.is_empty() || !self.run.is_empty() || self.scores.len() > 1 {
            return Err(Error::invalid(
                "kgc: expected one system output (scores in memory), found ranks, a run or several scores as well",
            ));
        }
        let (Some(questions), Some(_)) = (&self.questions, &self.entities) else {
            return Err(Error::invalid("scores in memory: expected questions and entities as well"));
        };
        let (name, source) = match self.scores.first() {
            Some(scores) => (system_names(std::slice::from_ref(scores))?.remove(0), scores.input.name()),
            None => (Self::MEMORY_SYSTEM.to_owned(), Self::MEMORY_SCORES.to_owned()),
        };
        let prepared = self.prepare()?;
        let mut warnings = Vec::new();
        let planned = plan_rows(&prepared.data(), questions, &mut warnings)?;
        let rows = planned.lines.len();
        Ok(ScoreEvaluator {
            task: self.clone(),
            name,
            source,
            prepared,
            planned,
            row_options: RowOptions { tolerance: self.tolerance(), nan: self.nan },
            observed: vec![None; rows],
            given: 0,
            warnings,
        })
    }

    /// Evaluates the whole score matrix `scores`, given in memory (one row per line of
    /// `questions`, one column per entity): [`KgcTask::run`] without a `.npy` file. Rows are
    /// ranked in parallel and reported to `progress`.
    ///
    /// # Errors
    /// As [`score_evaluator`](Self::score_evaluator); a matrix of another shape; a NaN score
    /// under the NaN policy `error`.
    pub fn run_scores(&self, scores: ScoreRows<'_>, progress: &dyn Progress) -> Result<Evaluation, Error> {
        let mut evaluator = self.score_evaluator()?;
        let expected = (evaluator.rows(), evaluator.columns());
        if (scores.rows(), scores.columns()) != expected {
            return Err(Error::invalid(format!(
                "{}: found shape ({}, {}), expected ({}, {}): one row per question, one column per entity",
                evaluator.source,
                scores.rows(),
                scores.columns(),
                expected.0,
                expected.1
            )));
        }
        evaluator.add(0, scores, progress)?;
        evaluator.finalize()
    }
}

impl ScoreEvaluator {
    /// The number of rows the matrix has: the lines of the question list.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.observed.len()
    }

    /// The number of columns every row has: the entities of the entity list.
    #[must_use]
    pub fn columns(&self) -> usize {
        self.prepared.splits.vocabulary.entity_count()
    }

    /// The number of rows given so far.
    #[must_use]
    pub fn given_rows(&self) -> usize {
        self.given
    }

    /// The system's name in the evaluation.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Ranks the rows `first_row..first_row + rows.rows()` (0-based) in parallel. A block is
    /// taken whole or not at all: on an error no row of it counts as given.
    ///
    /// # Errors
    /// A row width other than the entity count; rows past the last one; a row given before;
    /// a NaN score under the NaN policy `error`.
    pub fn add_batch(&mut self, first_row: usize, rows: ScoreRows<'_>) -> Result<(), Error> {
        self.add(first_row, rows, &NoProgress)
    }

    fn add(&mut self, first_row: usize, rows: ScoreRows<'_>, progress: &dyn Progress) -> Result<(), Error> {
        let (count, total, source) = (rows.rows(), self.rows(), &self.source);
        if rows.columns() != self.columns() && count > 0 {
            return Err(Error::invalid(format!(
                "{source}: found rows of {} columns, expected {}: one column per entity",
                rows.columns(),
                self.columns()
            )));
        }
        let end = first_row.checked_add(count).filter(|&end| end <= total).ok_or_else(|| {
            Error::invalid(format!(
                "{source}: found {count} rows from row {}, expected rows 1 to {total} (one per question line)",
                first_row.saturating_add(1)
            ))
        })?;
        if let Some(row) = (first_row..end).find(|&row| self.observed[row].is_some()) {
            return Err(Error::invalid(format!(
                "{source}:{}: found row {} (question {}) again, expected each row once",
                row + 1,
                row + 1,
                self.planned.lines[row].qid
            )));
        }
        progress.start("score rows", count as u64);
        let (plan, options) = (&self.planned.plan, self.row_options);
        let ranked: Vec<_> = (0..count)
            .into_par_iter()
            .map(|i| {
                progress.advance(1);
                plan.observe(first_row + i, &rows.row(i), options).map_err(|nan| (first_row + i, nan.column))
            })
            .collect();
        progress.finish();
        let mut observations = Vec::with_capacity(count);
        for result in ranked {
            match result {
                Ok(row) => observations.push(row),
                Err((row, column)) => {
                    return Err(self.planned.nan_error(source, row, column, "or the NaN policy worst"));
                }
            }
        }
        for (slot, row) in self.observed[first_row..end].iter_mut().zip(observations) {
            *slot = Some(row);
        }
        self.given += count;
        Ok(())
    }

    /// Evaluates the rows given: [`KgcTask::run`]'s envelope.
    ///
    /// # Errors
    /// A row never given; an evaluation error (as [`KgcTask::run`]).
    pub fn finalize(self) -> Result<Evaluation, Error> {
        if let Some(row) = self.observed.iter().position(Option::is_none) {
            return Err(Error::invalid(format!(
                "{}: found no scores for {} of {} rows (the first: row {}, question {}), expected every row",
                self.source,
                self.rows() - self.given,
                self.rows(),
                row + 1,
                self.planned.lines[row].qid
            )));
        }
        let questions = self.task.questions.as_ref().map(|q| q.name()).unwrap_or_default();
        let observed = Observed {
            observations: self.observed.into_iter().flatten().flatten().collect(),
            scope: FilterScope::Known,
            run: None,
            source: SystemSource::Scores {
                file: self.source.clone(),
                rows: questions,
                tolerance: self.row_options.tolerance,
                nan: self.row_options.nan,
            },
        };
        let evaluation = self.prepared.finish(&self.task, &self.name, &self.source, observed, self.warnings)?;
        super::envelope(vec![evaluation])
    }
}
