//! IR runs and relevance judgments (TREC qrels and runs), the trec_eval measure names, and the
//! evaluation policies (tie-break, query set, relevance level) every IR result states.
//!
//! The run side is borrowed: a reader (or a user's own parser) hands the metrics engine a
//! slice of [`RunDoc`]s per query that point into its own buffer, so a 10-million-line run is
//! never copied into owned strings.

use std::fmt;

use std::hash::BuildHasher;

use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;

mod family;
mod measure;
mod relevance;
mod tie_report;

pub use measure::{
    Aggregation, GainOverrides, Measure, MeasureFamily, MeasureRequest, MeasureSet, ParameterKind, UnknownMeasure,
};
pub use relevance::{check_relevance, RelevanceOutOfRange, MAX_RELEVANCE};
pub use tie_report::{RunTieReport, TieCounts, TieReport, TieSensitivity, TopicInterval, TIE_MOVE_THRESHOLD};

/// The order among equal scores, shared with the ranking core (`kgeval trec --tie-break`).
pub use crate::ranking::TieBreak;
/// How measures are valued over tied scores (`kgeval trec --ties`).
pub use crate::ranking::Ties;

/// One retrieved document of a run line: `qid Q0 docno rank score tag`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunDoc<'a> {
    /// The document id (UTF-8, no whitespace).
    pub docno: &'a str,
    /// The retrieval score (finite; readers reject NaN and infinities).
    pub score: f64,
    /// The rank column as written (trec_eval ignores it; `--tie-break rank` uses it).
    pub rank: i64,
    /// The position of the line in the input (any increasing number: byte offset, line
    /// number); `--tie-break input` keeps this order among equal scores, and error messages
    /// turn it back into a line.
    pub position: u64,
}

/// Which topics are evaluated and averaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum QuerySet {
    /// Topics present in both the qrels and the run (trec_eval's documented default).
    #[default]
    Intersection,
    /// Every qrels topic; topics the run lacks are scored on an empty ranking (trec_eval `-c`).
    Complete,
}

impl QuerySet {
    /// The JSON name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            QuerySet::Intersection => "intersection",
            QuerySet::Complete => "complete",
        }
    }
}

/// The policies of one IR evaluation; every result carries them.
#[derive(Debug, Clone, PartialEq)]
pub struct IrOptions {
    /// Order among equal scores.
    pub tie_break: TieBreak,
    /// How measures are valued over tied scores: the tie-break's order (default) or a value
    /// that does not depend on it.
    pub ties: Ties,
    /// Evaluated topics.
    pub query_set: QuerySet,
    /// A document is relevant iff its judgment is ≥ this level (trec_eval `-l`, default 1).
    pub relevance_level: i64,
    /// Apply the relevance level to the gain measures too (ndcg, ndcg_cut, dcg, ideal_dcg,
    /// ndcg_rel, Rndcg, G, rbp: judgments below it gain as level 0); trec_eval ignores it there.
    pub ndcg_uses_level: bool,
    /// Only the first `max_docs` documents of each ranking count (trec_eval `-M`).
    pub max_docs: Option<usize>,
}

impl Default for IrOptions {
    fn default() -> Self {
        IrOptions {
            tie_break: TieBreak::default(),
            ties: Ties::default(),
            query_set: QuerySet::default(),
            relevance_level: 1,
            ndcg_uses_level: false,
            max_docs: None,
        }
    }
}

/// The judgments of one topic: docno → relevance value (negative = in the pool but not
/// judged).
///
/// Held in three allocations whatever the number of judgments — the docnos one after the
/// other, the relevance values, and an open-addressing index of the judgments by docno hash —
/// so reading a large qrels allocates per topic, not per line.
#[derive(Clone, Default)]
pub struct TopicJudgments {
    /// Every docno, one after the other.
    text: String,
    /// Where each judgment's docno ends in `text` (it starts where the previous one ends).
    ends: Vec<usize>,
    /// Each judgment's relevance value.
    values: Vec<i64>,
    /// Judgment index + 1 by docno hash (0: an empty slot); a power of two at least twice
    /// the judgments, or empty.
    slots: Vec<u32>,
}

