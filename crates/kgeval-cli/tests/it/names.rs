//! Names that would be misread: empty system or pair names, and `MICRO` / `MACRO` (any case),
//! which name the aggregate rows, given to a pair or a system.

use std::path::Path;

use crate::kgeval;

/// Runs `kgeval args`, expects exit 2 and `message` on stderr.
fn refused(args: &[&str], message: &str) {
    let run = kgeval(args);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{}: {stderr}", args.join(" "));
    assert!(stderr.contains(message), "expected {message:?} in {stderr}");
}

/// An align manifest with one pair named `pair` and one system named `system` (both the
/// tutorial's reference), in `dir`.
fn align_manifest(dir: &Path, pair: &str, system: &str) -> String {
    let reference = crate::root().join("testdata/alignment/alignapi/html/tutorial/tutorial1/results/refalign.rdf");
    let r = reference.display();
    let path = dir.join(format!("align-{}.toml", dir.read_dir().expect("dir").count()));
    std::fs::write(
        &path,
        format!("[[pair]]\nname = {pair:?}\nreference = \"{r}\"\n[pair.systems]\n{system:?} = \"{r}\"\n"),
    )
    .expect("manifest");
    path.display().to_string()
}

/// A pair named `MICRO` gave two `MICRO` rows (its own and the aggregate), and `name = ""` an
/// unnamed row: both are errors now, in any case.
#[test]
fn align_pair_names_empty_or_reserved_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    for name in ["MICRO", "macro", "Micro"] {
        let manifest = align_manifest(d, name, "A");
        refused(
            &["align", "--manifest", &manifest],
            &format!("found pair name \"{name}\", expected a name other than MICRO or MACRO"),
        );
    }
    let manifest = align_manifest(d, "", "A");
    refused(&["align", "--manifest", &manifest], "found an empty pair name, expected a name");
    let manifest = align_manifest(d, "t1", "");
    refused(&["align", "--manifest", &manifest], "found an empty system name, expected a name");
    let manifest = align_manifest(d, "t1", "MACRO");
    refused(
        &["align", "--manifest", &manifest],
        "found system name \"MACRO\", expected a name other than MICRO or MACRO",
    );
    // A name that merely contains the word is fine.
    let manifest = align_manifest(d, "micro-pair", "A");
    let run = kgeval(&["align", "--manifest", &manifest]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
}

/// `kgeval trec` and `kgeval pool` name their runs through `system_names`: `NAME=PATH` with a
/// reserved name is refused, in any case.
#[test]
fn run_names_reserved_are_errors() {
    let t = "testdata/trec_eval/test";
    let (qrels, run) = (format!("{t}/qrels.test"), format!("micro={t}/results.test"));
    refused(&["trec", &qrels, &run], "found system name \"micro\", expected a name other than MICRO or MACRO");
    let run = format!("MACRO={t}/results.test");
    refused(&["pool", "build", "--run", &run], "found system name \"MACRO\"");
}

/// `kgeval rank --pair micro` (lower case) collided with the `MICRO` block as `MICRO` did.
#[test]
fn rank_pair_reserved_in_any_case() {
    let dir = "testdata/ranking/oaei-bioml-eval-contract";
    let gold = format!("{dir}/equivalence-local-gold.tsv");
    let submission = format!("{dir}/equivalence-local-submission.tsv");
    for name in ["micro", "Macro"] {
        refused(
            &["rank", "--profile", "bioml", "--gold", &gold, "--submission", &submission, "--pair", name],
            &format!("found pair name \"{name}\", expected a name other than MICRO or MACRO"),
        );
    }
}

#[test]
fn trec_names_are_shown_in_every_format() {
    // Issue 27: `kgeval trec -m map --format markdown QRELS full=RUN1 trunc=RUN2` showed the
    // paths in JSON `"run"`, CSV `run` and the Markdown header, not `full` and `trunc`.
    let qrels = "testdata/trec_eval/test/qrels.test";
    let (full, trunc) = ("full=testdata/trec_eval/test/results.test", "trunc=testdata/trec_eval/test/results.trunc");
    let output = |format: &str| {
        let run = kgeval(&["trec", "-m", "map", "--format", format, qrels, full, trunc]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        String::from_utf8(run.stdout).expect("utf-8")
    };
    let markdown = output("markdown");
    assert!(markdown.starts_with("| measure | full | trunc |\n"), "{markdown}");
    let csv = output("csv");
    assert!(csv.contains("\nfull,STANDARD,all,") && csv.contains("\ntrunc,STANDARD,all,"), "{csv}");
    assert!(!csv.contains("results.t"), "{csv}");
    let json: serde_json::Value = serde_json::from_str(&output("json")).expect("JSON");
    let runs = json["runs"].as_array().expect("runs");
    assert_eq!((runs[0]["run"].as_str(), runs[1]["run"].as_str()), (Some("full"), Some("trunc")));
    assert_eq!(runs[0]["source"], "testdata/trec_eval/test/results.test");
    let text = output("text");
    assert!(text.starts_with("# run: full\n") && text.contains("\n# run: trunc\n"), "{text}");
}
