//! End-to-end tests of the `kgeval` binary on real data, asserting published numbers directly.

mod alignapi;
#[cfg(feature = "arrow")]
mod arrow;
#[cfg(feature = "arrow")]
mod arrow_strict;
mod bad_input;
mod campaign;
mod campaign_bad;
mod campaign_browser;
mod campaign_discpower;
mod campaign_identity;
mod cdp;
mod cli;
mod compare;
mod compare_against;
mod compare_bad;
mod compare_sensitivity;
mod conventions;
mod determinism;
mod diso;
mod docs_commands;
mod escaping;
mod facade;
mod facade_align;
mod facade_kgc;
mod facade_qald;
mod facade_rank;
mod facade_trec;
mod files;
mod first_hour;
mod kgc;
mod kgc_models;
mod kgc_npy;
mod lexicon;
mod limits;
mod limits_declared;
mod melt;
mod messages;
mod names;
mod output_safety;
mod per_item;
mod pool;
mod pool_bounds;
mod qald;
mod qald_bad;
mod qald_server;
mod rank;
mod readme_compare;
mod repeats;
mod serve;
mod serve_board_export;
mod serve_browser;
mod serve_browser_desk;
mod serve_connections;
mod serve_desk;
mod serve_diso;
mod serve_export;
mod serve_hostile;
mod serve_hostile_load;
mod serve_load;
mod serve_load_files;
mod serve_no_leaks;
mod serve_pages;
mod serve_qald;
mod serve_refusals;
mod serve_rehearsal;
mod serve_rescore;
mod serve_setup;
mod shell;
mod silent;
mod ties;
mod trec;
mod trec_conformance;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root: tests run the binary from there, with the paths of `testdata/`.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// Runs `kgeval` with `args` from the workspace root.
pub(crate) fn kgeval(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kgeval")).args(args).current_dir(root()).output().expect("run kgeval")
}

/// Runs `kgeval` with `args` from the workspace root with `threads` rayon threads.
pub(crate) fn kgeval_threads(args: &[&str], threads: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kgeval"))
        .args(args)
        .env("RAYON_NUM_THREADS", threads)
        .current_dir(root())
        .output()
        .expect("run kgeval")
}

/// A C-order little-endian float32 `.npy` matrix (format 1.0), `rows × cols` values row by row.
pub(crate) fn npy_f32(rows: usize, cols: usize, values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    let mut bytes = npy_header("<f4", false, rows, cols);
    let header = bytes.len();
    bytes.reserve(rows * cols * 4);
    for value in values {
        bytes.extend(value.to_le_bytes());
    }
    assert_eq!(bytes.len() - header, rows * cols * 4, "npy_f32: wrong number of values");
    bytes
}

/// The element types [`npy_matrix`] writes, little-endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NpyType {
    /// `<f2` (each value rounded to the nearest float16).
    F16,
    /// `<f4` (each value rounded to the nearest float32).
    F32,
    /// `<f8`.
    F64,
}

/// A `rows × cols` `.npy` matrix (format 1.0) of `value(row, col)` as `dtype`, in C order or,
/// with `fortran`, column-major as `numpy.asfortranarray` saves it (`fortran_order: True`).
pub(crate) fn npy_matrix(
    rows: usize,
    cols: usize,
    dtype: NpyType,
    fortran: bool,
    value: impl Fn(usize, usize) -> f64,
) -> Vec<u8> {
    let descr = match dtype {
        NpyType::F16 => "<f2",
        NpyType::F32 => "<f4",
        NpyType::F64 => "<f8",
    };
    let mut bytes = npy_header(descr, fortran, rows, cols);
    let cells: Vec<(usize, usize)> = if fortran {
        (0..cols).flat_map(|c| (0..rows).map(move |r| (r, c))).collect()
    } else {
        (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c))).collect()
    };
    for (r, c) in cells {
        let v = value(r, c);
        match dtype {
            NpyType::F16 => bytes.extend(half::f16::from_f64(v).to_le_bytes()),
            NpyType::F32 => bytes.extend((v as f32).to_le_bytes()),
            NpyType::F64 => bytes.extend(v.to_le_bytes()),
        }
    }
    bytes
}