impl TopicJudgments {
    /// Makes room for `judgments` more judgments of docnos of `text_bytes` bytes in all, so
    /// recording them allocates nothing (a reader that knows a topic's size says it first).
    pub fn reserve(&mut self, judgments: usize, text_bytes: usize) {
        self.text.reserve(text_bytes);
        self.ends.reserve(judgments);
        self.values.reserve(judgments);
        let wanted = (2 * (self.values.len() + judgments)).next_power_of_two();
        if wanted > self.slots.len() {
            self.rebuild(wanted.max(8));
        }
    }

    /// Records a judgment; returns the previous value when `docno` was already judged.
    pub fn insert(&mut self, docno: &str, relevance: i64) -> Option<i64> {
        let hash = FxBuildHasher.hash_one(docno);
        if let Some(at) = self.find(hash, docno) {
            return Some(std::mem::replace(&mut self.values[at], relevance));
        }
        self.text.push_str(docno);
        self.ends.push(self.text.len());
        self.values.push(relevance);
        if 2 * self.values.len() > self.slots.len() {
            self.rebuild((4 * self.values.len()).next_power_of_two().max(8));
        } else {
            self.place(hash, self.values.len() - 1);
        }
        None
    }

    /// The judgment of `docno`, `None` when it was not pooled.
    #[must_use]
    pub fn get(&self, docno: &str) -> Option<i64> {
        self.find(FxBuildHasher.hash_one(docno), docno).map(|at| self.values[at])
    }

    /// Number of judgment lines (negative ones included).
    #[must_use]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the topic has no judgment.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Every (docno, relevance) in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, i64)> {
        (0..self.values.len()).map(|at| (self.docno(at), self.values[at]))
    }

    /// The relevance values, in no particular order.
    pub fn relevances(&self) -> impl Iterator<Item = i64> + '_ {
        self.values.iter().copied()
    }

    /// The docno of judgment `at`.
    fn docno(&self, at: usize) -> &str {
        let start = if at == 0 { 0 } else { self.ends[at - 1] };
        &self.text[start..self.ends[at]]
    }

    /// The first slot to probe for a docno of hash `hash`, and the mask of the slots.
    fn home(&self, hash: u64) -> (usize, usize) {
        let shift = 64 - self.slots.len().trailing_zeros();
        ((hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> shift) as usize, self.slots.len() - 1)
    }

    /// The judgment of `docno` (of hash `hash`), by index.
    fn find(&self, hash: u64, docno: &str) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let (mut slot, mask) = self.home(hash);
        loop {
            let at = self.slots[slot].checked_sub(1)? as usize;
            if self.docno(at) == docno {
                return Some(at);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Indexes judgment `at`, whose docno hashes to `hash` (not indexed yet).
    fn place(&mut self, hash: u64, at: usize) {
        let (mut slot, mask) = self.home(hash);
        while self.slots[slot] != 0 {
            slot = (slot + 1) & mask;
        }
        // A topic's judgments fit in u32 (the engine numbers documents by u32).
        self.slots[slot] = u32::try_from(at + 1).unwrap_or(u32::MAX);
    }

    /// Indexes every judgment again in `size` slots.
    fn rebuild(&mut self, size: usize) {
        self.slots.clear();
        self.slots.resize(size, 0);
        for at in 0..self.values.len() {
            self.place(FxBuildHasher.hash_one(self.docno(at)), at);
        }
    }
}

impl PartialEq for TopicJudgments {
    /// The same docnos with the same values, in whatever order they were recorded.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(docno, value)| other.get(docno) == Some(value))
    }
}

impl fmt::Debug for TopicJudgments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// TREC qrels: topics in input order, each with its judgments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Qrels {
    topics: IndexMap<Box<str>, TopicJudgments>,
}

impl Qrels {
    /// An empty set of judgments.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The judgments of `qid`, created empty on first use.
    pub fn topic_mut(&mut self, qid: &str) -> &mut TopicJudgments {
        if !self.topics.contains_key(qid) {
            self.topics.insert(qid.into(), TopicJudgments::default());
        }
        self.topics.get_mut(qid).expect("inserted above")
    }

    /// The judgments of `qid`.
    #[must_use]
    pub fn topic(&self, qid: &str) -> Option<&TopicJudgments> {
        self.topics.get(qid)
    }

