//! The bounds of SPARQL queries: rows, time and the answers' bytes, on the embedded store
//! over the bundled data and on an endpoint that never stops answering.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use super::sparql::{QueryBounds, SparqlBackend};
use super::{QaldTask, MAX_ANSWER_BYTES};
use crate::{Input, NoProgress, SystemInput};

const GOLD: &str = "../../testdata/qald/sparql/gold.xml";
const DATA: [&str; 2] = ["../../testdata/qald/sparql/data.ttl", "../../testdata/qald/sparql/extra.rdf"];
/// The triples of `DATA`.
const TRIPLES: u64 = 19;

/// A submission whose question 1 is answered by `query`.
fn submission(query: &str) -> Input {
    let json = serde_json::json!({"questions": [{"id": "1", "query": {"sparql": query}}]});
    Input::from_bytes("upload.json", json.to_string().into_bytes())
}

/// The task over the bundled data with `query` as question 1 of the one system.
fn task(query: &str) -> QaldTask {
    let mut task = QaldTask::new(GOLD).data(DATA[0]).data(DATA[1]);
    task.systems.push(SystemInput::named("team", submission(query)));
    task
}

/// Runs `task`, returning the error's text (or "scored") and how long it took.
fn outcome(task: &QaldTask) -> (String, Duration) {
    let start = Instant::now();
    let result = task.run(&NoProgress).map_or_else(|e| e.to_string(), |_| "scored".to_owned());
    (result, start.elapsed())
}

/// Six patterns without a shared variable: 19⁶ ≈ 47 million rows.
const CROSS_PRODUCT: &str = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o . ?p ?q ?r }";

#[test]
fn a_cross_product_stops_at_the_row_cap() {
    let (error, took) = outcome(&task(CROSS_PRODUCT));
    assert_eq!(
        error,
        "upload.json:1:15: question 1: found a query giving more than 100000 rows, expected at most max_rows = 100000"
    );
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn the_row_cap_counts_every_row_just_within_and_just_past() {
    let query = "SELECT ?s WHERE { ?s ?p ?o }";
    let mut within = task(query);
    within.max_rows = TRIPLES;
    assert_eq!(outcome(&within).0, "scored");
    let mut past = task(query);
    past.max_rows = TRIPLES - 1;
    assert!(outcome(&past).0.ends_with("found a query giving more than 18 rows, expected at most max_rows = 18"));
    // Rows binding nothing count too (they take the evaluator's time all the same).
    let mut unbound = task("SELECT ?x WHERE { ?s ?p ?o }");
    unbound.max_rows = TRIPLES - 1;
    assert!(outcome(&unbound).0.contains("more than 18 rows"));
}

/// Five patterns without a shared variable and a FILTER that only the whole row can test and
/// no row passes: 19⁵ ≈ 2.5 million rows evaluated and none given. Run whole, it takes about
/// 20 s here (the evaluator combines each row of the last pattern with the 130,321 rows of the
/// four others before it reads the next quad, where it looks at its cancellation token).
const NO_ROW: &str = "SELECT ?a WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o \
                      FILTER(STRLEN(CONCAT(STR(?c), STR(?f), STR(?i), STR(?l), STR(?o))) < 0) }";

#[test]
fn a_query_without_rows_stops_at_its_timeout() {
    let mut slow = task(NO_ROW);
    slow.timeout = 1.0;
    let (error, took) = outcome(&slow);
    assert_eq!(
        error,
        "upload.json:1:15: question 1: found a query still running after 1 s, expected it to finish within the \
         task's timeout"
    );
    assert!(took >= Duration::from_secs(1) && took < Duration::from_secs(6), "{took:?}");
}

#[test]
fn the_scoring_deadline_cancels_the_running_query() {
    let task = task(NO_ROW);
    let gold = task.read_gold().expect("the gold");
    let start = Instant::now();
    let error =
        task.run_with_gold_until(&gold, &NoProgress, Some(start + Duration::from_millis(500))).expect_err("cancelled");
    assert_eq!(
        error.to_string(),
        "upload.json:1:15: question 1: found a query still running when the scoring's time ran out, expected \
         every query of the file to finish within it"
    );
    assert!(start.elapsed() < Duration::from_secs(6), "{:?}", start.elapsed());
}

#[test]
fn a_query_whose_evaluation_grows_the_memory_is_cancelled() {
    // 5,000 triples; ORDER BY sorts all 5,000² = 25 million rows of the cross product (a few
    // GB) before giving the first; the evaluator reads a quad, where it looks at its
    // cancellation token, every 5,000 rows.
    let triples: String = (0..5000).map(|i| format!("<http://x.org/s{i}> <http://x.org/p> \"{i}\" .\n")).collect();
    let backend = SparqlBackend::embedded(&[Input::from_bytes("big.nt", triples.into_bytes())]).expect("store");
    let read = kgeval_formats::qald::read_qald(
        br#"{"questions": [{"id": "7", "query": {"sparql": "SELECT ?a WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?a"}}]}"#,
        "upload.json",
    )
    .expect("a submission");
    let mut dataset = read.dataset;
    let mut bounds = bounds(1000, MAX_ANSWER_BYTES);
    bounds.memory_growth = 64 << 20;
    let start = Instant::now();
    let error = backend.execute(&mut dataset, false, &bounds, &NoProgress).expect_err("cancelled").to_string();
    assert!(
        error.ends_with(
            "question 7: found a query whose evaluation grew the memory by more than 64 MiB, expected at most that much"
        ),
        "{error}"
    );
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
}

/// A loopback endpoint answering every request with `head` and then `row` repeated forever
/// (until the client hangs up).
fn endless_endpoint(head: &'static str, row: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}/sparql", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                    line.clear();
                }
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/sparql-results+json\r\nConnection: close\r\n\r\n{head}"
                );
                while stream.write_all(row.as_bytes()).is_ok() {}
            });
        }
    });
    url
}

