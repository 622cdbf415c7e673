//! `kgeval serve` against a hostile team: what an upload may cost is bounded by the scoring
//! workers (a runaway query is stopped at the time limit, an upload past the memory limit
//! aborts its worker), both are recorded and counted against the team's limits, every other
//! team is answered meanwhile, and neither SIGTERM nor `kill -9` leaves a worker running.
//! Loopback only; each test bounded in time.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::serve::{data, open_phase, Served};

/// A QALD answers file with one question whose query is a cross product of seven triple
/// patterns with a filter no row passes: it runs on and on and produces nothing.
const RUNAWAY: &str = r#"{"questions": [{"id": "1", "query": {"sparql": "SELECT ?a WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o . ?p ?q ?r . ?s ?t ?u . FILTER(STRLEN(CONCAT(STR(?a), STR(?d), STR(?g), STR(?j), STR(?m), STR(?p), STR(?s))) < 0) }"}}]}"#;

/// A campaign with a QALD task over bundled data (its own query timeout far beyond the
/// server's time limit) and a TREC task, both open now.
fn campaign(dir: &Path, serve: &str, limit: &str) -> PathBuf {
    for (from, to) in [
        ("testdata/qald/sparql/gold.xml", "gold.xml"),
        ("testdata/qald/sparql/data.ttl", "data.ttl"),
        ("testdata/trec_eval/test/qrels.test", "qrels.txt"),
    ] {
        std::fs::copy(data(from), dir.join(to)).expect("copied");
    }
    let text = format!(
        "[[task]]\nname = \"qa\"\nfamily = \"qald\"\ngold = \"gold.xml\"\ndata = [\"data.ttl\"]\ntimeout = 600\n\
         primary = \"qald_f\"\n[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"qrels.txt\"\nprimary = \"map\"\n\
         [serve]\n{serve}\n{}",
        open_phase("p", limit)
    );
    let file = dir.join("campaign.toml");
    std::fs::write(&file, text).expect("written");
    file
}

/// The process ids of the scoring workers started for `campaign` (their command line names
/// it and `--worker`).
fn workers_of(campaign: &Path) -> Vec<u32> {
    let needle = campaign.as_os_str().as_encoded_bytes().to_vec();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
        if args.contains(&&needle[..]) && args.contains(&&b"--worker"[..]) {
            found.push(pid);
        }
    }
    found
}

/// Waits until `check` holds, at most `limit`; whether it did.
fn within(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    check()
}

/// Uploads [`RUNAWAY`] to task `qa` with `token` on a thread of its own (its answer, if any, is
/// dropped).
fn runaway(url: &str, token: &str) -> std::thread::JoinHandle<()> {
    let (url, token) = (url.to_owned(), token.to_owned());
    std::thread::spawn(move || {
        let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
        let _ = agent
            .post(&format!("{url}/api/tasks/qa/submissions"))
            .set("Authorization", &format!("Bearer {token}"))
            .send_bytes(RUNAWAY.as_bytes());
    })
}

fn signal(pid: u32, name: &str) {
    let status = Command::new("kill").args([name, &pid.to_string()]).status().expect("kill");
    assert!(status.success(), "kill {name} {pid}");
}

#[test]
fn a_runaway_query_is_stopped_at_the_time_limit_counted_and_stalls_no_other_team() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = campaign(dir.path(), "time_limit = 3\nworkers = 2", "limit = { per_day = 1 }");
    let server = Served::start_file(&file);
    let (a, b) = (server.add_team("A", false), server.add_team("B", false));
    std::thread::scope(|scope| {
        let runaway = scope.spawn(|| {
            let start = Instant::now();
            let (code, body, _) = server.upload("qa", Some(&a), RUNAWAY.as_bytes());
            (code, body, start.elapsed())
        });
        // While A's query runs, B is answered at once by the other worker.
        std::thread::sleep(Duration::from_millis(500));
        let start = Instant::now();
        let run = std::fs::read(data("testdata/trec_eval/test/results.test")).expect("a run");
        let (code, body, _) = server.upload("adhoc", Some(&b), &run);
        assert_eq!(code, 201, "{body}");
        assert!(start.elapsed() < Duration::from_secs(2), "B waited {:?}", start.elapsed());
        let (code, body, took) = runaway.join().expect("the runaway's thread");
        assert_eq!((code, body["status"].as_str()), (422, Some("failed")), "{body}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(error.starts_with("out of time: scoring took longer than 3 s"), "{body}");
        assert!(took < Duration::from_secs(8), "the runaway was answered after {took:?}");
    });
    // It counted: A's next upload to the task is refused by the daily limit, before scoring.
    let (code, body, _) = server.upload("qa", Some(&a), RUNAWAY.as_bytes());
    assert_eq!((code, body["status"].as_str()), (429, Some("limited")), "{body}");
    // The killed worker was replaced: still two, and the server answers.
    assert!(within(Duration::from_secs(20), || workers_of(&file).len() == 2), "{:?}", workers_of(&file));
    let (code, _) = server.get("/api/health", None);
    assert_eq!(code, 200);
}

