//! Malformed Parquet and Arrow IPC inputs: valid tables mutated (bytes flipped, spans
//! truncated, repeated or zeroed) are read to the end through every reading path — the
//! batches, the run's columns and topics, the qrels — and must end in a value or a
//! [`FormatError`], never a panic.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, Float64Array, Int32Array, RecordBatch, StringArray};

use super::*;

/// A small run with a dictionary-encoded docno column, and qrels.
fn tables() -> [RecordBatch; 2] {
    let qids: Vec<String> = (0..60).map(|i| format!("q{}", i / 7)).collect();
    let names: Vec<String> = (0..60).map(|i| format!("d{}", i % 11)).collect();
    let docnos: DictionaryArray<Int32Type> = names.iter().map(String::as_str).collect();
    let run = RecordBatch::try_from_iter([
        ("qid", Arc::new(StringArray::from(qids.clone())) as ArrayRef),
        ("docno", Arc::new(docnos) as ArrayRef),
        (
            "score",
            Arc::new(Float64Array::from((0..60).map(|i| f64::from(i % 13) / 3.0).collect::<Vec<_>>())) as ArrayRef,
        ),
    ])
    .expect("a valid run");
    let qrels = RecordBatch::try_from_iter([
        ("qid", Arc::new(StringArray::from(qids)) as ArrayRef),
        ("docno", Arc::new(StringArray::from((0..60).map(|i| format!("d{i}")).collect::<Vec<_>>())) as ArrayRef),
        ("rel", Arc::new(Int32Array::from((0..60).map(|i| i % 3).collect::<Vec<_>>())) as ArrayRef),
    ])
    .expect("valid qrels");
    [run, qrels]
}

/// Reads `bytes` as a run table and as a qrels table through every path, to the end.
fn read_everything(bytes: &[u8], kind: ArrowFileKind) {
    let shared = bytes::Bytes::copy_from_slice(bytes);
    if let Ok(batches) = batches_from_bytes(shared.clone(), kind, "run") {
        if let Ok(columns) = RunColumns::resolve(&batches.schema, "run") {
            let mut first_row = 0;
            for batch in batches.batches {
                let Ok(batch) = batch else { break };
                if let Ok(view) = columns.batch(&batch, "run", first_row) {
                    let mut docs = Vec::new();
                    for (_, rows) in view.topics() {
                        view.push_docs(rows, &mut docs);
                    }
                }
                first_row += batch.num_rows() as u64;
            }
        }
    }
    if let Ok(batches) = batches_from_bytes(shared, kind, "qrels") {
        let _ = read_qrels(&batches.schema, batches.batches, "qrels");
    }
}

#[test]
fn mutated_tables_are_errors_or_values_never_panics() {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    };
    for table in tables() {
        for kind in [ArrowFileKind::Parquet, ArrowFileKind::Ipc] {
            let mut valid = Vec::new();
            write_batch(&mut valid, kind, &table, "table").expect("written");
            read_everything(&valid, kind);
            for case in 0..1000 {
                let mut bytes = valid.clone();
                match case % 4 {
                    0 => {
                        for _ in 0..1 + next(4) {
                            let at = next(bytes.len());
                            bytes[at] ^= 1 << next(8);
                        }
                    }
                    1 => bytes.truncate(next(bytes.len())),
                    2 => {
                        let (from, len) = (next(bytes.len()), 1 + next(64));
                        let span: Vec<u8> = bytes[from..(from + len).min(bytes.len())].to_vec();
                        let at = next(bytes.len());
                        bytes.splice(at..at, span);
                    }
                    _ => {
                        let (from, len) = (next(bytes.len()), 1 + next(16));
                        let to = (from + len).min(bytes.len());
                        bytes[from..to].fill(if next(2) == 0 { 0 } else { 0xff });
                    }
                }
                let outcome = catch_unwind(AssertUnwindSafe(|| read_everything(&bytes, kind)));
                assert!(outcome.is_ok(), "{kind:?} case {case}: a panic reading a mutated table");
            }
        }
    }
}

#[test]
fn the_run_id_is_the_last_rows_tag_and_a_bad_tag_column_is_named() {
    let run = |tag: ArrayRef| {
        RecordBatch::try_from_iter([
            ("qid", Arc::new(StringArray::from(vec!["q1", "q1"])) as ArrayRef),
            ("docno", Arc::new(StringArray::from(vec!["d1", "d2"])) as ArrayRef),
            ("score", Arc::new(Float64Array::from(vec![1.0, 0.5])) as ArrayRef),
            ("tag", tag),
        ])
        .expect("a run")
    };
    let tagged = run(Arc::new(StringArray::from(vec!["first", "bm25"])));
    let columns = RunColumns::resolve(&tagged.schema(), "run").expect("columns");
    assert_eq!(columns.run_id(&tagged, "run", 0).expect("a tag"), Some("bm25".to_owned()));
    let numbers = run(Arc::new(Int32Array::from(vec![1, 2])));
    let error = RunColumns::resolve(&numbers.schema(), "run").and_then(|c| c.run_id(&numbers, "run", 10));
    assert!(error.unwrap_err().to_string().contains("column `tag`: found Int32"));
    let null = run(Arc::new(StringArray::from(vec![Some("a"), None])));
    let error = RunColumns::resolve(&null.schema(), "run").and_then(|c| c.run_id(&null, "run", 10));
    assert_eq!(error.unwrap_err().to_string(), "run: row 12: column `tag` is null, expected an id");
    // No tag column: no run id.
    let untagged = tables()[0].clone();
    let columns = RunColumns::resolve(&untagged.schema(), "run").expect("columns");
    assert_eq!(columns.run_id(&untagged, "run", 0).expect("no tag"), None);
}
