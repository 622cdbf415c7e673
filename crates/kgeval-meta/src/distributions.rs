//! The distributions behind the p-values: Student t, the standard normal and the exact null
//! distribution of the Wilcoxon signed-rank statistic.
//!
//! Written out rather than taken from a crate so that their accuracy is ours to check: the
//! regularised incomplete beta and gamma functions use the continued fractions of Numerical
//! Recipes (3rd ed., §6.2, §6.4, modified Lentz) with its 14-term Lanczos `ln Γ`; tails are
//! always computed directly (never as `1 − x` of the other tail), so small p-values keep their
//! relative precision. Checked against scipy 1.17.1 (`stdtr`, `ndtr`, `_get_wilcoxon_distr`)
//! in the tests and by `xtask/peer/scipy_significance_agreement.py`.

/// Relative precision the continued fractions iterate to.
const EPS: f64 = 1e-16;
/// Smallest magnitude allowed in Lentz's method (avoids division by zero).
const FPMIN: f64 = f64::MIN_POSITIVE / EPS;
/// Iteration cap of the series and continued fractions (never reached for the arguments
/// used here: convergence takes O(√max(a, b)) steps).
const MAX_ITERATIONS: usize = 100_000;

/// `ln Γ(x)` for `x > 0` (Lanczos, Numerical Recipes 3rd ed. `gammln`; ≈ 1e-15 relative).
// The coefficients are kept as published (more digits than an f64 holds).
#[allow(clippy::excessive_precision)]
#[must_use]
pub fn ln_gamma(x: f64) -> f64 {
    const COF: [f64; 14] = [
        57.156_235_665_862_923_5,
        -59.597_960_355_475_491_2,
        14.136_097_974_741_747_1,
        -0.491_913_816_097_620_199,
        0.339_946_499_848_118_887e-4,
        0.465_236_289_270_485_756e-4,
        -0.983_744_753_048_795_646e-4,
        0.158_088_703_224_912_494e-3,
        -0.210_264_441_724_104_883e-3,
        0.217_439_618_115_212_643e-3,
        -0.164_318_106_536_763_890e-3,
        0.844_182_239_838_527_433e-4,
        -0.261_908_384_015_814_087e-4,
        0.368_991_826_595_316_234e-5,
    ];
    let mut y = x;
    let tmp = x + 5.242_187_5;
    let tmp = (x + 0.5) * tmp.ln() - tmp;
    let mut ser = 0.999_999_999_999_997_092;
    for c in COF {
        y += 1.0;
        ser += c / y;
    }
    tmp + (2.506_628_274_631_000_5 * ser / x).ln()
}

/// The regularised incomplete beta function `I_x(a, b)`, given `x` and `y = 1 − x`
/// separately so that a `y` close to 0 keeps its precision.
fn incomplete_beta(a: f64, b: f64, x: f64, y: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if y <= 0.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * y.ln();
    if x < (a + 1.0) / (a + b + 2.0) {
        (ln_front.exp() * beta_continued_fraction(a, b, x) / a).min(1.0)
    } else {
        (1.0 - ln_front.exp() * beta_continued_fraction(b, a, y) / b).max(0.0)
    }
}

/// The continued fraction of the incomplete beta function (Numerical Recipes `betacf`).
fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < FPMIN {
        d = FPMIN;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..MAX_ITERATIONS {
        let m = m as f64;
        let m2 = 2.0 * m;
        for aa in [m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))] {
            d = 1.0 + aa * d;
            if d.abs() < FPMIN {
                d = FPMIN;
            }
            c = 1.0 + aa / c;
            if c.abs() < FPMIN {
                c = FPMIN;
            }
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() <= EPS {
            break;
        }
    }
    h
}

