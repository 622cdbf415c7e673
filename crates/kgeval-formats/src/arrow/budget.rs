//! The decoded size of a Parquet or Arrow IPC input, bounded as a gzip input's is, by the
//! decompressed limit ([`decompressed_limit`](crate::input::decompressed_limit)): a Parquet
//! file of a few hundred kilobytes can declare hundreds of millions of rows (a dictionary
//! column whose keys are one run-length-encoded run), which no upload or gzip limit sees.
//!
//! - Before a page is decoded, [`check_parquet`] estimates from the footer what decoding will
//!   hold — every row group's rows times the bytes a row takes in the output types (8 for a
//!   64-bit number, 4 for a `utf8` offset, a key for a dictionary …) plus the value bytes of
//!   every byte-array column chunk (its uncompressed size, or the unencoded size the writer
//!   recorded when larger) — and refuses the file where the running total passes the limit.
//! - As the batches come, [`Budgeted`] adds up the bytes their buffers hold outside the
//!   input itself (an IPC table is decoded in place: its buffers are the input's bytes and
//!   cost nothing; a dictionary shared with the previous batch is counted once), so a file
//!   whose footer understates its content stops at the limit too, one batch past it at most.

use std::ops::Range;

use arrow_array::{Array, RecordBatch};
use arrow_buffer::Buffer;
use arrow_data::ArrayData;
use arrow_schema::{ArrowError, DataType, Schema};
use parquet::basic::Type as PhysicalType;
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaData};

use crate::FormatError;

/// Where the message of a refused input says the limit comes from.
const LIMIT_SOURCE: &str = "the decompressed limit, set by --max-decompressed";

/// The bytes a row of `data_type` takes in an output array, outside variable-length values
/// (counted from the column chunks): a number's width, an offset, a view, a dictionary key.
fn row_width(data_type: &DataType) -> u64 {
    match data_type {
        DataType::Null => 0,
        DataType::Boolean => 1,
        DataType::Utf8 | DataType::Binary | DataType::List(_) | DataType::Map(..) => 4,
        DataType::LargeUtf8 | DataType::LargeBinary | DataType::LargeList(_) => 8,
        DataType::Utf8View | DataType::BinaryView | DataType::ListView(_) | DataType::LargeListView(_) => 16,
        DataType::FixedSizeBinary(size) => u64::try_from(*size).unwrap_or(0),
        DataType::Dictionary(key, _) => row_width(key),
        other => other.primitive_width().map_or(8, |w| w as u64),
    }
}

/// The bytes a row of a Parquet leaf column takes, by its physical type (for a nested schema,
/// whose leaves are not the output's top-level fields).
fn physical_width(chunk: &ColumnChunkMetaData) -> u64 {
    match chunk.column_type() {
        PhysicalType::BOOLEAN => 1,
        PhysicalType::INT32 | PhysicalType::FLOAT | PhysicalType::BYTE_ARRAY => 4,
        PhysicalType::INT64 | PhysicalType::DOUBLE => 8,
        PhysicalType::INT96 => 12,
        PhysicalType::FIXED_LEN_BYTE_ARRAY => u64::try_from(chunk.column_descr().type_length()).unwrap_or(0),
    }
}

/// The value bytes a column chunk decodes to beyond its rows' fixed widths: for a byte-array
/// column, its uncompressed size (the plain values, or the dictionary and the keys) or, when
/// larger, the unencoded size the writer recorded (a dictionary's values once per row);
/// nothing for other columns (their rows' widths are their values).
fn value_bytes(chunk: &ColumnChunkMetaData, output: Option<&DataType>) -> u64 {
    if chunk.column_type() != PhysicalType::BYTE_ARRAY {
        return 0;
    }
    let stored = u64::try_from(chunk.uncompressed_size()).unwrap_or(0);
    let unencoded = chunk.unencoded_byte_array_data_bytes().and_then(|n| u64::try_from(n).ok()).unwrap_or(0);
    match output {
        // A dictionary stays a dictionary: its values are held once.
        Some(DataType::Dictionary(..)) => stored,
        _ => stored.max(unencoded),
    }
}

/// Refuses a Parquet file whose decoding, estimated from its footer (see the module's text),
/// would hold more than `limit` bytes; `schema` is the output's schema.
///
/// # Errors
/// The message naming the row group and column where the estimate passes `limit`, the rows
/// and bytes reached there, and the limit.
pub(crate) fn check_parquet(metadata: &ParquetMetaData, schema: &Schema, limit: u64) -> Result<(), String> {
    let groups = metadata.row_groups();
    let flat = groups.first().is_none_or(|g| g.num_columns() == schema.fields().len())
        && schema.fields().iter().all(|f| !f.data_type().is_nested());
    let (mut bytes, mut rows) = (0u64, 0u64);
    for (g, group) in groups.iter().enumerate() {
        let group_rows = u64::try_from(group.num_rows()).unwrap_or(0);
        rows = rows.saturating_add(group_rows);
        for (c, chunk) in group.columns().iter().enumerate() {
            let output = if flat { schema.fields().get(c).map(|f| f.data_type()) } else { None };
            let width = output.map_or_else(|| physical_width(chunk), row_width);
            bytes = bytes.saturating_add(group_rows.saturating_mul(width)).saturating_add(value_bytes(chunk, output));
            if bytes > limit {
                return Err(format!(
                    "row group {} of {}, column `{}`: found {rows} rows decoding to at least {bytes} bytes by there, \
                     expected at most {limit} bytes ({LIMIT_SOURCE})",
                    g + 1,
                    groups.len(),
                    chunk.column_path().string(),
                ));
            }
        }
    }
    Ok(())
}