#[test]
fn an_upload_past_the_memory_limit_stops_its_worker_and_counts() {
    let dir = tempfile::tempdir().expect("a folder");
    // The smallest memory limit (16 MiB): a 24 MB run cannot even be read into it.
    let file = campaign(dir.path(), "memory_limit = 16777216\nworkers = 1", "limit = { total = 1 }");
    let server = Served::start_file(&file);
    let (a, b) = (server.add_team("A", false), server.add_team("B", false));
    let mut large = Vec::with_capacity(24 << 20);
    let mut line = 0_u64;
    while large.len() < 24 << 20 {
        large.extend_from_slice(
            format!("{} Q0 doc{line} {line} {} run\n", 401 + line % 50, 1.0 / (1 + line) as f64).as_bytes(),
        );
        line += 1;
    }
    let (code, body, _) = server.upload("adhoc", Some(&a), &large);
    assert_eq!((code, body["status"].as_str()), (422, Some("failed")), "{body}");
    let error = body["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("out of memory: scoring needed more than 16777216 bytes"), "{body}");
    let (code, body, _) = server.upload("adhoc", Some(&a), b"401 Q0 doc 1 1 run\n");
    assert_eq!((code, body["status"].as_str()), (429, Some("limited")), "counted: {body}");
    // The one worker was replaced: another team is scored.
    let run = std::fs::read(data("testdata/trec_eval/test/results.test")).expect("a run");
    let (code, body, _) = server.upload("adhoc", Some(&b), &run);
    assert_eq!(code, 201, "{body}");
}

#[test]
fn sigterm_during_a_runaway_ends_the_server_and_its_workers_within_5_s() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = campaign(dir.path(), "time_limit = 600\nworkers = 2", "");
    let mut server = Served::start_file(&file);
    let a = server.add_team("A", false);
    assert_eq!(workers_of(&file).len(), 2);
    // Two runaways, one per worker; their requests end with the server.
    let uploads = [runaway(&server.url, &a), runaway(&server.url, &a)];
    std::thread::sleep(Duration::from_secs(1));
    let start = Instant::now();
    signal(server.pid(), "-TERM");
    let exited = within(Duration::from_secs(5), || server.exited());
    assert!(exited, "kgeval serve still runs 5 s after SIGTERM");
    assert!(within(Duration::from_secs(2), || workers_of(&file).is_empty()), "left running: {:?}", workers_of(&file));
    assert!(start.elapsed() < Duration::from_secs(7));
    for upload in uploads {
        upload.join().expect("an upload's thread");
    }
}

#[test]
fn kill_9_of_the_server_during_a_runaway_takes_its_workers_with_it() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = campaign(dir.path(), "time_limit = 600\nworkers = 1", "");
    let mut server = Served::start_file(&file);
    let a = server.add_team("A", false);
    let upload = runaway(&server.url, &a);
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(workers_of(&file).len(), 1);
    signal(server.pid(), "-KILL");
    assert!(within(Duration::from_secs(5), || server.exited()));
    assert!(within(Duration::from_secs(2), || workers_of(&file).is_empty()), "left running: {:?}", workers_of(&file));
    upload.join().expect("the upload's thread");
}

