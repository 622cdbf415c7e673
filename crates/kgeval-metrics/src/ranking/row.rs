//! Ranks from one dense score row: a KGC question scored against every entity, with its true
//! answers (the targets) and the filter (other known true answers), in one pass over the row.

use std::ops::{Add, Mul, Sub};

use half::f16;
use half::slice::HalfFloatSliceExt as _;
use kgeval_model::ranking::{NanPolicy, ScoreRow, Tolerance};

use super::ScorePosition;

/// Columns converted and compared per step: 8 KiB of `f32` (16 KiB of `f64`), resident in L1
/// while every target of the row is counted over it.
const CHUNK: usize = 2048;

/// How [`rank_row`] compares scores.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RowOptions {
    /// Ties by LibKGE's `isclose` under this tolerance; `None`: exact ties (PyKEEN).
    pub tolerance: Option<Tolerance>,
    /// What a NaN score means.
    pub nan: NanPolicy,
}

/// Where every target of a row stands, and among how many candidates.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowPositions {
    /// One position per target, in the order the targets were given.
    pub positions: Vec<ScorePosition>,
    /// The candidates each target is ranked among: the columns neither excluded nor another
    /// target, plus the target itself, minus NaN columns under [`NanPolicy::Worst`] (PyKEEN's
    /// `number_of_options`). The same for every target of the row.
    pub candidates: usize,
}

/// A NaN score under [`NanPolicy::Error`]: the first NaN column that takes part in the ranking
/// (a target, or a column that is not excluded). The caller adds the file and the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: found a NaN score, expected a number (or rank NaN scores worst)")]
pub struct NanScore {
    /// The 0-based column (entity index).
    pub column: usize,
}

/// The position of every target of one score row (one question against all entities), with
/// filtered counts, in one pass over the row (the row is not sorted).
///
/// For a target `t` the candidates are the columns that are neither in `excluded` nor another
/// target, plus `t` itself: targets are removed from each other's counts, as the filtered
/// setting of PyKEEN and LibKGE does (every other known true answer is removed, the target
/// kept). `excluded` are the other known true answers (train, valid, …) in any order;
/// duplicates and targets in it are harmless. To keep the other targets as competitors (raw
/// ranks), call once per target. Scores of excluded columns are never looked at, so a matrix
/// filtered in advance with NaN (PyKEEN) or −∞ (LibKGE) ranks the same as an unfiltered one.
///
/// `greater` counts candidates scoring above the target, `equal` those tying with it, the target
/// included (≥ 1). Ties are exact, or LibKGE's `isclose` with `options.tolerance`
/// (`|s − t| ≤ atol + |rtol · t|`; a close score above the target ties and is not greater).
/// Scores are compared in their own precision: float64 rows in `f64` (never rounded to `f32`,
/// which could tie scores that differ), float32 rows in `f32`, float16 rows widened exactly
/// to `f32` first; the tolerance is rounded to that precision, as torch does.
///
/// NaN: under [`NanPolicy::Worst`] a NaN candidate neither outranks nor ties the target and is
/// not counted in `candidates` (PyKEEN); a NaN target ranks below every other candidate
/// (`greater = candidates − 1`, `equal = 1`).
///
/// ```
/// use std::borrow::Cow;
/// use kgeval_metrics::ranking::{rank_row, RowOptions};
/// use kgeval_model::ranking::ScoreRow;
///
/// // Entities 0..6; true answers 1 and 4; entity 0 is a known answer from train.
/// let row = ScoreRow::F32(Cow::Borrowed(&[9.0, 5.0, 7.0, 5.0, 8.0, 1.0]));
/// let ranked = rank_row(&row, &[1, 4], &[0], RowOptions::default()).unwrap();
/// // Target 1 (5.0) against 2, 3, 5 and itself: 7.0 is above, 5.0 ties.
/// assert_eq!((ranked.positions[0].greater, ranked.positions[0].equal), (1, 2));
/// // Target 4 (8.0): nothing above it once 0 (train) and 1 (the other target) are removed.
/// assert_eq!((ranked.positions[1].greater, ranked.positions[1].equal), (0, 1));
/// assert_eq!(ranked.candidates, 4);
/// ```
///
/// # Errors
/// [`NanScore`] under [`NanPolicy::Error`] when a target or a column that is not excluded
/// scores NaN.
///
/// # Panics
/// When a target or an excluded column is not a column of the row.
pub fn rank_row(
    row: &ScoreRow<'_>,
    targets: &[u32],
    excluded: &[u32],
    options: RowOptions,
) -> Result<RowPositions, NanScore> {
    match row {
        ScoreRow::F64(values) => rank_columns(&Plain(values), targets, excluded, options),
        ScoreRow::F32(values) => rank_columns(&Plain(values), targets, excluded, options),
        ScoreRow::F16(values) => rank_columns(&Widened(values), targets, excluded, options),
    }
}