    /// Every topic in input order.
    pub fn topics(&self) -> impl ExactSizeIterator<Item = (&str, &TopicJudgments)> {
        self.topics.iter().map(|(q, t)| (&**q, t))
    }

    /// Number of topics.
    #[must_use]
    pub fn len(&self) -> usize {
        self.topics.len()
    }

    /// Whether there is no topic.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.topics.is_empty()
    }
}

/// The measures of one topic of one run, in the order of the evaluated [`MeasureSet`]'s
/// [`MeasureSet::measures`].
#[derive(Debug, Clone, PartialEq)]
pub struct TopicScores {
    /// The topic id.
    pub qid: String,
    /// Whether the run retrieved nothing for the topic (scored on an empty ranking under
    /// `-c`).
    pub missing_from_run: bool,
    /// One value per measure.
    pub values: Vec<f64>,
    /// Per measure, the [pessimistic, optimistic] interval a tie order can produce (`--ties
    /// range`); empty otherwise.
    pub ranges: Vec<(f64, f64)>,
    /// Per measure, the standard error of a value estimated from random orders of the tie
    /// groups (`None`: exact); empty when every value is exact.
    pub std_errors: Vec<Option<f64>>,
}

/// The evaluation of one run against qrels.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEvaluation {
    /// The tag of the last run line (trec_eval's `runid`).
    pub run_id: String,
    /// The run's name (given as `NAME=PATH`, else the file's stem); empty when the caller
    /// gave none.
    pub name: String,
    /// The file the run came from, as named by the user.
    pub source: String,
    /// Per-topic values, qids in strcmp (byte) order.
    pub topics: Vec<TopicScores>,
    /// The `relstring` of each topic, in the order of `topics`; empty when `relstring` was
    /// not asked for.
    pub relstrings: Vec<String>,
    /// The summary over the evaluated topics, one value per measure (means; counts summed;
    /// geometric means for `gm_*`).
    pub summary: Vec<f64>,
    /// Qrels topics the run has no line for.
    pub qrels_topics_missing_from_run: Vec<String>,
    /// Run topics without qrels (never evaluated).
    pub run_topics_missing_from_qrels: Vec<String>,
    /// Topics with at least two retrieved documents sharing a score (within the `-M` depth).
    pub topics_with_tied_scores: usize,
    /// The summary of each measure's pessimistic and optimistic values (`--ties range`);
    /// empty otherwise.
    pub summary_ranges: Vec<(f64, f64)>,
    /// The standard error of each summary value that averages an estimate (`None`: exact);
    /// empty when every value is exact.
    pub summary_std_errors: Vec<Option<f64>>,
}

/// The evaluation of one or more runs against one qrels.
#[derive(Debug, Clone, PartialEq)]
pub struct IrEvaluation {
    /// The qrels file as named by the user.
    pub qrels_source: String,
    /// The policies used.
    pub options: IrOptions,
    /// The measures, in output order.
    pub measures: MeasureSet,
    /// One evaluation per run, in command-line order.
    pub runs: Vec<RunEvaluation>,
}

/// A run the metrics engine can evaluate topic by topic, in parallel: a reader's memory-mapped
/// file or the in-memory [`Run`]. Topics are indexed `0..topic_count()` in any order; documents
/// are handed out as borrowed [`RunDoc`]s in input order.
pub trait RunSource: Sync {
    /// What reading a topic's documents can fail with (malformed lines found lazily).
    type Error: Send;

    /// The tag of the last run line (trec_eval's `runid`).
    fn run_id(&self) -> &str;

    /// Number of distinct topics.
    fn topic_count(&self) -> usize;

    /// The id of topic `index`.
    fn topic_id(&self, index: usize) -> &str;

    /// Clears `out` and fills it with the documents of topic `index` in input order.
    ///
    /// # Errors
    /// When a line of the topic is malformed or a docno repeats within the topic.
    fn topic_docs<'a>(&'a self, index: usize, out: &mut Vec<RunDoc<'a>>) -> Result<(), Self::Error>;
}

/// An owned run line, for runs built in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnedRunDoc {
    /// The document id.
    pub docno: String,
    /// The retrieval score.
    pub score: f64,
    /// The rank column.
    pub rank: i64,
}

