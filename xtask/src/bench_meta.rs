//! `cargo xtask bench meta [--systems K] [--items N] [--iterations B] [--elinor-iterations B]
//! [--runs R] [--no-peers]`: randomised Tukey HSD of `kgeval-meta` on a generated per-item
//! score matrix (13 systems × 40,000 items, B = 10,000 by default) at 2 and 1 rayon threads,
//! beside, in the same run: an elinor-style single-threaded loop (below: one `rand` shuffle
//! per item and iteration, one generator for the whole run), ranx's `compare` statistics on
//! the same matrix (`xtask/peer/meta_bench.py` in `.venv`: its `tukey` is scipy's parametric
//! Tukey HSD, its `fisher` a numba randomisation test timed on one pair at a smaller B and
//! extrapolated), and Kendall tau on 10⁶-long vectors (kgeval and `scipy.stats.kendalltau`).
//!
//! The matrix is generated with a seeded ChaCha8 RNG into `target/bench-meta/` (one line
//! `K N`, then one line of K scores per item). The kgeval timings are of the library call
//! alone (the release example `significance_cases` prints them), best of R runs.

use std::fmt::Write as _;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context as _};
use rand::seq::SliceRandom as _;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;

const SEED: u64 = 20_261_124;
const TEST_SEED: u64 = 42;

fn flag(args: &[String], name: &str) -> Option<usize> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)?.parse().ok())
}

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let systems = flag(args, "--systems").unwrap_or(13);
    let items = flag(args, "--items").unwrap_or(40_000);
    let iterations = flag(args, "--iterations").unwrap_or(10_000);
    let elinor_iterations = flag(args, "--elinor-iterations").unwrap_or(1_000).min(iterations);
    let runs = flag(args, "--runs").unwrap_or(3);
    let peers = !args.iter().any(|a| a == "--no-peers");
    if systems < 2 || items == 0 || iterations == 0 || elinor_iterations == 0 {
        bail!("usage: cargo xtask bench meta [--systems K ≥ 2] [--items N] [--iterations B] [--elinor-iterations B] [--runs R] [--no-peers]");
    }
    let dir = PathBuf::from("target/bench-meta");
    std::fs::create_dir_all(&dir)?;
    let matrix = dir.join(format!("scores-{systems}x{items}.txt"));
    if !matrix.exists() {
        println!("generating {} (seed {SEED})", matrix.display());
        generate(&matrix, systems, items)?;
    }
    let example = build_example()?;
    let (ex, file) = (example.to_string_lossy().into_owned(), matrix.to_string_lossy().into_owned());
    let mut report = String::new();
    let _ = writeln!(report, "workload: {systems} systems × {items} items, B = {iterations} ({})", matrix.display());
    let _ = writeln!(report, "{:<62} {:>10}", "what", "seconds");
    let b = iterations.to_string();
    let seed = TEST_SEED.to_string();
    for threads in ["2", "1"] {
        let mut best = f64::INFINITY;
        for _ in 0..runs.max(1) {
            let out = Command::new(&ex)
                .args(["tukey", &file, &b, &seed])
                .env("RAYON_NUM_THREADS", threads)
                .output()
                .with_context(|| format!("running {ex}"))?;
            if !out.status.success() {
                bail!("{ex} failed: {}", String::from_utf8_lossy(&out.stderr));
            }
            let line: serde_json::Value = serde_json::from_slice(&out.stdout)?;
            best = best.min(line["seconds"].as_f64().context("no seconds")?);
        }
        let label = format!("kgeval-meta tukey_hsd, {threads} thread(s), best of {runs}");
        println!("{label}: {best:.3} s");
        let _ = writeln!(report, "{label:<62} {best:>10.3}");
    }
    let seconds = elinor_style(&file, elinor_iterations)?;
    let label = format!("elinor-style loop, 1 thread, B = {elinor_iterations}");
    let _ = writeln!(report, "{label:<62} {seconds:>10.3}");
    let extrapolated = seconds * iterations as f64 / elinor_iterations as f64;
    let label = format!("  … extrapolated to B = {iterations}");
    let _ = writeln!(report, "{label:<62} {extrapolated:>10.1}");
    println!("elinor-style: {seconds:.3} s at B = {elinor_iterations} (≈ {extrapolated:.1} s at B = {iterations})");
    let out = Command::new(&ex).args(["kendall", "1000000", "7"]).output().with_context(|| format!("running {ex}"))?;
    let kendall: serde_json::Value = serde_json::from_slice(&out.stdout).context("kendall timing")?;
    let kendall_s = kendall["seconds"].as_f64().unwrap_or(f64::NAN);
    let _ = writeln!(report, "{:<62} {kendall_s:>10.3}", "kgeval-meta kendall_tau (tau-b), n = 10^6, 2 threads");
    if peers {
        let python = Path::new(".venv/bin/python");
        if python.exists() {
            let out = Command::new(python)
                .args(["xtask/peer/meta_bench.py", &file, "--iterations", &b])
                .output()
                .context("running xtask/peer/meta_bench.py")?;
            if !out.status.success() {
                bail!("meta_bench.py failed: {}", String::from_utf8_lossy(&out.stderr));
            }
            report.push_str(&String::from_utf8_lossy(&out.stdout));
        } else {
            let _ = writeln!(
                report,
                "(peers skipped: no .venv; python3 -m venv .venv && .venv/bin/pip install ranx==0.3.21 scipy==1.17.1)"
            );
        }
    }
    println!("\n{report}");
    Ok(())
}

