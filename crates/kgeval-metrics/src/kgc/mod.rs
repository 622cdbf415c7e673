//! Knowledge-graph-completion metrics (seed 004, spec `kgc.md`): micro MR / MRR / Hits@k over
//! (triple, side) pairs with filtered ranks under a named tie policy, PyKEEN's adjusted metrics
//! and z-scores, relation-weighted micro metrics, macro metrics over aggregated questions
//! (best-answer MRR / MR / Hits@k, trec_eval `map_cut.20` and `ndcg_cut.20` through
//! [`crate::trec`], PyKEEN's per-answer-weighted `macro_answer_mean_*`), relation categories and
//! their breakdown by side, judgments as qrels, and the per-item score table.
//!
//! Every rank goes through the shared ranking core ([`crate::ranking`]): positions of dense
//! score rows with [`rank_row`](crate::ranking::rank_row), ranks under a tie policy with
//! [`ScorePosition`](crate::ranking::ScorePosition), runs ordered by
//! [`sort_run`](crate::ranking::sort_run) (trec_eval's order, as `kgeval trec`), and every
//! aggregate with
//! [`summarize`](crate::ranking::summarize) / [`summarize_by`](crate::ranking::summarize_by) /
//! [`macro_mean`](crate::ranking::macro_mean).
//!
//! The modules form a DAG: `data` (inputs, options) is a leaf; `answers`, `adjusted`,
//! `categories`, `run`, `scores`, `judgments` read it; `ir_list` the answers; `table` the IR
//! values; `evaluate` all of them.

mod adjusted;
mod answers;
mod categories;
mod data;
mod evaluate;
mod ir_list;
mod judgments;
mod run;
mod scores;
mod shards;
#[cfg(test)]
mod shards_tests;
mod table;

pub use adjusted::adjusted_metrics;
pub use categories::{relation_categories, relation_counts, weighted_summary};
pub use data::{default_ir_measures, Categories, KgcData, KgcInput, KgcOptions};
pub use evaluate::evaluate_kgc;
pub use judgments::{depth_series_positives, judgment_qrels, judgments_up_to_depth, JudgmentQrels};
pub use run::{observe_run, RunObservations};
pub use scores::ScorePlan;
pub use shards::{CountAccumulator, CountSummary, CountsError, COUNTS_KIND, COUNTS_VERSION};
