//! Hand-worked cases of the tests, corrections, randomised procedures and leaderboard.

use kgeval_model::meta::significance::{Correction, PairComparison, SignificanceResult, SignificanceTest};
use kgeval_model::metric_names::Direction;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::leaderboard::{leaderboard, letter};
use crate::randomised::{bootstrap_asl, fisher_randomisation, mean_intervals, pair_seed, tukey_hsd};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// Item-major scores from per-system columns.
fn scores(columns: &[&[f64]], direction: Direction) -> PairedScores {
    let n = columns[0].len();
    let values = (0..n).flat_map(|i| columns.iter().map(move |c| c[i])).collect();
    PairedScores::new(
        "m",
        direction,
        (0..columns.len()).map(|s| format!("S{s}")).collect(),
        (0..n).map(|i| format!("q{i}")).collect(),
        values,
    )
    .unwrap()
}

fn random_columns(k: usize, n: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..k).map(|s| (0..n).map(|_| rng.gen::<f64>() * 0.5 + 0.05 * s as f64).collect()).collect()
}

#[test]
fn t_test_closed_forms() {
    // d = (1, 3): mean 2, sd √2, t = 2, df = 1 (Cauchy): p = 1 − 2 atan(2) / π.
    let t = paired_t(&[1.0, 3.0], &[0.0, 0.0]).unwrap();
    assert!(close(t.statistic, 2.0, 1e-15));
    assert!(close(t.p_value, 1.0 - 2.0 * 2f64.atan() / std::f64::consts::PI, 1e-13));
    assert_eq!(t.df, 1);
    // d = (1, 2, 3): mean 2, sd 1, t = 2√3, df = 2: p = 2 / (s (s + t)), s = √(2 + t²) = √14.
    let t = paired_t(&[2.0, 4.0, 6.0], &[1.0, 2.0, 3.0]).unwrap();
    let (tt, s) = (2.0 * 3f64.sqrt(), 14f64.sqrt());
    assert!(close(t.statistic, tt, 1e-14));
    assert!(close(t.p_value, 2.0 / (s * (s + tt)), 1e-12));
    // scipy.stats.ttest_rel(x, y), scipy 1.17.1.
    let x = [0.2, 0.5, 0.9, 0.4, 0.7, 0.1, 0.3];
    let y = [0.1, 0.45, 0.5, 0.6, 0.2, 0.05, 0.3];
    let t = paired_t(&x, &y).unwrap();
    assert!(close(t.statistic, 1.409_868_809_978_323_4, 1e-12));
    assert!(close(t.p_value, 0.208_249_601_169_761_35, 1e-12));
}

#[test]
fn t_test_zero_variance_and_bad_input() {
    // Equal systems: p = 1 (scipy: NaN); a constant non-zero difference: p = 0 (as scipy).
    let same = paired_t(&[0.5, 0.25, 1.0], &[0.5, 0.25, 1.0]).unwrap();
    assert_eq!((same.statistic, same.p_value), (0.0, 1.0));
    let shifted = paired_t(&[1.5, 1.25, 2.0], &[0.5, 0.25, 1.0]).unwrap();
    assert_eq!((shifted.statistic, shifted.p_value), (f64::INFINITY, 0.0));
    assert!(matches!(paired_t(&[1.0], &[0.0]), Err(MetaError::TooFew { .. })));
    assert!(matches!(paired_t(&[1.0, 2.0], &[0.0]), Err(MetaError::InvalidOption(_))));
    assert!(matches!(paired_t(&[1.0, f64::NAN], &[0.0, 0.0]), Err(MetaError::InvalidOption(_))));
}

