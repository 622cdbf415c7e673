//! `kgeval serve`'s web pages on the real binary: the form upload (multipart, token field or
//! cookie), the located error and the scores on the submission's page, the leaderboard with
//! its significance letters and tiers (those of `kgeval compare` on the same files), every
//! team and system name escaped on every page, the CSP on every answer, no score of a hidden
//! phase on any page.

use std::path::Path;

use serde_json::Value;

use crate::serve::{open_phase, Served};

/// `multipart/form-data` of `fields` (name, file name, bytes) with boundary `XyZ`.
pub(crate) fn form(fields: &[(&str, Option<&str>, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, filename, bytes) in fields {
        body.extend_from_slice(b"--XyZ\r\nContent-Disposition: form-data; name=\"");
        body.extend_from_slice(name.as_bytes());
        body.push(b'"');
        if let Some(filename) = filename {
            body.extend_from_slice(format!("; filename=\"{filename}\"").as_bytes());
        }
        body.extend_from_slice(b"\r\n\r\n");
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"--XyZ--\r\n");
    body
}

pub(crate) const FORM_TYPE: (&str, &str) = ("Content-Type", "multipart/form-data; boundary=XyZ");

/// `POST /submit` with a token field (or a cookie): status, page, headers.
fn upload_form(
    server: &Served,
    token: Option<&str>,
    cookie: Option<&str>,
    task: &str,
    system: &str,
    file: &[u8],
) -> (u16, String, Vec<(String, String)>) {
    let mut fields: Vec<(&str, Option<&str>, &[u8])> =
        vec![("task", None, task.as_bytes()), ("system", None, system.as_bytes()), ("file", Some("../run.txt"), file)];
    if let Some(token) = token {
        fields.insert(0, ("token", None, token.as_bytes()));
    }
    let cookie = cookie.map(|c| format!("kgeval_token={c}"));
    let mut headers = vec![FORM_TYPE];
    if let Some(cookie) = &cookie {
        headers.push(("Cookie", cookie));
    }
    server.request("POST", "/submit", &headers, Some(&form(&fields)))
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// `GET path` with the team's cookie.
fn page(server: &Served, path: &str, cookie: Option<&str>) -> (u16, String, Vec<(String, String)>) {
    let cookie = cookie.map(|c| format!("kgeval_token={c}"));
    let headers: Vec<(&str, &str)> = cookie.iter().map(|c| ("Cookie", c.as_str())).collect();
    server.request("GET", path, &headers, None)
}

/// Every page: the CSP, no script, no user string unescaped.
fn check_page(path: &str, code: u16, body: &str, headers: &[(String, String)]) {
    let csp = header(headers, "content-security-policy").unwrap_or_else(|| panic!("{path}: no CSP"));
    assert!(csp.starts_with("default-src 'none'") && !csp.contains("script-src"), "{path}: {csp}");
    assert_eq!(header(headers, "x-content-type-options"), Some("nosniff"), "{path}");
    if code != 303 {
        assert!(header(headers, "content-type").is_some_and(|t| t.starts_with("text/html")), "{path}");
    }
    for raw in ["<script", "<img", "<b>", "<i>", "javascript:", "http://", "https://"] {
        assert!(!body.contains(raw), "{path} ({code}) has {raw:?}:\n{body}");
    }
}

/// Ten topics with three relevant documents each, and a run whose relevant documents of topic
/// `t` are at the ranks `ranks(t)` (1-based) among 20.
fn run(name: &str, ranks: impl Fn(usize) -> [usize; 3]) -> String {
    let mut out = String::new();
    for topic in 1..=10 {
        let relevant = ranks(topic);
        let mut other = 0;
        for rank in 1..=20 {
            let docno = match relevant.iter().position(|&r| r == rank) {
                Some(i) => format!("r{topic}-{i}"),
                None => {
                    other += 1;
                    format!("n{topic}-{other}")
                }
            };
            out.push_str(&format!("{topic} Q0 {docno} {rank} {} {name}\n", 100 - rank));
        }
    }
    out
}

/// `kgeval trec`'s map of `dir/run` against `dir/qrels.txt`.
fn map_of(dir: &Path, run: &str) -> f64 {
    let trec = crate::kgeval_json(&[
        "trec",
        dir.join("qrels.txt").to_str().expect("utf-8"),
        dir.join(run).to_str().expect("utf-8"),
        "-m",
        "map",
    ]);
    trec["runs"][0]["summary"]["map"].as_f64().expect("map")
}

fn write_campaign(dir: &Path) -> std::path::PathBuf {
    let qrels: String =
        (1..=10).flat_map(|t| (0..3).map(move |i| format!("{t} 0 r{t}-{i} 1\n"))).collect::<Vec<_>>().concat();
    std::fs::write(dir.join("qrels.txt"), qrels).expect("qrels");
    std::fs::write(dir.join("baseline.run"), run("base", |t| [3 + t % 4, 9 + t % 3, 15 + t % 5])).expect("run");
    let campaign = format!(
        "title = \"Pages <i>demo</i>\"\n[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"qrels.txt\"\n\
         measures = [\"map\", \"P.10\"]\nprimary = \"map\"\nphases = [\"training\"]\n\
         [[task]]\nname = \"blind\"\nfamily = \"trec\"\nqrels = \"qrels.txt\"\nprimary = \"map\"\nphases = [\"test\"]\n\
         [serve]\n{}{}[[serve.baseline]]\ntask = \"adhoc\"\nname = \"BM25 <b>\"\nfile = \"baseline.run\"\n",
        open_phase("test", "feedback = \"none\"\nleaderboard = \"hidden\"")
            .replace("2000-01-01", "1999-01-01")
            .replace("2100-01-01", "2000-01-01"),
        open_phase("training", "feedback = \"items\""),
    );
    let file = dir.join("campaign.toml");
    std::fs::write(&file, campaign).expect("campaign");
    file
}

#[test]
fn pages_score_uploads_escape_names_and_mark_significance() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = write_campaign(dir.path());
    let server = Served::start_file(&file);
    let xss = "<script>alert(1)</script>";
    let a = server.add_team(xss, false);
    let b = server.add_team("B", false);
    let good = run("good", |t| [1, 2 + t % 3, 5 + t % 4]);
    let bad = run("bad", |t| [12 + t % 4, 16 + t % 3, 19 + t % 2]);
    std::fs::write(dir.path().join("good.run"), &good).expect("run");
    std::fs::write(dir.path().join("bad.run"), &bad).expect("run");

    // A malformed file: 422, the located line on the page, not counted.
    let (code, body, headers) = upload_form(&server, Some(&a), None, "adhoc", "", b"1 Q0 d 1 0.5 r\n1 Q0 e x 0.4 r\n");
    check_page("POST /submit (bad)", code, &body, &headers);
    assert_eq!(code, 422, "{body}");
    assert!(body.contains("<pre class=\"located\" id=\"error\">upload:2:"), "{body}");
    // The token typed in the form is kept in an HttpOnly, SameSite=Strict cookie.
    let cookie = header(&headers, "set-cookie").expect("a cookie");
    assert_eq!(cookie, format!("kgeval_token={a}; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000"));

    // A good file under an XSS system name, with the cookie only: 201, the scores as
    // `kgeval trec` gives them (4 decimals), the name escaped.
    let system = "<img src=x onerror=alert(2)>";
    let (code, body, headers) = upload_form(&server, None, Some(&a), "adhoc", system, good.as_bytes());
    check_page("POST /submit (good)", code, &body, &headers);
    assert_eq!(code, 201, "{body}");
    let map = map_of(dir.path(), "good.run");
    assert!(body.contains(&format!("<td class=\"text\">map ★</td><td>{map:.4}</td>")), "{body}");
    assert!(body.contains("&lt;img src=x onerror=alert(2)&gt;") && body.contains("&lt;script&gt;alert(1)"), "{body}");
    let id: i64 = body
        .split("<h1>Submission ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse().ok())
        .expect("an id in the heading");
    assert_eq!(upload_form(&server, Some(&b), None, "adhoc", "weak", bad.as_bytes()).0, 201);
    // A wrong token in the form: 401, the form again.
    let (code, body, headers) = upload_form(&server, Some(&"0".repeat(64)), None, "adhoc", "", good.as_bytes());
    check_page("POST /submit (wrong token)", code, &body, &headers);
    assert_eq!(code, 401);
    assert!(body.contains("found no team with this token"), "{body}");

    // Every page answers, escapes, carries the CSP.
    for (path, cookie, expected) in [
        ("/".to_owned(), None, 200),
        ("/tasks/adhoc".to_owned(), None, 200),
        ("/submit".to_owned(), Some(a.as_str()), 200),
        ("/submit".to_owned(), None, 200),
        (format!("/submissions/{id}"), Some(a.as_str()), 200),
        (format!("/submissions/{id}"), Some(b.as_str()), 404),
        (format!("/submissions/{id}"), None, 401),
        ("/login".to_owned(), None, 200),
        ("/tasks/nope".to_owned(), None, 404),
    ] {
        let (code, body, headers) = page(&server, &path, cookie);
        check_page(&path, code, &body, &headers);
        assert_eq!(code, expected, "{path}: {body}");
        if expected == 200 && path != "/login" && !(path == "/submit" && cookie.is_none()) {
            assert!(body.contains("&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"), "{path}: {body}");
        }
    }
    let (_, own, _) = page(&server, &format!("/submissions/{id}"), Some(&a));
    assert!(own.contains("<table id=\"items\">") && own.contains(&format!("{map:.4}")), "{own}");
    let (_, other, _) = page(&server, &format!("/submissions/{id}"), Some(&b));
    assert!(!other.contains(&format!("{map:.4}")), "{other}");

    // The leaderboard: baseline marked, letters and tiers those of `kgeval compare` (paired t,
    // Holm, α 0.05, a missing value 0) on the same files in leaderboard order.
    let (code, board) = server.get("/api/tasks/adhoc/leaderboard", None);
    assert_eq!(code, 200, "{board}");
    let board: Value = serde_json::from_str(&board).expect("JSON");
    let rows = board["rows"].as_array().expect("rows");
    let order: Vec<&str> = rows.iter().map(|r| r["system"].as_str().unwrap_or("")).collect();
    assert_eq!(order, [system, "BM25 <b>", "weak"]);
    assert!(board["significance"].as_str().is_some_and(|s| s.starts_with("paired t test, holm correction")), "{board}");
    let path = |label: &str, name: &str| format!("{label}={}", dir.path().join(name).display());
    let (g, base, w) = (path("g", "good.run"), path("base", "baseline.run"), path("w", "bad.run"));
    let qrels = dir.path().join("qrels.txt");
    let compare = crate::kgeval_json(&[
        "compare",
        "--qrels",
        qrels.to_str().expect("utf-8"),
        "--run",
        &g,
        "--run",
        &base,
        "--run",
        &w,
        "-m",
        "map",
        "--missing",
        "zero",
    ]);
    let expected: Vec<(String, i64, String)> = compare["metrics"][0]["leaderboard"]
        .as_array()
        .expect("a leaderboard")
        .iter()
        .map(|r| {
            let letter = r["letter"].as_str().unwrap_or("").to_owned();
            (letter, r["tier"].as_i64().unwrap_or(0), r["marks"].as_str().unwrap_or("").to_owned())
        })
        .collect();
    let mut served: Vec<(String, i64, String)> = rows
        .iter()
        .map(|r| {
            let letter = r["letter"].as_str().unwrap_or("").to_owned();
            (letter, r["tier"].as_i64().unwrap_or(0), r["beats"].as_str().unwrap_or("").to_owned())
        })
        .collect();
    served.sort();
    let mut expected = expected;
    expected.sort();
    assert_eq!(served, expected);
    assert!(served.iter().any(|(_, _, beats)| !beats.is_empty()), "a row beats another: {served:?}");
    let (_, html, _) = page(&server, "/tasks/adhoc", None);
    assert!(html.contains("<span class=\"baseline\">baseline</span>"), "{html}");
    assert!(html.contains("Test: paired t test, holm correction, α = 0.05, on per-item values of map"), "{html}");
    let top_marks = rows[0]["beats"].as_str().unwrap_or("");
    if !top_marks.is_empty() {
        assert!(html.contains(&format!("<sup class=\"marks\" title=\"beats {top_marks} significantly\">")), "{html}");
    }
}

#[test]
fn a_hidden_phase_shows_no_score_on_any_page() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = write_campaign(dir.path());
    // The training phase (open) and the test phase (past, hidden): swap them so the hidden
    // one is open now.
    let text = std::fs::read_to_string(&file).expect("campaign");
    let text = text.replace("phases = [\"test\"]", "phases = [\"training\"]").replacen(
        "feedback = \"items\"",
        "feedback = \"none\"\nleaderboard = \"hidden\"",
        1,
    );
    std::fs::write(&file, text).expect("campaign");
    let server = Served::start_file(&file);
    let a = server.add_team("A", false);
    let organiser = server.add_team("org", true);
    let good = run("good", |t| [1, 2 + t % 3, 5 + t % 4]);
    std::fs::write(dir.path().join("good.run"), &good).expect("run");
    let map = format!("{:.4}", map_of(dir.path(), "good.run"));
    let (code, body, headers) = upload_form(&server, Some(&a), None, "blind", "", good.as_bytes());
    check_page("POST /submit", code, &body, &headers);
    assert_eq!(code, 201, "{body}");
    assert!(body.contains("id=\"status\">received<") && !body.contains("<table id=\"scores\">"), "{body}");
    let id = body.split("<h1>Submission ").nth(1).and_then(|r| r.split(':').next()).expect("an id").to_owned();
    let mut seen = vec![body];
    for (path, expected) in [
        ("/".to_owned(), 200),
        ("/tasks/blind".to_owned(), 403),
        ("/tasks/blind?phase=training".to_owned(), 403),
        (format!("/submissions/{id}"), 200),
        ("/submit".to_owned(), 200),
    ] {
        let (code, body, headers) = page(&server, &path, Some(&a));
        check_page(&path, code, &body, &headers);
        assert_eq!(code, expected, "{path}: {body}");
        seen.push(body);
    }
    for body in &seen {
        assert!(!body.contains("map ★") && !body.contains("id=\"board-blind\"") && !body.contains(&map), "{body}");
    }
    // The organisers see the hidden leaderboard and the scores.
    let (code, body, _) = page(&server, "/tasks/blind", Some(&organiser));
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("id=\"board-blind\"") && body.contains("<td class=\"text\">A</td>"), "{body}");
}

