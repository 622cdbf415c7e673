//! CLI behaviour: formats, labels, atomic output, gates, usage errors.

use crate::{kgeval, root};

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
        "--mode",
        "complete",
        "--labels",
        labels.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&labels).expect("labels written");
    let count = |label: &str| text.lines().filter(|l| l.split('\t').nth(2) == Some(label)).count();
    assert_eq!((count("TP"), count("FP"), count("FN"), count("ignored")), (8, 4, 7, 0));
    assert!(text.starts_with("system\tpair\tlabel\tentity1\tentity2\trelation\tconfidence\tline\n"));
}

#[test]
fn every_output_format_renders() {
    for (format, needle) in [
        ("text", "kgeval align: profile melt, mode complete"),
        ("markdown", "| pair | reference | P |"),
        ("csv", "Matcher,Test Case,Reference,Type,Precision (P)"),
        ("json", "\"kgeval_version\""),
    ] {
        let out = kgeval(&["align", "--reference", REF, "--system", AML, "--mode", "complete", "--format", format]);
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
        "--mode",
        "complete",
        "--format",
        "json",
        "-o",
        path.to_str().unwrap(),
        "--fail-under",
        "f1=0.99",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).expect("written")).expect("json");
    assert_eq!(json["pairs"][0]["primary"]["tp"], 8);
    let out = kgeval(&["align", "--reference", REF, "--system", AML, "--mode", "complete", "--fail-under", "f1=0.5"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["align"][..],
        &["align", "--reference", REF][..],
        &["align", "--reference", REF, "--system", AML, "--mode", "bogus"][..],
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
