//! `kgeval lexicon` end to end: the QALD-3 gold lexicons against themselves, the M-ATOLL foaf
//! perturbations with the effects their headers state, and malformed input.

use serde_json::Value;

use crate::{f, kgeval, kgeval_json, n};

const TRAIN: &str = "testdata/lemon/qald3-dbpedia_train_lexicon_en.ttl";
const TRAIN_URIS: &str = "testdata/lemon/qald3-dbpedia_train_classes_properties.txt";
const TEST: &str = "testdata/lemon/qald3-dbpedia-test-lexicon-en.ttl";
const TEST_URIS: &str = "testdata/lemon/qald3-dbpedia_test_classes_properties.txt";
const FOAF: &str = "testdata/lemon/matoll-foaf.ttl";
/// foaf.ttl as it was when foaf_1..6 were derived from it (one sense on `friend`).
const FOAF_BASE: &str = "testdata/lemon/matoll-foaf-692f72d.ttl";
const FOAF_URIS: &str = "testdata/lemon/matoll-foaf-uris.txt";

fn lexicon(gold: &str, system: &str, uris: &str, mode: &str) -> Value {
    system_json(kgeval_json(&["lexicon", "--gold", gold, "--system", system, "--uris", uris, "--mode", mode]))
}

/// The one system's object of a `kgeval lexicon` JSON result (`{"systems": [{…}]}`).
fn system_json(mut v: Value) -> Value {
    assert_eq!(v["systems"].as_array().map(Vec::len), Some(1), "{v}");
    v["systems"][0].take()
}

fn foaf(gold: &str, i: u32) -> Value {
    lexicon(gold, &format!("testdata/lemon/matoll-foaf_{i}.ttl"), FOAF_URIS, "paper")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

fn uri<'a>(v: &'a Value, local: &str) -> &'a Value {
    v["uris"]
        .as_array()
        .expect("uris")
        .iter()
        .find(|u| u["uri"].as_str().is_some_and(|s| s.ends_with(local)))
        .expect(local)
}

fn warning_codes(v: &Value) -> Vec<&str> {
    v["warnings"].as_array().expect("warnings").iter().filter_map(|w| w["code"].as_str()).collect()
}

#[test]
fn qald3_gold_lexicons_against_themselves_score_one_for_every_uri() {
    for (gold, uris, entries) in [(TRAIN, TRAIN_URIS, 86), (TEST, TEST_URIS, 70)] {
        let v = lexicon(gold, gold, uris, "paper");
        let rows = v["uris"].as_array().expect("uris");
        assert_eq!(rows.len(), 40, "{gold}");
        for row in rows {
            for key in ["precision", "recall", "f1", "accuracy"] {
                assert_eq!(f(row, key), 1.0, "{gold} {} {key}", row["uri"]);
            }
        }
        for key in ["precision", "recall", "f1", "accuracy"] {
            assert_eq!(f(&v["average"], key), 1.0, "{gold} average {key}");
        }
        assert_eq!(n(&v["micro"], "matched"), entries, "{gold}");
        // The known defects come back as located warnings.
        let codes = warning_codes(&v);
        assert!(codes.contains(&"turtle-defect") && codes.contains(&"frame-typo"), "{gold}: {codes:?}");
        let warnings = v["warnings"].as_array().expect("warnings");
        let (coverage, warnings): (Vec<&Value>, Vec<&Value>) =
            warnings.iter().partition(|w| w["code"] == "coverage-uri-list");
        // The summary of the per-URI warnings below, with the counts.
        assert_eq!(coverage.len(), usize::from(gold == TEST), "{gold}");
        let (reader, scoring): (Vec<&Value>, Vec<&Value>) =
            warnings.into_iter().partition(|w| w["code"] != "uri-without-gold-entries");
        assert!(reader.iter().all(|w| !w["location"].is_null()), "{gold}: every reader warning located");
        // Test gold: Non-ProfitOrganisation (orphan entry), associatedRocket and musicBy (entries
        // without canonical form) have nothing scorable.
        assert_eq!(scoring.len(), if gold == TEST { 3 } else { 0 }, "{gold}");
    }
    // Test gold: Non-ProfitOrganisation's only entry is not under lemon:entry: both sides
    // empty, scored 1 (documented 0/0 convention), and reported.
    let v = lexicon(TEST, TEST, TEST_URIS, "paper");
    let row = uri(&v, "Non-ProfitOrganisation");
    assert_eq!(row["gold"].as_array().map(Vec::len), Some(0));
    assert!(warning_codes(&v).contains(&"orphan-entry"));
}