#[test]
fn wilcoxon_by_hand_and_scipy() {
    // No ties or zeros: R+ = 1 + 2 + 4 + 5 = 12, R− = 3; P(R+ ≤ 3) for n = 5 is 5/32
    // ({}, {1}, {2}, {3}, {1,2}), so p = 10/32.
    let w = wilcoxon_differences(&[1.0, 2.0, -3.0, 4.0, 5.0]);
    assert_eq!((w.statistic, w.p_value, w.method), (3.0, 0.3125, WilcoxonMethod::Exact));
    // A zero: permutation over the sign flips of ranks 1, 2, 3 (R+ = 4): sums 0,1,2,3,3,4,5,6;
    // #(≤ 4) = 6, #(≥ 4) = 3, p = 2 · 3/8.
    let w = wilcoxon_differences(&[0.0, 1.0, -2.0, 3.0]);
    assert_eq!((w.statistic, w.p_value, w.method), (2.0, 0.75, WilcoxonMethod::Permutation));
    // Ties and zeros, n = 60 and n = 20: normal approximation (scipy.stats.wilcoxon, 1.17.1).
    let d: Vec<f64> = (0..60).map(|i| f64::from((i * 7) % 11) - 5.0).collect();
    let w = wilcoxon_differences(&d);
    assert_eq!((w.statistic, w.method), (767.0, WilcoxonMethod::Normal));
    assert!(close(w.p_value, 0.979_847_337_314_916_2, 1e-12));
    let d: Vec<f64> = (0..20).map(|i| f64::from((i * 7) % 11) - 4.5).collect();
    let w = wilcoxon_differences(&d);
    assert_eq!((w.statistic, w.method), (91.0, WilcoxonMethod::Normal));
    assert!(close(w.p_value, 0.599_971_113_938_259_4, 1e-12));
    // All differences zero: p = 1.
    assert_eq!(wilcoxon_differences(&[0.0; 5]).p_value, 1.0);
    assert_eq!(wilcoxon_differences(&[0.0; 60]).p_value, 1.0);
}

#[test]
fn corrections_by_hand() {
    let p = [0.01, 0.04, 0.03, 0.005];
    // Holm: sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 → max(0.06, 0.04).
    let holm = adjust_p_values(&p, Correction::Holm);
    for (got, want) in holm.iter().zip([0.03, 0.06, 0.06, 0.02]) {
        assert!(close(*got, want, 1e-15), "{holm:?}");
    }
    let bonferroni = adjust_p_values(&p, Correction::Bonferroni);
    for (got, want) in bonferroni.iter().zip([0.04, 0.16, 0.12, 0.02]) {
        assert!(close(*got, want, 1e-15), "{bonferroni:?}");
    }
    assert_eq!(adjust_p_values(&[0.6, 0.5], Correction::Bonferroni), vec![1.0, 1.0]);
    assert_eq!(adjust_p_values(&p, Correction::None), p.to_vec());
}

#[test]
fn effect_size_and_win_tie_loss() {
    assert_eq!(cohens_d(&[1.0, 2.0, 3.0]), 2.0);
    assert_eq!(cohens_d(&[0.0, 0.0]), 0.0);
    assert_eq!(cohens_d(&[-1.0, -1.0]), f64::NEG_INFINITY);
    // Mean rank: lower is better, so A (ranks 1, 5, 3) wins item 1 and loses item 2 against B.
    let s = scores(&[&[1.0, 5.0, 3.0], &[2.0, 4.0, 3.0]], Direction::Lower);
    let r = compare_systems(&s, &SignificanceOptions::default()).unwrap();
    let pair = &r.pairs[0];
    assert_eq!((pair.wins, pair.ties, pair.losses), (1, 1, 1));
    assert_eq!(pair.mean_difference, 0.0);
    assert!(!r.higher_is_better);
}

