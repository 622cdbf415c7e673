//! Dense score matrices in `.npy`: float64 (`f8`, numpy's and PyKEEN's default), float32
//! (`f4`) or float16 (`f2`), little- or big-endian, C order or Fortran order, 2-D (questions ×
//! entities), NPY format version 1.0, 2.0 or 3.0. Values keep their precision: a float64 row
//! is handed on as `f64` ([`ScoreRow::F64`]), never rounded to `f32`.
//!
//! [`ScoreMatrix::open`] reads and checks the header only; rows are memory-mapped in blocks
//! ([`ScoreMatrix::map_rows`]) and [`ScoreMatrix::try_map_rows`] walks the whole matrix on
//! every core with a few blocks mapped at a time, so memory stays bounded by the rows in
//! flight whatever the file size. Errors are one line naming the file:
//! `FILE: found …, expected …`.
//!
//! Layouts:
//! - **C order, little-endian** (what numpy writes by default): each block of rows is one
//!   contiguous mapping and rows are borrowed from it, not copied.
//! - **Big-endian** (`>f8`, `>f4`, `>f2`): as above, each row decoded into a buffer.
//! - **Fortran order** (`fortran_order: True`: `numpy.asfortranarray`, a transposed array,
//!   `torch`'s `.T.numpy()`): the matrix is stored column by column. The data is mapped once
//!   (read-only, not populated) and each block of rows is gathered from every column into a
//!   row-major buffer of the block's size (a blocked transpose, one pass over each byte); the
//!   whole matrix is never transposed in memory. The cost is one copy of the data (see
//!   `docs/PERFORMANCE.md`); the pages read are file cache the kernel can drop, as with
//!   `numpy.load(mmap_mode='r')`.
//!
//! ```no_run
//! use kgeval_formats::kgc::npy::{ScoreMatrix, DEFAULT_BLOCK_BYTES};
//! use kgeval_formats::FormatError;
//!
//! let matrix = ScoreMatrix::open("scores.npy".as_ref())?;
//! matrix.expect_shape(40_932, 14_541)?;
//! // The best score of every row, in row order.
//! let best: Vec<f64> = matrix.try_map_rows(DEFAULT_BLOCK_BYTES, |_, row| {
//!     Ok::<_, FormatError>((0..row.len()).map(|c| row.get(c)).fold(f64::MIN, f64::max))
//! })?;
//! # Ok::<(), FormatError>(())
//! ```

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use half::f16;
use kgeval_model::ranking::{ScoreDtype, ScoreRow};
use rayon::prelude::*;

use crate::FormatError;

mod decode;
mod header;

use decode::{cast_or_decode, gather, Columns, Element};

/// The block size [`ScoreMatrix::try_map_rows`] is meant to be called with: 8 MiB of rows.
pub const DEFAULT_BLOCK_BYTES: usize = 8 << 20;

/// An open `.npy` score matrix: its checked header and the file, not yet mapped.
#[derive(Debug)]
pub struct ScoreMatrix {
    file: File,
    path: PathBuf,
    name: String,
    dtype: ScoreDtype,
    big_endian: bool,
    rows: usize,
    cols: usize,
    data_offset: u64,
    version: (u8, u8),
    /// Fortran order: how the columns are reached (`None` in C order).
    fortran: Option<FortranData>,
}

/// The data of a Fortran-order matrix: mapped once as a whole (every block of rows takes a
/// piece of every column), or read column by column when it cannot be mapped.
#[derive(Debug)]
enum FortranData {
    Mapped(memmap2::Mmap),
    Unmapped,
}

