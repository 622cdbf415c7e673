//! Kendall's tau (a, b, c) between two score vectors, as `scipy.stats.kendalltau` 1.17.
//!
//! P = concordant pairs, Q = discordant, T = tied only in x, U = tied only in y, n items,
//! N = n(n−1)/2 pairs:
//!
//! - tau-a = (P − Q) / N;
//! - tau-b = (P − Q) / √((P+Q+T)(P+Q+U)) (the default, scipy's `variant='b'`);
//! - tau-c = 2(P − Q) / (n²(m−1)/m), m = the smaller number of distinct values (scipy's `'c'`).
//!
//! The pairs are counted with Knight's O(n log n) algorithm (as scipy): sort by x then y,
//! count discordant pairs as the swaps of a merge sort of y, and tie groups from the sorted
//! runs. The two-sided p-value is scipy's `method='auto'`: exact (Kendall's recurrence for the
//! number of concordant pairs) when there is no tie and n ≤ 33 or at most one pair is
//! discordant (or concordant); otherwise the normal approximation with the tie-corrected
//! variance. It depends only on P − Q, so it is the same for every variant.
//!
//! Edge cases (as scipy): fewer than two items, or a constant vector → tau and p NaN
//! ([`PValueMethod::Undefined`]). A NaN value is an error (scipy would propagate NaN);
//! infinities are ordinary values.
//!
//! ```
//! use kgeval_meta::kendall::kendall_tau;
//! use kgeval_model::meta::agreement::{PValueMethod, TauVariant};
//!
//! // P = 5, Q = 1 (the pair 3,4 is swapped): tau = 4/6; exact p = 2·(1 + 3)/4! = 1/3.
//! let tau = kendall_tau(&[1.0, 2.0, 3.0, 4.0], &[1.0, 2.0, 4.0, 3.0], TauVariant::B).unwrap();
//! assert!((tau.tau - 2.0 / 3.0).abs() < 1e-15);
//! assert!((tau.p_value - 1.0 / 3.0).abs() < 1e-15);
//! assert_eq!(tau.method, PValueMethod::Exact);
//! ```

use kgeval_model::meta::agreement::{KendallTau, PValueMethod, TauVariant};

use crate::MetaError;

mod normal;
pub(crate) use normal::normal_cdf;

/// The pair counts of two vectors: everything every variant and the p-value need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KendallCounts {
    /// Items.
    pub n: u64,
    /// Discordant pairs Q.
    pub discordant: u64,
    /// Pairs tied in x (including those tied in both).
    pub ties_x: u64,
    /// Pairs tied in y (including those tied in both).
    pub ties_y: u64,
    /// Pairs tied in both x and y.
    pub ties_xy: u64,
    /// Distinct values of x.
    pub distinct_x: u64,
    /// Distinct values of y.
    pub distinct_y: u64,
    /// Σ t(t−1)(t−2) over the tie groups of x (variance term).
    pub x0: u128,
    /// Σ t(t−1)(2t+5) over the tie groups of x (variance term).
    pub x1: u128,
    /// Σ t(t−1)(t−2) over the tie groups of y.
    pub y0: u128,
    /// Σ t(t−1)(2t+5) over the tie groups of y.
    pub y1: u128,
}

impl KendallCounts {
    /// All pairs, n(n−1)/2.
    #[must_use]
    pub fn pairs(&self) -> u64 {
        self.n * self.n.saturating_sub(1) / 2
    }

    /// Concordant pairs P.
    #[must_use]
    pub fn concordant(&self) -> u64 {
        self.pairs() + self.ties_xy - self.ties_x - self.ties_y - self.discordant
    }

    /// Pairs tied in x only (T).
    #[must_use]
    pub fn ties_x_only(&self) -> u64 {
        self.ties_x - self.ties_xy
    }

    /// Pairs tied in y only (U).
    #[must_use]
    pub fn ties_y_only(&self) -> u64 {
        self.ties_y - self.ties_xy
    }

    /// P − Q.
    #[must_use]
    pub fn con_minus_dis(&self) -> i128 {
        i128::from(self.concordant()) - i128::from(self.discordant)
    }

    /// Whether tau is undefined: fewer than two items or a constant vector.
    #[must_use]
    pub fn is_degenerate(&self) -> bool {
        let pairs = self.pairs();
        self.n < 2 || self.ties_x == pairs || self.ties_y == pairs
    }

