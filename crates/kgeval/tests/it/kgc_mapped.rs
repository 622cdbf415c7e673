//! KGC the PyKEEN way, in memory ([`MappedKgc`]): mapped triples and head/tail score blocks,
//! every rank type from one ranking, PyKEEN's names; errors name the argument and its 0-based
//! numpy index.

use kgeval::kgc::{IdRows, MappedKgc, ScoreRows, ScoreValues};

/// PyKEEN's fixture (the KGC spec) as tail prediction: scores [[2,2,1,3,5],[1,1,3,4,0],
/// [1,1,3,nan,0]] with true scores [2,3,3] (tails 0, 2, 2) → optimistic [3,2,1], pessimistic
/// [4,2,1], realistic [3.5,2,1] among [5,5,4] candidates (NaN ranked worst, not a candidate).
const TEST: [i64; 9] = [0, 0, 0, 1, 0, 2, 4, 0, 2];
const TAIL: [f64; 15] = [2.0, 2.0, 1.0, 3.0, 5.0, 1.0, 1.0, 3.0, 4.0, 0.0, 1.0, 1.0, 3.0, f64::NAN, 0.0];
const HEAD: [f64; 15] = [0.0; 15];

fn value(flat: &[(String, f64)], key: &str) -> f64 {
    flat.iter().find(|(k, _)| k == key).map(|(_, v)| *v).unwrap_or_else(|| panic!("{key} missing"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-7
}

#[test]
fn pykeen_fixture_gives_every_rank_type_under_pykeens_names() {
    let mut kgc = MappedKgc::with_counts(5, 1);
    kgc.nan = kgeval_model::ranking::NanPolicy::Worst;
    let test = IdRows { name: "test", ids: &TEST, shape: (3, 3) };
    let head = ScoreRows::new(ScoreValues::F64(&HEAD), 5).expect("head");
    let tail = ScoreRows::new(ScoreValues::F64(&TAIL), 5).expect("tail");
    let result = kgc.evaluate(test, &[], head, tail).expect("evaluation");
    let flat = result.pykeen_flat();
    for (key, expected) in [
        ("tail.optimistic.arithmetic_mean_rank", 2.0),
        ("tail.pessimistic.arithmetic_mean_rank", 7.0 / 3.0),
        ("tail.realistic.arithmetic_mean_rank", 2.1666667),
        ("tail.optimistic.inverse_harmonic_mean_rank", (1.0 / 3.0 + 0.5 + 1.0) / 3.0),
        ("tail.pessimistic.inverse_harmonic_mean_rank", (0.25 + 0.5 + 1.0) / 3.0),
        ("tail.realistic.inverse_harmonic_mean_rank", 0.5952381),
        ("tail.realistic.hits_at_1", 1.0 / 3.0),
        ("tail.optimistic.hits_at_3", 1.0),
        ("tail.pessimistic.hits_at_3", 2.0 / 3.0),
        ("tail.realistic.hits_at_5", 1.0),
        ("tail.realistic.adjusted_arithmetic_mean_rank", 0.7647059),
        ("tail.realistic.adjusted_arithmetic_mean_rank_index", 0.3636364),
        ("tail.realistic.z_arithmetic_mean_rank", 0.8728716),
        ("tail.realistic.adjusted_inverse_harmonic_mean_rank", 0.2245115),
        ("tail.realistic.z_inverse_harmonic_mean_rank", 0.6989267),
    ] {
        assert!(close(value(&flat, key), expected), "{key}: {} vs {expected}", value(&flat, key));
    }
    // Every head row ties all its candidates: 5 for (?, r, 0); 4 for each answer of
    // (?, r, 2), whose other answer is filtered.
    assert!(close(value(&flat, "head.realistic.arithmetic_mean_rank"), (3.0 + 2.5 + 2.5) / 3.0));
    assert!(close(value(&flat, "both.optimistic.arithmetic_mean_rank"), (1.0 * 3.0 + 6.0) / 6.0));
    // Expectation-based metrics exist for realistic ranks only (as in PyKEEN).
    assert!(flat.iter().all(|(k, _)| !k.starts_with("both.optimistic.adjusted")));
    assert!(flat.iter().any(|(k, _)| k == "both.realistic.adjusted_hits_at_k"));
    assert_eq!(flat.iter().filter(|(k, _)| k.ends_with(".hits_at_10")).count(), 9);
}

#[test]
fn errors_name_the_argument_and_its_numpy_index() {
    let kgc = MappedKgc::with_counts(5, 1);
    let head = ScoreRows::new(ScoreValues::F64(&HEAD), 5).expect("head");
    let tail = ScoreRows::new(ScoreValues::F64(&TAIL), 5).expect("tail");
    let test = IdRows { name: "test", ids: &TEST, shape: (3, 3) };
    let error =
        |result: Result<kgeval::kgc::MappedEvaluation, kgeval::Error>| result.expect_err("an error").to_string();
    assert_eq!(
        error(kgc.evaluate(test, &[], head, tail)),
        "tail_scores[2, 3]: found NaN, expected a number (or nan=\"worst\": NaN ranked below every score)"
    );
    let bad = [0, 0, 0, 1, 1, 2, 4, 0, 2];
    assert_eq!(
        error(kgc.evaluate(IdRows { ids: &bad, ..test }, &[], head, tail)),
        "test[1, 1]: found relation id 1, expected 0 to 0 (num_relations = 1)"
    );
    let filter = [0, 0, 7];
    assert_eq!(
        error(kgc.evaluate(test, &[IdRows { name: "filters[0]", ids: &filter, shape: (1, 3) }], head, tail)),
        "filters[0][0, 2]: found entity id 7, expected 0 to 4 (num_entities = 5)"
    );
    assert_eq!(
        error(kgc.evaluate(IdRows { shape: (1, 9), ..test }, &[], head, tail)),
        "test: found shape (1, 9), expected (n, 3): one (head, relation, tail) id triple per row"
    );
    let short = ScoreRows::new(ScoreValues::F64(&HEAD[..10]), 5).expect("two rows");
    assert_eq!(
        error(kgc.evaluate(test, &[], short, tail)),
        "head_scores: found shape (2, 5), expected (3, 5): one row per test triple, one column per entity"
    );
    let labels = MappedKgc::with_labels(vec!["a".into(), "b".into(), "a".into()], vec!["r".into()]);
    assert_eq!(
        error(labels.evaluate(test, &[], head, tail)),
        "entity_labels[2]: found \"a\" again (first at [0]), expected unique labels"
    );
}