#[test]
fn qald3_script_mode_on_the_gold_itself() {
    // The script scores the URIs the submission mentions and divides by 40. The train gold
    // mentions its 40 listed URIs and 4 others (AmericanFootballPlayer, FilmFestival, country,
    // discoverer), whose entries also match and are added to the sums, so averages exceed 1.
    let v = lexicon(TRAIN, TRAIN, TRAIN_URIS, "qald3-script");
    let rows = v["uris"].as_array().expect("uris");
    assert_eq!(rows.iter().filter(|r| r["kind"] == "unlisted").count(), 4);
    assert_eq!(rows.len(), 44);
    // S5: a lemma counts once: "bridge" (verb) and "bridge" (noun) both lexicalize crosses,
    // so 5 of 6 entries are correct, rounded to 5 decimals.
    let crosses = uri(&v, "/crosses");
    assert_eq!((f(crosses, "precision"), f(crosses, "recall")), (0.83333, 0.83333));
    assert!(close(f(&v["average"], "precision"), (43.0 + 0.83333) / 40.0), "{}", v["average"]);
    // S7/S8: `similar` (copulativeSubject, no mapping in its sense) loses the mapping point
    // even against itself; the paper's formula gives 1 there.
    let similar = uri(&v, "/similar");
    assert!(close(f(similar, "accuracy"), 2.0 / 3.0));
    assert!(f(&v["average"], "accuracy") < 1.0);
    // The test gold's Non-ProfitOrganisation is never mentioned (orphan entry): 0 there.
    let v = lexicon(TEST, TEST, TEST_URIS, "qald3-script");
    assert_eq!(f(uri(&v, "Non-ProfitOrganisation"), "recall"), 0.0);
}

/// The effects stated in the header of each foaf_i.ttl (M-ATOLL's entry-level micro numbers),
/// against the foaf.ttl they were derived from (6 entries).
#[test]
fn matoll_perturbations_state_their_micro_effects() {
    let micro = |i| {
        let v = foaf(FOAF_BASE, i);
        (f(&v["micro"], "precision"), f(&v["micro"], "recall"))
    };
    // foaf_1: "acquainted with" dropped: P 100 %, R 5/6.
    assert_eq!(micro(1), (1.0, 5.0 / 6.0));
    // foaf_2: "love" added: P 6/7, R 100 %.
    assert_eq!(micro(2), (6.0 / 7.0, 1.0));
    // foaf_3: POS of know → noun: P 5/6, R 5/6.
    assert_eq!(micro(3), (5.0 / 6.0, 5.0 / 6.0));
    // foaf_4: header says lemma P/R intact, but the diff also makes friend a verb: 5/6, 5/6.
    assert_eq!(micro(4), (5.0 / 6.0, 5.0 / 6.0));
    // foaf_5, foaf_6: lemma P/R untouched.
    assert_eq!(micro(5), (1.0, 1.0));
    assert_eq!(micro(6), (1.0, 1.0));
}