    /// The correlation of `variant`, clipped to [−1, 1] as scipy does; NaN when degenerate.
    #[must_use]
    pub fn tau(&self, variant: TauVariant) -> f64 {
        if self.is_degenerate() {
            return f64::NAN;
        }
        let cmd = self.con_minus_dis() as f64;
        let pairs = self.pairs();
        let tau = match variant {
            TauVariant::A => cmd / pairs as f64,
            TauVariant::B => cmd / ((pairs - self.ties_x) as f64).sqrt() / ((pairs - self.ties_y) as f64).sqrt(),
            TauVariant::C => {
                let m = self.distinct_x.min(self.distinct_y);
                let numerator = u128::from(self.n) * u128::from(self.n) * u128::from(m - 1);
                2.0 * cmd / (numerator as f64 / m as f64)
            }
        };
        tau.clamp(-1.0, 1.0)
    }

    /// The two-sided p-value and how it was computed (scipy's `method='auto'`).
    #[must_use]
    pub fn p_value(&self) -> (f64, PValueMethod) {
        if self.is_degenerate() {
            return (f64::NAN, PValueMethod::Undefined);
        }
        let pairs = self.pairs();
        let no_ties = self.ties_x == 0 && self.ties_y == 0;
        if no_ties && (self.n <= 33 || self.discordant.min(pairs - self.discordant) <= 1) {
            return (kendall_p_exact(self.n, pairs - self.discordant), PValueMethod::Exact);
        }
        let n = self.n as f64;
        let m = n * (n - 1.0);
        let (x0, x1, y0, y1) = (self.x0 as f64, self.x1 as f64, self.y0 as f64, self.y1 as f64);
        let var = (m * (2.0 * n + 5.0) - x1 - y1) / 18.0
            + (2.0 * self.ties_x as f64 * self.ties_y as f64) / m
            + x0 * y0 / (9.0 * m * (n - 2.0));
        let z = self.con_minus_dis() as f64 / var.sqrt();
        (2.0 * normal_cdf(-z.abs()), PValueMethod::Asymptotic)
    }

    /// The correlation of `variant` with its p-value.
    #[must_use]
    pub fn result(&self, variant: TauVariant) -> KendallTau {
        let (p_value, method) = self.p_value();
        KendallTau { tau: self.tau(variant), p_value, method }
    }
}

/// Kendall's tau of `variant` between `x` and `y`, with scipy's two-sided p-value.
///
/// # Errors
/// [`MetaError::InvalidOption`] when the lengths differ or a value is NaN.
pub fn kendall_tau(x: &[f64], y: &[f64], variant: TauVariant) -> Result<KendallTau, MetaError> {
    Ok(kendall_counts(x, y)?.result(variant))
}

/// The pair counts of `x` and `y` in O(n log n) (Knight's algorithm; the two sorts are
/// stable LSD radix sorts on the floats' order keys, so in practice O(n)).
///
/// # Errors
/// [`MetaError::InvalidOption`] when the lengths differ or a value is NaN.
pub fn kendall_counts(x: &[f64], y: &[f64]) -> Result<KendallCounts, MetaError> {
    check_input(x, y)?;
    let n = x.len();
    if n > u32::MAX as usize {
        return Err(MetaError::InvalidOption(format!("kendall tau: {n} values, at most 2^32 − 1 supported")));
    }
    // Sort by y (stable radix sort) and give dense ranks along the way.
    let mut by_y: Vec<(u64, u32)> = y.iter().enumerate().map(|(i, &v)| (order_key(v), i as u32)).collect();
    radix_sort(&mut by_y);
    let (mut ties_y, mut y0, mut y1, mut rank) = (0u64, 0u128, 0u128, 0u32);
    let mut run_start = 0;
    let mut pairs: Vec<(u64, u32)> = Vec::with_capacity(n);
    for (i, &(key, index)) in by_y.iter().enumerate() {
        if i > 0 && by_y[i - 1].0 != key {
            (ties_y, y0, y1) = add_tie_group((i - run_start) as u64, (ties_y, y0, y1));
            run_start = i;
            rank += 1;
        }
        pairs.push((order_key(x[index as usize]), rank));
    }
    (ties_y, y0, y1) = add_tie_group((n - run_start) as u64, (ties_y, y0, y1));
    let distinct_y = if n == 0 { 0 } else { rank + 1 };
    drop(by_y);
    // A stable sort by x of pairs in increasing y: sorted by (x, rank of y). Ties in x are
    // then in increasing y, so the discordant pairs are exactly the strict inversions of the
    // y sequence; runs of equal x are x's tie groups and runs of equal (x, y) the joint ties.
    radix_sort(&mut pairs);
    let (mut ties_x, mut x0, mut x1, mut ties_xy, mut distinct_x) = (0u64, 0u128, 0u128, 0u64, 0u32);
    let (mut run_x, mut run_xy) = (0u64, 0u64);
    for (i, pair) in pairs.iter().enumerate() {
        let same_x = i > 0 && pairs[i - 1].0 == pair.0;
        run_xy = if same_x && pairs[i - 1].1 == pair.1 { run_xy + 1 } else { 0 };
        ties_xy += run_xy;
        if same_x {
            run_x += 1;
        } else {
            // A new x value closes the previous group (at i = 0 an empty "group" of size 1).
            (ties_x, x0, x1) = add_tie_group(run_x + 1, (ties_x, x0, x1));
            distinct_x += 1;
            run_x = 0;
        }
    }
    if !pairs.is_empty() {
        (ties_x, x0, x1) = add_tie_group(run_x + 1, (ties_x, x0, x1));
    }
    let mut ys: Vec<u32> = pairs.iter().map(|&(_, ry)| ry).collect();
    drop(pairs);
    let discordant = count_inversions(&mut ys);
    Ok(KendallCounts {
        n: n as u64,
        discordant,
        ties_x,
        ties_y,
        ties_xy,
        distinct_x: u64::from(distinct_x),
        distinct_y: u64::from(distinct_y),
        x0,
        x1,
        y0,
        y1,
    })
}

