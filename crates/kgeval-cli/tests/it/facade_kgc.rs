//! `kgeval kgc` through the facade: a `KgcTask` from TOML renders what the CLI prints, its
//! headlines are the JSON's scope values, gzip and stdin give the same numbers, `--fail-under`
//! gates on headlines, and every `--help` example runs.

use kgeval::kgc::KgcTask;
use kgeval::{Family, NoProgress, OutputFormat, Task};
use kgeval_model::metric_names::{Direction, Level};

use crate::facade::{assert_same_output, cli_json, json_options, run_toml};
use crate::{gzip_file, kgeval, kgeval_stdin, root};

const MINI_ARGS: [&str; 5] = ["kgc", "--test", "testdata/kgc/mini/test.txt", "--filter", "testdata/kgc/mini/train.txt"];

/// Every value of the JSON's `both` scope is a headline of the evaluation's table, equal to
/// the printed number.
fn assert_headlines_are_the_json(evaluation: &kgeval::Evaluation, cli: &str) -> usize {
    let v: serde_json::Value = serde_json::from_str(cli).expect("json");
    let system = v["systems"][0]["system"].as_str().expect("system");
    let both = v["systems"][0]["scopes"]["both"].as_object().expect("both scope");
    assert!(!both.is_empty());
    for (name, value) in both {
        assert_eq!(evaluation.headline(system, name), value.as_f64(), "{system} {name}");
    }
    both.len()
}

#[test]
fn fb15k237_popularity_task_equals_the_cli() {
    let evaluation = run_toml(
        r#"
family = "kgc"
test = "testdata/kgc/fb15k-237/test.txt.gz"
filters = ["testdata/kgc/fb15k-237/train.txt.gz", "testdata/kgc/fb15k-237/valid.txt.gz"]
entities = "testdata/kgc/fb15k-237/entities.txt.gz"
ranks = "testdata/kgc/baseline/popularity-ranks.tsv.gz"
relation_weights = "triples:testdata/kgc/kgc-sparsity/data/FB-Test-S/samples.txt"
"#,
    );
    let cli = cli_json(&[
        "kgc",
        "--test",
        "testdata/kgc/fb15k-237/test.txt.gz",
        "--filter",
        "testdata/kgc/fb15k-237/train.txt.gz",
        "--filter",
        "testdata/kgc/fb15k-237/valid.txt.gz",
        "--entities",
        "testdata/kgc/fb15k-237/entities.txt.gz",
        "--ranks",
        "testdata/kgc/baseline/popularity-ranks.tsv.gz",
        "--relation-weights",
        "triples:testdata/kgc/kgc-sparsity/data/FB-Test-S/samples.txt",
    ]);
    assert_same_output(&evaluation.render(OutputFormat::Json, &json_options()), &cli);
    let golden = std::fs::read_to_string(root().join("testdata/golden/kgc-fb15k237-popularity.json")).expect("golden");
    assert_eq!(cli.replace(env!("CARGO_PKG_VERSION"), "0.0.0"), golden);
    assert_eq!(evaluation.family, Family::Kgc);
    assert_eq!(evaluation.systems, ["popularity-ranks"]);
    let headlines = assert_headlines_are_the_json(&evaluation, &cli);
    // micro 5 (mr, mrr, hits@1,3,10), adjusted 7 + 3 × 3, weighted 5, macro 5, IR 2, answer mean 5.
    assert_eq!(headlines, 38);
    let table = &evaluation.table;
    let info = |name: &str| table.metric_info(table.find_metric(name).expect(name));
    assert_eq!(info("micro_mr").direction, Direction::Lower);
    assert_eq!(info("micro_amr").direction, Direction::Lower);
    assert_eq!(info("macro_mrr").direction, Direction::Higher);
    assert_eq!(info("micro_weighted_hits@10").level, Level::Aggregate);
    assert_eq!(info("map_cut_20").level, Level::Item, "per-question values under the same name");
    let kgeval::Conventions::Kgc(conventions) = &evaluation.conventions else { panic!("kgc conventions") };
    assert_eq!((conventions.entities, conventions.micro_pairs, conventions.macro_questions), (14_541, 40_932, 22_850));
    assert!(conventions.entries().iter().all(|(key, _)| !key.contains(' ')), "snake_case keys");
}

