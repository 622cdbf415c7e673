//! `kgeval compare --against`: the ranking agreement of two result sets reproduces every row
//! of `testdata/kgc/derived/expected_kendall.tsv` (seed 004's Fig. 3, Tables 3 and 4, the
//! pool-depth series; tau-b, tau-c, tau-a within 1e-4) from the kgc-sparsity CSVs, read from
//! the file; per-item inputs are ordered by their means; CSV and text show the same rows.

use serde_json::Value;

use crate::{f, kgeval, kgeval_json, root};

const R: &str = "testdata/kgc/kgc-sparsity/result";

/// `(experiment, metric, tau_b, tau_c, tau_a)` of every row of the expectation file.
fn expected() -> Vec<(String, String, [f64; 3])> {
    let text = std::fs::read_to_string(root().join("testdata/kgc/derived/expected_kendall.tsv")).expect("tsv");
    text.lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            let tau = |i: usize| cells[i].parse::<f64>().expect("a number");
            (cells[0].to_owned(), cells[1].to_owned(), [tau(2), tau(3), tau(4)])
        })
        .collect()
}

/// The agreement rows of `kgeval compare LEFT --against RIGHT --format json`.
fn rows(left: &str, right: &str) -> Vec<Value> {
    let json = kgeval_json(&["compare", &format!("{R}/{left}"), "--against", &format!("{R}/{right}")]);
    assert_eq!(json["conventions"]["input_format"], "wide-csv");
    assert!(json["metrics"].as_array().expect("metrics").is_empty(), "agreement only");
    json["agreement"]["rows"].as_array().expect("rows").clone()
}

/// The row of `metric` in `group` (`[]` for ungrouped, else (column, value) pairs).
fn row<'a>(rows: &'a [Value], group: &[(&str, &str)], metric: &str) -> &'a Value {
    rows.iter()
        .find(|r| {
            r["metric"] == metric
                && r["group"].as_object().is_some_and(|g| {
                    g.len() == group.len() && group.iter().all(|(k, v)| g.get(*k).and_then(Value::as_str) == Some(*v))
                })
        })
        .unwrap_or_else(|| panic!("no row for {metric} in {group:?}"))
}

#[test]
fn every_expected_kendall_row_through_the_cli() {
    let s_sc = rows("FB-Test-S/evaluation.csv", "FB-Test-S-C/evaluation.csv");
    let o_s = rows("FB-Test-O/evaluation.csv", "FB-Test-S/evaluation.csv");
    let weighted = rows("FB-Test-S/evaluation.csv", "FB-Test-S-C/lp_sample_rel_dist.csv");
    let depths = rows("FB-Test-S/evaluation.csv", "FB-Test-S-C/pooling_depth.csv.gz");
    let per_type = rows("FB-Test-S/lp_per_rel_type.csv", "FB-Test-S-C/lp_per_rel_type.csv");
    let expected = expected();
    assert_eq!(expected.len(), 105);
    let mut depth_rows = 0;
    for (experiment, metric, taus) in &expected {
        let depth = experiment.strip_prefix("S_vs_SCdepth");
        let side_category = experiment.strip_prefix("S_vs_SC_").and_then(|rest| rest.split_once('_'));
        let found = match (experiment.as_str(), depth, side_category) {
            ("S_vs_SC", ..) => row(&s_sc, &[], metric),
            ("O_vs_S", ..) => row(&o_s, &[], metric),
            ("S_vs_SCweightedS", ..) => row(&weighted, &[], metric),
            (_, Some(d), _) => {
                depth_rows += 1;
                row(&depths, &[("Depth", d)], metric)
            }
            (_, None, Some((side, category))) => {
                row(&per_type, &[("QuestionType", side), ("RelationType", category)], metric)
            }
            _ => panic!("unknown experiment {experiment}"),
        };
        for (key, want) in ["tau_b", "tau_c", "tau_a"].iter().zip(taus) {
            let got = f(found, key);
            assert!((got - want).abs() < 1e-4, "{experiment} {metric} {key}: {got} vs {want}");
        }
        assert_eq!(found["n_systems"], 13, "{experiment} {metric}");
    }
    assert_eq!(depth_rows, 44, "the depth series 0..=10 × 4 metrics");
    // Seed 004's headline: micro MRR tau(S, S-C) = −0.2308 (and 0.359 at pool depth 2).
    assert!((f(row(&s_sc, &[], "micro_mrr"), "tau_b") + 0.2308).abs() < 1e-4);
    assert!((f(row(&depths, &[("Depth", "2")], "micro_mrr"), "tau_b") - 0.359).abs() < 1e-3);
    assert!((f(row(&o_s, &[], "micro_mrr"), "tau_b") - 0.7949).abs() < 1e-4);
}

