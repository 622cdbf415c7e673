//! The Alignment API tutorial's published `eval.html` (PRecEvaluator, 2 decimals).

use crate::{f, kgeval_json, n};

#[test]
fn tutorial_systems_match_eval_html() {
    let json = kgeval_json(&["align", "--manifest", "testdata/tracks/alignapi-tutorial.toml", "--profile", "alignapi"]);
    let systems = json["systems"].as_array().expect("systems");
    let expected = [
        ("refalign", (1.00, 1.00, 1.00), (48, 0, 0)),
        ("equal", (1.00, 0.35, 0.52), (17, 0, 31)),
        ("SMOA", (0.57, 0.98, 0.72), (47, 35, 1)),
        ("SMOA5", (0.72, 0.98, 0.83), (47, 18, 1)),
        ("levenshtein", (0.55, 1.00, 0.71), (48, 40, 0)),
        ("levenshtein33", (0.65, 1.00, 0.79), (48, 26, 0)),
    ];
    for (name, (p, r, fm), counts) in expected {
        let system = systems.iter().find(|s| s["system"] == name).expect(name);
        let s = &system["pairs"][0]["primary"];
        let round2 = |x: f64| (x * 100.0).round() / 100.0;
        assert_eq!(round2(f(s, "precision")), p, "{name} P");
        assert_eq!(round2(f(s, "recall")), r, "{name} R");
        assert_eq!(round2(f(s, "f1")), fm, "{name} F");
        assert_eq!((n(s, "tp"), n(s, "fp"), n(s, "fn")), counts, "{name}");
    }
}

/// AOMS5 is SMOA5 with entity1/entity2 swapped: direction-sensitive scoring finds nothing and
/// kgeval says why.
#[test]
fn swapped_system_is_flagged() {
    let json = kgeval_json(&["align", "--manifest", "testdata/tracks/alignapi-tutorial.toml", "--profile", "alignapi"]);
    let aoms = json["systems"].as_array().expect("systems").iter().find(|s| s["system"] == "AOMS5").expect("AOMS5");
    let pair = &aoms["pairs"][0];
    assert_eq!(n(&pair["primary"], "tp"), 0);
    let warnings = pair["warnings"].as_array().expect("warnings");
    assert!(warnings.iter().any(|w| w["code"] == "swapped-sides"), "{warnings:?}");
    let smoa5 = json["systems"].as_array().expect("systems").iter().find(|s| s["system"] == "SMOA5").expect("SMOA5");
    let warnings = smoa5["pairs"][0]["warnings"].as_array().expect("warnings");
    assert!(!warnings.iter().any(|w| w["code"] == "swapped-sides"), "{warnings:?}");
}
