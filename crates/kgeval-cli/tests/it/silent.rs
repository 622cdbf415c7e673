//! Results that used to be wrong without a word (issue 15 item 2): colliding system names,
//! duplicate pairs, inputs that cover nothing.

use crate::kgeval;

const CMT_REF: &str = "testdata/alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf";
const CMT_CONFERENCE: &str =
    "testdata/alignment/melt/examples/analyzingMatcherSimilarity/results/conference_conference-v1/cmt-conference";

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every MELT result file is `systemAlignment.rdf`: two of them are named by the shortest
/// distinguishing path suffix and both are scored (AML 8/12, LogMap 8/11 on cmt-conference).
#[test]
fn colliding_default_names_get_path_suffixes() {
    let aml = format!("{CMT_CONFERENCE}/AML/systemAlignment.rdf");
    let logmap = format!("{CMT_CONFERENCE}/LogMap/systemAlignment.rdf");
    let out = kgeval(&["align", "-r", CMT_REF, "-s", &aml, "-s", &logmap]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("cmt-conference  primary")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows[0].starts_with("AML/systemAlignment ") && rows[0].contains("0.6667  0.5333  0.5926   8   4   7"),
        "{text}"
    );
    assert!(
        rows[1].starts_with("LogMap/systemAlignment ") && rows[1].contains("0.7273  0.5333  0.6154   8   3   7"),
        "{text}"
    );
    // The same file twice cannot be told apart; a name given twice is an error.
    let same = kgeval(&["align", "-r", CMT_REF, "-s", &aml, "-s", &aml]);
    assert_eq!(same.status.code(), Some(2));
    assert!(stderr(&same).contains("give NAME=PATH"), "{}", stderr(&same));
    let named = kgeval(&["align", "-r", CMT_REF, "-s", &format!("A={aml}"), "-s", &format!("A={logmap}")]);
    assert_eq!(named.status.code(), Some(2));
    assert!(stderr(&named).contains("found two systems named \"A\""), "{}", stderr(&named));
    assert!(stdout(&named).is_empty());
}

