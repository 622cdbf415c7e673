//! `kgeval serve` on the DISO families (and KGC ranks): the bundled `serve-diso.toml` (Task 1 alignment, Task 2
//! local ranking over two pairs) starts and its baselines score as `kgeval align` / `kgeval
//! rank`; with its phases moved to now, multipart uploads (one part per pair, a `name` part)
//! score as the CLI on the same files, a malformed part is located by its pair's name (never
//! the client's file name), and the leaderboards show the teams and the baselines, marked.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::serve::Served;
use crate::serve_pages::{form, FORM_TYPE};
use crate::{kgeval_json, root};

const CAMPAIGN: &str = "testdata/campaigns/serve-diso.toml";
const REFERENCE: &str = "testdata/diso/brick-smartenv/Rplus.rdf";

/// `kgeval align --profile diso`'s micro P/R/F of `system` against R+ (brick-smartenv).
fn align(system: &str) -> Value {
    let json = kgeval_json(&["align", "--profile", "diso", "--reference", REFERENCE, "--system", system]);
    json["systems"][0]["micro"]["primary"].clone()
}

/// `kgeval rank --manifest` on the bundled Task 2 pools and gold with `submissions` (one file
/// per pair, uco-stix then stix-d3fend): its MACRO block.
pub(crate) fn rank(dir: &Path, submissions: [&Path; 2]) -> Value {
    let manifest = dir.join("task2.toml");
    let data = root().join("testdata/ranking");
    let mut text = String::from("profile = \"diso\"\nsystem = \"cli\"\n");
    for (pair, submission) in ["uco-stix", "stix-d3fend"].iter().zip(submissions) {
        text.push_str(&format!(
            "[[pair]]\nname = \"{pair}\"\npools = {:?}\ngold = {:?}\nsubmission = {:?}\n",
            data.join(format!("diso-oaei/pools/{pair}/pools.jsonl")),
            data.join(format!("diso-synthetic/{pair}/gold.tsv")),
            submission
        ));
    }
    std::fs::write(&manifest, text).expect("manifest written");
    kgeval_json(&["rank", "--manifest", manifest.to_str().expect("UTF-8")])["MACRO"].clone()
}

fn lexical(pair: &str) -> PathBuf {
    root().join(format!("testdata/ranking/diso-synthetic/{pair}/lexical.jsonl"))
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("bundled data")
}

/// The leaderboard rows of `path` as `token` reads them.
fn rows(server: &Served, path: &str, token: &str) -> Vec<Value> {
    let (code, body) = server.get(path, Some(token));
    assert_eq!(code, 200, "{path}: {body}");
    let board: Value = serde_json::from_str(&body).expect("JSON");
    board["rows"].as_array().cloned().unwrap_or_default()
}

/// `POST /api/tasks/TASK/submissions` of a form: status and JSON.
fn upload_form(server: &Served, task: &str, token: &str, fields: &[(&str, Option<&str>, &[u8])]) -> (u16, Value) {
    let auth = format!("Bearer {token}");
    let (code, body, _) = server.request(
        "POST",
        &format!("/api/tasks/{task}/submissions"),
        &[FORM_TYPE, ("Authorization", &auth)],
        Some(&form(fields)),
    );
    (code, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}")))
}

#[test]
fn the_bundled_diso_campaign_serves_its_baselines() {
    let server = Served::start_file(&root().join(CAMPAIGN));
    let organiser = server.add_team("org", true);
    let task1 = rows(&server, "/api/tasks/task1/leaderboard?phase=validation", &organiser);
    assert_eq!(task1.len(), 1);
    assert_eq!((task1[0]["baseline"].as_bool(), task1[0]["system"].as_str()), (Some(true), Some("Rapprox")));
    let cli = align("testdata/diso/brick-smartenv/Rapprox.rdf");
    for metric in ["precision", "recall", "f1"] {
        assert_eq!(task1[0]["scores"][metric].as_f64(), cli[metric].as_f64(), "{metric}: {cli}");
    }
    let task2 = rows(&server, "/api/tasks/task2/leaderboard?phase=final", &organiser);
    assert_eq!(task2.len(), 1);
    let dir = tempfile::tempdir().expect("a folder");
    let cli = rank(dir.path(), [&lexical("uco-stix"), &lexical("stix-d3fend")]);
    assert_eq!(task2[0]["scores"]["recip_rank"].as_f64(), cli["mrr"].as_f64(), "{cli}");
    assert_eq!(task2[0]["scores"]["hits@1"].as_f64(), cli["hits_at_1"].as_f64(), "{cli}");
}

