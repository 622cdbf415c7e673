//! `kgeval serve` under load, and killed under load (loopback only, bounded: 32 teams × 25
//! uploads, every request with a time limit). Each team's client sends, one after the other,
//! generated TREC runs (`RUN_DOCS` documents per topic of trec_eval's test qrels, ≈ 100 KB;
//! the 5 MB runs are in `cargo xtask bench serve`), one upload in four a QALD-3 answers file
//! (345 KB, the slowest to score in a debug build) and the first and ninth a DISO Task 2
//! submission (`serve-diso.toml`'s local ranking over two pairs: a `multipart/form-data`
//! upload of one part per pair, 1 MB); one upload in five is malformed, against a limit of `LIMIT` counted
//! uploads per task, while a reader polls the three leaderboards. Checked against the database itself: every acknowledged upload is there with
//! its bytes (SHA-256 of the file on disk equal to that of the bytes sent) and its score; no
//! scored row without its score row; counts and 201/422/429 answers exactly as a model of the
//! limits says; no other error; every blob file explained; each served leaderboard equal to
//! one recomputed from the rows, and every stored TREC score equal to `kgeval trec -c`'s on
//! the same run. The crash test `kill -9`s the server (by its PID) in the middle, restarts it
//! on the same database and checks the same, then that the limits still count every upload
//! stored before the crash.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;

use crate::serve::{data, open_phase, Served};
use crate::serve_load_files::{judged, sha256_hex, trec_run, upload_of, Body, Files, PAIRS, QALD_GOLD, VARIANTS};

const TEAMS: usize = 32;
/// Uploads each team's client sends.
pub(crate) const UPLOADS: usize = 25;
/// Counted uploads a team may make to each task in the phase.
const LIMIT: u32 = 8;
/// The served tasks and the key of their primary metric in a leaderboard row's scores.
const TASKS: [(&str, &str); 3] = [("adhoc", "map"), ("qa", "qald_f"), ("task2", "recip_rank")];

/// One upload a client sent.
#[derive(Debug, Clone)]
struct Sent {
    team: usize,
    task: &'static str,
    /// The SHA-256 of the bytes stored: the file, or a form's parts as the server bundles them.
    sha256: String,
    /// The ranking variant of a TREC run; 1 for the QALD answers and 0 for the questions; 1
    /// for the lexical DISO submission and 0 for it with stix-d3fend's scores turned around.
    variant: u64,
    /// Whether it is malformed.
    bad: bool,
    /// The answer: `None` when the connection failed (the server was killed).
    answer: Option<(u16, Value)>,
}

/// The campaign: a TREC task, a QALD task and DISO Task 2 (as `serve-diso.toml` has it), one
/// open phase with a total limit, a baseline; the 32 teams and the reader all connect from
/// 127.0.0.1, so one client address holds more than the default 32 connections.
fn campaign(dir: &Path) -> PathBuf {
    let diso = std::fs::read_to_string(data("testdata/campaigns/serve-diso.toml")).expect("serve-diso.toml");
    let start = diso.find("[[task]]\nname = \"task2\"").expect("Task 2");
    let end = diso[start..].find("[serve]").map_or(diso.len(), |e| start + e);
    let task2 = diso[start..end].replace("\"../", &format!("\"{}/", data("testdata").display()));
    let text = format!(
        "[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = {:?}\nmeasures = [\"map\", \"P.10\"]\nprimary = \"map\"\n\
         [[task]]\nname = \"qa\"\nfamily = \"qald\"\ngold = {:?}\nprimary = \"qald_f\"\n{task2}\
         [serve]\nmax_connections_per_client = 64\n{}[[serve.baseline]]\ntask = \"adhoc\"\nname = \"trunc\"\nfile = {:?}\n",
        data("testdata/trec_eval/test/qrels.test"),
        data(QALD_GOLD),
        open_phase("training", &format!("feedback = \"summary\"\nlimit = {{ total = {LIMIT} }}")),
        data("testdata/trec_eval/test/results.trunc"),
    );
    let file = dir.join("campaign.toml");
    std::fs::write(&file, text).expect("campaign written");
    file
}

