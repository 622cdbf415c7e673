use proptest::prelude::*;

use super::*;

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance
}

/// Four systems, one tie, worked out on paper.
///
/// x = (0.1, 0.2, 0.2, 0.4), y = (0.3, 0.1, 0.2, 0.4). The six pairs:
/// (1,2): x up, y down → discordant; (1,3): x up, y down → discordant;
/// (1,4): up, up → concordant; (2,3): x tied, y up → tied in x only (T);
/// (2,4): concordant; (3,4): concordant. So P = 3, Q = 2, T = 1, U = 0, n = 4.
/// tau-a = (3 − 2)/6 = 1/6; tau-b = 1/√((3+2+1)(3+2+0)) = 1/√30;
/// tau-c: m = min(3 distinct x, 4 distinct y) = 3, 2·1/(16·2/3) = 3/16.
/// Ties → asymptotic p: var = (n(n−1)(2n+5) − Σx1 − Σy1)/18 + 2·xtie·ytie/m + x0·y0/(9m(n−2))
/// with m = 12, the x tie group t = 2: x1 = 2·1·9 = 18, x0 = 0; so var = (12·13 − 18)/18 =
/// 138/18 = 23/3; z = 1/√(23/3) = 0.3611575592…, p = 2Φ(−z) = erfc(z/√2) = 0.7179816667…
#[test]
fn hand_worked_four_systems_with_a_tie() {
    let x = [0.1, 0.2, 0.2, 0.4];
    let y = [0.3, 0.1, 0.2, 0.4];
    let counts = kendall_counts(&x, &y).unwrap();
    assert_eq!((counts.concordant(), counts.discordant, counts.ties_x_only(), counts.ties_y_only()), (3, 2, 1, 0));
    assert!(close(counts.tau(TauVariant::A), 1.0 / 6.0, 1e-15));
    assert!(close(counts.tau(TauVariant::B), 1.0 / 30f64.sqrt(), 1e-15));
    assert!(close(counts.tau(TauVariant::C), 3.0 / 16.0, 1e-15));
    let (p, method) = counts.p_value();
    assert_eq!(method, PValueMethod::Asymptotic);
    let z = 1.0 / (23.0f64 / 3.0).sqrt();
    assert!(close(z, 0.361_157_559_257_307_6, 1e-15));
    assert!(close(p, 0.717_981_666_733_776_7, 1e-14), "{p}");
}

/// Exact p-values from Kendall's table: n = 4, no ties.
#[test]
fn exact_p_values_small_n() {
    // Identical order: c = 6, min(c, 6 − c) = 0 → 2/4! = 1/12.
    let same = kendall_tau(&[1.0, 2.0, 3.0, 4.0], &[1.0, 2.0, 3.0, 4.0], TauVariant::B).unwrap();
    assert_eq!(same.tau, 1.0);
    assert!(close(same.p_value, 1.0 / 12.0, 1e-15));
    assert_eq!(same.method, PValueMethod::Exact);
    // Two discordant pairs (c = 4 → 2): permutations of 4 with ≤ 2 inversions: 1 + 3 + 5 = 9,
    // p = 2·9/24 = 0.75.
    let two = kendall_tau(&[1.0, 2.0, 3.0, 4.0], &[2.0, 3.0, 1.0, 4.0], TauVariant::B).unwrap();
    assert!(close(two.tau, (4.0 - 2.0) / 6.0, 1e-15));
    assert!(close(two.p_value, 0.75, 1e-15));
    // n = 5, three discordant: ≤ 3 inversions of 5 items: 1 + 4 + 9 + 15 = 29 → 2·29/120.
    let three = kendall_tau(&[1.0, 2.0, 3.0, 4.0, 5.0], &[3.0, 1.0, 2.0, 5.0, 4.0], TauVariant::B).unwrap();
    assert!(close(three.tau, (7.0 - 3.0) / 10.0, 1e-15));
    assert!(close(three.p_value, 58.0 / 120.0, 1e-15));
    // n = 4 with c = 3 = N/2: p = 1.
    let half = kendall_tau(&[1.0, 2.0, 3.0, 4.0], &[1.0, 4.0, 3.0, 2.0], TauVariant::B).unwrap();
    assert_eq!(half.tau, 0.0);
    assert_eq!(half.p_value, 1.0);
}

/// n > 33 without ties and exactly one discordant pair stays exact: p = 2/(n−1)! · (1 + (n−1))
/// … scipy's c = 1 branch: 2/(n−1)!.
#[test]
fn exact_for_large_n_with_one_discordant_pair() {
    let x: Vec<f64> = (0..40).map(f64::from).collect();
    let mut y = x.clone();
    y.swap(10, 11);
    let tau = kendall_tau(&x, &y, TauVariant::B).unwrap();
    assert_eq!(tau.method, PValueMethod::Exact);
    assert!(close(tau.p_value, 2.0 / factorial(39), 1e-300));
    y.swap(20, 21);
    assert_eq!(kendall_tau(&x, &y, TauVariant::B).unwrap().method, PValueMethod::Asymptotic);
}