#[test]
fn multipart_uploads_score_as_kgeval_align_and_rank() {
    let dir = tempfile::tempdir().expect("a folder");
    let server = Served::start_file(&open_campaign(dir.path()));
    let (a, b) = (server.add_team("A", false), server.add_team("B", false));

    // Task 1: one part named by the pair, and a `name` part; then the raw body (one pair).
    let incorrect = read(&root().join("testdata/diso/brick-smartenv/incorrect.rdf"));
    let (code, scored) = upload_form(
        &server,
        "task1",
        &a,
        &[("name", None, b"incorrect"), ("brick-smartenv", Some("/home/a/secret/incorrect.rdf"), &incorrect)],
    );
    assert_eq!(code, 201, "{scored}");
    assert_eq!(scored["system"], "incorrect");
    let cli = align("testdata/diso/brick-smartenv/incorrect.rdf");
    for metric in ["precision", "recall", "f1"] {
        assert_eq!(scored["scores"][metric].as_f64(), cli[metric].as_f64(), "{metric}: {cli}");
    }
    assert!(scored["items"].as_array().is_some_and(|i| !i.is_empty()), "per-item feedback: {scored}");
    let (code, raw, _) = server.upload("task1", Some(&b), &read(&root().join(REFERENCE)));
    assert_eq!((code, raw["scores"]["f1"].as_f64()), (201, align(REFERENCE)["f1"].as_f64()), "{raw}");
    // A malformed alignment is located by the pair's name, never the client's file name, and
    // the XML guard refuses an external entity where it is declared.
    let (code, invalid) = upload_form(
        &server,
        "task1",
        &a,
        &[("brick-smartenv", Some("/home/a/secret/x.rdf"), b"<rdf:RDF>\n<Alignment>\n<map")],
    );
    assert_eq!((code, invalid["status"].as_str()), (422, Some("invalid")), "{invalid}");
    let error = invalid["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("brick-smartenv:") && !invalid.to_string().contains("secret"), "{invalid}");
    let xxe = b"<?xml version=\"1.0\"?>\n<!DOCTYPE rdf:RDF [\n<!ENTITY s SYSTEM \"file:///etc/passwd\">\n]>\n<rdf:RDF>&s;</rdf:RDF>\n";
    let (code, guarded) = upload_form(&server, "task1", &a, &[("brick-smartenv", None, xxe)]);
    assert_eq!(code, 422, "{guarded}");
    assert!(
        guarded["error"].as_str().is_some_and(|e| e.starts_with("brick-smartenv:3:1: found external entity")),
        "{guarded}"
    );

    // Task 2: one part per pair, in any order, scored as `kgeval rank` on the same files.
    let (uco, stix) = (read(&lexical("uco-stix")), read(&lexical("stix-d3fend")));
    let (code, scored) = upload_form(
        &server,
        "task2",
        &a,
        &[
            ("stix-d3fend", Some("s.jsonl"), &stix),
            ("uco-stix", Some("u.jsonl"), &uco),
            ("name", None, b"lexical again"),
        ],
    );
    assert_eq!(code, 201, "{scored}");
    let cli = rank(dir.path(), [&lexical("uco-stix"), &lexical("stix-d3fend")]);
    assert_eq!(scored["scores"]["recip_rank"].as_f64(), cli["mrr"].as_f64(), "{cli}");
    assert_eq!(scored["scores"]["hits@10"].as_f64(), cli["hits_at_10"].as_f64(), "{cli}");
    // Another submission: stix-d3fend with every score turned around (1 - score).
    let reversed = crate::serve_load_files::reversed_scores(&stix);
    let reversed_file = dir.path().join("reversed.jsonl");
    std::fs::write(&reversed_file, &reversed).expect("written");
    let (code, other) =
        upload_form(&server, "task2", &b, &[("uco-stix", None, &uco), ("stix-d3fend", None, reversed.as_bytes())]);
    assert_eq!(code, 201, "{other}");
    let cli = rank(dir.path(), [&lexical("uco-stix"), &reversed_file]);
    assert_eq!(other["scores"]["recip_rank"].as_f64(), cli["mrr"].as_f64(), "{cli}");
    // A bad part is located in it, by its pair's name; a missing pair or a raw body is named.
    let (code, invalid) = upload_form(
        &server,
        "task2",
        &a,
        &[("uco-stix", None, &uco), ("stix-d3fend", Some("/tmp/secret.jsonl"), b"{\"qid\": 0, \"ranking\": [\n")],
    );
    assert_eq!(code, 422, "{invalid}");
    assert!(invalid["error"].as_str().is_some_and(|e| e.starts_with("stix-d3fend:1:")), "{invalid}");
    assert!(!invalid.to_string().contains("secret"), "{invalid}");
    // Parts that do not fit the pairs are recorded as invalid, as any invalid upload is.
    for parts in
        [vec![("uco-stix", None, &uco[..])], vec![("uco-stix", None, &uco[..]), ("task1-pair", None, &uco[..])]]
    {
        let (code, misfit) = upload_form(&server, "task2", &a, &parts);
        assert_eq!(code, 422, "{misfit}");
        assert_eq!((misfit["status"].as_str(), misfit["id"].is_i64()), (Some("invalid"), true), "{misfit}");
        let expected = if parts.len() == 1 { "found no part \"stix-d3fend\"" } else { "found part \"task1-pair\"" };
        assert!(misfit["error"].as_str().is_some_and(|e| e.starts_with(expected)), "{misfit}");
    }
    let (code, raw, _) = server.upload("task2", Some(&a), &uco);
    assert_eq!(code, 422, "{raw}");
    assert!(raw["error"].as_str().is_some_and(|e| e.contains("expected one part per pair")), "{raw}");

    // The leaderboard: both teams and the baseline, each marked with a tier and a letter.
    let task2 = rows(&server, "/api/tasks/task2/leaderboard", &a);
    let teams: Vec<(&str, bool)> =
        task2.iter().map(|r| (r["team"].as_str().unwrap_or(""), r["baseline"].as_bool().unwrap_or(false))).collect();
    assert_eq!(teams.len(), 3, "{task2:?}");
    assert!(teams.contains(&("A", false)) && teams.contains(&("B", false)) && teams.iter().any(|t| t.1), "{teams:?}");
    assert!(task2.iter().all(|r| r["letter"].is_string() && r["tier"].is_number()), "{task2:?}");
    let task1 = rows(&server, "/api/tasks/task1/leaderboard", &a);
    assert_eq!(task1.len(), 3, "{task1:?}");
    // Task 1's one pair is one item: its page says no significance test ran, and why.
    let (code, page) = server.get("/tasks/task1", Some(&a));
    assert_eq!(code, 200, "{page}");
    assert!(page.contains("No significance test: one item: no test."), "{page}");

    // The export reads the stored parts back: Task 1 compared as its leaderboard, Task 2 one
    // report task per counted submission (a rank task scores one system), in leaderboard
    // order, each with the value the leaderboard shows.
    let (db, out) = (server.dir.path().join("campaign.sqlite"), dir.path().join("report"));
    let file = dir.path().join("serve-diso.toml");
    let output = crate::serve::serve_command(
        &file,
        &["--db", db.to_str().expect("UTF-8"), "--export", out.to_str().expect("UTF-8")],
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&read(&out.join("results.json"))).expect("JSON");
    let names: Vec<&str> =
        report["tasks"].as_array().expect("tasks").iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["task1", "task2.1", "task2.2", "task2.3"], "{report}");
    for (i, row) in task2.iter().enumerate() {
        let exported = &report["tasks"][i + 1]["result"]["MACRO"]["mrr"];
        assert_eq!(exported.as_f64(), row["scores"]["recip_rank"].as_f64(), "{row}: {exported}");
    }
}

