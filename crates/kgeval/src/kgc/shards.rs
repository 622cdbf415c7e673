//! Sharded KGC evaluation ([`ShardAccumulator`]): workers that each hold some questions (row
//! shards) or some candidate entities of every question (column shards) hand over, per answer,
//! the counts of candidates scoring strictly above it and tying with it after filtering — or a
//! score block kgeval counts itself — and the accumulators of every worker merge and finalise
//! to the metrics of the dense path under every tie policy.

use kgeval_metrics::kgc::{default_ir_measures, CountAccumulator, CountSummary};
use kgeval_metrics::ranking::{count_shard, ShardCounts};
use kgeval_model::ranking::TiePolicy;
use rayon::prelude::*;

use super::bounds::{counts_within, derived_list_within, summed_counts_within};
use super::mapped::PYKEEN_KS;
use super::memory::ScoreRows;
use crate::Error;

/// The tie policies [`ShardAccumulator::finalize`] reports, in order: PyKEEN's three rank
/// types, the expectation over the tied places, LibKGE's rounded mean.
pub const SHARD_POLICIES: [TiePolicy; 5] =
    [TiePolicy::Optimistic, TiePolicy::Pessimistic, TiePolicy::Realistic, TiePolicy::Expected, TiePolicy::RoundedMean];

/// Per-answer comparison counts summed over shards (see the module's text).
///
/// Each answer has an id (`u64`, the caller's: e.g. `side · n_test + triple index`); counts
/// given for one id by several shards are **summed** — the column shards of one question add
/// up before the rank is formed — and row shards simply hold other ids. `greater` counts the
/// candidates scoring strictly above the answer, `tied` the *other* candidates scoring the
/// same (the answer itself is never counted, so that shards add up), `compared` the
/// candidates compared (for PyKEEN's adjusted metrics). An optional group per answer (the
/// aggregated question, as `kgeval kgc` numbers them) gives the macro metrics.
///
/// ```
/// use kgeval::kgc::{ScoreRows, ScoreValues, ShardAccumulator};
/// // One question (id 0), its answer at column 1, four entities split in two column shards.
/// let mut left = ShardAccumulator::new();
/// let block = [0.9f32, 0.5];
/// left.add_scores(&[0], ScoreRows::new(ScoreValues::F32(&block), 2)?, &[1], &[0.5], None, None)?;
/// let mut right = ShardAccumulator::new();
/// let block = [0.5f32, 0.1];
/// right.add_scores(&[0], ScoreRows::new(ScoreValues::F32(&block), 2)?, &[-1], &[0.5], None, None)?;
/// left.merge(&right)?;
/// let evaluation = ShardAccumulator::from_bytes(&left.to_bytes())?.finalize(&[1, 3], None)?;
/// // One candidate above, one tied: optimistic rank 2, pessimistic 3.
/// assert_eq!(evaluation.value("optimistic", "micro_mr"), Some(2.0));
/// assert_eq!(evaluation.value("pessimistic", "micro_mr"), Some(3.0));
/// # Ok::<(), kgeval::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShardAccumulator {
    counts: CountAccumulator,
}

/// A finalised accumulator: the metrics under every policy of [`SHARD_POLICIES`].
#[derive(Debug, Clone, PartialEq)]
pub struct ShardEvaluation {
    /// `(policy name, summary)` in [`SHARD_POLICIES`] order.
    pub policies: Vec<(&'static str, CountSummary)>,
    /// The number of answers.
    pub answers: usize,
}

impl ShardEvaluation {
    /// A value by policy name and the dense path's metric name (`micro_mrr`, `macro_hits@10`).
    #[must_use]
    pub fn value(&self, policy: &str, metric: &str) -> Option<f64> {
        let (_, summary) = self.policies.iter().find(|(p, _)| *p == policy)?;
        summary.values().into_iter().find(|(name, _)| name == metric).map(|(_, v)| v)
    }
}

/// The ids of a batch as `u64`, checked non-negative.
fn ids_of(what: &str, values: &[i64]) -> Result<Vec<u64>, Error> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            u64::try_from(v).map_err(|_| Error::invalid(format!("{what}[{i}]: found {v}, expected an id ≥ 0")))
        })
        .collect()
}