/// PyKEEN's fixture (testdata/kgc/mini) from dense scores and from a run, as manifest rows
/// with every option the CLI has.
#[test]
fn mini_tasks_equal_the_cli() {
    let scores = run_toml(
        r#"
family = "kgc"
test = "testdata/kgc/mini/test.txt"
filter = "testdata/kgc/mini/train.txt"
entities = "testdata/kgc/mini/entities.txt"
scores = "TransE=testdata/kgc/mini/scores.npy"
questions = "testdata/kgc/mini/questions.txt"
ties = "rounded-mean"
nan = "worst"
k = [1, 10]
relation_weights = "uniform"
category_threshold = 1.2
"#,
    );
    let cli = cli_json(
        &[
            &MINI_ARGS[..],
            &[
                "--entities",
                "testdata/kgc/mini/entities.txt",
                "--scores",
                "TransE=testdata/kgc/mini/scores.npy",
                "--questions",
                "testdata/kgc/mini/questions.txt",
                "--ties",
                "rounded-mean",
                "--nan",
                "worst",
                "--k",
                "1,10",
                "--relation-weights",
                "uniform",
                "--category-threshold",
                "1.2",
            ],
        ]
        .concat(),
    );
    assert_same_output(&scores.render(OutputFormat::Json, &json_options()), &cli);
    assert_eq!(scores.systems, ["TransE"]);
    assert_headlines_are_the_json(&scores, &cli);
    let v: serde_json::Value = serde_json::from_str(&cli).expect("json");
    let conventions = &v["systems"][0]["conventions"];
    assert_eq!(conventions["score_ties"], "isclose: |s - t| <= 0.00001 + 0.0001 * |t|", "LibKGE's under rounded-mean");
    assert_eq!(conventions["nan_scores"], "worst");
    assert_eq!(conventions["tie_policy"], "rounded-mean");

    let run = run_toml(
        r#"
family = "kgc"
test = "testdata/kgc/mini/test.txt"
filters = ["testdata/kgc/mini/train.txt"]
run = "testdata/kgc/mini/run.txt"
queries = "testdata/kgc/mini/questions.txt"
judgments = "testdata/kgc/mini/judgments.txt"
pool_depths = "testdata/kgc/mini/pool_depths.txt"
max_depth = 2
ir_measures = ["map_cut.20", "P.5"]
"#,
    );
    let cli = cli_json(
        &[
            &MINI_ARGS[..],
            &[
                "--run",
                "testdata/kgc/mini/run.txt",
                "--queries",
                "testdata/kgc/mini/questions.txt",
                "--judgments",
                "testdata/kgc/mini/judgments.txt",
                "--pool-depths",
                "testdata/kgc/mini/pool_depths.txt",
                "--max-depth",
                "2",
                "--ir-measures",
                "map_cut.20,P.5",
            ],
        ]
        .concat(),
    );
    assert_same_output(&run.render(OutputFormat::Json, &json_options()), &cli);
    assert_eq!(run.systems, ["run"]);
    assert_headlines_are_the_json(&run, &cli);
    let v: serde_json::Value = serde_json::from_str(&cli).expect("json");
    assert_eq!(v["systems"][0]["conventions"]["run_order"], "trec_eval: score descending, then docno descending");
    assert!(v["systems"][0]["scopes"]["both"]["P_5"].is_number());
}

/// Defaults decided by the task, and manifests that do not fit.
#[test]
fn task_defaults_and_invalid_tasks() {
    let task = KgcTask::new("test.txt");
    assert_eq!(task.k, [1, 3, 10]);
    assert_eq!(task.category_threshold, 1.5);
    assert_eq!(task.ir_measures, ["map_cut.20", "ndcg_cut.20"]);
    assert_eq!(task.tolerance(), None, "exact ties under realistic");
    let rounded: Task =
        kgeval::from_toml("family = \"kgc\"\ntest = \"t.txt\"\nties = \"rounded-mean\"\n", "t.toml").expect("task");
    let Task::Kgc(rounded) = rounded else { panic!("kgc task") };
    assert_eq!(rounded.tolerance(), Some(kgeval_model::ranking::Tolerance::LIBKGE));
    let error = |toml: &str| {
        let task: Task = kgeval::from_toml(toml, "t.toml").expect("task");
        task.resolved(&root()).run(&NoProgress).expect_err("invalid task").to_string()
    };
    let base = "family = \"kgc\"\ntest = \"testdata/kgc/mini/test.txt\"\n";
    assert!(error(base).contains("expected an input"));
    let two = format!("{base}ranks = \"testdata/kgc/mini/ranks.tsv\"\nrun = \"testdata/kgc/mini/run.txt\"\nqueries = \"testdata/kgc/mini/questions.txt\"\n");
    // Ranks and a run are two systems side by side (once "expected one system output").
    let task: Task = kgeval::from_toml(&two, "t.toml").expect("task");
    assert_eq!(task.resolved(&root()).run(&NoProgress).expect("two systems").systems, ["ranks", "run"]);
    let same = format!("{base}ranks = [\"A=testdata/kgc/mini/ranks.tsv\", \"A=testdata/kgc/mini/ranks.tsv\"]\n");
    assert!(error(&same).contains("found two systems named \"A\""), "{}", error(&same));
    let scores = format!("{base}scores = \"testdata/kgc/mini/scores.npy\"\n");
    assert!(error(&scores).contains("--questions and --entities"));
    let k0 = format!("{base}ranks = \"testdata/kgc/mini/ranks.tsv\"\nk = [0]\n");
    assert!(error(&k0).contains("positive cut-offs"));
    for bad in ["ties = \"trec_eval\"", "nan = \"zero\"", "tie_tolerance = \"x\"", "system = \"S\""] {
        let toml = format!("{base}ranks = \"testdata/kgc/mini/ranks.tsv\"\n{bad}\n");
        assert!(kgeval::from_toml::<Task>(&toml, "t.toml").is_err(), "{bad}");
    }
}