/// The element a row is compared in: `f32` (float32 rows, float16 widened) or `f64`.
trait Score: Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Default {
    const INFINITY: Self;
    fn is_nan(self) -> bool;
    fn abs(self) -> Self;
    fn is_finite(self) -> bool;
    /// A tolerance in this precision (rounded to the nearest `f32` for `f32`, as torch does).
    fn from_f64(value: f64) -> Self;
}

/// `Score` for a primitive float: its own NaN, absolute value and finiteness; `from_f64`
/// converts the tolerance into its precision.
macro_rules! impl_score {
    ($float:ty) => {
        impl Score for $float {
            const INFINITY: Self = <$float>::INFINITY;
            #[inline]
            fn is_nan(self) -> bool {
                self.is_nan()
            }
            #[inline]
            fn abs(self) -> Self {
                self.abs()
            }
            #[inline]
            fn is_finite(self) -> bool {
                self.is_finite()
            }
            #[allow(clippy::cast_possible_truncation, trivial_numeric_casts, clippy::unnecessary_cast)]
            fn from_f64(value: f64) -> Self {
                value as $float
            }
        }
    };
}

impl_score!(f32);
impl_score!(f64);

/// The columns of one row as `T`: one column at a time, or every column in chunks of at most
/// [`CHUNK`].
trait Columns<T: Score> {
    fn len(&self) -> usize;
    fn get(&self, column: usize) -> T;
    fn for_each_chunk(&self, scan: impl FnMut(&[T]));
}

/// Scores compared as stored (float64, float32).
struct Plain<'a, T>(&'a [T]);

impl<T: Score> Columns<T> for Plain<'_, T> {
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn get(&self, column: usize) -> T {
        self.0[column]
    }
    fn for_each_chunk(&self, scan: impl FnMut(&[T])) {
        self.0.chunks(CHUNK).for_each(scan);
    }
}

/// float16 scores, widened exactly to `f32` a chunk at a time.
struct Widened<'a>(&'a [f16]);

impl Columns<f32> for Widened<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn get(&self, column: usize) -> f32 {
        self.0[column].to_f32()
    }
    fn for_each_chunk(&self, mut scan: impl FnMut(&[f32])) {
        let mut buffer = [0.0_f32; CHUNK];
        for chunk in self.0.chunks(CHUNK) {
            let widened = &mut buffer[..chunk.len()];
            chunk.convert_to_f32_slice(widened);
            scan(widened);
        }
    }
}

/// [`rank_row`] in the precision `T` of the row.
fn rank_columns<T: Score>(
    row: &impl Columns<T>,
    targets: &[u32],
    excluded: &[u32],
    options: RowOptions,
) -> Result<RowPositions, NanScore> {
    let ties = Ties::<T>::new(options.tolerance);
    let target_scores: Vec<T> = targets.iter().map(|&t| row.get(t as usize)).collect();
    let mut removed: Vec<u32> = Vec::with_capacity(excluded.len() + targets.len());
    removed.extend_from_slice(excluded);
    removed.extend_from_slice(targets);
    removed.sort_unstable();
    removed.dedup();

    // Counts over the whole row, then minus the removed columns (targets included).
    let mut counts = vec![(0_usize, 0_usize); targets.len()];
    let mut nan = 0;
    // The NaN count rides along with the first target that is a number (one pass fewer).
    let counter = target_scores.iter().position(|s| !s.is_nan());
    row.for_each_chunk(|chunk: &[T]| {
        if counter.is_none() {
            nan += count_nan(chunk);
        }
        for (j, (count, &target)) in counts.iter_mut().zip(&target_scores).enumerate() {
            if target.is_nan() {
                continue;
            }
            let (greater, equal, nans) =
                if Some(j) == counter { ties.count::<true>(chunk, target) } else { ties.count::<false>(chunk, target) };
            count.0 += greater;
            count.1 += equal;
            nan += nans;
        }
    });
    for &column in &removed {
        let score = row.get(column as usize);
        nan -= usize::from(score.is_nan());
        for (count, &target) in counts.iter_mut().zip(&target_scores) {
            let (greater, equal) = ties.compare(score, target);
            count.0 -= usize::from(greater);
            count.1 -= usize::from(equal);
        }
    }

    if options.nan == NanPolicy::Error && (nan > 0 || target_scores.iter().any(|s| s.is_nan())) {
        let column = (0..row.len())
            .find(|&c| {
                row.get(c).is_nan() && (removed.binary_search(&(c as u32)).is_err() || targets.contains(&(c as u32)))
            })
            .unwrap_or_default();
        return Err(NanScore { column });
    }
    let candidates = row.len() - removed.len() + 1 - nan;
    let positions = counts
        .iter()
        .zip(&target_scores)
        .map(|(&(greater, equal), target)| {
            if target.is_nan() {
                ScorePosition { greater: candidates - 1, equal: 1 }
            } else {
                // The target itself was removed with the others; it ties with itself.
                ScorePosition { greater, equal: equal + 1 }
            }
        })
        .collect();
    Ok(RowPositions { positions, candidates })
}

