//! `cargo xtask bench trec [--queries N] [--docs M] [--tie-group G] [--runs R] [--no-peers] [--ranx]`:
//! whole-process timings of `kgeval trec` (and of `--ties expected` / `range`) on the spec's IR workload (10,000 queries × 1,000
//! documents, ~5 % tied scores, graded qrels with ~28 judgments per query), then of `--ties
//! expected` on one topic whose G documents (300,000 by default) share one score, 10 of them
//! relevant (`target/bench-trec/one-group`), next to `cat` on
//! the same file and, when installed, pytrec_eval (and ranx with `--ranx`, trec_eval when it
//! is on `PATH`), measured in the same run with `/usr/bin/time -v` (wall clock and peak RSS).
//!
//! Inputs are generated with a seeded ChaCha8 RNG into `target/bench-trec/{qrels,run}`
//! (regenerated when the sizes change), so every run measures the same bytes. A step that
//! fails (e.g. `kgeval trec` before the CLI exists) is reported and the others still run.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;

use crate::timing::best_of;

const SEED: u64 = 20_261_204;
const JUDGED_PER_QUERY: usize = 28;
/// The measures of the spec's workload, as `kgeval trec` and trec_eval take them.
const MEASURES: [&str; 4] = ["map", "ndcg_cut.10", "recip_rank", "P.10"];
const USAGE: &str =
    "usage: cargo xtask bench trec [--queries N] [--docs M] [--tie-group G] [--runs R] [--no-peers] [--ranx]";
/// Relevant documents in the one-topic tie group, at levels 1 and 2 in turn.
const GROUP_RELEVANT: usize = 10;

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let Some(parsed) = crate::bench::BenchArgs::new(args, USAGE) else { return Ok(()) };
    let queries = parsed.number("--queries", 10_000)?;
    let docs = parsed.number("--docs", 1_000)?;
    let tie_group = parsed.number("--tie-group", 300_000)?.max(GROUP_RELEVANT);
    let runs = parsed.number("--runs", 3)?.max(1);
    let peers = !args.iter().any(|a| a == "--no-peers");
    let with_ranx = args.iter().any(|a| a == "--ranx");

    let dir = Path::new("target/bench-trec");
    let (qrels, run) = (dir.join("qrels"), dir.join("run"));
    let params = dir.join("params");
    let wanted = format!("queries={queries} docs={docs} seed={SEED}\n");
    if std::fs::read_to_string(&params).ok().as_deref() != Some(wanted.as_str()) || !qrels.exists() || !run.exists() {
        std::fs::create_dir_all(dir)?;
        println!("generating {} and {} ({queries} queries × {docs} docs, seed {SEED})", run.display(), qrels.display());
        generate(&qrels, &run, queries, docs)?;
        std::fs::write(&params, &wanted)?;
    }
    let size = std::fs::metadata(&run)?.len();
    let (qrels_s, run_s) = (qrels.to_string_lossy().into_owned(), run.to_string_lossy().into_owned());

    let mut rows: Vec<Row> = Vec::new();
    rows.push(measure("cat run > /dev/null", &["cat", &run_s], runs, false));
    match crate::build_kgeval(true) {
        Ok(kgeval) => {
            let kgeval = kgeval.to_string_lossy().into_owned();
            let mut cmd = vec![kgeval.as_str(), "trec"];
            for m in &MEASURES {
                cmd.extend(["-m", m]);
            }
            cmd.extend([qrels_s.as_str(), run_s.as_str()]);
            rows.push(measure("kgeval trec -m map -m ndcg_cut.10 -m recip_rank -m P.10", &cmd, runs, true));
            // The tie policies (docs/ties.md): the exact expectation, and the interval beside it.
            for ties in ["expected", "range"] {
                let mut tied = cmd.clone();
                tied.splice(2..2, ["--ties", ties]);
                rows.push(measure(&format!("kgeval trec --ties {ties} (same measures)"), &tied, runs, true));
            }
            // One topic, one tie group: the expected values' cost in the group's size.
            let (group_qrels, group_run) = one_group(dir, tie_group)?;
            let mut group_cmd = cmd[..cmd.len() - 2].to_vec();
            group_cmd.extend([group_qrels.as_str(), group_run.as_str()]);
            for ties in ["trec", "expected"] {
                let mut tied = group_cmd.clone();
                tied.splice(2..2, ["--ties", ties]);
                let label = format!("kgeval trec --ties {ties}, one topic of {tie_group} tied documents");
                rows.push(measure(&label, &tied, runs, true));
            }
        }
        Err(e) => rows.push(Row::failed("kgeval trec (release build)", &format!("{e:#}"))),
    }
    if peers {
        if let Some(trec_eval) = on_path("trec_eval") {
            let trec_eval = trec_eval.to_string_lossy().into_owned();
            let mut cmd = vec![trec_eval.as_str()];
            for m in &MEASURES {
                cmd.extend(["-m", m]);
            }
            cmd.extend([qrels_s.as_str(), run_s.as_str()]);
            rows.push(measure("trec_eval (on PATH)", &cmd, 1, true));
        }
        let python = Path::new(".venv-bench/bin/python");
        if has_module(python, "pytrec_eval") {
            let py = python.to_string_lossy().into_owned();
            let cmd = [py.as_str(), "xtask/peer/trec_bench.py", "pytrec_eval", &qrels_s, &run_s];
            rows.push(measure("pytrec_eval (load + evaluate)", &cmd, 1, true));
        } else {
            println!("pytrec_eval: skipped (.venv-bench/bin/python with pytrec_eval not found; see {USAGE})");
        }
        if with_ranx && has_module(python, "ranx") {
            let py = python.to_string_lossy().into_owned();
            let cmd = [py.as_str(), "xtask/peer/trec_bench.py", "ranx", &qrels_s, &run_s];
            rows.push(measure("ranx (load + evaluate)", &cmd, 1, true));
        }
    }
    println!("\n{}", table(&rows, size));
    Ok(())
}

