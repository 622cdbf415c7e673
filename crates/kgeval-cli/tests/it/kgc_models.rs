//! Several KGC systems side by side (issue 27 item 7): repeated `--ranks`, `--scores` and
//! `--run` in one `kgeval kgc` call, and a list of systems in a campaign manifest, with the
//! names in every output format; a wrong manifest shape is one located, plain line.

use crate::{kgeval, kgeval_json, root};

const MINI: &str = "testdata/kgc/mini";

/// `kgeval kgc` on the mini case with the dense-score inputs and `systems` flags, in `format`
/// (`json`: none, [`kgeval_json`] adds it).
fn mini_args<'a>(format: &'a str, systems: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "kgc",
        "--test",
        "testdata/kgc/mini/test.txt",
        "--filter",
        "testdata/kgc/mini/train.txt",
        "--entities",
        "testdata/kgc/mini/entities.txt",
        "--questions",
        "testdata/kgc/mini/questions.txt",
        "--k",
        "1",
        "--nan",
        "worst",
    ];
    if format != "json" {
        args.extend(["--format", format]);
    }
    args.extend_from_slice(systems);
    args
}

fn stdout(args: &[&str]) -> String {
    let out = kgeval(args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

const TWO_SCORES: [&str; 4] =
    ["--scores", "TransE=testdata/kgc/mini/scores.npy", "--scores", "RotatE=testdata/kgc/mini/scores-float64.npy"];

#[test]
fn two_score_matrices_in_one_call_are_two_systems_in_every_format() {
    let json = kgeval_json(&mini_args("json", &TWO_SCORES));
    let systems = json["systems"].as_array().expect("systems");
    let names: Vec<&str> = systems.iter().map(|s| s["system"].as_str().expect("name")).collect();
    assert_eq!(names, ["TransE", "RotatE"]);
    // Each equals the same matrix evaluated alone.
    for (system, spec) in
        systems.iter().zip(["TransE=testdata/kgc/mini/scores.npy", "RotatE=testdata/kgc/mini/scores-float64.npy"])
    {
        let alone = kgeval_json(&mini_args("json", &["--scores", spec]));
        assert_eq!(system, &alone["systems"][0], "{spec}");
    }
    let text = stdout(&mini_args("text", &TWO_SCORES));
    assert!(text.starts_with("kgeval kgc: 2 systems side by side (scope both): TransE, RotatE\n"), "{text}");
    assert!(text.contains("\nmetric "), "{text}");
    assert!(text.contains("kgeval kgc: system TransE;") && text.contains("kgeval kgc: system RotatE;"), "{text}");
    let markdown = stdout(&mini_args("markdown", &TWO_SCORES));
    assert!(markdown.contains("| metric | TransE | RotatE |\n"), "{markdown}");
    assert!(markdown.contains("### System `TransE`\n") && markdown.contains("### System `RotatE`\n"), "{markdown}");
    let csv = stdout(&mini_args("csv", &TWO_SCORES));
    assert!(csv.contains("\nTransE,both,micro_mrr,") && csv.contains("\nRotatE,both,micro_mrr,"), "{csv}");
}

#[test]
fn ranks_scores_and_runs_mix_in_one_call() {
    let json = kgeval_json(&mini_args(
        "json",
        &[
            "--ranks",
            "testdata/kgc/mini/ranks.tsv",
            "--ranks",
            "again=testdata/kgc/mini/ranks.tsv",
            "--scores",
            "TransE=testdata/kgc/mini/scores.npy",
            "--run",
            "testdata/kgc/mini/run.txt",
            "--queries",
            "testdata/kgc/mini/questions.txt",
        ],
    ));
    let names: Vec<&str> =
        json["systems"].as_array().expect("systems").iter().map(|s| s["system"].as_str().expect("name")).collect();
    assert_eq!(names, ["ranks", "again", "TransE", "run"]);
    assert_eq!(json["systems"][0]["scopes"], json["systems"][1]["scopes"], "the same ranks, the same values");
}

#[test]
fn two_systems_of_one_name_are_refused() {
    let out = kgeval(&mini_args(
        "text",
        &["--scores", "A=testdata/kgc/mini/scores.npy", "--ranks", "A=testdata/kgc/mini/ranks.tsv"],
    ));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("error: found two systems named \"A\""), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(out.stdout.is_empty());
}

/// A campaign of one KGC task naming its systems as a list (`scores = ["TransE=…", …]`).
fn campaign(systems: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mini = root().join(MINI);
    let at = |file: &str| mini.join(file).display().to_string().replace('\\', "/");
    let text = format!(
        "title = \"models\"\n\n[[task]]\nname = \"mini\"\nfamily = \"kgc\"\ntest = \"{}\"\nfilters = [\"{}\"]\nentities = \"{}\"\nquestions = \"{}\"\nnan = \"worst\"\nk = [1]\n{systems}\n",
        at("test.txt"),
        at("train.txt"),
        at("entities.txt"),
        at("questions.txt"),
    );
    let manifest = dir.path().join("camp.toml");
    std::fs::write(&manifest, text).expect("manifest");
    (dir, manifest)
}

#[test]
fn a_manifest_list_of_score_matrices_runs_every_model() {
    // Once `camp.toml:…: data did not match any variant of untagged enum Spec`.
    let mini = root().join(MINI);
    let systems = format!(
        "scores = [\"TransE={}\", {{ name = \"RotatE\", path = \"{}\" }}]",
        mini.join("scores.npy").display(),
        mini.join("scores-float64.npy").display()
    );
    let (dir, manifest) = campaign(&systems.replace('\\', "/"));
    let out_dir = dir.path().join("out");
    let out = kgeval(&["run", manifest.to_str().expect("utf-8"), "-o", out_dir.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = std::fs::read_to_string(out_dir.join("mini.csv")).expect("the task's CSV");
    assert!(csv.contains("TransE") && csv.contains("RotatE"), "{csv}");
}

#[test]
fn a_wrong_manifest_shape_is_one_located_plain_line() {
    for (systems, line, column, message) in [
        (
            "scores = [1, 2]",
            12,
            11,
            "invalid type: integer `1`, expected \"PATH\", \"NAME=PATH\" or a table { name = \"…\", path = \"…\" }",
        ),
        (
            "scores = [[\"a.npy\"]]",
            12,
            11,
            "invalid type: sequence, expected \"PATH\", \"NAME=PATH\" or a table { name = \"…\", path = \"…\" }",
        ),
        (
            "scores = [{ name = \"A\", path = [\"a.npy\"] }]",
            12,
            32,
            "invalid type: sequence, expected a path \"FILE\" or an inline file { name = \"…\", text = \"…\" }",
        ),
    ] {
        let (dir, manifest) = campaign(systems);
        let out_dir = dir.path().join("out");
        let file = manifest.to_str().expect("utf-8");
        let out = kgeval(&["run", file, "-o", out_dir.to_str().expect("utf-8")]);
        assert_eq!(out.status.code(), Some(2), "{systems}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr, format!("error: {file}:{line}:{column}: {message}\n"), "{systems}");
        assert!(!stderr.contains("untagged"), "{stderr}");
        assert!(!out_dir.exists(), "{systems}: no output directory");
    }
}
