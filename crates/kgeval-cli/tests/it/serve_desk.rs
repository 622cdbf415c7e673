//! The organiser's desk as an organiser and teams meet it, on the real binary: teams register
//! with an invite code, list their own submissions (JSON, CSV) and download their files; an
//! organiser lists everyone's, filters, downloads any file byte for byte, reads `/admin`, and
//! revokes or replaces a token with the server running.

use serde_json::Value;
use sha2::{Digest as _, Sha256};

use crate::root;
use crate::serve::{data, open_phase, serve_command, trec_task, Served};
use crate::serve_pages::{form, FORM_TYPE};

const INVITE: &str = "let-me-in-please";

fn campaign() -> String {
    format!(
        "{}[serve]\nregistration = \"invite\"\ninvite_code = \"{INVITE}\"\n{}",
        trec_task("adhoc", ""),
        open_phase("training", "feedback = \"items\"\nlimit = { per_day = 5, total = 10 }")
    )
}

/// `application/x-www-form-urlencoded` of `fields`.
fn urlencoded(fields: &[(&str, &str)]) -> Vec<u8> {
    let encode = |text: &str| -> String {
        text.bytes()
            .map(|b| if b.is_ascii_alphanumeric() { char::from(b).to_string() } else { format!("%{b:02X}") })
            .collect()
    };
    fields.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect::<Vec<_>>().join("&").into_bytes()
}

const URLENCODED: (&str, &str) = ("Content-Type", "application/x-www-form-urlencoded");

