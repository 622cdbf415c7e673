//! The profiles: DISO Task 1, Alignment API, OAEI SEALS, OntoAligner.

use kgeval_metrics::align::{score_pair, AlignmentOptions, AlignmentProfile as P, CompletenessMode as M};
use kgeval_model::Relation;

use crate::support::{close, counts, melt, options, score, Fixture};

/// DISO Task 1: judge = `=` cells whose source is in src(R) or whose target is in tgt(R);
/// P = |S ∩ R| / |judge|, R = |S ∩ R| / |R|.
#[test]
fn diso_task1_by_hand() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("s1", "t1", "="), ("s2", "t2", "="), ("s3", "t3", "="), ("s4", "t4", "<")]);
    let system = fx.al(&[
        ("s1", "t1", "="), // TP
        ("s2", "t9", "="), // judged (source s2), wrong
        ("s8", "t3", "="), // judged (target t3), wrong
        ("s7", "t7", "="), // not judged
        ("s1", "t1", "<"), // not `=`: not scored at all
        ("s4", "t4", "<"), // not `=`: not scored at all (and the `<` reference cell is dropped)
    ]);
    let diso = AlignmentOptions::for_profile(P::Diso);
    assert_eq!(diso.mode, M::Partial);
    let s = score(&fx, &reference, &system, &diso);
    assert_eq!(counts(&s), (1, 2, 2, 1, 4));
    assert_eq!((s.scores.precision, s.scores.recall), (1.0 / 3.0, 1.0 / 3.0));
    // An ignore set (e.g. unknown.rdf) is an exclusion: the judged wrong cell (s2,t9) goes.
    let ignore = fx.al(&[("s2", "t9", "=")]);
    let (s, _) = score_pair(&reference, &system, Some(&ignore), &diso, &fx.iris);
    assert_eq!(counts(&s), (1, 1, 2, 1, 3));
    assert_eq!(s.scores.precision, 0.5);
}

/// DISO equals melt's partial mode on the `=` cells of both sides.
#[test]
fn diso_equals_partial_on_equivalence_cells() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("a", "b", "="), ("c", "d", "="), ("e", "f", "<"), ("g", "h", "?")]);
    let system =
        fx.al(&[("a", "b", "="), ("a", "x", "="), ("y", "d", "="), ("e", "f", "<"), ("g", "h", "="), ("z", "z", "=")]);
    let eq = |a: &kgeval_model::Alignment| a.filtered(|c| c.relation == Relation::Equivalence);
    let diso = score(&fx, &reference, &system, &options(P::Diso, M::Partial));
    let partial = score(&fx, &eq(&reference), &eq(&system), &melt(M::Partial));
    assert_eq!(diso, partial);
    assert_eq!(counts(&diso), (1, 2, 1, 2, 5));
}

/// Alignment API: relations ignored, keys deduplicated on (entity1, entity2); P = 1 for an empty
/// system, R = 1 for an empty reference.
#[test]
fn alignapi_conventions() {
    let mut fx = Fixture::new();
    let alignapi = AlignmentOptions::for_profile(P::AlignApi);
    assert_eq!(alignapi.mode, M::Complete);
    assert!(!alignapi.relation_sensitivity());
    let reference = fx.al(&[("a", "b", "="), ("c", "d", "=")]);
    let empty = fx.al(&[]);
    let s = score(&fx, &reference, &empty, &alignapi);
    assert_eq!((s.scores.precision, s.scores.recall, s.scores.f_measure), (1.0, 0.0, 0.0));
    let s = score(&fx, &empty, &empty, &alignapi);
    assert_eq!((s.scores.precision, s.scores.recall, s.scores.f_measure), (1.0, 1.0, 1.0));
    let s = score(&fx, &empty, &empty, &melt(M::Complete));
    assert_eq!((s.scores.precision, s.scores.recall, s.scores.f_measure), (0.0, 0.0, 0.0));

    let system = fx.al(&[("a", "b", "<"), ("a", "b", ">"), ("c", "x", "=")]);
    let s = score(&fx, &reference, &system, &alignapi);
    assert_eq!(counts(&s), (1, 1, 1, 0, 2));
    assert_eq!(counts(&score(&fx, &reference, &system, &melt(M::Complete))), (0, 3, 2, 0, 3));
    let sensitive = AlignmentOptions { relation_sensitive: Some(true), ..alignapi };
    assert_eq!(counts(&score(&fx, &reference, &system, &sensitive)), (0, 3, 2, 0, 3));
}

