//! Dense score rows: which question each row asks, its answers (the targets) and its known
//! answers (the filter), and the observations [`rank_row`] gives.

use kgeval_model::kgc::{AnswerObservation, QuestionKey, RankObservation};
use kgeval_model::ranking::ScoreRow;
use kgeval_model::TermId;
use rustc_hash::FxHashMap;

use super::data::KgcData;
use crate::ranking::{rank_row, NanScore, RowOptions};

/// What to rank in each row of a score matrix (rows = questions in the order of a question
/// list, columns = entities in the order of the entity list).
#[derive(Debug, Clone, Default)]
pub struct ScorePlan {
    rows: Vec<Option<RowPlan>>,
    missing: Vec<u32>,
    unknown: Vec<usize>,
    repeated: Vec<(usize, usize)>,
}

#[derive(Debug, Clone)]
struct RowPlan {
    question: u32,
    answers: Vec<TermId>,
    targets: Vec<u32>,
    excluded: Vec<u32>,
}

impl ScorePlan {
    /// The plan for rows asking `row_questions` (`None`: a row whose entity or relation is in
    /// no triple file). The vocabulary of `data` must be the entity list's (entity id =
    /// column).
    #[must_use]
    pub fn new(data: &KgcData<'_>, row_questions: &[Option<QuestionKey>]) -> Self {
        let questions = &data.test.questions;
        let mut plan = ScorePlan::default();
        let mut first_row: FxHashMap<u32, usize> = FxHashMap::default();
        for (row, key) in row_questions.iter().enumerate() {
            let Some(question) = key.as_ref().and_then(|k| questions.index_of(k)) else {
                plan.unknown.push(row);
                plan.rows.push(None);
                continue;
            };
            if let Some(&first) = first_row.get(&question) {
                plan.repeated.push((row, first));
                plan.rows.push(None);
                continue;
            }
            first_row.insert(question, row);
            let q = questions.get(question);
            plan.rows.push(Some(RowPlan {
                question,
                answers: q.answers.clone(),
                targets: q.answers.iter().map(|a| a.index()).collect(),
                excluded: data.known.answers(&q.key).iter().map(|a| a.index()).collect(),
            }));
        }
        plan.missing = (0..questions.len() as u32).filter(|q| !first_row.contains_key(q)).collect();
        plan
    }

    /// Test questions without a row (indices into the question set).
    #[must_use]
    pub fn missing_questions(&self) -> &[u32] {
        &self.missing
    }

    /// Rows that ask no test question (skipped).
    #[must_use]
    pub fn rows_without_question(&self) -> &[usize] {
        &self.unknown
    }

    /// Rows asking a question an earlier row asked: `(row, first row)` (skipped).
    #[must_use]
    pub fn repeated_rows(&self) -> &[(usize, usize)] {
        &self.repeated
    }

    /// The number of rows planned.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row is planned.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The fully filtered observations of every answer of row `row` (none for a skipped row):
    /// tie counts over the candidates that are no other known answer, and that count.
    ///
    /// # Errors
    /// [`NanScore`] under the NaN policy `error` when a candidate scores NaN.
    ///
    /// # Panics
    /// When `row` is not a planned row or the row is shorter than the entity list.
    pub fn observe(
        &self,
        row: usize,
        scores: &ScoreRow<'_>,
        options: RowOptions,
    ) -> Result<Vec<AnswerObservation>, NanScore> {
        let Some(plan) = &self.rows[row] else { return Ok(Vec::new()) };
        let ranked = rank_row(scores, &plan.targets, &plan.excluded, options)?;
        Ok(plan
            .answers
            .iter()
            .zip(&ranked.positions)
            .map(|(&answer, position)| AnswerObservation {
                question: plan.question,
                answer,
                observed: RankObservation::Counts { greater: position.greater as u64, equal: position.equal as u64 },
                candidates: Some(ranked.candidates as u64),
            })
            .collect())
    }
}
