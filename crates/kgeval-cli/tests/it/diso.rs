//! DISO-OAEI Task 1 (brick-smartenv), numbers from the track's `score_global.py`.

use crate::cli::single_system;
use crate::{diso_union_file, f, kgeval_json, n};

const DIR: &str = "testdata/diso/brick-smartenv";

fn score(system: &str) -> serde_json::Value {
    let json =
        kgeval_json(&["align", "--profile", "diso", "--reference", &format!("{DIR}/Rplus.rdf"), "--system", system]);
    single_system(&json)["pairs"][0]["primary"].clone()
}

#[test]
fn rplus_against_itself_is_perfect() {
    let p = score(&format!("{DIR}/Rplus.rdf"));
    assert_eq!((f(&p, "precision"), f(&p, "recall"), f(&p, "f1")), (1.0, 1.0, 1.0));
}

#[test]
fn rapprox_against_rplus() {
    let p = score(&format!("{DIR}/Rapprox.rdf"));
    assert_eq!(n(&p, "tp"), 18);
    assert_eq!(n(&p, "tp") + n(&p, "fp"), 23, "judged");
    assert_eq!((f(&p, "precision") * 1e4).round() / 1e4, 0.7826);
    assert_eq!(f(&p, "recall"), 1.0);
    assert_eq!((f(&p, "f1") * 1e3).round() / 1e3, 0.878);
}

/// R≈ ∪ unknown as one submission: the `<map>` blocks of `unknown.rdf` appended to `Rapprox.rdf`.
#[test]
fn rapprox_union_unknown_against_rplus() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = diso_union_file(dir.path());
    let p = score(path.to_str().expect("utf-8 path"));
    assert_eq!(n(&p, "tp") + n(&p, "fp"), 26, "judged");
    assert_eq!((f(&p, "precision") * 1e4).round() / 1e4, 0.6923);
}
