//! The `.npy` reader: the header (magic, version, length, the Python dict literal) and the
//! length check on the raw bytes, then, for a file that passes, the whole read as `kgeval kgc`
//! does it (open from a file, every block of rows mapped and decoded; C and Fortran order,
//! every dtype and byte order), checking that every row has the announced width.
#![no_main]

use std::sync::OnceLock;

use kgeval_formats::kgc::npy::{check_npy, ScoreMatrix};
use kgeval_formats::FormatError;
use libfuzzer_sys::fuzz_target;

/// One scratch file per fuzzing process (libFuzzer runs inputs one after the other).
fn scratch() -> &'static std::path::Path {
    static PATH: OnceLock<std::path::PathBuf> = OnceLock::new();
    PATH.get_or_init(|| std::env::temp_dir().join(format!("kgeval-fuzz-npy-{}.npy", std::process::id())))
}

fuzz_target!(|data: &[u8]| {
    let Ok((rows, cols)) = check_npy(data, "fuzz.npy") else { return };
    // Past the header check the data length is rows × cols × the value size, so the input
    // bounds the work, except for zero columns: `kgeval kgc` checks the shape against the test
    // set (`expect_shape`) before it reads a row, so a huge row count never reaches the rows.
    if rows > 1 << 12 {
        return;
    }
    // A file that reads from bytes must read from disk the same way.
    let path = scratch();
    if std::fs::write(path, data).is_err() {
        return;
    }
    let matrix = match ScoreMatrix::open(path) {
        Ok(matrix) => matrix,
        Err(e) => panic!("check_npy accepted what open refuses: {e}"),
    };
    assert_eq!((matrix.rows(), matrix.cols()), (rows, cols));
    let widths = matrix
        .try_map_rows(256, |_, row| Ok::<_, FormatError>((row.len(), (0..row.len()).map(|c| row.get(c)).sum::<f64>())))
        .expect("rows of a checked matrix");
    assert_eq!(widths.len(), rows);
    assert!(widths.iter().all(|&(width, _)| width == cols));
});