#[test]
fn login_keeps_the_token_in_a_cookie_and_logout_clears_it() {
    let server = Served::start(&format!("{}[serve]\n{}", crate::serve::trec_task("adhoc", ""), open_phase("p", "")));
    let a = server.add_team("A", false);
    let urlencoded = ("Content-Type", "application/x-www-form-urlencoded");
    let (code, body, headers) = server.request("POST", "/login", &[urlencoded], Some(b"token=wrong"));
    check_page("POST /login", code, &body, &headers);
    assert_eq!((code, header(&headers, "set-cookie")), (401, None));
    let (code, _, headers) = server.request("POST", "/login", &[urlencoded], Some(format!("token={a}").as_bytes()));
    assert_eq!((code, header(&headers, "location")), (303, Some("/submit")));
    assert!(header(&headers, "set-cookie").is_some_and(|c| c.contains("HttpOnly; SameSite=Strict")), "{headers:?}");
    let (_, body, _) = page(&server, "/submit", Some(&a));
    assert!(body.contains("Signed in as <strong>A</strong>"), "{body}");
    let (code, _, headers) = server.request("POST", "/logout", &[], Some(b""));
    assert_eq!(code, 303);
    assert!(header(&headers, "set-cookie").is_some_and(|c| c.contains("Max-Age=0")), "{headers:?}");
    // A form another site's page posts is refused, whatever it carries: no cookie set, none
    // cleared. The browser's own forms (same origin) pass.
    let url = server.url.trim_end_matches('/');
    let login = format!("token={a}");
    for forged in [
        vec![urlencoded, ("Origin", "http://evil.example")],
        vec![urlencoded, ("Origin", "null")],
        vec![urlencoded, ("Sec-Fetch-Site", "cross-site")],
        vec![urlencoded, ("Origin", url), ("Sec-Fetch-Site", "same-site")],
    ] {
        for path in ["/login", "/logout", "/submit"] {
            let (code, body, headers) = server.request("POST", path, &forged, Some(login.as_bytes()));
            check_page(&format!("POST {path}"), code, &body, &headers);
            assert_eq!((code, header(&headers, "set-cookie")), (403, None), "{path} {forged:?}");
            assert!(body.contains("sent from another site"), "{body}");
        }
    }
    let same = [urlencoded, ("Origin", url), ("Sec-Fetch-Site", "same-origin")];
    let (code, _, headers) = server.request("POST", "/login", &same, Some(login.as_bytes()));
    assert_eq!((code, header(&headers, "location")), (303, Some("/submit")));
    assert_eq!(server.stored_files(), 0, "nothing stored");
    // The stylesheet is the only resource a page loads.
    let (code, css, headers) = server.request("GET", "/style.css", &[], None);
    assert_eq!((code, header(&headers, "content-type")), (200, Some("text/css; charset=utf-8")));
    assert!(css.contains("--accent"));
}

