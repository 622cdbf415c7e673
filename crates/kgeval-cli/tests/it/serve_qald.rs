//! `kgeval serve` on QALD and lexicon tasks: the bundled QALD-3 campaign starts and its
//! baselines score as `kgeval qald` / `kgeval lexicon` do; an open QALD task scores uploads as
//! `kgeval qald` and refuses a malformed file with its located line.

use serde_json::Value;

use crate::root;
use crate::serve::{data, open_phase, Served};

/// `kgeval FAMILY ARGS --format json`.
fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let output = crate::kgeval(&all);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("JSON")
}

/// `kgeval qald`'s global `key` for `system` against `gold`.
fn qald(gold: &str, system: &str, key: &str) -> f64 {
    json(&["qald", "--gold", gold, "--system", system])["systems"][0]["global"][key].as_f64().expect("a value")
}

fn rows(server: &Served, path: &str) -> Vec<Value> {
    let (code, body) = server.get(path, None);
    assert_eq!(code, 200, "{path}: {body}");
    let board: Value = serde_json::from_str(&body).expect("JSON");
    board["rows"].as_array().cloned().unwrap_or_default()
}

#[test]
fn the_bundled_qald3_campaign_serves_its_baselines() {
    let server = Served::start_file(&root().join("testdata/campaigns/serve-qald3.toml"));
    // 2013's test phase is over and its leaderboard public since May 20: the task's default.
    let test = rows(&server, "/api/tasks/qa-test/leaderboard");
    assert_eq!(test.len(), 1);
    assert_eq!(test[0]["baseline"], true);
    assert_eq!(
        test[0]["scores"]["qald_f"].as_f64(),
        Some(qald(
            "testdata/qald/qald3/dbpedia-test-answers.xml",
            "testdata/qald/qald3/dbpedia-test-questions.xml",
            "qald_f"
        ))
    );
    let training = rows(&server, "/api/tasks/qa-train/leaderboard");
    assert_eq!(
        training[0]["scores"]["qald_f"].as_f64(),
        Some(qald("testdata/qald/qald3/dbpedia-train-answers.xml", "testdata/qald/qald3/dbpedia-train.xml", "qald_f"))
    );
    let lexicon = rows(&server, "/api/tasks/lexicon/leaderboard?phase=training");
    let cli = json(&[
        "lexicon",
        "--gold",
        "testdata/lemon/qald3-dbpedia_train_lexicon_en.ttl",
        "--uris",
        "testdata/lemon/qald3-dbpedia_train_classes_properties.txt",
        "--system",
        "testdata/lemon/qald3-dbpedia-test-lexicon-en.ttl",
    ]);
    assert_eq!(lexicon[0]["scores"]["f1"].as_f64(), cli["systems"][0]["average"]["f1"].as_f64(), "{cli}");
    // Every phase is closed: no upload is taken.
    let token = server.add_team("A", false);
    let answers = std::fs::read(data("testdata/qald/qald3/dbpedia-test-answers.xml")).expect("data");
    assert_eq!(server.upload("qa-test", Some(&token), &answers).0, 404);
}

#[test]
fn an_open_qald_task_scores_uploads_as_kgeval_qald() {
    let campaign = format!(
        "[[task]]\nname = \"qa\"\nfamily = \"qald\"\ngold = {:?}\nprimary = \"qald_f\"\n[serve]\n{}",
        data("testdata/qald/qald3/dbpedia-test-answers.xml"),
        open_phase("training", "feedback = \"items\"")
    );
    let server = Served::start(&campaign);
    let token = server.add_team("A", false);
    let answers = std::fs::read(data("testdata/qald/qald3/dbpedia-test-answers.xml")).expect("data");
    let (code, scored, _) = server.upload("qa", Some(&token), &answers);
    assert_eq!(code, 201, "{scored}");
    let gold = "testdata/qald/qald3/dbpedia-test-answers.xml";
    assert_eq!(scored["scores"]["qald_f"].as_f64(), Some(qald(gold, gold, "qald_f")));
    assert_eq!(scored["scores"]["micro_f1"].as_f64(), Some(qald(gold, gold, "micro_f1")));
    let (code, invalid, _) =
        server.upload("qa", Some(&token), b"<dataset id=\"x\">\n<question id=\"1\">\n</dataset>\n");
    assert_eq!(code, 422, "{invalid}");
    assert!(invalid["error"].as_str().is_some_and(|e| e.starts_with("upload:")), "{invalid}");
}

