//! `kgeval serve --rescore` of a submission whose scoring failed at upload (out of time): it is
//! scored again under the campaign's time limit, gets a new score row (no row updated or
//! deleted), counts on the leaderboard from then on — not against the team's limits — and the
//! diff lists it.

use std::path::Path;

use serde_json::Value;

use crate::serve::{data, open_phase, serve_command, Served};

/// Every row of the submissions and scores tables, as text, in id order.
fn rows(db: &Path) -> (Vec<String>, Vec<String>) {
    let connection =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).expect("the database");
    let dump = |query: &str| -> Vec<String> {
        let mut statement = connection.prepare(query).expect("a query");
        let columns = statement.column_count();
        let rows = statement
            .query_map([], |row| {
                let mut line = Vec::with_capacity(columns);
                for i in 0..columns {
                    line.push(format!("{:?}", row.get_ref(i)?));
                }
                Ok(line.join("|"))
            })
            .expect("rows");
        rows.collect::<Result<Vec<_>, _>>().expect("read")
    };
    (dump("SELECT * FROM submissions ORDER BY id"), dump("SELECT * FROM scores ORDER BY id"))
}

#[test]
fn rescoring_scores_a_failed_submission_and_the_leaderboard_counts_it() {
    let dir = tempfile::tempdir().expect("a folder");
    std::fs::copy(data("testdata/trec_eval/test/qrels.test"), dir.path().join("qrels.txt")).expect("qrels");
    let file = dir.path().join("campaign.toml");
    let db = dir.path().join("campaign.sqlite");
    let db_arg = db.to_str().expect("utf-8").to_owned();
    let write = |time_limit: &str| {
        let text = format!(
            "[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"qrels.txt\"\nmeasures = [\"map\"]\n\
             primary = \"map\"\n[serve]\ntime_limit = {time_limit}\n{}",
            open_phase("p", "limit = { per_day = 1 }")
        );
        std::fs::write(&file, text).expect("campaign");
    };
    let run = std::fs::read(data("testdata/trec_eval/test/results.test")).expect("a run");
    let other = std::fs::read(data("testdata/trec_eval/test/results-302.test")).expect("a run");

    // B's upload scores; A's runs out of time (a limit of a microsecond): 422, failed (and
    // counted against A's limits). The time limit is no part of the scorer version: both servers have one.
    write("60");
    let server = Served::start_on(&file, &db);
    let (a, b) = (server.add_team("A", false), server.add_team("B", false));
    let (code, up_b, _) = server.upload("adhoc", Some(&b), &other);
    assert_eq!(code, 201, "{up_b}");
    drop(server);
    write("0.000001");
    let server = Served::start_on(&file, &db);
    let (code, failed, _) = server.upload("adhoc", Some(&a), &run);
    assert_eq!((code, failed["status"].as_str()), (422, Some("failed")), "{failed}");
    let id = failed["id"].as_i64().expect("an id");
    drop(server);
    let (submissions, scores) = rows(&db);
    assert_eq!((submissions.len(), scores.len()), (2, 1));

    // Rescored under a normal limit: one new row, the diff lists A's submission.
    write("60");
    let output = serve_command(&file, &["--db", &db_arg, "--rescore"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let diff = String::from_utf8(output.stdout).expect("UTF-8");
    let map = crate::kgeval_json(&[
        "trec",
        "testdata/trec_eval/test/qrels.test",
        "testdata/trec_eval/test/results.test",
        "-m",
        "map",
    ])["runs"][0]["summary"]["map"]
        .as_f64()
        .expect("map");
    let map_b = up_b["scores"]["map"].as_f64().expect("map");
    assert!(diff.starts_with("task adhoc, phase p: 1 submission(s) rescored, kgeval "), "{diff}");
    assert!(diff.contains(&format!("\nsubmission {id} of A: old failed (at upload), new {map}\n")), "{diff}");
    assert!(
        diff.contains(&format!("\nA\t-\t{map}\t-\n")) && diff.contains(&format!("\nB\t{map_b}\t{map_b}\t+0\n")),
        "{diff}"
    );
    // Only a score row added: every earlier row as it was.
    let (after_submissions, after_scores) = rows(&db);
    assert_eq!(after_submissions, submissions, "no submission row changed");
    assert_eq!((&after_scores[..1], after_scores.len()), (&scores[..], 2), "one score row added");
    assert!(after_scores[1].starts_with(&format!("Integer(2)|Integer({id})|")), "{after_scores:?}");

    // The restarted server counts it: on the leaderboard, scored for its team; the limits as
    // counted at upload (A's failed upload did not count, so A may upload once more today).
    let server = Served::start_on(&file, &db);
    let (code, board) = server.get("/api/tasks/adhoc/leaderboard", None);
    assert_eq!(code, 200, "{board}");
    let board: Value = serde_json::from_str(&board).expect("JSON");
    let row = board["rows"].as_array().and_then(|r| r.iter().find(|r| r["team"] == "A")).cloned();
    assert_eq!(row.as_ref().and_then(|r| r["submission"].as_i64()), Some(id), "{board}");
    assert_eq!(row.and_then(|r| r["scores"]["map"].as_f64()), Some(map));
    let (code, read) = server.get(&format!("/api/submissions/{id}"), Some(&a));
    assert_eq!(code, 200);
    let read: Value = serde_json::from_str(&read).expect("JSON");
    assert_eq!((read["status"].as_str(), read["scores"]["map"].as_f64()), (Some("scored"), Some(map)), "{read}");
    assert!(read["error"].as_str().is_some_and(|e| e.contains("longer than")), "the upload's error kept: {read}");
    // Its page, as team A sees it in a browser: scored, the upload's error kept, and why it
    // counts (screenshot: target/serve-browser/rescored-failed.png).
    if let Some(chromium) = crate::campaign_browser::chromium() {
        let mut browser = crate::cdp::Browser::start(&chromium, 1280, 900);
        crate::serve_browser::sign_in(&mut browser, &server, &a, "A");
        browser.open(&format!("{}/submissions/{id}", server.url));
        assert_eq!(browser.text("#status").as_deref(), Some("scored"), "{}", browser.html());
        assert!(browser.text("#error").is_some_and(|e| e.contains("longer than")), "{}", browser.html());
        let html = browser.html();
        assert!(html.contains("<h2>Error at upload</h2>"), "{html}");
        assert!(html.contains("the organisers scored it again, and it counts on the leaderboard"), "{html}");
        browser.screenshot(&crate::serve_browser::shots().join("rescored-failed.png"));
        browser.close();
    } else {
        eprintln!("SKIPPED the rescored page in a browser: no chromium found");
    }
    // The limits stay as counted at upload: A's upload stopped for its time counted, as B's
    // scored one did.
    assert_eq!(server.upload("adhoc", Some(&a), &other).0, 429);
    assert_eq!(server.upload("adhoc", Some(&b), &other).0, 429);
    drop(server);

    // Rescoring again finds nothing to do.
    let again = serve_command(&file, &["--db", &db_arg, "--rescore"]);
    let again = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(again.contains(": 0 submission(s) rescored") && !again.contains("old failed"), "{again}");
}
