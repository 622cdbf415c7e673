//! The one ranking core shared by every ranking family (local ranking with NIL, IR runs,
//! knowledge-graph completion): the rank of a target under a named [`TiePolicy`], full orders
//! under a [`TieBreak`] for the order policies and for retrieved lists ([`sort_run`]:
//! trec_eval's order and its alternatives, one comparison for all: [`score_key`] then
//! [`break_tie`]), the filtered positions of every target of a dense score row ([`rank_row`],
//! KGC score matrices), per-query [`RankRecord`]s, and their aggregation (mean over queries,
//! breakdown by any grouping key, macro over groups with counts summed).
//!
//! ```
//! use kgeval_metrics::ranking::{rank_of, summarize, RankRecord};
//! use kgeval_model::ranking::{TieBreak, TiePolicy};
//!
//! // Candidates (identifier, score) in submission order; the target is "b".
//! let pool = [("a", 0.9), ("b", 0.5), ("c", 0.5), ("d", 0.1)];
//! assert_eq!(rank_of(&pool, 1, TiePolicy::Optimistic), 2.0);
//! assert_eq!(rank_of(&pool, 1, TiePolicy::Pessimistic), 3.0);
//! assert_eq!(rank_of(&pool, 1, TiePolicy::Realistic), 2.5);
//! // trec_eval's order: "c" before "b" among the 0.5s.
//! assert_eq!(rank_of(&pool, 1, TiePolicy::Order(TieBreak::DocnoDescending)), 3.0);
//!
//! let records = [RankRecord::at(2.0), RankRecord::at(1.0)];
//! let summary = summarize(&records, &[1, 5, 10]);
//! assert_eq!(summary.mrr, 0.75);
//! assert_eq!(summary.hits_at(1), Some(0.5));
//! ```
//!
//! [`TiePolicy`]: kgeval_model::ranking::TiePolicy
//! [`TieBreak`]: kgeval_model::ranking::TieBreak

mod aggregate;
mod equal_keys;
mod list_set;
mod rank;
mod row;
mod run;
mod shard;

pub use aggregate::{macro_mean, record_into_table, summarize, summarize_by, RankAccumulator, RankRecord};
/// The dense score row [`rank_row`] takes (float64, float32 or float16, each compared in its own
/// precision) and its element type, re-exported from `kgeval_model` for callers that hold
/// scores in memory (numpy arrays, a model's output).
pub use kgeval_model::ranking::{ScoreDtype, ScoreRow};
pub use list_set::ListSet;
pub use rank::{order, quantize_12dp, rank_in_permutation, rank_of, ScorePosition};
pub use row::{rank_row, NanScore, RowOptions, RowPositions};
pub use run::{
    break_tie, has_equal_scores, positions_and_ties, positions_and_ties_in, positions_of, rank_order, score_key,
    sort_run, TieKey,
};
pub use shard::{count_shard, ShardCounts};
