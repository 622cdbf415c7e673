//! Dual reference, exclusion (ignore sets), thresholds, the ontoaligner and oaei-seals
//! profiles, and manifests — each checked against numbers worked out from the files.

use crate::cli::single_system;
use crate::{diso_union_file, f, kgeval, kgeval_json, n, root};

const DISO: &str = "testdata/diso/brick-smartenv";
const TUTORIAL: &str = "testdata/alignment/alignapi/html/tutorial/tutorial1/results";
const CMT_REF: &str = "testdata/alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf";
const AML: &str = "AML=testdata/alignment/melt/examples/analyzingMatcherSimilarity/results/conference_conference-v1/cmt-conference/AML/systemAlignment.rdf";

/// R≈ scored against R⁺ (primary) and against itself (secondary) in one run.
#[test]
fn dual_reference_scores_both() {
    let json = kgeval_json(&[
        "align",
        "--profile",
        "diso",
        "--reference",
        &format!("{DISO}/Rplus.rdf"),
        "--secondary",
        &format!("{DISO}/Rapprox.rdf"),
        "--system",
        &format!("{DISO}/Rapprox.rdf"),
    ]);
    let json = single_system(&json);
    let pair = &json["pairs"][0];
    assert_eq!((f(&pair["primary"], "precision") * 1e4).round() / 1e4, 0.7826);
    assert_eq!(f(&pair["secondary"], "precision"), 1.0);
    assert_eq!(f(&pair["secondary"], "recall"), 1.0);
    assert_eq!(n(&pair["secondary"], "tp"), 47);
    assert_eq!(f(&json["micro"]["secondary"], "f1"), 1.0);
    assert_eq!(f(&json["macro"]["secondary"], "f1"), 1.0);
    assert_eq!(json["micro"]["primary"]["tp"], 18);
}

/// An ignore set given as `--exclude` removes its cells from the submission before scoring:
/// (R≈ ∪ unknown) minus unknown scores as R≈ does (judged 23, not 26).
#[test]
fn exclusion_removes_ignore_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    let union = diso_union_file(dir.path());
    let args = |exclude: bool| {
        let mut a = vec![
            "align".to_owned(),
            "--profile".into(),
            "diso".into(),
            "--reference".into(),
            format!("{DISO}/Rplus.rdf"),
            "--system".into(),
            union.to_string_lossy().into_owned(),
        ];
        if exclude {
            a.extend(["--exclude".into(), format!("{DISO}/unknown.rdf")]);
        }
        a
    };
    let with: Vec<String> = args(true);
    let json = kgeval_json(&with.iter().map(String::as_str).collect::<Vec<_>>());
    let p = &single_system(&json)["pairs"][0]["primary"];
    assert_eq!(n(p, "tp") + n(p, "fp"), 23, "judged after exclusion");
    assert_eq!((f(p, "precision") * 1e4).round() / 1e4, 0.7826);
    let without: Vec<String> = args(false);
    let json = kgeval_json(&without.iter().map(String::as_str).collect::<Vec<_>>());
    let p = &single_system(&json)["pairs"][0]["primary"];
    assert_eq!(n(p, "tp") + n(p, "fp"), 26);
}

/// A threshold above every confidence leaves nothing: P = R = F = 0 (MELT), 0 correspondences.
#[test]
fn threshold_cuts_cells() {
    let json = kgeval_json(&["align", "--reference", CMT_REF, "--system", AML, "--threshold", "1.5"]);
    let p = &single_system(&json)["pairs"][0]["primary"];
    assert_eq!((n(p, "correspondences"), n(p, "tp"), n(p, "fn")), (0, 0, 15));
    assert_eq!((f(p, "precision"), f(p, "recall"), f(p, "f1")), (0.0, 0.0, 0.0));
}

/// OntoAligner's `evaluation_report`: ×100 and unique pairs (AML on cmt-conference: 8 of 12
/// predictions in the 15-cell reference).
#[test]
fn ontoaligner_report_keys() {
    let json = kgeval_json(&["align", "--profile", "ontoaligner", "--reference", CMT_REF, "--system", AML]);
    let report = &single_system(&json)["pairs"][0]["primary"]["evaluation_report"];
    assert_eq!(n(report, "intersection"), 8);
    assert_eq!(n(report, "predictions-len"), 12);
    assert_eq!(n(report, "reference-len"), 15);
    assert!((f(report, "precision") - 800.0 / 12.0).abs() < 1e-9);
    assert!((f(report, "recall") - 800.0 / 15.0).abs() < 1e-9);
    let (p, r) = (8.0 / 12.0, 8.0 / 15.0);
    assert!((f(report, "f-score") - 100.0 * 2.0 * p * r / (p + r)).abs() < 1e-9);
}