/// `POST url/api/tasks/TASK/submissions` of `body` (raw bytes, or `multipart/form-data`)
/// with `token`: the status and JSON, or `None` when the connection failed.
pub(crate) fn post(agent: &ureq::Agent, url: &str, task: &str, token: &str, body: &Body) -> Option<(u16, Value)> {
    let request =
        agent.post(&format!("{url}/api/tasks/{task}/submissions")).set("Authorization", &format!("Bearer {token}"));
    let response = match body {
        Body::File(bytes) => request.send_bytes(bytes),
        Body::Parts(parts) => {
            let fields: Vec<(&str, Option<&str>, &[u8])> =
                parts.iter().map(|(name, bytes)| (*name, Some("part.jsonl"), bytes.as_slice())).collect();
            let (name, value) = crate::serve_pages::FORM_TYPE;
            request.set(name, value).send_bytes(&crate::serve_pages::form(&fields))
        }
    };
    match response {
        Ok(r) | Err(ureq::Error::Status(_, r)) => {
            let code = r.status();
            let body = r.into_string().ok()?;
            Some((code, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"))))
        }
        Err(ureq::Error::Transport(_)) => None,
    }
}

/// Runs every team's client and a leaderboard reader against `url` until the clients end (or
/// `killed` is set and the server stops answering); `kill_after` acknowledged uploads, calls
/// `kill`. Returns what was sent and how many leaderboards were read.
fn run_load(url: &str, tokens: &[String], kill_after: Option<(usize, &(dyn Fn() + Sync))>) -> (Vec<Sent>, usize) {
    let judged = judged();
    let files = Files::read();
    let sent = Mutex::new(Vec::new());
    let acknowledged = AtomicUsize::new(0);
    let (done, killed) = (AtomicBool::new(false), AtomicBool::new(false));
    let boards = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(60)).build();
            while !done.load(Ordering::SeqCst) {
                for (task, _) in TASKS {
                    match agent.get(&format!("{url}/api/tasks/{task}/leaderboard")).call() {
                        Ok(r) => {
                            let board: Value = serde_json::from_str(&r.into_string().expect("a body")).expect("JSON");
                            let rows = board["rows"].as_array().map_or(0, Vec::len);
                            assert!(rows <= TEAMS + 1, "{task}: {rows} rows");
                            boards.fetch_add(1, Ordering::SeqCst);
                        }
                        Err(_) if killed.load(Ordering::SeqCst) => return,
                        Err(e) => panic!("leaderboard {task}: {e}"),
                    }
                }
                // A poll every 20 ms: a leaderboard is recomputed on each request, and a
                // debug build's reader hammering without a pause would take a core of two.
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let clients: Vec<_> = tokens
            .iter()
            .enumerate()
            .map(|(team, token)| {
                let (judged, files, sent, acknowledged, killed) = (&judged, &files, &sent, &acknowledged, &killed);
                scope.spawn(move || {
                    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(60)).build();
                    for k in 0..UPLOADS {
                        let (task, body, variant, bad) = upload_of(judged, files, team, k);
                        let answer = post(&agent, url, task, token, &body);
                        assert!(answer.is_some() || killed.load(Ordering::SeqCst), "team {team} upload {k}: no answer");
                        let stop = answer.is_none();
                        let sha256 = body.stored_sha256();
                        sent.lock().expect("sent").push(Sent { team, task, sha256, variant, bad, answer });
                        if stop {
                            return;
                        }
                        let count = acknowledged.fetch_add(1, Ordering::SeqCst) + 1;
                        if let Some((after, kill)) = kill_after {
                            if count == after {
                                killed.store(true, Ordering::SeqCst);
                                kill();
                            }
                        }
                    }
                })
            })
            .collect();
        for client in clients {
            client.join().expect("a client");
        }
        done.store(true, Ordering::SeqCst);
    });
    (sent.into_inner().expect("sent"), boards.load(Ordering::SeqCst))
}

/// A row of the submissions table with its score rows.
struct Row {
    id: i64,
    team: usize,
    task: String,
    sha256: String,
    size: u64,
    status: String,
    scores: i64,
    value: Option<f64>,
}

/// Every submission in the database `db` (read directly, not through the server).
fn rows(db: &Path) -> Vec<Row> {
    let connection = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("the database opens");
    let mut statement = connection
        .prepare(
            "SELECT s.id, t.name, s.task, s.sha256, s.size, s.status, \
             (SELECT COUNT(*) FROM scores c WHERE c.submission = s.id), \
             (SELECT c.value FROM scores c WHERE c.submission = s.id) \
             FROM submissions s JOIN teams t ON t.id = s.team ORDER BY s.id",
        )
        .expect("a query");
    statement
        .query_map([], |r| {
            let team: String = r.get(1)?;
            Ok(Row {
                id: r.get(0)?,
                team: team.trim_start_matches("team").parse().expect("a team number"),
                task: r.get(2)?,
                sha256: r.get(3)?,
                size: r.get(4)?,
                status: r.get(5)?,
                scores: r.get(6)?,
                value: r.get(7)?,
            })
        })
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows read")
}

