//! Sharded KGC evaluation: per-answer comparison counts (strictly greater, tied, compared)
//! from any number of workers, summed per answer id — column shards of one row add up, row
//! shards hold other ids — then turned into ranks by the ranking core and summarised as the
//! dense path summarises them ([`CountAccumulator`]).
//!
//! The counts are integers, so merging is exact in any order; the summaries sum in id order
//! (the dense path in question order): the two agree to 1e-12.

use std::collections::BTreeMap;

use kgeval_model::kgc::results::{AdjustedMetrics, MicroScores};
use kgeval_model::kgc::RankObservation;
use kgeval_model::rank::results::RankSummary;
use kgeval_model::ranking::TiePolicy;
use kgeval_model::trec::MeasureSet;

use super::adjusted::adjusted_metrics;
use super::answers::AnswerSlot;
use super::ir_list::derived_topic;
use crate::bytes::{Reader, Writer};
use crate::ranking::{macro_mean, summarize, RankRecord, ShardCounts};
use crate::trec::{summarize_topics, topic_values};
use kgeval_model::trec::TopicScores;

/// The kind byte of a serialised [`CountAccumulator`].
pub const COUNTS_KIND: u8 = 2;

/// The layout version [`CountAccumulator::to_bytes`] writes.
pub const COUNTS_VERSION: u16 = 1;

/// No group (the macro key) was given for an answer.
const NO_GROUP: u64 = u64::MAX;

/// One answer's summed counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    counts: ShardCounts,
    /// Whether every shard gave its compared count.
    compared_known: bool,
    group: u64,
}

/// Why counts do not add, merge or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CountsError {
    /// One answer given two different groups.
    #[error("answer {id}: found group {found}, expected group {expected} (given before for this answer)")]
    GroupMismatch {
        /// The answer id.
        id: u64,
        /// The group given first.
        expected: u64,
        /// The other group.
        found: u64,
    },
    /// Bytes that are not a count accumulator's.
    #[error("{0}")]
    Bytes(String),
}

/// Per-answer counts summed over shards (see the module's text). Ids are the caller's: one per
/// (test triple, side) answer; a `group` (the aggregated question, or a relation) is the
/// macro key.
///
/// ```
/// use kgeval_metrics::kgc::CountAccumulator;
/// use kgeval_metrics::ranking::ShardCounts;
/// use kgeval_model::ranking::TiePolicy;
///
/// // Answer 7's row split in two column shards: 1 + 2 candidates above, 0 + 1 tied.
/// let mut left = CountAccumulator::new();
/// left.add(7, ShardCounts { greater: 1, tied: 0, compared: 5 }, true, None)?;
/// let mut right = CountAccumulator::new();
/// right.add(7, ShardCounts { greater: 2, tied: 1, compared: 4 }, true, None)?;
/// left.merge(&right)?;
/// let summary = left.finalize(TiePolicy::Realistic, &[1, 10], None);
/// assert_eq!(summary.micro.summary.mean_rank, Some(4.5)); // 3 above, tied with 1 other
/// # Ok::<(), kgeval_metrics::kgc::CountsError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CountAccumulator {
    entries: BTreeMap<u64, Entry>,
}

/// A finalised accumulator under one tie policy: the names and values of the dense path.
#[derive(Debug, Clone, PartialEq)]
pub struct CountSummary {
    /// Micro MR, MRR, Hits@k over the answers, and PyKEEN's adjusted metrics when every
    /// answer's compared count is known.
    pub micro: MicroScores,
    /// Best answer per group: `macro_*` (when groups were given).
    pub best: Option<RankSummary>,
    /// Mean of the per-group means: `macro_answer_mean_*` (when groups were given).
    pub answer_mean: Option<RankSummary>,
    /// trec_eval measures over each group's derived list (`map_cut_20`, `ndcg_cut_20`).
    pub ir: Vec<(String, f64)>,
}

impl CountSummary {
    /// `(name, value)` as the dense path's JSON names them (`micro_mrr`, `micro_amri`,
    /// `macro_hits@10`, `map_cut_20` …).
    #[must_use]
    pub fn values(&self) -> Vec<(String, f64)> {
        use kgeval_model::kgc::results::summary_values;
        let mut values = summary_values("micro", &self.micro.summary);
        values.extend(self.micro.adjusted.iter().flat_map(AdjustedMetrics::values));
        if let Some(best) = &self.best {
            values.extend(summary_values("macro", best));
        }
        values.extend(self.ir.iter().cloned());
        if let Some(mean) = &self.answer_mean {
            values.extend(summary_values("macro_answer_mean", mean));
        }
        values
    }
}

