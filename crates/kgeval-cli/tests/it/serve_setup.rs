//! `kgeval serve` refuses a set-up that contradicts itself or cannot work, at start rather
//! than at the first upload: a blind phase whose leaderboard is public by default, a database
//! or blob folder it cannot write, a team name that looks like another or hides characters;
//! and every CSV it writes (the leaderboard's, `--export`'s) defuses spreadsheet formulas.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::serve::{blob_dir, data, open_phase, serve_command, trec_task, Served};

/// Writes a campaign of one open trec task (its phase with `phase` lines) into `dir`.
fn campaign(dir: &Path, phase: &str) -> PathBuf {
    let file = dir.join("campaign.toml");
    std::fs::write(&file, format!("{}[serve]\n{}", trec_task("adhoc", ""), open_phase("p", phase))).expect("written");
    file
}

/// Starts `kgeval serve FILE --db DB` and waits at most 60 s for it to stop (killed then, and
/// the test fails: it should have refused to start).
fn start_refused(file: &Path, db: &Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kgeval"))
        .arg("serve")
        .arg(file)
        .arg("--db")
        .arg(db)
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kgeval serve");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let output = child.wait_with_output().expect("output");
            panic!("the server started: {}", String::from_utf8_lossy(&output.stdout));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

/// The one line on stderr of a command that failed with exit 2.
fn error_line(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stdout));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr.trim_end().to_owned()
}

#[test]
fn a_blind_phase_with_a_leaderboard_public_by_default_is_refused() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = campaign(dir.path(), "feedback = \"none\"");
    let line = error_line(&serve_command(&file, &["--add-team", "A"]));
    assert!(
        line.starts_with(&format!(
            "error: {}:13:12: found feedback = \"none\" in phase \"p\", whose leaderboard is public by default",
            file.display()
        )),
        "{line}"
    );
    // Said explicitly, it is what the organisers want.
    let file = campaign(dir.path(), "feedback = \"none\"\nleaderboard = \"public\"");
    assert!(serve_command(&file, &["--add-team", "A"]).status.success());
}

#[test]
fn a_database_or_blob_folder_that_cannot_be_written_stops_the_start() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = campaign(dir.path(), "");
    let db = dir.path().join("campaign.sqlite");
    assert!(serve_command(&file, &["--db", db.to_str().expect("utf-8"), "--add-team", "A"]).status.success());
    // A database SQLite must treat as read-only (its header's write version above 2: the same
    // refusal as a file the user may not write, which root, running the tests in CI, may).
    let healthy = std::fs::read(&db).expect("the database");
    let mut read_only = healthy.clone();
    read_only[18] = 3;
    std::fs::write(&db, &read_only).expect("written");
    let line = error_line(&start_refused(&file, &db));
    assert!(
        line.starts_with(&format!(
            "error: database: {}: cannot write: attempt to write a readonly database",
            db.display()
        )),
        "{line}"
    );
    std::fs::write(&db, &healthy).expect("written");
    // A blob folder on a file system no one may write (a link to /proc).
    let blobs = blob_dir(&db);
    std::fs::remove_dir_all(&blobs).expect("removed");
    std::os::unix::fs::symlink("/proc/self", &blobs).expect("linked");
    let line = error_line(&start_refused(&file, &db));
    assert!(line.starts_with(&format!("error: {}: cannot write: ", blobs.display())), "{line}");
    // Writable again, it starts.
    std::fs::remove_file(&blobs).expect("unlinked");
    let served = Served::start_on(&file, &db);
    assert_eq!(served.get("/api/health", None).0, 200);
}

#[test]
fn team_names_are_unique_as_read_and_hide_nothing() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = campaign(dir.path(), "");
    assert!(serve_command(&file, &["--add-team", "Team A"]).status.success());
    for look_alike in ["team a", "TEAM A", "Team\u{A0}A", "\u{FF34}\u{FF45}\u{FF41}\u{FF4D} \u{FF21}"] {
        let line = error_line(&serve_command(&file, &["--add-team", look_alike]));
        assert!(line.starts_with(&format!("error: found team {look_alike:?} in the database already")), "{line}");
    }
    for (hidden, code) in [("Team\u{200B}A", "200B"), ("Team A\u{202E}", "202E"), ("\u{2066}Team B", "2066")] {
        let line = error_line(&serve_command(&file, &["--add-team", hidden]));
        assert!(line.starts_with(&format!("error: found U+{code} in the team name")), "{line}");
    }
    assert!(serve_command(&file, &["--add-team", "Team B"]).status.success());
}

#[test]
fn the_exported_and_leaderboard_csvs_defuse_formulas() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = campaign(dir.path(), "");
    let db = dir.path().join("campaign.sqlite");
    let server = Served::start_on(&file, &db);
    let team = "=HYPERLINK(\"http://x\",\"y\")";
    let token = server.add_team(team, false);
    let run = std::fs::read(data("testdata/trec_eval/test/results.test")).expect("a run");
    let (code, body, _) = server.upload("adhoc", Some(&token), &run);
    assert_eq!(code, 201, "{body}");
    let defused = "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"";
    let (code, board) = server.get("/api/tasks/adhoc/leaderboard.csv", None);
    assert_eq!(code, 200);
    assert!(board.contains(&format!(",{defused},")), "{board}");
    drop(server);
    let out = dir.path().join("report");
    let output = serve_command(&file, &["--db", db.to_str().expect("utf-8"), "--export", out.to_str().expect("utf-8")]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let csv = std::fs::read_to_string(out.join("adhoc.csv")).expect("the task's CSV");
    assert!(csv.contains(defused), "{csv}");
    // No cell of the file starts a formula.
    for line in csv.lines() {
        for cell in line.split(',') {
            let cell = cell.trim_start_matches('"');
            assert!(!cell.starts_with(['=', '+', '@']), "{line}");
        }
    }
}
