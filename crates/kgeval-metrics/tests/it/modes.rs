//! The completeness modes on hand-worked cases: the worked example, `?` and `%` reference
//! cells, exclusion, threshold and labels.

use kgeval_metrics::align::{score_pair, AlignmentOptions, AlignmentProfile, CompletenessMode as M};
use kgeval_model::align::CellLabel;

use crate::support::{close, counts, melt, options, score, Fixture};

const WORKED_REFERENCE: &[(&str, &str, &str)] = &[("a", "b", "=")];
const WORKED_SYSTEM: &[(&str, &str, &str)] = &[("a", "b", "="), ("a", "c", "="), ("d", "b", "="), ("d", "e", "=")];

/// R = {(a,b,=)}, S = {(a,b,=), (a,c,=), (d,b,=), (d,e,=)}.
#[test]
fn worked_example_in_every_mode() {
    let mut fx = Fixture::new();
    let reference = fx.al(WORKED_REFERENCE);
    let system = fx.al(WORKED_SYSTEM);
    for (mode, precision, fp, ignored) in [
        (M::Complete, 1.0 / 4.0, 3, 0),
        (M::Partial, 1.0 / 3.0, 2, 1),
        (M::PartialSource, 1.0 / 2.0, 1, 2),
        (M::PartialTarget, 1.0 / 2.0, 1, 2),
        (M::PartialNone, 1.0, 0, 3),
    ] {
        let s = score(&fx, &reference, &system, &melt(mode));
        assert_eq!(s.scores.precision, precision, "{mode}");
        assert_eq!(s.scores.recall, 1.0, "{mode}");
        assert!(close(s.scores.f_measure, 2.0 * precision / (precision + 1.0)), "{mode}");
        assert_eq!(counts(&s), (1, fp, 0, ignored, 4), "{mode}");
    }
}

/// Partial mode labels the worked example's cells, and a missed reference cell is an FN.
#[test]
fn labels_of_the_worked_example() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("a", "b", "="), ("f", "g", "=")]);
    let system = fx.al(WORKED_SYSTEM);
    let (s, none) = score_pair(&reference, &system, None, &melt(M::Partial), &fx.iris);
    assert!(none.is_empty(), "labels only on request");
    assert_eq!(counts(&s), (1, 2, 1, 1, 4));
    let opts = AlignmentOptions { collect_labels: true, ..melt(M::Partial) };
    let (_, labels) = score_pair(&reference, &system, None, &opts, &fx.iris);
    let got: Vec<_> = labels.iter().map(|l| (fx.name(&l.cell), l.label)).collect();
    let cell = |a: &str, b: &str| (a.to_owned(), b.to_owned(), "=");
    assert_eq!(
        got,
        [
            (cell("a", "b"), CellLabel::TruePositive),
            (cell("a", "c"), CellLabel::FalsePositive),
            (cell("d", "b"), CellLabel::FalsePositive),
            (cell("d", "e"), CellLabel::Ignored),
            (cell("f", "g"), CellLabel::FalseNegative),
        ]
    );
}

/// `?` reference cells: complete mode takes every system cell on the same pair (any relation)
/// out of FP; partial modes skip them (they add nothing to the judged sides).
#[test]
fn unknown_reference_cells() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("a", "b", "="), ("c", "d", "?")]);
    let system = fx.al(&[("a", "b", "="), ("c", "d", "="), ("c", "d", "<"), ("c", "e", "=")]);
    let complete = score(&fx, &reference, &system, &melt(M::Complete));
    assert_eq!(counts(&complete), (1, 1, 0, 2, 4));
    assert_eq!(complete.scores.precision, 0.5);
    let partial = score(&fx, &reference, &system, &melt(M::Partial));
    assert_eq!(counts(&partial), (1, 0, 0, 3, 4));
    assert_eq!((partial.scores.precision, partial.scores.recall), (1.0, 1.0));
    // A `?` cell is never a false negative.
    let empty = fx.al(&[]);
    let unknown_only = fx.al(&[("c", "d", "?")]);
    for mode in M::ALL {
        assert_eq!(score(&fx, &unknown_only, &empty, &melt(mode)).counts.fn_, 0, "{mode}");
    }
}