/// The NaN values of `values` (≤ [`CHUNK`] of them: the `u32` sum cannot overflow).
fn count_nan<T: Score>(values: &[T]) -> usize {
    values.iter().map(|s| u32::from(s.is_nan())).sum::<u32>() as usize
}

/// Exact ties, or LibKGE's `isclose` with the tolerance in the row's precision.
#[derive(Debug, Clone, Copy)]
enum Ties<T> {
    Exact,
    Close { atol: T, rtol: T },
}

impl<T: Score> Ties<T> {
    fn new(tolerance: Option<Tolerance>) -> Self {
        tolerance.map_or(Ties::Exact, |t| Ties::Close { atol: T::from_f64(t.atol), rtol: T::from_f64(t.rtol) })
    }

    /// Whether `score` is above `target` and whether it ties with it (never both).
    #[inline]
    fn compare(self, score: T, target: T) -> (bool, bool) {
        match self {
            Ties::Exact => (score > target, score == target),
            Ties::Close { atol, rtol } => {
                let close = is_close(score, target, atol + (rtol * target).abs());
                (score > target && !close, close)
            }
        }
    }

    /// How many of `values` are above `target`, how many tie with it, and (with `NAN`) how
    /// many are NaN; `values.len()` ≤ [`CHUNK`], so the `u32` sums cannot overflow.
    fn count<const NAN: bool>(self, values: &[T], target: T) -> (usize, usize, usize) {
        match self {
            Ties::Exact => count_flags::<NAN, T>(values, |s| (s > target, s == target)),
            Ties::Close { atol, rtol } => {
                let allowed = atol + (rtol * target).abs();
                if allowed.is_finite() {
                    // A difference within a finite bound is finite: one test fewer per score.
                    count_flags::<NAN, T>(values, |s| {
                        let close = (s == target) | ((s - target).abs() <= allowed);
                        (s > target && !close, close)
                    })
                } else {
                    count_flags::<NAN, T>(values, |s| {
                        let close = is_close(s, target, allowed);
                        (s > target && !close, close)
                    })
                }
            }
        }
    }
}

/// torch's `isclose` for one pair: equal, or a finite difference within `allowed`.
#[inline]
fn is_close<T: Score>(score: T, target: T, allowed: T) -> bool {
    let difference = (score - target).abs();
    (score == target) | ((difference <= allowed) & (difference < T::INFINITY))
}