#[test]
fn text_and_csv_show_the_chosen_tau_and_every_variant() {
    let args = [
        "compare",
        &format!("{R}/FB-Test-S/evaluation.csv"),
        "--against",
        &format!("{R}/FB-Test-S-C/evaluation.csv"),
        "-m",
        "micro_mrr",
        "-m",
        "micro_mr",
    ];
    let text = String::from_utf8(kgeval(&[&args[..], &["--tau", "a"]].concat()).stdout).expect("utf-8");
    assert!(text.starts_with("# kgeval compare: ranking agreement: Kendall tau-a"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| l.starts_with("group")).expect("table header");
    assert!(lines[header].contains("tau_a"), "{text}");
    assert!(lines[header + 1].starts_with("all    micro_mrr") && lines[header + 1].contains("-0.2308"), "{text}");
    // MR is lower-is-better on both sides: tau is the same as on the raw values (0.2308).
    assert!(lines[header + 2].contains("micro_mr ") && lines[header + 2].contains("0.2308"), "{text}");
    let csv = String::from_utf8(kgeval(&[&args[..], &["--format", "csv"]].concat()).stdout).expect("utf-8");
    let csv_lines: Vec<&str> = csv.lines().collect();
    assert!(csv_lines[0].starts_with("group,metric,n_systems,tau_b,tau_c,tau_a,p_value,p_method,tau_ap"));
    assert!(csv_lines[1].starts_with("all,micro_mrr,13,-0.2307692307"), "{csv}");
    assert_eq!(csv_lines.len(), 3);
}

#[test]
fn per_item_inputs_are_ordered_by_their_means() {
    // Two long CSVs with the same three systems: the second swaps B and C.
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, b: f64, c: f64| {
        let path = dir.path().join(name);
        let mut csv = String::from("system,item,metric,value\n");
        for (system, value) in [("A", 0.9), ("B", b), ("C", c)] {
            for item in ["q1", "q2"] {
                csv.push_str(&format!("{system},{item},map,{value}\n"));
            }
        }
        std::fs::write(&path, csv).expect("write");
        path.to_str().expect("utf-8").to_owned()
    };
    let (left, right) = (write("left.csv", 0.5, 0.2), write("right.csv", 0.2, 0.5));
    let json = kgeval_json(&["compare", &left, "--against", &right]);
    let row = &json["agreement"]["rows"][0];
    assert_eq!(row["metric"], "map");
    // Orders A > B > C and A > C > B: one discordant pair of three, tau = (2 − 1) / 3.
    assert!((f(row, "tau_b") - 1.0 / 3.0).abs() < 1e-15, "{row}");
    assert_eq!(json["conventions"]["against_format"], "long-csv");
    // A system only on one side is named, not silently dropped.
    let partial = dir.path().join("partial.csv");
    std::fs::write(&partial, "system,item,metric,value\nA,q1,map,0.9\nB,q1,map,0.5\nD,q1,map,0.1\n").expect("write");
    let json = kgeval_json(&["compare", &left, "--against", partial.to_str().expect("utf-8")]);
    let row = &json["agreement"]["rows"][0];
    assert_eq!(row["n_systems"], 2);
    assert_eq!(row["only_left"], serde_json::json!(["C"]));
    assert_eq!(row["only_right"], serde_json::json!(["D"]));
    // Means are taken over items joined under --missing: a hole is an error unless told.
    let holes = dir.path().join("holes.csv");
    std::fs::write(
        &holes,
        "system,item,metric,value\nA,q1,map,0.9\nA,q2,map,0.7\nB,q1,map,0.5\nC,q1,map,0.1\nC,q2,map,0.3\n",
    )
    .expect("write");
    let holes = holes.to_str().expect("utf-8");
    let out = kgeval(&["compare", &left, "--against", holes]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("system `B` has no value for item `q2`"), "{stderr}");
    // --missing zero: B's mean is 0.25, C's 0.2: the left side's order A > B > C, tau = 1.
    let json = kgeval_json(&["compare", &left, "--against", holes, "--missing", "zero"]);
    assert!((f(&json["agreement"]["rows"][0], "tau_b") - 1.0).abs() < 1e-15);
    assert_eq!(json["warnings"][0]["code"], "missing-values");
}
