//! `kgeval serve --now`: the bundled campaigns, whose dates lie in the past or the future,
//! run as shipped in a rehearsal — the server's clock starts at the given time, phases and
//! limits follow it, every page and `/api/health` say so — and the server says at start which
//! phase is open. The README's serve block runs as written.

use std::process::Command;

use serde_json::Value;

use crate::root;
use crate::serve::{data, Served};

const QALD3: &str = "testdata/campaigns/serve-qald3.toml";
const DISO: &str = "testdata/campaigns/serve-diso.toml";

fn health(server: &Served) -> Value {
    let (code, body) = server.get("/api/health", None);
    assert_eq!(code, 200, "{body}");
    serde_json::from_str(&body).expect("JSON")
}

#[test]
fn qald3_rehearses_its_training_phase_as_shipped() {
    let server = Served::start_file_with(&root().join(QALD3), &["--now", "2013-04-20T12:00:00Z"]);
    assert_eq!(
        server.status,
        "rehearsal (the clock started at 2013-04-20T12:00:00Z): \
         phase training is open until 2013-05-01T00:00:00Z, 10 days 12 hours left"
    );
    let health = health(&server);
    assert_eq!((health["phase"].as_str(), health["rehearsal"].as_bool()), (Some("training"), Some(true)), "{health}");
    assert!(health["now"].as_str().is_some_and(|now| now.starts_with("2013-04-20T12:")), "{health}");
    let token = server.add_team("Team A", false);
    let gold = std::fs::read(data("testdata/qald/qald3/dbpedia-train-answers.xml")).expect("data");
    let (code, answer, _) = server.upload("qa-train", Some(&token), &gold);
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["scores"]["qald_f"].as_f64(), Some(1.0), "{answer}");
    assert_eq!(answer["received"].as_str().map(|at| &at[..10]), Some("2013-04-20"), "dated by the rehearsal: {answer}");
    // Per question: its text from the gold, on the page and in the CSV.
    let id = answer["id"].as_i64().expect("an id");
    let cookie = format!("kgeval_token={token}");
    let (_, page, _) = server.request("GET", &format!("/submissions/{id}"), &[("Cookie", &cookie)], None);
    let question =
        "<td class=\"text\">4</td><td class=\"text question\">Which river does the Brooklyn Bridge cross?</td>";
    assert!(page.contains(question), "{page}");
    let (_, csv) = server.get(&format!("/api/submissions/{id}/items.csv"), Some(&token));
    assert!(csv.starts_with("item,question,"), "{csv}");
    assert!(csv.contains("\n4,Which river does the Brooklyn Bridge cross?,"), "{csv}");
    // The live board tests qald_f on each question's F, as the export does.
    let (_, board) = server.get("/api/tasks/qa-train/leaderboard", None);
    let board: Value = serde_json::from_str(&board).expect("JSON");
    let marks: Vec<(Option<&str>, Option<&str>)> =
        board["rows"].as_array().expect("rows").iter().map(|r| (r["letter"].as_str(), r["beats"].as_str())).collect();
    assert_eq!(marks, [(Some("a"), Some("b")), (Some("b"), Some(""))], "{board}");
    let row = &board["rows"][0];
    assert!(row["submitted"].as_str().is_some_and(|at| at.starts_with("2013-04-20T12:")), "{row}");
    assert_eq!((row["uploads"].as_u64(), board["rows"][1]["submitted"].is_null()), (Some(1), true), "{board}");
    let significance = board["significance"].as_str().unwrap_or_default();
    assert!(significance.contains("on per-item values of f1 (qald_f has no per-item values"), "{significance}");
    // On the page, rank, team, system and the primary metric come first (a phone shows them
    // before it scrolls), with the letters beside the primary; then when and how often.
    let (_, page) = server.get("/tasks/qa-train", None);
    let head = "<th>Rank</th><th class=\"text\">Team</th><th class=\"text\">System</th><th title=\"primary metric\">qald_f ★</th><th class=\"text\" title=\"significance letter\">Letter</th>";
    assert!(page.contains(head), "{page}");
    assert!(page.contains("<td class=\"text\">2013-04-20 12:00"), "the submission's date: {page}");
    let lexicon = std::fs::read(data("testdata/lemon/qald3-dbpedia-test-lexicon-en.ttl")).expect("data");
    assert_eq!(server.upload("lexicon", Some(&token), &lexicon).0, 201);
    // Another family's file is named as such before the reader's line.
    let (code, refused, _) = server.upload("lexicon", Some(&token), &gold);
    let error = refused["error"].as_str().unwrap_or_default();
    assert_eq!(code, 422, "{refused}");
    assert!(
        error.starts_with("the upload looks like QALD XML, and this task takes a lemon lexicon (Turtle): ")
            && error.contains("upload:4:1: invalid Turtle"),
        "{error}"
    );
    // The test phase opens on May 1st: its task is closed.
    assert_eq!(server.upload("qa-test", Some(&token), &gold).0, 404);
    for page in ["/", "/tasks/qa-train", "/submit", "/login"] {
        let (code, html) = server.get(page, None);
        assert_eq!(code, 200, "{page}");
        assert!(html.contains("<strong>Rehearsal</strong>: the server's clock reads 2013-04-20 12:"), "{page}: {html}");
    }
    let (_, index) = server.get("/", None);
    let open = "Phase <strong>training</strong> is open until 2013-05-01 00:00 UTC: 10 days 12 hours left.";
    assert!(index.contains(open), "{index}");
}

