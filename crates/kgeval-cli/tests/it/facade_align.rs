//! `align` through the facade: an `AlignTask` from TOML renders byte for byte what
//! `kgeval align --format json` prints; its headlines are the JSON's micro and macro numbers;
//! gzip and standard input give the same numbers as plain files.

use kgeval::{Family, NoProgress, OutputFormat, Task};
use serde_json::Value;

use crate::facade::{assert_same_output, cli_json, json_options, run_toml};
use crate::{f, gzip_file, kgeval_json, kgeval_stdin, root};

const CMT_REF: &str = "testdata/alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf";
const CONFERENCE: &str = "testdata/alignment/melt/examples/analyzingMatcherSimilarity/results/conference_conference-v1";

/// Asserts that every system's headlines are the JSON's micro (`precision`, `recall`, `f1`)
/// and macro (`macro_*`) numbers of the primary reference, and of the secondary when present.
fn assert_headlines(evaluation: &kgeval::Evaluation, json: &Value) {
    let systems = json["systems"].as_array().expect("systems");
    assert_eq!(evaluation.systems.len(), systems.len());
    for (name, system) in evaluation.systems.iter().zip(systems) {
        assert_eq!(system["system"].as_str(), Some(name.as_str()));
        for reference in ["primary", "secondary"] {
            let prefix = if reference == "primary" { "" } else { "secondary_" };
            if system["micro"][reference].is_null() {
                assert_eq!(evaluation.headline(name, &format!("{prefix}f1")), None, "{name}");
                continue;
            }
            for key in ["precision", "recall", "f1"] {
                let micro = f(&system["micro"][reference], key);
                let macro_ = f(&system["macro"][reference], key);
                assert_eq!(evaluation.headline(name, &format!("{prefix}{key}")), Some(micro), "{name} {prefix}{key}");
                assert_eq!(evaluation.headline(name, &format!("{prefix}macro_{key}")), Some(macro_), "{name}");
            }
        }
    }
}

/// The OAEI 2018 track file, read as a task (`family = "align"` added), equals the CLI's run
/// of the same manifest: 3 pairs, 14 systems, ontologies, track prefixes.
#[test]
fn track_manifest_as_a_task_equals_the_cli() {
    let text = std::fs::read_to_string(root().join("testdata/tracks/oaei2018.toml")).expect("manifest");
    let task: Task = kgeval::from_toml(&format!("family = \"align\"\n{text}"), "oaei2018.toml").expect("task");
    assert_eq!(task.family(), Family::Align);
    let evaluation = task.resolved(&root().join("testdata/tracks")).run(&NoProgress).expect("evaluation");
    let cli = cli_json(&["align", "--manifest", "testdata/tracks/oaei2018.toml"]);
    assert_same_output(&evaluation.render(OutputFormat::Json, &json_options()), &cli);
    assert_eq!(evaluation.systems.len(), 14);
    assert_eq!(evaluation.systems[0], "conference:ALIN");
    let json: Value = serde_json::from_str(&cli).expect("json");
    assert_headlines(&evaluation, &json);
    let kgeval::Conventions::Align(conventions) = &evaluation.conventions else { panic!("align conventions") };
    assert_eq!(conventions.mode.name(), "complete", "from the manifest's completeness key");
    assert!(evaluation.warnings.iter().any(|w| w.scope == "system conference:FCAMapX, pair cmt-confof"));
}

