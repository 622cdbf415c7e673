//! `cargo xtask bench kgc [--rows N] [--cols N] [--runs N] [--layouts]`: the dense-score path of
//! `kgeval kgc` on a float32 score matrix of FB15k-237 shape (40,932 questions × 14,541
//! entities, 2.4 GB by default), timed against reading the file once (`cat > /dev/null`) in
//! the same run, with `/usr/bin/time -v` for peak RSS and CPU.
//!
//! Inputs are generated with a seeded ChaCha8 RNG into `target/bench-kgc/`: the matrix, an
//! entity list, train / valid / test triples (the test triples have distinct (s, p) and
//! (o, p), so the `head…` then `tail…` question list has exactly `rows` questions), and
//! `rows.tsv` (targets and excluded columns per row) for the library-only example
//! `rank_dense`. Each file is written once per shape; the page cache is warmed before timing.
//!
//! `--layouts` then writes the same scores as float64, as Fortran order (column-major) and as
//! both (`scores-f64.npy`, `scores-fortran.npy`, `scores-f64-fortran.npy`) and times reading
//! each once (`cat`), the library path and the full CLI on every layout.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context as _};
use rand::{Rng as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;

use crate::timing::{best_of, time_once};

const SEED: u64 = 20_261_121;
const RELATIONS: u32 = 237;

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)?.parse::<usize>().ok());
    let questions = flag("--rows").unwrap_or(40_932) / 2 * 2;
    let entities = flag("--cols").unwrap_or(14_541);
    let runs = flag("--runs").unwrap_or(3);
    if questions == 0 || entities < 2 || questions / 2 > entities * RELATIONS as usize / 4 {
        bail!("usage: cargo xtask bench kgc [--rows N] [--cols N] [--runs N] [--layouts] (rows ≥ 2, rows / 2 ≤ cols × 237 / 4)");
    }
    let dir = PathBuf::from(format!("target/bench-kgc/{questions}x{entities}"));
    let scores = dir.join("scores.npy");
    let matrix_bytes = (questions * entities * 4 + 128) as u64;
    if !dir.join("done").exists() {
        std::fs::create_dir_all(&dir)?;
        let free = free_bytes(&dir)?;
        if matrix_bytes + (1 << 30) > free {
            bail!(
                "{} needs {:.2} GB, {:.2} GB free (keeping 1 GB): choose a smaller --rows",
                scores.display(),
                matrix_bytes as f64 / 1e9,
                free as f64 / 1e9
            );
        }
        println!("generating {} ({:.2} GB, seed {SEED})", dir.display(), matrix_bytes as f64 / 1e9);
        generate(&dir, questions, entities)?;
        std::fs::write(dir.join("done"), "")?;
    }
    // The full CLI may not build while `kgeval kgc` is being written: its row then says so.
    let kgeval = crate::build_kgeval(true).unwrap_or_else(|e| {
        eprintln!("kgeval not built ({e:#}): timing the library path only");
        PathBuf::from("kgeval-not-built")
    });
    let example = build_example()?;
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let (s, rows, kg, ex) = (path("scores.npy"), path("rows.tsv"), kgeval.to_string_lossy(), example.to_string_lossy());
    let (test, train, valid, ents, qs) =
        (path("test.txt"), path("train.txt"), path("valid.txt"), path("entities.txt"), path("questions.txt"));
    let commands: Vec<(&str, Vec<&str>)> = vec![
        ("cat scores.npy > /dev/null", vec!["cat", &s]),
        ("rank_dense (library: mmap + rank_row, 4 tie policies)", vec![&ex, &s, &rows]),
        ("rank_dense --tolerance (LibKGE isclose ties)", vec![&ex, &s, &rows, "--tolerance"]),
        (
            "kgeval kgc --scores (full CLI)",
            vec![
                &kg,
                "kgc",
                "--test",
                &test,
                "--filter",
                &train,
                "--filter",
                &valid,
                "--entities",
                &ents,
                "--scores",
                &s,
                "--questions",
                &qs,
            ],
        ),
    ];
    // Warm the page cache, so that every command reads the same cached bytes.
    time_once(&commands[0].1, false)?;
    let mut report = String::new();
    let _ = writeln!(
        report,
        "matrix: {s} ({questions} × {entities} float32, {:.2} GB); best of {runs}",
        matrix_bytes as f64 / 1e9
    );
    let _ = writeln!(
        report,
        "| command | wall (s) | × cat | user + sys (s) | CPU % | max RSS (MB) |\n|---|---:|---:|---:|---:|---:|"
    );
    let mut cat = None;
    for (label, cmd) in &commands {
        match best_of(cmd, runs, false) {
            Ok(m) => {
                let base = *cat.get_or_insert(m.wall);
                let _ = writeln!(
                    report,
                    "| {label} | {:.3} | {:.2} | {:.2} | {} | {:.1} |",
                    m.wall.as_secs_f64(),
                    m.wall.as_secs_f64() / base.as_secs_f64(),
                    m.cpu_seconds,
                    m.cpu_percent,
                    m.max_rss_kb as f64 / 1024.0,
                );
                println!("{label}: {:.3} s", m.wall.as_secs_f64());
            }
            Err(e) => {
                let _ =
                    writeln!(report, "| {label} | failed: {} | | | |", format!("{e:#}").lines().next().unwrap_or(""));
            }
        }
    }
    println!("\n{report}");
    if args.iter().any(|a| a == "--layouts") {
        let paths = [&test, &train, &valid, &ents, &qs];
        layouts(&dir, questions, entities, runs, &kg, &ex, &rows, paths)?;
    }
    Ok(())
}