#[test]
fn without_now_the_server_says_the_campaign_is_over() {
    let server = Served::start_file(&root().join(QALD3));
    assert_eq!(server.status, "the campaign is over: its last phase, test, closed at 2013-05-18T00:00:00Z");
    let health = health(&server);
    assert_eq!((health["phase"].as_str(), health["rehearsal"].as_bool()), (None, Some(false)), "{health}");
    let (_, html) = server.get("/", None);
    assert!(!html.contains("Rehearsal"), "{html}");
    assert!(html.contains("The campaign is over."), "{html}");
}

#[test]
fn diso_rehearses_both_phases_as_shipped() {
    let validation = Served::start_file_with(&root().join(DISO), &["--now", "2026-07-01"]);
    assert!(validation.status.starts_with("rehearsal (the clock started at 2026-07-01T00:00:00Z): phase validation is open until 2026-09-01T00:00:00Z, 62 days"), "{}", validation.status);
    let token = validation.add_team("Team A", false);
    let alignment = std::fs::read(data("testdata/diso/brick-smartenv/Rapprox.rdf")).expect("data");
    let (code, answer, _) = validation.upload("task1", Some(&token), &alignment);
    assert_eq!((code, answer["status"].as_str()), (201, Some("scored")), "{answer}");
    // A ranking that leaves queries out: the error speaks of the upload, not of a CLI flag.
    let uco = std::fs::read(data("testdata/ranking/diso-synthetic/uco-stix/lexical.jsonl")).expect("data");
    let first_line = uco.split(|&b| b == b'\n').next().expect("a line").to_vec();
    let body = crate::serve_pages::form(&[
        ("uco-stix", Some("u.jsonl"), &first_line),
        ("stix-d3fend", Some("s.jsonl"), &first_line),
    ]);
    let auth = format!("Bearer {token}");
    let (code, answer, _) = validation.request(
        "POST",
        "/api/tasks/task2/submissions",
        &[crate::serve_pages::FORM_TYPE, ("Authorization", &auth)],
        Some(&body),
    );
    assert_eq!(code, 422, "{answer}");
    assert!(answer.contains("missing from the submission") && !answer.contains("--"), "{answer}");
    // A malformed alignment: the reader's line without its command-line hint.
    let text = String::from_utf8(alignment.clone()).expect("UTF-8");
    let amp = text.replacen("rdf:resource=\"https://", "rdf:resource=\"https://a&b", 1);
    let (code, answer, _) = validation.upload("task1", Some(&token), amp.as_bytes());
    let error = answer["error"].as_str().unwrap_or_default();
    assert_eq!(code, 422, "{answer}");
    assert!(error.contains("brick-smartenv:53:41: raw '&' in attribute value") && !error.contains("--"), "{error}");
    let final_phase = Served::start_file_with(&root().join(DISO), &["--now", "2026-09-15T08:00:00Z"]);
    assert!(final_phase.status.contains("phase final is open until 2026-10-01T00:00:00Z"), "{}", final_phase.status);
    let token = final_phase.add_team("Team A", false);
    let (code, answer, _) = final_phase.upload("task1", Some(&token), &alignment);
    assert_eq!((code, answer["status"].as_str()), (201, Some("received")), "blind: {answer}");
}

#[test]
fn a_bad_now_is_a_usage_error() {
    let output = crate::serve::serve_command(&root().join(QALD3), &["--now", "April 2013"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("found `April 2013`, expected an RFC 3339 time"), "{stderr}");
}

/// The `$ ` lines of the README's serve block, its continuation lines joined, with the output
/// lines after each.
fn readme_commands() -> Vec<(String, Vec<String>)> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let section = readme.split("## Serving a campaign").nth(1).expect("a serve section");
    let block = section.split("```console\n").nth(1).and_then(|b| b.split("```").next()).expect("a console block");
    let mut commands: Vec<(String, Vec<String>)> = Vec::new();
    let mut continued = false;
    for line in block.lines() {
        if let Some(command) = line.strip_prefix("$ ") {
            commands.push((command.trim_end_matches('\\').trim().to_owned(), Vec::new()));
        } else if let Some((command, _)) = commands.last_mut().filter(|_| continued) {
            command.push(' ');
            command.push_str(line.trim_end_matches('\\').trim());
        } else if let Some((_, output)) = commands.last_mut() {
            output.push(line.to_owned());
        }
        continued = line.ends_with('\\');
    }
    commands
}