#[test]
fn compare_systems_rejects_bad_input() {
    let one_item = scores(&[&[1.0], &[2.0]], Direction::Higher);
    assert!(matches!(compare_systems(&one_item, &SignificanceOptions::default()), Err(MetaError::TooFew { .. })));
    let one_system = scores(&[&[1.0, 2.0]], Direction::Higher);
    assert!(matches!(compare_systems(&one_system, &SignificanceOptions::default()), Err(MetaError::TooFew { .. })));
    let ok = scores(&[&[1.0, 2.0], &[2.0, 2.0]], Direction::Higher);
    let alpha = SignificanceOptions { alpha: 1.0, ..SignificanceOptions::default() };
    assert!(matches!(compare_systems(&ok, &alpha), Err(MetaError::InvalidOption(_))));
    let zero_b = SignificanceOptions { test: SignificanceTest::Fisher, iterations: Some(0), ..Default::default() };
    assert!(matches!(compare_systems(&ok, &zero_b), Err(MetaError::InvalidOption(_))));
}

#[test]
fn tukey_on_two_systems_is_fisher() {
    let columns = random_columns(2, 40, 7);
    let s = scores(&[&columns[0], &columns[1]], Direction::Higher);
    let d: Vec<f64> = columns[0].iter().zip(&columns[1]).map(|(a, b)| a - b).collect();
    for seed in [1, 2, 3] {
        let tukey = tukey_hsd(&s, 5_000, seed).unwrap();
        let fisher = fisher_randomisation(&d, 5_000, pair_seed(seed, 0));
        assert_eq!(tukey, vec![fisher], "seed {seed}");
        assert!(fisher > 0.0 && fisher < 1.0);
    }
    // On 0/1 scores (many exact ties of the statistic) as well.
    let a: Vec<f64> = (0..30).map(|i| f64::from(i % 3 == 0)).collect();
    let b: Vec<f64> = (0..30).map(|i| f64::from(i % 4 == 0)).collect();
    let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
    let s = scores(&[&a, &b], Direction::Higher);
    assert_eq!(tukey_hsd(&s, 4_000, 9).unwrap(), vec![fisher_randomisation(&d, 4_000, 9)]);
}

/// Within three Monte-Carlo standard errors of the exact value.
fn within_3se(estimate: f64, exact: f64, b: usize) -> bool {
    let se = (exact * (1.0 - exact) / b as f64).sqrt();
    (estimate - exact).abs() <= 3.0 * se + 1e-12
}

#[test]
fn fisher_agrees_with_exact_enumeration() {
    for (n, seed) in [(8, 11u64), (10, 12), (12, 13)] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let d: Vec<f64> = (0..n).map(|_| rng.gen::<f64>() - 0.35).collect();
        let observed = d.iter().sum::<f64>().abs();
        let extreme = (0u32..1 << n)
            .filter(|mask| {
                let s: f64 = d.iter().enumerate().map(|(k, v)| if mask >> k & 1 == 1 { -v } else { *v }).sum();
                s.abs() >= observed - 1e-12
            })
            .count();
        let exact = extreme as f64 / f64::from(1u32 << n);
        let b = 100_000;
        let estimate = fisher_randomisation(&d, b, seed);
        assert!(within_3se(estimate, exact, b), "n = {n}: {estimate} vs exact {exact}");
    }
}

#[test]
fn tukey_agrees_with_exact_enumeration() {
    // 3 systems × 3 items: all 6³ within-item permutations are equally likely.
    let columns: [&[f64]; 3] = [&[0.9, 0.7, 0.8], &[0.5, 0.6, 0.2], &[0.1, 0.65, 0.3]];
    let s = scores(&columns, Direction::Higher);
    let perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    let means = s.means();
    let mut ranges = Vec::new();
    for p0 in perms {
        for p1 in perms {
            for p2 in perms {
                let m: Vec<f64> =
                    (0..3).map(|sys| (columns[p0[sys]][0] + columns[p1[sys]][1] + columns[p2[sys]][2]) / 3.0).collect();
                ranges.push(m.iter().copied().fold(f64::MIN, f64::max) - m.iter().copied().fold(f64::MAX, f64::min));
            }
        }
    }
    let b = 200_000;
    let p = tukey_hsd(&s, b, 5).unwrap();
    for (k, (a, c)) in [(0, 1), (0, 2), (1, 2)].into_iter().enumerate() {
        let observed = (means[a] - means[c]).abs();
        let exact = ranges.iter().filter(|r| **r >= observed - 1e-12).count() as f64 / ranges.len() as f64;
        assert!(within_3se(p[k], exact, b), "pair {a},{c}: {} vs exact {exact}", p[k]);
    }
}

