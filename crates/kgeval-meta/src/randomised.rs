//! The randomised procedures: Sakai's paired bootstrap test, Fisher's randomisation test,
//! randomised Tukey HSD and percentile bootstrap intervals of the means.
//!
//! **Reproducibility.** Every iteration `i` draws from its own ChaCha8 generator, keyed by a
//! seed and with stream number `i` (`ChaCha8Rng::seed_from_u64(seed)` then
//! `set_stream(i)`). Iterations run in parallel (rayon) and are reduced in index order, so a
//! result is byte-identical at any thread count. Pair `k` of the pairwise tests uses the seed
//! `seed + k · 0x9E3779B97F4A7C15` (pair 0 uses `seed` itself); the intervals use
//! `seed + 0x5851F42D4C957F2D`.
//!
//! **Uniform draws.** An index in `0..r` comes from a `u64` `x` by multiply-shift
//! (`(x · r) >> 64`, Lemire), and the low 64 bits of the product are the next `x`: one `u64`
//! drives a whole Fisher–Yates shuffle of up to 13 systems (13! < 2³³, leaving ≥ 31 bits, a
//! bias below 2⁻³¹); a new `u64` is drawn whenever the product of the ranges used would pass
//! 2⁴⁰. A coin (Fisher's sign flip) is the 2-range draw of one `u64`, exactly the swap
//! decision of a 2-system shuffle — so randomised Tukey HSD on two systems *is* Fisher's test,
//! draw for draw.
//!
//! **Estimators.** p = count / B with no +1 (Carterette 2012 for Tukey, Sakai 2006 for the
//! bootstrap ASL, Smucker et al. 2007 and ranx for Fisher). "At least as extreme" is judged
//! with a tolerance of 1e-10 × the data's largest magnitude, so that differences equal in
//! exact arithmetic are not separated by rounding (scipy's `permutation_test` does the same
//! with 100 ε).
//!
//! - Fisher: statistic |mean(s ⊙ d)| for random signs s; p = #(≥ |mean(d)|) / B.
//! - Bootstrap (shift method): z = d − mean(d); each iteration resamples n values of z with
//!   replacement and computes t* = mean / (sd / √n) (ddof = 1; t* = 0 when mean and sd are 0,
//!   ±∞ when only sd is); ASL = #(|t*| ≥ |t(d)|) / B.
//! - Tukey HSD: each iteration shuffles every item's scores across the systems and records
//!   the range (max − min) of the systems' means; p(i, j) = #(range ≥ |mean_i − mean_j|) / B.
//! - Intervals: each iteration resamples n items with replacement (the same items for every
//!   system); the bounds are the α/2 and 1 − α/2 quantiles of the B means (numpy's default
//!   linear interpolation).

use rand::{Rng as _, RngCore as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use kgeval_model::meta::significance::MeanInterval;

use crate::significance::mean_sd;
use crate::{MetaError, PairedScores};

const PAIR_STEP: u64 = 0x9E37_79B9_7F4A_7C15;
const INTERVAL_OFFSET: u64 = 0x5851_F42D_4C95_7F2D;
/// Relative tolerance of "at least as extreme", times the data's largest magnitude.
const TIE_TOLERANCE: f64 = 1e-10;

/// The seed of pair `k` (in [`crate::compare_systems`]'s pair order) derived from `seed`.
#[must_use]
pub fn pair_seed(seed: u64, pair: usize) -> u64 {
    seed.wrapping_add((pair as u64).wrapping_mul(PAIR_STEP))
}

/// The generator of iteration `iteration` under `seed`.
fn iteration_rng(seed: u64, iteration: usize) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(iteration as u64);
    rng
}

/// A uniform index in `0..range` from `x`, and the next `x` (multiply-shift).
#[inline]
fn bounded(x: u64, range: u64) -> (usize, u64) {
    let m = u128::from(x) * u128::from(range);
    ((m >> 64) as usize, m as u64)
}