/// The README's serve block as written, in a folder that links `testdata/`: the team's token
/// from the first line, the server from the second (on a free port: its lines as shown, the
/// address apart), the upload answered as shown.
#[test]
fn the_readme_serve_block_runs_as_written() {
    let commands = readme_commands();
    let [(add_team, _), (serve, printed), (upload, answer)] = &commands[..] else {
        panic!("expected three commands, found {commands:?}")
    };
    let dir = tempfile::tempdir().expect("a folder");
    std::os::unix::fs::symlink(root().join("testdata"), dir.path().join("testdata")).expect("linked");
    let args = |command: &str| -> Vec<String> {
        let command = command.strip_prefix("kgeval ").unwrap_or_else(|| panic!("a kgeval command: {command}"));
        shell_words(command)
    };
    let output =
        Command::new(env!("CARGO_BIN_EXE_kgeval")).args(args(add_team)).current_dir(dir.path()).output().expect("run");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let token = String::from_utf8(output.stdout).expect("UTF-8").trim().to_owned();

    let serve = args(serve);
    assert_eq!(&serve[..2], ["serve", QALD3]);
    let server = Served::start_in(dir.path(), &serve[1..]);
    assert_eq!(printed.len(), 2, "{printed:?}");
    assert_eq!(printed[0], "listening on http://127.0.0.1:8080");
    assert_eq!(server.status, printed[1]);

    let output = Command::new("bash")
        .arg("-c")
        .arg(upload.replace("http://127.0.0.1:8080", &server.url))
        .env("TOKEN", &token)
        .current_dir(dir.path())
        .output()
        .expect("curl");
    let got: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)));
    let shown = answer.join("\n");
    let shown: Value = serde_json::from_str(&shown.replace(",...}", "}")).unwrap_or_else(|e| panic!("{e}: {shown}"));
    for (key, value) in shown.as_object().expect("an object") {
        assert_eq!(&got[key], value, "{key}: {got}");
    }
    assert_eq!(got["scores"]["qald_f"].as_f64(), Some(1.0), "{got}");
}

/// `text` split as the shell splits words (double quotes only, as the README writes them).
fn shell_words(text: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted) = (Vec::new(), String::new(), false);
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => words.extend((!word.is_empty()).then(|| std::mem::take(&mut word))),
            c => word.push(c),
        }
    }
    words.extend((!word.is_empty()).then_some(word));
    words
}

/// `--export --phase NAME` exports that phase's leaderboards: a validation upload is in the
/// validation phase's report, not in the final phase's (the one current at `--now`).
#[test]
fn the_export_takes_a_phase() {
    let campaign = root().join(DISO);
    let server = Served::start_file_with(&campaign, &["--now", "2026-07-01"]);
    let token = server.add_team("Team A", false);
    let alignment = std::fs::read(data("testdata/diso/brick-smartenv/Rapprox.rdf")).expect("data");
    assert_eq!(server.upload("task1", Some(&token), &alignment).0, 201);
    let db = server.dir.path().join("campaign.sqlite");
    let db = db.to_str().expect("UTF-8");
    let systems = |phase: Option<&str>| -> Vec<String> {
        let out = tempfile::tempdir().expect("a folder");
        let report = out.path().join("report");
        let mut args = vec!["--db", db, "--now", "2026-09-15", "--export", report.to_str().expect("UTF-8")];
        args.extend(phase.map(|p| ["--phase", p]).into_iter().flatten());
        let output = crate::serve::serve_command(&campaign, &args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let results: Value =
            serde_json::from_slice(&std::fs::read(report.join("results.json")).expect("results")).expect("JSON");
        let task1 =
            results["tasks"].as_array().expect("tasks").iter().find(|t| t["name"] == "task1").expect("task1").clone();
        let mut names: Vec<String> = task1["result"]["systems"]
            .as_array()
            .map_or_else(Vec::new, |s| s.iter().filter_map(|s| s["system"].as_str().map(str::to_owned)).collect());
        names.sort();
        names
    };
    assert_eq!(systems(Some("validation")), ["Rapprox (baseline)", "Team A"]);
    assert_eq!(systems(None), ["Rapprox (baseline)"], "the final phase has no upload");
    let never = tempfile::tempdir().expect("a folder");
    let never = never.path().join("report");
    let args = ["--db", db, "--export", never.to_str().expect("UTF-8"), "--phase", "nope"];
    let output = crate::serve::serve_command(&campaign, &args);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr)
        .contains("--phase: found \"nope\", expected one of the phases: validation, final"));
    assert!(!never.exists(), "nothing written");
}
