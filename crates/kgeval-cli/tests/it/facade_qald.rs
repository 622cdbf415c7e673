//! `kgeval qald` through the facade: the `QaldTask` from TOML renders byte for byte what the
//! CLI prints, its headlines are the JSON's numbers, gzip and standard input work for the gold,
//! the systems and the label map, `--fail-under` gates the headlines, and every `--help`
//! example runs on bundled data.

use kgeval::qald::QaldTask;
use kgeval::{Family, Input, NoProgress, OutputFormat, SystemInput};

use crate::facade::{assert_same_output, cli_json, json_options, run_toml};
use crate::qald_server::{start, Behaviour};
use crate::{f, gzip_file, kgeval, kgeval_json, kgeval_stdin, root};

const GOLD: &str = "testdata/qald/sparql/gold.xml";
const SYSTEM: &str = "testdata/qald/sparql/system.json";
const LABELS_SYSTEM: &str = "testdata/qald/sparql/system-labels.xml";
const LABELS: &str = "testdata/qald/sparql/labels.tsv";
const DATA: [&str; 2] = ["testdata/qald/sparql/data.ttl", "testdata/qald/sparql/extra.rdf"];

/// The headlines of every system equal the JSON's `global` and `local` numbers.
fn assert_headlines(evaluation: &kgeval::Evaluation, cli: &str) {
    let v: serde_json::Value = serde_json::from_str(cli).expect("json");
    assert_eq!(evaluation.systems.len(), v["systems"].as_array().map_or(0, Vec::len));
    for (i, system) in evaluation.systems.iter().enumerate() {
        let json = &v["systems"][i];
        assert_eq!(json["system"].as_str(), Some(system.as_str()));
        for (prefix, scope) in [("", "global"), ("local_", "local")] {
            let a = &json[scope];
            for (headline, key) in [
                ("precision", "macro_precision"),
                ("recall", "macro_recall"),
                ("f1", "mean_f"),
                ("qald_f", "qald_f"),
                ("micro_precision", "micro_precision"),
                ("micro_recall", "micro_recall"),
                ("micro_f1", "micro_f1"),
            ] {
                let name = format!("{prefix}{headline}");
                assert_eq!(evaluation.headline(system, &name), Some(f(a, key)), "{system} {name}");
            }
        }
    }
}

#[test]
fn qald_task_from_toml_equals_the_cli_on_real_files() {
    // QALD-2's DBpedia training gold against QALD-3's answers (same ids, other answers) and
    // QALD-3's queries-only file (nothing executed: every query warns).
    let evaluation = run_toml(
        r#"
family = "qald"
gold = "testdata/qald/other-editions/qald2-dbpedia-train-answers.xml"
systems = ["testdata/qald/qald3/dbpedia-train-answers.xml", "queries=testdata/qald/qald3/dbpedia-train.xml"]
rule = "qald6"
lang = "de"
"#,
    );
    let cli = cli_json(&[
        "qald",
        "--gold",
        "testdata/qald/other-editions/qald2-dbpedia-train-answers.xml",
        "--system",
        "testdata/qald/qald3/dbpedia-train-answers.xml",
        "--system",
        "queries=testdata/qald/qald3/dbpedia-train.xml",
        "--rule",
        "qald6",
        "--lang",
        "de",
    ]);
    assert_same_output(&evaluation.render(OutputFormat::Json, &json_options()), &cli);
    assert_eq!(evaluation.family, Family::Qald);
    assert_eq!(evaluation.systems, ["dbpedia-train-answers", "queries"]);
    assert_headlines(&evaluation, &cli);
    let f1 = evaluation.headline("dbpedia-train-answers", "f1").expect("f1");
    assert!(f1 > 0.5 && f1 < 1.0, "{f1}");
    let kgeval::Conventions::Qald(conventions) = &evaluation.conventions else { panic!("qald conventions") };
    assert_eq!((conventions.rule.name(), conventions.language.as_str()), ("qald6", "de"));
    assert_eq!(conventions.queries, kgeval_model::qald::QueryExecution::NotExecuted);
    assert!(evaluation.warnings_of("system queries").any(|w| w.code == "qald-query-not-executed"));
    assert!(evaluation.warnings.iter().all(|w| w.scope.starts_with("system ") || w.scope == "gold"));
}

