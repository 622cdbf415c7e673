//! `kgeval compare` on per-item scores: the in-process qrels+runs path equals per-item JSON
//! of two real `kgeval trec --per-item` runs; trec_eval `-q` output; a long CSV with every
//! number worked out by hand (paired t with two degrees of freedom has a closed form, Holm by
//! hand); the facade renders what the CLI prints; outputs are identical at 1 and 2 threads;
//! every `--help` example runs.

use std::path::Path;
use std::process::{Command, Output};

use kgeval::compare::CompareTask;
use kgeval::{NoProgress, OutputFormat, RenderOptions};
use serde_json::Value;

use crate::{f, help_examples, kgeval, kgeval_json, root};

const T: &str = "testdata/trec_eval/test";

fn stdout_of(out: &Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

/// Paired two-sided t test p-value for 3 items (df = 2): 1 − |t| / √(t² + 2).
fn t_test_df2(x: [f64; 3], y: [f64; 3]) -> (f64, f64) {
    let d: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a - b).collect();
    let mean = d.iter().sum::<f64>() / 3.0;
    let var = d.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 2.0;
    let t = mean / (var.sqrt() / 3f64.sqrt());
    (t, 1.0 - t.abs() / (t * t + 2.0).sqrt())
}

/// The metric block of `metric` in a compare JSON result.
fn metric<'a>(json: &'a Value, metric: &str) -> &'a Value {
    json["metrics"].as_array().expect("metrics").iter().find(|m| m["metric"] == metric).expect("metric block")
}

#[test]
fn per_item_json_of_two_trec_runs_equals_the_in_process_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let qrels = format!("{T}/qrels.test");
    let mut files = Vec::new();
    for (name, run) in [("full", "results.test"), ("trunc", "results.trunc")] {
        let path = dir.path().join(format!("{name}.json"));
        let path_str = path.to_str().expect("utf-8 path").to_owned();
        let spec = format!("{name}={T}/{run}");
        let out = kgeval(&["trec", "--per-item", "-f", "json", "-m", "official", "-o", &path_str, &qrels, &spec]);
        stdout_of(&out);
        files.push(path_str);
    }
    let from_files = kgeval_json(&["compare", "--missing", "zero", &files[0], &files[1]]);
    // One file holding both systems reads the same.
    let both = dir.path().join("both.json");
    let both = both.to_str().expect("utf-8 path");
    let (full, trunc) = (format!("full={T}/results.test"), format!("trunc={T}/results.trunc"));
    stdout_of(&kgeval(&["trec", "--per-item", "-f", "json", "-m", "official", "-o", both, &qrels, &full, &trunc]));
    assert_eq!(kgeval_json(&["compare", "--missing", "zero", both])["metrics"], from_files["metrics"]);
    let in_process = kgeval_json(&[
        "compare",
        "--missing",
        "zero",
        "--qrels",
        &qrels,
        "--run",
        &format!("full={T}/results.test"),
        "--run",
        &format!("trunc={T}/results.trunc"),
    ]);
    assert_eq!(from_files["conventions"]["input_format"], "per-item-json");
    assert_eq!(in_process["conventions"]["input_format"], "qrels+runs");
    // The same metrics (every official per-topic measure), the same numbers, bit for bit.
    assert_eq!(from_files["metrics"], in_process["metrics"]);
    let names: Vec<&str> =
        in_process["metrics"].as_array().unwrap().iter().map(|m| m["metric"].as_str().unwrap()).collect();
    assert!(names.contains(&"map") && names.contains(&"P_10") && names.contains(&"recip_rank"), "{names:?}");
    assert!(!names.contains(&"num_ret"), "counts have no direction: {names:?}");
    // map per topic: full 301/302/303 from trec_eval, trunc lacks 302 (counted as 0).
    let map = metric(&in_process, "map");
    assert_eq!(map["items"], 3);
    assert_eq!(map["zero_filled"], 1);
    let full = [0.0324, 0.4175, 0.0858];
    let pairs = &map["pairs"][0];
    let mean_full = f(&map["means"], "full");
    assert!((mean_full - full.iter().sum::<f64>() / 3.0).abs() < 1e-4, "{mean_full}");
    assert_eq!(pairs["system_a"], "full");
    // The t test by hand from the table's own per-topic values (df = 2, closed form).
    let table = kgeval_formats::per_item::read_per_item(&std::fs::read(&files[0]).unwrap(), "full.json").unwrap();
    let value = |t: &kgeval::ScoreTable, system: &str, item: &str| {
        t.find(system, item, "map").and_then(|(s, i, m)| t.get(s, i, m)).unwrap_or(0.0)
    };
    let trunc = kgeval_formats::per_item::read_per_item(&std::fs::read(&files[1]).unwrap(), "trunc.json").unwrap();
    let x = ["301", "302", "303"].map(|q| value(&table, "full", q));
    let y = ["301", "302", "303"].map(|q| value(&trunc, "trunc", q));
    let (t, p) = t_test_df2(x, y);
    assert!((f(pairs, "statistic") - t).abs() < 1e-12, "{pairs}");
    assert!((f(pairs, "p_value") - p).abs() < 1e-12, "{pairs}");
    assert_eq!(f(pairs, "p_adjusted"), f(pairs, "p_value"), "one pair: Holm changes nothing");
    // NAME=PATH renames a file's one system: the same run twice is not different (p = 1).
    let twice = stdout_of(&kgeval(&[
        "compare",
        &format!("X={}", files[0]),
        &format!("Y={}", files[0]),
        "-m",
        "map",
        "-f",
        "csv",
    ]));
    assert_eq!(twice, "SystemA,SystemB,map\nX,Y,1\nY,X,1\n");
}