/// oaei-seals is direction-insensitive: AOMS5 (SMOA5 swapped) scores as SMOA5 does, with P and
/// R rounded to 3 decimals (47/65 → 0.723, 47/48 → 0.979).
#[test]
fn oaei_seals_matches_reversed_cells() {
    let reference = format!("{TUTORIAL}/refalign.rdf");
    for system in ["AOMS5", "SMOA5"] {
        let json = kgeval_json(&[
            "align",
            "--profile",
            "oaei-seals",
            "--reference",
            &reference,
            "--system",
            &format!("{TUTORIAL}/{system}.rdf"),
        ]);
        let p = &single_system(&json)["pairs"][0]["primary"];
        assert_eq!(n(p, "tp"), 47, "{system}");
        assert_eq!(f(p, "precision"), 0.723, "{system}");
        assert_eq!(f(p, "recall"), 0.979, "{system}");
    }
}

/// A manifest with a secondary reference and an exclusion, paths relative to the manifest.
#[test]
fn manifest_with_secondary_and_exclusion() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = root().join(DISO);
    let manifest = dir.path().join("track.toml");
    std::fs::write(
        &manifest,
        format!(
            "profile = \"diso\"\n[[pair]]\nname = \"brick-smartenv\"\nreference = \"{0}/Rplus.rdf\"\nsecondary = \"{0}/Rapprox.rdf\"\nexclusion = \"{0}/incorrect.rdf\"\nsystem = \"{0}/Rapprox.rdf\"\n",
            base.display()
        ),
    )
    .expect("write manifest");
    let json = kgeval_json(&["align", "--manifest", manifest.to_str().expect("utf-8")]);
    assert_eq!(json["profile"], "diso");
    let json = single_system(&json);
    assert_eq!(json["profile"], "diso");
    assert_eq!(json["system"], "Rapprox", "a system given as PATH is named by its stem");
    let pair = &json["pairs"][0];
    assert_eq!(pair["name"], "brick-smartenv");
    assert!(pair["secondary"].is_object());
    assert_eq!(json["conventions"]["exclusion"].as_str().map(|s| !s.is_empty()), Some(true));
}

/// A manifest with a syntax error: exit 2 and the manifest's line and column.
#[test]
fn bad_manifest_is_located() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = dir.path().join("bad.toml");
    std::fs::write(&manifest, "[[pair]]\nname = \"x\"\nreference = = 3\n").expect("write");
    let out = kgeval(&["align", "--manifest", manifest.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.toml:3:"), "{stderr}");
}

/// The text table prints the MELT numbers at the requested precision.
#[test]
fn text_output_carries_the_numbers() {
    let out = kgeval(&["align", "--reference", CMT_REF, "--system", AML, "--precision", "3"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("cmt-conference  primary    0.667  0.533  0.593   8   4   7        0    12"), "{text}");
}

/// A manifest's `completeness` key, and `mode`, its former name, still accepted; the flag
/// overrides both.
#[test]
fn manifest_completeness_and_its_old_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let reference = root().join(CMT_REF);
    for key in ["completeness", "mode"] {
        let manifest = dir.path().join(format!("{key}.toml"));
        std::fs::write(
            &manifest,
            format!(
                "{key} = \"partial-none\"\n[[pair]]\nname = \"cmt\"\nreference = \"{0}\"\nsystem = \"{0}\"\n",
                reference.display()
            ),
        )
        .expect("write manifest");
        let path = manifest.to_str().expect("utf-8");
        let json = kgeval_json(&["align", "--manifest", path]);
        assert_eq!(json["mode"], "partial-none", "{key}");
        assert_eq!(single_system(&json)["system"], "cmt-conference", "{key}");
        let json = kgeval_json(&["align", "--manifest", path, "--completeness", "complete"]);
        assert_eq!(json["mode"], "complete", "{key}");
    }
}
