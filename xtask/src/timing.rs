//! Whole-process timing for the benchmarks: wall time measured here, CPU time, CPU share and
//! peak RSS from `/usr/bin/time -v`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};

/// One timed run of a command.
#[derive(Debug, Clone, Default)]
pub(crate) struct Timed {
    /// Wall-clock time.
    pub(crate) wall: Duration,
    /// User + system CPU seconds.
    pub(crate) cpu_seconds: f64,
    /// `Percent of CPU this job got`.
    pub(crate) cpu_percent: u32,
    /// Peak resident set size, KiB.
    pub(crate) max_rss_kb: u64,
    /// The first lines of standard output, indented (empty unless captured).
    pub(crate) stdout_head: String,
}

/// Runs `cmd` once under `/usr/bin/time -v`, stdin closed, stdout captured (first 8 lines
/// kept) or discarded.
pub(crate) fn time_once(cmd: &[&str], capture_stdout: bool) -> anyhow::Result<Timed> {
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .args(cmd)
        .stdin(Stdio::null())
        .stdout(if capture_stdout { Stdio::piped() } else { Stdio::null() })
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("running /usr/bin/time -v {}", cmd.join(" ")))?;
    let wall = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        let own: Vec<&str> = stderr.lines().take_while(|l| !l.starts_with("\tCommand being timed")).take(5).collect();
        bail!("{} exited with {}: {}", cmd.join(" "), out.status.code().unwrap_or(-1), own.join(" | "));
    }
    let field = |prefix: &str| {
        stderr.lines().find_map(|l| l.trim().strip_prefix(prefix)).map(|v| v.trim().trim_end_matches('%').to_owned())
    };
    let seconds = |prefix: &str| field(prefix).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    let max_rss_kb = field("Maximum resident set size (kbytes):")
        .and_then(|v| v.parse().ok())
        .context("no `Maximum resident set size` in the output of /usr/bin/time -v")?;
    Ok(Timed {
        wall,
        cpu_seconds: seconds("User time (seconds):") + seconds("System time (seconds):"),
        cpu_percent: field("Percent of CPU this job got:").and_then(|v| v.parse().ok()).unwrap_or(0),
        max_rss_kb,
        stdout_head: String::from_utf8_lossy(&out.stdout).lines().take(8).map(|l| format!("    {l}\n")).collect(),
    })
}

/// The fastest of `runs` (at least one) runs of `cmd`.
pub(crate) fn best_of(cmd: &[&str], runs: usize, capture_stdout: bool) -> anyhow::Result<Timed> {
    let mut best: Option<Timed> = None;
    for _ in 0..runs.max(1) {
        let timed = time_once(cmd, capture_stdout)?;
        if best.as_ref().is_none_or(|b| timed.wall < b.wall) {
            best = Some(timed);
        }
    }
    best.context("no run")
}
