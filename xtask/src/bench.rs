//! `cargo xtask bench align`: whole-process timings of `kgeval align` on a generated
//! 1,000,000-cell Alignment-API RDF/XML system alignment and a 100,000-cell partial reference,
//! next to `cat`, a plain Python `xml.sax` scorer and an rdflib parse, measured in the same run.
//!
//! Inputs are generated with a seeded ChaCha8 RNG into `bench-data/` (git-ignored), so every
//! run measures the same bytes.

use std::fmt::Write as _;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::bail;
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;

const SEED: u64 = 20_261_121;

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
        _ => {}
    }
    if args.first().map(String::as_str) != Some("align") {
        bail!(
            "usage: cargo xtask bench align [--cells N] [--runs N] [--no-peers] | cargo xtask bench trec [--queries N]"
        );
    }
    let cells = flag_value(args, "--cells").unwrap_or(1_000_000);
    let runs = flag_value(args, "--runs").unwrap_or(3);
    let peers = !args.iter().any(|a| a == "--no-peers");
    let dir = Path::new("bench-data");
    std::fs::create_dir_all(dir)?;
    let system = dir.join(format!("system-{cells}.rdf"));
    let reference = dir.join(format!("reference-{}.rdf", cells / 10));
    if !system.exists() || !reference.exists() {
        println!("generating {} and {} (seed {SEED})", system.display(), reference.display());
        generate(&system, &reference, cells)?;
    }
    let size = std::fs::metadata(&system)?.len();
    let kgeval = crate::build_kgeval(true)?;
    let mut report = String::new();
    let _ = writeln!(
        report,
        "system: {} ({:.1} MB, {cells} cells); reference: {} ({} cells)",
        system.display(),
        size as f64 / 1e6,
        reference.display(),
        cells / 10
    );
    let _ = writeln!(report, "{:<44} {:>10} {:>10} {:>12}", "command", "best s", "MB/s", "max RSS MB");
    let measure = |report: &mut String, size: u64, label: &str, cmd: &[&str]| -> anyhow::Result<Duration> {
        let timed = crate::timing::best_of(cmd, runs, false)?;
        let (best, rss) = (timed.wall, timed.max_rss_kb);
        let _ = writeln!(
            report,
            "{label:<44} {:>10.3} {:>10.0} {:>12.1}",
            best.as_secs_f64(),
            size as f64 / 1e6 / best.as_secs_f64(),
            rss as f64 / 1024.0
        );
        println!("{label}: {:.3} s", best.as_secs_f64());
        Ok(best)
    };
    let sys = system.to_string_lossy().into_owned();
    let refe = reference.to_string_lossy().into_owned();
    let kg = kgeval.to_string_lossy().into_owned();
    measure(&mut report, size, "cat FILE > /dev/null", &["cat", &sys])?;
    let ours = measure(
        &mut report,
        size,
        "kgeval align --mode partial (parse + score)",
        &[&kg, "align", "--reference", &refe, "--system", &sys, "--completeness", "partial"],
    )?;
    if peers {
        let python = python_with_rdflib()?;
        let py = python.to_string_lossy().into_owned();
        let sax = measure(
            &mut report,
            size,
            "python xml.sax scorer (parse + score)",
            &[&py, "xtask/bench/sax_scorer.py", &refe, &sys],
        )?;
        let small = dir.join(format!("system-{}.rdf", cells / 10));
        let small_reference = dir.join(format!("reference-{}.rdf", cells / 100));
        if !small.exists() || !small_reference.exists() {
            generate(&small, &small_reference, cells / 10)?;
        }
        let small_ref = small_reference.to_string_lossy().into_owned();
        let small_s = small.to_string_lossy().into_owned();
        let small_size = std::fs::metadata(&small)?.len();
        let _ = writeln!(report, "-- on the {}-cell file ({}):", cells / 10, small.display());
        let ours_small = measure(
            &mut report,
            small_size,
            "kgeval align (100k-cell system, 10k reference)",
            &[&kg, "align", "--reference", &small_ref, "--system", &small_s, "--completeness", "partial"],
        )?;
        let rdflib = measure(
            &mut report,
            small_size,
            "python rdflib parse (100k-cell system)",
            &[&py, "xtask/bench/rdflib_parse.py", &small_s],
        )?;
        let _ =
            writeln!(report, "speed-up vs xml.sax scorer (1M cells): {:.1}x", sax.as_secs_f64() / ours.as_secs_f64());
        let _ = writeln!(
            report,
            "speed-up vs rdflib (100k cells): {:.0}x",
            rdflib.as_secs_f64() / ours_small.as_secs_f64()
        );
    }
    println!("\n{report}");
    Ok(())
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

/// Writes a system alignment of `cells` cells and a reference of `cells / 10` cells: half of
/// the reference cells are in the system, the other half are not.
fn generate(system: &Path, reference: &Path, cells: usize) -> anyhow::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let entities = (cells as u64).max(10);
    let mut sys = BufWriter::new(std::fs::File::create(system)?);
    let mut refw = BufWriter::new(std::fs::File::create(reference)?);
    for w in [&mut sys, &mut refw] {
        w.write_all(HEADER.as_bytes())?;
    }
    for i in 0..cells {
        let e1 = rng.gen_range(0..entities);
        let e2 = rng.gen_range(0..entities);
        let measure: f64 = rng.gen_range(0.0..1.0);
        cell(&mut sys, e1, e2, measure)?;
        if i % 10 == 0 {
            if (i / 10) % 2 == 0 {
                cell(&mut refw, e1, e2, 1.0)?;
            } else {
                cell(&mut refw, e1, rng.gen_range(0..entities), 1.0)?;
            }
        }
    }
    for w in [&mut sys, &mut refw] {
        w.write_all(b"</Alignment>\n</rdf:RDF>\n")?;
        w.flush()?;
    }
    Ok(())
}

fn cell(w: &mut impl std::io::Write, e1: u64, e2: u64, measure: f64) -> std::io::Result<()> {
    write!(
        w,
        "  <map>\n    <Cell>\n      <entity1 rdf:resource=\"http://bench.kgeval.org/source#Entity_{e1}\"/>\n      <entity2 rdf:resource=\"http://bench.kgeval.org/target#Entity_{e2}\"/>\n      <relation>=</relation>\n      <measure rdf:datatype=\"http://www.w3.org/2001/XMLSchema#float\">{measure:.6}</measure>\n    </Cell>\n  </map>\n"
    )
}

const HEADER: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rdf:RDF xmlns=\"http://knowledgeweb.semanticweb.org/heterogeneity/alignment#\"\n  xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"\n  xmlns:xsd=\"http://www.w3.org/2001/XMLSchema#\">\n<Alignment>\n  <xml>yes</xml>\n  <level>0</level>\n  <type>??</type>\n  <onto1><Ontology rdf:about=\"http://bench.kgeval.org/source\"/></onto1>\n  <onto2><Ontology rdf:about=\"http://bench.kgeval.org/target\"/></onto2>\n";