/// The multipart `curl` line of docs/serve.md's DISO section, run as written against a server
/// (its token and address substituted), scores as `kgeval rank` on the same files.
#[test]
fn the_docs_curl_example_uploads_task2() {
    let docs = std::fs::read_to_string(root().join("docs/serve.md")).expect("docs/serve.md");
    let section = docs.split("## DISO").nth(1).expect("a DISO section");
    let block = section.split("```console\n").nth(1).and_then(|b| b.split("```").next()).expect("a console block");
    let command: String = block
        .lines()
        .skip_while(|l| !l.starts_with("$ curl"))
        .take_while(|l| !l.starts_with('{'))
        .map(|l| l.trim_start_matches("$ ").trim_end_matches('\\').trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(command.starts_with("curl ") && command.contains("-F uco-stix=@"), "{command}");
    let dir = tempfile::tempdir().expect("a folder");
    let server = Served::start_file(&open_campaign(dir.path()));
    let token = server.add_team("Team A", false);
    let output = std::process::Command::new("bash")
        .arg("-c")
        .arg(command.replace("http://127.0.0.1:8080", &server.url))
        .env("TOKEN", &token)
        .current_dir(root())
        .output()
        .expect("curl");
    let answer: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)));
    assert_eq!((answer["status"].as_str(), answer["system"].as_str()), (Some("scored"), Some("lexical")), "{answer}");
    let cli = rank(dir.path(), [&lexical("uco-stix"), &lexical("stix-d3fend")]);
    assert_eq!(answer["scores"]["recip_rank"].as_f64(), cli["mrr"].as_f64(), "{cli}");
}

