//! Discriminative power from seed 004's published p-value matrices
//! (`result/{FB-Test-O,FB-Test-S-C,WN18RR}/discriminative_power.csv.gz`): `kgeval compare
//! --pvalues` and the `discriminative-power` comparison of `kgeval run
//! testdata/campaigns/kgc-sparsity.toml` reproduce every row of
//! `testdata/kgc/derived/expected_discpower.tsv` (counts exactly, area and median p to the
//! printed 6 significant digits), and the report, the LaTeX tables and the page show them.

use serde_json::Value;

use crate::{kgeval, kgeval_json, root};

const METRICS: [&str; 10] = [
    "micro_mr",
    "micro_mrr",
    "micro_hits@1",
    "micro_hits@10",
    "macro_mr",
    "macro_mrr",
    "macro_hits@1",
    "macro_hits@10",
    "map_cut_20",
    "ndcg_cut_20",
];

const DATASETS: [&str; 3] = ["FB-Test-O", "FB-Test-S-C", "WN18RR"];

/// `value` printed with 6 significant digits equals `printed` (Python's `%.6g`, to within
/// half a unit of the last printed digit).
fn matches_printed(value: f64, printed: &str) -> bool {
    let expected: f64 = printed.parse().expect("number");
    let digits = printed.trim_start_matches('-').split(['e', 'E']).next().unwrap_or("").replace('.', "");
    let significant = digits.trim_start_matches('0').len().max(1) as i32;
    let magnitude = expected.abs().log10().floor() as i32;
    let half_unit = 0.5 * 10f64.powi(magnitude - significant + 1);
    (value - expected).abs() <= half_unit * (1.0 + 1e-9)
}

/// Every row of `expected_discpower.tsv` found in a compare JSON's `published_power`.
fn assert_published(result: &Value) {
    let sets = result["published_power"].as_array().expect("published_power");
    assert_eq!(sets.len(), 3, "{result}");
    let expected = std::fs::read_to_string(root().join("testdata/kgc/derived/expected_discpower.tsv")).expect("tsv");
    let mut rows = 0;
    for line in expected.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let [dataset, metric, pairs, at_05, at_01, area, median] = f[..] else { panic!("bad row {line}") };
        let set = sets.iter().find(|s| s["name"] == dataset).unwrap_or_else(|| panic!("no {dataset}"));
        assert_eq!(set["systems"].as_array().expect("systems").len(), 13, "{dataset}");
        let m = set["metrics"].as_array().expect("metrics").iter().find(|m| m["metric"] == metric).expect("metric");
        assert_eq!(m["alpha"], 0.05);
        assert_eq!(m["pairs"].to_string(), pairs, "{dataset} {metric}");
        assert_eq!(m["significant"].to_string(), at_05, "{dataset} {metric}");
        assert_eq!(m["significant_at_0_01"].to_string(), at_01, "{dataset} {metric}");
        let value = |key: &str| m[key].as_f64().unwrap_or_else(|| panic!("{key}"));
        assert!(matches_printed(value("area"), area), "{dataset} {metric}: area {} vs {area}", value("area"));
        assert!(matches_printed(value("median_p"), median), "{dataset} {metric}: median {} vs {median}", m["median_p"]);
        let curve: Vec<f64> = m["curve"].as_array().expect("curve").iter().filter_map(Value::as_f64).collect();
        assert_eq!(curve.len(), 78);
        assert!(curve.windows(2).all(|w| w[0] >= w[1]), "descending");
        rows += 1;
    }
    assert_eq!(rows, 30);
}

fn pvalue_args(base: &str) -> Vec<String> {
    let mut args = vec!["compare".to_owned()];
    for d in DATASETS {
        args.push("--pvalues".to_owned());
        args.push(format!("{d}={base}/{d}/discriminative_power.csv.gz"));
    }
    for m in METRICS {
        args.extend(["-m".to_owned(), m.to_owned()]);
    }
    args
}

#[test]
fn compare_pvalues_reproduces_the_published_discriminative_power() {
    let args = pvalue_args("testdata/kgc/kgc-sparsity/result");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let json = kgeval_json(&args);
    assert_published(&json);
    assert_eq!(json["conventions"]["input_format"], "pvalues");
    // Text: one row per metric; FB-Test-O micro MRR separates 70 of 78 pairs at 0.05, 67 at 0.01.
    let out = kgeval(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("discriminative power of FB-Test-O"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("micro_mrr") && l.contains(" 78 ") && l.contains(" 70 ")), "{text}");
    // CSV: one row per (matrix, metric).
    let mut csv_args = args.clone();
    csv_args.extend(["--format", "csv"]);
    let out = kgeval(&csv_args);
    let csv = String::from_utf8_lossy(&out.stdout);
    assert!(csv.starts_with("name,metric,pairs,significant,significant_at_0_01,area,median_p\n"), "{csv}");
    assert!(csv.contains("\nFB-Test-S-C,micro_mrr,78,55,50,8.0144"), "{csv}");
    assert_eq!(csv.lines().count(), 31);
}

#[test]
fn compare_pvalues_refuses_other_inputs_and_unknown_metrics() {
    let m = "FB-Test-O=testdata/kgc/kgc-sparsity/result/FB-Test-O/discriminative_power.csv.gz";
    let out = kgeval(&["compare", "--pvalues", m, "testdata/kgc/kgc-sparsity/result/FB-Test-O/evaluation.csv"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("found p-value matrices and score tables, expected one of them"), "{stderr}");
    let out = kgeval(&["compare", "--pvalues", m, "-m", "micro_nope"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown metric `micro_nope`"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn kgc_sparsity_campaign_shows_the_published_discriminative_power() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out_dir = dir.path().join("out");
    let out = kgeval(&["run", "testdata/campaigns/kgc-sparsity.toml", "-o", out_dir.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let read = |name: &str| std::fs::read_to_string(out_dir.join(name)).expect(name);
    let results: Value = serde_json::from_str(&read("results.json")).expect("JSON");
    let entry = results["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .find(|c| c["name"] == "discriminative-power")
        .expect("the discriminative-power comparison");
    assert_eq!(entry["error"], Value::Null);
    assert_published(&entry["result"]);
    // The same as `kgeval compare --pvalues` on the same files.
    let args = pvalue_args("testdata/kgc/kgc-sparsity/result");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut single = kgeval_json(&args);
    let mut campaign = entry["result"].clone();
    for set in
        single["published_power"].as_array_mut().into_iter().chain(campaign["published_power"].as_array_mut()).flatten()
    {
        set["source"] = Value::Null;
    }
    assert_eq!(campaign, single);
    let report = read("report.md");
    assert!(report.contains("## discriminative-power (`kgeval compare`)"), "{report}");
    assert!(report.contains("| micro_mrr | 78 | 70 | 67 | 4.4419 |"), "{report}");
    let tex = read("tables.tex");
    // WN18RR micro MR: 74 of 78 pairs (the most), area 2.2024.
    assert!(tex.contains("WN18RR"), "{tex}");
    assert!(tex.contains("micro MR & 78 & \\textbf{74} & 72 & 2.2024"), "{tex}");
    let html = read("index.html");
    for d in 1..=3 {
        assert!(
            html.contains(&format!("<figure class=\"plot\" id=\"compare-discriminative-power-pvalues-{d}\">")),
            "plot {d}"
        );
    }
    assert!(html.contains("id=\"compare-discriminative-power-power-1\""), "power table");
}