#[test]
fn empty_uploads_are_invalid_and_never_count() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = campaign(dir.path(), "", "limit = { per_day = 1 }");
    let server = Served::start_file(&file);
    let a = server.add_team("A", false);
    let mut gzip_of_nothing = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gzip_of_nothing, b"").expect("written");
    let gzip_of_nothing = gzip_of_nothing.finish().expect("finished");
    for (task, body) in [
        ("adhoc", &b""[..]),
        ("adhoc", &b"\n \n"[..]),
        ("adhoc", &gzip_of_nothing[..]),
        ("qa", &b""[..]),
        ("qa", &b"{\"questions\": []}"[..]),
    ] {
        let (code, answer, _) = server.upload(task, Some(&a), body);
        assert_eq!((code, answer["status"].as_str()), (422, Some("invalid")), "{task} {body:?}: {answer}");
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(error.starts_with("upload:1:1: found "), "{answer}");
    }
    // None counted: the day's one upload is still there, for each task.
    let run = std::fs::read(data("testdata/trec_eval/test/results.test")).expect("a run");
    assert_eq!(server.upload("adhoc", Some(&a), &run).0, 201);
    let answers = std::fs::read(data("testdata/qald/sparql/system.json")).expect("answers");
    let (code, answer, _) = server.upload("qa", Some(&a), &answers);
    assert_eq!(code, 201, "{answer}");
}

#[test]
fn errors_name_the_gold_not_its_path_and_a_blind_phase_tells_nothing_of_it() {
    let dir = tempfile::tempdir().expect("a folder");
    let file = campaign(dir.path(), "", "feedback = \"none\"\nleaderboard = \"hidden\"");
    let server = Served::start_file(&file);
    let (a, organiser) = (server.add_team("A", false), server.add_team("organisers", true));
    let unknown = br#"{"questions": [{"id": "999", "answers": []}]}"#;
    let (code, answer, _) = server.upload("qa", Some(&a), unknown);
    assert_eq!((code, answer["status"].as_str()), (422, Some("invalid")), "{answer}");
    let error = answer["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("found an upload that does not fit this task's gold"), "{answer}");
    assert!(!answer.to_string().contains("999"), "{answer}");
    // The organisers read the whole line, which names the gold, never its path.
    let id = answer["id"].as_i64().expect("an id");
    let (code, full) = server.get(&format!("/api/submissions/{id}"), Some(&organiser));
    assert_eq!(code, 200, "{full}");
    assert!(full.contains("found question id \\\"999\\\", expected an id of the gold"), "{full}");
    let folder = dir.path().to_string_lossy().into_owned();
    assert!(!full.contains(&folder) && !full.contains("gold.xml"), "{full}");
    // A malformed file tells nothing of the gold: its line is shown in a blind phase too.
    let (code, answer, _) = server.upload("qa", Some(&a), b"{\"questions\": [");
    assert_eq!(code, 422, "{answer}");
    assert!(answer["error"].as_str().unwrap_or_default().starts_with("upload:1:"), "{answer}");
}

/// `VmHWM` of process `pid`, KiB.
pub(crate) fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

#[test]
fn bodies_sent_without_a_token_are_read_and_dropped_not_held() {
    use std::io::{Read as _, Write as _};
    let dir = tempfile::tempdir().expect("a folder");
    let file = campaign(dir.path(), "", "");
    let server = Served::start_file(&file);
    let address = server.url.trim_start_matches("http://").to_owned();
    // 16 clients without a token each announce 24 MiB and send 20 MiB of it, then wait: a
    // server that collected refused bodies would hold 320 MiB here.
    let chunk = vec![b'x'; 1 << 20];
    let mut streams: Vec<std::net::TcpStream> = (0..16)
        .map(|_| {
            let mut stream = std::net::TcpStream::connect(&address).expect("connected");
            write!(
                stream,
                "POST /api/tasks/adhoc/submissions HTTP/1.1\r\nHost: {address}\r\nContent-Length: {}\r\n\r\n",
                24 << 20
            )
            .expect("head");
            for _ in 0..20 {
                stream.write_all(&chunk).expect("body");
            }
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let peak = peak_rss_kib(server.pid());
    assert!(peak < 150 * 1024, "the server's peak RSS with 320 MiB of refused bodies in flight: {peak} KiB");
    // Each finished body gets its 401.
    for stream in &mut streams {
        for _ in 0..4 {
            stream.write_all(&chunk).expect("the rest");
        }
        stream.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
        let mut answer = [0_u8; 12];
        stream.read_exact(&mut answer).expect("an answer");
        assert_eq!(&answer, b"HTTP/1.1 401");
    }
}
