//! `kgeval serve --export DIR` and `--rescore` on the real binary: the exported report equals
//! `kgeval run` on a manifest listing the same files, value for value; rescoring after a gold
//! change adds rows, switches the leaderboard and prints the diff with Kendall's tau.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::serve::{data, open_phase, serve_command, Served};

/// A campaign in `dir` on a copy of trec_eval's test qrels (`qrels.txt`), with a baseline.
fn campaign(dir: &Path) -> PathBuf {
    std::fs::copy(data("testdata/trec_eval/test/qrels.test"), dir.join("qrels.txt")).expect("qrels");
    std::fs::copy(data("testdata/trec_eval/test/results.trunc"), dir.join("trunc.run")).expect("baseline");
    let text = format!(
        "title = \"Export demo\"\n[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"qrels.txt\"\n\
         measures = [\"map\", \"P.10\"]\nprimary = \"map\"\n[serve]\n{}\
         [[serve.baseline]]\ntask = \"adhoc\"\nname = \"trunc\"\nfile = \"trunc.run\"\n",
        open_phase("p", "")
    );
    let file = dir.join("campaign.toml");
    std::fs::write(&file, text).expect("campaign");
    file
}

fn bytes(path: &str) -> Vec<u8> {
    std::fs::read(data(path)).expect("bundled data")
}

/// The blob of an upload's answer.
fn blob(db: &Path, upload: &Value) -> PathBuf {
    let sha = upload["sha256"].as_str().expect("a sha256");
    db.with_file_name("campaign.sqlite.blobs").join(&sha[..2]).join(sha)
}

