//! `kgeval compare --sensitivity`: item subsets of score tables, test-triple subsets of KGC
//! ranks (worked out by hand), reproducibility and bad input.

use serde_json::Value;

use crate::{kgeval, kgeval_threads};

/// Four systems over 200 items whose means are far apart on `ndcg` and equal in expectation
/// on `noise`.
fn write_table(path: &std::path::Path) {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut csv = String::from("system,item,metric,value\n");
    for system in 0..4u32 {
        for item in 0..200 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let noise = ((state >> 33) % 101) as f64 / 100.0;
            csv.push_str(&format!("S{system},q{item},ndcg,{}\n", 0.2 * f64::from(system) + 0.1 * noise));
            csv.push_str(&format!("S{system},q{item},noise,{noise}\n"));
        }
    }
    std::fs::write(path, csv).expect("write");
}

fn json_of(args: &[&str], threads: &str) -> String {
    let out = kgeval_threads(args, threads);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn item_subsets_of_a_score_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("table.csv");
    write_table(&path);
    let path = path.to_str().expect("utf-8");
    let args = ["compare", path, "--sensitivity", "--ratios", "0.05,0.5,1", "--repeats", "30", "-f", "json"];
    let one = json_of(&args, "1");
    assert_eq!(one, json_of(&args, "2"), "identical at 1 and 2 threads");
    let json: Value = serde_json::from_str(&one).expect("json");
    let s = &json["sensitivity"];
    assert_eq!(s["items"], 200);
    assert_eq!(s["design"]["repeats"], 30);
    assert_eq!(s["design"]["generator"], "ChaCha8");
    let points = s["points"].as_array().expect("points");
    assert_eq!(points.iter().map(|p| p["size"].as_u64().unwrap()).collect::<Vec<_>>(), [10, 100, 200]);
    // ndcg: systems 0.2 apart with noise of at most 0.1, so every subset keeps the order.
    for point in points {
        assert_eq!(point["metrics"]["ndcg"]["mean_tau"], 1.0, "{point}");
        assert_eq!(point["metrics"]["ndcg"]["sd_tau"], 0.0, "{point}");
    }
    // noise: the full ordering is random, so small subsets disagree with it; all items agree.
    let noise = |i: usize| points[i]["metrics"]["noise"]["mean_tau"].as_f64().unwrap();
    assert!(noise(0) < 0.9, "{}", noise(0));
    assert_eq!(noise(2), 1.0);
    // Another seed draws other subsets.
    let mut other = args.to_vec();
    other.extend(["--seed", "7"]);
    assert_ne!(json_of(&other, "2"), one);

    let text = kgeval(&["compare", path, "--sensitivity", "--ratios", "0.5", "--repeats", "4"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("4 random subsets per ratio (ChaCha8, seed 42)"), "{text}");
    assert!(text.contains("1.0000 ± 0.0000"), "{text}");
}

/// The facade's hand-worked KGC example (`crates/kgeval/tests/it/kgc_sensitivity.rs`) through
/// the CLI, with the subsets in an index file.
#[test]
fn kgc_test_triples_through_the_cli() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    let test = write("test.txt", "a\tr\tb\na\tr\tc\nd\tr\tb\n");
    let train = write("train.txt", "e\tr\ta\n");
    let ranks = |name: &str, head: [u32; 3], tail: [u32; 3]| {
        let mut text = String::from("# filter: train test\nhead\trelation\ttail\tside\trank\n");
        for (side, ranks) in [("head", head), ("tail", tail)] {
            for ((h, t), rank) in [("a", "b"), ("a", "c"), ("d", "b")].iter().zip(ranks) {
                text.push_str(&format!("{h}\tr\t{t}\t{side}\t{rank}\n"));
            }
        }
        format!("{name}={}", write(&format!("{name}.tsv"), &text))
    };
    let (x, y, z) = (ranks("X", [1, 2, 1], [4, 2, 1]), ranks("Y", [2, 1, 2], [1, 3, 1]), ranks("Z", [3; 3], [3; 3]));
    let subsets = write("subsets.txt", "# test lines, 0-based\n2\n0 1\n0\n");
    let args = [
        "compare",
        "--sensitivity",
        "--kgc-test",
        &test,
        "--kgc-filter",
        &train,
        "--ranks",
        &x,
        "--ranks",
        &y,
        "--ranks",
        &z,
        "--subsets",
        &subsets,
        "-m",
        "macro_mrr",
        "-f",
        "json",
    ];
    let json: Value = serde_json::from_str(&json_of(&args, "2")).expect("json");
    let s = &json["sensitivity"];
    assert_eq!(s["unit"], "test triples");
    assert_eq!(s["systems"], serde_json::json!(["X", "Y", "Z"]));
    // Subsets {2} (tau 1/3) and {0} (tau 1): mean 2/3; {0, 1}: tau 1.
    let point = |i: usize| s["points"][i]["metrics"]["macro_mrr"]["mean_tau"].as_f64().unwrap();
    assert!((point(0) - 2.0 / 3.0).abs() < 1e-12, "{s}");
    assert_eq!(point(1), 1.0);
    assert_eq!(json["conventions"]["input_format"], "kgc ranks");
}

#[test]
fn bad_sensitivity_requests_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("table.csv");
    write_table(&path);
    let path = path.to_str().expect("utf-8");
    for (args, message) in [
        (
            vec!["compare", path, "--sensitivity", "--ratios", "1.5"],
            "--ratios: found the ratio 1.5, expected ratios in (0, 1]",
        ),
        (vec!["compare", path, "--sensitivity", "--against", path], "give one of them"),
        (vec!["compare", path, "--sensitivity", "--ranks", "A=a.tsv"], "--ranks needs the KGC split"),
        (vec!["compare", path, "--subsets", path], "inputs of --sensitivity"),
        (vec!["compare", path, "--kgc-filter", path], "--kgc-filter needs --kgc-test"),
    ] {
        let out = kgeval(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    let subsets = dir.path().join("subsets.txt");
    std::fs::write(&subsets, "0 1\n2 x\n").expect("write");
    let out = kgeval(&["compare", path, "--sensitivity", "--subsets", subsets.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("subsets.txt:2:3: found \"x\""));
}
