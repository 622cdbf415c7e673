//! The `.npy` score-matrix reader: numpy-written files (`testdata/kgc/npy/`), hand-built
//! headers of every version, unaligned data, the parallel walk, and every malformed case.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use half::f16;
use kgeval_formats::kgc::npy::{ScoreMatrix, DEFAULT_BLOCK_BYTES};
use kgeval_formats::FormatError;
use kgeval_model::ranking::{ScoreDtype, ScoreRow};

/// PyKEEN's rank fixture, as numpy wrote it (see `testdata/kgc/npy/SOURCES.md`).
const FIXTURE: [[f32; 5]; 3] = [[2.0, 2.0, 1.0, 3.0, 5.0], [1.0, 1.0, 3.0, 4.0, 0.0], [1.0, 1.0, 3.0, f32::NAN, 0.0]];

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/kgc/npy").join(name)
}

/// Every row of `matrix` widened to `f32`, NaN as `None` (so rows compare with `==`).
fn contents(matrix: &ScoreMatrix) -> Vec<Vec<Option<f32>>> {
    let block = matrix.map_rows(0..matrix.rows()).expect("mapped");
    (0..matrix.rows())
        .map(|i| {
            let row = block.row(i);
            (0..row.len()).map(|c| Some(row.get(c)).filter(|v| !v.is_nan())).collect()
        })
        .collect()
}

fn fixture() -> Vec<Vec<Option<f32>>> {
    FIXTURE.iter().map(|r| r.iter().map(|&v| Some(v).filter(|v| !v.is_nan())).collect()).collect()
}

/// A `.npy` file by hand: `version`, the dict text padded (to `pad_to` bytes of prefix +
/// header, numpy uses 64), then `data`.
fn npy(version: u8, dict: &str, pad_to: usize, data: &[u8]) -> Vec<u8> {
    let prefix = if version == 1 { 10 } else { 12 };
    let mut header = dict.to_owned();
    while (prefix + header.len() + 1) % pad_to != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY".to_vec();
    bytes.extend([version, 0]);
    if version == 1 {
        bytes.extend((header.len() as u16).to_le_bytes());
    } else {
        bytes.extend((header.len() as u32).to_le_bytes());
    }
    bytes.extend(header.as_bytes());
    bytes.extend(data);
    bytes
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("written");
    path
}

fn open_err(path: &Path) -> String {
    ScoreMatrix::open(path).expect_err("refused").to_string()
}

#[test]
fn numpy_written_files_of_every_version_and_dtype() {
    for (name, dtype, version) in [
        ("pykeen-fixture-f32.npy", ScoreDtype::F32, (1, 0)),
        ("pykeen-fixture-f16.npy", ScoreDtype::F16, (1, 0)),
        ("pykeen-fixture-f32-v2.npy", ScoreDtype::F32, (2, 0)),
        ("pykeen-fixture-f32-v3.npy", ScoreDtype::F32, (3, 0)),
    ] {
        let matrix = ScoreMatrix::open(&testdata(name)).unwrap();
        assert_eq!((matrix.rows(), matrix.cols(), matrix.dtype(), matrix.version()), (3, 5, dtype, version), "{name}");
        matrix.expect_shape(3, 5).unwrap();
        assert_eq!(contents(&matrix), fixture(), "{name}");
        // numpy aligns the data to 64 bytes: the rows are borrowed from the mapping.
        let block = matrix.map_rows(1..3).unwrap();
        assert_eq!(block.rows(), 1..3);
        assert!(matches!(block.row(2), ScoreRow::F32(Cow::Borrowed(_)) | ScoreRow::F16(Cow::Borrowed(_))), "{name}");
    }
}

#[test]
fn numpy_files_that_are_not_float32_or_float16_c_order_are_refused() {
    let message = open_err(&testdata("pykeen-fixture-f64.npy"));
    assert!(message
        .ends_with("pykeen-fixture-f64.npy: found dtype '<f8' (float64), expected '<f4' (float32) or '<f2' (float16)"));
    let message = open_err(&testdata("pykeen-fixture-fortran.npy"));
    assert!(message.ends_with(
        "pykeen-fixture-fortran.npy: found fortran_order True (column-major), expected C order (numpy.ascontiguousarray)"
    ));
}

#[test]
fn hand_built_headers_and_unaligned_data() {
    let dir = tempfile::tempdir().unwrap();
    let values: Vec<f32> = (0..12).map(|i| i as f32 * 0.5 - 1.0).collect();
    let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
    for (version, pad_to) in [(1, 64), (2, 64), (3, 64), (1, 1), (2, 3)] {
        let path = write(&dir, "m.npy", &npy(version, dict, pad_to, &f32_bytes(&values)));
        let matrix = ScoreMatrix::open(&path).unwrap();
        let block = matrix.map_rows(0..3).unwrap();
        for i in 0..3 {
            let row = block.row(i);
            assert_eq!((0..4).map(|c| row.get(c)).collect::<Vec<_>>(), values[i * 4..i * 4 + 4], "v{version}");
        }
    }
    // pad_to 1 with version 1: the data starts at an odd offset; rows are decoded, not cast.
    let path = write(&dir, "odd.npy", &npy(1, &format!("{dict} "), 1, &f32_bytes(&values)));
    let matrix = ScoreMatrix::open(&path).unwrap();
    let block = matrix.map_rows(0..3).unwrap();
    let row = block.row(1);
    assert!(matches!(row, ScoreRow::F32(Cow::Owned(_))));
    assert_eq!(row.get(3), values[7]);
    // float16, hand-built, odd offset.
    let halves: Vec<u8> = [0.5_f32, -2.0, 65504.0].iter().flat_map(|&v| f16::from_f32(v).to_le_bytes()).collect();
    let path = write(&dir, "h.npy", &npy(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1, 3)} ", 1, &halves));
    let matrix = ScoreMatrix::open(&path).unwrap();
    let block = matrix.map_rows(0..1).unwrap();
    let row = block.row(0);
    assert_eq!((row.get(0), row.get(1), row.get(2)), (0.5, -2.0, 65504.0));
    // An empty matrix is fine.
    let path = write(&dir, "e.npy", &npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 7)}", 64, &[]));
    let matrix = ScoreMatrix::open(&path).unwrap();
    assert_eq!(matrix.try_map_rows(DEFAULT_BLOCK_BYTES, |i, _| Ok::<_, FormatError>(i)).unwrap(), Vec::<usize>::new());
}