/// The same files against today's foaf.ttl, whose `friend` has a second sense (foaf:know):
/// 7 gold entries, so every stated recall is out by one entry.
#[test]
fn matoll_perturbations_against_the_current_gold() {
    let v = foaf(FOAF, 1);
    assert_eq!((f(&v["micro"], "precision"), f(&v["micro"], "recall")), (1.0, 5.0 / 7.0));
    let v = foaf(FOAF, 2);
    assert_eq!((f(&v["micro"], "precision"), f(&v["micro"], "recall")), (6.0 / 7.0, 6.0 / 7.0));
    assert_eq!(uri(&v, "/friend")["extra"][0], "love (verb)");
    let v = foaf(FOAF, 3);
    assert_eq!((f(&v["micro"], "precision"), f(&v["micro"], "recall")), (5.0 / 6.0, 5.0 / 7.0));
    assert_eq!(uri(&v, "/friend")["extra"][0], "know (noun)");
    let v = foaf(FOAF, 4);
    assert_eq!(uri(&v, "/friend")["extra"][0], "friend (verb)");
    // foaf_5: know's mapping swapped: its mapping component 0, A = 2/3; friend's A_lex =
    // (2/3 + 1 + 1) / 3 (know, friend, acquainted).
    let v = foaf(FOAF, 5);
    let friend = uri(&v, "/friend");
    let know =
        friend["entries"].as_array().expect("entries").iter().find(|e| e["entry"] == "know (verb)").expect("know");
    assert_eq!((f(know, "frame"), f(know, "arguments"), f(know, "mapping")), (1.0, 1.0, 0.0));
    assert!(close(f(friend, "accuracy"), (2.0 / 3.0 + 2.0) / 3.0));
    assert!(warning_codes(&v).contains(&"turtle-repaired"));
    // foaf_6: the preposition of "acquainted with" changed: entries and the paper's accuracy
    // are untouched (markers are not in the formula); kgeval says so in a warning.
    let v = foaf(FOAF, 6);
    assert_eq!(f(uri(&v, "/friend"), "accuracy"), 1.0);
    let marker = v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .find(|w| w["code"] == "marker-differs")
        .expect("marker-differs");
    assert!(marker["message"].as_str().is_some_and(|m| m.contains("from") && m.contains("with")), "{marker}");
    // foaf_7 is byte-identical to foaf.ttl: every score 1.
    let v = foaf(FOAF, 7);
    for key in ["precision", "recall", "f1", "accuracy"] {
        assert_eq!(f(&v["average"], key), 1.0, "{key}");
    }
    // foaf_8: sense 1 of friend re-pointed to foaf:nofriend (not listed: friend loses one gold
    // entry), a second NounPPFrame with only the copulative argument: for foaf:know the
    // friend entry's A = (1 + (1 + 1/2 + 1) / 3) / 2 = 11/12.
    let v = foaf(FOAF, 8);
    assert_eq!((f(&v["micro"], "precision"), f(&v["micro"], "recall")), (1.0, 6.0 / 7.0));
    assert!(close(f(uri(&v, "/know"), "accuracy"), 11.0 / 12.0));
}

#[test]
fn text_csv_markdown_and_per_item() {
    let args = ["lexicon", "--gold", FOAF, "--system", "testdata/lemon/matoll-foaf_2.ttl", "--uris", FOAF_URIS];
    let text = kgeval(&[&args[..], &["--precision", "2"]].concat());
    assert!(text.status.success());
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.starts_with("kgeval lexicon: mode paper;"), "{text}");
    assert!(text.contains("MICRO"), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("http://xmlns.com/foaf/0.1/friend") && l.contains("0.75  1.00  0.86")),
        "{text}"
    );
    let csv = kgeval(&[&args[..], &["--format", "csv"]].concat());
    let csv = String::from_utf8_lossy(&csv.stdout);
    assert!(csv.lines().any(|l| l.starts_with("matoll-foaf_2,MICRO,,7,6,1,1,0.8571428571428571,")), "{csv}");
    let md = kgeval(&[&args[..], &["--format", "markdown"]].concat());
    assert!(String::from_utf8_lossy(&md.stdout).contains("| uri | kind |"));
    let v = system_json(kgeval_json(&[&args[..], &["--per-item"]].concat()));
    let per_item = v["per_item"].as_array().expect("per_item");
    assert!(per_item.iter().any(|r| r["metric"] == "accuracy" && r["item"] == "http://xmlns.com/foaf/0.1/Person"));
}