/// Registers `name` with `code` at `/register`: the status, the page and the token shown.
fn register(server: &Served, name: &str, code: &str) -> (u16, String, Option<String>) {
    let body = urlencoded(&[("name", name), ("code", code)]);
    let (status, page, _) = server.request("POST", "/register", &[URLENCODED], Some(&body));
    let token = page
        .split("<pre class=\"token mono\" id=\"token\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .map(str::to_owned);
    (status, page, token)
}

fn json_get(server: &Served, path: &str, token: &str) -> (u16, Value) {
    let (code, body) = server.get(path, Some(token));
    (code, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}")))
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn teams_register_and_organisers_keep_the_desk() {
    let server = Served::start(&campaign());
    // Registration: a wrong code is refused, a right one shows the token once.
    assert_eq!(register(&server, "Team A", "guess").0, 403);
    let (code, page, token) = register(&server, "Team A", INVITE);
    assert_eq!(code, 201, "{page}");
    let a = token.expect("the token on the page");
    assert_eq!(register(&server, "team a", INVITE).0, 400, "the name is taken");
    let b = server.add_team("Team B", false);
    let organiser = server.add_team("organisers", true);

    let run = std::fs::read(data("testdata/trec_eval/test/results.test")).expect("data");
    let (code, first, _) = server.upload("adhoc", Some(&a), &run);
    assert_eq!(code, 201, "{first}");
    assert_eq!(server.upload("adhoc", Some(&b), &run).0, 201);
    assert_eq!(server.upload("adhoc", Some(&b), b"q1 Q0 d1 1 x\n").0, 422);

    // A team lists its own; another team's name is 403.
    let (code, own) = json_get(&server, "/api/submissions", &a);
    assert_eq!(code, 200, "{own}");
    let own = own["submissions"].as_array().expect("rows").clone();
    assert_eq!(own.len(), 1, "{own:?}");
    assert_eq!((own[0]["team"].as_str(), own[0]["value"].as_f64()), (Some("Team A"), first["scores"]["map"].as_f64()));
    assert_eq!(json_get(&server, "/api/submissions?team=Team%20B", &a).0, 403);
    // The organiser lists every team's, filters, and reads the CSV.
    let (_, all) = json_get(&server, "/api/submissions", &organiser);
    assert_eq!(all["submissions"].as_array().map(Vec::len), Some(3), "{all}");
    let (_, of_b) = json_get(&server, "/api/submissions?team=team%20b&task=adhoc&phase=training", &organiser);
    let statuses: Vec<&str> =
        of_b["submissions"].as_array().expect("rows").iter().filter_map(|s| s["status"].as_str()).collect();
    assert_eq!(statuses, ["invalid", "scored"], "newest first: {of_b}");
    assert_eq!(json_get(&server, "/api/submissions?task=nope", &organiser).0, 404);
    let (code, csv) = server.get("/api/submissions.csv", Some(&organiser));
    assert_eq!(code, 200);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "id,received,team,task,phase,system,status,primary,value,size,sha256,error");
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(lines[1].contains(",Team B,adhoc,training,Team B,invalid,"), "{csv}");

    // The file as uploaded: its team and the organisers, byte for byte; no one else.
    let id = first["id"].as_i64().expect("an id");
    let path = format!("/api/submissions/{id}/file");
    for token in [&a, &organiser] {
        let (code, body, headers) =
            server.request("GET", &path, &[("Authorization", &format!("Bearer {token}"))], None);
        assert_eq!(code, 200);
        assert_eq!(sha256(body.as_bytes()), sha256(&run));
        assert_eq!(first["sha256"].as_str(), Some(sha256(&run).as_str()));
        assert!(headers.iter().any(|(n, v)| n == "content-disposition" && v.contains("attachment")), "{headers:?}");
    }
    assert_eq!(server.get(&path, Some(&b)).0, 404);
    assert_eq!(server.get(&path, None).0, 401);

    // The desk: organisers only.
    let cookie = |token: &str| format!("kgeval_token={token}");
    let (code, desk, _) = server.request("GET", "/admin", &[("Cookie", &cookie(&organiser))], None);
    assert_eq!(code, 200, "{desk}");
    for text in ["Team A", "Team B", "adhoc: 4 today, 9 in all", &format!("href=\"/api/submissions/{id}/file\"")] {
        assert!(desk.contains(text), "{text}: {desk}");
    }
    let (code, filtered, _) = server.request("GET", "/admin?team=Team+A", &[("Cookie", &cookie(&organiser))], None);
    assert_eq!(code, 200);
    assert!(filtered.contains("1 submissions shown under the filter"), "{filtered}");
    assert_eq!(server.request("GET", "/admin", &[("Cookie", &cookie(&a))], None).0, 403);
    assert_eq!(server.request("GET", "/admin", &[], None).0, 401);

    // Revoked with the server running: refused at once; a new token restores the team.
    let db = server.dir.path().join("campaign.sqlite");
    let file = server.dir.path().join("campaign.toml");
    let db_arg = db.to_str().expect("UTF-8");
    let output = serve_command(&file, &["--db", db_arg, "--revoke-team", "Team A"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(server.get("/api/submissions", Some(&a)).0, 401);
    let output = serve_command(&file, &["--db", db_arg, "--revoke-team", "Team A"]);
    assert_eq!(output.status.code(), Some(2), "revoked already");
    let output = serve_command(&file, &["--db", db_arg, "--rotate-token", "Team A"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let new = String::from_utf8(output.stdout).expect("UTF-8").trim().to_owned();
    assert_eq!(server.get("/api/submissions", Some(&a)).0, 401);
    assert_eq!(json_get(&server, "/api/submissions", &new).0, 200);
    let output = serve_command(&file, &["--db", db_arg, "--rotate-token", "Team Z"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("found no team named \"Team Z\""));
}

#[test]
fn registration_is_closed_by_default() {
    let server = Served::start(&format!("{}[serve]\n{}", trec_task("adhoc", ""), open_phase("training", "")));
    assert_eq!(server.get("/register", None).0, 404);
    assert_eq!(register(&server, "Team A", INVITE).0, 404);
    let (_, index) = server.get("/", None);
    assert!(!index.contains("href=\"/register\""), "{index}");
}

/// A multi-pair upload downloads whole (its stored SHA-256) and part by part, each part the
/// bytes sent: DISO's Task 2, rehearsed in its validation phase.
#[test]
fn a_multi_pair_upload_downloads_part_by_part() {
    let server = Served::start_file_with(&root().join("testdata/campaigns/serve-diso.toml"), &["--now", "2026-07-01"]);
    let token = server.add_team("A", false);
    let lexical = |pair: &str| {
        std::fs::read(data(&format!("testdata/ranking/diso-synthetic/{pair}/lexical.jsonl"))).expect("data")
    };
    let (uco, stix) = (lexical("uco-stix"), lexical("stix-d3fend"));
    let fields: [(&str, Option<&str>, &[u8]); 2] =
        [("uco-stix", Some("u.jsonl"), &uco), ("stix-d3fend", Some("s.jsonl"), &stix)];
    let auth = format!("Bearer {token}");
    let (code, body, _) = server.request(
        "POST",
        "/api/tasks/task2/submissions",
        &[FORM_TYPE, ("Authorization", &auth)],
        Some(&form(&fields)),
    );
    assert_eq!(code, 201, "{body}");
    let answer: Value = serde_json::from_str(&body).expect("JSON");
    let id = answer["id"].as_i64().expect("an id");
    let (code, whole, _) =
        server.request("GET", &format!("/api/submissions/{id}/file"), &[("Authorization", &auth)], None);
    assert_eq!(code, 200);
    assert_eq!(Some(sha256(whole.as_bytes()).as_str()), answer["sha256"].as_str());
    for (pair, bytes) in [("uco-stix", &uco), ("stix-d3fend", &stix)] {
        let path = format!("/api/submissions/{id}/file?part={pair}");
        let (code, part, headers) = server.request("GET", &path, &[("Authorization", &auth)], None);
        assert_eq!(code, 200, "{pair}");
        assert_eq!(part.as_bytes(), &bytes[..], "{pair}");
        let disposition = format!("attachment; filename=\"submission-{id}-{pair}\"");
        assert!(headers.contains(&("content-disposition".to_owned(), disposition)), "{headers:?}");
    }
    let (code, _, _) =
        server.request("GET", &format!("/api/submissions/{id}/file?part=nope"), &[("Authorization", &auth)], None);
    assert_eq!(code, 404);
}

/// The participant's view: `/submit` shows the phase's closing time as time left, the uploads
/// left and each submission's primary value; a submission's per-item values are a table (an
/// item a row) and a CSV, in a phase whose feedback shows them.
#[test]
fn a_team_sees_its_scores_uploads_left_and_items() {
    let server = Served::start(&campaign());
    let a = server.add_team("Team A", false);
    let run = std::fs::read(data("testdata/trec_eval/test/results.test")).expect("data");
    let (code, scored, _) = server.upload("adhoc", Some(&a), &run);
    assert_eq!(code, 201, "{scored}");
    let cookie = format!("kgeval_token={a}");
    let (_, page, _) = server.request("GET", "/submit", &[("Cookie", &cookie)], None);
    let map = scored["scores"]["map"].as_f64().expect("map");
    for text in [
        "Phase <strong>training</strong> closes on 2100-01-01 00:00 UTC: <strong>",
        "Uploads left: <strong>adhoc</strong> 4 today, 9 in all.",
        &format!("<td>{map:.4} <span class=\"caption\">map</span></td>"),
        "Uploads over 67.1 MB are refused.",
    ] {
        assert!(page.contains(text), "{text}: {page}");
    }
    let id = scored["id"].as_i64().expect("an id");
    let (code, csv) = server.get(&format!("/api/submissions/{id}/items.csv"), Some(&a));
    assert_eq!(code, 200, "{csv}");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "item,map,P_10");
    let items = scored["items"].as_array().expect("items");
    let topics: std::collections::BTreeSet<&str> = items.iter().filter_map(|i| i[0].as_str()).collect();
    assert_eq!(lines.len(), topics.len() + 1, "an item a row: {csv}");
    let first = items.iter().find(|i| i[1] == "map").expect("a map item");
    let row = format!("{},{}", first[0].as_str().expect("an item"), first[2].as_f64().expect("a value"));
    assert!(csv.lines().any(|l| l.starts_with(&format!("{row},"))), "{row}: {csv}");
    let (_, page, _) = server.request("GET", &format!("/submissions/{id}"), &[("Cookie", &cookie)], None);
    assert!(page.contains("<th class=\"text\">Item</th><th>map</th><th>P_10</th>"), "{page}");
    assert!(page.contains(&format!("href=\"/api/submissions/{id}/items.csv\"")), "{page}");
}

#[test]
fn a_blind_phase_gives_no_items_csv() {
    let server = Served::start(&format!(
        "{}[serve]\n{}",
        trec_task("adhoc", ""),
        open_phase("test", "feedback = \"none\"\nleaderboard = \"hidden\"")
    ));
    let a = server.add_team("Team A", false);
    let run = std::fs::read(data("testdata/trec_eval/test/results.test")).expect("data");
    let (_, answer, _) = server.upload("adhoc", Some(&a), &run);
    let id = answer["id"].as_i64().expect("an id");
    assert_eq!(server.get(&format!("/api/submissions/{id}/items.csv"), Some(&a)).0, 403);
    let (_, own) = json_get(&server, "/api/submissions", &a);
    assert_eq!(own["submissions"][0]["status"].as_str(), Some("received"), "{own}");
    assert!(own["submissions"][0].get("value").is_none(), "{own}");
    let organiser = server.add_team("organisers", true);
    assert_eq!(server.get(&format!("/api/submissions/{id}/items.csv"), Some(&organiser)).0, 200);
}

/// A team downloads one file at a time: while a client of its has not read a large file, a
/// second download is refused (429, `Retry-After`), and once that client is gone the next one
/// is served.
#[test]
fn a_team_downloads_one_file_at_a_time() {
    use std::io::{Read as _, Write as _};
    let server = Served::start(&campaign());
    let a = server.add_team("Team A", false);
    // 8 MB of a malformed run: stored (invalid), larger than the sockets' buffers.
    let large = "q1 Q0 d1 x 1 run\n".repeat(500_000);
    let (code, answer, _) = server.upload("adhoc", Some(&a), large.as_bytes());
    assert_eq!(code, 422, "{answer}");
    let id = answer["id"].as_i64().expect("an id");
    let path = format!("/api/submissions/{id}/file");
    let address = server.url.trim_start_matches("http://").to_owned();
    let mut slow = std::net::TcpStream::connect(&address).expect("connect");
    write!(slow, "GET {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {a}\r\n\r\n").expect("sent");
    let mut head = [0_u8; 64];
    slow.read_exact(&mut head).expect("the answer starts");
    assert!(head.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&head));
    let (code, body, headers) = server.request("GET", &path, &[("Authorization", &format!("Bearer {a}"))], None);
    assert_eq!(code, 429, "{body}");
    assert!(headers.iter().any(|(n, v)| n == "retry-after" && v == "1"), "{headers:?}");
    drop(slow);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (code, body, _) = server.request("GET", &path, &[("Authorization", &format!("Bearer {a}"))], None);
        if code == 200 {
            assert_eq!(body.len(), large.len());
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still refused: {code} {body}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
