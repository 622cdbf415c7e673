//! Micro and macro aggregation: MELT's unit-test oracle and the macro variants.

use kgeval_metrics::align::{aggregate, prf, AlignmentOptions, AlignmentProfile};
use kgeval_model::align::{ConfusionCounts, PairScores};

use crate::support::close;

fn pair(tp: u64, fp: u64, fn_: u64) -> PairScores {
    let counts = ConfusionCounts { tp, fp, fn_, ignored: 0, correspondences: tp + fp };
    PairScores { scores: prf(&counts, 1.0), counts }
}

fn oracle() -> Vec<PairScores> {
    vec![pair(2, 1, 1), pair(1, 3, 0), pair(3, 0, 3)]
}

/// (TP,FP,FN) = (2,1,1), (1,3,0), (3,0,3) → micro P = R = F = 0.6; macro P 0.64, R 0.72, F1 0.58.
#[test]
fn melt_micro_macro_oracle() {
    let all = aggregate(&oracle(), &AlignmentOptions::default());
    let micro = all.micro.scores;
    assert!(close(micro.precision, 0.6) && close(micro.recall, 0.6) && close(micro.f_measure, 0.6));
    assert_eq!(all.micro.counts, ConfusionCounts { tp: 6, fp: 4, fn_: 4, ignored: 0, correspondences: 10 });
    let m = all.macro_.scores;
    // By hand: P = (2/3 + 1/4 + 1)/3 = 23/36, R = (2/3 + 1 + 1/2)/3 = 13/18, F = (2/3 + 2/5 + 2/3)/3.
    assert!(close(m.precision, 23.0 / 36.0));
    assert!(close(m.recall, 13.0 / 18.0));
    assert!(close(m.f_measure, (2.0 / 3.0 + 0.4 + 2.0 / 3.0) / 3.0));
    // As published (2 dp).
    assert!((m.precision - 0.64).abs() < 0.005);
    assert!((m.recall - 0.72).abs() < 0.005);
    assert!((m.f_measure - 0.58).abs() < 0.005);
    assert_eq!(all.macro_.counts, all.micro.counts);
}

/// MELT 2019: macro F1 = harmonic mean of macro P and macro R.
#[test]
fn harmonic_macro_f1() {
    let options = AlignmentOptions { macro_harmonic_f1: true, ..AlignmentOptions::default() };
    let m = aggregate(&oracle(), &options).macro_.scores;
    let (p, r) = (23.0 / 36.0, 13.0 / 18.0);
    assert!(close(m.precision, p) && close(m.recall, r));
    assert!(close(m.f_measure, 2.0 * p * r / (p + r)));
    assert!((m.f_measure - 0.678).abs() < 0.0005);
}

/// Expected pairs: missing pairs count 0; fewer expected than given is raised.
#[test]
fn expected_pairs() {
    let options = AlignmentOptions { expected_pairs: Some(4), ..AlignmentOptions::default() };
    let all = aggregate(&oracle(), &options);
    assert!(close(all.macro_.scores.precision, 23.0 / 12.0 / 4.0));
    assert!(close(all.micro.scores.precision, 0.6), "micro is unaffected");
    let fewer = AlignmentOptions { expected_pairs: Some(1), ..AlignmentOptions::default() };
    assert_eq!(aggregate(&oracle(), &fewer), aggregate(&oracle(), &AlignmentOptions::default()));
    let none = aggregate(&[], &options);
    assert_eq!(none.macro_.scores.f_measure, 0.0);
    assert_eq!(none.micro.scores.f_measure, 0.0);
}

/// The micro scores follow the profile's conventions (Alignment API: nothing judged → P = 1).
#[test]
fn micro_uses_profile_conventions() {
    let empty = PairScores::default();
    let alignapi = AlignmentOptions::for_profile(AlignmentProfile::AlignApi);
    let all = aggregate(&[empty, empty], &alignapi);
    assert_eq!((all.micro.scores.precision, all.micro.scores.recall), (1.0, 1.0));
    let seals = AlignmentOptions::for_profile(AlignmentProfile::OaeiSeals);
    assert_eq!(aggregate(&[pair(2, 1, 0)], &seals).micro.scores.precision, 0.667);
}

/// Fβ: β = 2 weighs recall more.
#[test]
fn f_beta() {
    let counts = ConfusionCounts { tp: 1, fp: 3, fn_: 0, ..ConfusionCounts::default() };
    let s = prf(&counts, 2.0);
    // P = 1/4, R = 1: F2 = 5 · 0.25 / (4 · 0.25 + 1) = 0.625.
    assert!(close(s.f_measure, 0.625));
    assert!(close(prf(&counts, 0.5).f_measure, 1.25 * 0.25 / (0.25 * 0.25 + 1.0)));
}
