//! The library front door: each family's `Task`, written as a TOML manifest row, gives the
//! `Evaluation` whose rendering is byte for byte what the CLI prints for the same inputs; the
//! envelope's table carries the headlines under the canonical names.

use kgeval::{Family, NoProgress, OutputFormat, RenderOptions, Task};

use crate::{kgeval, root};

/// Runs a task given as TOML (paths relative to the workspace root).
pub(crate) fn run_toml(toml: &str) -> kgeval::Evaluation {
    let task = Task::from_toml(toml, "task.toml").expect("task");
    task.resolved(&root()).run(&NoProgress).expect("evaluation")
}

/// The CLI's JSON for `args`, as bytes.
pub(crate) fn cli_json(args: &[&str]) -> String {
    let out = kgeval(&[args, &["--format", "json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

pub(crate) fn json_options() -> RenderOptions {
    RenderOptions { version: env!("CARGO_PKG_VERSION").to_owned(), ..RenderOptions::default() }
}

/// Asserts that the task's rendering equals the CLI's output (the task's paths are absolute,
/// the CLI's relative to the workspace root), showing the first differing line.
pub(crate) fn assert_same_output(task: &str, cli: &str) {
    let task = task.replace(&format!("{}/", root().display()), "");
    if task != cli {
        let (i, (a, b)) = task
            .lines()
            .zip(cli.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .unwrap_or((0, ("(length differs)", "")));
        panic!("task and CLI outputs differ at line {}: {a:?} vs {b:?}", i + 1);
    }
}

#[test]
fn lexicon_task_from_toml_equals_the_cli() {
    let evaluation = run_toml(
        r#"
family = "lexicon"
gold = "testdata/lemon/matoll-foaf.ttl"
uris = "testdata/lemon/matoll-foaf-uris.txt"
systems = ["testdata/lemon/matoll-foaf_2.ttl", "three=testdata/lemon/matoll-foaf_3.ttl"]
mode = "qald3-script"
"#,
    );
    let cli = cli_json(&[
        "lexicon",
        "--gold",
        "testdata/lemon/matoll-foaf.ttl",
        "--uris",
        "testdata/lemon/matoll-foaf-uris.txt",
        "--system",
        "testdata/lemon/matoll-foaf_2.ttl",
        "--system",
        "three=testdata/lemon/matoll-foaf_3.ttl",
        "--mode",
        "qald3-script",
    ]);
    assert_same_output(&evaluation.render(OutputFormat::Json, &json_options()), &cli);
    assert_eq!(evaluation.family, Family::Lexicon);
    assert_eq!(evaluation.systems, ["matoll-foaf_2", "three"]);
    let v: serde_json::Value = serde_json::from_str(&cli).expect("json");
    for (i, system) in evaluation.systems.iter().enumerate() {
        let average = &v["systems"][i]["average"];
        assert_eq!(evaluation.headline(system, "f1"), average["f1"].as_f64(), "{system}");
        assert_eq!(evaluation.headline(system, "micro_recall"), v["systems"][i]["micro"]["recall"].as_f64());
    }
    let kgeval::Conventions::Lexicon(conventions) = &evaluation.conventions else { panic!("lexicon conventions") };
    assert_eq!(conventions.listed_uris, 5, "the five URIs of matoll-foaf-uris.txt");
    assert!(evaluation.warnings.iter().all(|w| w.scope.starts_with("system ") || w.scope == "gold"));
}
