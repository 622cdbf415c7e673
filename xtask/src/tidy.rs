//! `cargo xtask tidy`: the checks that keep the workspace's shape (rust-analyzer's `tidy`).
//!
//! - the layering, from `cargo metadata`: model ← formats, metrics, report ← the `kgeval` facade
//!   ← front ends (`kgeval-server` ← `kgeval-cli`, `kgeval-py`); metrics never sees formats (not even as a dev-dependency) and
//!   report sees the model only;
//! - no Rust file over [`MAX_LINES`] lines;
//! - every crate has a README;
//! - no `.unwrap()` in library and binary code outside `#[cfg(test)]` (input paths return
//!   errors; tests, benches and examples may unwrap).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context as _};
use serde_json::Value;

/// `.unwrap()`, spelled so that this file does not match itself.
const UNWRAP: &str = concat!(".unw", "rap()");

/// The longest a Rust file may be.
const MAX_LINES: usize = 600;

/// Our crates each crate may depend on (normal dependencies).
const LAYERS: &[(&str, &[&str])] = &[
    ("kgeval-model", &[]),
    ("kgeval-formats", &["kgeval-model"]),
    ("kgeval-metrics", &["kgeval-model"]),
    ("kgeval-meta", &["kgeval-model"]),
    ("kgeval-report", &["kgeval-model"]),
    ("kgeval", &["kgeval-model", "kgeval-formats", "kgeval-metrics", "kgeval-meta", "kgeval-report"]),
    ("kgeval-server", &["kgeval", "kgeval-model"]),
    ("kgeval-cli", &["kgeval", "kgeval-model", "kgeval-report", "kgeval-server"]),
    ("kgeval-py", &["kgeval", "kgeval-model", "kgeval-report"]),
];

/// Crates whose dev-dependencies obey the layering too.
const STRICT_DEV: &[&str] = &["kgeval-model", "kgeval-metrics", "kgeval-meta", "kgeval-report"];

/// Runs every check and fails listing every problem.
pub(crate) fn run() -> anyhow::Result<()> {
    let mut problems = Vec::new();
    let packages = layering(&mut problems)?;
    for crate_dir in crate_dirs()? {
        if !crate_dir.join("README.md").is_file() {
            problems.push(format!("{}: no README.md", crate_dir.display()));
        }
    }
    let mut files = Vec::new();
    for dir in [Path::new("crates"), Path::new("xtask")] {
        rust_files(dir, &mut files)?;
    }
    for file in &files {
        let text = std::fs::read_to_string(file).with_context(|| format!("{}: cannot read", file.display()))?;
        let lines = text.lines().count();
        if lines > MAX_LINES {
            problems
                .push(format!("{}: {lines} lines, expected at most {MAX_LINES} (split the module)", file.display()));
        }
        if is_library_or_binary_code(file) {
            for (number, line) in unwraps_outside_tests(&text) {
                problems.push(format!("{}:{number}: `{UNWRAP}` outside tests: {}", file.display(), line.trim()));
            }
        }
    }
    fuzz_lock(&mut problems)?;
    if problems.is_empty() {
        println!("tidy: ok ({} crates layered, {} Rust files)", packages, files.len());
        return Ok(());
    }
    for problem in &problems {
        eprintln!("tidy: {problem}");
    }
    bail!("tidy: {} problems", problems.len())
}

/// Checks that `fuzz/Cargo.lock` (the fuzz workspace's own lock file) still covers the
/// workspace crates' dependencies: a dependency added to a crate without updating it fails
/// `.ci/run`'s `clippy --locked` over `fuzz/` (fix: `cd fuzz && cargo +nightly update
/// --workspace`). Stable cargo resolves it, no nightly needed.
fn fuzz_lock(problems: &mut Vec<String>) -> anyhow::Result<()> {
    let output = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .args(["metadata", "--locked", "--format-version", "1", "--manifest-path", "fuzz/Cargo.toml"])
        .stdout(std::process::Stdio::null())
        .output()
        .context("cannot run cargo metadata on fuzz/")?;
    if !output.status.success() {
        let error = String::from_utf8_lossy(&output.stderr);
        problems.push(format!(
            "fuzz/Cargo.lock is stale (run `cd fuzz && cargo +nightly update --workspace`): {}",
            error.lines().next().unwrap_or("cargo metadata failed")
        ));
    }
    Ok(())
}

/// Checks every workspace crate's dependencies on our crates against [`LAYERS`]; returns the
/// number of crates checked.
fn layering(problems: &mut Vec<String>) -> anyhow::Result<usize> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        bail!("cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let metadata: Value = serde_json::from_slice(&output.stdout).context("cargo metadata JSON")?;
    let packages = metadata["packages"].as_array().context("cargo metadata: packages")?;
    let ours: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let layers: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let mut checked = 0;
    for package in packages {
        let Some(name) = package["name"].as_str() else { continue };
        if name == "xtask" {
            continue;
        }
        let Some(allowed) = layers.get(name) else {
            problems.push(format!("crate {name}: not in the layering table (xtask/src/tidy.rs LAYERS)"));
            continue;
        };
        checked += 1;
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let Some(dep_name) = dep["name"].as_str() else { continue };
            if !ours.contains(&dep_name) {
                continue;
            }
            let kind = dep["kind"].as_str().unwrap_or("normal");
            let checked_kind = kind == "normal" || (kind == "dev" && STRICT_DEV.contains(&name));
            if checked_kind && !allowed.contains(&dep_name) {
                problems.push(format!(
                    "crate {name} depends on {dep_name} ({kind}), expected only {}",
                    if allowed.is_empty() { "none of ours".to_owned() } else { allowed.join(", ") }
                ));
            }
        }
    }
    Ok(checked)
}

/// The crate folders under `crates/`, sorted.
fn crate_dirs() -> anyhow::Result<Vec<PathBuf>> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("crates")
        .context("reading crates/")?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    dirs.push(PathBuf::from("xtask"));
    Ok(dirs)
}

/// Every `.rs` file under `dir` (skipping `target`), sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// Library and binary sources: `crates/*/src/**` except test modules in files of their own
/// (`tests.rs`, `tests/`), plus `xtask/src`.
fn is_library_or_binary_code(file: &Path) -> bool {
    let text = file.to_string_lossy().replace('\\', "/");
    (text.contains("/src/") || text.starts_with("xtask/src"))
        && !text.ends_with("/tests.rs")
        && !text.contains("/tests/")
        && !text.contains("/benches/")
        && !text.contains("/examples/")
}

/// `(line number, line)` of every `.unwrap()` call before the file's `#[cfg(test)]`, outside
/// comments.
fn unwraps_outside_tests(text: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        let code = line.split("//").next().unwrap_or(line);
        if code.contains(UNWRAP) {
            found.push((index + 1, line));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwraps_are_found_outside_tests_and_comments_only() {
        let text =
            "fn a() { x.unwrap(); }\n/// x.unwrap()\nlet y = 1; // z.unwrap()\n#[cfg(test)]\nfn t() { x.unwrap(); }\n";
        assert_eq!(unwraps_outside_tests(text), vec![(1, "fn a() { x.unwrap(); }")]);
        assert!(is_library_or_binary_code(Path::new("crates/kgeval/src/lib.rs")));
        assert!(!is_library_or_binary_code(Path::new("crates/kgeval/tests/it/main.rs")));
        assert!(!is_library_or_binary_code(Path::new("crates/kgeval-formats/src/ranking/pylit/tests.rs")));
    }
}