impl CountAccumulator {
    /// No answer yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of answers.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no answer was added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The largest count of any answer, each count on its own (`greater`, `tied`, `compared`
    /// summed over shards): what a caller that knows the entity count checks against it.
    ///
    /// ```
    /// use kgeval_metrics::kgc::CountAccumulator;
    /// use kgeval_metrics::ranking::ShardCounts;
    /// let mut counts = CountAccumulator::new();
    /// counts.add(1, ShardCounts { greater: 4, tied: 0, compared: 9 }, true, None)?;
    /// counts.add(2, ShardCounts { greater: 1, tied: 2, compared: 5 }, true, None)?;
    /// counts.add(2, ShardCounts { greater: 1, tied: 0, compared: 5 }, true, None)?;
    /// assert_eq!(counts.largest_counts(), ShardCounts { greater: 4, tied: 2, compared: 10 });
    /// # Ok::<(), kgeval_metrics::kgc::CountsError>(())
    /// ```
    #[must_use]
    pub fn largest_counts(&self) -> ShardCounts {
        self.entries.values().fold(ShardCounts::default(), |most, e| ShardCounts {
            greater: most.greater.max(e.counts.greater),
            tied: most.tied.max(e.counts.tied),
            compared: most.compared.max(e.counts.compared),
        })
    }

    /// Adds one shard's counts of answer `id` (summed with what other shards gave for it);
    /// `compared_known`: whether `counts.compared` is the shard's count of candidates.
    ///
    /// # Errors
    /// [`CountsError::GroupMismatch`] when `group` differs from the one given before (nothing
    /// is added then).
    pub fn add(
        &mut self,
        id: u64,
        counts: ShardCounts,
        compared_known: bool,
        group: Option<u64>,
    ) -> Result<(), CountsError> {
        let entry = Entry { counts, compared_known, group: group.unwrap_or(NO_GROUP) };
        self.add_entry(id, entry)
    }

    fn add_entry(&mut self, id: u64, entry: Entry) -> Result<(), CountsError> {
        match self.entries.get_mut(&id) {
            None => {
                self.entries.insert(id, entry);
            }
            Some(old) => {
                let group = match (old.group, entry.group) {
                    (a, NO_GROUP) => a,
                    (NO_GROUP, b) => b,
                    (a, b) if a == b => a,
                    (a, b) => return Err(CountsError::GroupMismatch { id, expected: a, found: b }),
                };
                *old = Entry {
                    counts: old.counts.plus(entry.counts),
                    compared_known: old.compared_known && entry.compared_known,
                    group,
                };
            }
        }
        Ok(())
    }

    /// Adds every answer of `other`, summing the counts of answers both hold (column shards).
    ///
    /// # Errors
    /// [`CountsError::GroupMismatch`]; `self` is unchanged then.
    pub fn merge(&mut self, other: &CountAccumulator) -> Result<(), CountsError> {
        let mut merged = self.clone();
        for (&id, &entry) in &other.entries {
            merged.add_entry(id, entry)?;
        }
        *self = merged;
        Ok(())
    }

    /// The most places the list of one group's answers takes for the IR measures (the macro
    /// lists [`finalize`](Self::finalize) derives: up to the group's worst rank plus its other
    /// answers, at most `depth`); 0 without groups. A caller bounding memory checks it first:
    /// the list holds 8 bytes a place.
    #[must_use]
    pub fn longest_group_list(&self, depth: Option<usize>) -> u64 {
        let mut groups: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
        for entry in self.entries.values().filter(|e| e.group != NO_GROUP) {
            let (worst, answers) = groups.entry(entry.group).or_default();
            *worst = (*worst).max(entry.counts.greater.saturating_add(entry.counts.tied).saturating_add(1));
            *answers += 1;
        }
        let longest = groups.values().map(|&(worst, answers)| worst.saturating_add(answers - 1)).max().unwrap_or(0);
        depth.map_or(longest, |depth| longest.min(depth as u64))
    }