fn tolerance(values: &[f64]) -> f64 {
    TIE_TOLERANCE * values.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

/// Counts, over `iterations` parallel iterations, those for which `extreme(i)` holds.
fn count_parallel(iterations: usize, extreme: impl Fn(usize) -> bool + Sync) -> usize {
    (0..iterations).into_par_iter().filter(|&i| extreme(i)).count()
}

/// Fisher's randomisation test of the paired differences `d`: p = #(|mean(s ⊙ d)| ≥
/// |mean(d)|) / B over B random sign vectors s.
#[must_use]
pub fn fisher_randomisation(d: &[f64], iterations: usize, seed: u64) -> f64 {
    if d.is_empty() || iterations == 0 {
        return f64::NAN;
    }
    let n = d.len() as f64;
    let observed = (d.iter().sum::<f64>() / n).abs();
    let tol = tolerance(d);
    let count = count_parallel(iterations, |i| {
        let mut rng = iteration_rng(seed, i);
        let mut sum = 0.0;
        for v in d {
            // Keep the value when the 2-range draw is 1, flip it when 0 (the swap of a
            // 2-system Fisher–Yates shuffle).
            let (j, _) = bounded(rng.next_u64(), 2);
            sum += if j == 1 { *v } else { -*v };
        }
        (sum / n).abs() >= observed - tol
    });
    count as f64 / iterations as f64
}

fn studentised(mean: f64, sd: f64, n: f64) -> f64 {
    crate::significance::scaled(mean, sd / n.sqrt())
}

/// Sakai's paired bootstrap test (shift method) of the differences `d`: the achieved
/// significance level #(|t*| ≥ |t(d)|) / B.
#[must_use]
pub fn bootstrap_asl(d: &[f64], iterations: usize, seed: u64) -> f64 {
    if d.len() < 2 || iterations == 0 {
        return f64::NAN;
    }
    let n = d.len();
    let (mean, sd) = mean_sd(d);
    let observed = studentised(mean, sd, n as f64).abs();
    let z: Vec<f64> = d.iter().map(|v| v - mean).collect();
    let tol = TIE_TOLERANCE * observed.min(f64::MAX);
    let count = count_parallel(iterations, |i| {
        let mut rng = iteration_rng(seed, i);
        let sample: Vec<f64> = (0..n).map(|_| z[bounded(rng.next_u64(), n as u64).0]).collect();
        let (m, s) = mean_sd(&sample);
        studentised(m, s, n as f64).abs() >= observed - tol
    });
    count as f64 / iterations as f64
}

/// The range of the system means after one random within-item shuffle (iteration
/// `iteration`). Up to 16 systems, `fixed_rows` selects the fixed-size path (the general
/// path gives the same result; a test compares them).
fn permuted_range(
    values: &[f64],
    n_systems: usize,
    n_items: usize,
    seed: u64,
    iteration: usize,
    fixed_rows: bool,
) -> f64 {
    // Items per block of random draws, and items shuffled side by side: the swaps of
    // different items are independent, which lets the processor overlap them.
    const BLOCK: usize = 512;
    const LANES: usize = 4;
    const WIDE: usize = 16;
    let k = n_systems;
    let mut rng = iteration_rng(seed, iteration);
    let mut sums = vec![0.0; k];
    // The Fisher–Yates steps: (position, range, whether the next u64 of the item is taken
    // first). The redraw points depend only on the number of systems: computed once.
    let mut budget: u64 = 1;
    let steps: Vec<(usize, u64, bool)> = (1..k)
        .rev()
        .map(|position| {
            let range = position as u64 + 1;
            let redraw = budget > (1 << 40) / range;
            budget = if redraw { range } else { budget * range };
            (position, range, redraw)
        })
        .collect();
    // Each item owns `per_item` consecutive u64 of the iteration's stream.
    let per_item = 1 + steps.iter().filter(|step| step.2).count();
    let mut draws = vec![0u64; BLOCK * per_item];
    if fixed_rows && k <= WIDE {
        // Up to 16 systems: fixed-size rows, indices masked to 0..16 (no bounds checks).
        let mut rows = [[0.0f64; WIDE]; LANES];
        for block in values.chunks(BLOCK * k) {
            let n_rows = block.len() / k;
            rng.fill(&mut draws[..n_rows * per_item]);
            for (group, chunk) in block.chunks(LANES * k).enumerate() {
                let lanes = chunk.len() / k;
                let first = group * LANES;
                let mut x = [0u64; LANES];
                let mut next = [0usize; LANES];
                for lane in 0..lanes {
                    rows[lane][..k].copy_from_slice(&chunk[lane * k..(lane + 1) * k]);
                    x[lane] = draws[(first + lane) * per_item];
                    next[lane] = (first + lane) * per_item + 1;
                }
                for &(position, range, redraw) in &steps {
                    for lane in 0..lanes {
                        if redraw {
                            x[lane] = draws[next[lane]];
                            next[lane] += 1;
                        }
                        let (j, rest) = bounded(x[lane], range);
                        x[lane] = rest;
                        rows[lane].swap(position & (WIDE - 1), j & (WIDE - 1));
                    }
                }
                for row in &rows[..lanes] {
                    for (sum, v) in sums.iter_mut().zip(row) {
                        *sum += v;
                    }
                }
            }
        }
    } else {
        let mut rows = vec![0.0; LANES * k];
        for block in values.chunks(BLOCK * k) {
            let n_rows = block.len() / k;
            rng.fill(&mut draws[..n_rows * per_item]);
            for (group, chunk) in block.chunks(LANES * k).enumerate() {
                let lanes = chunk.len() / k;
                let first = group * LANES;
                rows[..lanes * k].copy_from_slice(chunk);
                let mut x = [0u64; LANES];
                let mut next = [0usize; LANES];
                for lane in 0..lanes {
                    x[lane] = draws[(first + lane) * per_item];
                    next[lane] = (first + lane) * per_item + 1;
                }
                for &(position, range, redraw) in &steps {
                    for lane in 0..lanes {
                        if redraw {
                            x[lane] = draws[next[lane]];
                            next[lane] += 1;
                        }
                        let (j, rest) = bounded(x[lane], range);
                        x[lane] = rest;
                        rows.swap(lane * k + position, lane * k + j);
                    }
                }
                for lane in 0..lanes {
                    for (sum, v) in sums.iter_mut().zip(&rows[lane * k..(lane + 1) * k]) {
                        *sum += v;
                    }
                }
            }
        }
    }
    let n = n_items as f64;
    let (min, max) = sums.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| (lo.min(s / n), hi.max(s / n)));
    max - min
}