#[test]
fn qald_task_runs_queries_on_the_embedded_store() {
    let evaluation = run_toml(&format!(
        r#"
family = "qald"
gold = "{GOLD}"
system = ["{SYSTEM}", "labels={LABELS_SYSTEM}"]
data = ["{}", "{}"]
labels = "{LABELS}"
normalisation = {{ date_part = false }}
"#,
        DATA[0], DATA[1]
    ));
    let cli = cli_json(&[
        "qald",
        "--gold",
        GOLD,
        "--system",
        SYSTEM,
        "--system",
        &format!("labels={LABELS_SYSTEM}"),
        "--data",
        DATA[0],
        DATA[1],
        "--labels",
        LABELS,
        "--no-date-part",
    ]);
    assert_same_output(&evaluation.render(OutputFormat::Json, &json_options()), &cli);
    assert_headlines(&evaluation, &cli);
    let kgeval::Conventions::Qald(conventions) = &evaluation.conventions else { panic!("qald conventions") };
    assert_eq!(conventions.queries, kgeval_model::qald::QueryExecution::EmbeddedStore { triples: 19 });
    assert_eq!(conventions.label_map, Some(5));
    assert!(conventions.normalisation.contains(&("date-part", false)));
    // system.json: 5 right, q5 P 0.4 R 1 (see testdata/qald/SOURCES.md).
    assert_eq!(evaluation.headline("system", "precision"), Some(5.4 / 6.0));
    assert_eq!(evaluation.headline("system", "micro_precision"), Some(8.0 / 11.0));
    // The label submission matches the URI gold of question 1 through the label map.
    assert_eq!(evaluation.headline("labels", "local_micro_precision"), Some(1.0));
}

#[test]
fn qald_task_over_an_endpoint_equals_the_embedded_store() {
    let data: Vec<_> = DATA.iter().map(|d| root().join(d)).collect();
    let server = start(&[&data[0], &data[1]], Behaviour::Serve);
    let mut task = QaldTask::new(root().join(GOLD)).system(&format!("{}", root().join(SYSTEM).display()));
    task.endpoint = Some(server.url.clone());
    let http = task.run(&NoProgress).expect("endpoint");
    let embedded = QaldTask::new(root().join(GOLD))
        .system(&format!("{}", root().join(SYSTEM).display()))
        .data(root().join(DATA[0]))
        .data(root().join(DATA[1]))
        .run(&NoProgress)
        .expect("embedded");
    assert!(http.table.same_content(&embedded.table));
    let kgeval::Conventions::Qald(conventions) = &http.conventions else { panic!("qald conventions") };
    assert_eq!(conventions.queries.to_string(), format!("endpoint {}", server.url));
}

#[test]
fn gzip_and_stdin_for_gold_systems_and_labels() {
    let reference = kgeval_json(&["qald", "--gold", GOLD, "--system", LABELS_SYSTEM, "--labels", LABELS]);
    let numbers = |v: &serde_json::Value| {
        let s = &v["systems"][0];
        (s["global"].clone(), s["local"].clone(), s["questions"].clone(), s["failed"].clone())
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let zipped = |file: &str| {
        let target = dir.path().join(format!("{}.gz", file.rsplit('/').next().unwrap_or(file)));
        gzip_file(&root().join(file), &target);
        target.to_str().expect("utf-8").to_owned()
    };
    let (gold_gz, system_gz, labels_gz) = (zipped(GOLD), zipped(LABELS_SYSTEM), zipped(LABELS));
    let from_gzip = kgeval_json(&["qald", "--gold", &gold_gz, "--system", &system_gz, "--labels", &labels_gz]);
    assert_eq!(numbers(&from_gzip), numbers(&reference));
    assert_eq!(from_gzip["systems"][0]["system"], "system-labels", "the stem drops .gz and the extension");
    // The gold on stdin (gzip-compressed), then the system on stdin.
    let gold_bytes = std::fs::read(&gold_gz).expect("gzip gold");
    let out = kgeval_stdin(
        &["qald", "--gold", "-", "--system", LABELS_SYSTEM, "--labels", LABELS, "--format", "json"],
        &gold_bytes,
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(numbers(&serde_json::from_slice(&out.stdout).expect("json")), numbers(&reference));
    let system_bytes = std::fs::read(root().join(LABELS_SYSTEM)).expect("system");
    let out =
        kgeval_stdin(&["qald", "--gold", GOLD, "--system", "-", "--labels", LABELS, "--format", "json"], &system_bytes);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!((numbers(&v), v["systems"][0]["system"].as_str()), (numbers(&reference), Some("stdin")));
    // Standard input for two inputs at once is refused.
    let out = kgeval_stdin(&["qald", "--gold", "-", "--system", "-"], &system_bytes);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("standard input (-) for the gold and system 1"), "{stderr}");
    // The facade takes gzip bytes in memory, and a gzip data file for the store.
    let task = QaldTask {
        systems: vec![SystemInput::named("sys", Input::from_bytes("sys.json", gzip_bytes(&root().join(SYSTEM))))],
        data: vec![Input::path(zipped(DATA[0])), Input::path(root().join(DATA[1]))],
        ..QaldTask::new(Input::from_bytes("gold.xml.gz", gold_bytes))
    };
    let evaluation = task.run(&NoProgress).expect("gzip in memory");
    assert_eq!(evaluation.headline("sys", "precision"), Some(5.4 / 6.0));
}

fn gzip_bytes(path: &std::path::Path) -> Vec<u8> {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&std::fs::read(path).expect("read")).expect("gzip");
    encoder.finish().expect("gzip")
}

