//! `kgeval compare` on bad input: a clear one-line error and exit 2 (never a panic, nothing
//! written), or the documented value (identical systems: t = 0, p = 1).

use std::path::{Path, PathBuf};

use crate::{f, has_position, kgeval, kgeval_json};

/// Writes `content` as `name` in `dir` and returns the path as a string.
fn file(dir: &Path, name: &str, content: &str) -> String {
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, content).expect("write");
    path.to_str().expect("utf-8").to_owned()
}

/// Runs `kgeval compare ARGS -o OUT`, asserts exit 2, no panic, nothing written, and returns
/// the error line.
fn fails(dir: &Path, args: &[&str]) -> String {
    let out_path = dir.join("out.txt");
    let out_str = out_path.to_str().expect("utf-8").to_owned();
    let mut all = vec!["compare"];
    all.extend_from_slice(args);
    all.extend(["-o", &out_str]);
    let out = kgeval(&all);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{all:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{all:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{all:?}");
    assert!(!out_path.exists(), "{all:?}: output written on failure");
    let last = stderr.lines().last().unwrap_or_default().to_owned();
    assert!(last.starts_with("error: "), "{all:?}: {stderr}");
    last
}

const HEADER: &str = "system,item,metric,value\n";

#[test]
fn mismatched_items_are_an_error_unless_missing_says_otherwise() {
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = file(
        dir.path(),
        "s.csv",
        &format!("{HEADER}A,q1,map,0.5\nA,q2,map,0.7\nA,q3,map,0.1\nB,q1,map,0.4\nB,q2,map,0.6\n"),
    );
    let error = fails(dir.path(), &[&csv]);
    assert_eq!(
        error,
        "error: 1 missing value(s) for metric `map`: system `B` has no value for item `q3` (first of them); \
         items must be the same for every system (--missing zero|drop to proceed)"
    );
    let out = kgeval(&["compare", &csv, "--missing", "drop", "--format", "json"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("1 item(s) dropped because some system has no value for them (--missing drop); 2 items compared"),
        "{stderr}"
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["metrics"][0]["items"], 2);
    assert_eq!(json["metrics"][0]["dropped_items"], 1);
    let json = kgeval_json(&["compare", &csv, "--missing", "zero"]);
    assert_eq!(json["metrics"][0]["zero_filled"], 1);
    assert!((f(&json["metrics"][0]["means"], "B") - 1.0 / 3.0).abs() < 1e-15);
}

#[test]
fn too_few_systems_or_items() {
    let dir = tempfile::tempdir().expect("tempdir");
    let one_item = file(dir.path(), "one.csv", &format!("{HEADER}A,q1,map,0.5\nB,q1,map,0.4\n"));
    assert_eq!(fails(dir.path(), &[&one_item]), "error: items of metric map: need at least 2, found 1");
    let one_system = file(dir.path(), "sys.csv", &format!("{HEADER}A,q1,map,0.5\nA,q2,map,0.4\n"));
    assert_eq!(fails(dir.path(), &[&one_system]), "error: systems: need at least 2, found 1");
}

#[test]
fn constant_differences_have_documented_p_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    // B = A on every item: t = 0, p = 1 (scipy would say NaN); C = A − 0.1: p = 0.
    let csv = file(
        dir.path(),
        "c.csv",
        &format!("{HEADER}A,q1,map,0.5\nA,q2,map,0.7\nB,q1,map,0.5\nB,q2,map,0.7\nC,q1,map,0.4\nC,q2,map,0.6\n"),
    );
    for test in ["t", "wilcoxon", "fisher", "tukey", "bootstrap"] {
        let json = kgeval_json(&["compare", &csv, "--test", test, "--correction", "none"]);
        let pairs = &json["metrics"][0]["pairs"];
        assert_eq!((&pairs[0]["system_a"], &pairs[0]["system_b"]), (&"A".into(), &"B".into()));
        assert_eq!(f(&pairs[0], "p_value"), 1.0, "{test}: equal systems");
        assert_eq!(f(&pairs[0], "mean_difference"), 0.0, "{test}");
        assert_eq!(pairs[0]["ties"], 2, "{test}");
        if test == "t" {
            assert_eq!(f(&pairs[0], "statistic"), 0.0);
            assert_eq!(f(&pairs[1], "p_value"), 0.0, "a constant non-zero difference");
            // Cohen's d of a constant non-zero difference is infinite: null in JSON.
            assert!(pairs[1]["effect_size"].is_null(), "{}", pairs[1]);
        }
    }
    // In text: `-` and a note, never inf (issue 31: no inf or NaN in any output).
    let text = String::from_utf8(kgeval(&["compare", &csv]).stdout).expect("utf-8");
    assert!(!text.contains("inf") && !text.contains("NaN"), "{text}");
    assert!(text.contains("cohens_d -: the pair's differences do not vary"), "{text}");
}

#[test]
fn nan_unknown_metric_empty_and_unknown_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let nan = file(dir.path(), "nan.csv", &format!("{HEADER}A,q1,map,0.5\nA,q2,map,NaN\nB,q1,map,0.4\nB,q2,map,0.3\n"));
    assert_eq!(fails(dir.path(), &[&nan]), "error: metric `map`: system `A`, item `q2` has the non-finite value NaN");
    let ok = file(dir.path(), "ok.csv", &format!("{HEADER}A,q1,map,0.5\nA,q2,map,0.4\nB,q1,map,0.4\nB,q2,map,0.3\n"));
    assert_eq!(
        fails(dir.path(), &[&ok, "-m", "ndcg"]),
        "error: unknown metric `ndcg`: the input has per-item values of map"
    );
    let empty = file(dir.path(), "empty.json", "");
    assert_eq!(fails(dir.path(), &[&empty]), format!("error: {empty}: found an empty file, expected a score table"));
    let prose = file(dir.path(), "notes.txt", "these are notes\n");
    assert!(fails(dir.path(), &[&prose]).contains("notes.txt: found no known score-table format"));
    // --input-format overrides detection: the same prose read as trec_eval -q output.
    let error = fails(dir.path(), &[&prose, "--input-format", "trec-eval"]);
    assert!(has_position(&error, &prose), "{error}");
    assert!(error.ends_with(":1:11: found value \"notes\" for measure \"these\", expected a number"), "{error}");
}

#[test]
fn malformed_inputs_name_file_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = file(dir.path(), "bad.csv", &format!("{HEADER}A,q1,map,0.5\nA,q2,map,high\n"));
    let error = fails(dir.path(), &[&csv]);
    assert_eq!(error, format!("error: {csv}:3:10: found value \"high\", expected a number"));
    let json = file(dir.path(), "bad.json", "{\"systems\": []}");
    let error = fails(dir.path(), &[&json]);
    assert!(has_position(&error, &json) && error.contains("found no `per_item` array"), "{error}");
    let trec = file(dir.path(), "run.txt", "map\t301\t0.5\nmap\t302\n");
    let error = fails(dir.path(), &[&trec]);
    assert_eq!(
        error,
        format!("error: {trec}:2:1: found 2 fields, expected `measure query value` (trec_eval -q output)")
    );
}

