//! Repeated metric names are merged (case-insensitively where names are), with a warning that
//! counts the repeats dropped: one section per metric, not one per repeat.

use std::path::Path;

use crate::{kgeval, root};

/// A campaign with one TREC task whose `compare` names `metrics`; returns `report.md` and
/// `results.json`'s text.
fn campaign(dir: &Path, metrics: &str) -> (String, String) {
    let t = root().join("testdata/trec_eval/test");
    let t = t.display();
    let manifest = dir.join("m.toml");
    std::fs::write(
        &manifest,
        format!(
            "title = \"t\"\n[[task]]\nname = \"trec-test\"\nfamily = \"trec\"\nqrels = \"{t}/qrels.test\"\n\
             runs = [\"full={t}/results.test\", \"trunc={t}/results.trunc\"]\n\
             measures = [\"map\", \"map\", \"MAP\", \"P.10\"]\n\
             compare = {{ metrics = {metrics}, test = \"t\", missing = \"zero\" }}\n"
        ),
    )
    .expect("manifest");
    let out = dir.join("out");
    let run = kgeval(&["run", manifest.to_str().expect("utf-8"), "-o", out.to_str().expect("utf-8")]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let read = |name: &str| std::fs::read_to_string(out.join(name)).expect("output");
    (read("report.md"), read("results.json"))
}

/// `metrics = ["map", "map", "MAP"]` gave three `map` sections (20,000 repeats: a 39 MB
/// results.json); now one, and a warning that two repeats were dropped.
#[test]
fn repeated_compare_metrics_are_merged_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (report, results) = campaign(dir.path(), r#"["map", "map", "MAP", "P_10"]"#);
    assert_eq!(report.matches("#### map ").count(), 1, "{report}");
    assert_eq!(report.matches("#### P_10 ").count(), 1, "{report}");
    let json: serde_json::Value = serde_json::from_str(&results).expect("JSON");
    let compare = &json["tasks"][0]["compare"];
    let names: Vec<&str> =
        compare["metrics"].as_array().expect("metrics").iter().map(|m| m["metric"].as_str().expect("name")).collect();
    assert_eq!(names, ["map", "P_10"]);
    let warnings = compare["warnings"].as_array().expect("warnings");
    let repeated: Vec<&str> = warnings
        .iter()
        .filter(|w| w["code"] == "repeated-metric")
        .map(|w| w["message"].as_str().expect("message"))
        .collect();
    assert_eq!(repeated, ["found 2 repeat(s) of metrics already named (map), expected each metric once; dropped"]);
    // Many repeats: the output does not grow with them.
    let many = format!("[{}\"map\"]", "\"map\", ".repeat(2_000));
    let (_, big) = campaign(dir.path(), &many);
    assert!(big.len() < results.len() + 200, "{} bytes vs {}", big.len(), results.len());
    assert!(big.contains("found 2000 repeat(s)"), "{big}");
}

/// `kgeval trec -m map -m map -m MAP` prints map once (the measure set merges families).
#[test]
fn repeated_trec_measures_print_once() {
    let t = "testdata/trec_eval/test";
    let (qrels, run) = (format!("{t}/qrels.test"), format!("{t}/results.test"));
    let out = kgeval(&["trec", "-m", "map", "-m", "map", "-m", "MAP", &qrels, &run]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
}
