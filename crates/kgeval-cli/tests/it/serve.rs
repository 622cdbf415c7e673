//! `kgeval serve`: the real binary on a loopback port with a temporary database, driven over
//! HTTP (ureq). Each server is killed when its test ends; every request has a time limit.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

use crate::root;

/// A running `kgeval serve`, killed on drop.
pub(crate) struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub(crate) url: String,
    /// The folder of the campaign file and the database.
    pub(crate) dir: tempfile::TempDir,
    agent: ureq::Agent,
    /// The line the server printed after its address: where the campaign stands.
    pub(crate) status: String,
    /// The campaign file and the `--db` given, if any.
    file: PathBuf,
    db: Option<PathBuf>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A bundled file, absolute.
pub(crate) fn data(path: &str) -> PathBuf {
    root().join(path)
}

/// `[[task]] adhoc` on trec_eval's test qrels (map and P.10, primary map), with `extra` lines.
pub(crate) fn trec_task(name: &str, extra: &str) -> String {
    format!(
        "[[task]]\nname = \"{name}\"\nfamily = \"trec\"\nqrels = {:?}\nmeasures = [\"map\", \"P.10\"]\nprimary = \"map\"\n{extra}\n",
        data("testdata/trec_eval/test/qrels.test")
    )
}

/// A phase open from 2000 to 2100 with `extra` lines.
pub(crate) fn open_phase(name: &str, extra: &str) -> String {
    format!("[[serve.phase]]\nname = \"{name}\"\nfrom = \"2000-01-01T00:00:00Z\"\nuntil = \"2100-01-01T00:00:00Z\"\n{extra}\n")
}

/// The blob folder of the database `db`: `DB.blobs` beside it.
pub(crate) fn blob_dir(db: &Path) -> PathBuf {
    let mut name = db.file_name().expect("a file name").to_os_string();
    name.push(".blobs");
    db.with_file_name(name)
}

/// Runs `kgeval serve CAMPAIGN ARGS` to its end.
pub(crate) fn serve_command(campaign: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kgeval")).arg("serve").arg(campaign).args(args).output().expect("run kgeval serve")
}

impl Served {
    /// Writes `campaign` into a new folder and starts the server on a free loopback port.
    pub(crate) fn start(campaign: &str) -> Served {
        let dir = tempfile::tempdir().expect("a folder");
        let file = dir.path().join("campaign.toml");
        std::fs::write(&file, campaign).expect("campaign written");
        Served::spawn(&file, &[], dir)
    }

    /// Starts the server on the campaign file `file` with its database in a new folder.
    pub(crate) fn start_file(file: &Path) -> Served {
        let dir = tempfile::tempdir().expect("a folder");
        let db = dir.path().join("campaign.sqlite");
        let mut served = Served::spawn(file, &["--db".as_ref(), db.as_os_str()], dir);
        served.db = Some(db);
        served
    }

    /// Starts the server on the campaign file `file` with its database in a new folder and
    /// the further arguments `args` (`--now TIME`).
    pub(crate) fn start_file_with(file: &Path, args: &[&str]) -> Served {
        let dir = tempfile::tempdir().expect("a folder");
        let db = dir.path().join("campaign.sqlite");
        let mut all: Vec<&std::ffi::OsStr> = vec!["--db".as_ref(), db.as_os_str()];
        all.extend(args.iter().map(std::ffi::OsStr::new));
        let mut served = Served::spawn(file, &all, dir);
        served.db = Some(db);
        served
    }

    /// Starts the server on the campaign file `file` and the database `db` (kept after it
    /// stops).
    pub(crate) fn start_on(file: &Path, db: &Path) -> Served {
        let dir = tempfile::tempdir().expect("a folder");
        let mut served = Served::spawn(file, &["--db".as_ref(), db.as_os_str()], dir);
        served.db = Some(db.to_path_buf());
        served
    }

    /// Starts `kgeval serve ARGS --listen 127.0.0.1:0` in the folder `cwd` (ARGS as a
    /// document writes them, the campaign file first, relative to `cwd`).
    pub(crate) fn start_in(cwd: &Path, args: &[String]) -> Served {
        let dir = tempfile::tempdir().expect("a folder");
        let (file, args) = args.split_first().expect("a campaign file");
        let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        Served::spawn_in(Some(cwd), &cwd.join(file), &args, dir)
    }

    fn spawn(file: &Path, args: &[&std::ffi::OsStr], dir: tempfile::TempDir) -> Served {
        Served::spawn_in(None, file, args, dir)
    }