/// The same counts by comparing every pair, O(n²): the reference the fast path is tested
/// (and benchmarked) against.
///
/// # Errors
/// As [`kendall_counts`].
pub fn kendall_counts_naive(x: &[f64], y: &[f64]) -> Result<KendallCounts, MetaError> {
    check_input(x, y)?;
    let n = x.len();
    let mut counts = KendallCounts { n: n as u64, ..KendallCounts::default() };
    for i in 0..n {
        for j in i + 1..n {
            let (tx, ty) = (x[i] == x[j], y[i] == y[j]);
            counts.ties_x += u64::from(tx);
            counts.ties_y += u64::from(ty);
            counts.ties_xy += u64::from(tx && ty);
            if !tx && !ty && ((x[i] < x[j]) != (y[i] < y[j])) {
                counts.discordant += 1;
            }
        }
    }
    let (rank_x, distinct_x) = dense_ranks(x);
    let (rank_y, distinct_y) = dense_ranks(y);
    (_, counts.x0, counts.x1) = tie_terms(&rank_x, distinct_x);
    (_, counts.y0, counts.y1) = tie_terms(&rank_y, distinct_y);
    counts.distinct_x = u64::from(distinct_x);
    counts.distinct_y = u64::from(distinct_y);
    Ok(counts)
}

fn check_input(x: &[f64], y: &[f64]) -> Result<(), MetaError> {
    if x.len() != y.len() {
        return Err(MetaError::InvalidOption(format!(
            "kendall tau: the vectors have different lengths ({} and {})",
            x.len(),
            y.len()
        )));
    }
    for (name, values) in [("x", x), ("y", y)] {
        if let Some(at) = values.iter().position(|v| v.is_nan()) {
            return Err(MetaError::InvalidOption(format!("kendall tau: {name}[{at}] is NaN; NaN cannot be ranked")));
        }
    }
    Ok(())
}