/// One measured command.
struct Row {
    label: String,
    /// Best wall time and the peak RSS (KiB) of that run, or why the command failed.
    result: Result<(Duration, u64), String>,
    /// The first lines of the command's standard output.
    output: String,
}

impl Row {
    fn failed(label: &str, why: &str) -> Self {
        println!("{label}: FAILED: {why}");
        Row { label: label.to_owned(), result: Err(why.to_owned()), output: String::new() }
    }
}

/// Runs `cmd` `runs` times under `/usr/bin/time -v`; keeps the fastest run (and the first
/// lines of its standard output when `capture`, else sends it to /dev/null).
fn measure(label: &str, cmd: &[&str], runs: usize, capture: bool) -> Row {
    match best_of(cmd, runs, capture) {
        Ok(timed) => {
            println!("{label}: {:.3} s, {:.1} MiB", timed.wall.as_secs_f64(), timed.max_rss_kb as f64 / 1024.0);
            Row { label: label.to_owned(), result: Ok((timed.wall, timed.max_rss_kb)), output: timed.stdout_head }
        }
        Err(e) => Row::failed(label, &format!("{e:#}")),
    }
}

/// The Markdown table of the results, then what each tool printed.
fn table(rows: &[Row], size: u64) -> String {
    let mut out = String::new();
    let size_mb = size as f64 / 1e6;
    let _ = writeln!(out, "| tool | wall s | peak RSS MiB | run size MB | RSS / run size |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|");
    for row in rows {
        match &row.result {
            Ok((wall, rss)) => {
                let rss_bytes = *rss as f64 * 1024.0;
                let _ = writeln!(
                    out,
                    "| {} | {:.3} | {:.1} | {size_mb:.1} | {:.2} |",
                    row.label,
                    wall.as_secs_f64(),
                    *rss as f64 / 1024.0,
                    rss_bytes / size as f64
                );
            }
            Err(why) => {
                let short: String = why.chars().take(120).collect();
                let _ = writeln!(out, "| {} | failed: {} | | {size_mb:.1} | |", row.label, short.replace('|', "/"));
            }
        }
    }
    for row in rows.iter().filter(|r| !r.output.is_empty() && !r.label.starts_with("cat")) {
        let _ = write!(out, "\n{} printed:\n{}", row.label, row.output);
    }
    out
}

fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|p| p.is_file())
}

fn has_module(python: &Path, module: &str) -> bool {
    python.exists()
        && Command::new(python)
            .args(["-c", &format!("import {module}")])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
}

/// The qrels and run of one topic whose `size` documents share one score, every
/// `size / GROUP_RELEVANT`-th relevant (at levels 1 and 2 in turn), written into
/// `dir/one-group` unless there already.
fn one_group(dir: &Path, size: usize) -> anyhow::Result<(String, String)> {
    let group = dir.join("one-group");
    let (qrels, run, params) = (group.join("qrels"), group.join("run"), group.join("params"));
    let wanted = format!("size={size} relevant={GROUP_RELEVANT}\n");
    if std::fs::read_to_string(&params).ok().as_deref() != Some(wanted.as_str()) || !qrels.exists() || !run.exists() {
        std::fs::create_dir_all(&group)?;
        let mut run_out = BufWriter::with_capacity(1 << 20, std::fs::File::create(&run)?);
        let mut qrels_out = BufWriter::new(std::fs::File::create(&qrels)?);
        for i in 0..size {
            writeln!(run_out, "1 Q0 D{i:07} {} 1.000000 onegroup", i + 1)?;
            if i % (size / GROUP_RELEVANT) == 0 {
                writeln!(qrels_out, "1 0 D{i:07} {}", 1 + (i / (size / GROUP_RELEVANT)) % 2)?;
            }
        }
        run_out.flush()?;
        qrels_out.flush()?;
        std::fs::write(&params, &wanted)?;
    }
    Ok((qrels.to_string_lossy().into_owned(), run.to_string_lossy().into_owned()))
}

/// Writes the run (`qid Q0 docno rank score tag`, scores descending with ~5 % equal to the
/// previous one) and the qrels (about 28 judgments per query: 20 among the top 200 retrieved,
/// 8 never retrieved; relevance 0, 1 or 2).
pub(crate) fn generate(qrels: &Path, run: &Path, queries: usize, docs: usize) -> anyhow::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut run_out = BufWriter::with_capacity(1 << 20, std::fs::File::create(run)?);
    let mut qrels_out = BufWriter::new(std::fs::File::create(qrels)?);
    let mut docnos: Vec<u32> = Vec::with_capacity(docs);
    let mut seen: HashSet<u32> = HashSet::with_capacity(docs * 2);
    for q in 0..queries {
        let qid = 100_000 + q;
        docnos.clear();
        seen.clear();
        while docnos.len() < docs {
            let docno = rng.gen_range(1_000_000..10_000_000);
            if seen.insert(docno) {
                docnos.push(docno);
            }
        }
        let mut score: f64 = rng.gen_range(15.0..30.0);
        for (rank, docno) in docnos.iter().enumerate() {
            if rank > 0 && !rng.gen_bool(0.05) {
                score -= rng.gen_range(0.000_001..0.02);
            }
            writeln!(run_out, "{qid} Q0 D{docno} {} {score:.6} kgevalrun", rank + 1)?;
        }
        let mut judged: HashSet<u32> = HashSet::with_capacity(JUDGED_PER_QUERY);
        for j in 0..JUDGED_PER_QUERY {
            let docno = if j < 20 && !docnos.is_empty() {
                docnos[rng.gen_range(0..docnos.len().min(200))]
            } else {
                10_000_000 + j as u32
            };
            let relevance = [0, 0, 0, 1, 1, 2][rng.gen_range(0..6)];
            if judged.insert(docno) {
                writeln!(qrels_out, "{qid} 0 D{docno} {relevance}")?;
            }
        }
    }
    run_out.flush()?;
    qrels_out.flush()?;
    Ok(())
}