#[test]
fn trec_eval_q_output_is_read_per_topic_with_all_as_the_summary() {
    let dir = tempfile::tempdir().expect("tempdir");
    // trunc's -q output written by kgeval trec (trec_eval's format); full is trec_eval's own.
    let trunc = dir.path().join("trunc.txt");
    let out = kgeval(&[
        "trec",
        "-q",
        "-c",
        "-m",
        "map",
        "-m",
        "P.10",
        &format!("{T}/qrels.test"),
        &format!("{T}/results.trunc"),
    ]);
    std::fs::write(&trunc, stdout_of(&out)).expect("write");
    let json = kgeval_json(&[
        "compare",
        &format!("{T}/out.test.aq"),
        &format!("trunc={}", trunc.display()),
        "-m",
        "map",
        "-m",
        "P_10",
    ]);
    assert_eq!(json["systems"], serde_json::json!(["out.test", "trunc"]));
    assert_eq!(json["conventions"]["input_format"], "trec-eval");
    let map = metric(&json, "map");
    // trec_eval's per-topic map of results.test (out.test.aq) and kgeval's of results.trunc
    // with -c: 301 0.0324 / 302 0 / 303 0.2723.
    let x = [0.0324, 0.4175, 0.0858];
    let y = [0.0324, 0.0, 0.2723];
    assert!((f(&map["means"], "out.test") - x.iter().sum::<f64>() / 3.0).abs() < 1e-12);
    let (t, p) = t_test_df2(x, y);
    let pair = &map["pairs"][0];
    assert!((f(pair, "statistic") - t).abs() < 1e-12, "{pair} vs t = {t}");
    assert!((f(pair, "p_value") - p).abs() < 1e-12, "{pair} vs p = {p}");
    assert_eq!((pair["wins"].as_u64(), pair["ties"].as_u64(), pair["losses"].as_u64()), (Some(1), Some(1), Some(1)));
    // The `all` lines are the headlines: the default metrics are the headline ones.
    let json = kgeval_json(&["compare", &format!("{T}/out.test.aq"), &format!("trunc={}", trunc.display())]);
    let names: Vec<&str> = json["metrics"].as_array().unwrap().iter().map(|m| m["metric"].as_str().unwrap()).collect();
    assert_eq!(names, ["map", "P_10"], "the measures both files have");
}

/// A long CSV: 3 systems × 3 items with every figure worked out by hand.
const LONG: &str = "system,item,metric,value,relation\n\
    A,q1,map,0.9,r1\nA,q2,map,0.8,r1\nA,q3,map,0.7,r2\n\
    B,q1,map,0.5,r1\nB,q2,map,0.6,r1\nB,q3,map,0.2,r2\n\
    C,q1,map,0.4,r1\nC,q2,map,0.1,r1\nC,q3,map,0.3,r2\n\
    A,q1,mr,3,r1\nA,q2,mr,1,r1\nA,q3,mr,2,r2\n\
    B,q1,mr,5,r1\nB,q2,mr,9,r1\nB,q3,mr,7,r2\n\
    C,q1,mr,4,r1\nC,q2,mr,6,r1\nC,q3,mr,5,r2\n";