#[test]
fn degenerate_and_bad_input() {
    for (x, y) in [(vec![], vec![]), (vec![1.0], vec![2.0]), (vec![1.0, 1.0, 1.0], vec![1.0, 2.0, 3.0])] {
        let tau = kendall_tau(&x, &y, TauVariant::B).unwrap();
        assert!(tau.tau.is_nan() && tau.p_value.is_nan());
        assert_eq!(tau.method, PValueMethod::Undefined);
    }
    // Two items, no tie: tau ±1, p = 1 (scipy).
    let two = kendall_tau(&[1.0, 2.0], &[2.0, 1.0], TauVariant::B).unwrap();
    assert_eq!((two.tau, two.p_value), (-1.0, 1.0));
    assert!(matches!(kendall_tau(&[1.0, f64::NAN], &[1.0, 2.0], TauVariant::B), Err(MetaError::InvalidOption(_))));
    assert!(matches!(kendall_tau(&[1.0], &[1.0, 2.0], TauVariant::B), Err(MetaError::InvalidOption(_))));
    // −0 and +0 are one value; infinities are ordinary values.
    let zeros = kendall_counts(&[-0.0, 0.0, f64::INFINITY], &[1.0, 2.0, 3.0]).unwrap();
    assert_eq!(zeros.ties_x, 1);
}

#[test]
fn normal_cdf_reference_values() {
    // Φ(0) = 1/2, Φ(−1.959963984540054) = 0.025, Φ(−5) = 2.866515718791939e-7 (R pnorm).
    assert_eq!(normal_cdf(0.0), 0.5);
    assert!(close(normal_cdf(-1.959_963_984_540_054), 0.025, 1e-15));
    assert!(close(normal_cdf(-5.0) / 2.866_515_718_791_939e-7, 1.0, 1e-13));
    assert!(close(normal_cdf(1.0), 0.841_344_746_068_542_9, 1e-15));
}

fn tied_vector(max: u32) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(0..max, 0..60).prop_map(|v| v.into_iter().map(f64::from).collect())
}

proptest! {
    #[test]
    fn knight_equals_brute_force((x, y) in (1usize..60).prop_flat_map(|n| (
        prop::collection::vec(0u32..8, n), prop::collection::vec(0u32..8, n)))) {
        let x: Vec<f64> = x.into_iter().map(f64::from).collect();
        let y: Vec<f64> = y.into_iter().map(f64::from).collect();
        prop_assert_eq!(kendall_counts(&x, &y).unwrap(), kendall_counts_naive(&x, &y).unwrap());
    }

    #[test]
    fn self_and_reverse(x in prop::collection::hash_set(-1000i32..1000, 2..50)) {
        let x: Vec<f64> = x.into_iter().map(f64::from).collect();
        let minus: Vec<f64> = x.iter().map(|v| -v).collect();
        for variant in [TauVariant::A, TauVariant::B, TauVariant::C] {
            // tau-b divides by two square roots: 1 within rounding, as scipy.
            prop_assert!(close(kendall_tau(&x, &x, variant).unwrap().tau, 1.0, 1e-15));
            prop_assert!(close(kendall_tau(&x, &minus, variant).unwrap().tau, -1.0, 1e-15));
        }
    }

    #[test]
    fn symmetric_and_bounded(x in tied_vector(6), seed in 0u64..1000) {
        let y: Vec<f64> = x.iter().enumerate().map(|(i, _)| ((i as u64 * 7 + seed) % 5) as f64).collect();
        for variant in [TauVariant::A, TauVariant::B, TauVariant::C] {
            let xy = kendall_tau(&x, &y, variant).unwrap();
            let yx = kendall_tau(&y, &x, variant).unwrap();
            prop_assert!(close(xy.tau, yx.tau, 1e-15) || (xy.tau.is_nan() && yx.tau.is_nan()));
            prop_assert!(xy.p_value.to_bits() == yx.p_value.to_bits());
            prop_assert!(xy.tau.is_nan() || xy.tau.abs() <= 1.0);
            prop_assert!(xy.p_value.is_nan() || (0.0..=1.0).contains(&xy.p_value));
        }
    }
}

#[test]
fn same_counts_at_one_and_two_threads() {
    let x: Vec<f64> = (0..5000u32).map(|i| f64::from((i * 7919) % 613)).collect();
    let y: Vec<f64> = (0..5000u32).map(|i| f64::from((i * 104_729) % 997)).collect();
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| kendall_counts(&x, &y).unwrap())
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, kendall_counts_naive(&x, &y).unwrap());
}
