//! `cargo xtask bench serve [--queries N] [--uploads N] [--seconds S]`: `kgeval serve`
//! (release build) on a loopback port, a TREC task whose uploads are `bench trec`'s generated
//! runs (`--queries` × 1,000 documents: 120 queries make a 5 MB run; each upload made unique
//! by one extra line, so every one is stored), measured from outside as a participant sees it:
//!
//! - upload-to-score latency (the request sent → its `201 scored` answer, which comes after
//!   the scoring, the fsync of the bytes and the commit), p50 / p99 / max, with 1 uploader
//!   and with 32 concurrent uploaders (`--uploads` each; 5 by default);
//! - leaderboard requests per second (4 clients on keep-alive connections for `--seconds`,
//!   each answer checked to be `200` with every team's row), the 33-row board of 32 teams
//!   and a baseline;
//! - the server's peak RSS (`VmHWM` of `/proc/PID/status`), and beside it its scoring
//!   workers' (each worker's, and their sum) and their CPU per upload: the workers are the
//!   server's child processes.
//!
//! The database, its blobs and the inputs go to `target/bench-serve/` (the blobs are removed
//! at the end: 32 × 5 uploads of 5 MB). Nothing but loopback is contacted.

use std::fmt::Write as _;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};

const USAGE: &str = "usage: cargo xtask bench serve [--queries N] [--uploads N] [--seconds S]";
/// Concurrent uploaders of the second measurement (and teams).
const UPLOADERS: usize = 32;
/// Uploads of the one-uploader measurement.
const SOLO_UPLOADS: usize = 20;
/// Leaderboard clients.
const READERS: usize = 4;

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let Some(parsed) = crate::bench::BenchArgs::new(args, USAGE) else { return Ok(()) };
    let queries = parsed.number("--queries", 120)?;
    let uploads = parsed.number("--uploads", 5)?.max(1);
    let seconds = parsed.number("--seconds", 5)?.max(1);

    let dir = PathBuf::from("target/bench-serve");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let (qrels, run) = (dir.join("qrels"), dir.join("run"));
    crate::bench_trec::generate(&qrels, &run, queries, 1_000)?;
    let base = std::fs::read(&run)?;
    let campaign = dir.join("campaign.toml");
    // The uploaders and the readers all connect from 127.0.0.1: one client address holding
    // more than the default 32 connections.
    std::fs::write(
        &campaign,
        "[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"qrels\"\nmeasures = [\"map\", \"P.10\", \"ndcg_cut.10\"]\n\
         primary = \"map\"\n[serve]\nmax_connections_per_client = 64\n[[serve.phase]]\nname = \"training\"\nfrom = \"2000-01-01T00:00:00Z\"\n\
         until = \"2100-01-01T00:00:00Z\"\nfeedback = \"summary\"\n[[serve.baseline]]\ntask = \"adhoc\"\n\
         name = \"generated\"\nfile = \"run\"\n",
    )?;
    let kgeval = crate::build_kgeval(true)?;
    let db = dir.join("bench.sqlite");
    let mut tokens = Vec::new();
    for team in 0..UPLOADERS {
        let out = Command::new(&kgeval)
            .arg("serve")
            .arg(&campaign)
            .args(["--db".as_ref(), db.as_os_str(), "--add-team".as_ref(), format!("team{team}").as_ref()])
            .output()?;
        if !out.status.success() {
            bail!("--add-team: {}", String::from_utf8_lossy(&out.stderr));
        }
        tokens.push(String::from_utf8(out.stdout)?.trim().to_owned());
    }
    let mut server = Server::start(&kgeval, &campaign, &db)?;
    let outcome = measure(&server, &base, &tokens, uploads, seconds, queries);
    let rss = peak_rss_kb(server.child.id());
    let workers: Vec<u64> = server.workers().into_iter().filter_map(peak_rss_kb).collect();
    server.stop();
    let _ = std::fs::remove_dir_all(blob_dir(&db));
    let mut report = outcome?;
    let _ = writeln!(report, "server peak RSS (VmHWM): {:.1} MiB", rss.unwrap_or(0) as f64 / 1024.0);
    let mib: Vec<String> = workers.iter().map(|kb| format!("{:.1}", *kb as f64 / 1024.0)).collect();
    let _ = writeln!(
        report,
        "scoring workers' peak RSS (VmHWM): {} MiB ({:.1} MiB in all)",
        mib.join(", "),
        workers.iter().sum::<u64>() as f64 / 1024.0
    );
    let _ = writeln!(report, "load after: {}", load_average());
    println!("\n{report}");
    Ok(())
}