fn bounds(max_rows: u64, answer_bytes: usize) -> QueryBounds {
    QueryBounds {
        max_rows,
        timeout: Duration::from_secs(20),
        deadline: None,
        answer_bytes,
        memory_growth: super::MAX_QUERY_MEMORY_GROWTH,
    }
}

fn run_on(backend: &SparqlBackend, bounds: &QueryBounds) -> String {
    let read = kgeval_formats::qald::read_qald(
        serde_json::json!({"questions": [{"id": "7", "query": {"sparql": "SELECT ?x WHERE { ?x ?p ?o }"}}]})
            .to_string()
            .as_bytes(),
        "upload.json",
    )
    .expect("a submission");
    let mut dataset = read.dataset;
    backend.execute(&mut dataset, false, bounds, &NoProgress).expect_err("stopped").to_string()
}

#[test]
fn an_endpoint_that_never_stops_is_read_up_to_the_row_cap_and_the_byte_budget() {
    const HEAD: &str = r#"{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "literal", "value": "a"}}"#;
    let rows = endless_endpoint(HEAD, r#", {"x": {"type": "literal", "value": "a"}}"#);
    let backend = SparqlBackend::endpoint(&rows, Duration::from_secs(20));
    let start = Instant::now();
    let error = run_on(&backend, &bounds(1000, MAX_ANSWER_BYTES));
    assert!(
        error.ends_with("question 7: found a query giving more than 1000 rows, expected at most max_rows = 1000"),
        "{error}"
    );
    // One value that never ends: the response's bytes are capped.
    const ENDLESS: &str = r#"{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "literal", "value": "a"#;
    let value = endless_endpoint(ENDLESS, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    let backend = SparqlBackend::endpoint(&value, Duration::from_secs(20));
    let error = run_on(&backend, &bounds(1000, 1 << 20));
    assert!(
        error.contains(
            "found a response of more than 1048576 bytes, expected at most 1048576 (what is left of the file's budget"
        ),
        "{error}"
    );
    assert!(start.elapsed() < Duration::from_secs(20), "{:?}", start.elapsed());
}

#[test]
fn the_answers_of_one_file_share_one_byte_budget() {
    let backend = SparqlBackend::embedded(&[Input::path(DATA[0]), Input::path(DATA[1])]).expect("store");
    // 19 subjects of 19 + 6 (Berlin ×4), 7 (Hamburg ×4), 5 (Paris ×4), 4 (Lyon ×3),
    // 9 (K%C3%B6ln ×3) and 7 (Germany) characters: 479 bytes, and 19 answer structs.
    let exact = 19 * std::mem::size_of::<kgeval_model::qald::Answer>() + 479;
    let read = kgeval_formats::qald::read_qald(
        br#"{"questions": [{"id": "7", "query": {"sparql": "SELECT ?x WHERE { ?x ?p ?o }"}}]}"#,
        "upload.json",
    )
    .expect("a submission");
    let mut dataset = read.dataset;
    backend.execute(&mut dataset, false, &bounds(1000, exact), &NoProgress).expect("just within the budget");
    assert_eq!(dataset.questions[0].answers.as_ref().map(Vec::len), Some(19));
    let error = run_on(&backend, &bounds(1000, exact - 1));
    assert!(
        error.ends_with(&format!(
            "question 7: found query results holding more than {} bytes of answers in this file, expected at most {} \
             (the answers of one file's queries together)",
            exact - 1,
            exact - 1
        )),
        "{error}"
    );
}