/// Gzip for every text input and stdin for the system's ranks or run: the same numbers.
#[test]
fn gzip_and_stdin_inputs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let gz = |name: &str| {
        let target = dir.path().join(format!("{name}.gz"));
        gzip_file(&root().join("testdata/kgc/mini").join(name), &target);
        target.to_str().expect("utf-8").to_owned()
    };
    let (test, train, ranks, run, questions) =
        (gz("test.txt"), gz("train.txt"), gz("ranks.tsv"), gz("run.txt"), gz("questions.txt"));
    let scopes = |out: std::process::Output| -> serde_json::Value {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        v["systems"][0]["scopes"].clone()
    };
    let json = ["--format", "json"];
    for (system, file, companion) in [
        (&["--ranks", "testdata/kgc/mini/ranks.tsv"][..], ranks.as_str(), &[][..]),
        (
            &["--run", "testdata/kgc/mini/run.txt", "--queries", "testdata/kgc/mini/questions.txt"][..],
            run.as_str(),
            &["--queries", questions.as_str()][..],
        ),
    ] {
        let plain = scopes(kgeval(&[&MINI_ARGS[..], system, &json].concat()));
        let flag = system[0];
        let gzipped = [&["kgc", "--test", &test, "--filter", &train, flag, file][..], companion, &json].concat();
        assert_eq!(scopes(kgeval(&gzipped)), plain, "{flag} gzip");
        let stdin_args = [&MINI_ARGS[..], &[flag, "mini=-"], &system[2..], &json].concat();
        let bytes = std::fs::read(file).expect("gzip file");
        let out = kgeval_stdin(&stdin_args, &bytes);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(v["systems"][0]["system"], "mini", "NAME=- names the stdin system");
        assert_eq!(v["systems"][0]["scopes"], plain, "{flag} stdin (gzip)");
    }
    // The deprecated --system still names the system.
    let v = scopes_and_name(&[&MINI_ARGS[..], &["--ranks", "testdata/kgc/mini/ranks.tsv", "--system", "S"]].concat());
    assert_eq!(v, "S");
}

fn scopes_and_name(args: &[&str]) -> String {
    let out = kgeval(&[args, &["--format", "json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    v["systems"][0]["system"].as_str().expect("name").to_owned()
}

/// `--fail-under` on the JSON's scope names: higher-is-better fails below, `micro_mr` above.
#[test]
fn fail_under_on_scope_headlines() {
    let ranks = [&MINI_ARGS[..], &["--ranks", "testdata/kgc/mini/ranks.tsv"]].concat();
    let v = crate::kgeval_json(&ranks);
    let both = &v["systems"][0]["scopes"]["both"];
    let (macro_mrr, micro_mr) = (crate::f(both, "macro_mrr"), crate::f(both, "micro_mr"));
    let gate = |specs: &[String]| {
        let mut args = ranks.clone();
        for spec in specs {
            args.extend(["--fail-under", spec.as_str()]);
        }
        kgeval(&args)
    };
    let pass = gate(&[format!("macro_mrr={macro_mrr}"), format!("micro_mr={micro_mr}")]);
    assert_eq!(pass.status.code(), Some(0), "{}", String::from_utf8_lossy(&pass.stderr));
    let fail = gate(&[format!("macro_mrr={}", macro_mrr + 0.01)]);
    assert_eq!(fail.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&fail.stderr);
    assert!(stderr.contains(&format!("fail-under: system ranks: macro_mrr {macro_mrr} < ")), "{stderr}");
    let fail = gate(&[format!("micro_mr={}", micro_mr - 0.5)]);
    assert_eq!(fail.status.code(), Some(1), "lower is better: above the bound fails");
    let stderr = String::from_utf8_lossy(&fail.stderr);
    assert!(stderr.contains(&format!("fail-under: system ranks: micro_mr {micro_mr} > ")), "{stderr}");
    let unknown = gate(&["mrr=0.1".to_owned()]);
    assert_eq!(
        unknown.status.code(),
        Some(2),
        "no headline named mrr in kgc: {}",
        String::from_utf8_lossy(&unknown.stderr)
    );
}

/// Every example of `kgeval kgc --help` runs from the workspace root.
#[test]
fn help_examples_run() {
    let help = kgeval(&["kgc", "--help"]);
    let help = String::from_utf8(help.stdout).expect("utf-8");
    let examples = help.split("Examples:\n").nth(1).expect("examples").split("\n\n").next().expect("examples");
    let commands: Vec<String> = examples.replace("\\\n", " ").lines().map(|l| l.trim().to_owned()).collect();
    assert_eq!(commands.len(), 5, "{examples}");
    for command in &commands {
        let args: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(args[0], "kgeval");
        let out = kgeval(&args[1..]);
        assert!(out.status.success(), "{command}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{command}");
    }
}
