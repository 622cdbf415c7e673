//! `cargo xtask bench align`: whole-process timings (wall and CPU) of `kgeval align` on a
//! generated 1,000,000-cell Alignment-API RDF/XML system alignment in every layout real tools
//! write ([`Layout`]) against a 100,000-cell partial reference, each next to `cat` and a plain
//! Python `xml.sax` scorer, plus an rdflib parse of a 100,000-cell file, measured in the same
//! run. Every layout must score the same (kgeval and the SAX scorer each), or the bench fails.
//!
//! Inputs are generated with a seeded ChaCha8 RNG into `bench-data/` (git-ignored), so every
//! run measures the same bytes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context as _};

use crate::bench_layouts::{generate, Layout, SEED};
use crate::timing::{best_of, time_once, Timed};

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    if args.first().map(String::as_str) == Some("kgc") {
        return crate::bench_kgc::run(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("trec") {
        return crate::bench_trec::run(&args[1..]);
    }
    match args.first().map(String::as_str) {
        Some("meta") => return crate::bench_meta::run(&args[1..]),
        Some("meta-elinor") => return crate::bench_meta::run_elinor(&args[1..]),
        Some("serve") => return crate::bench_serve::run(&args[1..]),
        _ => {}
    }
    if args.first().map(String::as_str) != Some("align") {
        bail!(
            "usage: cargo xtask bench align [--cells N] [--runs N] [--peer-runs N] [--layouts a,b] [--no-peers] [--generate-only] | cargo xtask bench trec [--queries N]"
        );
    }
    let cells = flag_value(args, "--cells").unwrap_or(1_000_000);
    let runs = flag_value(args, "--runs").unwrap_or(3);
    let peer_runs = flag_value(args, "--peer-runs").unwrap_or(1);
    let peers = !args.iter().any(|a| a == "--no-peers");
    let layouts = match args.iter().position(|a| a == "--layouts").and_then(|i| args.get(i + 1)) {
        Some(list) => list
            .split(',')
            .map(|name| {
                Layout::parse(name).with_context(|| {
                    let all: Vec<&str> = Layout::ALL.iter().map(|l| l.name()).collect();
                    format!("unknown layout {name:?}: expected one of {}", all.join(", "))
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?,
        None => Layout::ALL.to_vec(),
    };
    let dir = Path::new("bench-data");
    std::fs::create_dir_all(dir)?;
    let reference = dir.join(format!("reference-{}.rdf", cells / 10));
    let missing: Vec<(Layout, PathBuf)> = layouts
        .iter()
        .map(|&l| (l, l.system_path(dir, cells)))
        .filter(|(_, path)| !path.exists() || !reference.exists())
        .collect();
    if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(|(l, _)| l.name()).collect();
        println!(
            "generating the {} layout(s) of {cells} cells and {} (seed {SEED})",
            names.join(", "),
            reference.display()
        );
        let systems: Vec<(Layout, &Path)> = missing.iter().map(|(l, p)| (*l, p.as_path())).collect();
        generate(&systems, Some(&reference), cells)?;
    }
    if args.iter().any(|a| a == "--generate-only") {
        return Ok(());
    }
    let kgeval = crate::build_kgeval(true)?;
    let kg = kgeval.to_string_lossy().into_owned();
    let refe = reference.to_string_lossy().into_owned();
    let python = if peers { Some(python_with_rdflib()?) } else { None };
    let py = python.as_ref().map(|p| p.to_string_lossy().into_owned());
    let mut report = String::new();
    let _ = writeln!(
        report,
        "{cells} cells per layout, reference {} ({} cells); kgeval best of {runs} (runs taken round the layouts), SAX best of {peer_runs}; load before: {}",
        reference.display(),
        cells / 10,
        load_average()
    );
    let _ = writeln!(
        report,
        "{:<16} {:>7} {:<34} {:>8} {:>8} {:>7} {:>9}",
        "layout", "MB", "command", "wall s", "CPU s", "MB/s", "RSS MB"
    );
    let row = |report: &mut String, layout: Layout, size: u64, label: &str, timed: &Timed| {
        let _ = writeln!(
            report,
            "{:<16} {:>7.1} {label:<34} {:>8.3} {:>8.3} {:>7.0} {:>9.1}",
            layout.name(),
            size as f64 / 1e6,
            timed.wall.as_secs_f64(),
            timed.cpu_seconds,
            size as f64 / 1e6 / timed.wall.as_secs_f64(),
            timed.max_rss_kb as f64 / 1024.0
        );
        println!("{} {label}: {:.3} s wall, {:.3} s CPU", layout.name(), timed.wall.as_secs_f64(), timed.cpu_seconds);
    };
    // kgeval's runs go round the layouts (the first run of every layout, then the second, …),
    // so that a minute when this shared host is slow falls on every layout alike rather than
    // on all the runs of one; each layout keeps its best run.
    let mut best: Vec<Option<Timed>> = vec![None; layouts.len()];
    for _ in 0..runs.max(1) {
        for (&layout, best) in layouts.iter().zip(&mut best) {
            let sys = layout.system_path(dir, cells).to_string_lossy().into_owned();
            // One system name for every layout, so that the outputs compare byte for byte.
            let named = format!("bench={sys}");
            let cmd = [kg.as_str(), "align", "--reference", &refe, "--system", &named, "--completeness", "partial"];
            let timed = time_once(&cmd, true)?;
            if best.as_ref().is_none_or(|b| timed.wall < b.wall) {
                *best = Some(timed);
            }
        }
    }
    let mut scores: Option<(String, String)> = None;
    for (&layout, ours) in layouts.iter().zip(best) {
        let system = layout.system_path(dir, cells);
        let sys = system.to_string_lossy().into_owned();
        let size = std::fs::metadata(&system)?.len();
        let cat = best_of(&["cat", &sys], runs, false)?;
        row(&mut report, layout, size, "cat FILE > /dev/null", &cat);
        let ours = ours.context("no run")?;
        row(&mut report, layout, size, "kgeval align (parse + score)", &ours);
        let sax = match &py {
            Some(py) => {
                let sax = best_of(&[py, "xtask/bench/sax_scorer.py", &refe, &sys], peer_runs, true)?;
                row(&mut report, layout, size, "python xml.sax scorer", &sax);
                sax.stdout_head
            }
            None => String::new(),
        };
        // Every layout holds the same cells: the scores must not depend on the layout.
        let first = scores.get_or_insert_with(|| (ours.stdout_head.clone(), sax.clone()));
        if first.0 != ours.stdout_head || (peers && first.1 != sax) {
            bail!("the {} layout scores differently from the {} one", layout.name(), layouts[0].name());
        }
    }
    if let Some(py) = &py {
        let small = dir.join(format!("system-{}.rdf", cells / 10));
        let small_reference = dir.join(format!("reference-{}.rdf", cells / 100));
        if !small.exists() || !small_reference.exists() {
            generate(&[(Layout::Canonical, &small)], Some(&small_reference), cells / 10)?;
        }
        let small_ref = small_reference.to_string_lossy().into_owned();
        let small_s = small.to_string_lossy().into_owned();
        let small_size = std::fs::metadata(&small)?.len();
        let _ = writeln!(report, "-- on the {}-cell canonical file ({}):", cells / 10, small.display());
        let ours_small = best_of(
            &[&kg, "align", "--reference", &small_ref, "--system", &small_s, "--completeness", "partial"],
            runs,
            false,
        )?;
        row(&mut report, Layout::Canonical, small_size, "kgeval align (10k reference)", &ours_small);
        let rdflib = best_of(&[py, "xtask/bench/rdflib_parse.py", &small_s], peer_runs, false)?;
        row(&mut report, Layout::Canonical, small_size, "python rdflib parse", &rdflib);
        let _ = writeln!(
            report,
            "speed-up vs rdflib (100k cells): {:.0}x",
            rdflib.wall.as_secs_f64() / ours_small.wall.as_secs_f64()
        );
    }
    let _ = writeln!(report, "load after: {}", load_average());
    println!("\n{report}");
    Ok(())
}

/// The 1, 5 and 15 minute load averages, as `uptime` prints them.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

fn flag_value(args: &[String], flag: &str) -> Option<usize> {
    args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok())
}

/// A venv under `.venv-bench` with rdflib, created on first use.
fn python_with_rdflib() -> anyhow::Result<PathBuf> {
    let venv = Path::new(".venv-bench");
    let python = venv.join("bin/python");
    if !python.exists() {
        let ok = Command::new("python3").args(["-m", "venv"]).arg(venv).status()?.success();
        if !ok {
            bail!("python3 -m venv failed");
        }
    }
    let has = Command::new(&python).args(["-c", "import rdflib"]).stderr(Stdio::null()).status()?.success();
    if !has {
        let ok = Command::new(&python).args(["-m", "pip", "install", "--quiet", "rdflib==7.6.0"]).status()?.success();
        if !ok {
            bail!("pip install rdflib failed");
        }
    }
    Ok(python)
}

/// A bench's `--help` and `--FLAG N` arguments, read against its usage line.
pub(crate) struct BenchArgs<'a> {
    args: &'a [String],
    usage: &'static str,
}

impl<'a> BenchArgs<'a> {
    /// `args` of a bench whose usage line is `usage`; `None` (the usage printed) when they ask
    /// for `--help` or `-h`.
    pub(crate) fn new(args: &'a [String], usage: &'static str) -> Option<Self> {
        if args.iter().any(|a| a == "--help" || a == "-h") {
            println!("{usage}");
            return None;
        }
        Some(BenchArgs { args, usage })
    }

    /// The number after `flag`, else `default`.
    pub(crate) fn number(&self, flag: &str, default: usize) -> anyhow::Result<usize> {
        match self.args.iter().position(|a| a == flag) {
            None => Ok(default),
            Some(i) => {
                self.args.get(i + 1).and_then(|v| v.parse().ok()).with_context(|| format!("{flag} N\n{}", self.usage))
            }
        }
    }
}
