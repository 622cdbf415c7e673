//! `kgeval kgc --scores` on every `.npy` layout numpy and PyKEEN write: float16, float32 and
//! float64, C order and Fortran order (`numpy.asfortranarray`, a transposed save) rank the mini
//! case alike; float64 scores are compared in float64, never rounded to float32.

use crate::kgc::assert_fixture_tail;
use crate::{f, kgeval_json, npy_matrix, NpyType};

/// `testdata/kgc/mini/scores.npy` (see `make_mini.py`): three head rows, then PyKEEN's fixture
/// as the tail rows with the anchor e5 scored NaN.
const NAN: f64 = f64::NAN;
const ROWS: [[f64; 6]; 6] = [
    [1.0, 0.0, 0.0, 0.0, 0.0, 9.0],
    [0.0, 1.0, 0.0, 0.0, 0.0, 9.0],
    [0.0, 0.0, 1.0, 0.0, 0.0, 9.0],
    [2.0, 2.0, 1.0, 3.0, 5.0, NAN],
    [1.0, 1.0, 3.0, 4.0, 0.0, NAN],
    [1.0, 1.0, 3.0, NAN, 0.0, NAN],
];

/// `kgeval kgc` on the mini case with `scores`, NaN ranked worst, as JSON.
fn mini_scores(scores: &str) -> serde_json::Value {
    kgeval_json(&[
        "kgc",
        "--test",
        "testdata/kgc/mini/test.txt",
        "--filter",
        "testdata/kgc/mini/train.txt",
        "--entities",
        "testdata/kgc/mini/entities.txt",
        "--questions",
        "testdata/kgc/mini/questions.txt",
        "--k",
        "1",
        "--nan",
        "worst",
        "--scores",
        scores,
    ])
}

#[test]
fn every_dtype_and_order_ranks_the_mini_case_alike() {
    let reference = mini_scores("testdata/kgc/mini/scores.npy");
    let dir = tempfile::tempdir().expect("tempdir");
    for dtype in [NpyType::F16, NpyType::F32, NpyType::F64] {
        for fortran in [false, true] {
            let path = dir.path().join(format!("{dtype:?}-{fortran}.npy"));
            std::fs::write(&path, npy_matrix(6, 6, dtype, fortran, |r, c| ROWS[r][c])).expect("write");
            let v = mini_scores(path.to_str().expect("utf-8"));
            let s = &v["systems"][0];
            // Tail ranks: realistic [3.5, 2, 1] among [5, 5, 4] candidates (PyKEEN's values).
            assert_fixture_tail(&s["scopes"]["tail"]);
            assert_eq!(f(&s["scopes"]["head"], "micro_mrr"), 1.0, "{dtype:?} fortran {fortran}");
            assert_eq!(s["ties"]["tied_answers"], 1, "{dtype:?} fortran {fortran}");
            assert_eq!(s["scopes"], reference["systems"][0]["scopes"], "{dtype:?} fortran {fortran}");
        }
    }
    // The float64 file of the malformed corpus until float64 was read (written by make_mini.py).
    let v = mini_scores("testdata/kgc/mini/scores-float64.npy");
    assert_eq!(v["systems"][0]["scopes"], reference["systems"][0]["scopes"]);
}

/// Lowering e1's score in tail0's row from 2 to 2 − 1e-12 (below float32's resolution at 2,
/// 2⁻²² ≈ 2.4e-7) breaks its tie with the answer e0: tail ranks [3, 2, 1], MR 2, no tied
/// answer. Rounded to float32 the tie comes back (realistic 3.5, MR 13/6).
#[test]
fn float64_scores_closer_than_float32_resolves_stay_untied() {
    let dir = tempfile::tempdir().expect("tempdir");
    let value = |r: usize, c: usize| if (r, c) == (3, 1) { 2.0 - 1e-12 } else { ROWS[r][c] };
    for (dtype, fortran, mr, tied) in [
        (NpyType::F64, false, 2.0, 0),
        (NpyType::F64, true, 2.0, 0),
        (NpyType::F32, false, 13.0 / 6.0, 1),
        (NpyType::F32, true, 13.0 / 6.0, 1),
    ] {
        let path = dir.path().join(format!("{dtype:?}-{fortran}.npy"));
        std::fs::write(&path, npy_matrix(6, 6, dtype, fortran, value)).expect("write");
        let v = mini_scores(path.to_str().expect("utf-8"));
        let s = &v["systems"][0];
        let found = f(&s["scopes"]["tail"], "micro_mr");
        assert!((found - mr).abs() < 1e-12, "{dtype:?} fortran {fortran}: MR {found}, expected {mr}");
        assert_eq!(s["ties"]["tied_answers"], tied, "{dtype:?} fortran {fortran}");
    }
}