/// A run held in memory: topics in insertion order, documents in input order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Run {
    /// The run tag.
    pub run_id: String,
    /// (qid, documents).
    pub topics: Vec<(String, Vec<OwnedRunDoc>)>,
}

impl Run {
    /// Adds a document to `qid` (a new topic on first use).
    pub fn push(&mut self, qid: &str, docno: &str, score: f64) {
        let slot = match self.topics.iter().position(|(q, _)| q == qid) {
            Some(slot) => slot,
            None => {
                self.topics.push((qid.to_owned(), Vec::new()));
                self.topics.len() - 1
            }
        };
        let docs = &mut self.topics[slot].1;
        let rank = docs.len() as i64 + 1;
        docs.push(OwnedRunDoc { docno: docno.to_owned(), score, rank });
    }
}

/// A docno repeated within a topic of an in-memory [`Run`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateDoc {
    /// The topic.
    pub qid: String,
    /// The repeated docno.
    pub docno: String,
}

impl fmt::Display for DuplicateDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "topic {}: document {} is retrieved twice", self.qid, self.docno)
    }
}

impl std::error::Error for DuplicateDoc {}

impl RunSource for Run {
    type Error = DuplicateDoc;

    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn topic_count(&self) -> usize {
        self.topics.len()
    }

    fn topic_id(&self, index: usize) -> &str {
        &self.topics[index].0
    }

    fn topic_docs<'a>(&'a self, index: usize, out: &mut Vec<RunDoc<'a>>) -> Result<(), DuplicateDoc> {
        out.clear();
        let (qid, docs) = &self.topics[index];
        let mut seen = rustc_hash::FxHashSet::default();
        for (position, doc) in docs.iter().enumerate() {
            if !seen.insert(doc.docno.as_str()) {
                return Err(DuplicateDoc { qid: qid.clone(), docno: doc.docno.clone() });
            }
            out.push(RunDoc { docno: &doc.docno, score: doc.score, rank: doc.rank, position: position as u64 });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A topic's judgments behave as a map of docno to value: insert (the previous value
        /// back, the value replaced), get, len, iter and equality in any recording order, over
        /// docnos of every length (the empty one too) and many judgments (the index rebuilt).
        #[test]
        fn behave_as_a_map(lines in proptest::collection::vec((0u16..300, -1i64..3), 0..400)) {
            let docno = |d: u16| if d == 0 { String::new() } else { format!("d{}", "x".repeat(usize::from(d % 7))) + &d.to_string() };
            let mut judgments = TopicJudgments::default();
            if lines.len() % 2 == 0 {
                judgments.reserve(lines.len() / 2, lines.len());
            }
            let mut map = std::collections::HashMap::new();
            for &(d, value) in &lines {
                proptest::prop_assert_eq!(judgments.insert(&docno(d), value), map.insert(docno(d), value));
            }
            proptest::prop_assert_eq!(judgments.len(), map.len());
            proptest::prop_assert_eq!(judgments.is_empty(), map.is_empty());
            for d in 0..300 {
                proptest::prop_assert_eq!(judgments.get(&docno(d)), map.get(&docno(d)).copied());
            }
            let mut listed: Vec<(String, i64)> = judgments.iter().map(|(d, v)| (d.to_owned(), v)).collect();
            listed.sort();
            let mut expected: Vec<(String, i64)> = map.iter().map(|(d, &v)| (d.clone(), v)).collect();
            expected.sort();
            proptest::prop_assert_eq!(&listed, &expected);
            let mut values: Vec<i64> = judgments.relevances().collect();
            values.sort_unstable();
            let mut expected_values: Vec<i64> = map.values().copied().collect();
            expected_values.sort_unstable();
            proptest::prop_assert_eq!(values, expected_values);
            // The same map recorded in reverse order is equal; one value changed is not.
            let mut reversed = TopicJudgments::default();
            for (d, v) in expected.iter().rev() {
                reversed.insert(d, *v);
            }
            proptest::prop_assert_eq!(&reversed, &judgments);
            if let Some((d, v)) = expected.first() {
                reversed.insert(d, v + 1);
                proptest::prop_assert_ne!(&reversed, &judgments);
            }
        }
    }
}
