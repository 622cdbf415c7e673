//! `kgeval qald` end to end: every real file against itself, the published QALD-3 table, the
//! out-of-scope rows, and SPARQL execution on an embedded store and over HTTP.

use std::collections::HashMap;
use std::path::Path;

use kgeval_formats::qald::read_qald_file;
use kgeval_metrics::qald::aggregate;
use kgeval_model::align::PrfScores;
use kgeval_model::qald::{QaldQuery, QaldRule, QuestionScore, QuestionStatus};

use crate::qald_server::{start, Behaviour};
use crate::{f, kgeval, kgeval_json, n, root};

/// Every QALD file under `testdata/qald/` (the malformed corpus aside).
fn real_files() -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["qald3", "other-editions", "json", "sparql"] {
        for entry in std::fs::read_dir(root().join("testdata/qald").join(dir)).expect("testdata/qald") {
            let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
            if name.ends_with(".xml") || name.ends_with(".json") {
                files.push(format!("testdata/qald/{dir}/{name}"));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_file_against_itself_gives_one_under_every_rule() {
    let files = real_files();
    assert_eq!(files.len(), 24, "{files:?}");
    for file in &files {
        for rule in ["qald3", "qald6", "gerbil"] {
            let v = kgeval_json(&["qald", "--gold", file, "--system", file, "--rule", rule]);
            let system = &v["systems"][0];
            assert_eq!(system["rule"], rule);
            for scope in ["global", "local"] {
                let a = &system[scope];
                for key in [
                    "macro_precision",
                    "macro_recall",
                    "qald_f",
                    "mean_f",
                    "micro_precision",
                    "micro_recall",
                    "micro_f1",
                ] {
                    assert_eq!(f(a, key), 1.0, "{file} {rule} {scope} {key}");
                }
                assert_eq!(n(a, "right"), n(a, "questions"), "{file}");
            }
            for breakdown in system["breakdowns"].as_object().expect("breakdowns").values() {
                for group in breakdown.as_array().expect("groups") {
                    assert_eq!(f(group, "qald_f"), 1.0, "{file} {group}");
                }
            }
            assert!(system["failed"].as_array().is_some_and(Vec::is_empty), "{file}");
        }
    }
}

/// One row of the published per-question results.
struct Row {
    system: String,
    dataset: String,
    id: String,
    prf: PrfScores,
}

fn published_rows() -> Vec<Row> {
    let text =
        std::fs::read_to_string(root().join("testdata/qald/qald3/qald3_task1_results_per_question.tsv")).expect("tsv");
    text.lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            let number = |i: usize| cells[i].parse::<f64>().expect("number");
            Row {
                system: cells[0].into(),
                dataset: cells[1].into(),
                id: cells[2].into(),
                prf: PrfScores { recall: number(3), precision: number(4), f_measure: number(5) },
            }
        })
        .collect()
}

/// kgeval's aggregation of one system's published rows over the gold question ids `gold`
/// (a question without a row was not processed and scores 0).
fn aggregate_published(
    rows: &[Row],
    system: &str,
    dataset: &str,
    gold: &[String],
) -> kgeval_model::qald::QaldAggregate {
    let by_id: HashMap<&str, &Row> =
        rows.iter().filter(|r| r.system == system && r.dataset == dataset).map(|r| (r.id.as_str(), r)).collect();
    assert!(by_id.keys().all(|id| gold.iter().any(|g| g == id)), "{system}: a row outside the gold");
    let scores: Vec<QuestionScore> = gold
        .iter()
        .map(|id| {
            let row = by_id.get(id.as_str());
            QuestionScore {
                id: id.clone(),
                status: if row.is_some() { QuestionStatus::Answered } else { QuestionStatus::NotProcessed },
                out_of_scope: false,
                scores: row.map(|r| r.prf).unwrap_or_default(),
                true_positives: 0,
                false_positives: 0,
                false_negatives: 0,
            }
        })
        .collect();
    aggregate(&scores, QaldRule::Qald3)
}

fn gold_ids(file: &str, in_scope_only: bool) -> Vec<String> {
    let read = read_qald_file(&root().join(file)).expect("gold");
    read.dataset
        .questions
        .iter()
        .filter(|q| !in_scope_only || q.query != QaldQuery::OutOfScope)
        .map(|q| q.id.clone())
        .collect()
}

/// The QALD-3 overview table (R, P, F as printed), reproduced from the per-question rows by
/// kgeval's aggregation over all gold questions, within 0.011.
#[test]
fn published_qald3_table() {
    let rows = published_rows();
    let dbpedia = gold_ids("testdata/qald/qald3/dbpedia-test-answers.xml", false);
    assert_eq!(dbpedia.len(), 99);
    // musicbrainz-test.xml has 55 questions, 5 of them out of scope; the test questions file
    // (and the published denominator) had the 50 others.
    let musicbrainz = gold_ids("testdata/qald/qald3/musicbrainz-test.xml", true);
    assert_eq!(musicbrainz.len(), 50);
    let published = [
        ("squall2sparql", "dbpedia-test", &dbpedia, 0.885, 0.919, 0.901),
        ("CASIA", "dbpedia-test", &dbpedia, 0.362, 0.352, 0.357),
        ("Scalewelis", "dbpedia-test", &dbpedia, 0.328, 0.333, 0.331),
        ("RTV", "dbpedia-test", &dbpedia, 0.338, 0.325, 0.331),
        ("Intui2", "dbpedia-test", &dbpedia, 0.324, 0.325, 0.325),
        ("SWIP", "dbpedia-test", &dbpedia, 0.160, 0.172, 0.166),
        ("SWIP", "musicbrainz-test", &musicbrainz, 0.510, 0.508, 0.509),
    ];
    for (system, dataset, gold, recall, precision, f_measure) in published {
        let a = aggregate_published(&rows, system, dataset, gold);
        let close = |ours: f64, printed: f64| (ours - printed).abs() <= 0.011;
        assert!(close(a.macro_recall, recall), "{system} {dataset} R {} vs {recall}", a.macro_recall);
        assert!(close(a.macro_precision, precision), "{system} {dataset} P {} vs {precision}", a.macro_precision);
        assert!(close(a.qald_f, f_measure), "{system} {dataset} F {} vs {f_measure}", a.qald_f);
    }
}

/// squall2sparql's rows for the four out-of-scope questions read 1/1/1, which is what the
/// rules give an empty answer to an empty gold; a non-empty answer would give 0.
#[test]
fn published_out_of_scope_rows() {
    let gold = read_qald_file(&root().join("testdata/qald/qald3/dbpedia-test-answers.xml")).expect("gold");
    let rows = published_rows();
    for id in ["36", "37", "47", "52"] {
        let q = gold.dataset.questions.iter().find(|q| q.id == id).expect(id);
        assert_eq!((&q.query, q.answer_slice().len()), (&QaldQuery::OutOfScope, 0), "{id} is out of scope");
        let row = rows.iter().find(|r| r.system == "squall2sparql" && r.id == id).expect("row");
        assert_eq!((row.prf.precision, row.prf.recall, row.prf.f_measure), (1.0, 1.0, 1.0), "{id}");
    }
    // The same through the binary: a submission answering those four with the empty set and
    // one of them with an answer.
    let dir = tempfile::tempdir().expect("tempdir");
    let submission = dir.path().join("oos.xml");
    std::fs::write(
        &submission,
        "<dataset id=\"dbpedia-test\">\
         <question id=\"36\"><answers/></question><question id=\"37\"><answers/></question>\
         <question id=\"47\"><query>OUT OF SCOPE</query></question>\
         <question id=\"52\"><answers><answer><uri>http://dbpedia.org/resource/X</uri></answer></answers></question>\
         </dataset>",
    )
    .expect("write");
    let sub = submission.to_str().expect("utf-8");
    for rule in ["qald3", "qald6", "gerbil"] {
        let v = kgeval_json(&[
            "qald",
            "--gold",
            "testdata/qald/qald3/dbpedia-test-answers.xml",
            "--system",
            sub,
            "--rule",
            rule,
        ]);
        let questions = v["systems"][0]["questions"].as_array().expect("questions").clone();
        let score = |id: &str| {
            let q = questions.iter().find(|q| q["id"] == id).expect("question");
            (f(q, "precision"), f(q, "recall"), f(q, "f1"), q["status"].as_str().unwrap_or_default().to_owned())
        };
        for id in ["36", "37", "47"] {
            assert_eq!(score(id), (1.0, 1.0, 1.0, "empty".to_owned()), "{rule} {id}");
        }
        assert_eq!(score("52"), (0.0, 0.0, 0.0, "answered".to_owned()), "{rule}");
        assert_eq!(score("81").3, "not-processed");
        let local = &v["systems"][0]["local"];
        assert_eq!((n(local, "questions"), n(local, "right"), n(local, "out_of_scope")), (4, 3, 4));
    }
}

const GOLD: &str = "testdata/qald/sparql/gold.xml";
const SYSTEM: &str = "testdata/qald/sparql/system.json";
const DATA: [&str; 2] = ["testdata/qald/sparql/data.ttl", "testdata/qald/sparql/extra.rdf"];

/// The expected per-question F of `system.json` (answers only from its queries): questions
/// 1–4 and 6 right, 5 gives all five cities for the two French ones (P 0.4, R 1).
fn assert_sparql_scores(v: &serde_json::Value) {
    let s = &v["systems"][0];
    let g = &s["global"];
    assert_eq!((n(g, "right"), n(g, "partial"), n(g, "out_of_scope")), (5, 1, 1));
    assert!((f(g, "macro_precision") - 5.4 / 6.0).abs() < 1e-12, "{g}");
    assert_eq!(f(g, "macro_recall"), 1.0);
    assert!((f(g, "mean_f") - (5.0 + 0.8 / 1.4) / 6.0).abs() < 1e-12);
    assert_eq!((n(g, "tp"), n(g, "fp"), n(g, "fn")), (8, 3, 0));
    let q5 = &s["questions"][4];
    assert_eq!((f(q5, "precision"), f(q5, "recall")), (0.4, 1.0));
}

#[test]
fn sparql_embedded_store() {
    let v = kgeval_json(&["qald", "--gold", GOLD, "--system", SYSTEM, "--data", DATA[0], DATA[1]]);
    assert_sparql_scores(&v);
    let queries = &v["systems"][0]["conventions"]["queries"];
    assert_eq!(queries, "embedded store (19 triples)");
    // Without a store, the queries are not run: every question but the out-of-scope one fails.
    let v = kgeval_json(&["qald", "--gold", GOLD, "--system", SYSTEM]);
    assert_eq!(n(&v["systems"][0]["global"], "right"), 1);
    assert!(v["systems"][0]["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .any(|w| w["code"] == "qald-query-not-executed"));
}

#[test]
fn sparql_embedded_store_reads_gzip() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let gz = dir.path().join("data.ttl.gz");
    let mut encoder =
        flate2::write::GzEncoder::new(std::fs::File::create(&gz).expect("create"), flate2::Compression::default());
    encoder.write_all(&std::fs::read(root().join(DATA[0])).expect("data")).expect("gzip");
    encoder.finish().expect("gzip");
    let v = kgeval_json(&["qald", "--gold", GOLD, "--system", SYSTEM, "--data", gz.to_str().expect("utf-8"), DATA[1]]);
    assert_sparql_scores(&v);
}

#[test]
fn sparql_over_http_gives_the_same_scores() {
    let data: Vec<_> = DATA.iter().map(|d| root().join(d)).collect();
    let refs: Vec<&Path> = data.iter().map(|p| p.as_path()).collect();
    let server = start(&refs, Behaviour::Serve);
    let http = kgeval_json(&["qald", "--gold", GOLD, "--system", SYSTEM, "--endpoint", &server.url]);
    assert_sparql_scores(&http);
    let embedded = kgeval_json(&["qald", "--gold", GOLD, "--system", SYSTEM, "--data", DATA[0], DATA[1]]);
    for key in ["global", "local", "questions", "breakdowns", "failed"] {
        assert_eq!(http["systems"][0][key], embedded["systems"][0][key], "{key}");
    }
}

#[test]
fn gold_regenerated_from_its_queries() {
    let data = ["--data", DATA[0], DATA[1]];
    let mut args =
        vec!["qald", "--gold", "testdata/qald/sparql/gold-queries.xml", "--gold-from-queries", "--system", GOLD];
    args.extend(data);
    let v = kgeval_json(&args);
    assert_eq!(f(&v["systems"][0]["global"], "qald_f"), 1.0, "the hand-written gold equals the queries' results");
    let mut args =
        vec!["qald", "--gold", "testdata/qald/sparql/gold-queries.xml", "--gold-from-queries", "--system", SYSTEM];
    args.extend(data);
    assert_sparql_scores(&kgeval_json(&args));
}

/// Runs `kgeval qald` expecting exit 2, one `error:` line and no output file; returns the line.
fn fails(args: &[&str]) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let out_path = dir.path().join("out.json");
    let mut all = args.to_vec();
    all.extend(["-o", out_path.to_str().expect("utf-8")]);
    let before = std::fs::read(root().join(SYSTEM)).expect("system");
    let out = kgeval(&all);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!out_path.exists(), "partial output");
    assert_eq!(std::fs::read(root().join(SYSTEM)).expect("system"), before, "the submission was rewritten");
    let last = stderr.lines().last().unwrap_or_default().to_owned();
    assert!(last.starts_with("error: "), "{stderr}");
    last
}