/// Randomised Tukey HSD (Carterette 2012) over all systems of `scores`: one p-value per pair
/// (a < b, row by row), p(a, b) = #(range ≥ |mean_a − mean_b|) / B.
///
/// # Errors
/// [`MetaError::InvalidOption`] for 0 iterations, [`MetaError::TooFew`] below 2 systems or 1
/// item.
pub fn tukey_hsd(scores: &PairedScores, iterations: usize, seed: u64) -> Result<Vec<f64>, MetaError> {
    let (k, n) = (scores.n_systems(), scores.n_items());
    if iterations == 0 {
        return Err(MetaError::InvalidOption("the number of iterations must be at least 1".into()));
    }
    if k < 2 {
        return Err(MetaError::TooFew { what: "systems".into(), needed: 2, found: k });
    }
    if n == 0 {
        return Err(MetaError::TooFew { what: format!("items of metric {}", scores.metric), needed: 1, found: 0 });
    }
    // Means summed in item order, as the permuted means are.
    let mut sums = vec![0.0; k];
    for row in scores.values.chunks_exact(k) {
        for (sum, v) in sums.iter_mut().zip(row) {
            *sum += v;
        }
    }
    let means: Vec<f64> = sums.iter().map(|s| s / n as f64).collect();
    let mut ranges: Vec<f64> =
        (0..iterations).into_par_iter().map(|i| permuted_range(&scores.values, k, n, seed, i, true)).collect();
    ranges.sort_by(f64::total_cmp);
    let tol = tolerance(&scores.values);
    let mut p_values = Vec::with_capacity(k * (k - 1) / 2);
    for a in 0..k {
        for b in a + 1..k {
            let observed = (means[a] - means[b]).abs() - tol;
            let below = ranges.partition_point(|r| *r < observed);
            p_values.push((iterations - below) as f64 / iterations as f64);
        }
    }
    Ok(p_values)
}