#[test]
fn long_csv_paired_t_with_holm_by_hand() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("scores.csv");
    std::fs::write(&path, LONG).expect("write");
    let path = path.to_str().expect("utf-8");
    let json = kgeval_json(&["compare", path]);
    assert_eq!(json["conventions"]["input_format"], "long-csv");
    assert_eq!(json["conventions"]["test"], "t");
    assert_eq!(json["conventions"]["correction"], "holm");
    let values = |s: usize, base: usize| {
        let v: Vec<f64> = LONG.lines().skip(1).map(|l| l.split(',').nth(3).unwrap().parse().unwrap()).collect();
        [v[base + 3 * s], v[base + 3 * s + 1], v[base + 3 * s + 2]]
    };
    for (name, base, higher) in [("map", 0, true), ("mr", 9, false)] {
        let block = metric(&json, name);
        assert_eq!(block["higher_is_better"], higher, "{name}");
        let pairs = block["pairs"].as_array().unwrap();
        let raw: Vec<f64> =
            [(0, 1), (0, 2), (1, 2)].iter().map(|&(a, b)| t_test_df2(values(a, base), values(b, base)).1).collect();
        // Holm by hand: sorted ascending, p(k) × (m − k), running maximum, capped at 1.
        let mut order: Vec<usize> = (0..3).collect();
        order.sort_by(|&i, &j| raw[i].total_cmp(&raw[j]));
        let mut adjusted = [0.0; 3];
        let mut running: f64 = 0.0;
        for (k, &i) in order.iter().enumerate() {
            running = running.max((raw[i] * (3 - k) as f64).min(1.0));
            adjusted[i] = running;
        }
        for (i, pair) in pairs.iter().enumerate() {
            assert!((f(pair, "p_value") - raw[i]).abs() < 1e-12, "{name} pair {i}: {pair} vs {}", raw[i]);
            assert!((f(pair, "p_adjusted") - adjusted[i]).abs() < 1e-12, "{name} pair {i}: {pair}");
        }
    }
    // map: A (0.8) > B (0.4333) > C (0.2667): A−B d = (0.4, 0.2, 0.5), t = 4.1576,
    // p = 0.0533; A−C d = (0.5, 0.7, 0.4), t = 6.0474, p = 0.0263; Holm: A−C 3 × 0.0263 =
    // 0.0788, A−B max(2 × 0.0533, 0.0788) = 0.1065 — nothing at 0.05.
    let map = metric(&json, "map");
    let (ab, ac) = (&map["pairs"][0], &map["pairs"][1]);
    assert!((f(ab, "statistic") - 4.1576).abs() < 1e-4 && (f(ab, "p_value") - 0.0533).abs() < 1e-4, "{ab}");
    assert!((f(ac, "statistic") - 6.0474).abs() < 1e-4 && (f(ac, "p_adjusted") - 0.0788).abs() < 1e-4, "{ac}");
    assert!((f(ab, "p_adjusted") - 0.1065).abs() < 1e-4, "{ab}");
    assert_eq!(map["leaderboard"][0]["system"], "A");
    assert_eq!(map["leaderboard"][2]["system"], "C");
    assert!(map["leaderboard"].as_array().unwrap().iter().all(|r| r["tier"] == 1 && r["marks"] == ""));
    assert_eq!(map["power"]["significant"], 0);
    // mr is lower-is-better: A (2) leads, B (7) is last; A beats B in every item (wins).
    let mr = metric(&json, "mr");
    assert_eq!(mr["leaderboard"][0]["system"], "A");
    assert_eq!(mr["leaderboard"][2]["system"], "B");
    assert_eq!(mr["pairs"][0]["wins"], 3, "A has the lower rank on every item");
    let area: f64 = mr["pairs"].as_array().unwrap().iter().map(|p| f(p, "p_adjusted")).sum();
    assert!((f(&mr["power"], "area") - area).abs() < 1e-15);
    // Bonferroni and no correction.
    let json = kgeval_json(&["compare", path, "-m", "map", "--correction", "bonferroni"]);
    let pair = &metric(&json, "map")["pairs"][1];
    assert!((f(pair, "p_adjusted") - (3.0 * f(pair, "p_value")).min(1.0)).abs() < 1e-15);
    let text = stdout_of(&kgeval(&["compare", path, "-m", "map", "--correction", "none"]));
    assert!(text.starts_with("# kgeval compare: paired t test, no correction, α = 0.05"), "{text}");
    // A beats C at 0.05 without correction: the superscript `c` follows A's mean.
    assert!(text.contains("a  A       0.8000ᶜ"), "{text}");
}