impl ScoreMatrix {
    /// Opens `path` and checks its header: the magic, version 1.0–3.0, `descr` `<f8`, `<f4` or
    /// `<f2` (or big-endian `>f8`, `>f4`, `>f2`), `fortran_order` True or False, a 2-D `shape`,
    /// and a file length of exactly header + rows × cols values (shorter: truncated; longer:
    /// trailing bytes). A Fortran-order matrix is mapped here (not read).
    ///
    /// # Errors
    /// [`FormatError::Io`] when the file cannot be read; [`FormatError::Syntax`] (no line or
    /// column: the file is binary) for every check above.
    pub fn open(path: &Path) -> Result<Self, FormatError> {
        let name = path.display().to_string();
        crate::input::check_regular_file(path)?;
        let file = File::open(path).map_err(|e| FormatError::io(&name, e))?;
        let length = file.metadata().map_err(|e| FormatError::io(&name, e))?.len();
        let header = header::read(&file, length).map_err(|message| error(&name, message))?;
        let data_bytes = data_bytes(&header, length, &name)?;
        let (rows, cols) = header.shape;
        let fortran = header.fortran_order.then(|| {
            if data_bytes == 0 {
                return FortranData::Unmapped;
            }
            // SAFETY: as in `map_rows`: a read-only private map of an input file that is not
            // being written. Not populated: a block reads only its rows of each column.
            #[allow(unsafe_code)]
            let mapped =
                unsafe { memmap2::MmapOptions::new().offset(header.data_offset).len(data_bytes as usize).map(&file) };
            mapped.map_or(FortranData::Unmapped, FortranData::Mapped)
        });
        Ok(ScoreMatrix {
            file,
            path: path.to_owned(),
            name,
            dtype: header.dtype,
            big_endian: header.big_endian,
            rows,
            cols,
            data_offset: header.data_offset,
            version: header.version,
            fortran,
        })
    }

    /// The number of rows (questions).
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns (entities).
    #[must_use]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// float64, float32 or float16.
    #[must_use]
    pub fn dtype(&self) -> ScoreDtype {
        self.dtype
    }

    /// Whether the values are big-endian (`>` in the header's `descr`).
    #[must_use]
    pub fn big_endian(&self) -> bool {
        self.big_endian
    }

    /// Whether the matrix is stored column by column (`fortran_order: True`).
    #[must_use]
    pub fn fortran_order(&self) -> bool {
        self.fortran.is_some()
    }

    /// The NPY format version, `(1, 0)`, `(2, 0)` or `(3, 0)`.
    #[must_use]
    pub fn version(&self) -> (u8, u8) {
        self.version
    }

    /// The file as the user named it.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Checks the shape against the question and entity lists.
    ///
    /// # Errors
    /// `FILE: found shape (R, C), expected (r, c): one row per question, one column per entity`.
    pub fn expect_shape(&self, questions: usize, entities: usize) -> Result<(), FormatError> {
        if (self.rows, self.cols) == (questions, entities) {
            return Ok(());
        }
        Err(error(
            &self.name,
            format!(
                "found shape ({}, {}), expected ({questions}, {entities}): one row per question, one column per entity",
                self.rows, self.cols
            ),
        ))
    }

    /// Maps `rows` of the matrix (read instead when mapping fails); in Fortran order, gathers
    /// them from every column into a buffer of their own.
    ///
    /// # Errors
    /// [`FormatError::Io`] when the rows can be neither mapped nor read.
    ///
    /// # Panics
    /// When `rows` reaches past the last row.
    pub fn map_rows(&self, rows: Range<usize>) -> Result<RowBlock, FormatError> {
        assert!(rows.start <= rows.end && rows.end <= self.rows, "rows {rows:?} outside 0..{}", self.rows);
        if let Some(fortran) = &self.fortran {
            let columns = Columns { stride: self.rows, first: rows.start, len: rows.len(), cols: self.cols };
            let gathered = match fortran {
                FortranData::Mapped(map) => self.gather(map, columns),
                FortranData::Unmapped => {
                    let bytes = self.read_columns(columns).map_err(|e| FormatError::io(&self.name, e))?;
                    self.gather(&bytes, Columns { stride: columns.len, first: 0, ..columns })
                }
            };
            let bytes = BlockBytes::Gathered(gathered);
            return Ok(RowBlock { bytes, rows, cols: self.cols, dtype: self.dtype, big_endian: false });
        }
        let row_bytes = self.cols * self.dtype.size();
        let offset = self.data_offset + (rows.start * row_bytes) as u64;
        let len = rows.len() * row_bytes;
        let bytes = if len == 0 {
            BlockBytes::Read(Vec::new())
        } else {
            // SAFETY: the map is read-only and private to this block, which lives only while
            // its rows are ranked. Mapping is unsafe because another process could truncate or
            // rewrite the file meanwhile (SIGBUS or torn values); kgeval reads input files that
            // are not being written, as every mmap-based reader (ripgrep, numpy's mmap_mode)
            // assumes. When mapping fails (a special file), the rows are read instead.
            #[allow(unsafe_code)]
            let mapped = unsafe { memmap2::MmapOptions::new().offset(offset).len(len).populate().map(&self.file) };
            match mapped {
                Ok(map) => BlockBytes::Mapped(map),
                Err(_) => {
                    BlockBytes::Read(read_at(&self.path, offset, len).map_err(|e| FormatError::io(&self.name, e))?)
                }
            }
        };
        Ok(RowBlock { bytes, rows, cols: self.cols, dtype: self.dtype, big_endian: self.big_endian })
    }