#[test]
fn endpoint_timeout_http_error_and_malformed_results() {
    let data = root().join(DATA[0]);
    let silent = start(&[&data], Behaviour::Silent);
    let line = fails(&["qald", "--gold", GOLD, "--system", SYSTEM, "--endpoint", &silent.url, "--timeout", "0.5"]);
    assert!(line.contains("system.json:2:2: question 1") && line.contains("timed out"), "{line}");

    let broken = start(&[&data], Behaviour::InternalError);
    let line = fails(&["qald", "--gold", GOLD, "--system", SYSTEM, "--endpoint", &broken.url]);
    assert!(line.contains("HTTP 500") && line.contains("the store is on fire"), "{line}");

    let garbled = start(&[&data], Behaviour::MalformedResults);
    let line = fails(&["qald", "--gold", GOLD, "--system", SYSTEM, "--endpoint", &garbled.url]);
    assert!(line.contains("malformed SPARQL JSON results"), "{line}");

    let line = fails(&["qald", "--gold", GOLD, "--system", SYSTEM, "--endpoint", "http://127.0.0.1:1/sparql"]);
    assert!(line.contains("request failed"), "{line}");
}

#[test]
fn query_that_does_not_parse_is_located() {
    let line =
        fails(&["qald", "--gold", GOLD, "--system", "testdata/qald/bad/sparql-bad-query.json", "--data", DATA[0]]);
    assert!(line.contains("sparql-bad-query.json:3:2: question 2: the SPARQL query does not parse"), "{line}");
    let line = fails(&["qald", "--gold", GOLD, "--system", SYSTEM, "--data", "testdata/qald/bad/data-bad-turtle.ttl"]);
    assert!(line.contains("data-bad-turtle.ttl:3:1: ") && line.contains("A dot is expected"), "{line}");
    let line = fails(&["qald", "--gold", GOLD, "--system", SYSTEM, "--gold-from-queries"]);
    assert!(line.contains("expected --data or --endpoint"), "{line}");
}