/// Checks that every array of a batch has one value per answer.
fn same_length(n: usize, arrays: &[(&str, Option<usize>)]) -> Result<(), Error> {
    for (what, len) in arrays {
        if let Some(len) = len.filter(|&len| len != n) {
            return Err(Error::invalid(format!(
                "{what}: found {len} values, expected {n} (one per answer of question_ids)"
            )));
        }
    }
    Ok(())
}

impl ShardAccumulator {
    /// No answer yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of answers given so far.
    #[must_use]
    pub fn answers(&self) -> usize {
        self.counts.len()
    }

    /// Adds a batch of counts: answer `ids[i]` has `greater[i]` candidates above it and
    /// `tied[i]` others at its score in this shard; `compared` (optional) the candidates this
    /// shard compared; `groups` (optional) each answer's macro group. A batch is added whole
    /// or not at all.
    ///
    /// # Errors
    /// Arrays of other lengths, a negative value, a count of 2³² or more (no question has
    /// more candidates: [`MAX_ENTITIES`](kgeval_model::kgc::MAX_ENTITIES)), an answer given
    /// another group before.
    pub fn add_counts(
        &mut self,
        ids: &[i64],
        greater: &[i64],
        tied: &[i64],
        compared: Option<&[i64]>,
        groups: Option<&[i64]>,
    ) -> Result<(), Error> {
        let n = ids.len();
        same_length(
            n,
            &[
                ("greater", Some(greater.len())),
                ("tied", Some(tied.len())),
                ("compared", compared.map(<[i64]>::len)),
                ("groups", groups.map(<[i64]>::len)),
            ],
        )?;
        let ids = ids_of("question_ids", ids)?;
        let greater = ids_of("greater", greater)?;
        let tied = ids_of("tied", tied)?;
        let compared = compared.map(|c| ids_of("compared", c)).transpose()?;
        let groups = groups.map(|g| ids_of("groups", g)).transpose()?;
        counts_within("greater", &greater)?;
        counts_within("tied", &tied)?;
        if let Some(compared) = &compared {
            counts_within("compared", compared)?;
        }
        let mut batch = CountAccumulator::new();
        for i in 0..n {
            let counts =
                ShardCounts { greater: greater[i], tied: tied[i], compared: compared.as_ref().map_or(0, |c| c[i]) };
            batch
                .add(ids[i], counts, compared.is_some(), groups.as_ref().map(|g| g[i]))
                .map_err(|e| Error::invalid(e.to_string()))?;
        }
        self.merge_counts(&batch)
    }

    /// Adds a block of score rows (one per answer; the columns are this shard's candidates):
    /// row `i` is answer `ids[i]`, whose score is column `targets[i]` of the block, or, when
    /// `targets[i]` is −1 (the answer is in another column shard), `target_scores[i]`.
    /// `excluded` (row-major, the block's shape) marks the columns that are not candidates of
    /// a row (filtered known answers); the target's own column is never counted. Scores are
    /// compared exactly in the block's precision (rows in parallel); a NaN score is an error.
    ///
    /// # Errors
    /// Arrays of other lengths or shapes, a target outside the block, −1 without a target
    /// score, a NaN score, an answer given another group before. Nothing is added then.
    pub fn add_scores(
        &mut self,
        ids: &[i64],
        scores: ScoreRows<'_>,
        targets: &[i64],
        target_scores: &[f64],
        excluded: Option<&[bool]>,
        groups: Option<&[i64]>,
    ) -> Result<(), Error> {
        let (rows, columns) = (scores.rows(), scores.columns());
        if ids.len() != rows {
            return Err(Error::invalid(format!(
                "scores: found {rows} rows, expected {} (one per answer of question_ids)",
                ids.len()
            )));
        }
        same_length(
            rows,
            &[
                ("targets", Some(targets.len())),
                ("target_scores", (!target_scores.is_empty()).then_some(target_scores.len())),
                ("groups", groups.map(<[i64]>::len)),
            ],
        )?;
        if let Some(mask) = excluded.filter(|m| m.len() != rows * columns) {
            return Err(Error::invalid(format!(
                "filter_mask: found {} values, expected the scores' shape ({rows}, {columns})",
                mask.len()
            )));
        }
        let ids = ids_of("question_ids", ids)?;
        let groups = groups.map(|g| ids_of("groups", g)).transpose()?;
        for (i, &t) in targets.iter().enumerate() {
            if t < -1 || t >= columns as i64 {
                return Err(Error::invalid(format!(
                    "targets[{i}]: found {t}, expected a column of the block (0 to {}) or -1 (the answer is in another shard)",
                    columns.saturating_sub(1)
                )));
            }
            if t == -1 && target_scores.is_empty() {
                return Err(Error::invalid(format!(
                    "targets[{i}]: found -1 without target_scores, expected the answer's score for a target in another shard"
                )));
            }
        }
        let counted: Vec<Result<ShardCounts, String>> = (0..rows)
            .into_par_iter()
            .map(|i| {
                let row = scores.row(i);
                let skip = usize::try_from(targets[i]).ok();
                let target = match skip {
                    Some(column) => row.get(column),
                    None => target_scores[i],
                };
                let mask = excluded.map(|m| &m[i * columns..(i + 1) * columns]);
                count_shard(&row, target, skip, |c| mask.is_some_and(|m| m[c]))
                    .map_err(|nan| format!("scores[{i}, {}]: found NaN, expected a number", nan.column))
            })
            .collect();
        let mut batch = CountAccumulator::new();
        for (i, counts) in counted.into_iter().enumerate() {
            let counts = counts.map_err(Error::invalid)?;
            batch
                .add(ids[i], counts, true, groups.as_ref().map(|g| g[i]))
                .map_err(|e| Error::invalid(e.to_string()))?;
        }
        self.merge_counts(&batch)
    }

