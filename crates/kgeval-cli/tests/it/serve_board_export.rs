//! One board, one paper: a bundled campaign rehearsed as shipped (`--now`), one upload per
//! open task, and each live leaderboard equals `--export`'s table for the same phase — the
//! same systems in the same order, the same primary values, the same letters, tiers and
//! marks from the same test on the same per-item values.

use std::path::Path;

use serde_json::Value;

use crate::root;
use crate::serve::{data, serve_command, Served};

/// The organiser's leaderboard of `task` in `phase`.
fn board(server: &Served, task: &str, phase: &str, organiser: &str) -> Value {
    let (code, body) = server.get(&format!("/api/tasks/{task}/leaderboard?phase={phase}"), Some(organiser));
    assert_eq!(code, 200, "{body}");
    serde_json::from_str(&body).expect("JSON")
}

/// `--export --phase PHASE` of the server's database: results.json.
fn export(campaign: &Path, server: &Served, now: &str, phase: &str) -> Value {
    let db = server.dir.path().join("campaign.sqlite");
    let out = tempfile::tempdir().expect("a folder");
    let report = out.path().join("report");
    let args = [
        "--db",
        db.to_str().expect("UTF-8"),
        "--now",
        now,
        "--export",
        report.to_str().expect("UTF-8"),
        "--phase",
        phase,
    ];
    let output = serve_command(campaign, &args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&std::fs::read(report.join("results.json")).expect("results.json")).expect("JSON")
}

/// The export's name of a leaderboard row (as `--export` names systems).
fn label(row: &Value) -> String {
    let (team, system) = (row["team"].as_str().unwrap_or_default(), row["system"].as_str().unwrap_or_default());
    if row["baseline"] == true {
        format!("{system} (baseline)")
    } else if team == system {
        team.to_owned()
    } else {
        format!("{team}: {system}")
    }
}

/// A row's system, letter, tier and the letters it beats.
type Marks<'a> = (String, Option<&'a str>, Option<u64>, Option<&'a str>);

/// Checks that the board of `task` equals the export's table: systems, marks, and the
/// per-item metric the test ran on (named in the board's `significance`).
fn assert_same(task: &str, board: &Value, results: &Value) {
    let exported = results["tasks"].as_array().expect("tasks").iter().find(|t| t["name"] == task).expect("the task");
    let rows = board["rows"].as_array().expect("rows");
    let significance = board["significance"].as_str().unwrap_or_default();
    let tested = significance.split("on per-item values of ").nth(1).and_then(|rest| rest.split([' ', ';']).next());
    let Some(tested) = tested else {
        panic!("{task}: the board ran no test: {significance}");
    };
    let metric = exported["compare"]["metrics"]
        .as_array()
        .and_then(|metrics| metrics.iter().find(|m| m["metric"] == tested))
        .unwrap_or_else(|| panic!("{task}: the export tested no {tested}: {exported}"));
    let from_board: Vec<Marks<'_>> =
        rows.iter().map(|r| (label(r), r["letter"].as_str(), r["tier"].as_u64(), r["beats"].as_str())).collect();
    let from_export: Vec<Marks<'_>> = metric["leaderboard"]
        .as_array()
        .expect("a leaderboard")
        .iter()
        .map(|r| {
            (
                r["system"].as_str().unwrap_or_default().to_owned(),
                r["letter"].as_str(),
                r["tier"].as_u64(),
                r["marks"].as_str(),
            )
        })
        .collect();
    assert_eq!(from_board, from_export, "{task}: {significance}");
    // The per-item means the test compared, the same on both sides.
    for row in rows {
        let mean = metric["means"][label(row)].as_f64().expect("a mean");
        let board_mean = row["scores"][tested].as_f64().expect("the headline of the tested metric");
        assert!((mean - board_mean).abs() < 1e-12, "{task}: {}: {mean} vs {board_mean}", label(row));
    }
}

#[test]
fn qald3_training_board_equals_the_export() {
    let campaign = root().join("testdata/campaigns/serve-qald3.toml");
    let now = "2013-04-20T12:00:00Z";
    let server = Served::start_file_with(&campaign, &["--now", now]);
    let organiser = server.add_team("organisers", true);
    let (a, b) = (server.add_team("Team A", false), server.add_team("Team B", false));
    let gold = std::fs::read(data("testdata/qald/qald3/dbpedia-train-answers.xml")).expect("data");
    // Team B answers the first half of the questions as the gold does, the rest not at all.
    let text = String::from_utf8(gold.clone()).expect("UTF-8");
    let half: String = {
        let questions: Vec<&str> = text.split("<question ").collect();
        let keep = questions.len() / 2;
        let mut out = questions[..keep].join("<question ");
        out.push_str("</dataset>\n");
        out
    };
    assert_eq!(server.upload_named("qa-train", &a, "gold", &gold).0, 201);
    assert_eq!(server.upload_named("qa-train", &b, "half", half.as_bytes()).0, 201);
    let lexicon = std::fs::read(data("testdata/lemon/qald3-dbpedia-test-lexicon-en.ttl")).expect("data");
    assert_eq!(server.upload("lexicon", Some(&a), &lexicon).0, 201);
    let results = export(&campaign, &server, "2013-04-21", "training");
    let qa = board(&server, "qa-train", "training", &organiser);
    assert_eq!(qa["rows"].as_array().map(Vec::len), Some(3), "{qa}");
    assert_same("qa-train", &qa, &results);
    let lexicon = board(&server, "lexicon", "training", &organiser);
    assert_same("lexicon", &lexicon, &results);
}

#[test]
fn diso_task1_is_one_item_on_the_board_and_in_the_export() {
    let campaign = root().join("testdata/campaigns/serve-diso.toml");
    let server = Served::start_file_with(&campaign, &["--now", "2026-07-01"]);
    let organiser = server.add_team("organisers", true);
    let token = server.add_team("Team A", false);
    let alignment = std::fs::read(data("testdata/diso/brick-smartenv/Rapprox.rdf")).expect("data");
    assert_eq!(server.upload("task1", Some(&token), &alignment).0, 201);
    let board = board(&server, "task1", "validation", &organiser);
    assert_eq!(board["significance"].as_str(), Some("No significance test: one item: no test"), "{board}");
    let db = server.dir.path().join("campaign.sqlite");
    let out = tempfile::tempdir().expect("a folder");
    let report = out.path().join("report");
    let args =
        ["--db", db.to_str().expect("UTF-8"), "--export", report.to_str().expect("UTF-8"), "--phase", "validation"];
    let output = serve_command(&campaign, &args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let markdown = std::fs::read_to_string(report.join("report.md")).expect("report.md");
    assert!(markdown.contains("One item: no significance test"), "{markdown}");
    assert!(!markdown.contains("failed"), "{markdown}");
    // The values the board shows are the export's.
    let results: Value =
        serde_json::from_slice(&std::fs::read(report.join("results.json")).expect("JSON")).expect("JSON");
    let task1 = results["tasks"].as_array().expect("tasks").iter().find(|t| t["name"] == "task1").expect("task1");
    for row in board["rows"].as_array().expect("rows") {
        let exported = task1["result"]["systems"]
            .as_array()
            .expect("systems")
            .iter()
            .find(|s| s["system"] == label(row).as_str())
            .unwrap_or_else(|| panic!("{}: {task1}", label(row)));
        let f1 = exported["macro"]["primary"]["f1"].as_f64();
        assert_eq!(row["scores"]["f1"].as_f64(), f1, "{}: {exported}", label(row));
    }
}