/// The regularised upper incomplete gamma function `Q(a, x) = Γ(a, x) / Γ(a)`.
fn upper_incomplete_gamma(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let ln_front = -x + a * x.ln() - ln_gamma(a);
    if x < a + 1.0 {
        // Series for the lower function P; Q = 1 − P is not small here.
        let (mut ap, mut sum) = (a, 1.0 / a);
        let mut del = sum;
        for _ in 0..MAX_ITERATIONS {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * EPS {
                break;
            }
        }
        (1.0 - sum * ln_front.exp()).max(0.0)
    } else {
        // Continued fraction for Q (Numerical Recipes `gcf`).
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / FPMIN;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..MAX_ITERATIONS {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < FPMIN {
                d = FPMIN;
            }
            c = b + an / c;
            if c.abs() < FPMIN {
                c = FPMIN;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() <= EPS {
                break;
            }
        }
        ln_front.exp() * h
    }
}

/// The survival function of the standard normal distribution, `P(Z > z)` (scipy's
/// `ndtr(-z)`), with full relative precision in the upper tail.
#[must_use]
pub fn normal_sf(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    if z >= 0.0 {
        0.5 * upper_incomplete_gamma(0.5, z * z / 2.0)
    } else {
        1.0 - 0.5 * upper_incomplete_gamma(0.5, z * z / 2.0)
    }
}

/// The survival function of Student's t distribution with `df` degrees of freedom,
/// `P(T > t)` (scipy's `stdtr(df, -t)`); `df > 0`.
#[must_use]
pub fn student_t_sf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return if t > 0.0 { 0.0 } else { 1.0 };
    }
    let t2 = t * t;
    // P(|T| > |t|) = I_{df/(df+t²)}(df/2, 1/2).
    let x = df / (df + t2);
    let y = t2 / (df + t2);
    let tail = 0.5 * incomplete_beta(df / 2.0, 0.5, x, y);
    if t >= 0.0 {
        tail
    } else {
        1.0 - tail
    }
}

/// The two-sided p-value of a t statistic, `2 P(T > |t|)` (scipy's `_get_pvalue`).
#[must_use]
pub fn student_t_two_sided(t: f64, df: f64) -> f64 {
    2.0 * student_t_sf(t.abs(), df)
}

/// The exact null distribution of the Wilcoxon signed-rank statistic R+ for `n` non-zero,
/// untied differences: `pmf[r] = P(R+ = r)`, `r = 0 ..= n(n+1)/2`. Built like scipy's
/// `_get_wilcoxon_distr` (each rank k halves the mass and shifts half of it by k), so the
/// floating-point values are scipy's.
#[must_use]
pub fn wilcoxon_pmf(n: usize) -> Vec<f64> {
    let mut pmf = vec![1.0];
    for k in 1..=n {
        let mut next = vec![0.0; k * (k + 1) / 2 + 1];
        let m = pmf.len();
        for (slot, p) in next.iter_mut().zip(&pmf) {
            *slot = p * 0.5;
        }
        let len = next.len();
        for (slot, p) in next[len - m..].iter_mut().zip(&pmf) {
            *slot += p * 0.5;
        }
        pmf = next;
    }
    pmf
}

/// The exact distribution of the Wilcoxon signed-rank statistic for one `n` (scipy's
/// `WilcoxonDistribution`): cumulative and survival probabilities.
#[derive(Debug, Clone)]
pub struct WilcoxonDistribution {
    n: usize,
    pmf: Vec<f64>,
}

impl WilcoxonDistribution {
    /// The distribution for `n` non-zero differences.
    #[must_use]
    pub fn new(n: usize) -> Self {
        Self { n, pmf: wilcoxon_pmf(n) }
    }

    fn mean(&self) -> f64 {
        (self.n * (self.n + 1)) as f64 / 4.0
    }

    fn sum_range(&self, from: i64, to_inclusive: i64) -> f64 {
        let last = self.pmf.len() as i64 - 1;
        let (from, to) = (from.max(0), to_inclusive.min(last));
        if from > to {
            return 0.0;
        }
        pairwise_sum(&self.pmf[from as usize..=to as usize])
    }

    /// `P(R+ ≤ k)`.
    #[must_use]
    pub fn cdf(&self, k: i64) -> f64 {
        if (k as f64) <= self.mean() {
            self.sum_range(0, k)
        } else {
            1.0 - self.sum_range(k + 1, i64::MAX)
        }
    }

    /// `P(R+ ≥ k)`.
    #[must_use]
    pub fn sf(&self, k: i64) -> f64 {
        if (k as f64) <= self.mean() {
            self.sum_range(k, i64::MAX)
        } else {
            1.0 - self.sum_range(0, k - 1)
        }
    }
}

