//! The `.npy` score-matrix reader: numpy-written files (`testdata/kgc/npy/`), hand-built
//! headers of every version, dtype, byte order and memory order, unaligned data, the parallel
//! walk, and every malformed case.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use half::f16;
use kgeval_formats::kgc::npy::{ScoreMatrix, DEFAULT_BLOCK_BYTES};
use kgeval_formats::FormatError;
use kgeval_model::ranking::{ScoreDtype, ScoreRow};

/// PyKEEN's rank fixture, as numpy wrote it (see `testdata/kgc/npy/SOURCES.md`).
const FIXTURE: [[f64; 5]; 3] = [[2.0, 2.0, 1.0, 3.0, 5.0], [1.0, 1.0, 3.0, 4.0, 0.0], [1.0, 1.0, 3.0, f64::NAN, 0.0]];

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/kgc/npy").join(name)
}

/// Every row of `matrix` as `f64`, NaN as `None` (so rows compare with `==`).
fn contents(matrix: &ScoreMatrix) -> Vec<Vec<Option<f64>>> {
    let block = matrix.map_rows(0..matrix.rows()).expect("mapped");
    (0..matrix.rows())
        .map(|i| {
            let row = block.row(i);
            (0..row.len()).map(|c| Some(row.get(c)).filter(|v| !v.is_nan())).collect()
        })
        .collect()
}

fn fixture() -> Vec<Vec<Option<f64>>> {
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
fn numpy_written_files_of_every_version_dtype_and_order() {
    for (name, dtype, version, fortran) in [
        ("pykeen-fixture-f32.npy", ScoreDtype::F32, (1, 0), false),
        ("pykeen-fixture-f16.npy", ScoreDtype::F16, (1, 0), false),
        ("pykeen-fixture-f64.npy", ScoreDtype::F64, (1, 0), false),
        ("pykeen-fixture-fortran.npy", ScoreDtype::F32, (1, 0), true),
        ("pykeen-fixture-f32-v2.npy", ScoreDtype::F32, (2, 0), false),
        ("pykeen-fixture-f32-v3.npy", ScoreDtype::F32, (3, 0), false),
    ] {
        let matrix = ScoreMatrix::open(&testdata(name)).unwrap();
        assert_eq!((matrix.rows(), matrix.cols(), matrix.dtype(), matrix.version()), (3, 5, dtype, version), "{name}");
        assert_eq!((matrix.fortran_order(), matrix.big_endian()), (fortran, false), "{name}");
        matrix.expect_shape(3, 5).unwrap();
        assert_eq!(contents(&matrix), fixture(), "{name}");
        // numpy aligns the data to 64 bytes: the rows are borrowed from the mapping.
        let block = matrix.map_rows(1..3).unwrap();
        assert_eq!(block.rows(), 1..3);
        // (Fortran order: from the block's gathered rows.)
        let row = block.row(2);
        assert!(
            matches!(
                row,
                ScoreRow::F32(Cow::Borrowed(_)) | ScoreRow::F16(Cow::Borrowed(_)) | ScoreRow::F64(Cow::Borrowed(_))
            ),
            "{name}"
        );
        assert_eq!(row.dtype(), dtype);
    }
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
            let want: Vec<f64> = values[i * 4..i * 4 + 4].iter().map(|&v| f64::from(v)).collect();
            assert_eq!((0..4).map(|c| row.get(c)).collect::<Vec<_>>(), want, "v{version}");
        }
    }
    // pad_to 1 with version 1: the data starts at an odd offset; rows are decoded, not cast.
    let path = write(&dir, "odd.npy", &npy(1, &format!("{dict} "), 1, &f32_bytes(&values)));
    let matrix = ScoreMatrix::open(&path).unwrap();
    let block = matrix.map_rows(0..3).unwrap();
    let row = block.row(1);
    assert!(matches!(row, ScoreRow::F32(Cow::Owned(_))));
    assert_eq!(row.get(3), f64::from(values[7]));
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
            npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", 64, &data),
            "found dtype '<i4' (int32), expected float64, float32 or float16 ('<f8', '<f4', '<f2', or big-endian '>f8', '>f4', '>f2')",
        ),
        (
            "complex.npy",
            npy(1, "{'descr': '<c16', 'fortran_order': False, 'shape': (1, 3), }", 64, &[data.clone(), data.clone()].concat()),
            "found dtype '<c16' (complex128), expected float64, float32 or float16 ('<f8', '<f4', '<f2', or big-endian '>f8', '>f4', '>f2')",
        ),
        (
            "object.npy",
            npy(1, "{'descr': '|O', 'fortran_order': False, 'shape': (2, 3), }", 64, b"\x80\x02pickled"),
            "found dtype '|O' (Python objects), expected float64, float32 or float16 ('<f8', '<f4', '<f2', or big-endian '>f8', '>f4', '>f2')",
        ),
        (
            "truncated-f64.npy",
            npy(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", 64, &data),
            "found 24 data bytes (the file is truncated), expected 2 × 3 float64 values = 48 bytes",
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
        let firsts: Vec<(usize, f64)> =
            matrix.try_map_rows(block_bytes, |i, row| Ok::<_, FormatError>((i, row.get(0)))).unwrap();
        assert_eq!(firsts, (0..rows).map(|i| (i, (i * cols) as f64)).collect::<Vec<_>>());
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

/// `value(r, c)` of a `rows × cols` matrix as `descr` bytes, row by row or (`fortran`) column
/// by column.
fn matrix_bytes(descr: &str, fortran: bool, rows: usize, cols: usize, value: impl Fn(usize, usize) -> f64) -> Vec<u8> {
    let cells: Vec<(usize, usize)> = if fortran {
        (0..cols).flat_map(|c| (0..rows).map(move |r| (r, c))).collect()
    } else {
        (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c))).collect()
    };
    let mut bytes = Vec::new();
    for (r, c) in cells {
        let v = value(r, c);
        match descr {
            "<f8" => bytes.extend(v.to_le_bytes()),
            ">f8" => bytes.extend(v.to_be_bytes()),
            "<f4" => bytes.extend((v as f32).to_le_bytes()),
            ">f4" => bytes.extend((v as f32).to_be_bytes()),
            "<f2" => bytes.extend(f16::from_f64(v).to_le_bytes()),
            ">f2" => bytes.extend(f16::from_f64(v).to_be_bytes()),
            _ => unreachable!("{descr}"),
        }
    }
    bytes
}