/// `%` reference cells: in partial modes negative knowledge, with `null` or blank wildcards;
/// in complete mode ordinary cells (a miss is an FN, as in the pseudocode).
#[test]
fn incompatible_reference_cells_with_null_wildcards() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("a", "b", "="), ("x", "null", "%"), ("", "y", "%"), ("p", "q", "%")]);
    let system =
        fx.al(&[("a", "b", "="), ("x", "z", "="), ("x", "w", "<"), ("v", "y", "="), ("p", "q", "="), ("p", "r", "=")]);
    // (x,z,=) by `x null`, (v,y,=) by `"" y`, (p,q,=) by `p q`; (x,w,<) is not `=`; (p,r,=) is
    // not judged because `%` cells make no side complete.
    for mode in [M::Partial, M::PartialSource, M::PartialTarget, M::PartialNone] {
        let s = score(&fx, &reference, &system, &melt(mode));
        assert_eq!(counts(&s), (1, 3, 0, 2, 6), "{mode}");
        assert_eq!((s.scores.precision, s.scores.recall), (0.25, 1.0), "{mode}");
    }
    let complete = score(&fx, &reference, &system, &melt(M::Complete));
    assert_eq!(counts(&complete), (1, 5, 3, 0, 6));
    assert_eq!((complete.scores.precision, complete.scores.recall), (1.0 / 6.0, 0.25));
    // "NULL" in any case and surrounding blanks are wildcards too.
    let reference = fx.al(&[("x", " NULL ", "%")]);
    let s = score(&fx, &reference, &system, &melt(M::PartialNone));
    assert_eq!(counts(&s), (0, 1, 0, 5, 6));
}

/// Exclusion removes system cells by key before scoring; they are counted nowhere and get no
/// label. Relation-insensitive profiles exclude by `(entity1, entity2)`.
#[test]
fn exclusion() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("a", "b", "=")]);
    let system = fx.al(&[("a", "b", "="), ("a", "c", "="), ("d", "e", "=")]);
    let exclusion = fx.al(&[("a", "c", "="), ("zz", "yy", "=")]);
    let opts = AlignmentOptions { collect_labels: true, ..melt(M::Complete) };
    let (s, labels) = score_pair(&reference, &system, Some(&exclusion), &opts, &fx.iris);
    assert_eq!(counts(&s), (1, 1, 0, 0, 2));
    assert_eq!(s.scores.precision, 0.5);
    assert_eq!(labels.len(), 2);
    assert!(labels.iter().all(|l| fx.iris.resolve(l.cell.entity2) != "c"));
    // Another relation is another key for melt…
    let other = fx.al(&[("a", "c", "<")]);
    let (s, _) = score_pair(&reference, &system, Some(&other), &melt(M::Complete), &fx.iris);
    assert_eq!(s.counts.correspondences, 3);
    // … but the same pair for alignapi.
    let alignapi = options(AlignmentProfile::AlignApi, M::Complete);
    let (s, _) = score_pair(&reference, &system, Some(&other), &alignapi, &fx.iris);
    assert_eq!(counts(&s), (1, 1, 0, 0, 2));
    // Excluding a reference hit removes the TP; the reference cell becomes an FN.
    let hit = fx.al(&[("a", "b", "=")]);
    let (s, _) = score_pair(&reference, &system, Some(&hit), &melt(M::Complete), &fx.iris);
    assert_eq!(counts(&s), (0, 2, 1, 0, 2));
}

/// The threshold keeps `confidence ≥ t`, after the exclusion.
#[test]
fn threshold() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("a", "b", "=")]);
    let system = fx.alc(&[("a", "b", "=", 0.9), ("a", "c", "=", 0.4), ("d", "e", "=", 0.6)]);
    let at = |t: f64| AlignmentOptions { threshold: Some(t), ..melt(M::Complete) };
    assert_eq!(counts(&score(&fx, &reference, &system, &at(0.6))), (1, 1, 0, 0, 2));
    assert_eq!(counts(&score(&fx, &reference, &system, &at(0.4))), (1, 2, 0, 0, 3));
    let none = score(&fx, &reference, &system, &at(0.95));
    assert_eq!(counts(&none), (0, 0, 1, 0, 0));
    assert_eq!((none.scores.precision, none.scores.recall, none.scores.f_measure), (0.0, 0.0, 0.0));
    let exclusion = fx.al(&[("d", "e", "=")]);
    let (s, _) = score_pair(&reference, &system, Some(&exclusion), &at(0.5), &fx.iris);
    assert_eq!(counts(&s), (1, 0, 0, 0, 1));
}
