//! The task's options, defaults and headlines.

use super::*;
use crate::{from_toml, NoProgress, Task};

fn task(toml: &str) -> Result<QaldTask, Error> {
    match from_toml::<Task>(&format!("family = \"qald\"\ngold = \"g.xml\"\n{toml}"), "t.toml")? {
        Task::Qald(task) => Ok(task),
        other => panic!("{:?}", other.family()),
    }
}

#[test]
fn defaults_are_decided_here() {
    let t = task("system = \"s.json\"").expect("task");
    assert_eq!((t.rule, t.language.as_str(), t.timeout), (QaldRule::Qald3, "en", 60.0));
    assert_eq!(t.max_rows, DEFAULT_MAX_ROWS);
    assert_eq!(t.normalisation, Normalisation::default());
    assert!(t.data.is_empty() && t.endpoint.is_none() && t.labels.is_none() && !t.gold_from_queries);
    let t = task(
        "systems = [\"A=a.json\", \"b.xml\"]\nrule = \"gerbil-qald\"\nlanguage = \"de\"\ntimeout = 5\nmax_rows = 7\n\
         data = \"d.ttl.gz\"\n[normalisation]\ntrim = false\nrespect_literal_type = true\n",
    )
    .expect("task");
    assert_eq!((t.rule, t.language.as_str(), t.timeout), (QaldRule::Gerbil, "de", 5.0));
    assert_eq!(t.max_rows, 7);
    assert_eq!(t.systems[0].name.as_deref(), Some("A"));
    assert_eq!(t.data, [Input::path("d.ttl.gz")]);
    let n = t.normalisation;
    assert!(!n.trim && n.respect_literal_type && n.date_part && n.boolean_case);
}

#[test]
fn manifest_errors_are_located() {
    let e = task("system = \"s.json\"\nrule = \"qald9\"").expect_err("bad rule");
    // (The family tag buffers the row, so positions inside a task are the row's.)
    assert!(e.to_string().starts_with("t.toml:") && e.to_string().contains("qald3, qald6 or gerbil"), "{e}");
    let e = task("system = \"s.json\"\n[normalisation]\ntrimm = false").expect_err("unknown switch");
    assert!(e.to_string().contains("unknown field `trimm`"), "{e}");
    assert!(task("system = \"s.json\"\nsparql = \"x\"").is_err());
}

#[test]
fn options_that_cannot_run_are_refused_before_reading() {
    let refused = |t: QaldTask| t.run(&NoProgress).expect_err("refused").to_string();
    assert!(refused(QaldTask::new("g.xml")).contains("expected at least one system"));
    let mut t = QaldTask::new("g.xml").system("s.json");
    t.timeout = 0.0;
    assert!(refused(t).contains("expected a positive number of seconds, found 0"));
    let mut t = QaldTask::new("g.xml").system("s.json");
    t.timeout = 1e300;
    assert!(refused(t).contains("expected a positive number of seconds, found 1000000000"));
    for rows in [0, MAX_MAX_ROWS + 1] {
        let mut t = QaldTask::new("g.xml").system("s.json");
        t.max_rows = rows;
        assert_eq!(refused(t), format!("--max-rows: found {rows}, expected 1 to 10000000 rows"));
    }
    let mut t = QaldTask::new("g.xml").system("s.json").data("d.ttl");
    t.endpoint = Some("http://x.org/sparql".into());
    assert!(refused(t).contains("expected one of them"));
    let t = QaldTask::new("-").system("-");
    assert!(refused(t).contains("standard input (-) for the gold and system 1"));
}

#[test]
fn normalisation_switches_by_name() {
    let n = normalisation_with(&[("trim", false), ("respect_literal_type", true)]).expect("switches");
    assert!(!n.trim && n.respect_literal_type && n.boolean_case && n.date_part);
    assert_eq!(normalisation_with(&[]).expect("none"), Normalisation::default());
    let e = normalisation_with(&[("trimm", false)]).expect_err("unknown");
    assert!(e.to_string().contains("found switch \"trimm\", expected one of trim, boolean_case"), "{e}");
}

#[test]
fn in_memory_inputs_with_headlines() {
    let gold = br#"<dataset><question id="1"><answers><answer><uri>http://x.org/a</uri></answer>
        <answer><uri>http://x.org/b</uri></answer></answers></question>
        <question id="2"><answers><answer><number>2</number></answer></answers></question></dataset>"#;
    let system = br#"{"questions": [{"id": "1", "answers": [{"head": {"vars": ["uri"]},
        "results": {"bindings": [{"uri": {"type": "uri", "value": "http://x.org/a"}}]}}]}]}"#;
    let mut t = QaldTask::new(Input::from_bytes("gold.xml", gold.to_vec()));
    t.systems.push(SystemInput::new(Input::from_bytes("run.json", system.to_vec())));
    let e = t.run(&NoProgress).expect("evaluation");
    assert_eq!(e.systems, ["run"]);
    let h = |m: &str| e.headline("run", m).expect(m);
    // q1: P 1, R 0.5, F 2/3; q2 not processed: 0.
    assert_eq!((h("precision"), h("recall"), h("f1")), (0.5, 0.25, 1.0 / 3.0));
    assert_eq!(h("qald_f"), 2.0 * 0.5 * 0.25 / 0.75);
    assert_eq!((h("micro_precision"), h("micro_recall")), (1.0, 1.0 / 3.0));
    assert_eq!((h("local_precision"), h("local_recall")), (1.0, 0.5));
    let info = e.table.metric_info(e.table.find_metric("micro_f1").expect("micro_f1"));
    assert_eq!(info.to_string(), "higher is better, micro, aggregate");
    let Conventions::Qald(c) = &e.conventions else { panic!("qald conventions") };
    assert_eq!(c.queries, QueryExecution::NotExecuted);
}
