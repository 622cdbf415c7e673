//! The organiser's desk and the participant's view in a real browser (headless Chromium
//! through [`crate::cdp`]): a team registers with the invite code and reads its token once,
//! uploads, reads its score, its uploads left and the phase's time left, downloads its
//! per-item values as CSV; an organiser lists the submission at `/admin` and downloads the
//! file byte for byte; a revoked token is refused at once. Screenshots go to
//! `target/serve-browser/`. Skipped, with the reason printed, only when no Chromium is
//! installed.

use sha2::{Digest as _, Sha256};

use crate::cdp::Browser;
use crate::serve::{data, open_phase, serve_command, trec_task, Served};
use crate::serve_browser::shots;

fn sha256(bytes: &[u8]) -> Vec<u8> {
    Sha256::digest(bytes).to_vec()
}

#[test]
fn a_team_registers_uploads_and_an_organiser_downloads_its_file() {
    let Some(chromium) = crate::campaign_browser::chromium() else {
        eprintln!("SKIPPED serve browser desk test: no chromium found (Debian chromium; or set KGEVAL_CHROMIUM)");
        return;
    };
    let shots = shots();
    let campaign = format!(
        "title = \"Desk demo\"\n{}[serve]\nregistration = \"invite\"\ninvite_code = \"let-me-in-please\"\n{}",
        trec_task("adhoc", ""),
        open_phase("training", "feedback = \"items\"\nlimit = { per_day = 5, total = 10 }")
    );
    let server = Served::start(&campaign);
    let mut browser = Browser::start(&chromium, 1400, 900);

    // Registration: the token is shown once, and the browser is signed in.
    browser.open(&format!("{}/register", server.url));
    browser.type_into("#name", "Team A");
    browser.type_into("#code", "let-me-in-please");
    browser.click_and_wait("main form.upload button[type=submit]");
    let token = browser.text("#token").unwrap_or_else(|| panic!("no token shown:\n{}", browser.html()));
    assert_eq!(token.len(), 64, "{token}");
    assert_eq!(browser.text("header .who").as_deref(), Some("Signed in as Team A"));
    browser.screenshot(&shots.join("desk-registered.png"));

    // An upload through the form; the scores, the uploads left and the time left.
    let run = data("testdata/trec_eval/test/results.test");
    browser.open(&format!("{}/submit", server.url));
    browser.choose_file("#file", &run);
    browser.click_and_wait("main form.upload button[type=submit]");
    assert_eq!(browser.text("#status").as_deref(), Some("scored"), "{}", browser.html());
    let downloads = tempfile::tempdir().expect("a folder");
    let items = browser.download("a[href$='/items.csv']", &downloads.path().join("items"));
    let items = std::fs::read_to_string(items).expect("the CSV");
    assert!(items.starts_with("item,map,P_10\n"), "{items}");
    browser.open(&format!("{}/submit", server.url));
    assert_eq!(browser.text("#left").as_deref(), Some("Uploads left: adhoc 4 today, 9 in all."));
    let closing = browser.text("#closing").unwrap_or_default();
    assert!(closing.starts_with("Phase training closes on 2100-01-01 00:00 UTC: "), "{closing}");
    assert!(browser.text("#own").is_some_and(|own| own.contains("scored")), "{}", browser.html());
    browser.screenshot(&shots.join("desk-participant.png"));

    // The organiser's desk: the submission listed, its file downloaded byte for byte.
    let organiser = server.add_team("organisers", true);
    browser.click_and_wait("header form button");
    browser.open(&format!("{}/login", server.url));
    browser.type_into("#token", &organiser);
    browser.click_and_wait("main form.upload button[type=submit]");
    assert_eq!(browser.text("header .who").as_deref(), Some("Signed in as organisers (organiser)"));
    browser.open(&format!("{}/admin", server.url));
    let listed = browser.text("#submissions").unwrap_or_else(|| panic!("no submissions:\n{}", browser.html()));
    assert!(listed.contains("Team A") && listed.contains("scored"), "{listed}");
    browser.screenshot(&shots.join("desk-admin.png"));
    let file = browser.download("#submissions a[href$='/file']", &downloads.path().join("file"));
    assert_eq!(sha256(&std::fs::read(file).expect("the file")), sha256(&std::fs::read(&run).expect("the run")));

    // Revoked: the old token is refused at once.
    let file = server.dir.path().join("campaign.toml");
    let output = serve_command(&file, &["--revoke-team", "Team A"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(server.get("/api/submissions", Some(&token)).0, 401);
    browser.close();
}