#[test]
fn bootstrap_agrees_with_exact_enumeration() {
    // n = 3: the 27 resamples of the centred differences are equally likely.
    let d = [0.3, 0.1, 0.5];
    let (mean, sd) = mean_sd(&d);
    let t0 = (mean / (sd / 3f64.sqrt())).abs();
    let z: Vec<f64> = d.iter().map(|v| v - mean).collect();
    let mut extreme = 0;
    for i in 0..27 {
        let sample = [z[i % 3], z[i / 3 % 3], z[i / 9]];
        let (m, s) = mean_sd(&sample);
        let t = if s == 0.0 {
            if m == 0.0 {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            (m / (s / 3f64.sqrt())).abs()
        };
        extreme += usize::from(t >= t0 - 1e-12);
    }
    let exact = extreme as f64 / 27.0;
    let b = 100_000;
    let asl = bootstrap_asl(&d, b, 3);
    assert!(within_3se(asl, exact, b), "{asl} vs exact {exact}");
    assert_eq!(bootstrap_asl(&[0.0, 0.0, 0.0], 100, 1), 1.0);
    assert_eq!(bootstrap_asl(&[0.5, 0.5, 0.5], 100, 1), 0.0);
}

#[test]
fn intervals_by_hand() {
    // Two items: resampled means are x1 (¼), (x1 + x2)/2 (½), x2 (¼); the 2.5 % and 97.5 %
    // quantiles of 4,000 draws are x1 and x2. A constant system has a point interval.
    let s = scores(&[&[0.2, 0.6], &[0.5, 0.5]], Direction::Higher);
    let intervals = mean_intervals(&s, 4_000, 0.05, 1).unwrap();
    assert_eq!((intervals[0].lower, intervals[0].upper), (0.2, 0.6));
    assert_eq!((intervals[1].lower, intervals[1].upper), (0.5, 0.5));
    assert!(mean_intervals(&s, 0, 0.05, 1).is_err());
}

#[test]
fn identical_at_one_and_two_threads() {
    let columns = random_columns(5, 200, 21);
    let refs: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
    let s = scores(&refs, Direction::Higher);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            SignificanceTest::ALL
                .iter()
                .map(|&test| {
                    let options = SignificanceOptions {
                        test,
                        iterations: Some(2_000),
                        interval_iterations: Some(500),
                        seed: 99,
                        ..SignificanceOptions::default()
                    };
                    compare_systems(&s, &options).unwrap()
                })
                .collect::<Vec<_>>()
        })
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(format!("{one:?}"), format!("{two:?}"));
    // And the seed matters.
    let other = compare_systems(
        &s,
        &SignificanceOptions {
            test: SignificanceTest::Fisher,
            iterations: Some(2_000),
            seed: 100,
            ..Default::default()
        },
    )
    .unwrap();
    assert_ne!(format!("{:?}", other.pairs), format!("{:?}", one[3].pairs));
}

#[test]
fn tukey_separates_and_is_family_wise() {
    let columns = random_columns(4, 300, 3);
    let mut same = columns;
    same[1] = same[0].clone();
    let refs: Vec<&[f64]> = same.iter().map(Vec::as_slice).collect();
    let s = scores(&refs, Direction::Higher);
    let options =
        SignificanceOptions { test: SignificanceTest::TukeyHsd, iterations: Some(2_000), ..Default::default() };
    let r = compare_systems(&s, &options).unwrap();
    assert_eq!(r.correction, Correction::None);
    assert_eq!(r.pair(0, 1).unwrap().p_value, 1.0);
    // S3 is 0.15 above S0 on average over 300 items: never reached by chance.
    assert_eq!(r.pair(0, 3).unwrap().p_value, 0.0);
    assert!(r.pairs.iter().all(|p| p.p_adjusted == p.p_value));
}