/// The pages' form shows a file field per pair of Task 2 and takes one part per pair: the
/// submission's page shows the score (as the API's), a malformed part its pair's located line.
#[test]
fn the_upload_form_takes_one_file_per_pair() {
    let dir = tempfile::tempdir().expect("a folder");
    let server = Served::start_file(&open_campaign(dir.path()));
    let token = server.add_team("A", false);
    let cookie = format!("kgeval_token={token}");
    let (code, page, _) = server.request("GET", "/submit", &[("Cookie", &cookie)], None);
    assert_eq!(code, 200);
    for pair in ["uco-stix", "stix-d3fend"] {
        assert!(page.contains(&format!("name=\"{pair}\" type=\"file\"")), "{pair}: {page}");
    }
    assert!(!page.contains("name=\"brick-smartenv\""), "a one-pair task takes the File field: {page}");
    let (uco, stix) = (read(&lexical("uco-stix")), read(&lexical("stix-d3fend")));
    let send = |stix: &[u8]| {
        // The browser sends every file field, the empty ones (File, Task 1's) with no bytes.
        let fields: [(&str, Option<&str>, &[u8]); 5] = [
            ("task", None, b"task2"),
            ("system", None, b"lexical"),
            ("file", Some(""), b""),
            ("uco-stix", Some("u.jsonl"), &uco),
            ("stix-d3fend", Some("C:\\secret\\s.jsonl"), stix),
        ];
        server.request("POST", "/submit", &[FORM_TYPE, ("Cookie", &cookie)], Some(&form(&fields)))
    };
    let (code, page, _) = send(&stix);
    assert_eq!(code, 201, "{page}");
    let cli = rank(dir.path(), [&lexical("uco-stix"), &lexical("stix-d3fend")]);
    let mrr = cli["mrr"].as_f64().expect("mrr");
    assert!(page.contains(&format!("{mrr:.4}")) || page.contains(&mrr.to_string()), "{mrr}: {page}");
    let (code, page, _) = send(b"{\"qid\": 0,\n");
    assert_eq!(code, 422, "{page}");
    assert!(page.contains("stix-d3fend:1:") && !page.contains("secret"), "{page}");
}

/// A served `kgc` task: an upload is a ranks file, scored as `kgeval kgc --ranks` on it, with
/// per-question feedback; a malformed line is located in the upload.
#[test]
fn a_kgc_upload_is_a_ranks_file_scored_as_kgeval_kgc() {
    let mini = root().join("testdata/kgc/mini");
    let campaign = format!(
        "[[task]]\nname = \"lp\"\nfamily = \"kgc\"\ntest = {:?}\nfilters = [{:?}]\nprimary = \"micro_mrr\"\n[serve]\n{}",
        mini.join("test.txt"),
        mini.join("train.txt"),
        crate::serve::open_phase("p", "feedback = \"items\"")
    );
    let server = Served::start(&campaign);
    let token = server.add_team("A", false);
    let (code, scored, _) = server.upload("lp", Some(&token), &read(&mini.join("ranks.tsv")));
    assert_eq!(code, 201, "{scored}");
    let cli = kgeval_json(&[
        "kgc",
        "--test",
        "testdata/kgc/mini/test.txt",
        "--filter",
        "testdata/kgc/mini/train.txt",
        "--ranks",
        "testdata/kgc/mini/ranks.tsv",
    ]);
    let both = &cli["systems"][0]["scopes"]["both"];
    for metric in ["micro_mrr", "micro_hits@1", "macro_mrr"] {
        assert_eq!(scored["scores"][metric].as_f64(), both[metric].as_f64(), "{metric}: {both}");
    }
    assert!(scored["items"].as_array().is_some_and(|i| !i.is_empty()), "per-question feedback: {scored}");
    let (code, invalid, _) = server.upload(
        "lp",
        Some(&token),
        b"# filter: train test\nhead\trelation\ttail\tside\trank\ne5\tr0\te0\thead\tx\n",
    );
    assert_eq!(code, 422, "{invalid}");
    assert!(invalid["error"].as_str().is_some_and(|e| e.starts_with("upload:3:")), "{invalid}");
}

/// The bundled campaign with its validation phase open now (paths made absolute).
fn open_campaign(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(root().join(CAMPAIGN)).expect("the campaign");
    let text = text
        .replace("\"../", &format!("\"{}/testdata/", root().display()))
        .replace("2026-06-01T00:00:00Z", "2000-01-01T00:00:00Z")
        .replace("2026-09-01T00:00:00Z", "2100-01-01T00:00:00Z")
        .replace(
            "from = \"2100-01-01T00:00:00Z\"\nuntil = \"2026-10-01T00:00:00Z\"",
            "from = \"2100-01-01T00:00:00Z\"\nuntil = \"2101-01-01T00:00:00Z\"",
        );
    let file = dir.join("serve-diso.toml");
    std::fs::write(&file, text).expect("written");
    file
}
