//! Issue 27, item 8: the small stumbles of a first hour, each reproduced.

use crate::kgeval;

fn stdout(args: &[&str]) -> String {
    let out = kgeval(args);
    assert!(out.status.success(), "{}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

fn refused(args: &[&str]) -> String {
    let out = kgeval(args);
    assert_eq!(out.status.code(), Some(2), "{}", args.join(" "));
    String::from_utf8(out.stderr).expect("utf-8")
}

#[test]
fn tsv_is_offered_by_trec_only() {
    let align = stdout(&["align", "--help"]);
    let formats = align.split("--format <FORMAT>").nth(1).expect("--format").split("\n  -").next().expect("help");
    assert!(formats.contains("markdown") && !formats.contains("tsv"), "{formats}");
    assert!(stdout(&["trec", "--help"]).contains("--format tsv writes the CSV with tabs"));
}

#[test]
fn bad_format_and_gate_are_refused_before_any_input_is_read() {
    // The inputs do not exist: an error naming them would mean they were read first.
    let missing = ["--reference", "no-such-reference.rdf", "--system", "no-such-system.rdf"];
    let tsv = refused(&[&["align", "--format", "tsv"][..], &missing[..]].concat());
    assert!(tsv.contains("--format tsv: found `kgeval align`, expected `kgeval trec`"), "{tsv}");
    let gate = refused(&[&["align", "--fail-under", "foo"][..], &missing[..]].concat());
    assert!(gate.contains("foo") && !gate.contains("no-such-reference"), "{gate}");
    let trec = refused(&["trec", "-m", "map", "--fail-under", "map=high", "no-such-qrels", "no-such-run"]);
    assert!(!trec.contains("no-such-qrels"), "{trec}");
    // A metric no family has, refused before the (missing) inputs are read.
    let unknown = refused(&[&["align", "--fail-under", "foo=0.5"][..], &missing[..]].concat());
    assert!(unknown.contains("--fail-under: found metric \"foo\"") && !unknown.contains("no-such"), "{unknown}");
}

#[test]
fn pool_subcommands_show_their_own_examples() {
    let build = stdout(&["pool", "build", "--help"]);
    let ingest = stdout(&["pool", "ingest", "--help"]);
    let series = stdout(&["pool", "series", "--help"]);
    assert!(build.contains("kgeval pool build --depth 2") && !build.contains("kgeval pool ingest"), "{build}");
    assert!(ingest.contains("kgeval pool ingest --judgments") && !ingest.contains("kgeval pool build"), "{ingest}");
    assert!(series.contains("kgeval pool series --test") && !series.contains("kgeval pool ingest"), "{series}");
    // `kgeval pool --help` still shows all three.
    let pool = stdout(&["pool", "--help"]);
    assert!(["pool build", "pool ingest", "pool series"].iter().all(|c| pool.contains(c)), "{pool}");
}

#[test]
fn bioml_profile_names_its_own_nil() {
    let text = stdout(&[
        "rank",
        "--profile",
        "bioml",
        "--gold",
        "testdata/ranking/oaei-bioml-eval-contract/equivalence-local-gold.tsv",
        "--system",
        "testdata/ranking/oaei-bioml-eval-contract/equivalence-local-submission.tsv",
    ]);
    let header = text.lines().next().expect("header");
    assert!(header.contains("NIL UnMatched;") && !header.contains("diso"), "{header}");
}

#[test]
fn qald3_num_is_counted_as_number() {
    // The QALD-3 DBpedia test set spells one numeric question's answertype `num`, 13 `number`.
    let markdown = stdout(&[
        "qald",
        "--gold",
        "testdata/qald/qald3/dbpedia-test-answers.xml",
        "--system",
        "testdata/qald/qald3/dbpedia-test-answers.xml",
        "--format",
        "markdown",
    ]);
    assert!(!markdown.contains("answertype=num |"), "{markdown}");
    assert!(markdown.contains("| answertype=number | 14 |"), "{markdown}");
}

#[test]
fn run_counts_the_warnings_on_stderr() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let run = kgeval(&["run", "testdata/campaigns/diso.toml", "-o", out.to_str().expect("utf-8")]);
    assert!(run.status.success());
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("warning: task task1: 17 warning(s) (17 duplicate-cell); listed in "), "{stderr}");
    assert!(stderr.contains("warning: task task2: 7 warning(s) (6 sibling-gold, 1 identical-pools)"), "{stderr}");
}