#[test]
fn inputs_that_do_not_fit_together() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = file(dir.path(), "a.csv", &format!("{HEADER}A,q1,map,0.5\nA,q2,map,0.4\nB,q1,map,0.4\nB,q2,map,0.3\n"));
    let b = file(dir.path(), "b.csv", &format!("{HEADER}B,q1,map,0.4\nB,q2,map,0.3\n"));
    let error = fails(dir.path(), &[&a, &b]);
    assert!(error.contains("system \"B\" is also in") && error.contains("a.csv"), "{error}");
    let error = fails(dir.path(), &[&format!("X={a}")]);
    assert!(error.contains("found 2 systems (A, B), expected one to name \"X\""), "{error}");
    let wide = file(dir.path(), "wide.csv", "System,micro_mrr\nA,0.3\nB,0.2\n");
    let error = fails(dir.path(), &[&wide]);
    assert!(error.contains("a wide system × metric table has no per-item values"), "{error}");
    assert!(error.contains("--against"), "{error}");
    let error = fails(dir.path(), &[&wide, &a]);
    assert!(error.contains("must be the only input of its side"), "{error}");
    let qrels = "testdata/trec_eval/test/qrels.test";
    let error = fails(dir.path(), &[&a, "--qrels", qrels, "--run", "testdata/trec_eval/test/results.test"]);
    assert_eq!(error, "error: compare: found score-table inputs and --qrels, expected one of them");
    assert_eq!(fails(dir.path(), &["--run", "x.txt"]), "error: compare: --run needs --qrels");
    assert_eq!(fails(dir.path(), &[]), "error: compare: expected at least one input (or --qrels with --run)");
    let error = fails(dir.path(), &["--qrels", qrels, "--run", "testdata/trec_eval/test/results.test", "-m", "nope"]);
    assert!(error.contains("nope"), "{error}");
    let error = fails(dir.path(), &[&format!("{}/missing.csv", dir.path().display())]);
    assert!(error.contains("missing.csv"), "{error}");
}

