//! MELT's own OAEI 2018 evaluation (`performance.csv`), reproduced to the last digit.

use std::collections::BTreeMap;

use crate::cli::single_system;
use crate::{f, kgeval_json, n, root};

const CONFERENCE: &str = "testdata/alignment/melt/examples/analyzingMatcherSimilarity/results/conference_conference-v1";
const ANATOMY: &str =
    "testdata/alignment/melt/examples/analyzingMatcherSimilarity/results/anatomy_track_anatomy_track-default/mouse-human-suite";

/// One row of a MELT `performance.csv`: P, R, F1 (NaN read as 0, as MELT ≥ 3.5 prints), TP, FP, FN.
#[derive(Debug, Clone, Copy, PartialEq)]
struct MeltRow {
    p: f64,
    r: f64,
    f1: f64,
    tp: u64,
    fp: u64,
    fn_: u64,
}

fn read_performance(path: &str) -> BTreeMap<String, MeltRow> {
    let text = std::fs::read_to_string(root().join(path)).expect(path);
    let num = |s: &str| if s == "NaN" { 0.0 } else { s.parse::<f64>().expect(s) };
    text.lines()
        .skip(1)
        .map(|line| {
            let c: Vec<&str> = line.split(',').collect();
            let row = MeltRow {
                p: num(c[1]),
                r: num(c[2]),
                f1: num(c[4]),
                tp: c[5].parse().expect("tp"),
                fp: c[6].parse().expect("fp"),
                fn_: c[7].parse().expect("fn"),
            };
            (c[0].to_owned(), row)
        })
        .collect()
}

fn ours(scores: &serde_json::Value) -> MeltRow {
    MeltRow {
        p: f(scores, "precision"),
        r: f(scores, "recall"),
        f1: f(scores, "f1"),
        tp: n(scores, "tp"),
        fp: n(scores, "fp"),
        fn_: n(scores, "fn"),
    }
}

/// Every `performance.csv` ALL row of cmt-conference and cmt-confof (12 matchers each), bit for
/// bit, from one manifest run.
#[test]
fn conference_all_rows_match_melt_exactly() {
    let json = kgeval_json(&["align", "--manifest", "testdata/tracks/oaei2018.toml"]);
    let systems = json["systems"].as_array().expect("systems");
    let mut checked = 0;
    for system in systems {
        let name = system["system"].as_str().expect("name");
        let Some(matcher) = name.strip_prefix("conference:") else { continue };
        for pair in system["pairs"].as_array().expect("pairs") {
            let case = pair["name"].as_str().expect("pair name");
            let melt = read_performance(&format!("{CONFERENCE}/{case}/{matcher}/performance.csv"));
            assert_eq!(ours(&pair["primary"]), melt["ALL"], "{matcher} {case}");
            checked += 1;
        }
    }
    assert_eq!(checked, 24);
}

/// The spec's quoted AML row, asserted literally.
#[test]
fn conference_aml_literal() {
    let json = kgeval_json(&[
        "align",
        "--reference",
        "testdata/alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf",
        "--system",
        &format!("AML={CONFERENCE}/cmt-conference/AML/systemAlignment.rdf"),
        "--completeness",
        "complete",
    ]);
    let json = single_system(&json);
    let p = &json["pairs"][0]["primary"];
    assert_eq!(f(p, "precision"), 0.6666666666666666);
    assert_eq!(f(p, "recall"), 0.5333333333333333);
    assert_eq!(f(p, "f1"), 0.5925925925925926);
    assert_eq!((n(p, "tp"), n(p, "fp"), n(p, "fn")), (8, 4, 7));
}

/// Anatomy 2018: ALOD2Vec and DOME ALL rows, and the CLASSES rows when typed by the ontologies.
#[test]
fn anatomy_all_and_classes_rows_match_melt() {
    let json = kgeval_json(&["align", "--manifest", "testdata/tracks/oaei2018.toml"]);
    let systems = json["systems"].as_array().expect("systems");
    for (matcher, p_all, r_all, f_all, counts, classes_p) in [
        ("ALOD2Vec", 0.9949392712550608, 0.6484168865435356, 0.7851437699680511, (983, 5, 533), 983.0 / 987.0),
        ("DOME", 0.9957264957264957, 0.6147757255936676, 0.7601957585644371, (932, 4, 584), 932.0 / 935.0),
    ] {
        let system = systems.iter().find(|s| s["system"] == format!("anatomy:{matcher}")).expect(matcher);
        let pair = &system["pairs"][0];
        let all = &pair["primary"];
        assert_eq!(f(all, "precision"), p_all, "{matcher}");
        assert_eq!(f(all, "recall"), r_all, "{matcher}");
        assert_eq!(f(all, "f1"), f_all, "{matcher}");
        assert_eq!((n(all, "tp"), n(all, "fp"), n(all, "fn")), counts, "{matcher}");
        let melt = read_performance(&format!("{ANATOMY}/{matcher}/performance.csv"));
        assert_eq!(ours(all), melt["ALL"], "{matcher}");
        let classes = &pair["by_type"]["classes"];
        assert_eq!(f(classes, "precision"), classes_p, "{matcher} CLASSES");
        assert_eq!(f(classes, "precision"), melt["CLASSES"].p, "{matcher} CLASSES");
        assert_eq!(n(classes, "tp"), melt["CLASSES"].tp, "{matcher} CLASSES");
        assert_eq!(n(classes, "fp"), melt["CLASSES"].fp, "{matcher} CLASSES");
    }
}

/// The MELT SSSOM test: 776 rows, 770 correspondences.
#[test]
fn sssom_mgi_has_770_correspondences() {
    let file = "testdata/alignment/melt/yet-another-alignment-api/src/test/resources/mp_hp_mgi_all.sssom.tsv";
    let json = kgeval_json(&["align", "--reference", file, "--system", file, "--completeness", "complete"]);
    let json = single_system(&json);
    let p = &json["pairs"][0]["primary"];
    assert_eq!(n(p, "correspondences"), 770);
    assert_eq!(n(p, "tp"), 770);
    assert_eq!(f(p, "f1"), 1.0);
    let warnings = json["pairs"][0]["warnings"].as_array().expect("warnings");
    assert!(warnings.iter().any(|w| w["code"] == "duplicate-cell"), "{warnings:?}");
}
