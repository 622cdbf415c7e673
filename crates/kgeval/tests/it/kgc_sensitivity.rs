//! `KgcTask::sensitivity`: subsets of test triples rebuild the questions, and macro metrics
//! come from the per-answer ranks of the answers left (worked out by hand below).

use kgeval::kgc::KgcTask;
use kgeval::{Input, NoProgress, SystemInput};
use kgeval_model::meta::agreement::TauVariant;
use kgeval_model::meta::sensitivity::SubsetSource;

/// Test triples 0: `a r b`, 1: `a r c`, 2: `d r b`. Questions: head (?, r, b) = {a, d},
/// head (?, r, c) = {a}, tail (a, r, ?) = {b, c}, tail (d, r, ?) = {b}.
const TEST: &str = "a\tr\tb\na\tr\tc\nd\tr\tb\n";
const TRAIN: &str = "e\tr\ta\n";

/// Ranks with the test split filtered, in the order head ×3 then tail ×3 of the test lines.
fn ranks(name: &str, head: [u32; 3], tail: [u32; 3]) -> SystemInput {
    let mut text = String::from("# filter: train test\nhead\trelation\ttail\tside\trank\n");
    let triples = [("a", "b"), ("a", "c"), ("d", "b")];
    for (side, ranks) in [("head", head), ("tail", tail)] {
        for ((h, t), rank) in triples.iter().zip(ranks) {
            text.push_str(&format!("{h}\tr\t{t}\t{side}\t{rank}\n"));
        }
    }
    SystemInput::named(name, Input::from_bytes(format!("{name}.tsv"), text.into_bytes()))
}

#[test]
fn macro_metrics_are_rebuilt_per_subset() {
    let task = KgcTask {
        filters: vec![Input::from_bytes("train.txt", TRAIN.as_bytes().to_vec())],
        ..KgcTask::new(Input::from_bytes("test.txt", TEST.as_bytes().to_vec()))
    };
    // Full macro MRR (best answer per question): X (1 + 1/2 + 1/2 + 1) / 4 = 0.75,
    // Y (1/2 + 1 + 1 + 1) / 4 = 0.875, Z 1/3: Y > X > Z.
    let systems = [ranks("X", [1, 2, 1], [4, 2, 1]), ranks("Y", [2, 1, 2], [1, 3, 1]), ranks("Z", [3; 3], [3; 3])];
    // Subset {2}: X 1, Y (1/2 + 1) / 2 = 0.75, Z 1/3: X > Y > Z, tau = (2 - 1) / 3.
    // Subset {0}: tail (a, r, ?) keeps only b (X ranks it 4th): X (1 + 1/4) / 2 = 0.625,
    // Y (1/2 + 1) / 2 = 0.75: Y > X > Z, tau = 1 (a per-question table would keep X's 1/2 for
    // that question and tie X with Y).
    // Subset {0, 1}: X (1 + 1/2 + 1/2) / 3, Y (1/2 + 1 + 1) / 3: tau = 1.
    let source = SubsetSource::Given(vec![vec![2], vec![0, 1], vec![0]]);
    let (result, warnings) = task
        .sensitivity(&systems, &["macro_mrr".into(), "micro_mrr".into()], source, TauVariant::B, &NoProgress)
        .expect("sensitivity");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(result.items, 3);
    assert_eq!(result.systems, ["X", "Y", "Z"]);
    assert_eq!(result.points.len(), 2);
    let one = &result.points[0];
    assert_eq!((one.size, one.subsets), (1, 2));
    assert!((one.mean_tau[0] - 2.0 / 3.0).abs() < 1e-12, "{one:?}");
    assert!((one.sd_tau[0] - (2.0f64 / 9.0).sqrt()).abs() < 1e-12, "{one:?}");
    assert_eq!(result.points[1].mean_tau[0], 1.0);
    // Micro MRR on {2}: X (1 + 1) / 2, Y (1/2 + 1) / 2, Z 1/3 (tau 1/3); on {0}: X (1 + 1/4) / 2,
    // Y (1/2 + 1) / 2 (tau 1).
    assert!((one.mean_tau[1] - 2.0 / 3.0).abs() < 1e-12, "{one:?}");
}

#[test]
fn bad_sensitivity_inputs_are_errors() {
    let task = KgcTask::new(Input::from_bytes("test.txt", TEST.as_bytes().to_vec()));
    let one = [ranks("X", [1; 3], [1; 3])];
    let err = task.sensitivity(&one, &[], SubsetSource::seed_004(), TauVariant::B, &NoProgress).unwrap_err();
    assert!(err.to_string().contains("need at least 2, found 1"), "{err}");
    let two = [ranks("X", [1; 3], [1; 3]), ranks("Y", [2; 3], [1; 3])];
    let err = task.sensitivity(&two, &["macro_nope".into()], SubsetSource::seed_004(), TauVariant::B, &NoProgress);
    assert!(err.unwrap_err().to_string().contains("unknown metric `macro_nope`"));
    let outside = SubsetSource::Given(vec![vec![3]]);
    let err = task.sensitivity(&two, &[], outside, TauVariant::B, &NoProgress).unwrap_err();
    assert!(err.to_string().contains("item index 3, but there are 3 items"), "{err}");
}