#[test]
fn fail_under_gates_the_headlines() {
    let args = ["qald", "--gold", GOLD, "--system", SYSTEM, "--data", DATA[0], DATA[1]];
    let v = kgeval_json(&args);
    let mean_f = f(&v["systems"][0]["global"], "mean_f");
    let qald_f = f(&v["systems"][0]["global"], "qald_f");
    assert!(mean_f < qald_f && qald_f < 1.0, "{mean_f} {qald_f}");
    let pass = kgeval(&[&args[..], &["--fail-under", "f1=0.5", "--fail-under", &format!("QALD_F={qald_f}")]].concat());
    assert_eq!(pass.status.code(), Some(0), "{}", String::from_utf8_lossy(&pass.stderr));
    let fail =
        kgeval(&[&args[..], &["--fail-under", &format!("f1={qald_f}"), "--fail-under", "local_recall=1"]].concat());
    assert_eq!(fail.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&fail.stderr);
    assert!(stderr.contains(&format!("fail-under: system system: f1 {mean_f} < {qald_f}")), "{stderr}");
    assert!(!stderr.contains("local_recall"), "{stderr}");
    assert!(!fail.stdout.is_empty(), "the result is still written");
    let unknown = kgeval(&[&args[..], &["--fail-under", "map=0.5"]].concat());
    assert_eq!(unknown.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert!(stderr.contains("expected one of the") && stderr.contains("qald_f"), "{stderr}");
}

/// The examples of `kgeval qald --help`, continuation lines joined, as argument lists.
fn help_examples() -> Vec<Vec<String>> {
    let help = kgeval(&["qald", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout).into_owned();
    let examples = text.split("Examples:").nth(1).expect("an Examples section").replace("\\\n", " ");
    examples
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("kgeval qald "))
        .map(|l| l.split_whitespace().skip(1).map(str::to_owned).collect())
        .collect()
}

#[test]
fn every_help_example_runs() {
    let examples = help_examples();
    assert_eq!(examples.len(), 6, "{examples:?}");
    let data: Vec<_> = DATA.iter().map(|d| root().join(d)).collect();
    let server = start(&[&data[0], &data[1]], Behaviour::Serve);
    let dir = tempfile::tempdir().expect("tempdir");
    let output = dir.path().join("result.json");
    for example in examples {
        let mut args = example.clone();
        for arg in &mut args {
            if arg.starts_with("http://localhost:") {
                arg.clone_from(&server.url);
            } else if arg == "result.json" {
                *arg = output.to_str().expect("utf-8").to_owned();
            }
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = kgeval(&refs);
        assert_eq!(out.status.code(), Some(0), "{example:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&output).expect("the -o example wrote its file")).expect("json");
    assert_eq!(written["systems"][0]["conventions"]["label_map"], "5 IRIs");
}
