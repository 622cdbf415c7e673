//! The threshold curve and MELT's `ConfidenceFinder`.

use kgeval_metrics::align::{best_threshold, score_pair, threshold_curve, AlignmentOptions, CompletenessMode as M};

use crate::support::{counts, melt, Fixture};

/// R = {(a,b), (c,d)}, S = {(a,b) 0.9, (c,d) 0.3, (e,f) 0.5, (g,h) 0.7}, complete:
/// cut 0.3: P 1/2 R 1 F 2/3; 0.5: P 1/3 R 1/2 F 0.4; 0.7: P 1/2 R 1/2 F 1/2; 0.9: P 1 R 1/2 F 2/3.
/// F ties at 0.3 and 0.9: the larger threshold wins.
#[test]
fn curve_and_best_threshold_with_a_tie() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("a", "b", "="), ("c", "d", "=")]);
    let system = fx.alc(&[("a", "b", "=", 0.9), ("c", "d", "=", 0.3), ("e", "f", "=", 0.5), ("g", "h", "=", 0.7)]);
    let options = melt(M::Complete);
    let curve = threshold_curve(&reference, &system, None, &options, &fx.iris);
    let got: Vec<_> = curve.iter().map(|p| (p.threshold, counts(&p.scores))).collect();
    assert_eq!(got, [(0.3, (2, 2, 0, 0, 4)), (0.5, (1, 2, 1, 0, 3)), (0.7, (1, 1, 1, 0, 2)), (0.9, (1, 0, 1, 0, 1))]);
    let f: Vec<f64> = curve.iter().map(|p| p.scores.scores.f_measure).collect();
    assert_eq!(f[0], f[3]);
    assert!((f[0] - 2.0 / 3.0).abs() < 1e-12);
    let best = best_threshold(&curve).expect("non-empty");
    assert_eq!(best.threshold, 0.9);
    for point in &curve {
        let at = AlignmentOptions { threshold: Some(point.threshold), ..options.clone() };
        assert_eq!(score_pair(&reference, &system, None, &at, &fx.iris).0, point.scores);
    }
    assert_eq!(best_threshold(&[]), None);
}

/// The curve starts at the options' threshold and respects the exclusion; equal confidences
/// make one point.
#[test]
fn curve_after_exclusion_and_threshold() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("a", "b", "=")]);
    let system = fx.alc(&[("a", "b", "=", 0.8), ("a", "c", "=", 0.8), ("d", "e", "=", 0.2), ("x", "y", "=", 0.5)]);
    let exclusion = fx.al(&[("x", "y", "=")]);
    let options = AlignmentOptions { threshold: Some(0.3), ..melt(M::Partial) };
    let curve = threshold_curve(&reference, &system, Some(&exclusion), &options, &fx.iris);
    let got: Vec<_> = curve.iter().map(|p| (p.threshold, counts(&p.scores))).collect();
    assert_eq!(got, [(0.8, (1, 1, 0, 0, 2))]);
}