    /// Column-major rows out of `data`, decoded to the matrix's element type.
    fn gather(&self, data: &[u8], columns: Columns) -> Gathered {
        match self.dtype {
            ScoreDtype::F64 => Gathered::F64(gather(data, columns, self.big_endian)),
            ScoreDtype::F32 => Gathered::F32(gather(data, columns, self.big_endian)),
            ScoreDtype::F16 => Gathered::F16(gather(data, columns, self.big_endian)),
        }
    }

    /// The rows `columns` asks for, read column by column (Fortran order, when the file cannot
    /// be mapped): `columns.len` values of each column, one column after the other.
    fn read_columns(&self, columns: Columns) -> std::io::Result<Vec<u8>> {
        use std::io::{Read as _, Seek as _, SeekFrom};
        let size = self.dtype.size();
        let mut bytes = vec![0; columns.len * columns.cols * size];
        if bytes.is_empty() {
            return Ok(bytes);
        }
        let mut file = File::open(&self.path)?;
        for (c, column) in bytes.chunks_exact_mut(columns.len * size).enumerate() {
            file.seek(SeekFrom::Start(self.data_offset + ((c * columns.stride + columns.first) * size) as u64))?;
            file.read_exact(column)?;
        }
        Ok(bytes)
    }

    /// Consecutive row ranges of about `block_bytes` bytes each (at least one row), covering
    /// every row.
    pub fn row_blocks(&self, block_bytes: usize) -> impl Iterator<Item = Range<usize>> {
        let per_block = (block_bytes / (self.cols * self.dtype.size()).max(1)).max(1);
        let rows = self.rows;
        (0..rows).step_by(per_block).map(move |start| start..(start + per_block).min(rows))
    }

    /// `per_row(row_index, row)` for every row, in parallel over blocks of about `block_bytes`
    /// (each block mapped, used and unmapped in turn, so about two blocks per core are in
    /// memory), with the results in row order.
    ///
    /// On failure the error of the **first** failing row is returned, whatever the thread
    /// count: blocks after a failed row are skipped, blocks before it run to the end.
    ///
    /// # Errors
    /// The first error of `per_row` in row order, or a [`FormatError`] when a block cannot be
    /// read.
    pub fn try_map_rows<T, E, F>(&self, block_bytes: usize, per_row: F) -> Result<Vec<T>, E>
    where
        T: Send,
        E: Send + From<FormatError>,
        F: Fn(usize, ScoreRow<'_>) -> Result<T, E> + Sync,
    {
        let first_error = AtomicUsize::new(usize::MAX);
        let blocks: Vec<Range<usize>> = self.row_blocks(block_bytes).collect();
        let results: Vec<Option<Result<Vec<T>, E>>> = blocks
            .into_par_iter()
            .map(|rows| {
                if rows.start > first_error.load(Ordering::Relaxed) {
                    return None;
                }
                let block = match self.map_rows(rows.clone()) {
                    Ok(block) => block,
                    Err(e) => {
                        first_error.fetch_min(rows.start, Ordering::Relaxed);
                        return Some(Err(E::from(e)));
                    }
                };
                let mut values = Vec::with_capacity(rows.len());
                for index in rows {
                    match per_row(index, block.row(index)) {
                        Ok(value) => values.push(value),
                        Err(e) => {
                            first_error.fetch_min(index, Ordering::Relaxed);
                            return Some(Err(e));
                        }
                    }
                }
                Some(Ok(values))
            })
            .collect();
        let mut all = Vec::with_capacity(self.rows);
        // Every block before the first failed row ran to the end; skipped ones come after it.
        for result in results.into_iter().flatten() {
            all.extend(result?);
        }
        Ok(all)
    }
}

/// Some consecutive rows of a [`ScoreMatrix`], mapped (or, in Fortran order, gathered).
#[derive(Debug)]
pub struct RowBlock {
    bytes: BlockBytes,
    rows: Range<usize>,
    cols: usize,
    dtype: ScoreDtype,
    big_endian: bool,
}

#[derive(Debug)]
enum BlockBytes {
    /// C-order rows, mapped.
    Mapped(memmap2::Mmap),
    /// C-order rows, read.
    Read(Vec<u8>),
    /// Rows gathered from the columns of a Fortran-order matrix, decoded, row after row.
    Gathered(Gathered),
}

/// Decoded rows of one element type.
#[derive(Debug)]
enum Gathered {
    F64(Vec<f64>),
    F32(Vec<f32>),
    F16(Vec<f16>),
}

impl RowBlock {
    /// The rows of the matrix this block holds.
    #[must_use]
    pub fn rows(&self) -> Range<usize> {
        self.rows.clone()
    }

