//! `kgeval serve` in a real browser: headless Chromium driven through the DevTools protocol
//! ([`crate::cdp`]) signs a team in with its token, uploads a malformed run through the form
//! and reads the located error on the page, uploads a good run and reads its score (training
//! phase) or only "received" (test phase), and finds it on the leaderboard page (or the
//! leaderboard hidden). Screenshots go to `target/serve-browser/`. Skipped, with the reason
//! printed, only when no Chromium is installed (Debian `chromium`; `.ci/run` installs it).

use std::path::{Path, PathBuf};

use crate::cdp::Browser;
use crate::serve::{data, kgeval_trec, open_phase, trec_task, Served};

/// A malformed run: line 2's rank is not a number.
const BAD_RUN: &[u8] = b"301 Q0 doc1 1 0.5 run\n301 Q0 doc2 x 0.4 run\n";

/// `target/serve-browser/`, created.
pub(crate) fn shots() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| crate::root().join("target"), PathBuf::from);
    let dir = target.join("serve-browser");
    std::fs::create_dir_all(&dir).expect("the screenshot folder");
    dir
}

/// Signs in at `/login` with `token` and checks the header names `team`.
pub(crate) fn sign_in(browser: &mut Browser, server: &Served, token: &str, team: &str) {
    browser.open(&format!("{}/login", server.url));
    browser.type_into("#token", token);
    browser.click_and_wait("main form.upload button[type=submit]");
    let who = browser.text("header .who").unwrap_or_default();
    assert_eq!(who, format!("Signed in as {team}"), "{}", browser.html());
    assert_eq!(browser.eval("location.pathname").as_str(), Some("/submit"));
}

/// Uploads `file` as `system` through the form at `/submit` (signed in: no token typed) and
/// returns the submission page's status.
fn upload(browser: &mut Browser, server: &Served, file: &Path, system: &str) -> String {
    browser.open(&format!("{}/submit", server.url));
    browser.choose_file("#file", file);
    browser.type_into("#system", system);
    browser.click_and_wait("main form.upload button[type=submit]");
    browser.text("#status").unwrap_or_else(|| panic!("no status on the page:\n{}", browser.html()))
}

#[test]
fn a_team_uploads_from_a_browser_and_reads_errors_scores_and_the_leaderboard() {
    let Some(chromium) = crate::campaign_browser::chromium() else {
        eprintln!("SKIPPED serve browser test: no chromium found (Debian chromium; or set KGEVAL_CHROMIUM)");
        return;
    };
    let shots = shots();
    let files = tempfile::tempdir().expect("a folder");
    let bad = files.path().join("bad.run");
    std::fs::write(&bad, BAD_RUN).expect("written");
    let good = data("testdata/trec_eval/test/results.test");
    let map = format!("{:.4}", kgeval_trec("testdata/trec_eval/test/results.test", "map"));
    let baseline_map = format!("{:.4}", kgeval_trec("testdata/trec_eval/test/results.trunc", "map"));

    // Training: scores and per-topic values shown at once, a public leaderboard.
    let campaign = format!(
        "title = \"Browser demo\"\n{}[serve]\n{}[[serve.baseline]]\ntask = \"adhoc\"\nname = \"BM25 (organisers)\"\nfile = {:?}\n",
        trec_task("adhoc", ""),
        open_phase("training", "feedback = \"items\""),
        data("testdata/trec_eval/test/results.trunc")
    );
    let server = Served::start(&campaign);
    let token = server.add_team("Team A", false);
    let mut browser = Browser::start(&chromium, 1280, 900);
    sign_in(&mut browser, &server, &token, "Team A");

    assert_eq!(upload(&mut browser, &server, &bad, "bm25-rm3"), "invalid");
    let error = browser.text("#error").unwrap_or_default();
    assert!(error.starts_with("upload:2:"), "the located error: {error:?}");
    assert!(browser.html().contains("Not counted against your limits"));
    browser.screenshot(&shots.join("training-invalid.png"));

    assert_eq!(upload(&mut browser, &server, &good, "bm25-rm3"), "scored");
    let scores = browser.text("#scores").unwrap_or_default();
    assert!(scores.contains("map ★") && scores.contains(&map), "map {map} in {scores:?}");
    let items = browser.text("#items").unwrap_or_default();
    // An item a row, a metric a column.
    assert!(items.starts_with("Item\tmap\tP_10\n"), "{items:?}");
    assert_eq!(items.lines().count(), 4, "three topics: {items:?}");
    browser.screenshot(&shots.join("training-scored.png"));

    browser.open(&format!("{}/tasks/adhoc", server.url));
    let board = browser.text("#board-adhoc").unwrap_or_else(|| panic!("no leaderboard:\n{}", browser.html()));
    let rows: Vec<&str> = board.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "the team and the baseline: {board:?}");
    assert!(rows[0].contains("Team A") && rows[0].contains("bm25-rm3") && rows[0].contains(&map), "{board:?}");
    assert!(rows[1].contains("BM25 (organisers) baseline") && rows[1].contains(&baseline_map), "{board:?}");
    browser.screenshot(&shots.join("training-leaderboard.png"));
    browser.close();

    // Test: the upload is only "received", no score anywhere, the leaderboard hidden.
    let campaign = format!(
        "{}[serve]\n{}",
        trec_task("adhoc", ""),
        open_phase("test", "feedback = \"none\"\nleaderboard = \"hidden\"")
    );
    let server = Served::start(&campaign);
    let token = server.add_team("Team A", false);
    let mut browser = Browser::start(&chromium, 1280, 900);
    sign_in(&mut browser, &server, &token, "Team A");
    assert_eq!(upload(&mut browser, &server, &good, "bm25-rm3"), "received");
    let page = browser.html();
    assert!(page.contains("this phase shows no score"), "{page}");
    assert!(!page.contains(&map) && !page.contains("id=\"scores\"") && !page.contains("id=\"items\""), "{page}");
    browser.screenshot(&shots.join("test-received.png"));
    browser.open(&format!("{}/submit", server.url));
    let own = browser.text("#own").unwrap_or_default();
    assert!(own.contains("bm25-rm3") && own.contains("received"), "the team's list: {own:?}");
    browser.open(&format!("{}/tasks/adhoc", server.url));
    let page = browser.html();
    assert!(browser.text("#board-adhoc").is_none() && !page.contains(&map), "{page}");
    browser.screenshot(&shots.join("test-leaderboard.png"));
    browser.close();
}
