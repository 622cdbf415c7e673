//! One target's comparison counts against a slice of the candidates: what a worker holding a
//! shard of a score matrix (some rows, or some columns of every row) computes, to be summed
//! per target with the other shards' before the rank is formed ([`ScorePosition`]).

use half::f16;
use kgeval_model::ranking::ScoreRow;

use super::{NanScore, ScorePosition};

/// A target's counts against the candidates of one shard (the target itself never counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ShardCounts {
    /// Candidates scoring strictly above the target.
    pub greater: u64,
    /// Other candidates scoring the same as the target.
    pub tied: u64,
    /// Candidates compared (neither excluded nor the target).
    pub compared: u64,
}

impl ShardCounts {
    /// The counts of two shards of one row, summed (at most `u64::MAX`: counts that large are
    /// no entity counts, and the caller that knows the bound refuses them).
    #[must_use]
    pub fn plus(self, other: ShardCounts) -> ShardCounts {
        ShardCounts {
            greater: self.greater.saturating_add(other.greater),
            tied: self.tied.saturating_add(other.tied),
            compared: self.compared.saturating_add(other.compared),
        }
    }

    /// The position these counts give once every shard was summed: `equal` counts the target.
    #[must_use]
    pub fn position(self) -> ScorePosition {
        ScorePosition {
            greater: usize::try_from(self.greater).unwrap_or(usize::MAX),
            equal: usize::try_from(self.tied).unwrap_or(usize::MAX).saturating_add(1),
        }
    }
}

/// Counts the columns of `row` against a target scoring `target` (exact ties, in the row's
/// precision: a float32 or float16 row compares `target` rounded to float32, which is exact
/// for a score read from such a row). Column `skip` (the target's own, when it is in this
/// shard) and the columns `excluded` says are not candidates (filtered known answers) are
/// not counted.
///
/// ```
/// use std::borrow::Cow;
/// use kgeval_metrics::ranking::{count_shard, ShardCounts};
/// use kgeval_model::ranking::ScoreRow;
///
/// // A shard of four columns; the target (score 5, in another shard) ties with column 1,
/// // column 0 is filtered.
/// let row = ScoreRow::F32(Cow::Borrowed(&[9.0, 5.0, 7.0, 1.0]));
/// let counts = count_shard(&row, 5.0, None, |c| c == 0).unwrap();
/// assert_eq!(counts, ShardCounts { greater: 1, tied: 1, compared: 3 });
/// ```
///
/// # Errors
/// [`NanScore`] for a NaN target (column `skip`, or 0 when the target is elsewhere) or a NaN
/// in a counted column.
pub fn count_shard(
    row: &ScoreRow<'_>,
    target: f64,
    skip: Option<usize>,
    excluded: impl Fn(usize) -> bool,
) -> Result<ShardCounts, NanScore> {
    if target.is_nan() {
        return Err(NanScore { column: skip.unwrap_or(0) });
    }
    match row {
        ScoreRow::F64(values) => count(values.iter().copied(), target, skip, excluded),
        ScoreRow::F32(values) => count(values.iter().copied(), target as f32, skip, excluded),
        ScoreRow::F16(values) => count(values.iter().map(|v| f16::to_f32(*v)), target as f32, skip, excluded),
    }
}

/// [`count_shard`] in the precision `T`.
fn count<T: PartialOrd + Copy>(
    values: impl Iterator<Item = T>,
    target: T,
    skip: Option<usize>,
    excluded: impl Fn(usize) -> bool,
) -> Result<ShardCounts, NanScore> {
    let mut counts = ShardCounts::default();
    for (column, value) in values.enumerate() {
        if Some(column) == skip || excluded(column) {
            continue;
        }
        counts.compared += 1;
        if value > target {
            counts.greater += 1;
        } else if value == target {
            counts.tied += 1;
        } else if value.partial_cmp(&target).is_none() {
            return Err(NanScore { column });
        }
    }
    Ok(counts)
}