/// Builds `kgeval-meta`'s `significance_cases` example (release) and returns its path.
fn build_example() -> anyhow::Result<PathBuf> {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--quiet", "--release", "--package", "kgeval-meta", "--example", "significance_cases"])
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build of the significance_cases example failed");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    Ok(target.join("release/examples/significance_cases"))
}

/// Per-item scores of a plausible shape: an item difficulty shared by every system, a
/// per-system offset and noise, clipped to [0, 1], six decimals.
fn generate(path: &Path, systems: usize, items: usize) -> anyhow::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut out = BufWriter::new(std::fs::File::create(path)?);
    writeln!(out, "{systems} {items}")?;
    for _ in 0..items {
        let difficulty: f64 = rng.gen();
        let row: Vec<String> = (0..systems)
            .map(|s| {
                let v = 0.6 * difficulty + 0.001 * s as f64 + 0.3 * (rng.gen::<f64>() - 0.5);
                format!("{:.6}", v.clamp(0.0, 1.0))
            })
            .collect();
        writeln!(out, "{}", row.join(" "))?;
    }
    out.flush()?;
    Ok(())
}

/// Times the elinor-style loop, compiled with optimisations: when this xtask is a debug
/// build, it reruns itself through `cargo run --release` (`bench meta-elinor FILE B`).
fn elinor_style(file: &str, iterations: usize) -> anyhow::Result<f64> {
    if cfg!(debug_assertions) {
        let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["run", "--quiet", "--release", "--package", "xtask", "--", "bench", "meta-elinor", file])
            .arg(iterations.to_string())
            .output()
            .context("running the release xtask")?;
        if !out.status.success() {
            bail!("release xtask failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        return text.trim().parse().with_context(|| format!("elinor-style timing: {text:?}"));
    }
    elinor_seconds(file, iterations)
}

/// `bench meta-elinor FILE B`: prints the seconds of the elinor-style loop.
pub(crate) fn run_elinor(args: &[String]) -> anyhow::Result<()> {
    let [file, b] = args else { bail!("usage: cargo xtask bench meta-elinor FILE B") };
    println!("{}", elinor_seconds(file, b.parse()?)?);
    Ok(())
}

fn elinor_seconds(file: &str, iterations: usize) -> anyhow::Result<f64> {
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?;
    let mut lines = text.lines();
    let header: Vec<usize> =
        lines.next().unwrap_or_default().split_whitespace().map(str::parse).collect::<Result<_, _>>()?;
    let [systems, items] = header[..] else { bail!("{file}: bad header") };
    let rows: Vec<Vec<f64>> =
        lines.map(|l| l.split_whitespace().map(str::parse).collect::<Result<_, _>>()).collect::<Result<_, _>>()?;
    let start = Instant::now();
    let p = elinor_style_tukey(&rows, systems, items, iterations);
    let seconds = start.elapsed().as_secs_f64();
    std::hint::black_box(p);
    Ok(seconds)
}

/// Randomised Tukey HSD as a straightforward single-threaded program writes it (the shape of
/// elinor's `RandomizedTukeyHsdTest`): one generator, and per iteration a copy of every
/// item's scores shuffled with `SliceRandom::shuffle`, then the range of the system means.
fn elinor_style_tukey(rows: &[Vec<f64>], systems: usize, items: usize, iterations: usize) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(TEST_SEED);
    let mut means = vec![0.0; systems];
    for row in rows {
        for (m, v) in means.iter_mut().zip(row) {
            *m += v / items as f64;
        }
    }
    let mut counts = vec![0usize; systems * systems];
    let mut shuffled = vec![0.0; systems];
    for _ in 0..iterations {
        let mut sums = vec![0.0; systems];
        for row in rows {
            shuffled.copy_from_slice(row);
            shuffled.shuffle(&mut rng);
            for (s, v) in sums.iter_mut().zip(&shuffled) {
                *s += v;
            }
        }
        let max = sums.iter().copied().fold(f64::MIN, f64::max) / items as f64;
        let min = sums.iter().copied().fold(f64::MAX, f64::min) / items as f64;
        for i in 0..systems {
            for j in 0..systems {
                if max - min >= (means[i] - means[j]).abs() {
                    counts[i * systems + j] += 1;
                }
            }
        }
    }
    counts.iter().map(|&c| c as f64 / iterations as f64).collect()
}