#[test]
fn options_out_of_range() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = file(dir.path(), "a.csv", &format!("{HEADER}A,q1,map,0.5\nA,q2,map,0.4\nB,q1,map,0.4\nB,q2,map,0.3\n"));
    assert_eq!(fails(dir.path(), &[&a, "--alpha", "1.5"]), "error: --alpha: found 1.5, expected a level in (0, 1)");
    assert_eq!(
        fails(dir.path(), &[&a, "--test", "fisher", "-B", "0"]),
        "error: --iterations: found 0, expected 1 to 10000000"
    );
    assert_eq!(
        fails(dir.path(), &[&a, "--against", &a, "--rbo-p", "1"]),
        "error: --rbo-p: found 1, expected a persistence in (0, 1), from 1e-6 to 1 - 1e-6"
    );
    assert_eq!(
        fails(dir.path(), &[&a, "--format", "tsv"]),
        "error: --format tsv: found `kgeval compare`, expected `kgeval trec` (use --format csv)"
    );
    for (flag, value) in
        [("--test", "anova"), ("--correction", "fdr"), ("--tau", "d"), ("--missing", "skip"), ("--input-format", "xml")]
    {
        let out = kgeval(&["compare", &a, flag, value]);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("expected"), "{flag} {value}");
    }
}

/// Two result sets sharing no system printed a row of `-` and exited 0; sharing one, it
/// printed RBO 1.0000. Orderings of fewer than 2 shared systems cannot be compared.
#[test]
fn agreement_over_fewer_than_two_shared_systems_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let left = file(dir.path(), "left.csv", "System,map\nA,0.5\nB,0.4\nC,0.3\n");
    let none = file(dir.path(), "none.csv", "System,map\nX,0.5\nY,0.4\n");
    let one = file(dir.path(), "one.csv", "System,map\nA,0.5\nY,0.4\n");
    assert_eq!(
        fails(dir.path(), &[&left, "--against", &none]),
        "error: metric `map`: found 0 systems shared by both sides (3 left, 2 right), expected at least 2 to \
         compare their orderings"
    );
    assert_eq!(
        fails(dir.path(), &[&left, "--against", &one]),
        "error: metric `map`: found 1 system shared by both sides (3 left, 2 right), expected at least 2 to \
         compare their orderings"
    );
    // Two shared systems are enough.
    let two = file(dir.path(), "two.csv", "System,map\nA,0.5\nB,0.4\n");
    assert!(kgeval(&["compare", &left, "--against", &two]).status.success());
}

