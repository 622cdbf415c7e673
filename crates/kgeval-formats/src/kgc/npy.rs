//! Dense score matrices in `.npy`: float32 (`<f4`) or float16 (`<f2`), C order, 2-D
//! (questions × entities), NPY format version 1.0, 2.0 or 3.0.
//!
//! [`ScoreMatrix::open`] reads and checks the header only; rows are memory-mapped in blocks
//! ([`ScoreMatrix::map_rows`]) and [`ScoreMatrix::try_map_rows`] walks the whole matrix on
//! every core with a few blocks mapped at a time, so memory stays bounded by the rows in
//! flight whatever the file size. Errors are one line naming the file:
//! `FILE: found …, expected …`.
//!
//! ```no_run
//! use kgeval_formats::kgc::npy::{ScoreMatrix, DEFAULT_BLOCK_BYTES};
//! use kgeval_formats::FormatError;
//!
//! let matrix = ScoreMatrix::open("scores.npy".as_ref())?;
//! matrix.expect_shape(40_932, 14_541)?;
//! // The best score of every row, in row order.
//! let best: Vec<f32> = matrix.try_map_rows(DEFAULT_BLOCK_BYTES, |_, row| {
//!     Ok::<_, FormatError>((0..row.len()).map(|c| row.get(c)).fold(f32::MIN, f32::max))
//! })?;
//! # Ok::<(), FormatError>(())
//! ```

use std::borrow::Cow;
use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use half::f16;
use kgeval_model::ranking::{ScoreDtype, ScoreRow};
use rayon::prelude::*;
use zerocopy::FromBytes;

use crate::FormatError;

mod header;

/// The block size [`ScoreMatrix::try_map_rows`] is meant to be called with: 8 MiB of rows.
pub const DEFAULT_BLOCK_BYTES: usize = 8 << 20;

/// An open `.npy` score matrix: its checked header and the file, not yet mapped.
#[derive(Debug)]
pub struct ScoreMatrix {
    file: File,
    path: PathBuf,
    name: String,
    dtype: ScoreDtype,
    rows: usize,
    cols: usize,
    data_offset: u64,
    version: (u8, u8),
}

impl ScoreMatrix {
    /// Opens `path` and checks its header: the magic, version 1.0–3.0, `descr` `<f4` or `<f2`,
    /// `fortran_order` False, a 2-D `shape`, and a file length of exactly header + rows × cols
    /// values (shorter: truncated; longer: trailing bytes).
    ///
    /// # Errors
    /// [`FormatError::Io`] when the file cannot be read; [`FormatError::Syntax`] (no line or
    /// column: the file is binary) for every check above.
    pub fn open(path: &Path) -> Result<Self, FormatError> {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| FormatError::io(&name, e))?;
        let length = file.metadata().map_err(|e| FormatError::io(&name, e))?.len();
        let header = header::read(&file, length).map_err(|message| error(&name, message))?;
        let (rows, cols) = header.shape;
        let data_bytes = rows
            .checked_mul(cols)
            .and_then(|n| n.checked_mul(header.dtype.size()))
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| {
                error(&name, format!("found shape ({rows}, {cols}), expected a size that fits in memory"))
            })?;
        let found = length - header.data_offset;
        if found != data_bytes {
            let what = if found < data_bytes { "the file is truncated" } else { "trailing bytes after the data" };
            return Err(error(
                &name,
                format!(
                    "found {found} data bytes ({what}), expected {rows} × {cols} {} values = {data_bytes} bytes",
                    header.dtype
                ),
            ));
        }
        Ok(ScoreMatrix {
            file,
            path: path.to_owned(),
            name,
            dtype: header.dtype,
            rows,
            cols,
            data_offset: header.data_offset,
            version: header.version,
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

    /// float32 or float16.
    #[must_use]
    pub fn dtype(&self) -> ScoreDtype {
        self.dtype
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

    /// Maps `rows` of the matrix (read instead when mapping fails).
    ///
    /// # Errors
    /// [`FormatError::Io`] when the rows can be neither mapped nor read.
    ///
    /// # Panics
    /// When `rows` reaches past the last row.
    pub fn map_rows(&self, rows: Range<usize>) -> Result<RowBlock, FormatError> {
        assert!(rows.start <= rows.end && rows.end <= self.rows, "rows {rows:?} outside 0..{}", self.rows);
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
        Ok(RowBlock { bytes, rows, cols: self.cols, dtype: self.dtype })
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

/// Some consecutive rows of a [`ScoreMatrix`], mapped.
#[derive(Debug)]
pub struct RowBlock {
    bytes: BlockBytes,
    rows: Range<usize>,
    cols: usize,
    dtype: ScoreDtype,
}

#[derive(Debug)]
enum BlockBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl RowBlock {
    /// The rows of the matrix this block holds.
    #[must_use]
    pub fn rows(&self) -> Range<usize> {
        self.rows.clone()
    }

    /// Row `index` (numbered as in the whole matrix), borrowed from the mapping when it is
    /// aligned for the type (numpy aligns the data to 64 bytes), decoded otherwise.
    ///
    /// # Panics
    /// When the block does not hold row `index`.
    #[must_use]
    pub fn row(&self, index: usize) -> ScoreRow<'_> {
        assert!(self.rows.contains(&index), "row {index} outside the block {:?}", self.rows);
        let bytes = match &self.bytes {
            BlockBytes::Mapped(map) => &map[..],
            BlockBytes::Read(bytes) => &bytes[..],
        };
        let row_bytes = self.cols * self.dtype.size();
        let start = (index - self.rows.start) * row_bytes;
        let bytes = &bytes[start..start + row_bytes];
        match self.dtype {
            ScoreDtype::F32 => ScoreRow::F32(cast_or_decode(bytes, |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
            ScoreDtype::F16 => {
                ScoreRow::F16(cast_or_decode(bytes, |b| f16::from_bits(u16::from_le_bytes([b[0], b[1]]))))
            }
        }
    }
}

/// Little-endian values: borrowed when `bytes` is aligned for `T` on a little-endian machine,
/// decoded one by one otherwise.
fn cast_or_decode<T>(bytes: &[u8], decode: impl Fn(&[u8]) -> T) -> Cow<'_, [T]>
where
    T: Clone + FromBytes + zerocopy::Immutable + zerocopy::KnownLayout,
{
    if cfg!(target_endian = "little") {
        if let Ok(values) = <[T]>::ref_from_bytes(bytes) {
            return Cow::Borrowed(values);
        }
    }
    Cow::Owned(bytes.chunks_exact(size_of::<T>()).map(decode).collect())
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

fn error(file: &str, message: impl Into<String>) -> FormatError {
    FormatError::syntax(file, 0, 0, message)
}