/// The scores recomputed apart from the server, per task and variant: `kgeval trec -c`'s map
/// of each ranking variant, `kgeval qald`'s qald_f of the questions alone (0) and of the QALD
/// answers (1), `kgeval rank`'s MRR of the reversed (0) and lexical (1) DISO submissions.
fn fresh_values() -> HashMap<&'static str, Vec<f64>> {
    let dir = tempfile::tempdir().expect("a folder");
    let judged = judged();
    let trec = (0..VARIANTS)
        .map(|variant| {
            let run = dir.path().join(format!("v{variant}.run"));
            std::fs::write(&run, trec_run(&judged, variant, "fresh")).expect("run written");
            crate::serve::kgeval_trec(run.to_str().expect("UTF-8"), "map")
        })
        .collect();
    let qald = |system: &str| {
        let out = crate::kgeval(&["qald", "--gold", QALD_GOLD, "--system", system, "--format", "json"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        json["systems"][0]["global"]["qald_f"].as_f64().expect("qald_f")
    };
    let lexical = |pair: &str| data(&format!("testdata/ranking/diso-synthetic/{pair}/lexical.jsonl"));
    let reversed = dir.path().join("reversed.jsonl");
    std::fs::write(&reversed, Files::read().reversed).expect("written");
    let rank =
        |stix: &Path| crate::serve_diso::rank(dir.path(), [&lexical(PAIRS[0]), stix])["mrr"].as_f64().expect("the MRR");
    HashMap::from([
        ("adhoc", trec),
        ("qa", vec![qald("testdata/qald/qald3/dbpedia-test-questions.xml"), qald(QALD_GOLD)]),
        ("task2", vec![rank(&reversed), rank(&lexical(PAIRS[1]))]),
    ])
}

/// Checks the database `db` against what was sent (see the module's documentation);
/// `crashed`: uploads without an answer may or may not be stored. Returns the counted
/// uploads of each (team, task).
fn verify(db: &Path, sent: &[Sent], crashed: bool) -> HashMap<(usize, String), u32> {
    let rows = rows(db);
    let acked: HashMap<i64, &Sent> =
        sent.iter().filter_map(|s| s.answer.as_ref().and_then(|(_, v)| v["id"].as_i64()).map(|id| (id, s))).collect();
    let in_flight: HashSet<&str> = sent.iter().filter(|s| s.answer.is_none()).map(|s| s.sha256.as_str()).collect();
    assert!(crashed || in_flight.is_empty(), "an upload without an answer");
    let blobs = crate::serve::blob_dir(db);
    let fresh = fresh_values();
    let mut counted: HashMap<(usize, String), u32> = HashMap::new();
    for row in &rows {
        // Every row is an acknowledged upload, or (after a crash) one whose answer was lost.
        match acked.get(&row.id) {
            Some(s) => {
                assert_eq!((s.team, s.task, s.sha256.as_str()), (row.team, row.task.as_str(), row.sha256.as_str()));
            }
            None => {
                assert!(crashed && in_flight.contains(row.sha256.as_str()), "row {} was never acknowledged", row.id);
            }
        }
        // No half row: a scored submission has its one score row, an invalid one none.
        let expected_scores = i64::from(row.status == "scored");
        assert_eq!(row.scores, expected_scores, "row {} ({}) has {} score rows", row.id, row.status, row.scores);
        // Its bytes, whole.
        let bytes = std::fs::read(blobs.join(&row.sha256[..2]).join(&row.sha256)).expect("the stored bytes");
        assert_eq!((sha256_hex(&bytes), bytes.len() as u64), (row.sha256.clone(), row.size), "row {}", row.id);
        if row.status == "scored" {
            *counted.entry((row.team, row.task.clone())).or_default() += 1;
            let s = sent.iter().find(|s| s.sha256 == row.sha256).expect("sent");
            let fresh = fresh[s.task][usize::try_from(s.variant).expect("a variant")];
            assert_eq!(row.value, Some(fresh), "row {}: the stored score is not the fresh one", row.id);
        }
    }
    // Every acknowledged upload is there (201 scored, 422 invalid); a 429 stored nothing.
    let by_id: HashMap<i64, &Row> = rows.iter().map(|r| (r.id, r)).collect();
    for s in sent {
        let Some((code, answer)) = &s.answer else { continue };
        match code {
            201 | 422 => {
                let row =
                    answer["id"].as_i64().and_then(|id| by_id.get(&id)).unwrap_or_else(|| panic!("{answer} missing"));
                assert_eq!(row.status, if *code == 201 { "scored" } else { "invalid" });
            }
            429 => assert!(rows.iter().all(|r| r.sha256 != s.sha256), "a refused upload was stored"),
            _ => panic!("team {} {}: unexpected answer {code} {answer}", s.team, s.task),
        }
    }
    // Every file in the blob folder is a row's, or (after a crash) an unanswered upload's or
    // an interrupted write's temporary file.
    let known: HashSet<&str> = rows.iter().map(|r| r.sha256.as_str()).collect();
    let mut temporary = 0;
    for entry in std::fs::read_dir(&blobs).expect("the blob folder").flatten() {
        for file in std::fs::read_dir(entry.path()).expect("a blob subfolder").flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            if name.starts_with(".tmp-") {
                temporary += 1;
            } else {
                assert!(known.contains(name.as_str()) || in_flight.contains(name.as_str()), "orphan blob {name}");
            }
        }
    }
    assert!(temporary <= in_flight.len(), "{temporary} temporary files for {} unanswered uploads", in_flight.len());
    counted
}