/// The `--add-team` examples of `kgeval serve --help` run on the bundled campaign (their
/// database in a temporary folder) and print one token each.
#[test]
fn help_examples_add_teams() {
    let help = String::from_utf8(crate::kgeval(&["serve", "--help"]).stdout).expect("UTF-8");
    let examples = help.split("Examples:").nth(1).expect("an Examples section");
    let dir = tempfile::tempdir().expect("a folder");
    let mut tokens = Vec::new();
    for line in examples.lines().map(str::trim).filter(|l| l.starts_with("kgeval serve") && l.contains("--add-team")) {
        let mut args: Vec<String> = Vec::new();
        // Split on spaces but keep a quoted name whole.
        for (i, part) in line.split('"').enumerate() {
            if i % 2 == 1 {
                args.push(part.to_owned());
            } else {
                args.extend(part.split_whitespace().map(str::to_owned));
            }
        }
        let at = args.iter().position(|a| a == "--db").expect("--db") + 1;
        args[at] = dir.path().join(&args[at]).display().to_string();
        let output = crate::kgeval(&args[1..].iter().map(String::as_str).collect::<Vec<_>>());
        assert!(output.status.success(), "{line}: {}", String::from_utf8_lossy(&output.stderr));
        let token = String::from_utf8(output.stdout).expect("UTF-8");
        assert!(token.trim().len() == 64 && token.lines().count() == 1, "{token:?}");
        tokens.push(token);
    }
    assert_eq!(tokens.len(), 2, "{examples}");
    assert_ne!(tokens[0], tokens[1]);
    // The organisers' commands on the same database: the export (the baselines count) and a
    // rescoring (nothing to rescore), each as the help writes it, its paths in the folder.
    let mut ran = 0;
    for line in examples.lines().map(str::trim).filter(|l| l.contains("--export") || l.contains("--rescore")) {
        let line = line.split(" > ").next().unwrap_or(line);
        let mut args: Vec<String> = line.split_whitespace().skip(1).map(str::to_owned).collect();
        for flag in ["--db", "--export"] {
            if let Some(at) = args.iter().position(|a| a == flag) {
                args[at + 1] = dir.path().join(&args[at + 1]).display().to_string();
            }
        }
        let output = crate::kgeval(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(output.status.success(), "{line}: {}", String::from_utf8_lossy(&output.stderr));
        let stdout = String::from_utf8_lossy(&output.stdout);
        if line.contains("--export") {
            assert!(dir.path().join("qald3-report/results.json").is_file(), "{line}: {stdout}");
        } else {
            assert!(stdout.contains("task qa-test, phase test: 0 submission(s) rescored"), "{line}: {stdout}");
        }
        ran += 1;
    }
    assert_eq!(ran, 2, "{examples}");
}

/// An XML upload cannot make the server expand entities without bound ("billion laughs") or
/// read a file it names (an external entity): each is refused at its declaration with the
/// XML guard's located line (422, recorded as invalid, not counted), nothing of the named
/// file comes back, and the server goes on scoring.
#[test]
fn xml_entity_bombs_and_external_entities_are_refused_where_declared() {
    let campaign = format!(
        "[[task]]\nname = \"qa\"\nfamily = \"qald\"\ngold = {:?}\nprimary = \"qald_f\"\n[serve]\n{}",
        data("testdata/qald/qald3/dbpedia-test-answers.xml"),
        open_phase("training", "feedback = \"items\"\nlimit = { total = 1 }")
    );
    let server = Served::start(&campaign);
    let token = server.add_team("A", false);
    // Ten levels of ten references: 10^10 copies of "lol" once expanded.
    let mut bomb = String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE dataset [\n<!ENTITY l0 \"lol\">\n");
    for level in 1..=10 {
        let refs: String = (0..10).map(|_| format!("&l{};", level - 1)).collect();
        bomb.push_str(&format!("<!ENTITY l{level} \"{refs}\">\n"));
    }
    bomb.push_str("]>\n<dataset id=\"x\"><question id=\"1\"><string>&l10;</string></question></dataset>\n");
    let secret = tempfile::NamedTempFile::new().expect("a file");
    std::fs::write(secret.path(), "kgeval-secret-content").expect("written");
    let xxe = format!(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE dataset [\n<!ENTITY s SYSTEM \"file://{}\">\n]>\n\
         <dataset id=\"x\"><question id=\"1\"><string>&s;</string></question></dataset>\n",
        secret.path().display()
    );
    for (what, body, line) in [
        // &l6; is the first entity over 1 MiB: refused where it is declared, line 9.
        ("bomb", bomb.as_bytes(), "upload:9:1: entity expansion limit exceeded"),
        ("external entity", xxe.as_bytes(), "upload:3:1: found external entity &s;"),
    ] {
        let (code, invalid, _) = server.upload("qa", Some(&token), body);
        assert_eq!((code, invalid["status"].as_str()), (422, Some("invalid")), "{what}: {invalid}");
        let error = invalid["error"].as_str().unwrap_or_default();
        assert!(error.starts_with(line), "{what}: {error}");
        assert!(!invalid.to_string().contains("kgeval-secret-content"), "{what} leaked: {invalid}");
        let id = invalid["id"].as_i64().expect("recorded");
        let (code, read) = server.get(&format!("/api/submissions/{id}"), Some(&token));
        assert_eq!(code, 200);
        assert!(read.contains("\"status\":\"invalid\"") && !read.contains("kgeval-secret-content"), "{read}");
    }
    // Neither counted against the limit of one: the real answers still score.
    let answers = std::fs::read(data("testdata/qald/qald3/dbpedia-test-answers.xml")).expect("data");
    let (code, scored, _) = server.upload("qa", Some(&token), &answers);
    assert_eq!((code, scored["scores"]["qald_f"].as_f64()), (201, Some(1.0)), "{scored}");
    assert_eq!(server.get("/api/health", None).0, 200);
}