/// The request rate holds per team for the pages' form uploads too, whether the form carries
/// the token or the browser its cookie, and one bucket serves the form and the API.
#[test]
fn form_uploads_take_from_the_teams_request_rate() {
    let campaign =
        format!("{}[serve]\nrequests_per_minute = 2\n{}", crate::serve::trec_task("adhoc", ""), open_phase("p", ""));
    let server = Served::start(&campaign);
    let (a, b) = (server.add_team("A", false), server.add_team("B", false));
    let run = std::fs::read(crate::serve::data("testdata/trec_eval/test/results.test")).expect("a run");
    // A burst of two (a token back every 30 s): the token field, then the cookie.
    assert_eq!(upload_form(&server, Some(&a), None, "adhoc", "", &run).0, 201);
    assert_eq!(upload_form(&server, None, Some(&a), "adhoc", "", &run).0, 201);
    let stored = server.stored_files();
    for (token, cookie) in [(Some(a.as_str()), None), (None, Some(a.as_str()))] {
        let (code, body, headers) = upload_form(&server, token, cookie, "adhoc", "", &run);
        check_page("POST /submit", code, &body, &headers);
        assert_eq!(code, 429, "{body}");
        let seconds: u64 = header(&headers, "retry-after").expect("Retry-After").parse().expect("seconds");
        assert!((1..=30).contains(&seconds), "{seconds}");
        assert!(body.contains("requests a minute"), "{body}");
    }
    assert_eq!(server.stored_files(), stored, "nothing stored");
    // The API shares the bucket; another team has its own.
    assert_eq!(server.upload("adhoc", Some(&a), &run).0, 429);
    assert_eq!(upload_form(&server, None, Some(&b), "adhoc", "", &run).0, 201);
}
