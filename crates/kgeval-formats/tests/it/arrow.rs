//! Arrow columns: every id and number type reads in place; nulls, dictionary keys outside the
//! dictionary and repeated judgments are errors naming the column and the row.

use std::sync::Arc;

use kgeval_formats::arrow::arrow_array::types::{Int8Type, UInt16Type};
use kgeval_formats::arrow::arrow_array::{
    ArrayRef, DictionaryArray, Float32Array, Int64Array, Int8Array, LargeStringArray, RecordBatch, StringArray,
    StringViewArray, UInt16Array, UInt64Array,
};
use kgeval_formats::arrow::{read_qrels, RunColumns};

fn run_batch(qid: ArrayRef, docno: ArrayRef, score: ArrayRef) -> RecordBatch {
    RecordBatch::try_from_iter([("qid", qid), ("docno", docno), ("score", score)]).expect("batch")
}

fn rows(batch: &RecordBatch) -> Result<Vec<(String, String, f64)>, String> {
    let columns = RunColumns::resolve(&batch.schema(), "run").map_err(|e| e.to_string())?;
    let view = columns.batch(batch, "run", 10).map_err(|e| e.to_string())?;
    Ok((0..view.len).map(|i| (view.qid.get(i).to_owned(), view.docno.get(i).to_owned(), view.score.f64(i))).collect())
}

#[test]
fn every_id_and_score_type_reads_the_same_rows() {
    let expected = vec![("q1".to_owned(), "d2".to_owned(), 2.0), ("q1".to_owned(), "d1".to_owned(), 0.5)];
    let qids: ArrayRef = Arc::new(StringArray::from(vec!["q1", "q1"]));
    let ids: [ArrayRef; 4] = [
        Arc::new(StringArray::from(vec!["d2", "d1"])),
        Arc::new(LargeStringArray::from(vec!["d2", "d1"])),
        Arc::new(StringViewArray::from(vec!["d2", "d1"])),
        Arc::new(DictionaryArray::<Int8Type>::from_iter(["d2", "d1"])),
    ];
    let scores: [ArrayRef; 2] = [
        Arc::new(Float32Array::from(vec![2.0, 0.5])),
        Arc::new(kgeval_formats::arrow::arrow_array::Float64Array::from(vec![2.0, 0.5])),
    ];
    for docnos in &ids {
        for score in &scores {
            assert_eq!(
                rows(&run_batch(Arc::clone(&qids), Arc::clone(docnos), Arc::clone(score))),
                Ok(expected.clone())
            );
        }
    }
    let integer: ArrayRef = Arc::new(UInt16Array::from(vec![2, 1]));
    assert_eq!(rows(&run_batch(qids, Arc::clone(&ids[0]), integer)).map(|r| r[1].2), Ok(1.0));
}

#[test]
fn nulls_bad_keys_and_types_name_the_column_and_the_row() {
    let qids: ArrayRef = Arc::new(StringArray::from(vec!["q1", "q1"]));
    let score: ArrayRef = Arc::new(Float32Array::from(vec![1.0, 2.0]));
    // Row numbers count from 1 after the 10 rows of earlier batches.
    let null_doc: ArrayRef = Arc::new(StringArray::from(vec![Some("d1"), None]));
    assert_eq!(
        rows(&run_batch(Arc::clone(&qids), null_doc, Arc::clone(&score))),
        Err("run: row 12: column `docno` is null, expected an id".to_owned())
    );
    // A dictionary whose value is null is a null row too.
    let values: ArrayRef = Arc::new(StringArray::from(vec![Some("d1"), None]));
    let keys = kgeval_formats::arrow::arrow_array::UInt16Array::from(vec![1, 0]);
    let dictionary: ArrayRef = Arc::new(DictionaryArray::<UInt16Type>::try_new(keys, values).expect("dictionary"));
    assert_eq!(
        rows(&run_batch(Arc::clone(&qids), dictionary, Arc::clone(&score))),
        Err("run: row 11: column `docno` is null, expected an id".to_owned())
    );
    let as_integers: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
    assert_eq!(
        rows(&run_batch(as_integers, Arc::clone(&qids), Arc::clone(&score))),
        Err(
            "run: column `qid`: found Int64, expected string ids (utf8, large_utf8, utf8_view or a dictionary of them)"
                .to_owned()
        )
    );
    let text: ArrayRef = Arc::new(StringArray::from(vec!["1", "2"]));
    assert_eq!(
        rows(&run_batch(Arc::clone(&qids), Arc::clone(&qids), text)),
        Err("run: column `score`: found Utf8, expected a float or integer type".to_owned())
    );
}

