//! Parquet and Arrow IPC files: record batches read from them ([`open_batches`]) and one
//! batch written as either ([`write_batch`]).

use std::io::Write;
use std::path::Path;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::budget::{check_parquet, Budgeted};
use super::guard::{guarded, GuardedBatches};
use super::ipc_read::{ipc_batches, IPC_FILE_MAGIC};
use crate::input::decompressed_limit;
use crate::{FormatError, Input};

/// The Arrow file formats kgeval reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrowFileKind {
    /// Apache Parquet (written Snappy-compressed; read uncompressed, Snappy, ZSTD, LZ4,
    /// LZ4_RAW or gzip).
    Parquet,
    /// The Arrow IPC file format (Feather v2; read: the IPC stream format too).
    Ipc,
}

impl ArrowFileKind {
    /// The kind a file name's extension says: `.parquet`, `.arrow`, `.feather`, `.ipc`
    /// (case-insensitive; `None` for any other).
    ///
    /// ```
    /// use kgeval_formats::arrow::ArrowFileKind;
    /// assert_eq!(ArrowFileKind::of_path("runs/bm25.parquet".as_ref()), Some(ArrowFileKind::Parquet));
    /// assert_eq!(ArrowFileKind::of_path("qrels.FEATHER".as_ref()), Some(ArrowFileKind::Ipc));
    /// assert_eq!(ArrowFileKind::of_path("qrels.txt".as_ref()), None);
    /// ```
    #[must_use]
    pub fn of_path(path: &Path) -> Option<Self> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "parquet" => Some(ArrowFileKind::Parquet),
            "arrow" | "feather" | "ipc" | "arrows" => Some(ArrowFileKind::Ipc),
            _ => None,
        }
    }

    /// The kind the content says by its magic bytes: Parquet (`PAR1`, then binary or `PAR1` at
    /// the end too), an Arrow IPC file (`ARROW1`) or stream (a `0xFFFFFFFF` continuation
    /// marker); `None` for text (no TREC or TSV file starts so: a text line never begins with
    /// byte `0xFF`, and a qid `PAR1` is followed by a blank). A truncated table is still
    /// recognised, so its reader says what is wrong.
    ///
    /// ```
    /// use kgeval_formats::arrow::ArrowFileKind;
    /// assert_eq!(ArrowFileKind::of_content(b"PAR1\x15\x04...PAR1"), Some(ArrowFileKind::Parquet));
    /// assert_eq!(ArrowFileKind::of_content(b"PAR1\x15\x04"), Some(ArrowFileKind::Parquet));
    /// assert_eq!(ArrowFileKind::of_content(b"ARROW1\0\0"), Some(ArrowFileKind::Ipc));
    /// assert_eq!(ArrowFileKind::of_content(b"PAR1 Q0 doc1 1 2.5 run\n"), None);
    /// ```
    #[must_use]
    pub fn of_content(bytes: &[u8]) -> Option<Self> {
        let binary_after =
            |magic: usize| bytes.get(magic).is_some_and(|b| !b.is_ascii_graphic() && !b.is_ascii_whitespace());
        if bytes.starts_with(PARQUET_MAGIC)
            && ((bytes.len() >= 12 && bytes.ends_with(PARQUET_MAGIC)) || binary_after(4))
        {
            Some(ArrowFileKind::Parquet)
        } else if bytes.starts_with(IPC_FILE_MAGIC) || bytes.starts_with(&IPC_CONTINUATION) {
            Some(ArrowFileKind::Ipc)
        } else {
            None
        }
    }
}

/// Parquet's magic bytes, at the start and the end of a file.
const PARQUET_MAGIC: &[u8; 4] = b"PAR1";

/// The continuation marker an Arrow IPC stream's messages start with.
const IPC_CONTINUATION: [u8; 4] = [0xFF; 4];

/// Record batches read from a file, one at a time.
pub struct Batches {
    /// The file's schema.
    pub schema: SchemaRef,
    /// The batches, in file order.
    pub batches: Box<dyn Iterator<Item = Result<RecordBatch, ArrowError>> + Send>,
}

impl std::fmt::Debug for Batches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batches").field("schema", &self.schema).finish_non_exhaustive()
    }
}

