//! The inputs and choices of one evaluation: a leaf module every other module of
//! [`crate::kgc`] depends on (and which depends on none of them).

use kgeval_model::kgc::conventions::RelationWeightSource;
use kgeval_model::kgc::{AnswerObservation, FilterScope};
use kgeval_model::kgc::{CategoryRule, KgcVocabulary, KnownAnswers, RelationCardinality, TestSet};
use kgeval_model::ranking::TiePolicy;
use kgeval_model::trec::{MeasureSet, Qrels, Run};
use kgeval_model::TermId;

/// The fixed inputs of one evaluation: names, the evaluated split and its questions, and the
/// known answers used for filtering.
#[derive(Debug, Clone, Copy)]
pub struct KgcData<'a> {
    /// Entity and relation names (the entity count is the candidate count before filtering).
    pub vocabulary: &'a KgcVocabulary,
    /// The evaluated split.
    pub test: &'a TestSet,
    /// Known answers of the filter files (train, valid): removed from every ranking. Only the
    /// test questions' answers are looked at ([`KnownAnswers::of_questions`] keeps no more).
    pub filters: &'a KnownAnswers,
    /// Known answers of the filter files and the test split: removed (but the target) from
    /// the rankings of micro metrics ([`KnownAnswers::with_answers_of`]).
    pub known: &'a KnownAnswers,
}

/// Relation categories and the rule that made them.
#[derive(Debug, Clone, PartialEq)]
pub struct Categories {
    /// The rule (threshold, comparison, source files).
    pub rule: CategoryRule,
    /// Every relation of the source with its category.
    pub relations: Vec<RelationCardinality>,
}

/// The choices of one evaluation.
#[derive(Debug, Clone)]
pub struct KgcOptions {
    /// How a rank is taken inside a score tie (a count policy: `optimistic`, `pessimistic`,
    /// `expected` = PyKEEN's realistic, `rounded-mean`).
    pub ties: TiePolicy,
    /// The cut-offs of Hits@k.
    pub ks: Vec<u32>,
    /// trec_eval measures of the macro IR list (`map_cut.20`, `ndcg_cut.20`); empty: none.
    pub ir_measures: MeasureSet,
    /// Relation weights for weighted micro metrics, with their source.
    pub weights: Option<(Vec<(TermId, f64)>, RelationWeightSource)>,
    /// Relation categories for the category × side breakdown.
    pub categories: Option<Categories>,
    /// Fill the per-item `ScoreTable` (every question and every answer). The CLI asks for it
    /// with `--per-item` only: on FB15k-237 it is a third of the evaluation's time.
    pub per_item: bool,
}

impl Default for KgcOptions {
    fn default() -> Self {
        Self {
            ties: TiePolicy::Realistic,
            ks: vec![1, 3, 10],
            ir_measures: default_ir_measures(),
            weights: None,
            categories: None,
            per_item: true,
        }
    }
}

/// `map_cut.20` and `ndcg_cut.20`, the IR measures of seed 004.
#[must_use]
pub fn default_ir_measures() -> MeasureSet {
    use kgeval_model::trec::{MeasureFamily, MeasureRequest};
    let cut = |family| MeasureRequest::Family { family, cutoffs: Some(vec![20]), recall_levels: None, gains: None };
    MeasureSet::from_requests(&[cut(MeasureFamily::MapCut), cut(MeasureFamily::NdcgCut)])
}

/// What one system gave.
#[derive(Debug, Clone, Copy)]
pub struct KgcInput<'a> {
    /// One observation per (question, answer); answers without one are absent (rank ∞).
    pub observations: &'a [AnswerObservation],
    /// Which known answers were removed before the observations were taken.
    pub scope: FilterScope,
    /// The system's own ranked lists (filtered), to evaluate the IR measures on instead of the
    /// list derived from the per-answer ranks (run input).
    pub ir_run: Option<&'a Run>,
    /// Qrels replacing the test answers as the relevant documents of the IR measures on
    /// `ir_run` (judgments with judged negatives); unused without a run.
    pub ir_qrels: Option<&'a Qrels>,
}