    /// Row `index` (numbered as in the whole matrix) in the file's precision: borrowed from
    /// the mapping when it is little-endian and aligned for the type (numpy aligns the data to
    /// 64 bytes) or from the gathered rows (Fortran order), decoded otherwise.
    ///
    /// # Panics
    /// When the block does not hold row `index`.
    #[must_use]
    pub fn row(&self, index: usize) -> ScoreRow<'_> {
        assert!(self.rows.contains(&index), "row {index} outside the block {:?}", self.rows);
        let i = index - self.rows.start;
        let bytes = match &self.bytes {
            BlockBytes::Mapped(map) => &map[..],
            BlockBytes::Read(bytes) => &bytes[..],
            BlockBytes::Gathered(Gathered::F64(values)) => return ScoreRow::F64(self.slice(values, i)),
            BlockBytes::Gathered(Gathered::F32(values)) => return ScoreRow::F32(self.slice(values, i)),
            BlockBytes::Gathered(Gathered::F16(values)) => return ScoreRow::F16(self.slice(values, i)),
        };
        let row_bytes = self.cols * self.dtype.size();
        let bytes = &bytes[i * row_bytes..(i + 1) * row_bytes];
        match self.dtype {
            ScoreDtype::F64 => ScoreRow::F64(cast_or_decode(bytes, self.big_endian)),
            ScoreDtype::F32 => ScoreRow::F32(cast_or_decode(bytes, self.big_endian)),
            ScoreDtype::F16 => ScoreRow::F16(cast_or_decode(bytes, self.big_endian)),
        }
    }

    /// Row `i` of the block out of gathered values.
    fn slice<'a, T: Element>(&self, values: &'a [T], i: usize) -> std::borrow::Cow<'a, [T]> {
        std::borrow::Cow::Borrowed(&values[i * self.cols..(i + 1) * self.cols])
    }
}