/// A key whose integer order is the numeric order of non-NaN floats (−0 and +0 equal).
fn order_key(value: f64) -> u64 {
    let bits = (value + 0.0).to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// Sorts by the `u64` key, stably: an LSD radix sort, one byte per pass, skipping the bytes
/// every key shares.
fn radix_sort(values: &mut Vec<(u64, u32)>) {
    let n = values.len();
    let mut counts = [[0usize; 256]; 8];
    for &(key, _) in values.iter() {
        for (byte, count) in counts.iter_mut().enumerate() {
            count[((key >> (8 * byte)) & 0xff) as usize] += 1;
        }
    }
    let mut buffer = vec![(0u64, 0u32); n];
    for (byte, count) in counts.iter().enumerate() {
        if count.contains(&n) {
            continue;
        }
        let mut offsets = [0usize; 256];
        let mut sum = 0;
        for (offset, &c) in offsets.iter_mut().zip(count) {
            *offset = sum;
            sum += c;
        }
        for &(key, payload) in values.iter() {
            let slot = &mut offsets[((key >> (8 * byte)) & 0xff) as usize];
            buffer[*slot] = (key, payload);
            *slot += 1;
        }
        std::mem::swap(values, &mut buffer);
    }
}

/// Dense ranks (0-based; equal values share a rank) and the number of distinct values.
fn dense_ranks(values: &[f64]) -> (Vec<u32>, u32) {
    let mut keyed: Vec<(u64, u32)> = values.iter().enumerate().map(|(i, &v)| (order_key(v), i as u32)).collect();
    radix_sort(&mut keyed);
    let mut ranks = vec![0u32; values.len()];
    let mut rank = 0u32;
    for (k, &(key, index)) in keyed.iter().enumerate() {
        if k > 0 && keyed[k - 1].0 != key {
            rank += 1;
        }
        ranks[index as usize] = rank;
    }
    let distinct = if values.is_empty() { 0 } else { rank + 1 };
    (ranks, distinct)
}

/// Σ t(t−1)/2, Σ t(t−1)(t−2), Σ t(t−1)(2t+5) over the tie groups (sizes t) of dense ranks.
fn tie_terms(ranks: &[u32], distinct: u32) -> (u64, u128, u128) {
    let mut sizes = vec![0u64; distinct as usize];
    for &rank in ranks {
        sizes[rank as usize] += 1;
    }
    sizes.into_iter().fold((0, 0, 0), |terms, t| add_tie_group(t, terms))
}

/// Adds a tie group of `t` values to (Σ t(t−1)/2, Σ t(t−1)(t−2), Σ t(t−1)(2t+5)).
fn add_tie_group(t: u64, (pairs, t0, t1): (u64, u128, u128)) -> (u64, u128, u128) {
    if t < 2 {
        return (pairs, t0, t1);
    }
    let t = u128::from(t);
    (pairs + (t * (t - 1) / 2) as u64, t0 + t * (t - 1) * (t - 2), t1 + t * (t - 1) * (2 * t + 5))
}

/// Strict inversions (i < j, a[i] > a[j]) by a bottom-up merge sort over insertion-sorted
/// runs of 32 (each shift of an insertion sort undoes one inversion); sorts `a`.
fn count_inversions(a: &mut Vec<u32>) -> u64 {
    const RUN: usize = 32;
    let n = a.len();
    let mut inversions = 0u64;
    for run in a.chunks_mut(RUN) {
        for i in 1..run.len() {
            let value = run[i];
            let mut j = i;
            while j > 0 && run[j - 1] > value {
                run[j] = run[j - 1];
                j -= 1;
            }
            inversions += (i - j) as u64;
            run[j] = value;
        }
    }
    let mut buffer = vec![0u32; n];
    let mut width = RUN;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j, mut k) = (lo, mid, lo);
            if mid < hi && a[mid - 1] > a[mid] {
                // Branch-free: the comparison of random data is unpredictable.
                while i < mid && j < hi {
                    let (left, right) = (a[i], a[j]);
                    let take_right = right < left;
                    buffer[k] = if take_right { right } else { left };
                    inversions += u64::from(take_right) * (mid - i) as u64;
                    j += usize::from(take_right);
                    i += usize::from(!take_right);
                    k += 1;
                }
            }
            buffer[k..k + mid - i].copy_from_slice(&a[i..mid]);
            k += mid - i;
            buffer[k..k + hi - j].copy_from_slice(&a[j..hi]);
            lo = hi;
        }
        std::mem::swap(a, &mut buffer);
        width *= 2;
    }
    inversions
}

/// n! as a float.
fn factorial(n: u64) -> f64 {
    (2..=n).fold(1.0, |acc, k| acc * k as f64)
}

/// scipy's `_kendall_p_exact(n, c)`, two-sided: the probability under H0 of a number of
/// concordant pairs at least as far from N/2 as `c` (Kendall's recurrence).
fn kendall_p_exact(n: u64, concordant: u64) -> f64 {
    let pairs = n * n.saturating_sub(1) / 2;
    let c = concordant.min(pairs - concordant);
    let prob = if n <= 2 {
        1.0
    } else if c == 0 {
        if n < 171 {
            2.0 / factorial(n)
        } else {
            0.0
        }
    } else if c == 1 {
        if n < 172 {
            2.0 / factorial(n - 1)
        } else {
            0.0
        }
    } else if 4 * c == n * (n - 1) {
        1.0
    } else {
        // new[k] = number of permutations of j items with k inversions, for k ≤ c.
        let c = c as usize;
        let mut new = vec![0.0f64; c + 1];
        new[0] = 1.0;
        new[1] = 1.0;
        let scaled = n >= 171;
        for j in 3..=n as usize {
            let mut sum = 0.0;
            for value in &mut new {
                sum += *value;
                *value = if scaled { sum / j as f64 } else { sum };
            }
            if j <= c {
                for k in (j..=c).rev() {
                    new[k] -= new[k - j];
                }
            }
        }
        let total: f64 = new.iter().sum();
        if scaled {
            total
        } else {
            2.0 * total / factorial(n)
        }
    };
    prob.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests;