#[test]
fn csv_is_the_p_value_matrix_in_both_orders() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("scores.csv");
    std::fs::write(&path, LONG).expect("write");
    let path = path.to_str().expect("utf-8");
    let csv = stdout_of(&kgeval(&["compare", path, "--format", "csv"]));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "SystemA,SystemB,map,mr");
    assert_eq!(lines.len(), 1 + 6);
    let json = kgeval_json(&["compare", path]);
    let ab = &metric(&json, "map")["pairs"][0];
    assert_eq!(lines[1], format!("A,B,{},{}", f(ab, "p_adjusted"), f(&metric(&json, "mr")["pairs"][0], "p_adjusted")));
    let ba = lines.iter().find(|l| l.starts_with("B,A,")).expect("B,A row");
    assert_eq!(ba[4..], lines[1][4..], "symmetric");
}

#[test]
fn facade_renders_what_the_cli_prints() {
    let task: CompareTask = kgeval::from_json(
        &format!(
            r#"{{"qrels": "{T}/qrels.test", "runs": ["full={T}/results.test", "trunc={T}/results.trunc"],
                "metrics": ["map"], "missing": "zero", "test": "bootstrap", "iterations": 200, "intervals": true}}"#
        ),
        "task.json",
    )
    .expect("task");
    let evaluation = task.resolved(&root()).run(&NoProgress).expect("run");
    let options = RenderOptions { version: env!("CARGO_PKG_VERSION").to_owned(), ..RenderOptions::default() };
    let cli = stdout_of(&kgeval(&[
        "compare",
        "--qrels",
        &format!("{T}/qrels.test"),
        "--run",
        &format!("full={T}/results.test"),
        "--run",
        &format!("trunc={T}/results.trunc"),
        "-m",
        "map",
        "--missing",
        "zero",
        "--test",
        "bootstrap",
        "-B",
        "200",
        "--intervals",
        "--format",
        "json",
    ]));
    assert_eq!(evaluation.render(OutputFormat::Json, &options), cli);
    assert_eq!(evaluation.result.conventions.iterations, 200);
    let unknown = kgeval::from_json::<CompareTask>(r#"{"inputs": ["a.json"], "tests": "t"}"#, "t.json").unwrap_err();
    assert!(unknown.to_string().contains("unknown field `tests`"), "{unknown}");
}

/// 4 systems × 300 items of deterministic pseudo-random scores with ties, as a long CSV.
fn write_generated(path: &Path) {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut csv = String::from("system,item,metric,value\n");
    for system in 0..4 {
        for item in 0..300 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let value = ((state >> 33) % 11) as f64 / 10.0 + 0.02 * f64::from(system);
            csv.push_str(&format!("S{system},q{item},ndcg,{value}\n"));
        }
    }
    std::fs::write(path, csv).expect("write");
}

#[test]
fn randomised_outputs_are_identical_at_one_and_two_threads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("generated.csv");
    write_generated(&path);
    let path = path.to_str().expect("utf-8");
    for test in ["bootstrap", "fisher", "tukey"] {
        let run = |threads: &str| {
            let out = Command::new(env!("CARGO_BIN_EXE_kgeval"))
                .args(["compare", path, "--test", test, "-B", "400", "--intervals", "--format", "json"])
                .env("RAYON_NUM_THREADS", threads)
                .current_dir(root())
                .output()
                .expect("run kgeval");
            stdout_of(&out)
        };
        let one = run("1");
        assert_eq!(one, run("2"), "{test}");
        let json: Value = serde_json::from_str(&one).expect("json");
        let block = metric(&json, "ndcg");
        assert_eq!(block["pairs"].as_array().unwrap().len(), 6);
        assert!(block["leaderboard"][0]["interval"].is_array(), "{test}");
        // A different seed draws differently.
        let other = Command::new(env!("CARGO_BIN_EXE_kgeval"))
            .args(["compare", path, "--test", test, "-B", "400", "--seed", "7", "--format", "json"])
            .current_dir(root())
            .output()
            .expect("run kgeval");
        assert_ne!(stdout_of(&other), one, "{test}");
    }
}

#[test]
fn help_examples_run() {
    let examples = help_examples("compare");
    assert!(examples.len() >= 4, "{examples:?}");
    for args in examples {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = kgeval(&args);
        assert!(out.status.success(), "kgeval {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "kgeval {}", args.join(" "));
    }
}
