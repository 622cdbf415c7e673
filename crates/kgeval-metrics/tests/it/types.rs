//! The type breakdown (MELT `TypeRefiner`) on hand-made entity types.

use kgeval_metrics::align::{type_breakdown, AlignmentOptions};
use kgeval_model::{EntityKind, EntityTypes};

use crate::support::{counts, Fixture};

#[test]
fn breakdown_by_source_then_target_type() {
    let mut fx = Fixture::new();
    let mut onto1 = EntityTypes::new();
    let mut onto2 = EntityTypes::new();
    for (iri, kind) in [
        ("C1", EntityKind::Class),
        ("P1", EntityKind::ObjectProperty),
        ("D1", EntityKind::DatatypeProperty),
        ("I1", EntityKind::Individual),
    ] {
        onto1.record(fx.iris.intern(iri), kind);
    }
    for (iri, kind) in [
        ("C2", EntityKind::Class),
        ("X2", EntityKind::Class),
        ("P2", EntityKind::ObjectProperty),
        ("D2", EntityKind::DatatypeProperty),
        ("Y2", EntityKind::DatatypeProperty),
        ("I2", EntityKind::Individual),
    ] {
        onto2.record(fx.iris.intern(iri), kind);
    }
    let reference = fx.al(&[("C1", "C2", "="), ("P1", "P2", "="), ("D1", "D2", "="), ("I1", "I2", "=")]);
    let system = fx.al(&[
        ("C1", "C2", "="), // class TP
        ("C1", "X2", "="), // class FP
        ("Z1", "C2", "="), // unknown source, class target: class FP
        ("P1", "P2", "="), // object property TP
        ("D1", "Y2", "="), // datatype property FP
        ("I1", "I2", "="), // instance TP
        ("U1", "U2", "="), // typed by neither: dropped
    ]);
    let (by_type, warnings) =
        type_breakdown(&reference, &system, None, &AlignmentOptions::default(), &onto1, &onto2, &fx.iris);
    assert_eq!(counts(&by_type.classes), (1, 2, 0, 0, 3));
    assert_eq!(by_type.classes.scores.precision, 1.0 / 3.0);
    assert_eq!(counts(&by_type.properties), (1, 1, 1, 0, 2));
    assert_eq!(counts(&by_type.object_properties), (1, 0, 0, 0, 1));
    assert_eq!(counts(&by_type.datatype_properties), (0, 1, 1, 0, 1));
    assert_eq!(counts(&by_type.instances), (1, 0, 0, 0, 1));
    assert_eq!(warnings.len(), 1, "one summary warning, not one per cell");
    assert_eq!(warnings[0].code, "untyped-cell");
    assert!(warnings[0].message.starts_with("1 system and 0 reference"), "{}", warnings[0].message);
}