    fn spawn_in(cwd: Option<&Path>, file: &Path, args: &[&std::ffi::OsStr], dir: tempfile::TempDir) -> Served {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kgeval"));
        if let Some(cwd) = cwd {
            command.current_dir(cwd);
        }
        let mut child = command
            .arg("serve")
            .arg(file)
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start kgeval serve");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            // The address, then where the campaign stands.
            let (mut stdout, mut line, mut status) = (BufReader::new(stdout), String::new(), String::new());
            let _ = stdout.read_line(&mut line);
            let _ = stdout.read_line(&mut status);
            let _ = sender.send((line, status));
        });
        let (line, status) = match receiver.recv_timeout(Duration::from_secs(60)) {
            Ok(lines) => lines,
            Err(e) => {
                let _ = child.kill();
                panic!("kgeval serve printed no address within 60 s: {e}");
            }
        };
        let Some(url) = line.trim().strip_prefix("listening on ").map(str::to_owned) else {
            let _ = child.kill();
            panic!("expected `listening on URL`, found {line:?}");
        };
        let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(60)).build();
        let status = status.trim_end().to_owned();
        Served { child, url, dir, agent, status, file: file.to_path_buf(), db: None }
    }

    /// The server's process id (for a `kill -9` in the middle of a load).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the server's process has exited.
    pub(crate) fn exited(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_some()
    }

    /// Sends SIGTERM and waits for the server to exit (killed after `limit`, and the test
    /// fails): how long it took, and its exit status.
    pub(crate) fn terminate(&mut self, limit: Duration) -> (Duration, std::process::ExitStatus) {
        let start = std::time::Instant::now();
        let sent = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().expect("kill");
        assert!(sent.success(), "kill -TERM failed");
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return (start.elapsed(), status);
            }
            assert!(start.elapsed() < limit, "the server did not exit within {limit:?} of SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Adds a team (`--add-team NAME`) and returns its token.
    pub(crate) fn add_team(&self, name: &str, organiser: bool) -> String {
        let mut args = vec!["--add-team", name];
        if organiser {
            args.push("--organiser");
        }
        let db = self.db.as_ref().map(|d| d.display().to_string());
        if let Some(db) = &db {
            args.extend(["--db", db]);
        }
        let output = serve_command(&self.file, &args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let token = String::from_utf8(output.stdout).expect("UTF-8");
        assert_eq!(token.lines().count(), 1, "one line: {token:?}");
        token.trim().to_owned()
    }

    /// The status code and body of `response`.
    fn read(response: Result<ureq::Response, ureq::Error>) -> (u16, String, Option<String>) {
        match response {
            Ok(r) | Err(ureq::Error::Status(_, r)) => {
                let retry = r.header("retry-after").map(str::to_owned);
                (r.status(), r.into_string().expect("a body"), retry)
            }
            Err(e) => panic!("request failed: {e}"),
        }
    }

    /// `GET path` with an optional token.
    pub(crate) fn get(&self, path: &str, token: Option<&str>) -> (u16, String) {
        let mut request = self.agent.get(&format!("{}{path}", self.url));
        if let Some(token) = token {
            request = request.set("Authorization", &format!("Bearer {token}"));
        }
        let (code, body, _) = Self::read(request.call());
        (code, body)
    }

    /// `POST /api/tasks/TASK/submissions` of `bytes`; the status, the JSON body and the
    /// `Retry-After` header.
    pub(crate) fn upload(&self, task: &str, token: Option<&str>, bytes: &[u8]) -> (u16, Value, Option<String>) {
        let mut request = self.agent.post(&format!("{}/api/tasks/{task}/submissions", self.url));
        if let Some(token) = token {
            request = request.set("Authorization", &format!("Bearer {token}"));
        }
        let (code, body, retry) = Self::read(request.send_bytes(bytes));
        (code, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}")), retry)
    }

    /// `POST /api/tasks/TASK/submissions?system=SYSTEM` of `bytes`: the status and the JSON.
    pub(crate) fn upload_named(&self, task: &str, token: &str, system: &str, bytes: &[u8]) -> (u16, Value) {
        let request = self
            .agent
            .post(&format!("{}/api/tasks/{task}/submissions", self.url))
            .query("system", system)
            .set("Authorization", &format!("Bearer {token}"));
        let (code, body, _) = Self::read(request.send_bytes(bytes));
        (code, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}")))
    }

    /// The status line of an upload announced with `Content-Length: length` and
    /// `Expect: 100-continue` (as curl sends a large file), the body never sent.
    pub(crate) fn announce_upload(&self, task: &str, token: &str, length: u64) -> String {
        use std::io::{Read as _, Write as _};
        let address = self.url.trim_start_matches("http://");
        let mut stream = std::net::TcpStream::connect(address).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
        write!(
            stream,
            "POST /api/tasks/{task}/submissions HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
             Content-Length: {length}\r\nExpect: 100-continue\r\n\r\n"
        )
        .expect("request written");
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).lines().next().unwrap_or_default().to_owned()
    }

    /// `METHOD path` with optional headers and body, redirects not followed: the status, the
    /// body and every response header (lower-case names).
    pub(crate) fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> (u16, String, Vec<(String, String)>) {
        let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(60)).redirects(0).build();
        let mut request = agent.request(method, &format!("{}{path}", self.url));
        for (name, value) in headers {
            request = request.set(name, value);
        }
        let response = match body {
            Some(body) => request.send_bytes(body),
            None => request.call(),
        };
        match response {
            Ok(r) | Err(ureq::Error::Status(_, r)) => {
                let names = r.headers_names();
                let headers: Vec<(String, String)> = names
                    .iter()
                    .flat_map(|n| r.all(n).into_iter().map(move |v| (n.to_ascii_lowercase(), v.to_owned())))
                    .collect();
                (r.status(), r.into_string().expect("a body"), headers)
            }
            Err(e) => panic!("request failed: {e}"),
        }
    }

    /// The files stored in the blob folder.
    pub(crate) fn stored_files(&self) -> usize {
        let blobs = self.dir.path().join("campaign.sqlite.blobs");
        let Ok(dirs) = std::fs::read_dir(blobs) else { return 0 };
        dirs.flatten().map(|d| std::fs::read_dir(d.path()).map_or(0, Iterator::count)).sum()
    }
}

