//! Property tests: bounds, identity, order independence, count identities, single-pair micro,
//! curve = rescoring, and agreement with the naive pseudocode.

use kgeval_metrics::align::{
    aggregate, score_pair, threshold_curve, AlignmentOptions, AlignmentProfile, CompletenessMode,
};
use kgeval_model::{Alignment, Correspondence, Interner, Relation};
use proptest::prelude::*;

use crate::naive::naive_counts;

/// `(source index, target index, relation index, confidence tenths)`.
type RawCell = (u8, u8, u8, u8);

const RELATIONS: [Relation; 5] =
    [Relation::Equivalence, Relation::Subsumed, Relation::Subsumes, Relation::Incompatible, Relation::Unknown];

/// Sources `s0..s4` plus `null` (index 5), targets `t0..t4` plus `""` (index 5).
fn interner() -> Interner {
    let mut iris = Interner::new();
    for i in 0..5 {
        iris.intern(&format!("s{i}"));
        iris.intern(&format!("t{i}"));
    }
    iris.intern("null");
    iris.intern("");
    iris
}

fn build(iris: &Interner, cells: &[RawCell], relations: usize) -> Alignment {
    let source = |i: u8| if i >= 5 { "null".to_owned() } else { format!("s{i}") };
    let target = |i: u8| if i >= 5 { String::new() } else { format!("t{i}") };
    cells
        .iter()
        .map(|&(a, b, r, c)| {
            Correspondence::new(
                iris.get(&source(a)).expect("interned"),
                iris.get(&target(b)).expect("interned"),
                RELATIONS[r as usize % relations],
                f64::from(c) / 10.0,
            )
        })
        .collect()
}

/// System cells: ordinary entities, `=`, `<`, `>`.
fn system_cells() -> impl Strategy<Value = Vec<RawCell>> {
    prop::collection::vec((0u8..5, 0u8..5, 0u8..3, 0u8..=10), 0..14)
}

/// Reference cells: also `%`, `?` and null/blank entities.
fn reference_cells() -> impl Strategy<Value = Vec<RawCell>> {
    prop::collection::vec((0u8..6, 0u8..6, 0u8..5, 10u8..=10), 0..10)
}

fn all_options() -> Vec<AlignmentOptions> {
    let mut out = Vec::new();
    for profile in AlignmentProfile::ALL {
        for mode in CompletenessMode::ALL {
            out.push(AlignmentOptions { mode, ..AlignmentOptions::for_profile(profile) });
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Every score in [0, 1] (never NaN); TP + FP + ignored = correspondences; the micro
    /// aggregate of one pair is that pair.
    #[test]
    fn bounds_and_identities(sys in system_cells(), refs in reference_cells(), t in prop::option::of(0u8..=10)) {
        let iris = interner();
        let (system, reference) = (build(&iris, &sys, 3), build(&iris, &refs, 5));
        for options in all_options() {
            let options = AlignmentOptions { threshold: t.map(|t| f64::from(t) / 10.0), ..options };
            let (s, _) = score_pair(&reference, &system, None, &options, &iris);
            for v in [s.scores.precision, s.scores.recall, s.scores.f_measure] {
                prop_assert!((0.0..=1.0).contains(&v), "{v} {options:?}");
            }
            let c = s.counts;
            prop_assert_eq!(c.tp + c.fp + c.ignored, c.correspondences);
            let micro = aggregate(&[s], &options).micro;
            prop_assert_eq!(micro, s);
        }
    }

    /// S == R (non-empty, no `?`/`%`) scores 1 everywhere (DISO: when there is an `=` cell;
    /// OntoAligner: when no (source, target) pair repeats with another relation, since a list
    /// entry, repeated keys included, counts in the denominator even when its pair is already counted).
    #[test]
    fn identity_scores_one(cells in prop::collection::vec((0u8..5, 0u8..5, 0u8..3, 0u8..=10), 1..12)) {
        let iris = interner();
        let alignment = build(&iris, &cells, 3);
        let has_equivalence = alignment.iter().any(|c| c.relation == Relation::Equivalence);
        let pairs: std::collections::HashSet<_> = alignment.iter().map(|c| (c.entity1, c.entity2)).collect();
        for options in all_options() {
            if (options.profile == AlignmentProfile::Diso && !has_equivalence)
                || (options.profile == AlignmentProfile::OntoAligner && pairs.len() < alignment.len() + alignment.duplicates())
            {
                continue;
            }
            let (s, _) = score_pair(&alignment, &alignment, None, &options, &iris);
            prop_assert_eq!((s.scores.precision, s.scores.recall, s.scores.f_measure), (1.0, 1.0, 1.0), "{:?}", options);
        }
    }

    /// The order of the cells changes no count.
    #[test]
    fn order_does_not_matter(
        (sys, shuffled) in system_cells().prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle())),
        (refs, refs_shuffled) in reference_cells().prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle())),
    ) {
        let iris = interner();
        // Distinct keys only: with repeated keys the kept confidence depends on the order.
        let dedup = |v: &[RawCell]| {
            let mut seen = std::collections::HashSet::new();
            v.iter().copied().filter(|c| seen.insert((c.0, c.1, c.2))).collect::<Vec<_>>()
        };
        let (a, b) = (build(&iris, &dedup(&sys), 3), build(&iris, &dedup(&shuffled), 3));
        let (ra, rb) = (build(&iris, &refs, 5), build(&iris, &refs_shuffled, 5));
        for options in all_options() {
            let (x, _) = score_pair(&ra, &a, None, &options, &iris);
            let (y, _) = score_pair(&rb, &b, None, &options, &iris);
            prop_assert_eq!(x, y, "{:?}", options);
        }
    }

    /// The indexed engine agrees with the literal pseudocode (melt profile, every mode).
    #[test]
    fn agrees_with_naive_pseudocode(sys in system_cells(), refs in reference_cells()) {
        let iris = interner();
        let (system, reference) = (build(&iris, &sys, 3), build(&iris, &refs, 5));
        for mode in CompletenessMode::ALL {
            let options = AlignmentOptions { mode, ..AlignmentOptions::default() };
            let (s, labels) =
                score_pair(&reference, &system, None, &AlignmentOptions { collect_labels: true, ..options }, &iris);
            let c = s.counts;
            prop_assert_eq!((c.tp, c.fp, c.fn_, c.ignored), naive_counts(&reference, &system, mode, &iris), "{}", mode);
            prop_assert_eq!(labels.len() as u64, c.correspondences + c.fn_);
        }
    }

    /// Every curve point equals rescoring with that threshold (melt and diso, every mode).
    #[test]
    fn curve_equals_rescoring(sys in system_cells(), refs in reference_cells()) {
        let iris = interner();
        let (system, reference) = (build(&iris, &sys, 3), build(&iris, &refs, 5));
        for profile in [AlignmentProfile::Melt, AlignmentProfile::Diso] {
            for mode in CompletenessMode::ALL {
                let options = AlignmentOptions { mode, ..AlignmentOptions::for_profile(profile) };
                for point in threshold_curve(&reference, &system, None, &options, &iris) {
                    let at = AlignmentOptions { threshold: Some(point.threshold), ..options.clone() };
                    prop_assert_eq!(score_pair(&reference, &system, None, &at, &iris).0, point.scores);
                }
            }
        }
    }
}
