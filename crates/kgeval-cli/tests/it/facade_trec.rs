//! `kgeval trec` through the facade: the `TrecTask` of a TOML snippet renders what the CLI
//! prints (JSON, and trec_eval's text byte for byte), its headlines are the summary values,
//! gzip and stdin work for the qrels and the runs, `--fail-under` gates on any summary
//! measure, several runs are labelled in text output, and every `--help` example runs.

use kgeval::trec::TrecTask;
use kgeval::{Input, NoProgress, OutputFormat, RenderOptions, TrecTextLines};

use crate::facade::{assert_same_output, cli_json, json_options, run_toml};
use crate::{gzip_file, kgeval, kgeval_stdin, root};

const T: &str = "testdata/trec_eval/test";

fn read(path: &str) -> Vec<u8> {
    std::fs::read(root().join(path)).expect("testdata file")
}

fn stdout_of(out: &std::process::Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

#[test]
fn trec_task_from_toml_equals_the_cli() {
    let evaluation = run_toml(&format!(
        r#"
family = "trec"
qrels = "{T}/qrels.test"
run = "{T}/results.test"
measures = ["all_trec", "ndcg@10", "mrr@10"]
"#
    ));
    let args = ["trec", "-m", "all_trec", "-m", "ndcg@10", "-m", "mrr@10", &format!("{T}/qrels.test")];
    let cli = cli_json(&[&args[..], &[&format!("{T}/results.test")]].concat());
    assert_same_output(&evaluation.render(OutputFormat::Json, &json_options()), &cli);
    // The golden snapshot of the same command (`cargo xtask fixtures`).
    let golden = String::from_utf8(read("testdata/golden/trec-all-trec.json")).expect("utf-8");
    assert_eq!(
        cli,
        golden.replace(
            "\"kgeval_version\": \"0.0.0\"",
            &format!("\"kgeval_version\": \"{}\"", env!("CARGO_PKG_VERSION"))
        )
    );
    assert_eq!(evaluation.systems, ["results"]);
    let kgeval::Conventions::Trec(options) = &evaluation.conventions else { panic!("trec conventions") };
    assert_eq!(options.relevance_level, 1);
    // Every summary value is a headline under trec_eval's name.
    let v: serde_json::Value = serde_json::from_str(&cli).expect("json");
    let summary = v["runs"][0]["summary"].as_object().expect("summary");
    assert!(summary.len() > 50, "all_trec has {} summary values", summary.len());
    for (measure, value) in summary {
        assert_eq!(evaluation.headline("results", measure), value.as_f64(), "{measure}");
    }
    assert!((evaluation.headline("results", "map").expect("map") - 0.1785).abs() < 5e-5);
    assert_eq!(evaluation.headline("results", "num_q"), Some(3.0));
    let info = |name: &str| evaluation.table.metric_info(evaluation.table.find_metric(name).expect(name));
    assert_eq!(info("gm_map").aggregation, kgeval_model::Aggregation::GeometricMean);
    assert_eq!(info("gm_map").level, kgeval_model::Level::Aggregate);
    assert_eq!(info("num_q").aggregation, kgeval_model::Aggregation::Sum);
    assert_eq!(info("num_rel_ret").aggregation, kgeval_model::Aggregation::Sum);
    assert_eq!(info("P_10").aggregation, kgeval_model::Aggregation::Mean);
    // The topic counts are a note scoped to the run.
    let notes: Vec<_> = evaluation.warnings_of("run results").collect();
    assert_eq!(notes.len(), 1);
    assert!(notes[0].message.starts_with("3 topics evaluated (intersection)"), "{}", notes[0].message);
}

#[test]
fn trec_task_text_is_trec_eval_byte_for_byte() {
    let evaluation =
        run_toml(&format!("family = \"trec\"\nqrels = \"{T}/qrels.test\"\nruns = [\"{T}/results.test\"]\n"));
    let text = evaluation.render(OutputFormat::Text, &RenderOptions::default());
    assert_eq!(text, String::from_utf8(read(&format!("{T}/out.test"))).expect("out.test"));
    // -q -n: per-topic lines only, as the CLI prints them.
    let options =
        RenderOptions { trec_lines: TrecTextLines { per_topic: true, summary: false }, ..RenderOptions::default() };
    let cli = stdout_of(&kgeval(&["trec", "-q", "-n", &format!("{T}/qrels.test"), &format!("{T}/results.test")]));
    assert_eq!(evaluation.render(OutputFormat::Text, &options), cli);
    assert!(cli.lines().all(|l| !l.contains("\tall\t")) && cli.contains("\t301\t"));
}

#[test]
fn gzip_and_stdin_for_qrels_and_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (q, r) = (format!("{T}/qrels.test"), format!("{T}/results.test"));
    let (qgz, rgz) = (dir.path().join("qrels.gz"), dir.path().join("run.gz"));
    gzip_file(&root().join(&q), &qgz);
    gzip_file(&root().join(&r), &rgz);
    let (qgz, rgz) = (qgz.to_str().expect("path"), rgz.to_str().expect("path"));
    let numbers = |json: &str| {
        let v: serde_json::Value = serde_json::from_str(json).expect("json");
        (v["runs"][0]["summary"].clone(), v["runs"][0]["topics"].clone())
    };
    let plain = numbers(&cli_json(&["trec", "-m", "all_trec", &q, &r]));
    assert_eq!(numbers(&cli_json(&["trec", "-m", "all_trec", qgz, rgz])), plain);
    for (args, stdin) in [
        (["trec", "-m", "all_trec", "--format", "json", "-", &r], read(&q)),
        (["trec", "-m", "all_trec", "--format", "json", &q, "-"], read(&r)),
        (["trec", "-m", "all_trec", "--format", "json", &q, "-"], std::fs::read(rgz).expect("gz")),
        (["trec", "-m", "all_trec", "--format", "json", "-", rgz], std::fs::read(qgz).expect("gz")),
    ] {
        assert_eq!(numbers(&stdout_of(&kgeval_stdin(&args, &stdin))), plain, "{args:?}");
    }
    // stdin twice is refused.
    let out = kgeval_stdin(&["trec", "-", "-"], &read(&q));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stdin (-) can be read only once"));
    // The facade on gzip bytes in memory gives the same numbers.
    let mut task = TrecTask::new(Input::from_bytes("qrels.gz", std::fs::read(qgz).expect("gz"))).measure("all_trec");
    task.runs.push(kgeval::SystemInput::named("gz", Input::from_bytes("run.gz", std::fs::read(rgz).expect("gz"))));
    let evaluation = task.run(&NoProgress).expect("evaluation");
    let json = evaluation.render(OutputFormat::Json, &json_options());
    assert_eq!(numbers(&json), plain);
    assert_eq!(evaluation.systems, ["gz"]);
}

