//! Whole-track evaluation: pairs, aggregates, secondary references, conventions, score table.

use kgeval_metrics::align::{evaluate_pair, evaluate_track, AlignmentOptions, AlignmentProfile, PairInput};
use kgeval_model::Alignment;

use crate::support::{counts, Fixture};

fn input<'a>(name: &'a str, reference: &'a Alignment, system: &'a Alignment) -> PairInput<'a> {
    PairInput { name, reference, secondary: None, system, exclusion: None, onto1: None, onto2: None, baseline: None }
}

#[test]
fn track_with_secondary_reference_on_one_pair() {
    let mut fx = Fixture::new();
    let r1 = fx.al(&[("a", "b", "="), ("c", "d", "=")]);
    let r1_unrepaired = fx.al(&[("a", "b", "="), ("c", "d", "="), ("e", "f", "=")]);
    let s1 = fx.al(&[("a", "b", "="), ("e", "f", "=")]);
    let r2 = fx.al(&[("x", "y", "=")]);
    let s2 = fx.al(&[("x", "y", "=")]);
    let inputs = [PairInput { secondary: Some(&r1_unrepaired), ..input("p1", &r1, &s1) }, input("p2", &r2, &s2)];
    let options = AlignmentOptions::default();
    let track = evaluate_track(&inputs, &options, &fx.iris, "sys");
    assert_eq!(track.system, "sys");
    assert_eq!((track.profile, track.mode), (AlignmentProfile::Melt, options.mode));
    assert_eq!(track.pairs.len(), 2);
    assert_eq!(counts(&track.pairs[0].primary), (1, 1, 1, 0, 2));
    assert_eq!(counts(&track.pairs[0].secondary.expect("secondary")), (2, 0, 1, 0, 2));
    assert!(track.pairs[1].secondary.is_none());
    assert_eq!(counts(&track.primary.micro), (2, 1, 1, 0, 3));
    let secondary = track.secondary.expect("one pair has a secondary reference");
    assert_eq!(counts(&secondary.micro), (2, 0, 1, 0, 2), "only over pairs that have one");
    assert_eq!(track.primary.macro_.scores.precision, 0.75);

    let table = &track.score_table;
    let metrics: Vec<&str> = table.metrics().collect();
    assert_eq!(
        metrics,
        [
            "precision",
            "recall",
            "f1",
            "tp",
            "fp",
            "fn",
            "secondary_precision",
            "secondary_recall",
            "secondary_f1",
            "secondary_tp",
            "secondary_fp",
            "secondary_fn"
        ]
    );
    let (s, i, m) = table.find("sys", "p1", "secondary_tp").expect("present");
    assert_eq!(table.get(s, i, m), Some(2.0));
    assert!(table.find("sys", "p2", "f1").is_some_and(|(s, i, m)| table.get(s, i, m) == Some(1.0)));
    let (_, i2, m2) = table.find("sys", "p2", "secondary_tp").expect("metric exists");
    assert_eq!(table.get(s, i2, m2), None);
    assert_eq!(table.item_info(i).group("pair"), Some("p1"));

    let entries = track.conventions.entries();
    let conventions: Vec<&str> = entries.iter().map(|(k, _)| *k).collect();
    for key in ["profile", "mode", "threshold", "beta", "relation_sensitive", "micro", "macro"] {
        assert!(conventions.contains(&key), "{key} in {conventions:?}");
    }
    let no_secondary = evaluate_track(&inputs[1..], &options, &fx.iris, "sys");
    assert!(no_secondary.secondary.is_none());
}

#[test]
fn pair_with_labels_curve_and_types() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("a", "b", "=")]);
    let system = fx.alc(&[("a", "b", "=", 0.9), ("a", "c", "=", 0.4)]);
    let mut onto1 = kgeval_model::EntityTypes::new();
    onto1.record(fx.iris.intern("a"), kgeval_model::EntityKind::Class);
    let onto2 = kgeval_model::EntityTypes::new();
    let options = AlignmentOptions { collect_labels: true, threshold_curve: true, ..AlignmentOptions::default() };
    let pair = evaluate_pair(
        &PairInput { onto1: Some(&onto1), onto2: Some(&onto2), ..input("p", &reference, &system) },
        &options,
        &fx.iris,
    );
    assert_eq!(pair.name, "p");
    assert_eq!(pair.labels.len(), 2);
    assert_eq!(pair.threshold_curve.len(), 2);
    assert_eq!(pair.best_threshold.map(|b| b.threshold), Some(0.9));
    let by_type = pair.by_type.expect("ontologies given");
    assert_eq!(by_type.classes, pair.primary);
    // b and c are absent from onto2.
    assert!(pair.warnings.iter().any(|w| w.code == "absent-entity"));
}