/// The `q`-quantile of sorted values with numpy's default linear interpolation.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let low = position.floor() as usize;
    let high = (low + 1).min(sorted.len() - 1);
    let fraction = position - low as f64;
    sorted[low] + (sorted[high] - sorted[low]) * fraction
}

/// Percentile bootstrap intervals of each system's mean: B resamples of the items with
/// replacement, bounds at the α/2 and 1 − α/2 quantiles.
///
/// # Errors
/// [`MetaError::InvalidOption`] for 0 iterations or α outside (0, 1); [`MetaError::TooFew`]
/// without items.
pub fn mean_intervals(
    scores: &PairedScores,
    iterations: usize,
    alpha: f64,
    seed: u64,
) -> Result<Vec<MeanInterval>, MetaError> {
    if iterations == 0 || !(alpha > 0.0 && alpha < 1.0) {
        return Err(MetaError::InvalidOption(format!(
            "intervals need at least 1 iteration and alpha in (0, 1), got {iterations} and {alpha}"
        )));
    }
    let (k, n) = (scores.n_systems(), scores.n_items());
    if n == 0 {
        return Err(MetaError::TooFew { what: format!("items of metric {}", scores.metric), needed: 1, found: 0 });
    }
    let seed = seed.wrapping_add(INTERVAL_OFFSET);
    let resampled: Vec<Vec<f64>> = (0..iterations)
        .into_par_iter()
        .map(|i| {
            let mut rng = iteration_rng(seed, i);
            let mut sums = vec![0.0; k];
            for _ in 0..n {
                let item = bounded(rng.next_u64(), n as u64).0;
                for (sum, v) in sums.iter_mut().zip(scores.item_row(item)) {
                    *sum += v;
                }
            }
            sums.iter().map(|s| s / n as f64).collect()
        })
        .collect();
    Ok((0..k)
        .map(|s| {
            let mut means: Vec<f64> = resampled.iter().map(|m| m[s]).collect();
            means.sort_by(f64::total_cmp);
            MeanInterval { lower: quantile(&means, alpha / 2.0), upper: quantile(&means, 1.0 - alpha / 2.0) }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_and_general_shuffles_agree() {
        // 13 systems (one u64 per item) and 16 (a second u64 per item: 16! > 2^40); 1,030
        // items cross the 512-item draw blocks and end in a partial group of lanes.
        for k in [2, 13, 16] {
            let n = 1_030;
            let values: Vec<f64> = (0..k * n).map(|i| ((i * 7_919) % 1_000) as f64 / 1_000.0).collect();
            for iteration in 0..5 {
                let fixed = permuted_range(&values, k, n, 3, iteration, true);
                let general = permuted_range(&values, k, n, 3, iteration, false);
                assert_eq!(fixed.to_bits(), general.to_bits(), "k = {k}");
            }
        }
    }

    #[test]
    fn general_shuffle_over_many_systems() {
        // 20 systems (general path, three u64 per item). One item: a shuffle keeps the
        // multiset of scores, so the range of the means is always max − min = 19.
        let k = 20;
        let values: Vec<f64> = (0..k).map(|v| v as f64).collect();
        for iteration in 0..50 {
            assert_eq!(permuted_range(&values, k, 1, 1, iteration, false), 19.0);
        }
        // A system scoring 1 on every item against 19 scoring at most 0.09: always separated.
        let n = 200;
        let mut scores = Vec::with_capacity(k * n);
        for i in 0..n {
            for s in 0..k {
                scores.push(if s == k - 1 { 1.0 } else { ((i * 31 + s * 17) % 10) as f64 / 100.0 });
            }
        }
        let paired = PairedScores::new(
            "m",
            kgeval_model::metric_names::Direction::Higher,
            (0..k).map(|s| format!("s{s}")).collect(),
            (0..n).map(|i| format!("q{i}")).collect(),
            scores,
        )
        .unwrap();
        let p = tukey_hsd(&paired, 500, 7).unwrap();
        // Pairs with the last system (index k − 1): a < b, so pair (a, k − 1).
        let mut index = 0;
        for a in 0..k {
            for b in a + 1..k {
                if b == k - 1 {
                    assert_eq!(p[index], 0.0, "pair {a},{b}");
                }
                index += 1;
            }
        }
    }
}
