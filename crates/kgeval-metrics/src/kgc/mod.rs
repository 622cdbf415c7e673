//! Knowledge-graph-completion metrics (seed 004, spec `kgc.md`): micro MR / MRR / Hits@k over
//! (triple, side) pairs with filtered ranks under a named tie policy, PyKEEN's adjusted metrics
//! and z-scores, relation-weighted micro metrics, macro metrics over aggregated questions
//! (best-answer MRR / MR / Hits@k, trec_eval `map_cut.20` and `ndcg_cut.20` through
//! [`crate::ir`], PyKEEN's per-answer-weighted `macro_answer_mean_*`), relation categories and
//! their breakdown by side, judgments as qrels, and the per-item score table.
//!
//! Every rank goes through the shared ranking core ([`crate::ranking`]): positions of dense
//! score rows with [`rank_row`](crate::ranking::rank_row), ranks under a tie policy with
//! [`ScorePosition`](crate::ranking::ScorePosition), runs ordered by
//! [`order`](crate::ranking::order), and every aggregate with
//! [`summarize`](crate::ranking::summarize) / [`summarize_by`](crate::ranking::summarize_by) /
//! [`macro_mean`](crate::ranking::macro_mean).

mod adjusted;
mod answers;
mod categories;
mod evaluate;
mod ir_list;
mod judgments;
mod run;
mod scores;
mod table;

use kgeval_model::ir::MeasureSet;
use kgeval_model::kgc::{CategoryRule, KgcVocabulary, KnownAnswers, RelationCardinality, TestSet};
use kgeval_model::ranking::TiePolicy;
use kgeval_model::TermId;

pub use adjusted::adjusted_metrics;
pub use categories::{relation_categories, relation_counts, weighted_summary};
pub use evaluate::{evaluate_kgc, KgcInput};
pub use judgments::{depth_series_positives, judgment_qrels, judgments_up_to_depth, JudgmentQrels};
pub use run::{observe_run, RunObservations};
pub use scores::ScorePlan;

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
    /// Relation weights for weighted micro metrics, with a description of their source.
    pub weights: Option<(Vec<(TermId, f64)>, String)>,
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
    use kgeval_model::ir::{MeasureFamily, MeasureRequest};
    let cut = |family| MeasureRequest::Family { family, cutoffs: Some(vec![20]), recall_levels: None, gains: None };
    MeasureSet::from_requests(&[cut(MeasureFamily::MapCut), cut(MeasureFamily::NdcgCut)])
}