/// Sums of the two flags of `compare` over `values` (≤ [`CHUNK`] of them), and of NaN values
/// when `NAN`, in a plain loop the compiler vectorises.
#[inline]
fn count_flags<const NAN: bool, T: Score>(values: &[T], compare: impl Fn(T) -> (bool, bool)) -> (usize, usize, usize) {
    let (greater, equal, nan) = values.iter().fold((0_u32, 0_u32, 0_u32), |(g, e, n), &s| {
        let (is_greater, is_equal) = compare(s);
        (g + u32::from(is_greater), e + u32::from(is_equal), if NAN { n + u32::from(s.is_nan()) } else { n })
    });
    (greater as usize, equal as usize, nan as usize)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use half::f16;

    use super::*;

    fn f32_row(values: &[f32]) -> ScoreRow<'_> {
        ScoreRow::F32(Cow::Borrowed(values))
    }

    /// (optimistic, pessimistic, realistic) of every target and the candidate count.
    fn ranks(row: &ScoreRow<'_>, targets: &[u32], options: RowOptions) -> (Vec<(f64, f64, f64)>, usize) {
        let ranked = rank_row(row, targets, &[], options).unwrap();
        let ranks = ranked.positions.iter().map(|p| (p.optimistic(), p.pessimistic(), p.realistic())).collect();
        (ranks, ranked.candidates)
    }

    #[test]
    fn pykeen_fixture_with_nan_ranked_worst() {
        // PyKEEN tests: scores [[2,2,1,3,5],[1,1,3,4,0],[1,1,3,nan,0]], true *scores* [2,3,3]
        // (columns 0, 2, 2) → optimistic [3,2,1], pessimistic [4,2,1], realistic [3.5,2,1],
        // candidates [5,5,4]: NaN compares false and only finite scores count as options.
        let rows: [(&[f32], u32); 3] =
            [(&[2.0, 2.0, 1.0, 3.0, 5.0], 0), (&[1.0, 1.0, 3.0, 4.0, 0.0], 2), (&[1.0, 1.0, 3.0, f32::NAN, 0.0], 2)];
        let expected = [((3.0, 4.0, 3.5), 5), ((2.0, 2.0, 2.0), 5), ((1.0, 1.0, 1.0), 4)];
        let worst = RowOptions { nan: NanPolicy::Worst, ..RowOptions::default() };
        for ((values, target), (rank, candidates)) in rows.into_iter().zip(expected) {
            assert_eq!(ranks(&f32_row(values), &[target], worst), (vec![rank], candidates));
        }
        // Under the default policy the NaN is an error naming its column.
        let error = rank_row(&f32_row(rows[2].0), &[2], &[], RowOptions::default()).unwrap_err();
        assert_eq!(error, NanScore { column: 3 });
        assert_eq!(error.to_string(), "column 3: found a NaN score, expected a number (or rank NaN scores worst)");
    }

    #[test]
    fn libkge_example_with_tolerance() {
        // a 10, b 10, c 10, d 11, e 9; correct a → best 2, worst 4, rounded mean 3. With a
        // 1e-4 relative tolerance, 10.0005 also ties with 10 and 10.002 is greater.
        let options = RowOptions { tolerance: Some(Tolerance::LIBKGE), ..RowOptions::default() };
        for values in [[10.0, 10.0, 10.0, 11.0, 9.0], [10.0, 10.0005, 9.9995, 10.002, 9.0]] {
            let ranked = rank_row(&f32_row(&values), &[0], &[], options).unwrap();
            let p = ranked.positions[0];
            assert_eq!((p.optimistic(), p.pessimistic(), p.rounded_mean()), (2.0, 4.0, 3.0), "{values:?}");
        }
        // Exact ties on the second row: 10.0005 and 10.002 are greater, 9.9995 lower.
        let ranked = rank_row(&f32_row(&[10.0, 10.0005, 9.9995, 10.002, 9.0]), &[0], &[], RowOptions::default());
        assert_eq!(ranked.unwrap().positions[0], ScorePosition { greater: 2, equal: 1 });
    }

    #[test]
    fn filter_and_other_targets_are_removed_but_nan_in_them_is_ignored() {
        // Columns 0..8; targets 2 and 5 (both 4.0); excluded 0 (NaN: PyKEEN-style pre-filtered),
        // 7 (−∞: LibKGE-style) and 2 again.
        let values = [f32::NAN, 6.0, 4.0, 4.0, 1.0, 4.0, 9.0, f32::NEG_INFINITY];
        let ranked = rank_row(&f32_row(&values), &[2, 5], &[7, 0, 2], RowOptions::default()).unwrap();
        // Candidates: 1, 3, 4, 6 and the target.
        assert_eq!(ranked.candidates, 5);
        for p in &ranked.positions {
            assert_eq!(*p, ScorePosition { greater: 2, equal: 2 });
        }
    }

    #[test]
    fn nan_target_ranks_last_or_is_an_error() {
        let values = [3.0, f32::NAN, 1.0, f32::NAN, 2.0];
        let worst = RowOptions { nan: NanPolicy::Worst, ..RowOptions::default() };
        let ranked = rank_row(&f32_row(&values), &[1], &[], worst).unwrap();
        // Candidates 0, 2, 4 and the target (column 3, NaN, is dropped).
        assert_eq!((ranked.candidates, ranked.positions[0]), (4, ScorePosition { greater: 3, equal: 1 }));
        let error = rank_row(&f32_row(&values), &[1], &[3], RowOptions::default()).unwrap_err();
        assert_eq!(error.column, 1);
    }

    #[test]
    fn float16_rows_rank_like_their_float32_widening() {
        let values: Vec<f32> = (0..5000).map(|i| ((i * 7919) % 257) as f32 / 8.0).collect();
        let halves: Vec<f16> = values.iter().map(|&v| f16::from_f32(v)).collect();
        let widened: Vec<f32> = halves.iter().map(|h| h.to_f32()).collect();
        let targets = [0, 17, 4096, 4999];
        let excluded = [1, 2, 3, 4500];
        for options in
            [RowOptions::default(), RowOptions { tolerance: Some(Tolerance::LIBKGE), ..RowOptions::default() }]
        {
            let half = rank_row(&ScoreRow::F16(Cow::Borrowed(&halves)), &targets, &excluded, options).unwrap();
            let full = rank_row(&f32_row(&widened), &targets, &excluded, options).unwrap();
            assert_eq!(half, full);
            assert_eq!(half.candidates, 5000 - 8 + 1);
        }
    }

    #[test]
    fn float64_rows_rank_like_float32_on_the_same_values_and_keep_finer_differences() {
        // The PyKEEN fixture row in float64: the same counts as in float32.
        let values = [2.0, 2.0, 1.0, 3.0, 5.0];
        let wide = rank_row(&ScoreRow::F64(Cow::Borrowed(&values)), &[0], &[], RowOptions::default()).unwrap();
        let narrow = values.map(|v| v as f32);
        assert_eq!(wide, rank_row(&f32_row(&narrow), &[0], &[], RowOptions::default()).unwrap());
        assert_eq!(wide.positions[0], ScorePosition { greater: 2, equal: 2 });
        // Column 1 lowered by 1e-12 (below f32's resolution at 2, 2^-22): no longer a tie in
        // f64; rounded to f32 it ties again.
        let values = [2.0, 2.0 - 1e-12, 1.0, 3.0, 5.0];
        let wide = rank_row(&ScoreRow::F64(Cow::Borrowed(&values)), &[0], &[], RowOptions::default()).unwrap();
        assert_eq!(wide.positions[0], ScorePosition { greater: 2, equal: 1 });
        let narrow = values.map(|v| v as f32);
        let narrow = rank_row(&f32_row(&narrow), &[0], &[], RowOptions::default()).unwrap();
        assert_eq!(narrow.positions[0], ScorePosition { greater: 2, equal: 2 });
        // A difference of 1e-12 above the target: greater in f64, equal in f32.
        let values = [2.0, 2.0 + 1e-12, 1.0];
        let wide = rank_row(&ScoreRow::F64(Cow::Borrowed(&values)), &[0], &[], RowOptions::default()).unwrap();
        assert_eq!(wide.positions[0], ScorePosition { greater: 1, equal: 1 });
    }

    #[test]
    fn float64_tolerance_is_applied_in_float64() {
        // atol 1e-5 + rtol 1e-4 · 10 = 1.01e-3 around 10: 10.001 ties, 10.0011 is greater,
        // 9.9989 is lower; NaN and an excluded column are handled as in f32.
        let values = [10.0, 10.001, 10.0011, 9.9989, f64::NAN, 11.0];
        let options = RowOptions { tolerance: Some(Tolerance::LIBKGE), nan: NanPolicy::Worst };
        let ranked = rank_row(&ScoreRow::F64(Cow::Borrowed(&values)), &[0], &[5], options).unwrap();
        assert_eq!((ranked.candidates, ranked.positions[0]), (4, ScorePosition { greater: 1, equal: 2 }));
        let error = rank_row(&ScoreRow::F64(Cow::Borrowed(&values)), &[0], &[5], RowOptions::default());
        assert_eq!(error.unwrap_err(), NanScore { column: 4 });
    }
}
