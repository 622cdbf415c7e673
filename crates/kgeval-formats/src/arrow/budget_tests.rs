//! The decoded-size bound of Parquet and Arrow IPC input, at its edge: a footer declaring
//! more than the limit is refused before decoding, batches past it stop the reading, and an
//! IPC table decoded in place costs nothing.

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema};

use super::budget::Budgeted;
use super::files::batches_within;
use super::*;

/// `rows` rows of two non-null 8-byte columns (`a` int64, `b` float64): 16 bytes a row.
fn numbers(rows: i64) -> RecordBatch {
    let schema = Schema::new(vec![Field::new("a", DataType::Int64, false), Field::new("b", DataType::Float64, false)]);
    RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(Int64Array::from_iter_values(0..rows)) as ArrayRef,
            Arc::new(Float64Array::from_iter_values((0..rows).map(|i| i as f64 / 4.0))) as ArrayRef,
        ],
    )
    .expect("a batch")
}

fn written(batch: &RecordBatch, kind: ArrowFileKind) -> bytes::Bytes {
    let mut bytes = Vec::new();
    write_batch(&mut bytes, kind, batch, "t").expect("written");
    bytes::Bytes::from(bytes)
}

/// Every batch of `bytes` read within `limit`: the rows, or the first error.
fn read_all(bytes: &bytes::Bytes, kind: ArrowFileKind, limit: u64) -> Result<usize, String> {
    let batches = batches_within(bytes.clone(), kind, "t", limit).map_err(|e| e.to_string())?;
    batches.batches.map(|b| b.map(|b| b.num_rows()).map_err(|e| batch_error("t", &e).to_string())).sum()
}

/// 1,000 rows × 16 bytes: a limit of 16,000 bytes reads them; 15,999 is refused from the
/// footer, naming the row group and the column where the estimate passes it.
#[test]
fn a_parquet_footer_past_the_limit_is_refused_before_decoding() {
    let bytes = written(&numbers(1000), ArrowFileKind::Parquet);
    assert_eq!(read_all(&bytes, ArrowFileKind::Parquet, 16_000), Ok(1000));
    assert_eq!(
        read_all(&bytes, ArrowFileKind::Parquet, 15_999),
        Err("t: row group 1 of 1, column `b`: found 1000 rows decoding to at least 16000 bytes by there, expected \
             at most 15999 bytes (the decompressed limit, set by --max-decompressed)"
            .to_owned())
    );
}

/// A column of one long value on every row is written as a dictionary (the value once) and
/// run-length-encoded keys: the footer records the unencoded bytes, which count (every row's
/// copy of the value, as the `utf8` column read back holds them).
#[test]
fn a_dictionary_of_long_values_counts_every_rows_copy() {
    let long = "d".repeat(1000);
    let docnos = Arc::new(StringArray::from_iter_values(std::iter::repeat_n(long.as_str(), 2000))) as ArrayRef;
    let bytes = written(&RecordBatch::try_from_iter([("docno", docnos)]).expect("a batch"), ArrowFileKind::Parquet);
    assert!(bytes.len() < 20_000, "{} bytes", bytes.len());
    // 2,000 rows of 1,000 bytes and an offset each: 2,008,000 bytes decoded.
    assert_eq!(read_all(&bytes, ArrowFileKind::Parquet, 4_000_000), Ok(2000));
    let refused = read_all(&bytes, ArrowFileKind::Parquet, 1_000_000).unwrap_err();
    assert!(
        refused.starts_with("t: row group 1 of 1, column `docno`: found 2000 rows decoding to at least "),
        "{refused}"
    );
}

/// Batches whose footer said less than they hold (here: batches from memory, no footer):
/// counted as they come, the first one past the limit is an error item naming it, and the
/// reading stops there.
#[test]
fn batches_past_the_limit_stop_the_reading() {
    let batches = || vec![Ok(numbers(1000)), Ok(numbers(1000)), Ok(numbers(10))];
    let within: Vec<_> = Budgeted::new(batches().into_iter(), &[], "t", 32_160).collect();
    assert!(within.iter().all(Result::is_ok) && within.len() == 3);
    let past: Vec<Result<RecordBatch, ArrowError>> = Budgeted::new(batches().into_iter(), &[], "t", 31_999).collect();
    assert_eq!(past.len(), 2, "no batch after the error");
    assert!(past[0].is_ok());
    let error = past[1].as_ref().map(|_| ()).unwrap_err();
    assert_eq!(
        batch_error("t", error).to_string(),
        "t: record batch 2 (rows 1001 to 2000): found 32000 decoded bytes by there, expected at most 31999 bytes (the \
         decompressed limit, set by --max-decompressed)"
    );
}

/// A dictionary shared by consecutive batches is counted once, its keys every time.
#[test]
fn a_shared_dictionary_is_counted_once() {
    let docnos: DictionaryArray<Int32Type> = ["a", "b", "a", "c"].into_iter().collect();
    let batch = RecordBatch::try_from_iter([("docno", Arc::new(docnos) as ArrayRef)]).expect("a batch");
    // Keys 4 × 4 bytes; values: offsets 4 × 4 bytes and 3 bytes of text.
    let (keys, values) = (16, 19);
    let read = |limit| {
        let batches = vec![Ok(batch.clone()), Ok(batch.clone())];
        Budgeted::new(batches.into_iter(), &[], "t", limit).filter(Result::is_ok).count()
    };
    assert_eq!(read(keys * 2 + values), 2);
    assert_eq!(read(keys * 2 + values - 1), 1);
}

/// An Arrow IPC table is decoded in place: its buffers are the input's bytes, and a table of
/// any size reads within a limit of 0 bytes.
#[test]
fn an_ipc_table_read_in_place_costs_nothing() {
    let bytes = written(&numbers(1000), ArrowFileKind::Ipc);
    assert_eq!(read_all(&bytes, ArrowFileKind::Ipc, 0), Ok(1000));
}

/// A record batch declaring 2⁴⁰ rows over buffers of 1,000 is refused by the decoder's
/// checks, without an allocation of the declared size.
#[test]
fn an_ipc_batch_declaring_more_rows_than_its_buffers_is_refused() {
    let mut bytes = written(&numbers(1000), ArrowFileKind::Ipc).to_vec();
    let (declared, huge) = (1000i64.to_le_bytes(), (1i64 << 40).to_le_bytes());
    let mut replaced = 0;
    for at in 0..bytes.len() - 8 {
        if bytes[at..at + 8] == declared {
            bytes[at..at + 8].copy_from_slice(&huge);
            replaced += 1;
        }
    }
    assert!(replaced >= 1, "the batch's length");
    let outcome = read_all(&bytes::Bytes::from(bytes), ArrowFileKind::Ipc, u64::MAX);
    assert!(outcome.is_err(), "{outcome:?}");
}
