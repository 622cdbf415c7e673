//! The bodies of the refusals that come from the server's layers and from axum's extractors,
//! not from a handler: on `/api/…` the documented JSON `{"status": …, "error": …}`, on the
//! pages an HTML page — never plain text or an empty body.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::serve::{open_phase, trec_task, Served};

/// An answer read off the wire: the status, the headers (lower-case names) and the body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The JSON body, checked to be the documented refusal with `status`.
    fn refusal(&self, code: u16, status: &str) -> String {
        assert_eq!(self.status, code, "{}", self.body);
        assert!(self.header("content-type").is_some_and(|t| t.starts_with("application/json")), "{:?}", self.headers);
        let json: Value = serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {:?}", self.body));
        assert_eq!(json["status"], status, "{json}");
        let error = json["error"].as_str().unwrap_or_else(|| panic!("no error: {json}"));
        // Every message but the 401's challenge says what was found.
        assert!(error.starts_with("found ") || status == "unauthorized", "{error}");
        error.to_owned()
    }

    /// The HTML page, checked to be a page with `code` (and the pages' security headers).
    fn page(&self, code: u16) {
        assert_eq!(self.status, code, "{}", self.body);
        assert!(self.header("content-type").is_some_and(|t| t.starts_with("text/html")), "{:?}", self.headers);
        assert!(self.body.contains("<html"), "{}", self.body);
        assert!(self.header("content-security-policy").is_some_and(|p| p.starts_with("default-src 'none'")));
    }
}

/// Sends `head` (then `body`) on a new connection and reads the answer to the connection's end.
fn send(server: &Served, head: &str, body: &[u8]) -> Answer {
    let address = server.url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(60))).expect("timeout");
    write!(stream, "{head}Host: {address}\r\nConnection: close\r\n\r\n").expect("head sent");
    // The server may answer (and close) before it reads a body it refuses.
    let _ = stream.write_all(body);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no answer: {text:?}"));
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|c| c.parse().ok()).expect("a status");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Answer { status, headers, body: body.to_owned() }
}

fn server(keys: &str) -> Served {
    Served::start(&format!("{}[serve]\n{keys}\n{}", trec_task("adhoc", ""), open_phase("p", "")))
}

#[test]
fn the_layers_and_extractors_answer_with_the_documented_bodies() {
    let server = server("max_upload = 1000");
    // The body limit (the upload limit plus 64 KiB for a form's fields) refuses a declared
    // length before the handler runs.
    let too_large = "POST /api/tasks/adhoc/submissions HTTP/1.1\r\nContent-Length: 100000\r\n";
    let error = send(&server, too_large, b"").refusal(413, "too_large");
    assert_eq!(error, "found an upload over the limit of 1 kB (1000 bytes)");
    send(&server, &too_large.replace("/api/tasks/adhoc/submissions", "/submit"), b"").page(413);
    // A method a route does not take: 405 with `Allow`.
    let answer = send(&server, "POST /api/health HTTP/1.1\r\nContent-Length: 0\r\n", b"");
    let error = answer.refusal(405, "method_not_allowed");
    assert_eq!(error, "found method POST, expected one of the methods in the Allow header");
    assert!(answer.header("allow").is_some_and(|a| a.contains("GET")), "{:?}", answer.headers);
    send(&server, "DELETE /tasks/adhoc HTTP/1.1\r\n", b"").page(405);
    // A path that is not UTF-8 once decoded (axum's Path rejection; the Query extractor reads
    // a map of strings, decoding lossily, so it refuses nothing).
    let error = send(&server, "GET /api/submissions/%FF HTTP/1.1\r\n", b"").refusal(400, "bad_request");
    assert!(error.starts_with("found a malformed request ("), "{error}");
    send(&server, "GET /api/tasks/%FF/leaderboard HTTP/1.1\r\n", b"").refusal(400, "bad_request");
    send(&server, "GET /api/tasks/%FF/leaderboard.csv HTTP/1.1\r\n", b"").refusal(400, "bad_request");
    send(&server, "POST /api/tasks/%FF/submissions HTTP/1.1\r\nContent-Length: 0\r\n", b"").refusal(400, "bad_request");
    send(&server, "GET /tasks/%FF HTTP/1.1\r\n", b"").page(400);
    // A login form that is no form (axum's Form rejection) is a page.
    send(&server, "POST /login HTTP/1.1\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n", b"token").page(415);
    // What the handlers answer themselves is left as it is.
    send(&server, "GET /api/nowhere HTTP/1.1\r\n", b"").refusal(404, "not_found");
    send(&server, "GET /api/submissions/1 HTTP/1.1\r\n", b"").refusal(401, "unauthorized");
}

#[test]
fn the_request_time_limit_answers_with_the_documented_body() {
    // The request time limit is the scoring limit plus 30 s: a body sent at a byte every 0.2 s
    // (over the minimum rate of 1 byte a second) outlasts it.
    let server = server("time_limit = 0.5\nmin_body_rate = 1\nbody_rate_window = 5");
    let address = server.url.trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&address).expect("connect");
    stream.set_read_timeout(Some(Duration::from_millis(200))).expect("timeout");
    write!(
        stream,
        "POST /api/tasks/adhoc/submissions HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Length: 1000\r\n\r\n"
    )
    .expect("head sent");
    let start = Instant::now();
    let mut answer = Vec::new();
    while start.elapsed() < Duration::from_secs(45) {
        let _ = stream.write_all(b"x");
        let mut buffer = [0u8; 4096];
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => break,
        }
    }
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 408"), "after {:?}: {text}", start.elapsed());
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or_default();
    let json: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(json["status"], "timeout", "{json}");
    assert!(json["error"].as_str().is_some_and(|e| e.starts_with("found a request not answered within 30.5 s")));
}