/// `len` bytes of the file at `path` from `offset`, through a handle of its own (blocks are
/// read from several threads).
fn read_at(path: &Path, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let mut bytes = vec![0; len];
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// Checks a whole `.npy` file given as bytes (`name` for messages) as [`ScoreMatrix::open`]
/// checks the file it opens: the header, then the data length. Returns the shape. For the
/// fuzz target of the header reader; the errors are the ones `open` reports.
///
/// # Errors
/// [`FormatError::Syntax`] as [`ScoreMatrix::open`].
#[doc(hidden)]
pub fn check_npy(bytes: &[u8], name: &str) -> Result<(usize, usize), FormatError> {
    let length = bytes.len() as u64;
    let header = header::read(bytes, length).map_err(|message| error(name, message))?;
    data_bytes(&header, length, name)?;
    Ok(header.shape)
}

/// The number of data bytes `header` announces, checked against the file's `length`.
fn data_bytes(header: &header::Header, length: u64, name: &str) -> Result<u64, FormatError> {
    let (rows, cols) = header.shape;
    let data_bytes = rows
        .checked_mul(cols)
        .and_then(|n| n.checked_mul(header.dtype.size()))
        .and_then(|n| u64::try_from(n).ok())
        .ok_or_else(|| error(name, format!("found shape ({rows}, {cols}), expected a size that fits in memory")))?;
    let found = length - header.data_offset;
    if found != data_bytes {
        let what = if found < data_bytes { "the file is truncated" } else { "trailing bytes after the data" };
        return Err(error(
            name,
            format!(
                "found {found} data bytes ({what}), expected {rows} × {cols} {} values = {data_bytes} bytes",
                header.dtype
            ),
        ));
    }
    Ok(data_bytes)
}

fn error(file: &str, message: impl Into<String>) -> FormatError {
    FormatError::syntax(file, 0, 0, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes entry point of the fuzz target says what `open` says, on every `.npy` of
    /// `testdata/` (good and bad) and on truncations of a good one.
    #[test]
    fn check_npy_agrees_with_open() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/kgc");
        let mut files = Vec::new();
        for dir in ["mini", "npy", "bad"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "npy") {
                    files.push(path);
                }
            }
        }
        assert!(files.len() >= 12, "{files:?}");
        let tmp = tempfile::tempdir().unwrap();
        let good = std::fs::read(root.join("npy/pykeen-fixture-f64.npy")).unwrap();
        for cut in [0, 5, 9, 11, 40, good.len() - 1] {
            let path = tmp.path().join(format!("cut-{cut}.npy"));
            std::fs::write(&path, &good[..cut]).unwrap();
            files.push(path);
        }
        let mut oks = 0;
        for path in files {
            let name = path.display().to_string();
            let bytes = std::fs::read(&path).unwrap();
            let opened = ScoreMatrix::open(&path).map(|m| (m.rows(), m.cols())).map_err(|e| e.to_string());
            let checked = check_npy(&bytes, &name).map_err(|e| e.to_string());
            assert_eq!(checked, opened, "{name}");
            oks += usize::from(checked.is_ok());
        }
        // mini (2), npy (6) and bad/scores-wrong-shape.npy (a good file of the wrong shape for
        // its test set) open; the other three of bad/ and the truncations do not.
        assert_eq!(oks, 9);
    }

    /// A Fortran-order matrix that cannot be mapped is read column by column: the same rows.
    #[test]
    fn unmapped_fortran_rows_are_read_column_by_column() {
        let (rows, cols) = (9, 70);
        let value = |r: usize, c: usize| (r * 1000 + c) as f64 + 1e-9;
        let mut header = format!("{{'descr': '<f8', 'fortran_order': True, 'shape': ({rows}, {cols}), }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend((header.len() as u16).to_le_bytes());
        bytes.extend(header.as_bytes());
        bytes.extend((0..cols).flat_map(|c| (0..rows).flat_map(move |r| value(r, c).to_le_bytes())));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.npy");
        std::fs::write(&path, bytes).unwrap();
        let mut matrix = ScoreMatrix::open(&path).unwrap();
        assert!(matches!(matrix.fortran, Some(FortranData::Mapped(_))));
        let mapped: Vec<Vec<f64>> = matrix
            .try_map_rows(cols * 8 * 2, |_, row| Ok::<_, FormatError>((0..cols).map(|c| row.get(c)).collect()))
            .unwrap();
        matrix.fortran = Some(FortranData::Unmapped);
        let read: Vec<Vec<f64>> = matrix
            .try_map_rows(cols * 8 * 2, |_, row| Ok::<_, FormatError>((0..cols).map(|c| row.get(c)).collect()))
            .unwrap();
        let want: Vec<Vec<f64>> = (0..rows).map(|r| (0..cols).map(|c| value(r, c)).collect()).collect();
        assert_eq!((mapped, read), (want.clone(), want));
    }
}