    fn merge_counts(&mut self, other: &CountAccumulator) -> Result<(), Error> {
        self.counts.merge(other).map_err(|e| Error::invalid(e.to_string()))
    }

    /// Adds another worker's answers, summing the counts of answers both hold.
    ///
    /// # Errors
    /// An answer with two different groups; `self` is unchanged then.
    pub fn merge(&mut self, other: &ShardAccumulator) -> Result<(), Error> {
        self.merge_counts(&other.counts)
    }

    /// The canonical bytes ([`CountAccumulator::to_bytes`]).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        self.counts.to_bytes()
    }

    /// Reads [`to_bytes`](Self::to_bytes)' layout.
    ///
    /// # Errors
    /// Bytes of another layout, kind or version, truncated or malformed.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Ok(ShardAccumulator { counts: CountAccumulator::from_bytes(bytes).map_err(|e| Error::invalid(e.to_string()))? })
    }

    /// The metrics of every answer under every policy of [`SHARD_POLICIES`]: Hits@k at `ks`
    /// (default PyKEEN's 1, 3, 5, 10), and with groups the macro metrics and `ir_measures`
    /// (default `map_cut.20`, `ndcg_cut.20`, as `kgeval kgc`).
    ///
    /// # Errors
    /// No answer; a cut-off of 0; an unknown IR measure; counts summed past 2³² candidates;
    /// IR measures without a cut-off whose lists, as the counts make them, would hold more
    /// than the [decompressed limit](kgeval_formats::input::decompressed_limit) (8 bytes a
    /// place).
    pub fn finalize(&self, ks: &[u32], ir_measures: Option<&[String]>) -> Result<ShardEvaluation, Error> {
        if self.counts.is_empty() {
            return Err(Error::invalid("rank accumulator: found no answer, expected counts or scores added first"));
        }
        let ks = if ks.is_empty() { PYKEEN_KS.as_slice() } else { ks };
        if let Some(i) = ks.iter().position(|&k| k == 0) {
            return Err(Error::invalid(format!("k[{i}]: found 0, expected positive cut-offs")));
        }
        let measures = match ir_measures {
            None => default_ir_measures(),
            Some(names) => super::ir_measure_set(names)?,
        };
        summed_counts_within(self.counts.largest_counts())?;
        let places = self.counts.longest_group_list(measures.depth_needed());
        derived_list_within("rank accumulator", places, &measures)?;
        let policies = SHARD_POLICIES
            .iter()
            .map(|&policy| (policy.name(), self.counts.finalize(policy, ks, Some(&measures))))
            .collect();
        Ok(ShardEvaluation { policies, answers: self.counts.len() })
    }
}