/// Opens a Parquet or Arrow IPC file (file or stream format) and reads its batches lazily,
/// from the file memory-mapped (or decompressed, when it is gzip) without a copy. `name` is
/// the file as the user named it (in errors).
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be opened; [`FormatError::Syntax`] (`FILE:
/// MESSAGE`) when it is not a Parquet or IPC file this build reads (Brotli in Parquet,
/// LZ4/ZSTD-compressed IPC buffers), or when a Parquet footer declares a
/// table that decodes to more than the
/// [decompressed limit](crate::input::decompressed_limit). The batches themselves stop with
/// an error item once what they hold passes that limit (a footer that understates).
pub fn open_batches(path: &Path, kind: ArrowFileKind, name: &str) -> Result<Batches, FormatError> {
    let opened = Input::path(path).open()?;
    batches_from_bytes(opened.into_shared(), kind, name)
}

/// Reads the batches of a Parquet or Arrow IPC file held in memory (standard input, a
/// decompressed or memory-mapped file: [`InputBytes::into_shared`](crate::InputBytes::into_shared)),
/// without copying it. `name` is the input as the user named it (in errors).
///
/// # Errors
/// As [`open_batches`].
pub fn batches_from_bytes(bytes: bytes::Bytes, kind: ArrowFileKind, name: &str) -> Result<Batches, FormatError> {
    batches_within(bytes, kind, name, decompressed_limit())
}

/// [`batches_from_bytes`] with the decoded size bounded by `limit` bytes.
pub(crate) fn batches_within(
    bytes: bytes::Bytes,
    kind: ArrowFileKind,
    name: &str,
    limit: u64,
) -> Result<Batches, FormatError> {
    let bad = |e: &dyn std::fmt::Display| FormatError::syntax(name, 0, 0, e.to_string());
    // The decoders run guarded (`guard`): a malformed file that makes one panic is an error.
    let opened =
        guarded(|| open_decoder(bytes, kind, name, limit)).unwrap_or_else(|message| Err(Opening::Decoder(message)));
    match opened {
        Ok(batches) => Ok(batches),
        Err(Opening::TooLarge(message)) => Err(FormatError::syntax(name, 0, 0, message)),
        Err(Opening::Parquet(e)) => Err(bad(&format_args!("not a Parquet file this build reads ({e})"))),
        Err(Opening::Ipc(e)) => Err(bad(&format_args!("not an Arrow IPC file ({e})"))),
        Err(Opening::Decoder(message)) => {
            let format = if kind == ArrowFileKind::Parquet { "Parquet" } else { "Arrow IPC" };
            Err(bad(&format_args!("not a {format} file this build reads ({message})")))
        }
    }
}

/// Why a table could not be opened.
enum Opening {
    /// The Parquet reader refused it.
    Parquet(parquet::errors::ParquetError),
    /// The IPC reader refused it.
    Ipc(ArrowError),
    /// A decoder panicked (the message).
    Decoder(String),
    /// The footer declares more than the decompressed limit lets decode (the message).
    TooLarge(String),
}

/// The decoder of `bytes` as a `kind` table (`name` in errors), its batches read guarded and
/// counted against `limit` decoded bytes (`budget`); a Parquet footer is checked against it
/// first.
fn open_decoder(bytes: bytes::Bytes, kind: ArrowFileKind, name: &str, limit: u64) -> Result<Batches, Opening> {
    let input = bytes.clone();
    let guard = move |schema: SchemaRef, reader: Box<dyn Iterator<Item = Result<RecordBatch, ArrowError>> + Send>| {
        let guarded = GuardedBatches { inner: Some(reader) };
        Batches { schema, batches: Box::new(Budgeted::new(guarded, &input, name, limit)) }
    };
    match kind {
        ArrowFileKind::Parquet => {
            let builder = ParquetRecordBatchReaderBuilder::try_new(bytes).map_err(Opening::Parquet)?;
            check_parquet(builder.metadata(), builder.schema(), limit).map_err(Opening::TooLarge)?;
            let reader = builder.with_batch_size(64 * 1024).build().map_err(Opening::Parquet)?;
            Ok(guard(reader.schema(), Box::new(reader)))
        }
        ArrowFileKind::Ipc => {
            let batches = ipc_batches(bytes).map_err(Opening::Ipc)?;
            Ok(guard(batches.schema, batches.batches))
        }
    }
}

/// Writes `batch` to `writer` as a Parquet file (Snappy) or an Arrow IPC file.
///
/// # Errors
/// [`FormatError::Io`] (named `name`) when writing fails.
pub fn write_batch<W: Write + Send>(
    writer: W,
    kind: ArrowFileKind,
    batch: &RecordBatch,
    name: &str,
) -> Result<(), FormatError> {
    let failed = |e: &dyn std::fmt::Display| FormatError::io(name, std::io::Error::other(e.to_string()));
    match kind {
        ArrowFileKind::Parquet => {
            let properties = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
            let mut out = ArrowWriter::try_new(writer, batch.schema(), Some(properties)).map_err(|e| failed(&e))?;
            out.write(batch).map_err(|e| failed(&e))?;
            out.close().map_err(|e| failed(&e))?;
        }
        ArrowFileKind::Ipc => {
            let mut out = arrow_ipc::writer::FileWriter::try_new(writer, &batch.schema()).map_err(|e| failed(&e))?;
            out.write(batch).map_err(|e| failed(&e))?;
            out.finish().map_err(|e| failed(&e))?;
        }
    }
    Ok(())
}