#[test]
fn the_export_equals_kgeval_run_on_the_same_files() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = campaign(dir.path());
    let server = Served::start_file(&file);
    let db = server.dir.path().join("campaign.sqlite");
    let (a, b) = (server.add_team("A", false), server.add_team("B", false));
    let full = bytes("testdata/trec_eval/test/results.test");
    let one = bytes("testdata/trec_eval/test/results-302.test");
    // A's best is its first upload; B's only one names its system. B's run holds one topic,
    // its best: a served trec task counts every judged topic (trec_eval -c), so it does not
    // top the board.
    let (code, first, _) = server.upload("adhoc", Some(&a), &full);
    assert_eq!(code, 201, "{first}");
    assert_eq!(server.upload("adhoc", Some(&a), &bytes("testdata/trec_eval/test/results.trunc")).0, 201);
    let (code, second) = server.upload_named("adhoc", &b, "bm25 rm3", &one);
    assert_eq!(code, 201, "{second}");

    let out = server.dir.path().join("report");
    let output = serve_command(&file, &["--db", db.to_str().expect("utf-8"), "--export", out.to_str().expect("utf-8")]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    for name in ["results.json", "report.md", "tables.tex", "index.html"] {
        assert!(out.join(name).is_file(), "{name} missing");
    }
    // The same files in a `kgeval run` manifest, in leaderboard order.
    let manifest = dir.path().join("run.toml");
    std::fs::write(
        &manifest,
        format!(
            "title = \"Export demo\"\n[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"qrels.txt\"\n\
             measures = [\"map\", \"P.10\"]\ncomplete = true\nruns = [{:?}, {:?}, {:?}]\ncompare = {{ missing = \"zero\" }}\n",
            format!("A={}", blob(&db, &first).display()),
            format!("B: bm25 rm3={}", blob(&db, &second).display()),
            format!("trunc (baseline)={}", dir.path().join("trunc.run").display()),
        ),
    )
    .expect("manifest");
    let expected = server.dir.path().join("expected");
    let run = crate::kgeval(&["run", manifest.to_str().expect("utf-8"), "-o", expected.to_str().expect("utf-8")]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let read = |dir: &Path| -> Value {
        serde_json::from_slice(&std::fs::read(dir.join("results.json")).expect("results.json")).expect("JSON")
    };
    let (exported, expected) = (read(&out), read(&expected));
    let tasks = |v: &Value| v["tasks"].clone();
    assert!(tasks(&exported).as_array().is_some_and(|t| t.len() == 1), "{exported}");
    assert_eq!(tasks(&exported), tasks(&expected));
    let systems: Vec<&str> = exported["tasks"][0]["result"]["runs"]
        .as_array()
        .map(|runs| runs.iter().filter_map(|r| r["run"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(systems, ["A", "B: bm25 rm3", "trunc (baseline)"], "{exported}");
    // A second export into the same folder replaces it; a folder holding the campaign is refused.
    let again = serve_command(&file, &["--db", db.to_str().expect("utf-8"), "--export", out.to_str().expect("utf-8")]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let refused =
        serve_command(&file, &["--db", db.to_str().expect("utf-8"), "--export", dir.path().to_str().expect("utf-8")]);
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
}

#[test]
fn rescoring_after_a_gold_change_adds_rows_and_reports_the_diff() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = campaign(dir.path());
    let db = dir.path().join("campaign.sqlite");
    let db_arg = db.to_str().expect("utf-8").to_owned();
    let server = Served::start_on(&file, &db);
    let (a, b) = (server.add_team("A", false), server.add_team("B", false));
    let (code, up_a, _) = server.upload("adhoc", Some(&a), &bytes("testdata/trec_eval/test/results.test"));
    assert_eq!(code, 201, "{up_a}");
    let (code, up_b, _) = server.upload("adhoc", Some(&b), &bytes("testdata/trec_eval/test/results-302.test"));
    assert_eq!(code, 201, "{up_b}");
    let old_a = up_a["scores"]["map"].as_f64().expect("map");
    drop(server);

    // The gold changes: topic 301 loses its judgements.
    let qrels = std::fs::read_to_string(dir.path().join("qrels.txt")).expect("qrels");
    let old_board = leaderboard_map(&file, &db, "A");
    assert_eq!(old_board, old_a);
    let old_trunc = leaderboard_map(&file, &db, "organisers");
    let changed: String = qrels.lines().filter(|l| !l.starts_with("301 ")).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.path().join("qrels.txt"), &changed).expect("qrels");
    let output = serve_command(&file, &["--db", &db_arg, "--rescore"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let diff = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(diff.starts_with("task adhoc, phase p: 2 submission(s) rescored, kgeval "), "{diff}");
    // `kgeval trec` on the new gold gives the new values.
    let new_a = crate::kgeval_json(&[
        "trec",
        dir.path().join("qrels.txt").to_str().expect("utf-8"),
        "testdata/trec_eval/test/results.test",
        "-m",
        "map",
    ])["runs"][0]["summary"]["map"]
        .as_f64()
        .expect("map");
    assert_ne!(old_a, new_a);
    assert!(diff.contains(&format!("\nA\t{old_a}\t{new_a}\t")), "{diff}");
    // The baseline's value recorded under the old gold, and its value now (the leaderboard's
    // before and after).
    let new_trunc = leaderboard_map(&file, &db, "organisers");
    assert_ne!(old_trunc, new_trunc);
    assert!(diff.contains(&format!("\norganisers: trunc (baseline)\t{old_trunc}\t{new_trunc}\t")), "{diff}");
    // B (on topic 302 only) stays ahead of A: the same ordering.
    assert!(diff.contains("Kendall's tau-b between the old and new orderings: 1\n"), "{diff}");
    // Rescoring again adds nothing.
    let again = serve_command(&file, &["--db", &db_arg, "--rescore"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains(": 0 submission(s) rescored"));

    // The restarted server shows the new values.
    assert_eq!(leaderboard_map(&file, &db, "A"), new_a);
    // The old rows are still there: back on the old gold, the server shows the old values
    // and a rescore finds every submission scored.
    std::fs::write(dir.path().join("qrels.txt"), &qrels).expect("qrels");
    assert_eq!(leaderboard_map(&file, &db, "A"), old_a);
    let back = serve_command(&file, &["--db", &db_arg, "--rescore"]);
    let back = String::from_utf8_lossy(&back.stdout).into_owned();
    assert!(
        back.contains(": 0 submission(s) rescored") && back.contains(&format!("\nA\t{new_a}\t{old_a}\t")),
        "{back}"
    );
}

/// `team`'s map (`organisers`: the baseline's) on the leaderboard of a server started on
/// `file` and `db` (stopped after).
fn leaderboard_map(file: &Path, db: &Path, team: &str) -> f64 {
    let server = Served::start_on(file, db);
    let (code, board) = server.get("/api/tasks/adhoc/leaderboard", None);
    assert_eq!(code, 200, "{board}");
    let board: Value = serde_json::from_str(&board).expect("JSON");
    let row = board["rows"].as_array().and_then(|r| r.iter().find(|r| r["team"] == team)).cloned();
    row.and_then(|r| r["scores"]["map"].as_f64()).unwrap_or_else(|| panic!("no row of {team}: {board}"))
}