#[test]
fn fail_under_gates_any_summary_measure() {
    let (q, r) = (format!("{T}/qrels.test"), format!("{T}/results.test"));
    // map 0.1785, P_10 0.3000, gm_map 0.0704 (out.test).
    let out = kgeval(&[
        "trec",
        &q,
        &r,
        "--fail-under",
        "map=0.17",
        "--fail-under",
        "P_10=0.3",
        "--fail-under",
        "gm_map=0.07",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out = kgeval(&["trec", &q, &r, "--fail-under", "map=0.2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fail-under: system results: map 0.178"));
    assert!(!out.stdout.is_empty(), "the output is written before the gate fails");
    let out = kgeval(&["trec", &q, &r, "--fail-under", "ndcg=0.5"]);
    assert_eq!(out.status.code(), Some(2), "ndcg was not asked for: not a headline");
}

#[test]
fn several_runs_are_labelled_in_text_output() {
    let (q, r, trunc) = (format!("{T}/qrels.test"), format!("{T}/results.test"), format!("{T}/results.trunc"));
    let one = |run: &str| stdout_of(&kgeval(&["trec", "-q", "-m", "map", "-m", "runid", &q, run]));
    let both = stdout_of(&kgeval(&[
        "trec",
        "-q",
        "-m",
        "map",
        "-m",
        "runid",
        &q,
        &format!("full={r}"),
        &format!("cut={trunc}"),
    ]));
    assert_eq!(both, format!("# run: full\n{}# run: cut\n{}", one(&r), one(&trunc)));
    assert!(!one(&r).contains("# run"), "one run: trec_eval's bytes");
    // Stems name unnamed runs; colliding stems fall back to the paths.
    let named = stdout_of(&kgeval(&["trec", "-m", "map", &q, &r, &trunc]));
    assert!(named.starts_with(&format!("# run: {r}\n")), "{named}");
}

/// Every example of `kgeval trec --help` runs from the workspace root (a `gzip -c FILE |`
/// or `cat FILE |` prefix feeds FILE's bytes, gzip-compressed or not, on stdin).
#[test]
fn help_examples_run() {
    let help = stdout_of(&kgeval(&["trec", "--help"]));
    let examples = help.split("Examples:\n").nth(1).expect("an Examples section");
    let mut commands: Vec<String> = Vec::new();
    let mut continued = false;
    for line in examples.lines().take_while(|l| !l.trim().is_empty()) {
        let line = line.trim();
        let text = line.trim_end_matches('\\').trim();
        if continued {
            let last = commands.last_mut().expect("a command");
            last.push(' ');
            last.push_str(text);
        } else {
            commands.push(text.to_owned());
        }
        continued = line.ends_with('\\');
    }
    assert!(commands.len() >= 5, "{commands:?}");
    let dir = tempfile::tempdir().expect("tempdir");
    for command in &commands {
        let (stdin, command) = match command.split_once(" | ") {
            Some((feed, rest)) => {
                let words: Vec<&str> = feed.split_whitespace().collect();
                let file = root().join(words.last().expect("a file"));
                let bytes = match words[0] {
                    "gzip" => {
                        let gz = dir.path().join("stdin.gz");
                        gzip_file(&file, &gz);
                        std::fs::read(gz).expect("gz")
                    }
                    "cat" => std::fs::read(&file).expect("file"),
                    other => panic!("{command}: unknown feed {other}"),
                };
                (Some(bytes), rest)
            }
            None => (None, command.as_str()),
        };
        let args: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(args[0], "kgeval", "{command}");
        let out = match &stdin {
            Some(bytes) => kgeval_stdin(&args[1..], bytes),
            None => kgeval(&args[1..]),
        };
        assert!(out.status.success(), "{command}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{command}");
    }
}