/// The answers each team should have had, by a model of the limit (checked before the body
/// is read: a malformed upload at the limit is a 429 too), compared with those it had.
fn check_answers(sent: &[Sent], bad: &HashSet<String>) -> HashMap<(usize, String), u32> {
    let mut all = HashMap::new();
    for team in 0..TEAMS {
        let mut counted: BTreeMap<&str, u32> = BTreeMap::new();
        for s in sent.iter().filter(|s| s.team == team) {
            let Some((code, _)) = &s.answer else { break };
            let n = counted.entry(s.task).or_default();
            let expected = if *n >= LIMIT {
                429
            } else if bad.contains(&s.sha256) {
                422
            } else {
                *n += 1;
                201
            };
            assert_eq!(*code, expected, "team {team} {}: {:?}", s.task, s.answer);
        }
        all.extend(counted.into_iter().map(|(task, n)| ((team, task.to_owned()), n)));
    }
    all.retain(|_, n| *n > 0);
    all
}

/// The served leaderboard of `task` equals one recomputed from the rows: each team's best
/// scored submission (the earliest of equal ones) and the baseline, ranked by value.
fn check_leaderboard(server: &Served, db: &Path, task: &str) {
    let mut best: BTreeMap<usize, (f64, i64)> = BTreeMap::new();
    for row in rows(db).iter().filter(|r| r.task == task && r.status == "scored") {
        let value = row.value.expect("a score");
        let entry = best.entry(row.team).or_insert((value, row.id));
        if value > entry.0 {
            *entry = (value, row.id);
        }
    }
    let (code, body) = server.get(&format!("/api/tasks/{task}/leaderboard"), None);
    assert_eq!(code, 200, "{body}");
    let board: Value = serde_json::from_str(&body).expect("JSON");
    let served: Vec<&Value> =
        board["rows"].as_array().expect("rows").iter().filter(|r| r["baseline"] != true).collect();
    let key = TASKS.iter().find(|(t, _)| *t == task).map(|(_, key)| *key).expect("a task");
    let value = |r: &Value| r["scores"][key].as_f64().expect("a value");
    // Equal values share a rank: one more than the rows (baselines included) above them.
    let all = board["rows"].as_array().expect("rows");
    for row in all {
        let better = all.iter().filter(|r| value(r) > value(row)).count();
        assert_eq!(row["rank"].as_u64(), Some(better as u64 + 1), "{row}");
    }
    let mut got: Vec<(usize, i64, f64)> = served
        .iter()
        .map(|r| {
            let team = r["team"].as_str().expect("a team").trim_start_matches("team").parse().expect("a number");
            (team, r["submission"].as_i64().expect("an id"), value(r))
        })
        .collect();
    got.sort_by_key(|g| g.0);
    let expected: Vec<(usize, i64, f64)> = best.into_iter().map(|(team, (value, id))| (team, id, value)).collect();
    assert_eq!(got, expected, "{task}: the served leaderboard is not the recomputed one");
}