/// The three measurements; the report's lines.
fn measure(
    server: &Server,
    base: &[u8],
    tokens: &[String],
    uploads: usize,
    seconds: usize,
    queries: usize,
) -> anyhow::Result<String> {
    let mut report = String::new();
    let url = &server.url;
    let unique = AtomicUsize::new(0);
    // One extra, unjudged document at the end of the first topic: the bytes differ, the
    // score hardly.
    let upload = |agent: &ureq::Agent, token: &str| -> anyhow::Result<Duration> {
        let n = unique.fetch_add(1, Ordering::SeqCst);
        let mut bytes = base.to_vec();
        bytes.extend_from_slice(format!("100000 Q0 BENCH{n} 1001 0.0 kgevalrun\n").as_bytes());
        let started = Instant::now();
        let response = agent
            .post(&format!("{url}/api/tasks/adhoc/submissions"))
            .set("Authorization", &format!("Bearer {token}"))
            .send_bytes(&bytes);
        let elapsed = started.elapsed();
        match response {
            Ok(r) if r.status() == 201 => Ok(elapsed),
            Ok(r) | Err(ureq::Error::Status(_, r)) => bail!("upload answered {}: {}", r.status(), r.into_string()?),
            Err(e) => bail!("upload failed: {e}"),
        }
    };
    let _ = writeln!(
        report,
        "kgeval serve (release), TREC task (map, P.10, ndcg_cut.10), runs of {queries} queries × 1,000 docs ({:.2} MB)",
        base.len() as f64 / 1e6
    );
    let solo_agent = agent();
    upload(&solo_agent, &tokens[0])?; // warm-up
    let solo: Vec<Duration> =
        (0..SOLO_UPLOADS).map(|_| upload(&solo_agent, &tokens[0])).collect::<anyhow::Result<_>>()?;
    let _ = writeln!(report, "1 uploader, {SOLO_UPLOADS} uploads: {}", percentiles(solo));
    let (started, cpu_before) = (Instant::now(), cpu_seconds(server.child.id()));
    let workers_before = server.workers_cpu_seconds();
    let all: Vec<Duration> = std::thread::scope(|scope| {
        let handles: Vec<_> = tokens
            .iter()
            .map(|token| {
                let upload = &upload;
                scope.spawn(move || {
                    let agent = agent();
                    (0..uploads).map(|_| upload(&agent, token)).collect::<anyhow::Result<Vec<_>>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().map_err(|_| anyhow::anyhow!("an uploader panicked"))?)
            .collect::<anyhow::Result<Vec<_>>>()
    })?
    .into_iter()
    .flatten()
    .collect();
    let wall = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds(server.child.id()).zip(cpu_before).map_or(0.0, |(after, before)| after - before);
    let workers_cpu = server.workers_cpu_seconds() - workers_before;
    let count = all.len();
    let _ = writeln!(
        report,
        "{UPLOADERS} concurrent uploaders × {uploads}: {} ({count} uploads in {wall:.1} s, {:.1} uploads/s, {:.0} MB/s; \
         server CPU {:.1} ms an upload, its workers' {:.1} ms)",
        percentiles(all),
        count as f64 / wall,
        count as f64 * base.len() as f64 / 1e6 / wall,
        cpu * 1e3 / count as f64,
        workers_cpu * 1e3 / count as f64
    );
    let rate = leaderboard_rate(url, seconds, tokens.len() + 1)?;
    let _ = writeln!(
        report,
        "leaderboard ({} rows), {READERS} clients for {seconds} s: {rate:.0} requests/s",
        tokens.len() + 1
    );
    Ok(report)
}

/// Requests per second of `GET /api/tasks/adhoc/leaderboard` by [`READERS`] keep-alive
/// clients for `seconds`, each answer checked to have `rows` rows.
fn leaderboard_rate(url: &str, seconds: usize, rows: usize) -> anyhow::Result<f64> {
    let count = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let handles: Vec<_> = (0..READERS)
            .map(|_| {
                let (count, stop) = (&count, &stop);
                scope.spawn(move || -> anyhow::Result<()> {
                    let agent = agent();
                    while !stop.load(Ordering::SeqCst) {
                        let body = agent.get(&format!("{url}/api/tasks/adhoc/leaderboard")).call()?.into_string()?;
                        let board: serde_json::Value = serde_json::from_str(&body)?;
                        let got = board["rows"].as_array().map_or(0, Vec::len);
                        if got != rows {
                            bail!("a leaderboard of {got} rows, expected {rows}");
                        }
                        count.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(())
                })
            })
            .collect();
        std::thread::sleep(Duration::from_secs(seconds as u64));
        stop.store(true, Ordering::SeqCst);
        for handle in handles {
            handle.join().map_err(|_| anyhow::anyhow!("a reader panicked"))??;
        }
        Ok(())
    })?;
    Ok(count.load(Ordering::SeqCst) as f64 / started.elapsed().as_secs_f64())
}

/// `p50 … s, p99 … s, max … s` of `times`.
fn percentiles(mut times: Vec<Duration>) -> String {
    times.sort();
    let at = |q: f64| {
        let i = ((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1;
        times[i].as_secs_f64()
    };
    format!("p50 {:.3} s, p99 {:.3} s, max {:.3} s", at(0.50), at(0.99), at(1.0))
}

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new().timeout(Duration::from_secs(120)).build()
}

/// The blob folder of `db`.
fn blob_dir(db: &Path) -> PathBuf {
    let mut name = db.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    name.push(".blobs");
    db.with_file_name(name)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// The server this bench started, stopped (by its PID) at the end.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(kgeval: &Path, campaign: &Path, db: &Path) -> anyhow::Result<Server> {
        let mut child = Command::new(kgeval)
            .arg("serve")
            .arg(campaign)
            .args(["--db".as_ref(), db.as_os_str(), "--listen".as_ref(), "127.0.0.1:0".as_ref()])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting kgeval serve")?;
        let mut line = String::new();
        if let Some(stdout) = child.stdout.take() {
            BufReader::new(stdout).read_line(&mut line)?;
        }
        let Some(url) = line.trim().strip_prefix("listening on ").map(str::to_owned) else {
            let _ = child.kill();
            let _ = child.wait();
            bail!("kgeval serve printed {line:?}, expected `listening on URL`");
        };
        Ok(Server { child, url })
    }

    /// The server's child processes: its scoring workers.
    fn workers(&self) -> Vec<u32> {
        let parent = self.child.id().to_string();
        let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                // The field after the command's `(name)` and the state: the parent's id.
                stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)) == Some(parent.as_str())
            })
            .collect()
    }

    /// The CPU seconds the scoring workers used so far.
    fn workers_cpu_seconds(&self) -> f64 {
        self.workers().into_iter().filter_map(cpu_seconds).sum()
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `VmHWM` of process `pid`, KiB.
fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// User + system CPU seconds process `pid` used so far (`/proc/PID/stat`).
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's `(name)`: utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}
