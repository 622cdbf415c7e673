//! CLI behaviour: formats, labels, atomic output, gates, usage errors.

use crate::{kgeval, root};

/// The one system of an align JSON result (`{"kgeval_version", …, "systems": [ … ]}`).
pub(crate) fn single_system(json: &serde_json::Value) -> &serde_json::Value {
    let systems = json["systems"].as_array().expect("systems");
    assert_eq!(systems.len(), 1, "one system expected");
    &systems[0]
}

const REF: &str = "testdata/alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf";
const AML: &str = "AML=testdata/alignment/melt/examples/analyzingMatcherSimilarity/results/conference_conference-v1/cmt-conference/AML/systemAlignment.rdf";

#[test]
fn labels_list_every_judged_cell() {
    let dir = tempfile::tempdir().expect("tempdir");
    let labels = dir.path().join("labels.tsv");
    let out = kgeval(&[
        "align",
        "--reference",
        REF,
        "--system",
        AML,
        "--completeness",
        "complete",
        "--write-labels",
        labels.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&labels).expect("labels written");
    let count = |label: &str| text.lines().filter(|l| l.split('\t').nth(2) == Some(label)).count();
    assert_eq!((count("TP"), count("FP"), count("FN"), count("ignored")), (8, 4, 7, 0));
    assert!(text.starts_with("system\tpair\tlabel\tentity1\tentity2\trelation\tconfidence\tline\n"));

    // An unwritable -o: the labels are not written either.
    std::fs::remove_file(&labels).expect("remove");
    let bad = dir.path().join("no-such-dir").join("out.txt");
    let out = kgeval(&[
        "align",
        "--reference",
        REF,
        "--system",
        AML,
        "--write-labels",
        labels.to_str().unwrap(),
        "-o",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0, "nothing written when -o fails");
}

#[test]
fn every_output_format_renders() {
    for (format, needle) in [
        ("text", "kgeval align: profile melt, mode complete"),
        ("markdown", "| pair | reference | P |"),
        ("csv", "Matcher,Test Case,Reference,Type,Precision (P)"),
        ("json", "\"kgeval_version\""),
    ] {
        let out =
            kgeval(&["align", "--reference", REF, "--system", AML, "--completeness", "complete", "--format", format]);
        assert!(out.status.success());
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains(needle), "{format}: {stdout}");
    }
}

#[test]
fn output_file_is_written_and_gates_exit_1() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("out.json");
    let out = kgeval(&[
        "align",
        "--reference",
        REF,
        "--system",
        AML,
        "--completeness",
        "complete",
        "--format",
        "json",
        "-o",
        path.to_str().unwrap(),
        "--fail-under",
        "F1=0.99",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).expect("written")).expect("json");
    assert_eq!(single_system(&json)["pairs"][0]["primary"]["tp"], 8);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("fail-under: system AML: f1 0.5925925925925926 < 0.99"), "{stderr}");
    let out =
        kgeval(&["align", "--reference", REF, "--system", AML, "--completeness", "complete", "--fail-under", "f1=0.5"]);
    assert_eq!(out.status.code(), Some(0));
}

/// Gates on every headline: micro P/R/F (`F1` as the column says), macro, secondary; a metric
/// that is no headline is a usage error naming the headlines.
#[test]
fn fail_under_gates_every_headline() {
    let gate = |extra: &[&str], spec: &str| {
        let args = [
            &["align", "--reference", REF, "--system", AML, "--completeness", "complete"][..],
            extra,
            &["--fail-under", spec],
        ]
        .concat();
        kgeval(&args)
    };
    for (spec, code) in [
        ("F1=0.6", 1),
        ("F1=0.59", 0),
        ("precision=0.66", 0),
        ("Recall=0.54", 1),
        ("macro_f1=0.6", 1),
        ("macro_precision=0.6", 0),
    ] {
        let out = gate(&[], spec);
        assert_eq!(out.status.code(), Some(code), "{spec}: {}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(gate(&["--secondary", REF], "secondary_f1=1.0").status.code(), Some(1));
    assert_eq!(gate(&["--secondary", AML.trim_start_matches("AML=")], "secondary_f1=1.0").status.code(), Some(0));
    let out = gate(&[], "mrr=0.5");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("expected one of the align headline metrics") && stderr.contains("macro_f1"), "{stderr}");
}

/// Every example of `kgeval align --help` runs from the workspace root (its output files
/// written to a temporary folder instead).
#[test]
fn help_examples_run() {
    let help = String::from_utf8(kgeval(&["align", "--help"]).stdout).expect("utf-8");
    let examples = help.split("Examples:").nth(1).expect("an Examples section");
    let joined = examples.replace("\\\n", " ");
    let dir = tempfile::tempdir().expect("tempdir");
    let mut ran = 0;
    for line in joined.lines().map(str::trim).filter(|l| l.starts_with("kgeval align")) {
        let mut args: Vec<String> = line.split_whitespace().skip(1).map(str::to_owned).collect();
        for i in 1..args.len() {
            if matches!(args[i - 1].as_str(), "-o" | "--output" | "--write-labels") {
                args[i] = dir.path().join(&args[i]).display().to_string();
            }
        }
        let out = kgeval(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(out.status.code(), Some(0), "{line}: {}", String::from_utf8_lossy(&out.stderr));
        ran += 1;
    }
    assert_eq!(ran, 4, "{examples}");
    assert!(dir.path().join("labels.tsv").is_file() && dir.path().join("out.json").is_file());
}

/// The renamed flags: `--mode` and `--labels` are gone from align (`--completeness`,
/// `--write-labels`).
#[test]
fn old_flag_names_are_usage_errors() {
    for flag in [["--mode", "complete"], ["--labels", "labels.tsv"]] {
        let out = kgeval(&[&["align", "--reference", REF, "--system", AML][..], &flag[..]].concat());
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
    }
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["align"][..],
        &["align", "--reference", REF][..],
        &["align", "--reference", REF, "--system", AML, "--completeness", "bogus"][..],
        &["align", "--reference", REF, "--system", AML, "--fail-under", "nope"][..],
        &["nosuchcommand"][..],
    ] {
        let out = kgeval(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn missing_file_exits_2_without_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out_path = dir.path().join("never.json");
    let out = kgeval(&["align", "--reference", "no/such/file.rdf", "--system", AML, "-o", out_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("error: ") && stderr.contains("no/such/file.rdf"), "{stderr}");
    assert!(!out_path.exists());
}

#[test]
fn help_shows_an_example() {
    let out = kgeval(&["align", "--help"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("Examples:"));
    let _ = root();
}