/// Adds `team0` … `team31` (concurrently) and returns their tokens.
fn add_teams(server: &Served) -> Vec<String> {
    std::thread::scope(|scope| {
        let handles: Vec<_> =
            (0..TEAMS).map(|team| scope.spawn(move || server.add_team(&format!("team{team}"), false))).collect();
        handles.into_iter().map(|h| h.join().expect("a team")).collect()
    })
}

/// The SHA-256 of every malformed upload.
fn malformed(sent: &[Sent]) -> HashSet<String> {
    sent.iter().filter(|s| s.bad).map(|s| s.sha256.clone()).collect()
}

#[test]
fn thirty_two_teams_upload_at_once_and_everything_acknowledged_is_stored_and_scored() {
    let dir = tempfile::tempdir().expect("a folder");
    let (file, db) = (campaign(dir.path()), dir.path().join("load.sqlite"));
    let server = Served::start_on(&file, &db);
    let tokens = add_teams(&server);
    let started = std::time::Instant::now();
    let (sent, boards) = run_load(&server.url, &tokens, None);
    eprintln!("{} uploads, {boards} leaderboards read, in {:.1} s", sent.len(), started.elapsed().as_secs_f64());
    assert_eq!(sent.len(), TEAMS * UPLOADS);
    assert!(boards > 0, "the reader read no leaderboard");
    let expected = check_answers(&sent, &malformed(&sent));
    let counted = verify(&db, &sent, false);
    assert_eq!(counted, expected, "the counted uploads in the database");
    // Every team reached the TREC limit (14 good runs for 8) and counted its 5 good QALD files
    // and its good DISO submission (the other is malformed).
    for team in 0..TEAMS {
        assert_eq!(counted.get(&(team, "adhoc".to_owned())), Some(&LIMIT), "team {team}");
        assert_eq!(counted.get(&(team, "qa".to_owned())), Some(&5), "team {team}");
        assert_eq!(counted.get(&(team, "task2".to_owned())), Some(&1), "team {team}");
    }
    for (task, _) in TASKS {
        check_leaderboard(&server, &db, task);
    }
}

#[test]
fn a_server_killed_under_load_keeps_every_acknowledged_upload() {
    let dir = tempfile::tempdir().expect("a folder");
    let (file, db) = (campaign(dir.path()), dir.path().join("crash.sqlite"));
    let server = Served::start_on(&file, &db);
    let tokens = add_teams(&server);
    let pid = server.pid().to_string();
    // `kill -9 PID` of the server this test started, after 300 acknowledged uploads.
    let kill = || {
        let status = std::process::Command::new("kill").args(["-9", &pid]).status().expect("kill runs");
        assert!(status.success(), "kill -9 {pid}");
    };
    let (sent, _) = run_load(&server.url, &tokens, Some((300, &kill)));
    drop(server);
    let unanswered = sent.iter().filter(|s| s.answer.is_none()).count();
    eprintln!("killed after {} answers, {unanswered} uploads unanswered", sent.len() - unanswered);
    assert!(unanswered > 0 && sent.len() < TEAMS * UPLOADS, "the kill interrupted nothing");
    check_answers(&sent, &malformed(&sent));

    // Restarted on the same database: everything acknowledged is there, whole and scored.
    let server = Served::start_on(&file, &db);
    let counted = verify(&db, &sent, true);
    for (task, _) in TASKS {
        check_leaderboard(&server, &db, task);
    }
    assert!(
        sent.iter().any(|s| s.task == "task2" && s.answer.as_ref().is_some_and(|(code, _)| *code == 201)),
        "no DISO upload acknowledged before the kill"
    );
    // The limits count every upload stored before the crash.
    let judged = judged();
    for (team, token) in tokens.iter().enumerate() {
        let n = counted.get(&(team, "adhoc".to_owned())).copied().unwrap_or(0);
        let (code, answer, _) = server.upload("adhoc", Some(token), &trec_run(&judged, 0, &format!("after{team}")));
        assert_eq!(code, if n < LIMIT { 201 } else { 429 }, "team {team} with {n} counted: {answer}");
    }
}