#[test]
fn several_systems_gates_and_stdin() {
    // Two systems in one call: one JSON object each, in order, each as when scored alone.
    let both = kgeval_json(&[
        "lexicon",
        "--gold",
        FOAF,
        "--system",
        "testdata/lemon/matoll-foaf_2.ttl",
        "--system",
        "three=testdata/lemon/matoll-foaf_3.ttl",
        "--uris",
        FOAF_URIS,
    ]);
    let systems = both["systems"].as_array().expect("systems");
    assert_eq!(
        systems.iter().map(|s| s["system"].as_str().unwrap_or_default()).collect::<Vec<_>>(),
        ["matoll-foaf_2", "three"]
    );
    assert_eq!(systems[0]["micro"], foaf(FOAF, 2)["micro"]);
    assert_eq!(systems[1]["micro"], foaf(FOAF, 3)["micro"]);
    // --fail-under on the headline (the average F): matoll-foaf_2 averages below 1.
    let args = ["lexicon", "--gold", FOAF, "--system", "testdata/lemon/matoll-foaf_2.ttl", "--uris", FOAF_URIS];
    let average_f1 = f(&foaf(FOAF, 2)["average"], "f1");
    assert!(average_f1 < 1.0);
    let pass = kgeval(&[&args[..], &["--fail-under", &format!("F1={average_f1}")]].concat());
    assert_eq!(pass.status.code(), Some(0), "{}", String::from_utf8_lossy(&pass.stderr));
    let fail = kgeval(&[&args[..], &["--fail-under", "f1=1", "--fail-under", "micro_recall=0.5"]].concat());
    assert_eq!(fail.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&fail.stderr);
    assert!(stderr.contains(&format!("fail-under: system matoll-foaf_2: f1 {average_f1} < 1")), "{stderr}");
    assert!(!stderr.contains("micro_recall"), "{stderr}");
    let unknown = kgeval(&[&args[..], &["--fail-under", "ndcg=0.5"]].concat());
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("expected one of the lexicon headline metrics: precision")
    );
    // Two systems named by the same stem need NAME=PATH.
    let twice = kgeval(&["lexicon", "--gold", FOAF, "--system", FOAF, "--system", FOAF, "--uris", FOAF_URIS]);
    assert_eq!(twice.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("give NAME=PATH"));
    // The system lexicon from stdin, gzip-compressed, gives the same numbers.
    let dir = tempfile::tempdir().expect("tempdir");
    let zipped = dir.path().join("foaf_2.ttl.gz");
    crate::gzip_file(&crate::root().join("testdata/lemon/matoll-foaf_2.ttl"), &zipped);
    let from_gzip = system_json(kgeval_json(&[
        "lexicon",
        "--gold",
        FOAF,
        "--system",
        zipped.to_str().expect("utf-8"),
        "--uris",
        FOAF_URIS,
    ]));
    assert_eq!(from_gzip["micro"], foaf(FOAF, 2)["micro"]);
    let stdin = crate::kgeval_stdin(
        &["lexicon", "--gold", FOAF, "--system", "-", "--uris", FOAF_URIS, "--format", "json"],
        &std::fs::read(crate::root().join("testdata/lemon/matoll-foaf_2.ttl")).expect("foaf_2"),
    );
    assert!(stdin.status.success(), "{}", String::from_utf8_lossy(&stdin.stderr));
    let v = system_json(serde_json::from_slice(&stdin.stdout).expect("json"));
    assert_eq!((v["system"].as_str(), &v["micro"]), (Some("stdin"), &foaf(FOAF, 2)["micro"]));
}

#[test]
fn bad_lexicon_input_fails_cleanly() {
    let out_dir = tempfile::tempdir().expect("tempdir");
    let out = out_dir.path().join("out.json");
    let out = out.to_str().expect("utf-8");
    let cases = [
        ("testdata/lemon/bad/malformed.ttl", FOAF_URIS, "testdata/lemon/bad/malformed.ttl:7:", "invalid Turtle"),
        ("testdata/lemon/bad/no-entry.ttl", FOAF_URIS, "testdata/lemon/bad/no-entry.ttl:1:1:", "no lemon:entry"),
        (
            FOAF,
            "testdata/lemon/bad/garbage-uris.txt",
            "testdata/lemon/bad/garbage-uris.txt:4:1:",
            "expected one absolute",
        ),
    ];
    for (system, uris, position, what) in cases {
        let run = kgeval(&["lexicon", "--gold", FOAF, "--system", system, "--uris", uris, "-o", out]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{system}: {stderr}");
        let last = stderr.lines().last().unwrap_or_default();
        assert!(last.starts_with("error: ") && last.contains(position) && last.contains(what), "{last}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(run.stdout.is_empty(), "{system}: output on stdout");
        assert!(!std::path::Path::new(out).exists(), "{system}: partial output");
    }
}

#[test]
fn every_help_example_runs() {
    let examples = crate::help_examples("lexicon");
    assert_eq!(examples.len(), 3, "{examples:?}");
    for example in examples {
        let args: Vec<&str> = example.iter().map(String::as_str).collect();
        let out = kgeval(&args);
        assert!(out.status.success(), "kgeval {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty());
    }
}

#[test]
fn help_shows_an_example() {
    let help = kgeval(&["lexicon", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("Examples:") && text.contains("--mode qald3-script"), "{text}");
}