/// qald names its systems the same way (one place for every family).
#[test]
fn qald_default_names_are_unique() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gold = crate::root().join("testdata/qald/json/qald-9-test-multilingual.json");
    for sub in ["a", "b"] {
        std::fs::create_dir(dir.path().join(sub)).expect("mkdir");
        std::fs::copy(&gold, dir.path().join(sub).join("answers.json")).expect("copy");
    }
    let a = dir.path().join("a/answers.json");
    let b = dir.path().join("b/answers.json");
    let out = kgeval(&[
        "qald",
        "--gold",
        gold.to_str().expect("utf-8"),
        "-s",
        a.to_str().expect("utf-8"),
        "-s",
        b.to_str().expect("utf-8"),
        "-f",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let names: Vec<&str> =
        json["systems"].as_array().expect("systems").iter().filter_map(|s| s["system"].as_str()).collect();
    assert_eq!(names, ["a/answers", "b/answers"], "{json}");
}

/// A pair name given twice in an align manifest is an error (it was counted twice).
#[test]
fn duplicate_pair_name_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = crate::root();
    let manifest = dir.path().join("track.toml");
    let pair = format!(
        "[[pair]]\nname = \"cmt-conference\"\nreference = \"{}/{CMT_REF}\"\n[pair.systems]\nAML = \"{}/{CMT_CONFERENCE}/AML/systemAlignment.rdf\"\n",
        root.display(),
        root.display()
    );
    std::fs::write(&manifest, format!("{pair}\n{pair}")).expect("write");
    let out = kgeval(&["align", "--manifest", manifest.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("pair \"cmt-conference\" given twice"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
}

const ANATOMY: &str =
    "testdata/alignment/melt/examples/analyzingMatcherSimilarity/results/anatomy_track_anatomy_track-default/mouse-human-suite";
const MOUSE_HUMAN: &str = "testdata/alignment/ontoaligner/assets/mouse-human";

/// The `Residual Recall (R+)` cell of the CSV row starting with `prefix`.
fn residual_cell(csv: &str, prefix: &str) -> String {
    let line = csv.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no row {prefix} in {csv}"));
    line.split(',').nth(6).expect("R+ column").to_owned()
}

/// MELT's anatomy `performance.csv`: DOME R+ 0.01559792027729636 (9 of the 577 reference
/// cells its baseline string matcher misses), ALOD2Vec 0.08492201039861352 (49 / 577); recall
/// stays 0.6147757255936676 / 0.6484168865435356.
#[test]
fn residual_recall_reproduces_melts_anatomy_values() {
    let out = kgeval(&[
        "align",
        "-r",
        &format!("{MOUSE_HUMAN}/reference.xml"),
        "--onto1",
        &format!("{MOUSE_HUMAN}/source.xml"),
        "--onto2",
        &format!("{MOUSE_HUMAN}/target.xml"),
        "-s",
        &format!("DOME={ANATOMY}/DOME/systemAlignment.rdf"),
        "-s",
        &format!("ALOD2Vec={ANATOMY}/ALOD2Vec/systemAlignment.rdf"),
        "-f",
        "csv",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let csv = stdout(&out);
    assert!(
        csv.contains("DOME,reference,primary,ALL,0.9957264957264957,0.6147757255936676,0.01559792027729636,"),
        "{csv}"
    );
    assert!(
        csv.contains("ALOD2Vec,reference,primary,ALL,0.9949392712550608,0.6484168865435356,0.08492201039861352,"),
        "{csv}"
    );
    assert_eq!(residual_cell(&csv, "DOME,reference,primary,CLASSES"), "0.01559792027729636");
    assert_eq!(residual_cell(&csv, "DOME,MICRO,primary,ALL"), "0.01559792027729636");
    assert_eq!(residual_cell(&csv, "ALOD2Vec,MACRO,primary,ALL"), "0.08492201039861352");
    assert_eq!(9.0 / 577.0, 0.01559792027729636);
    assert_eq!(49.0 / 577.0, 0.08492201039861352);
}

/// `--baseline FILE`: LogMap's alignment as the baseline of AML on cmt-conference. LogMap finds
/// 8 of the 15 reference cells, leaving 7; of AML's 8 true positives only SubjectArea = Topic
/// is not among LogMap's, so R+ = 1/7. Without ontologies or baseline the column is empty and
/// the conventions say why.
#[test]
fn residual_recall_from_a_given_baseline_or_empty_with_a_note() {
    let aml = format!("AML={CMT_CONFERENCE}/AML/systemAlignment.rdf");
    let logmap = format!("{CMT_CONFERENCE}/LogMap/systemAlignment.rdf");
    let out = kgeval(&["align", "-r", CMT_REF, "-s", &aml, "--baseline", &logmap, "-f", "csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(residual_cell(&stdout(&out), "AML,cmt-conference,primary,ALL"), (1.0_f64 / 7.0).to_string());
    let bare = kgeval(&["align", "-r", CMT_REF, "-s", &aml, "-f", "csv"]);
    assert_eq!(residual_cell(&stdout(&bare), "AML,cmt-conference,primary,ALL"), "");
    assert_eq!(residual_cell(&stdout(&bare), "AML,MICRO,primary,ALL"), "");
    let text = kgeval(&["align", "-r", CMT_REF, "-s", &aml]);
    assert!(
        stdout(&text).contains("residual_recall: R+ not computed (no ontologies, no baseline)"),
        "{}",
        stdout(&text)
    );
    // With the ontologies, MELT's baseline string matcher finds Conference, Person,
    // ProgramCommittee = Program_committee and Review (4 of 15): AML keeps 4 of the other 11.
    let onto = kgeval(&[
        "align",
        "-r",
        CMT_REF,
        "-s",
        &aml,
        "--onto1",
        "testdata/alignment/melt/matching-eval/src/test/resources/cmt.owl",
        "--onto2",
        "testdata/alignment/melt/matching-eval/src/test/resources/conference.owl",
        "-f",
        "csv",
    ]);
    assert_eq!(residual_cell(&stdout(&onto), "AML,cmt-conference,primary,ALL"), (4.0_f64 / 11.0).to_string());
}

const DISO_POOLS: &str = "testdata/ranking/diso-oaei/pools/uco-stix/pools.jsonl";
const DISO: &str = "testdata/ranking/diso-synthetic";

/// A gold key of another pair (stix-d3fend: 73 qids) against uco-stix's 217 pools scores 73
/// queries: one summary warning with the counts, first; `--strict` makes it exit 2 with
/// nothing written. Without pools (bioml), the same 144 submission queries are unscored.
#[test]
fn rank_gold_key_of_another_pair_is_a_coverage_warning() {
    let gold = format!("{DISO}/stix-d3fend/gold.tsv");
    let submission = format!("{DISO}/uco-stix/lexical.jsonl");
    let args = ["rank", "--pools", DISO_POOLS, "--gold", &gold, "--submission", &submission];
    let out = kgeval(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first = stderr(&out).lines().next().unwrap_or_default().to_owned();
    assert!(first.contains("the gold key covers 73 of 217 pools: 144 queries unscored"), "{first}");
    assert!(first.contains("[coverage-gold]"), "{first}");
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("out.json");
    let strict = kgeval(&[&args[..], &["--strict", "-o", target.to_str().expect("utf-8")]].concat());
    assert_eq!(strict.status.code(), Some(2));
    assert!(stderr(&strict).contains("error: --strict: found 1 coverage warning(s)"), "{}", stderr(&strict));
    assert!(!target.exists());
    let bioml = kgeval(&["rank", "--profile", "bioml", "--gold", &gold, "--submission", &submission]);
    let first = stderr(&bioml).lines().next().unwrap_or_default().to_owned();
    assert!(first.contains("the gold key covers 73 of 217 submission queries: 144 queries unscored"), "{first}");
    // The right gold key covers every pool: no coverage warning, --strict passes.
    let right = kgeval(&[
        "rank",
        "--pools",
        DISO_POOLS,
        "--gold",
        &format!("{DISO}/uco-stix/gold.tsv"),
        "--submission",
        &submission,
        "--strict",
    ]);
    assert_eq!(right.status.code(), Some(0), "{}", stderr(&right));
    assert!(!stderr(&right).contains("coverage"));
}

/// A URI list that matches no gold entry used to score P = R = F = 1.0: now an error. A list
/// partly outside the gold (QALD-3 test: 3 of 40 URIs have no gold entry) is a coverage
/// warning, an error under `--strict`.
#[test]
fn lexicon_uri_list_coverage() {
    let foaf = "testdata/lemon/matoll-foaf.ttl";
    let qald_uris = "testdata/lemon/qald3-dbpedia_test_classes_properties.txt";
    let out = kgeval(&["lexicon", "--gold", foaf, "--system", foaf, "--uris", qald_uris]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out).trim_end(),
        format!("error: {qald_uris}:1:1: found no listed URI with an entry in the gold lexicon {foaf} (40 listed), expected the URI list of this gold lexicon")
    );
    assert!(stdout(&out).is_empty());
    let test = "testdata/lemon/qald3-dbpedia-test-lexicon-en.ttl";
    let args = ["lexicon", "--gold", test, "--system", test, "--uris", qald_uris];
    let partial = kgeval(&args);
    assert_eq!(partial.status.code(), Some(0), "{}", stderr(&partial));
    assert!(stderr(&partial).contains("3 of 40 listed URIs have no entry in the gold lexicon"), "{}", stderr(&partial));
    let strict = kgeval(&[&args[..], &["--strict"]].concat());
    assert_eq!(strict.status.code(), Some(2));
    assert!(stdout(&strict).is_empty());
}

/// align: an empty reference is an error; a system of another test case (DOME's anatomy
/// alignment against cmt-conference) shares no entity or namespace with the reference — a
/// coverage warning, an error under `--strict`. XMap's one wrong cmt-conference cell is not.
#[test]
fn align_reference_coverage() {
    let empty = "testdata/coverage/empty-reference.rdf";
    let out = kgeval(&["align", "-r", empty, "-s", CMT_REF]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out).trim_end(),
        format!("error: {empty}:1:1: found no correspondence in the reference of pair \"empty-reference\", expected at least one (an empty reference scores every system 0)")
    );
    assert!(stdout(&out).is_empty());
    let dome = format!("DOME={ANATOMY}/DOME/systemAlignment.rdf");
    let other = kgeval(&["align", "-r", CMT_REF, "-s", &dome]);
    assert_eq!(other.status.code(), Some(0));
    assert!(
        stderr(&other)
            .contains("none of the system's 936 cells shares an entity or a namespace with the reference's 15"),
        "{}",
        stderr(&other)
    );
    let strict = kgeval(&["align", "-r", CMT_REF, "-s", &dome, "--strict"]);
    assert_eq!(strict.status.code(), Some(2));
    assert!(stdout(&strict).is_empty());
    let xmap = format!("XMap={CMT_CONFERENCE}/XMap/systemAlignment.rdf");
    let one = kgeval(&["align", "-r", CMT_REF, "-s", &xmap, "--strict"]);
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
}