#[test]
fn every_dtype_byte_order_and_memory_order_reads_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    // 23 × 41 values exact in float16 (multiples of 1/8 below 64), NaN on a diagonal.
    let (rows, cols) = (23, 41);
    let value = |r: usize, c: usize| if r == c { f64::NAN } else { ((r * 7 + c * 13) % 509) as f64 / 8.0 };
    let want: Vec<Vec<Option<f64>>> =
        (0..rows).map(|r| (0..cols).map(|c| Some(value(r, c)).filter(|v| !v.is_nan())).collect()).collect();
    for (descr, dtype, size) in [
        ("<f8", ScoreDtype::F64, 8),
        (">f8", ScoreDtype::F64, 8),
        ("<f4", ScoreDtype::F32, 4),
        (">f4", ScoreDtype::F32, 4),
        ("<f2", ScoreDtype::F16, 2),
        (">f2", ScoreDtype::F16, 2),
    ] {
        for fortran in [false, true] {
            let order = if fortran { "True" } else { "False" };
            let dict = format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': ({rows}, {cols}), }}");
            // Aligned (numpy's 64 bytes) and at an odd offset (decoded, not borrowed).
            for pad_to in [64, 1] {
                let case = format!("{descr} fortran {fortran} pad {pad_to}");
                let bytes = npy(1, &format!("{dict} "), pad_to, &matrix_bytes(descr, fortran, rows, cols, value));
                let path = write(&dir, "m.npy", &bytes);
                let matrix = ScoreMatrix::open(&path).unwrap();
                let flags = (matrix.dtype(), matrix.big_endian(), matrix.fortran_order());
                assert_eq!(flags, (dtype, descr.starts_with('>'), fortran), "{case}");
                assert_eq!(contents(&matrix), want, "{case}");
                // Blocks of 1, 3 and all rows, in parallel: every row, each in the file's dtype.
                for block_bytes in [1, 3 * cols * size, DEFAULT_BLOCK_BYTES] {
                    let read: Vec<Vec<Option<f64>>> = matrix
                        .try_map_rows(block_bytes, |_, row| {
                            assert_eq!(row.dtype(), dtype);
                            Ok::<_, FormatError>(
                                (0..row.len()).map(|c| Some(row.get(c)).filter(|v| !v.is_nan())).collect(),
                            )
                        })
                        .unwrap();
                    assert_eq!(read, want, "{case}, blocks of {block_bytes} bytes");
                }
            }
        }
    }
}

#[test]
fn float64_values_are_not_rounded_to_float32() {
    let dir = tempfile::tempdir().unwrap();
    // 1 + 1e-12 and 1 + 2e-12 are one float32 (1.0) but three float64 values with 1.
    let values = [1.0, 1.0 + 1e-12, 1.0 + 2e-12];
    for fortran in [false, true] {
        let order = if fortran { "True" } else { "False" };
        let dict = format!("{{'descr': '<f8', 'fortran_order': {order}, 'shape': (1, 3), }}");
        let path = write(&dir, "f8.npy", &npy(1, &dict, 64, &matrix_bytes("<f8", fortran, 1, 3, |_, c| values[c])));
        let matrix = ScoreMatrix::open(&path).unwrap();
        let block = matrix.map_rows(0..1).unwrap();
        let ScoreRow::F64(row) = block.row(0) else { panic!("a float64 row") };
        assert_eq!(&row[..], values, "fortran {fortran}");
    }
}

#[test]
fn empty_fortran_matrices_have_empty_rows() {
    let dir = tempfile::tempdir().unwrap();
    for shape in ["(0, 7)", "(4, 0)"] {
        let dict = format!("{{'descr': '<f8', 'fortran_order': True, 'shape': {shape}, }}");
        let matrix = ScoreMatrix::open(&write(&dir, "e.npy", &npy(1, &dict, 64, &[]))).unwrap();
        let lengths = matrix.try_map_rows(DEFAULT_BLOCK_BYTES, |_, row| Ok::<_, FormatError>(row.len())).unwrap();
        assert_eq!(lengths, vec![0; matrix.rows()], "{shape}");
    }
}
