//! The tie report of `kgeval trec --tie-report`: how much each run's tied scores can move its
//! numbers (docs/ties.md).

/// The ties of a run within the `-M` depth, over its judged topics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TieCounts {
    /// Topics counted.
    pub topics: usize,
    /// Topics with at least one tie group.
    pub topics_with_ties: usize,
    /// Runs of two or more documents sharing a score.
    pub groups: usize,
    /// Documents inside those groups.
    pub tied_documents: usize,
    /// Groups holding both a relevant and a non-relevant document: the only ones whose order
    /// changes a binary measure.
    pub mixed_groups: usize,
    /// Per cutoff of the measures asked for, the groups that straddle it (documents on both
    /// sides of rank k).
    pub straddling: Vec<(usize, usize)>,
}

impl TieCounts {
    /// Adds the counts of more topics (the same cutoffs).
    pub fn add(&mut self, other: &TieCounts) {
        self.topics += other.topics;
        self.topics_with_ties += other.topics_with_ties;
        self.groups += other.groups;
        self.tied_documents += other.tied_documents;
        self.mixed_groups += other.mixed_groups;
        if self.straddling.is_empty() {
            self.straddling.clone_from(&other.straddling);
        } else {
            for (mine, theirs) in self.straddling.iter_mut().zip(&other.straddling) {
                mine.1 += theirs.1;
            }
        }
    }
}

/// A measure's summary under the tie-break's order and in expectation, with the interval a
/// tie order can produce.
#[derive(Debug, Clone, PartialEq)]
pub struct TieSensitivity {
    /// The measure's printed name.
    pub measure: String,
    /// The summary under `--ties trec`.
    pub trec: f64,
    /// The summary under `--ties expected`.
    pub expected: f64,
    /// The pessimistic and optimistic summaries.
    pub range: (f64, f64),
}

/// One topic's [pessimistic, optimistic] interval of every measure whose interval is not a
/// point.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicInterval {
    /// The topic id.
    pub qid: String,
    /// `(measure, low, high)`.
    pub intervals: Vec<(String, f64, f64)>,
}

/// The tie report of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunTieReport {
    /// The run's name.
    pub run: String,
    /// Its ties.
    pub counts: TieCounts,
    /// Every summary measure (runid and relstring aside) under both policies.
    pub measures: Vec<TieSensitivity>,
    /// Topics whose value some tie order changes.
    pub topics: Vec<TopicInterval>,
}

impl RunTieReport {
    /// The measures whose summary moves by more than `threshold` between `trec` and
    /// `expected`.
    pub fn moved(&self, threshold: f64) -> impl Iterator<Item = &TieSensitivity> {
        self.measures.iter().filter(move |m| (m.trec - m.expected).abs() > threshold)
    }
}

/// The tie report of several runs: each run's, and per measure Kendall's tau-b between the
/// runs' ordering under `trec` and under `expected` (with two runs or more).
#[derive(Debug, Clone, PartialEq)]
pub struct TieReport {
    /// One report per run, in input order.
    pub runs: Vec<RunTieReport>,
    /// `(measure, tau-b)`: 1 when the ties change no pair of runs, NaN when every run scores
    /// the same under one policy (tau-b is undefined); empty with one run.
    pub orderings: Vec<(String, f64)>,
}

/// The threshold of [`RunTieReport::moved`] the reports use: a move visible at trec_eval's 4
/// decimals.
pub const TIE_MOVE_THRESHOLD: f64 = 0.001;