/// `kgeval trec -c`'s summary value of `measure` for `run` (a served trec task counts every
/// judged topic).
pub(crate) fn kgeval_trec(run: &str, measure: &str) -> f64 {
    let output = crate::kgeval(&[
        "trec",
        "-c",
        "testdata/trec_eval/test/qrels.test",
        run,
        "-m",
        "map",
        "-m",
        "P.10",
        "--format",
        "json",
    ]);
    assert!(output.status.success());
    let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    json["runs"][0]["summary"][measure].as_f64().expect("a value")
}

fn bytes(path: &str) -> Vec<u8> {
    std::fs::read(data(path)).expect("bundled data")
}

#[test]
fn uploads_are_scored_as_kgeval_trec_and_refused_with_the_right_codes() {
    let campaign = format!(
        "title = \"Demo\"\n{}{}max_upload = 100000\n{}[[serve.baseline]]\ntask = \"adhoc\"\nname = \"trunc\"\nfile = {:?}\n",
        trec_task("adhoc", ""),
        "[serve]\n",
        open_phase("training", "feedback = \"items\""),
        data("testdata/trec_eval/test/results.trunc")
    );
    let server = Served::start(&campaign);
    let a = server.add_team("A", false);
    let b = server.add_team("B", false);
    let (code, health) = server.get("/api/health", None);
    assert_eq!((code, health.contains("\"phase\":\"training\"")), (200, true), "{health}");

    // 201: the value `kgeval trec` prints, for the raw file and for it gzipped.
    let run = bytes("testdata/trec_eval/test/results.test");
    let (code, scored, _) = server.upload("adhoc", Some(&a), &run);
    assert_eq!(code, 201, "{scored}");
    assert_eq!(scored["status"], "scored");
    assert_eq!(scored["scores"]["map"].as_f64(), Some(kgeval_trec("testdata/trec_eval/test/results.test", "map")));
    assert_eq!(scored["scores"]["P_10"].as_f64(), Some(kgeval_trec("testdata/trec_eval/test/results.test", "P_10")));
    assert!(scored["items"].as_array().is_some_and(|items| items.len() == 6), "3 topics × 2 measures: {scored}");
    assert!(scored["scorer"].as_str().is_some_and(|s| s.starts_with("kgeval ") && s.contains('+')), "{scored}");
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gzip, &run).expect("gzip");
    let (code, gzipped, _) = server.upload("adhoc", Some(&b), &gzip.finish().expect("gzip"));
    assert_eq!((code, &gzipped["scores"]), (201, &scored["scores"]), "{gzipped}");

    // 422: the reader's located line, recorded, not counted.
    let (code, invalid, _) = server.upload("adhoc", Some(&a), b"301 Q0 doc1 1 0.5 run\n301 Q0 doc2 x 0.4 run\n");
    assert_eq!((code, invalid["status"].as_str()), (422, Some("invalid")), "{invalid}");
    assert!(invalid["error"].as_str().is_some_and(|e| e.starts_with("upload:2:")), "{invalid}");

    // 401 without or with a wrong token; 404 for an unknown task: nothing stored.
    let stored = server.stored_files();
    assert_eq!(server.upload("adhoc", None, &run).0, 401);
    assert_eq!(server.upload("adhoc", Some(&"0".repeat(64)), &run).0, 401);
    assert_eq!(server.upload("nope", Some(&a), &run).0, 404);
    // 413: over max_upload (announced as curl announces a large file), nothing stored; one
    // byte less is read (and refused as a run, 422).
    assert_eq!(server.announce_upload("adhoc", &a, 100_001), "HTTP/1.1 413 Payload Too Large");
    assert_eq!(server.announce_upload("adhoc", &a, 2_793_605), "HTTP/1.1 413 Payload Too Large");
    assert_eq!(server.stored_files(), stored);
    assert_eq!(server.upload("adhoc", Some(&a), &vec![b'1'; 100_000]).0, 422);

    // A submission is its team's: the owner reads it, another team gets 404, no token 401.
    let id = scored["id"].as_i64().expect("an id");
    let (code, own) = server.get(&format!("/api/submissions/{id}"), Some(&a));
    assert_eq!(code, 200);
    let own: Value = serde_json::from_str(&own).expect("JSON");
    assert_eq!(own["scores"], scored["scores"]);
    assert_eq!(server.get(&format!("/api/submissions/{id}"), Some(&b)).0, 404);
    assert_eq!(server.get(&format!("/api/submissions/{id}"), None).0, 401);
    assert_eq!(server.get("/api/submissions/999", Some(&a)).0, 404);

    // The leaderboard: both teams and the baseline, by map, as a fresh `kgeval trec` orders them.
    let (code, board) = server.get("/api/tasks/adhoc/leaderboard", None);
    assert_eq!(code, 200, "{board}");
    let board: Value = serde_json::from_str(&board).expect("JSON");
    let rows = board["rows"].as_array().expect("rows");
    let summary: Vec<(i64, &str, bool)> = rows
        .iter()
        .map(|r| {
            (
                r["rank"].as_i64().unwrap_or(0),
                r["team"].as_str().unwrap_or(""),
                r["baseline"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(summary, [(1, "A", false), (1, "B", false), (3, "organisers", true)]);
    assert_eq!(rows[2]["scores"]["map"].as_f64(), Some(kgeval_trec("testdata/trec_eval/test/results.trunc", "map")));
    let (code, csv) = server.get("/api/tasks/adhoc/leaderboard.csv", None);
    assert_eq!(code, 200);
    assert_eq!(csv.lines().next(), Some("rank,team,system,submission,baseline,tier,letter,beats,map,P_10"));
    assert_eq!(csv.lines().count(), 4, "{csv}");
}

#[test]
fn limits_are_exact_and_invalid_uploads_do_not_count() {
    let campaign = format!("{}[serve]\n{}", trec_task("adhoc", ""), open_phase("p", "limit = { per_day = 2 }"));
    let server = Served::start(&campaign);
    let a = server.add_team("A", false);
    let b = server.add_team("B", false);
    let run = bytes("testdata/trec_eval/test/results.test");
    let bad = b"not a run\n";
    let codes: Vec<u16> =
        [&bad[..], &run, bad, &run, &run, bad].iter().map(|body| server.upload("adhoc", Some(&a), body).0).collect();
    assert_eq!(codes, [422, 201, 422, 201, 429, 429]);
    let (code, limited, retry) = server.upload("adhoc", Some(&a), &run);
    assert_eq!(code, 429);
    // The reset is the next UTC midnight.
    let reset = limited["reset"].as_str().expect("a reset time");
    assert!(reset.ends_with("T00:00:00Z"), "{limited}");
    let seconds: i64 = retry.expect("Retry-After").parse().expect("seconds");
    assert!((0..=86_400).contains(&seconds), "{seconds}");
    // Another team has its own count.
    assert_eq!(server.upload("adhoc", Some(&b), &run).0, 201);
}

#[test]
fn best_or_last_counts_and_a_total_limit() {
    let campaign = format!(
        "{}{}[serve]\n{}",
        trec_task("best", "phases = [\"p\"]"),
        trec_task("last", ""),
        open_phase("p", "counts = \"best\"\nlimit = { total = 2 }")
    );
    let server = Served::start(&campaign);
    let a = server.add_team("A", false);
    let (full, trunc) = (bytes("testdata/trec_eval/test/results.test"), bytes("testdata/trec_eval/test/results.trunc"));
    let first = server.upload("best", Some(&a), &full).1["id"].as_i64().expect("an id");
    assert_eq!(server.upload("best", Some(&a), &trunc).0, 201);
    let (code, limited, retry) = server.upload("best", Some(&a), &full);
    assert_eq!((code, &limited["reset"], retry), (429, &Value::Null, None), "{limited}");
    let (_, board) = server.get("/api/tasks/best/leaderboard", None);
    let board: Value = serde_json::from_str(&board).expect("JSON");
    assert_eq!(board["rows"].as_array().map(Vec::len), Some(1));
    assert_eq!(board["rows"][0]["submission"].as_i64(), Some(first), "{board}");
    assert_eq!(
        board["rows"][0]["scores"]["map"].as_f64(),
        Some(kgeval_trec("testdata/trec_eval/test/results.test", "map"))
    );

    // The same phase with counts = "last" is another campaign.
    let campaign = format!("{}[serve]\n{}", trec_task("last", ""), open_phase("p", "counts = \"last\""));
    let server = Served::start(&campaign);
    let a = server.add_team("A", false);
    assert_eq!(server.upload("last", Some(&a), &full).0, 201);
    let last = server.upload("last", Some(&a), &trunc).1["id"].as_i64().expect("an id");
    let (_, board) = server.get("/api/tasks/last/leaderboard", None);
    let board: Value = serde_json::from_str(&board).expect("JSON");
    assert_eq!(board["rows"][0]["submission"].as_i64(), Some(last), "{board}");
    assert_eq!(
        board["rows"][0]["scores"]["map"].as_f64(),
        Some(kgeval_trec("testdata/trec_eval/test/results.trunc", "map"))
    );
}

#[test]
fn a_hidden_phase_leaks_no_score_through_any_route() {
    let campaign = format!(
        "{}{}[serve]\n[[serve.phase]]\nname = \"training\"\nfrom = \"2000-01-01T00:00:00Z\"\nuntil = \"2001-01-01T00:00:00Z\"\n{}",
        trec_task("test-task", "phases = [\"test\"]"),
        trec_task("training-task", "phases = [\"training\"]"),
        open_phase("test", "feedback = \"none\"\nleaderboard = \"hidden\"").replace("2000-01-01", "2001-01-01")
    );
    let server = Served::start(&campaign);
    let a = server.add_team("A", false);
    let organiser = server.add_team("org", true);
    let run = bytes("testdata/trec_eval/test/results.test");
    let map = kgeval_trec("testdata/trec_eval/test/results.test", "map").to_string();
    // A task of a closed phase takes no upload.
    assert_eq!(server.upload("training-task", Some(&a), &run).0, 404);
    let (code, received, _) = server.upload("test-task", Some(&a), &run);
    assert_eq!((code, received["status"].as_str()), (201, Some("received")), "{received}");
    let id = received["id"].as_i64().expect("an id");
    let mut seen = vec![received.to_string()];
    for (path, token) in [
        (format!("/api/submissions/{id}"), Some(a.as_str())),
        ("/api/tasks/test-task/leaderboard".to_owned(), None),
        ("/api/tasks/test-task/leaderboard".to_owned(), Some(a.as_str())),
        ("/api/tasks/test-task/leaderboard.csv".to_owned(), Some(a.as_str())),
        ("/api/tasks/test-task/leaderboard?phase=test".to_owned(), None),
    ] {
        let (code, body) = server.get(&path, token);
        assert!(code == 200 || code == 403, "{path}: {code}");
        if path.contains("leaderboard") {
            assert_eq!(code, 403, "{path}: {body}");
        }
        seen.push(body);
    }
    for body in &seen {
        assert!(!body.contains(&map) && !body.contains("scores") && !body.contains("items"), "leaked: {body}");
    }
    // The organisers see it.
    let (code, board) = server.get("/api/tasks/test-task/leaderboard", Some(&organiser));
    assert_eq!(code, 200);
    assert!(board.contains(&map), "{board}");
}

#[test]
fn a_bad_campaign_file_is_a_located_error() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = dir.path().join("c.toml");
    std::fs::write(&file, format!("{}[serve]\n{}", trec_task("adhoc", ""), open_phase("p", "counts = \"worst\"")))
        .expect("written");
    let output = serve_command(&file, &["--add-team", "A"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with(&format!("error: {}:13:10: found counts = \"worst\"", file.display())), "{stderr}");
    assert!(output.stdout.is_empty());
    // A served trec task counts every judged topic: `complete = false` is refused where it is.
    std::fs::write(&file, format!("{}[serve]\n{}", trec_task("adhoc", "complete = false"), open_phase("p", "")))
        .expect("written");
    let output = serve_command(&file, &["--add-team", "A"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with(&format!("error: {}:7:12: found complete = false", file.display())), "{stderr}");
}

#[test]
fn a_scoring_out_of_time_is_recorded_and_counted() {
    // Scoring runs out of time (a limit of a microsecond): the worker scoring the upload is
    // killed, the upload recorded `failed` with the reason (422: the upload's doing), and it
    // counts against the limit of one a day, so the team cannot repeat a runaway for free.
    let campaign = format!(
        "[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"qrels.txt\"\nprimary = \"map\"\n[serve]\ntime_limit = 0.000001\n{}",
        open_phase("p", "limit = { per_day = 1 }")
    );
    let dir = tempfile::tempdir().expect("a folder");
    std::fs::copy(data("testdata/trec_eval/test/qrels.test"), dir.path().join("qrels.txt")).expect("copied");
    std::fs::write(dir.path().join("campaign.toml"), campaign).expect("written");
    let server = Served::start_file(&dir.path().join("campaign.toml"));
    let a = server.add_team("A", false);
    let run = bytes("testdata/trec_eval/test/results.test");
    let (code, failed, _) = server.upload("adhoc", Some(&a), &run);
    assert_eq!((code, failed["status"].as_str()), (422, Some("failed")), "{failed}");
    let error = failed["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("out of time: scoring took longer than 0.000001 s"), "{failed}");
    assert!(failed.get("scores").is_none() && !failed.to_string().contains("qrels"), "{failed}");
    let id = failed["id"].as_i64().expect("recorded");
    let (code, read) = server.get(&format!("/api/submissions/{id}"), Some(&a));
    assert_eq!(code, 200);
    assert!(read.contains("\"status\":\"failed\""), "{read}");
    let (code, limited, _) = server.upload("adhoc", Some(&a), &run);
    assert_eq!((code, limited["status"].as_str()), (429, Some("limited")), "{limited}");
    let (_, board) = server.get("/api/tasks/adhoc/leaderboard", None);
    assert!(board.contains("\"rows\":[]"), "{board}");
}

#[test]
fn a_team_over_its_request_rate_gets_429_and_nothing_is_stored() {
    let campaign = format!("{}[serve]\nrequests_per_minute = 2\n{}", trec_task("adhoc", ""), open_phase("p", ""));
    let server = Served::start(&campaign);
    let (a, b) = (server.add_team("A", false), server.add_team("B", false));
    let run = bytes("testdata/trec_eval/test/results.test");
    assert_eq!(server.upload("adhoc", Some(&a), &run).0, 201);
    assert_eq!(server.get("/api/submissions/1", Some(&a)).0, 200);
    // The third request within 30 s (a token comes back every 30 s at 2 a minute), an upload:
    // refused before it is read, not stored.
    let stored = server.stored_files();
    let (code, limited, retry) = server.upload("adhoc", Some(&a), &bytes("testdata/trec_eval/test/results.trunc"));
    assert_eq!((code, limited["status"].as_str()), (429, Some("rate_limited")), "{limited}");
    let seconds: u64 = retry.expect("Retry-After").parse().expect("seconds");
    assert!((1..=30).contains(&seconds), "one request every 30 s: {seconds}");
    assert_eq!(server.stored_files(), stored);
    assert_eq!(server.get("/api/submissions/1", Some(&a)).0, 429);
    // Another team has its own rate; requests without a token (the leaderboard) have none.
    assert_eq!(server.upload("adhoc", Some(&b), &run).0, 201);
    for _ in 0..5 {
        assert_eq!(server.get("/api/tasks/adhoc/leaderboard", None).0, 200);
    }
}