/// The magic, version 1.0, the header length and the dict, padded so the data starts at a
/// multiple of 64 bytes (as numpy writes it).
fn npy_header(descr: &str, fortran: bool, rows: usize, cols: usize) -> Vec<u8> {
    let order = if fortran { "True" } else { "False" };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': ({rows}, {cols}), }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend(u16::try_from(header.len()).expect("short header").to_le_bytes());
    bytes.extend(header.as_bytes());
    bytes
}

/// Runs `kgeval` with `args` from the workspace root, `stdin` on its standard input.
pub(crate) fn kgeval_stdin(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kgeval"))
        .args(args)
        .current_dir(root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run kgeval");
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("kgeval output");
    writer.join().expect("stdin writer");
    out
}

/// Writes `source` gzip-compressed to `target`.
pub(crate) fn gzip_file(source: &Path, target: &Path) {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&std::fs::read(source).expect("read source")).expect("gzip");
    std::fs::write(target, encoder.finish().expect("gzip")).expect("write gzip");
}

/// The examples of `kgeval SUBCOMMAND --help` (the lines after `Examples:` that start with
/// `kgeval`, continuation lines joined), each split into arguments (no shell quoting).
pub(crate) fn help_examples(subcommand: &str) -> Vec<Vec<String>> {
    let help = kgeval(&[subcommand, "--help"]);
    let text = String::from_utf8_lossy(&help.stdout).into_owned();
    let mut examples = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines().skip_while(|l| !l.starts_with("Examples:")).skip(1) {
        let line = line.trim();
        if current.is_none() && !line.starts_with("kgeval ") {
            continue;
        }
        let part = line.trim_end_matches('\\').trim();
        let whole = current.take().map_or_else(|| part.to_owned(), |c| format!("{c} {part}"));
        if line.ends_with('\\') {
            current = Some(whole);
        } else {
            examples.push(whole.split_whitespace().skip(1).map(str::to_owned).collect());
        }
    }
    examples
}

/// Runs `kgeval`, asserts exit 0 and parses stdout as JSON.
pub(crate) fn kgeval_json(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = kgeval(&all);
    assert!(out.status.success(), "kgeval {} failed: {}", all.join(" "), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// Writes R≈ ∪ unknown of DISO brick-smartenv as one submission into `dir` (the `<map>` blocks
/// of `unknown.rdf` appended to `Rapprox.rdf`) and returns its path.
pub(crate) fn diso_union_file(dir: &Path) -> PathBuf {
    let base = root().join("testdata/diso/brick-smartenv");
    let approx = std::fs::read_to_string(base.join("Rapprox.rdf")).expect("Rapprox");
    let unknown = std::fs::read_to_string(base.join("unknown.rdf")).expect("unknown");
    let start = unknown.find("<map>").expect("a map in unknown.rdf");
    let end = unknown.rfind("</map>").expect("a map in unknown.rdf") + "</map>".len();
    let cut = approx.rfind("</Alignment>").expect("</Alignment>");
    let path = dir.join("union.rdf");
    std::fs::write(&path, format!("{}{}\n{}", &approx[..cut], &unknown[start..end], &approx[cut..]))
        .expect("write union");
    path
}

/// A float field of a JSON scores object.
pub(crate) fn f(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} missing in {v}"))
}

/// An integer field of a JSON scores object.
pub(crate) fn n(v: &serde_json::Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} missing in {v}"))
}

/// `FILE:LINE:COL:` with LINE ≥ 1 and COL ≥ 1 somewhere in the line.
pub(crate) fn has_position(line: &str, file: &str) -> bool {
    let Some(at) = line.find(&format!("{file}:")) else { return false };
    let mut parts = line[at + file.len() + 1..].splitn(3, ':');
    let line_no = parts.next().and_then(|s| s.parse::<u32>().ok());
    let col = parts.next().and_then(|s| s.parse::<u32>().ok());
    matches!((line_no, col), (Some(l), Some(c)) if l >= 1 && c >= 1)
}

/// Asserts that a run on the malformed `file` failed cleanly: exit 2, no panic, a last
/// stderr line `error: FILE:LINE:COL: …`, nothing on stdout and no file at `out_path`.
pub(crate) fn assert_clean_failure(name: &str, out: &Output, file: &str, out_path: &Path) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
    assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("error: "), "{name}: {stderr}");
    assert!(has_position(last, file), "{name}: no {file}:LINE:COL in {last:?}");
    assert!(!out_path.exists(), "{name}: partial output written");
    assert!(out.stdout.is_empty(), "{name}: output on stdout");
}
