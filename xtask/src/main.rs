//! Project automation: `cargo xtask fixtures [--check]`, `cargo xtask tidy`, `cargo xtask bench
//! align|kgc|trec|meta|serve`.

mod bench;
mod bench_kgc;
mod bench_layouts;
mod bench_meta;
mod bench_serve;
mod bench_trec;
mod fixtures;
mod tidy;
mod timing;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context as _};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = project_root();
    std::env::set_current_dir(&root).with_context(|| format!("cannot enter {}", root.display()))?;
    match args.first().map(String::as_str) {
        Some("fixtures") => fixtures::run(args.iter().any(|a| a == "--check")),
        Some("bench") => bench::run(&args[1..]),
        Some("tidy") => tidy::run(),
        _ => bail!(
            "usage: cargo xtask fixtures [--check] | cargo xtask tidy | cargo xtask bench align [--cells N] | cargo xtask bench kgc [--rows N] | cargo xtask bench trec [--queries N --docs M] | cargo xtask bench meta [--items N --iterations B] | cargo xtask bench serve [--queries N --uploads N --seconds S]"
        ),
    }
}

/// The workspace root (the parent of this crate's folder).
fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Builds the `kgeval` binary with the given cargo profile and returns its path.
fn build_kgeval(release: bool) -> anyhow::Result<PathBuf> {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["build", "--quiet", "--package", "kgeval-cli", "--bin", "kgeval"]);
    if release {
        cmd.arg("--release");
    }
    let status = cmd.status().context("running cargo build")?;
    if !status.success() {
        bail!("cargo build failed");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    Ok(target.join(if release { "release" } else { "debug" }).join("kgeval"))
}