/// A sum in numpy's order (`np.add.reduce` on a contiguous float64 array: sequential below 8
/// elements, eight interleaved accumulators up to 128, halves above), so that means and
/// variances agree with scipy's to the last bit in most cases.
#[must_use]
pub fn pairwise_sum(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 8 {
        let mut sum = 0.0;
        for v in values {
            sum += v;
        }
        sum
    } else if n <= 128 {
        let mut r = [0.0; 8];
        r.copy_from_slice(&values[..8]);
        let mut i = 8;
        while i + 8 <= n {
            for (k, acc) in r.iter_mut().enumerate() {
                *acc += values[i + k];
            }
            i += 8;
        }
        let mut sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for v in &values[i..] {
            sum += v;
        }
        sum
    } else {
        let mut half = n / 2;
        half -= half % 8;
        pairwise_sum(&values[..half]) + pairwise_sum(&values[half..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(f64::MIN_POSITIVE)
    }

    #[test]
    fn ln_gamma_known_values() {
        // ln Γ(n) = ln (n−1)!, ln Γ(1/2) = ln √π.
        assert!(close(ln_gamma(10.0), 362_880f64.ln(), 1e-15));
        assert!(close(ln_gamma(0.5), std::f64::consts::PI.sqrt().ln(), 1e-14));
        assert!(close(ln_gamma(1.5), (std::f64::consts::PI.sqrt() / 2.0).ln(), 1e-13));
        let ln_fact_170: f64 = (1..170).map(|k| (k as f64).ln()).sum();
        assert!(close(ln_gamma(170.0), ln_fact_170, 1e-14));
    }

    #[test]
    fn normal_tails() {
        // Values of scipy.special.ndtr(-z), scipy 1.17.1.
        assert!(close(normal_sf(0.0), 0.5, 1e-15));
        assert!(close(normal_sf(1.0), 0.158_655_253_931_457_05, 1e-13));
        assert!(close(normal_sf(1.959_963_984_540_054), 0.025, 1e-12));
        assert!(close(normal_sf(5.0), 2.866_515_718_791_933e-7, 1e-12));
        assert!(close(normal_sf(10.0), 7.619_853_024_160_47e-24, 1e-11));
        assert!(close(normal_sf(-1.0), 0.841_344_746_068_542_9, 1e-14));
    }

    #[test]
    fn student_t_tails() {
        // df = 1 is Cauchy: P(T > t) = 1/2 − atan(t)/π.
        for t in [0.1f64, 1.0, 3.0, 50.0] {
            let cauchy = 0.5 - t.atan() / std::f64::consts::PI;
            assert!(close(student_t_sf(t, 1.0), cauchy, 1e-12), "t = {t}");
        }
        // df = 2: P(T > t) = (1 − t/√(2 + t²)) / 2, written without cancellation.
        for t in [0.5f64, 2.0, 30.0] {
            let s = (2.0 + t * t).sqrt();
            let exact = 1.0 / (s * (s + t));
            assert!(close(student_t_sf(t, 2.0), exact, 1e-12), "t = {t}");
        }
        // scipy.stats.t.sf(2.5, 10) and (6, 40).
        assert!(close(student_t_sf(2.5, 10.0), 0.015_723_422_118_304_41, 1e-11));
        assert!(close(student_t_sf(6.0, 40.0), 2.363_227_566_394_090_3e-7, 1e-10));
        assert!(close(student_t_sf(-1.0, 5.0) + student_t_sf(1.0, 5.0), 1.0, 1e-15));
        assert_eq!(student_t_sf(f64::INFINITY, 3.0), 0.0);
        assert!(student_t_sf(1.0, 0.0).is_nan());
    }

    #[test]
    fn wilcoxon_distribution_by_enumeration() {
        // n = 4: R+ over the 16 sign patterns of ranks 1..4.
        let mut counts = [0u32; 11];
        for mask in 0u32..16 {
            let r: u32 = (0..4).filter(|k| mask >> k & 1 == 1).map(|k| k + 1).sum();
            counts[r as usize] += 1;
        }
        let pmf = wilcoxon_pmf(4);
        assert_eq!(pmf.len(), 11);
        for (p, c) in pmf.iter().zip(counts) {
            assert_eq!(*p, f64::from(c) / 16.0);
        }
        let dist = WilcoxonDistribution::new(4);
        assert_eq!(dist.cdf(1), 2.0 / 16.0);
        assert_eq!(dist.sf(9), 2.0 / 16.0);
        assert_eq!(dist.cdf(10), 1.0);
        assert_eq!(dist.sf(0), 1.0);
    }

    #[test]
    fn pairwise_sum_matches_exact_sums() {
        let values: Vec<f64> = (1..=300).map(f64::from).collect();
        assert_eq!(pairwise_sum(&values), 45_150.0);
        assert_eq!(pairwise_sum(&values[..13]), 91.0);
        assert_eq!(pairwise_sum(&[]), 0.0);
    }
}