fn pair(a: usize, b: usize, p: f64) -> PairComparison {
    PairComparison {
        a,
        b,
        mean_difference: 0.0,
        effect_size: 0.0,
        statistic: None,
        p_value: p,
        p_adjusted: p,
        wins: 0,
        ties: 0,
        losses: 0,
    }
}

#[test]
fn leaderboard_marks_and_tiers() {
    assert_eq!(
        [letter(0), letter(25), letter(26), letter(27), letter(701), letter(702)],
        ["a", "z", "aa", "ab", "zz", "aaa"]
    );
    // Means: S0 0.3, S1 0.5, S2 0.4, S3 0.1 → order S1, S2, S0, S3; letters follow the input
    // (S0 a, S1 b, S2 c, S3 d), whatever the order of the means.
    // Significant (p < 0.05): S1–S0, S1–S3, S2–S3, S0–S3; not: S1–S2, S2–S0.
    let result = SignificanceResult {
        metric: "m".into(),
        higher_is_better: true,
        test: SignificanceTest::PairedT,
        correction: Correction::Holm,
        alpha: 0.05,
        iterations: 0,
        interval_iterations: 0,
        seed: 0,
        n_items: 10,
        systems: vec!["S0".into(), "S1".into(), "S2".into(), "S3".into()],
        means: vec![0.3, 0.5, 0.4, 0.1],
        intervals: Vec::new(),
        pairs: vec![
            pair(0, 1, 0.01),
            pair(0, 2, 0.2),
            pair(0, 3, 0.001),
            pair(1, 2, 0.05),
            pair(1, 3, 0.0),
            pair(2, 3, 0.03),
        ],
    };
    let board = leaderboard(&result);
    let names: Vec<&str> = board.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["S1", "S2", "S0", "S3"]);
    let marks: Vec<String> = board.rows.iter().map(|r| r.marks(&board.rows)).collect();
    let letters: Vec<&str> = board.rows.iter().map(|r| r.letter.as_str()).collect();
    assert_eq!(letters, ["b", "c", "a", "d"]);
    // S1 beats S0 and S3: its marks are in letter order ("ad"), not leaderboard order ("da").
    assert_eq!(marks, ["ad", "d", "d", ""]);
    // Tier 1: S1 and S2 (p = 0.05 is not significant); then S0 leads tier 2 and S3 is
    // significantly worse than S0: tier 3.
    let tiers: Vec<usize> = board.rows.iter().map(|r| r.tier).collect();
    assert_eq!(tiers, [1, 1, 2, 3]);
    // Lower is better: the order reverses.
    let lower = SignificanceResult { higher_is_better: false, ..result };
    let names: Vec<String> = leaderboard(&lower).rows.into_iter().map(|r| r.name).collect();
    assert_eq!(names, ["S3", "S0", "S2", "S1"]);
}

/// A result over `k` systems whose pair (a, b) has p = 0 when b − a is odd (significant)
/// and p = 1 otherwise, and whose means fall with the index.
fn synthetic_result(k: usize) -> SignificanceResult {
    let pairs =
        (0..k).flat_map(|a| (a + 1..k).map(move |b| pair(a, b, if (b - a) % 2 == 1 { 0.0 } else { 1.0 }))).collect();
    SignificanceResult {
        metric: "m".into(),
        higher_is_better: true,
        test: SignificanceTest::PairedT,
        correction: Correction::None,
        alpha: 0.05,
        iterations: 0,
        interval_iterations: 0,
        seed: 0,
        n_items: 10,
        systems: (0..k).map(|s| format!("S{s}")).collect(),
        means: (0..k).map(|s| -(s as f64)).collect(),
        intervals: Vec::new(),
        pairs,
    }
}

