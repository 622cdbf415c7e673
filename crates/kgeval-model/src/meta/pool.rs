//! Pooling (seed 004 §3): the depth-d pool of several runs, the positives completed judgments
//! add per pool depth, and the system × metric table of a depth series.

use super::agreement::Agreement;

/// The deepest pool depth kgeval reads or builds: 10,000 (TREC pools go to depth 100, whole
/// TREC runs to 1,000; kgc-sparsity pooled the top 10). Per-depth tables are sized by the
/// depth, so a depth from a file or a flag is checked against this bound where it is read
/// (`FILE:LINE:COL` for a pool-depth file), never trusted to size an allocation.
pub const MAX_POOL_DEPTH: u32 = 10_000;

/// One item a run ranked within the pool depth for a question and nobody judged yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PooledItem {
    /// The question's index in [`Pool::questions`].
    pub question: u32,
    /// The item (a TREC docno, a KGC candidate entity).
    pub item: String,
    /// The smallest 1-based position at which a run ranks it (the depth that brings it in).
    pub depth: u32,
    /// How many runs rank it within the pool depth.
    pub runs: u32,
}

/// What building a pool removed and kept.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PoolCounts {
    /// Distinct (question, item) pairs the runs rank within the pool depth, before the judged
    /// ones are removed.
    pub candidates: usize,
    /// Of those, already judged: removed.
    pub judged: usize,
    /// Distinct (question, known answer) pairs skipped before positions were counted (KGC:
    /// test answers and filter triples; filtered ranking).
    pub known: usize,
    /// Pooled items of trivial questions (auto-negative, not to judge).
    pub auto_negative: usize,
    /// Items to judge whose depth is 1, 2, …, the pool depth (index `d - 1`).
    pub per_depth: Vec<usize>,
}

/// A depth-d pool: what is left to judge, and what the trivial-triple filter marks negative.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pool {
    /// The pool depth d (the top-d of every run).
    pub depth: u32,
    /// The runs pooled, in input order.
    pub runs: Vec<String>,
    /// The question ids, in input order.
    pub questions: Vec<String>,
    /// The items to judge: question order, then depth, then item (byte order).
    pub items: Vec<PooledItem>,
    /// The items of trivial questions, negative without judging (same order).
    pub auto_negative: Vec<PooledItem>,
    /// Counts.
    pub counts: PoolCounts,
}

/// The judgments of one pool depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DepthPositives {
    /// The pool depth (1-based).
    pub depth: u32,
    /// Judged pooled items whose smallest depth is this one.
    pub judged: usize,
    /// Of those, judged relevant (`Y`): the positives this depth adds.
    pub positives: usize,
    /// Positives of every depth up to this one.
    pub cumulative: usize,
}

/// What completed judgments add, pool depth by pool depth (`kgeval pool ingest`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PoolSummary {
    /// Distinct judged items (the first judgment of an item wins).
    pub judged: usize,
    /// Of those, relevant.
    pub positives: usize,
    /// Judged items outside the pool (depth 0: the original test labels).
    pub outside_pool: usize,
    /// Of those, relevant.
    pub outside_pool_positives: usize,
    /// Distinct pooled items.
    pub pooled: usize,
    /// Pooled items without a judgment.
    pub unjudged: usize,
    /// Depth 1 to the largest depth asked for, in order.
    pub depths: Vec<DepthPositives>,
}

/// One system at one pool depth of a depth series.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesRow {
    /// The system.
    pub system: String,
    /// The pool depth: labels are the original ones plus the judged positives up to it.
    pub depth: u32,
    /// One value per [`DepthSeries::metrics`] entry (NaN where the system has none).
    pub values: Vec<f64>,
}

/// A depth series: every system evaluated at pool depths 0..=D (`pooling_depth.csv`), and the
/// agreement of each depth's system ordering with the reference ordering.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DepthSeries {
    /// The systems, in input order.
    pub systems: Vec<String>,
    /// The metrics (columns), in the order of the evaluation's headlines.
    pub metrics: Vec<String>,
    /// Rows system-major, then depth ascending (the `pooling_depth.csv` order).
    pub rows: Vec<SeriesRow>,
    /// Positives the judgments add per depth.
    pub positives: PoolSummary,
    /// Ranking agreement (Kendall tau a/b/c with p-values, tau_AP, RBO) of every depth's
    /// system ordering with the reference ordering (depth 0 unless another table is given),
    /// per metric; `None` when no metric has a value for every system at every depth.
    pub agreement: Option<Agreement>,
}

/// What a judgment template line names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateKey {
    /// A KGC triple `head relation tail`.
    Triple {
        /// The subject.
        head: String,
        /// The predicate.
        relation: String,
        /// The object.
        tail: String,
    },
    /// A TREC document of a topic.
    Document {
        /// The topic id.
        qid: String,
        /// The document id.
        docno: String,
    },
}

/// One line of a judgment template: a pooled item to judge (or marked negative by the
/// trivial-triple filter) with its pool depth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateRow {
    /// The triple or document.
    pub key: TemplateKey,
    /// The smallest pool depth that brings it in.
    pub depth: u32,
    /// Negative without judging (the trivial-triple filter).
    pub auto_negative: bool,
}

/// A built pool with its judgment template (`kgeval pool build`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BuiltPool {
    /// The pool (question ids, items, counts).
    pub pool: Pool,
    /// The template lines: KGC triples once each (the smallest depth over the head and tail
    /// questions that pool them), or TREC documents; in pool order.
    pub rows: Vec<TemplateRow>,
}