/// The bytes of `buffer` when it lies outside `input` (a buffer in the input is the input's).
fn outside(buffer: &Buffer, input: &Range<usize>) -> u64 {
    if input.contains(&(buffer.as_ptr() as usize)) {
        0
    } else {
        buffer.len() as u64
    }
}

/// The buffers of `data` and its children, validity bitmaps included.
fn each_buffer(data: &ArrayData, visit: &mut impl FnMut(&Buffer)) {
    data.buffers().iter().for_each(&mut *visit);
    if let Some(nulls) = data.nulls() {
        visit(nulls.buffer());
    }
    for child in data.child_data() {
        each_buffer(child, visit);
    }
}

/// A decoder's batches with the bytes they hold counted against a limit (see the module's
/// text): past it, an error item naming the batch, its rows and the numbers, and no more.
pub(crate) struct Budgeted<I> {
    inner: Option<I>,
    /// The input as the user named it.
    name: String,
    limit: u64,
    /// The addresses of the input's bytes: buffers there are not counted.
    input: Range<usize>,
    /// The bytes counted so far.
    used: u64,
    /// The rows and batches read so far.
    rows: u64,
    batches: u64,
    /// The previous batch's dictionary buffers (held, so that their addresses are not reused):
    /// a batch sharing one is not charged for it again.
    dictionaries: Vec<Buffer>,
}

impl<I> Budgeted<I> {
    /// Counts the batches of `inner`, a decoder of `input`, against `limit`.
    pub(crate) fn new(inner: I, input: &[u8], name: &str, limit: u64) -> Self {
        let start = input.as_ptr() as usize;
        Budgeted {
            inner: Some(inner),
            name: name.to_owned(),
            limit,
            input: start..start + input.len(),
            used: 0,
            rows: 0,
            batches: 0,
            dictionaries: Vec::new(),
        }
    }

    /// The bytes `batch` holds outside the input and the previous batch's dictionaries.
    fn charge(&mut self, batch: &RecordBatch) -> u64 {
        let mut dictionaries = Vec::new();
        let mut bytes = 0u64;
        for column in batch.columns() {
            let data = column.to_data();
            let dictionary = matches!(data.data_type(), DataType::Dictionary(..));
            data.buffers().iter().for_each(|b| bytes += outside(b, &self.input));
            if let Some(nulls) = data.nulls() {
                bytes += outside(nulls.buffer(), &self.input);
            }
            for child in data.child_data() {
                each_buffer(child, &mut |buffer| {
                    if dictionary {
                        dictionaries.push(buffer.clone());
                        if self.dictionaries.iter().any(|seen| seen.ptr_eq(buffer)) {
                            return;
                        }
                    }
                    bytes += outside(buffer, &self.input);
                });
            }
        }
        self.dictionaries = dictionaries;
        bytes
    }
}

impl<I: Iterator<Item = Result<RecordBatch, ArrowError>>> Iterator for Budgeted<I> {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = match self.inner.as_mut()?.next()? {
            Ok(batch) => batch,
            Err(e) => return Some(Err(e)),
        };
        let charged = self.charge(&batch);
        self.used = self.used.saturating_add(charged);
        let first_row = self.rows + 1;
        self.rows += batch.num_rows() as u64;
        self.batches += 1;
        if self.used <= self.limit {
            return Some(Ok(batch));
        }
        self.inner = None;
        self.dictionaries.clear();
        let message = format!(
            "record batch {} (rows {first_row} to {}): found {} decoded bytes by there, expected at most {} bytes \
             ({LIMIT_SOURCE})",
            self.batches, self.rows, self.used, self.limit
        );
        Some(Err(ArrowError::ExternalError(Box::new(FormatError::syntax(&self.name, 0, 0, message)))))
    }
}

/// The error of a batch that could not be read, for the input `what`: the located error a
/// file's decoded-size bound gave as is, any other as `what: MESSAGE`.
///
/// ```
/// use kgeval_formats::arrow::{arrow_schema::ArrowError, batch_error};
/// let error = ArrowError::ParseError("truncated".into());
/// assert_eq!(batch_error("run.parquet", &error).to_string(), "run.parquet: Parser error: truncated");
/// ```
pub fn batch_error(what: &str, error: &(dyn std::error::Error + 'static)) -> FormatError {
    if let Some(ArrowError::ExternalError(inner)) = error.downcast_ref::<ArrowError>() {
        if let Some(FormatError::Syntax(located)) = inner.downcast_ref::<FormatError>() {
            return FormatError::Syntax(located.clone());
        }
    }
    FormatError::syntax(what, 0, 0, error.to_string())
}