#[test]
fn pair_lookup_is_direct_and_survives_another_order() {
    let result = synthetic_result(7);
    for a in 0..7 {
        for b in 0..7 {
            let found = result.pair(a, b).map(|p| (p.a, p.b));
            assert_eq!(found, (a != b).then(|| (a.min(b), a.max(b))), "pair ({a}, {b})");
        }
    }
    assert!(result.pair(3, 7).is_none());
    assert!(result.pair(9, 12).is_none());
    // Pairs in another order (built by hand): still found.
    let mut shuffled = result;
    shuffled.pairs.reverse();
    assert_eq!(shuffled.pair(5, 2).map(|p| (p.a, p.b)), Some((2, 5)));
    assert_eq!(shuffled.pair(0, 6).map(|p| (p.a, p.b)), Some((0, 6)));
}

/// 1,000 systems (499,500 pairs): the leaderboard looked every pair up by a linear scan
/// (k² lookups × k²/2 pairs, hours); with the direct index it takes well under a second.
#[test]
fn leaderboard_of_a_thousand_systems_is_quadratic_not_quartic() {
    let k = 1_000;
    let board = leaderboard(&synthetic_result(k));
    assert_eq!(board.rows.len(), k);
    // Row r is system r (means fall with the index); it beats the rows at odd distance below.
    assert_eq!(board.rows[0].beats.len(), k / 2);
    assert_eq!(board.rows[1].beats.first(), Some(&2));
    // Tiers: system 0 cannot be told from the even systems; 1 leads tier 2 with the odd ones.
    assert_eq!(board.rows[998].tier, 1);
    assert_eq!(board.rows[999].tier, 2);
}

/// Finite but huge scores: the mean of (−5, 1e308, 1e308) overflowed to inf, the paired
/// differences of ±1e308 too, and the t test's p became NaN (rendered `-`) while Holm's
/// adjusted p was 1. Every number is finite now, with every test.
#[test]
fn huge_finite_scores_give_finite_means_and_p_values() {
    let s = scores(&[&[-5.0, 1e308, 1e308], &[0.0, 0.5, 1.0], &[5.0, -1e308, -1e308]], Direction::Higher);
    assert!(close(s.means()[0], 1e308 / 3.0 * 2.0, 1e-15), "{:?}", s.means());
    for test in SignificanceTest::ALL {
        let options =
            SignificanceOptions { test, iterations: Some(50), interval_iterations: Some(20), ..Default::default() };
        let result = compare_systems(&s, &options).unwrap();
        assert!(result.means.iter().all(|m| m.is_finite()), "{test:?}: {:?}", result.means);
        for pair in &result.pairs {
            assert!(pair.mean_difference.is_finite(), "{test:?}: {pair:?}");
            assert!(pair.p_value.is_finite() && pair.p_adjusted.is_finite(), "{test:?}: {pair:?}");
            assert!(pair.p_value <= pair.p_adjusted, "{test:?}: {pair:?}");
            assert!(pair.statistic.is_none_or(f64::is_finite), "{test:?}: {pair:?}");
        }
        assert!(result.intervals.iter().all(|i| i.lower.is_finite() && i.upper.is_finite()), "{test:?}");
    }
    // Scaled by a power of two the t test is the same as on moderate scores.
    let small = scores(&[&[-5.0, 1.0, 1.0], &[0.0, 0.5, 1.0]], Direction::Higher);
    let big = scores(
        &[&[-5.0 * 2f64.powi(900), 2f64.powi(900), 2f64.powi(900)], &[0.0, 0.5 * 2f64.powi(900), 2f64.powi(900)]],
        Direction::Higher,
    );
    let (small, big) = (
        compare_systems(&small, &SignificanceOptions::default()).unwrap(),
        compare_systems(&big, &SignificanceOptions::default()).unwrap(),
    );
    assert_eq!(small.pairs[0].p_value, big.pairs[0].p_value);
    assert_eq!(small.pairs[0].statistic, big.pairs[0].statistic);
}

