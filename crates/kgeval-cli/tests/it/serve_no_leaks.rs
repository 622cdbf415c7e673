//! What a team reads carries no server path and no gold answer: every page and API answer a
//! team can reach in the bundled QALD-3 campaign — rehearsed in its training phase (per-item
//! feedback) and in its blind test phase — after valid, malformed and gold-unfit uploads, is
//! searched for the server's folders and for every answer of the gold.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::root;
use crate::serve::{data, Served};

/// Every `<uri>` answer of the QALD-3 test gold (the gold the test phase scores against) and
/// of the training gold.
fn gold_answers() -> BTreeSet<String> {
    let mut answers = BTreeSet::new();
    for gold in ["testdata/qald/qald3/dbpedia-test-answers.xml", "testdata/qald/qald3/dbpedia-train-answers.xml"] {
        let text = std::fs::read_to_string(data(gold)).expect("the gold");
        for piece in text.split("<uri>").skip(1) {
            if let Some((answer, _)) = piece.split_once("</uri>") {
                answers.insert(answer.trim().to_owned());
            }
        }
    }
    assert!(answers.len() > 1000, "{}", answers.len());
    answers
}

/// Fails when `body` (what `what` answered) holds a server folder or a gold answer.
fn assert_clean(what: &str, body: &str, folders: &[String], answers: &BTreeSet<String>) {
    for folder in folders {
        assert!(!body.contains(folder.as_str()), "{what} holds the server path {folder}:\n{body}");
    }
    if let Some(answer) = answers.iter().find(|a| body.contains(a.as_str())) {
        panic!("{what} holds the gold answer {answer}:\n{body}");
    }
}

/// Every page and API answer the team with `token` can reach, after its uploads `ids`.
fn reachable(server: &Served, token: &str, ids: &[i64]) -> Vec<(String, String)> {
    let cookie = format!("kgeval_token={token}");
    let mut paths: Vec<String> = [
        "/",
        "/tasks/qa-train",
        "/tasks/qa-test",
        "/tasks/lexicon",
        "/submit",
        "/login",
        "/register",
        "/admin",
        "/api/health",
        "/api/submissions",
        "/api/submissions.csv",
        "/api/tasks/qa-train/leaderboard",
        "/api/tasks/qa-test/leaderboard",
        "/api/tasks/lexicon/leaderboard.csv",
        "/no/such/page",
    ]
    .map(str::to_owned)
    .to_vec();
    for id in ids {
        paths.extend([
            format!("/submissions/{id}"),
            format!("/api/submissions/{id}"),
            format!("/api/submissions/{id}/items.csv"),
        ]);
    }
    paths
        .into_iter()
        .map(|path| {
            let (_, body, _) = server.request("GET", &path, &[("Cookie", &cookie)], None);
            (path, body)
        })
        .collect()
}

#[test]
fn a_team_reads_no_server_path_and_no_gold_answer() {
    let answers = gold_answers();
    let campaign = root().join("testdata/campaigns/serve-qald3.toml");
    for (now, task) in [("2013-04-20T12:00:00Z", "qa-train"), ("2013-05-05T00:00:00Z", "qa-test")] {
        let server = Served::start_file_with(&campaign, &["--now", now]);
        let folders = vec![root().display().to_string(), server.dir.path().display().to_string()];
        let token = server.add_team("Team A", false);
        let questions = std::fs::read(data("testdata/qald/qald3/dbpedia-test-questions.xml")).expect("data");
        let malformed = b"<?xml version=\"1.0\"?>\n<dataset id=\"x\">\n<question id=\"1\">\n".to_vec();
        // Questions the gold does not have: an error about how the upload fits the gold.
        let unfit =
            b"<dataset id=\"x\"><question id=\"99999\"><string lang=\"en\">Who?</string></question></dataset>".to_vec();
        let lexicon = std::fs::read(data("testdata/lemon/qald3-dbpedia-test-lexicon-en.ttl")).expect("data");
        let mut ids = Vec::new();
        for (target, bytes) in [(task, &questions), (task, &malformed), (task, &unfit), ("lexicon", &lexicon)] {
            let (_, answer, _) = server.upload(target, Some(&token), bytes);
            assert_clean(&format!("{now}: the upload answer"), &answer.to_string(), &folders, &answers);
            ids.extend(answer["id"].as_i64());
        }
        assert!(ids.len() >= 3, "{ids:?}");
        for (path, body) in reachable(&server, &token, &ids) {
            assert_clean(&format!("{now}: {path}"), &body, &folders, &answers);
        }
        // The organiser's desk shows no server path either.
        let organiser = server.add_team("organisers", true);
        let (_, desk, _) = server.request("GET", "/admin", &[("Cookie", &format!("kgeval_token={organiser}"))], None);
        assert!(desk.contains("Team A"), "{desk}");
        for folder in &folders {
            assert!(!desk.contains(folder.as_str()), "/admin holds {folder}");
        }
        let health: Value = serde_json::from_str(&server.get("/api/health", None).1).expect("JSON");
        assert_eq!(health["rehearsal"], true);
    }
}
