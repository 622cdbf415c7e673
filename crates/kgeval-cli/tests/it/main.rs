//! End-to-end tests of the `kgeval` binary on real data, asserting published numbers directly.

mod alignapi;
mod bad_input;
mod cli;
mod conventions;
mod diso;
mod lexicon;
mod melt;
mod rank;

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