#[test]
fn malformed_files_fail_with_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    let data = f32_bytes(&[1.0; 6]);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "magic.npy",
            b"PK\x03\x04 not numpy at all".to_vec(),
            "found \"PK\\x03\\x04 n\" at byte 0, expected the .npy magic \"\\x93NUMPY\" (not a .npy file)",
        ),
        (
            "short.npy",
            b"\x93NUM".to_vec(),
            "found \"\\x93NUM\" at byte 0, expected the .npy magic \"\\x93NUMPY\" (not a .npy file)",
        ),
        (
            "version.npy",
            {
                let mut b = npy(1, good, 64, &data);
                b[6] = 4;
                b
            },
            "found .npy format version 4.0, expected 1.0, 2.0 or 3.0",
        ),
        (
            "header.npy",
            npy(1, good, 64, &data)[..40].to_vec(),
            "found 40 bytes, expected a header of 118 bytes after byte 10 (the file is truncated)",
        ),
        (
            "truncated.npy",
            npy(1, good, 64, &data[..20]),
            "found 20 data bytes (the file is truncated), expected 2 × 3 float32 values = 24 bytes",
        ),
        (
            "trailing.npy",
            npy(1, good, 64, &[data.clone(), vec![0; 4]].concat()),
            "found 28 data bytes (trailing bytes after the data), expected 2 × 3 float32 values = 24 bytes",
        ),
        (
            "int.npy",
            npy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", 64, &data),
            "found dtype '<i8' (int64), expected '<f4' (float32) or '<f2' (float16)",
        ),
        (
            "big.npy",
            npy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", 64, &data),
            "found dtype '>f4' (big-endian float32), expected '<f4' (float32) or '<f2' (float16)",
        ),
        (
            "3d.npy",
            npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3), }", 64, &data),
            "found shape (1, 2, 3) (3-D), expected a 2-D matrix: one row per question, one column per entity",
        ),
        (
            "extra.npy",
            npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", 64, &data),
            "found the header key 'x', expected only 'descr', 'fortran_order' and 'shape'",
        ),
    ];
    for (name, bytes, expected) in cases {
        let path = write(&dir, name, &bytes);
        let message = open_err(&path);
        assert_eq!(message, format!("{}: {expected}", path.display()), "{name}");
        assert!(!message.contains('\n'));
    }
    let message = open_err(&dir.path().join("missing.npy"));
    assert!(message.starts_with(&format!("{}: ", dir.path().join("missing.npy").display())), "{message}");
    // The shape against the question and entity lists.
    let path = write(&dir, "shape.npy", &npy(1, good, 64, &data));
    let message = ScoreMatrix::open(&path).unwrap().expect_shape(3, 2).unwrap_err().to_string();
    assert_eq!(
        message,
        format!("{}: found shape (2, 3), expected (3, 2): one row per question, one column per entity", path.display())
    );
}

#[test]
fn the_parallel_walk_keeps_row_order_and_reports_the_first_failing_row() {
    let dir = tempfile::tempdir().unwrap();
    let (rows, cols) = (500, 7);
    let values: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
    let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    let path = write(&dir, "walk.npy", &npy(1, &dict, 64, &f32_bytes(&values)));
    let matrix = ScoreMatrix::open(&path).unwrap();
    assert_eq!(matrix.row_blocks(28 * 3).map(|r| r.len()).collect::<Vec<_>>()[..2], [3, 3]);
    // Blocks of one row (28 bytes) and of 100 rows: the same rows, in order.
    for block_bytes in [1, 2800, DEFAULT_BLOCK_BYTES] {
        let firsts: Vec<(usize, f32)> =
            matrix.try_map_rows(block_bytes, |i, row| Ok::<_, FormatError>((i, row.get(0)))).unwrap();
        assert_eq!(firsts, (0..rows).map(|i| (i, (i * cols) as f32)).collect::<Vec<_>>());
    }
    // Rows 123 and 401 fail: row 123's error, whatever the thread timing.
    for _ in 0..20 {
        let result = matrix.try_map_rows(28, |i, _| {
            if i == 123 || i == 401 {
                Err(FormatError::syntax("walk.npy", 0, 0, format!("row {i}")))
            } else {
                Ok(i)
            }
        });
        assert_eq!(result.unwrap_err().to_string(), "walk.npy: row 123");
    }
}