#[test]
fn text_markdown_csv_and_help() {
    let out = kgeval(&["qald", "--gold", GOLD, "--system", SYSTEM, "--data", DATA[0], DATA[1], "--precision", "2"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("kgeval qald: rule: qald3; empty_answer: gold non-empty, system empty: P 0, R 0, F 0;"),
        "{text}"
    );
    assert!(
        text.contains(
            "system  global                       6          6      5        1    1     0.90     1.00    0.95"
        ),
        "{text}"
    );
    assert!(text.contains("  5  P 0.40 R 1.00 F 0.57  Which cities are in France?"), "{text}");
    let md = kgeval(&["qald", "--gold", GOLD, "--system", SYSTEM, "--format", "markdown"]);
    assert!(String::from_utf8_lossy(&md.stdout).contains("| system | scope | questions |"));
    let csv = kgeval(&["qald", "--gold", GOLD, "--system", SYSTEM, "--format", "csv", "--rule", "qald6"]);
    let csv = String::from_utf8_lossy(&csv.stdout).into_owned();
    // Without a store: 5 questions answered empty (P 1 under qald6), the out-of-scope one right.
    assert!(
        csv.lines().nth(1).is_some_and(|l| l.starts_with("system,global,6,6,1,0,1,1,0.16666666666666666,")),
        "{csv}"
    );
    let help = kgeval(&["qald", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("kgeval qald --gold testdata/qald/qald3/dbpedia-test-answers.xml"), "{help}");
}

/// A 145-byte cross product (19⁶ ≈ 47 million rows over the bundled data) submitted as a
/// question's query: the binary, under a 2 GiB address-space limit, stops at the row cap with
/// one located error line, within seconds.
#[test]
fn a_cross_product_query_stops_at_the_row_cap_in_bounded_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let system = dir.path().join("cross.json");
    let query = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o . ?p ?q ?r }";
    let json = format!(r#"{{"questions": [{{"id": "1", "query": {{"sparql": "{query}"}}}}]}}"#);
    std::fs::write(&system, json).expect("written");
    let start = std::time::Instant::now();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2097152 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_kgeval"))
        .args(["qald", "--gold", GOLD, "--system", system.to_str().expect("utf-8"), "--data", DATA[0], DATA[1]])
        .current_dir(root())
        .output()
        .expect("run kgeval");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.trim_end().ends_with(
            "cross.json:1:16: question 1: found a query giving more than 100000 rows, expected at most max_rows = 100000"
        ),
        "{stderr}"
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(30), "{:?}", start.elapsed());
    // The cap is the task's: --max-rows 10 stops it at the eleventh row.
    let out = kgeval(&[
        "qald",
        "--gold",
        GOLD,
        "--system",
        system.to_str().expect("utf-8"),
        "--data",
        DATA[0],
        DATA[1],
        "--max-rows",
        "10",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("more than 10 rows, expected at most max_rows = 10"));
}

/// QALD-3's test answers scored against its training gold: the ids overlap (1–99), the
/// questions do not, and the file scored QALD F 0 without a word. Both directions are refused
/// with the counts, at the first question whose text differs.
#[test]
fn answers_to_another_tasks_questions_are_refused_with_counts() {
    let train = "testdata/qald/qald3/dbpedia-train-answers.xml";
    let test = "testdata/qald/qald3/dbpedia-test-answers.xml";
    for (gold, system, outside) in [(train, test, "0 of 99"), (test, train, "1 of 100")] {
        let out = kgeval(&["qald", "--gold", gold, "--system", system]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!(
                "error: {system}:3:1: found 99 of 99 questions whose text differs from the gold's (compared in \
                 language \"en\" on the ids both have; {outside} ids not in the gold {gold}), expected the answers to \
                 this task's questions"
            )
        );
    }
    // The questions file of the same task fits: no word about question texts.
    let questions = "testdata/qald/qald3/dbpedia-test-questions.xml";
    let v = kgeval_json(&["qald", "--gold", test, "--system", questions]);
    assert!(!v.to_string().contains("question-text-differs"), "{v}");
    // Two of its 99 questions reworded: scored, with a warning that counts them.
    let text = std::fs::read_to_string(root().join(questions)).expect("questions");
    let reworded = text
        .replace("Which books by Kerouac were published by Viking Press?", "Kerouac's Viking Press books?")
        .replace("Which U.S. states are in the same timezone as Utah?", "States sharing Utah's timezone?");
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("reworded.xml");
    std::fs::write(&file, reworded).expect("written");
    let v = kgeval_json(&["qald", "--gold", test, "--system", file.to_str().expect("utf-8")]);
    let warnings = v["systems"][0]["warnings"].as_array().expect("warnings");
    let differs: Vec<&serde_json::Value> = warnings.iter().filter(|w| w["code"] == "question-text-differs").collect();
    assert_eq!(differs.len(), 1, "{warnings:?}");
    assert_eq!(
        differs[0]["message"],
        "2 of 99 questions have a text that differs from the gold's (compared in language \"en\" on the ids both \
         have; first: question \"81\")"
    );
}