/// Inputs read the same everywhere: what one reader refused, another silently took.
#[test]
fn repeated_columns_keys_and_first_row_labels_are_located_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Two `mrr` columns printed both rows with the first column's values.
    let pvalues = file(dir.path(), "dp.csv", "SystemA,SystemB,mrr,mrr\nA,B,0.01,0.5\n");
    assert_eq!(
        fails(dir.path(), &["--pvalues", &pvalues]),
        format!("error: {pvalues}:1:21: found the metric \"mrr\" a second time (first in column 17), expected distinct metrics")
    );
    // A second `system` column became a grouping key.
    let long = file(dir.path(), "long.csv", "system,item,metric,value,system\nA,q1,map,0.5,B\nA,q2,map,0.4,B\n");
    assert_eq!(
        fails(dir.path(), &[&long]),
        format!("error: {long}:1:26: found the column \"system\" a second time (first in column 1), expected distinct columns")
    );
    // A non-number in the first row of a wide CSV turned the metric column into a group.
    let wide = file(dir.path(), "wide.csv", "System,map\nA,x\nB,0.4\nC,0.3\n");
    let other = file(dir.path(), "other.csv", "System,map\nA,0.5\nB,0.4\nC,0.3\n");
    assert_eq!(
        fails(dir.path(), &[&wide, "--against", &other]),
        format!("error: {wide}:2:3: found \"x\", expected a finite number for metric \"map\"")
    );
    // A repeated JSON key took the last value.
    let json = file(
        dir.path(),
        "a.json",
        "{\"per_item\": [\n{\"system\": \"A\", \"item\": \"q1\", \"metric\": \"map\", \"value\": 0.1, \"value\": 0.9},\n\
         {\"system\": \"A\", \"item\": \"q2\", \"metric\": \"map\", \"value\": 0.2},\n\
         {\"system\": \"B\", \"item\": \"q1\", \"metric\": \"map\", \"value\": 0.3},\n\
         {\"system\": \"B\", \"item\": \"q2\", \"metric\": \"map\", \"value\": 0.4}]}\n",
    );
    assert_eq!(
        fails(dir.path(), &[&json]),
        format!("error: {json}:2:68: found the key \"value\" a second time in one object, expected distinct keys")
    );
}

/// Huge finite scores: the mean printed `inf` (JSON `null`) and p `-` beside p_adjusted 1.
#[test]
fn huge_finite_scores_print_finite_numbers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = file(
        dir.path(),
        "big.csv",
        &format!("{HEADER}A,q1,map,-5\nA,q2,map,1e308\nA,q3,map,1e308\nB,q1,map,0\nB,q2,map,0.5\nB,q3,map,1\n"),
    );
    let out = kgeval(&["compare", &csv]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(out.status.success() && !text.contains("inf") && !text.contains(" - "), "{text}");
    assert!(text.contains("6.6667e307"), "{text}");
    let json = kgeval_json(&["compare", &csv]);
    let pair = &json["metrics"][0]["pairs"][0];
    assert!((f(&json["metrics"][0]["means"], "A") - 1e308 / 3.0 * 2.0).abs() < 1e293, "{json}");
    assert!(f(pair, "p_value") > 0.0 && f(pair, "p_value") == f(pair, "p_adjusted"), "{pair}");
    // Differences equal only up to rounding (0.1 − 0.2, 0.3 − 0.4): no t of 7e15.
    let near =
        file(dir.path(), "near.csv", &format!("{HEADER}A,q1,map,0.1\nA,q2,map,0.3\nB,q1,map,0.2\nB,q2,map,0.4\n"));
    let json = kgeval_json(&["compare", &near]);
    assert!(json["metrics"][0]["pairs"][0]["statistic"].is_null(), "{json}");
}

/// Empty system names: a per-item row's, and a blank NAME= for a trec_eval -q run.
#[test]
fn empty_system_names_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = file(
        dir.path(),
        "e.json",
        r#"{"per_item": [{"system": "", "item": "q1", "metric": "map", "value": 0.1},
                         {"system": "", "item": "q2", "metric": "map", "value": 0.2},
                         {"system": "B", "item": "q1", "metric": "map", "value": 0.3},
                         {"system": "B", "item": "q2", "metric": "map", "value": 0.4}]}"#,
    );
    assert_eq!(
        fails(dir.path(), &[&json]),
        format!("error: {json}:1:1: per_item row 1: found an empty `system`, expected a name")
    );
    let run = file(dir.path(), "r.txt", "map\t1\t0.5\nmap\t2\t0.25\nmap\tall\t0.375\n");
    let other = file(dir.path(), "s.txt", "map\t1\t0.4\nmap\t2\t0.2\nmap\tall\t0.3\n");
    let error = fails(dir.path(), &[&format!(" ={run}"), &other]);
    assert!(error.contains("found an empty system name"), "{error}");
}