/// The `--layouts` table: every layout of the same scores, read once, ranked by the library
/// and by the full CLI.
#[allow(clippy::too_many_arguments)]
fn layouts(
    dir: &Path,
    questions: usize,
    entities: usize,
    runs: usize,
    kgeval: &str,
    example: &str,
    rows_tsv: &str,
    [test, train, valid, ents, qs]: [&String; 5],
) -> anyhow::Result<()> {
    let names = [
        ("scores.npy", false, false),
        ("scores-f64.npy", true, false),
        ("scores-fortran.npy", false, true),
        ("scores-f64-fortran.npy", true, true),
    ];
    if !dir.join("done-layouts").exists() {
        println!("writing the float64 and Fortran-order layouts");
        let bytes = std::fs::read(dir.join("scores.npy"))?;
        let values: Vec<f32> =
            bytes[128..].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        anyhow::ensure!(values.len() == questions * entities, "scores.npy: unexpected size");
        for &(name, wide, fortran) in &names[1..] {
            write_layout(&dir.join(name), &values, questions, entities, wide, fortran)?;
        }
        std::fs::write(dir.join("done-layouts"), "")?;
    }
    let mut report = String::from(
        "| layout | cat (s) | rank_dense wall (s) | rank_dense user+sys (s) | RSS (MB) | kgeval kgc wall (s) | kgeval kgc user+sys (s) | RSS (MB) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (name, wide, fortran) in names {
        let path = dir.join(name).to_string_lossy().into_owned();
        let cat = ["cat", path.as_str()];
        time_once(&cat, false)?; // warm the page cache with this layout
        let cat = best_of(&cat, runs, false)?;
        let library = best_of(&[example, &path, rows_tsv], runs, false)?;
        let cli = [kgeval, "kgc", "--test", test, "--filter", train, "--filter", valid, "--entities", ents];
        let cli: Vec<&str> = cli.into_iter().chain(["--scores", path.as_str(), "--questions", qs]).collect();
        let cli = best_of(&cli, runs, false)?;
        let layout = format!(
            "{} {}, {:.2} GB",
            if wide { "float64" } else { "float32" },
            if fortran { "Fortran" } else { "C" },
            std::fs::metadata(&path)?.len() as f64 / 1e9
        );
        let _ = writeln!(
            report,
            "| {layout} | {:.3} | {:.3} | {:.2} | {:.1} | {:.3} | {:.2} | {:.1} |",
            cat.wall.as_secs_f64(),
            library.wall.as_secs_f64(),
            library.cpu_seconds,
            library.max_rss_kb as f64 / 1024.0,
            cli.wall.as_secs_f64(),
            cli.cpu_seconds,
            cli.max_rss_kb as f64 / 1024.0,
        );
        println!("{layout}: done");
    }
    println!("\n{report}");
    Ok(())
}

