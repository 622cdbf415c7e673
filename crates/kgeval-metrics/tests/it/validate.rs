//! Input checks: swapped sides, absent entities, duplicates, unknown relations.

use kgeval_metrics::align::validate;
use kgeval_model::{EntityKind, EntityTypes};

use crate::support::Fixture;

fn codes(d: &[kgeval_model::Diagnostic]) -> Vec<&'static str> {
    d.iter().map(|d| d.code).collect()
}

#[test]
fn swapped_sides_by_reference_hits() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("a1", "b1", "<"), ("a2", "b2", "="), ("a3", "b3", "="), ("a4", "b4", "=")]);
    let swapped = fx.al(&[("b1", "a1", ">"), ("b2", "a2", "="), ("b3", "a3", "="), ("a4", "b4", "=")]);
    let found = validate(&reference, &swapped, None, None, &fx.iris);
    assert_eq!(codes(&found), ["swapped-sides"]);
    assert!(found[0].message.contains("3 correspondences match") && found[0].message.contains("1 as given"));
    // Two swapped hits are not enough evidence.
    let two = fx.al(&[("b1", "a1", ">"), ("b2", "a2", "=")]);
    assert!(validate(&reference, &two, None, None, &fx.iris).is_empty());
}

#[test]
fn swapped_sides_and_absent_entities_by_ontology() {
    let mut fx = Fixture::new();
    let mut onto1 = EntityTypes::new();
    let mut onto2 = EntityTypes::new();
    for i in 0..3 {
        onto1.record(fx.iris.intern(&format!("o1#{i}")), EntityKind::Class);
        onto2.record(fx.iris.intern(&format!("o2#{i}")), EntityKind::Class);
    }
    let reference = fx.al(&[("o1#0", "o2#0", "=")]);
    let swapped = fx.al(&[("o2#0", "o1#1", "="), ("o2#1", "o1#2", "=")]);
    let found = validate(&reference, &swapped, Some(&onto1), Some(&onto2), &fx.iris);
    assert_eq!(codes(&found), ["swapped-sides", "absent-entity"]);
    assert!(found[1].message.starts_with("system: 4 entity IRIs"), "{}", found[1].message);

    let fine = fx.al(&[("o1#0", "o2#0", "="), ("o1#1", "o2#2", "=")]);
    assert!(validate(&reference, &fine, Some(&onto1), Some(&onto2), &fx.iris).is_empty());

    let stray = fx.al(&[("o1#0", "o2#0", "="), ("o1#9", "o2#0", "="), ("o1#1", "null", "%")]);
    let found = validate(&reference, &stray, Some(&onto1), Some(&onto2), &fx.iris);
    assert_eq!(codes(&found), ["absent-entity"]);
    assert!(found[0].message.contains("1 entity IRIs") && found[0].message.contains("o1#9"), "{}", found[0].message);
}

#[test]
fn duplicates_and_unknown_relations() {
    let mut fx = Fixture::new();
    let reference = fx.al(&[("a", "b", "=")]);
    let mut system = fx.al(&[("a", "b", "="), ("c", "d", "?")]);
    let mut again = fx.cell("a", "b", "=", 0.5);
    again.line = 7;
    system.insert(again);
    let found = validate(&reference, &system, None, None, &fx.iris);
    assert_eq!(codes(&found), ["duplicate-cell", "unknown-relation"]);
    assert!(found[0].message.starts_with("system: 1 repeated"), "{}", found[0].message);
    assert!(found[0].message.contains("line 7") || found[0].message.contains("lines 7"), "{}", found[0].message);
}