    /// The metrics under `policy` (every policy but an order), with Hits@k at `ks`, and the
    /// macro IR `measures` (when groups were given).
    #[must_use]
    pub fn finalize(&self, policy: TiePolicy, ks: &[u32], measures: Option<&MeasureSet>) -> CountSummary {
        let records: Vec<RankRecord> = self
            .entries
            .values()
            .map(|e| {
                let position = e.counts.position();
                let observed =
                    RankObservation::Counts { greater: position.greater as u64, equal: position.equal as u64 };
                AnswerSlot { observed, candidates: None }.record(policy)
            })
            .collect();
        let summary = summarize(&records, ks);
        let adjusted = if self.entries.values().all(|e| e.compared_known) {
            let candidates: Vec<u64> = self.entries.values().map(|e| e.counts.compared.saturating_add(1)).collect();
            adjusted_metrics(&summary, &candidates)
        } else {
            None
        };
        let micro = MicroScores { summary, adjusted };
        let mut groups: BTreeMap<u64, Vec<RankRecord>> = BTreeMap::new();
        for (entry, record) in self.entries.values().zip(&records) {
            if entry.group != NO_GROUP {
                groups.entry(entry.group).or_default().push(*record);
            }
        }
        if groups.is_empty() {
            return CountSummary { micro, best: None, answer_mean: None, ir: Vec::new() };
        }
        let best: Vec<RankRecord> = groups.values().map(|r| super::evaluate::best_record(r)).collect();
        let per_group: Vec<RankSummary> = groups.values().map(|r| summarize(r, ks)).collect();
        let ir = measures.filter(|m| !m.is_empty()).map_or_else(Vec::new, |measures| {
            let depth = measures.depth_needed();
            let topics: Vec<TopicScores> = groups
                .values()
                .map(|records| TopicScores {
                    qid: String::new(),
                    missing_from_run: false,
                    values: topic_values(&derived_topic(records, depth), measures),
                    ranges: Vec::new(),
                    std_errors: Vec::new(),
                })
                .collect();
            let names = measures.measures().iter().map(|m| m.name.clone());
            names.zip(summarize_topics(&topics, measures)).collect()
        });
        CountSummary { micro, best: Some(summarize(&best, ks)), answer_mean: Some(macro_mean(&per_group)), ir }
    }

    /// The canonical bytes (layout version [`COUNTS_VERSION`], documented in
    /// `docs/ARCHITECTURE.md`): header, answer count, then per answer in id order `id`,
    /// `greater`, `tied`, `compared` (u64), `compared_known` (u8), `group` (u64, `u64::MAX`:
    /// none).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::with_header(COUNTS_KIND, COUNTS_VERSION);
        w.len(self.entries.len());
        for (&id, e) in &self.entries {
            for value in [id, e.counts.greater, e.counts.tied, e.counts.compared] {
                w.u64(value);
            }
            w.u8(u8::from(e.compared_known));
            w.u64(e.group);
        }
        w.out
    }

    /// Reads [`to_bytes`](Self::to_bytes)' layout.
    ///
    /// # Errors
    /// [`CountsError::Bytes`] saying what is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CountsError> {
        let (mut r, version) =
            Reader::with_header(bytes, COUNTS_KIND, "a KGC rank accumulator").map_err(CountsError::Bytes)?;
        if version != COUNTS_VERSION {
            return Err(CountsError::Bytes(format!(
                "found a KGC rank accumulator of layout version {version}, expected version {COUNTS_VERSION}"
            )));
        }
        let malformed = || CountsError::Bytes("found a truncated or malformed KGC rank accumulator".to_owned());
        let n = r.len().ok_or_else(malformed)?;
        let mut entries = BTreeMap::new();
        for _ in 0..n {
            let mut next = || r.u64().ok_or_else(malformed);
            let (id, greater, tied, compared) = (next()?, next()?, next()?, next()?);
            let known = match r.u8() {
                Some(0) => false,
                Some(1) => true,
                _ => return Err(malformed()),
            };
            let group = r.u64().ok_or_else(malformed)?;
            let entry = Entry { counts: ShardCounts { greater, tied, compared }, compared_known: known, group };
            if entries.insert(id, entry).is_some() {
                return Err(malformed());
            }
        }
        if !r.done() {
            return Err(malformed());
        }
        Ok(CountAccumulator { entries })
    }
}