#[test]
fn qrels_read_every_integer_type_and_refuse_repeats_and_floats() {
    let batch = |rel: ArrayRef, docnos: Vec<&str>| {
        RecordBatch::try_from_iter([
            ("query_id", Arc::new(StringArray::from(vec!["q1", "q1"])) as ArrayRef),
            ("doc_id", Arc::new(StringArray::from(docnos)) as ArrayRef),
            ("relevance", rel),
        ])
        .expect("batch")
    };
    let good = batch(Arc::new(Int8Array::from(vec![-1, 2])), vec!["d1", "d2"]);
    let qrels = read_qrels(&good.schema(), [Ok(good.clone())], "qrels").expect("qrels").value;
    assert_eq!(qrels.topic("q1").map(|t| (t.get("d1"), t.get("d2"))), Some((Some(-1), Some(2))));
    let repeated = batch(Arc::new(Int8Array::from(vec![0, 1])), vec!["d1", "d1"]);
    let error = read_qrels(&repeated.schema(), [Ok(good), Ok(repeated)], "qrels").expect_err("repeat");
    assert_eq!(
        error.to_string(),
        "qrels: row 3: found a second judgment for qid `q1`, docno `d1`, expected one judgment per (qid, docno)"
    );
    let huge = batch(Arc::new(UInt64Array::from(vec![1, u64::MAX])), vec!["d1", "d2"]);
    let error = read_qrels(&huge.schema(), [Ok(huge)], "qrels").expect_err("huge");
    assert_eq!(error.to_string(), "qrels: row 2: column `relevance`: found a value above 2^63 - 1, expected an int64");
    let floats = batch(Arc::new(Float32Array::from(vec![1.0, 0.0])), vec!["d1", "d2"]);
    let error = read_qrels(&floats.schema(), [Ok(floats)], "qrels").expect_err("floats");
    assert_eq!(
        error.to_string(),
        "qrels: column `relevance`: found Float32, expected an integer type (int8 … int64, uint8 … uint64)"
    );
}

#[test]
fn qrels_labels_up_to_two_to_the_fifty_three_are_read_and_one_past_is_a_row_error() {
    let batch = |labels: Vec<i64>, first: usize| {
        let rows = labels.len();
        RecordBatch::try_from_iter([
            ("qid", Arc::new(StringArray::from(vec!["q1"; rows])) as ArrayRef),
            (
                "docno",
                Arc::new(StringArray::from((first..first + rows).map(|i| format!("d{i}")).collect::<Vec<_>>()))
                    as ArrayRef,
            ),
            ("rel", Arc::new(Int64Array::from(labels)) as ArrayRef),
        ])
        .expect("batch")
    };
    let good = batch(vec![1 << 40, 1_000_000_000, -(1 << 53), 1 << 53], 0);
    let qrels = read_qrels(&good.schema(), [Ok(good.clone())], "qrels.parquet").expect("in range").value;
    assert_eq!(qrels.topic("q1").and_then(|t| t.get("d0")), Some(1 << 40));
    for (label, row) in [((1i64 << 53) + 1, 3), (-(1 << 53) - 1, 3), (i64::MAX, 3)] {
        let bad = batch(vec![0, 1, label], 4);
        let error = read_qrels(&bad.schema(), [Ok(good.clone()), Ok(bad)], "qrels.parquet").expect_err("beyond 2^53");
        assert_eq!(
            error.to_string(),
            format!(
                "qrels.parquet: row {}: column `rel`: found `{label}` as the relevance, expected an integer from \
                 -2^53 to 2^53 (at most 9007199254740992 in magnitude)",
                row + 4
            )
        );
    }
}