/// OAEI SEALS: a reversed cell with the reversed relation matches; P and R rounded to 3 decimals
/// before F.
#[test]
fn oaei_seals_direction_and_rounding() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("a", "b", "<"), ("c", "d", "=")]);
    let system = fx.al(&[("b", "a", ">"), ("d", "c", "="), ("e", "f", "=")]);
    let seals = AlignmentOptions::for_profile(P::OaeiSeals);
    let s = score(&fx, &reference, &system, &seals);
    assert_eq!(counts(&s), (2, 1, 0, 0, 3));
    assert_eq!((s.scores.precision, s.scores.recall), (0.667, 1.0));
    assert!(close(s.scores.f_measure, 2.0 * 0.667 / 1.667));
    assert_ne!(s.scores.f_measure, 0.8); // unrounded F would be exactly 0.8
    assert_eq!(counts(&score(&fx, &reference, &system, &melt(M::Complete))), (0, 3, 2, 0, 3));
    // The reversed relation must be the reversed one: (b, a, <) does not match (a, b, <).
    let wrong = fx.al(&[("b", "a", "<")]);
    assert_eq!(score(&fx, &reference, &wrong, &seals).counts.tp, 0);
    // A cell and its reverse are one correspondence.
    let both = fx.al(&[("c", "d", "="), ("d", "c", "=")]);
    assert_eq!(counts(&score(&fx, &reference, &both, &seals)), (1, 0, 1, 0, 1));
}

/// OntoAligner v1.9.4: sets of unique (source, target) pairs on both sides.
#[test]
fn ontoaligner_unique_pairs() {
    let mut fx = Fixture::new();
    let onto = AlignmentOptions::for_profile(P::OntoAligner);
    // The documentation example: predicts (A,1), (A,2), (B,3); references (A,1), (B,3).
    let references = fx.al(&[("A", "1", "="), ("B", "3", "=")]);
    let predicts = fx.alc(&[("A", "1", "=", 0.9), ("A", "2", "=", 0.5), ("B", "3", "=", 0.8)]);
    let s = score(&fx, &references, &predicts, &onto);
    assert_eq!(counts(&s), (2, 1, 0, 0, 3));
    assert_eq!((s.scores.precision, s.scores.recall), (2.0 / 3.0, 1.0));
    // A repeated prediction is one pair: P stays 2/3 (v1.9.1 divided by len(predicts): 1/2).
    let mut repeated = predicts.clone();
    repeated.insert(fx.cell("A", "1", "=", 0.7));
    assert_eq!(repeated.duplicates(), 1);
    let s = score(&fx, &references, &repeated, &onto);
    assert_eq!(counts(&s), (2, 1, 0, 0, 3));
    assert_eq!(s.scores.precision, 2.0 / 3.0);
    // A repeated reference is one pair: R stays 1.
    let mut references2 = references.clone();
    references2.insert(fx.cell("B", "3", "=", 1.0));
    let s = score(&fx, &references2, &predicts, &onto);
    assert_eq!(counts(&s), (2, 1, 0, 0, 3));
    assert_eq!(s.scores.recall, 1.0);
    // The same pair with two relations: one pair; the second cell is ignored.
    let two = fx.al(&[("A", "1", "="), ("A", "1", "<")]);
    let s = score(&fx, &references, &two, &onto);
    assert_eq!(counts(&s), (1, 0, 1, 1, 2));
    assert_eq!((s.scores.precision, s.scores.recall), (1.0, 0.5));
}

/// Each profile's default mode.
#[test]
fn profile_defaults() {
    assert_eq!(AlignmentOptions::default(), AlignmentOptions::for_profile(P::Melt));
    for (profile, mode) in [
        (P::Melt, M::Complete),
        (P::AlignApi, M::Complete),
        (P::OaeiSeals, M::Complete),
        (P::OntoAligner, M::Complete),
        (P::Diso, M::Partial),
    ] {
        let o = AlignmentOptions::for_profile(profile);
        assert_eq!((o.profile, o.mode, o.beta, o.threshold), (profile, mode, 1.0, None));
    }
}