/// `values` (`rows × cols`, row by row) as a version-1.0 `.npy` file of float64 (`wide`) or
/// float32, in C or Fortran order; Fortran order is written a tile of 16 columns at a time.
fn write_layout(
    path: &Path,
    values: &[f32],
    rows: usize,
    cols: usize,
    wide: bool,
    fortran: bool,
) -> anyhow::Result<()> {
    let descr = if wide { "<f8" } else { "<f4" };
    let order = if fortran { "True" } else { "False" };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': ({rows}, {cols}), }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut w = BufWriter::with_capacity(1 << 22, std::fs::File::create(path)?);
    w.write_all(b"\x93NUMPY\x01\x00")?;
    w.write_all(&(header.len() as u16).to_le_bytes())?;
    w.write_all(header.as_bytes())?;
    let put = |v: f32, w: &mut BufWriter<std::fs::File>| -> std::io::Result<()> {
        if wide {
            w.write_all(&f64::from(v).to_le_bytes())
        } else {
            w.write_all(&v.to_le_bytes())
        }
    };
    if !fortran {
        for &v in values {
            put(v, &mut w)?;
        }
    } else {
        const TILE: usize = 16;
        let mut columns = vec![0.0_f32; TILE * rows];
        for start in (0..cols).step_by(TILE) {
            let width = TILE.min(cols - start);
            for r in 0..rows {
                for k in 0..width {
                    columns[k * rows + r] = values[r * cols + start + k];
                }
            }
            for &v in &columns[..width * rows] {
                put(v, &mut w)?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

/// Builds the `rank_dense` example (release) and returns its path.
fn build_example() -> anyhow::Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let ok = Command::new(cargo)
        .args(["build", "--quiet", "--release", "--package", "kgeval-cli", "--example", "rank_dense"])
        .status()?
        .success();
    if !ok {
        bail!("cargo build --example rank_dense failed");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    Ok(target.join("release/examples/rank_dense"))
}

/// Bytes available to us on the file system of `dir` (`df -Pk`).
fn free_bytes(dir: &Path) -> anyhow::Result<u64> {
    let out = Command::new("df").arg("-Pk").arg(dir).output().context("running df")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let available = text.lines().nth(1).and_then(|l| l.split_whitespace().nth(3)).and_then(|v| v.parse::<u64>().ok());
    available.map(|kb| kb * 1024).context("cannot read the free space from df")
}

/// A skewed index in `0..n` (low indices popular), so that some questions have many known
/// answers to filter, as in FB15k-237.
fn skewed(rng: &mut ChaCha8Rng, n: u32, power: i32) -> u32 {
    ((f64::from(n) * rng.gen::<f64>().powi(power)) as u32).min(n - 1)
}

/// Writes the matrix and its text inputs into `dir`.
fn generate(dir: &Path, questions: usize, entities: usize) -> anyhow::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let n = questions / 2;
    let cols = entities as u32;
    let mut heads_of: HashMap<(u32, u32), Vec<u32>> = HashMap::new(); // (p, o) → s
    let mut tails_of: HashMap<(u32, u32), Vec<u32>> = HashMap::new(); // (s, p) → o
    let mut test = Vec::with_capacity(n);
    while test.len() < n {
        let (s, p, o) = (skewed(&mut rng, cols, 2), skewed(&mut rng, RELATIONS, 2), skewed(&mut rng, cols, 2));
        if s != o && !heads_of.contains_key(&(p, o)) && !tails_of.contains_key(&(s, p)) {
            heads_of.insert((p, o), vec![s]);
            tails_of.insert((s, p), vec![o]);
            test.push((s, p, o));
        }
    }
    let entity = |e: u32| format!("e{e}");
    write_lines(&dir.join("entities.txt"), (0..cols).map(entity))?;
    let triple = |&(s, p, o): &(u32, u32, u32)| format!("e{s}\tr{p}\te{o}");
    write_lines(&dir.join("test.txt"), test.iter().map(triple))?;
    // FB15k-237 proportions: 272,115 train and 17,535 valid triples for 20,466 test triples.
    for (name, count) in [("train.txt", n * 272_115 / 20_466), ("valid.txt", n * 17_535 / 20_466)] {
        let triples: Vec<(u32, u32, u32)> = (0..count)
            .map(|_| (skewed(&mut rng, cols, 3), skewed(&mut rng, RELATIONS, 2), skewed(&mut rng, cols, 3)))
            .collect();
        for &(s, p, o) in &triples {
            heads_of.entry((p, o)).or_default().push(s);
            tails_of.entry((s, p)).or_default().push(o);
        }
        write_lines(&dir.join(name), triples.iter().map(triple))?;
    }
    // Questions: head{i} = (?, p, o) of the i-th test triple, then tail{i} = (s, p, ?).
    let heads = test.iter().enumerate().map(|(i, &(_, p, o))| format!("head{i}\te{o}\tr{p}"));
    let tails = test.iter().enumerate().map(|(i, &(s, p, _))| format!("tail{i}\te{s}\tr{p}"));
    write_lines(&dir.join("questions.txt"), heads.chain(tails))?;
    let mut targets = Vec::with_capacity(questions);
    let mut rows = Vec::with_capacity(questions);
    let row = |target: u32, known: &[u32]| {
        let mut excluded: Vec<u32> = known.iter().copied().filter(|&c| c != target).collect();
        excluded.sort_unstable();
        excluded.dedup();
        let excluded: Vec<String> = excluded.iter().map(u32::to_string).collect();
        format!("{target}\t{}", excluded.join(","))
    };
    for &(s, p, o) in &test {
        targets.push(s);
        rows.push(row(s, &heads_of[&(p, o)]));
    }
    for &(s, p, o) in &test {
        targets.push(o);
        rows.push(row(o, &tails_of[&(s, p)]));
    }
    write_lines(&dir.join("rows.tsv"), rows.into_iter())?;
    write_matrix(&dir.join("scores.npy"), &targets, entities, &mut rng)
}

fn write_lines(path: &Path, lines: impl Iterator<Item = String>) -> anyhow::Result<()> {
    let mut w = BufWriter::new(std::fs::File::create(path)?);
    for line in lines {
        writeln!(w, "{line}")?;
    }
    w.flush()?;
    Ok(())
}

/// A version-1.0 `<f4` `.npy` file (128-byte header): uniform scores in [-10, 10), the
/// target of each row raised into [2, 12) so that ranks spread over the top of the list.
fn write_matrix(path: &Path, targets: &[u32], entities: usize, rng: &mut ChaCha8Rng) -> anyhow::Result<()> {
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {entities}), }}", targets.len());
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut w = BufWriter::with_capacity(1 << 22, std::fs::File::create(path)?);
    w.write_all(b"\x93NUMPY\x01\x00")?;
    w.write_all(&(header.len() as u16).to_le_bytes())?;
    w.write_all(header.as_bytes())?;
    let mut row = vec![0_f32; entities];
    let mut bytes = Vec::with_capacity(entities * 4);
    for &target in targets {
        row.iter_mut().for_each(|v| *v = rng.gen_range(-10.0..10.0));
        row[target as usize] = rng.gen_range(2.0..12.0);
        bytes.clear();
        bytes.extend(row.iter().flat_map(|v| v.to_le_bytes()));
        w.write_all(&bytes)?;
    }
    w.flush()?;
    Ok(())
}