/// An undefined p-value stays undefined after the correction and does not count in m.
#[test]
fn an_undefined_p_value_is_not_adjusted_to_one() {
    let adjusted = adjust_p_values(&[0.01, f64::NAN, 0.02], Correction::Holm);
    assert!(adjusted[1].is_nan(), "{adjusted:?}");
    assert_eq!([adjusted[0], adjusted[2]], [0.02, 0.02]);
    let bonferroni = adjust_p_values(&[0.01, f64::NAN, 0.02], Correction::Bonferroni);
    assert!(bonferroni[1].is_nan());
    assert_eq!([bonferroni[0], bonferroni[2]], [0.02, 0.04]);
}

/// 0.1 − 0.2 and 0.3 − 0.4 are −0.1 up to rounding: the t test saw a variance of 1e-34 and
/// gave t = −7.2e15, p = 8.8e-17. Differences equal within the tolerance are equal.
#[test]
fn differences_equal_up_to_rounding_are_equal_in_every_test() {
    let near = paired_t(&[0.1, 0.3], &[0.2, 0.4]).unwrap();
    let exact = paired_t(&[0.0, 0.0], &[0.1, 0.1]).unwrap();
    assert_eq!(near, exact);
    assert_eq!(near.p_value, 0.0);
    // Wilcoxon: near-ties are ties, a near-zero difference is a zero.
    let near = wilcoxon(&[0.1, 0.3, 0.5, 2.0], &[0.2, 0.4, 0.6, 1.0]).unwrap();
    let exact = wilcoxon(&[0.0, 0.0, 0.0, 2.0], &[0.1, 0.1, 0.1, 1.0]).unwrap();
    assert_eq!(near, exact);
    let near = wilcoxon(&[0.3, 1.0, 2.0, 0.0], &[0.1 + 0.2, 0.5, 1.2, 0.7]).unwrap();
    let exact = wilcoxon(&[0.3, 1.0, 2.0, 0.0], &[0.3, 0.5, 1.2, 0.7]).unwrap();
    assert_eq!(near, exact);
    // In a comparison: no t statistic (undefined, zero variance), p = 0 as for exact ties.
    let s = scores(&[&[0.1, 0.3], &[0.2, 0.4]], Direction::Higher);
    let result = compare_systems(&s, &SignificanceOptions::default()).unwrap();
    assert_eq!(result.pairs[0].statistic, None);
    assert_eq!(result.pairs[0].p_value, 0.0);
    // Differences that really differ (beyond 1e-12 of the scores' scale) stay apart.
    let apart = paired_t(&[0.1, 0.3 + 1e-9], &[0.2, 0.4]).unwrap();
    assert!(apart.statistic.is_finite() && apart.p_value > 0.0);
}

/// 75 equal differences of −0.25: their pairwise mean is off by an ulp, which left a variance
/// of rounding noise and t = −5.9e16 instead of the zero-variance convention.
#[test]
fn many_equal_differences_have_zero_variance() {
    let x: Vec<f64> = (0..75).map(|i| f64::from(i) / 75.0).collect();
    let d = vec![-0.1; 75];
    let t = t_test_differences(&d);
    assert_eq!((t.statistic, t.p_value), (f64::NEG_INFINITY, 0.0));
    let y: Vec<f64> = x.iter().map(|v| v + 0.25).collect();
    let t = paired_t(&x, &y).unwrap();
    assert_eq!((t.statistic, t.p_value), (f64::NEG_INFINITY, 0.0));
}