/// One pair at the top level of the task, two systems (one named by NAME=, one by its stem),
/// a secondary reference, a threshold search and labels.
#[test]
fn single_pair_task_equals_the_cli() {
    let aml = format!("{CONFERENCE}/cmt-conference/AML/systemAlignment.rdf");
    let logmap = format!("{CONFERENCE}/cmt-conference/LogMap/systemAlignment.rdf");
    let evaluation = run_toml(&format!(
        r#"
family = "align"
mode = "complete"
reference = "{CMT_REF}"
secondary = "{CMT_REF}"
systems = ["AML={aml}", "{logmap}"]
best_threshold = true
collect_labels = true
"#
    ));
    let cli = cli_json(&[
        "align",
        "--reference",
        CMT_REF,
        "--secondary",
        CMT_REF,
        "--system",
        &format!("AML={aml}"),
        "--system",
        &logmap,
        "--completeness",
        "complete",
        "--best-threshold",
    ]);
    assert_same_output(&evaluation.render(OutputFormat::Json, &json_options()), &cli);
    assert_eq!(evaluation.systems, ["AML", "systemAlignment"]);
    assert_headlines(&evaluation, &serde_json::from_str(&cli).expect("json"));
    assert_eq!(evaluation.headline("AML", "f1"), Some(0.5925925925925926), "MELT's published AML F1");
    let kgeval::FamilyResult::Align(result) = &evaluation.result else { panic!("align result") };
    let labels = result.labels_tsv.as_deref().expect("labels collected");
    assert_eq!(labels.lines().filter(|l| l.starts_with("AML\tcmt-conference\tTP\t")).count(), 8);
}

/// The task's checks: two systems given one name, two inputs on stdin, a bad completeness.
#[test]
fn task_errors_are_stated() {
    let task = |toml: &str| kgeval::from_toml::<Task>(toml, "task.toml");
    let same_stem = task(&format!(
        "family = \"align\"\nreference = \"{CMT_REF}\"\nsystems = [\"A={CONFERENCE}/cmt-conference/AML/systemAlignment.rdf\", \"A={CONFERENCE}/cmt-conference/LogMap/systemAlignment.rdf\"]\n"
    ))
    .expect("task")
    .resolved(&root())
    .run(&NoProgress)
    .expect_err("two systems named A");
    assert!(format!(
        "{same_stem}: {}",
        std::error::Error::source(&same_stem).map(ToString::to_string).unwrap_or_default()
    )
    .contains("two systems named \"A\""));
    let stdin = task("family = \"align\"\nreference = \"-\"\nsystem = \"-\"\n").expect("task").run(&NoProgress);
    assert!(stdin.expect_err("two stdin inputs").to_string().contains("standard input"));
    let bad = task("family = \"align\"\ncompleteness = \"most\"\nreference = \"r.rdf\"\nsystem = \"s.rdf\"\n");
    assert!(bad.expect_err("bad mode").to_string().contains("expected complete, partial"));
    let none = task("family = \"align\"\nreference = \"r.rdf\"\n");
    assert!(none.expect_err("no system").to_string().contains("names no system"));
}

/// Gzip-compressed and standard-input references and system alignments give the numbers of
/// the plain files.
#[test]
fn gzip_and_stdin_inputs_give_the_same_numbers() {
    let aml = format!("{CONFERENCE}/cmt-conference/AML/systemAlignment.rdf");
    let scores = |json: &Value| json["systems"][0]["pairs"][0]["primary"].clone();
    let plain = kgeval_json(&["align", "--reference", CMT_REF, "--system", &format!("AML={aml}")]);
    let dir = tempfile::tempdir().expect("tempdir");
    let (ref_gz, aml_gz) = (dir.path().join("reference.rdf.gz"), dir.path().join("aml.rdf.gz"));
    gzip_file(&root().join(CMT_REF), &ref_gz);
    gzip_file(&root().join(&aml), &aml_gz);
    let gz = kgeval_json(&[
        "align",
        "--reference",
        ref_gz.to_str().expect("utf-8"),
        "--system",
        &format!("AML={}", aml_gz.display()),
    ]);
    assert_eq!(scores(&gz), scores(&plain));
    assert_eq!(gz["systems"][0]["pairs"][0]["name"], "reference", "the pair is named by the stem without .gz");
    for (args, stdin) in [
        (vec!["align", "--reference", "-", "--system", &format!("AML={aml}")], root().join(CMT_REF)),
        (vec!["align", "--reference", CMT_REF, "--system", "AML=-"], aml_gz),
    ] {
        let out = kgeval_stdin(&[&args[..], &["--format", "json"]].concat(), &std::fs::read(&stdin).expect("read"));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let json: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(scores(&json), scores(&plain), "{args:?}");
    }
}
