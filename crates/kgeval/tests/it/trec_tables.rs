//! A run written as TREC text and as a Parquet table — random ids (some holding a control
//! character or Unicode whitespace a text field can carry), every column order, every alias,
//! plain or dictionary-encoded ids — gives the same outcome through the facade: the same
//! values, or the same kind of error.

use std::sync::Arc;

use kgeval::trec::TrecTask;
use kgeval::{Error, FamilyResult, NoProgress};
use kgeval_formats::arrow::arrow_array::types::Int32Type;
use kgeval_formats::arrow::arrow_array::{ArrayRef, DictionaryArray, Float64Array, RecordBatch, StringArray};
use kgeval_formats::arrow::{write_batch, ArrowFileKind, RUN_COLUMNS, RUN_TAG_COLUMNS};
use proptest::prelude::*;

const QRELS: &str = "q0 0 d0 1\nq0 0 d1 0\nq0 0 d2 2\nq1 0 d3 1\nq1 0 d4 1\nq2 0 d5 0\n";

/// Characters a text field can hold (no field separator, no line feed) that no id may.
const BAD: [char; 7] = ['\0', '\x1b', '\x7f', '\u{85}', '\u{9f}', '\u{a0}', '\u{3000}'];

/// An id: `prefix` and a number, sometimes with a bad character inside.
fn id(prefix: &'static str, count: u8) -> impl Strategy<Value = String> {
    (0..count, prop::option::weighted(0.08, 0..BAD.len())).prop_map(move |(n, bad)| match bad {
        Some(b) => format!("{prefix}{}{n}", BAD[b]),
        None => format!("{prefix}{n}"),
    })
}

/// What the outcome was: the values (per run topic and the summary), or the kind of error.
#[derive(Debug, PartialEq)]
enum Outcome {
    Values { run_id: Option<String>, topics: Vec<(String, Vec<f64>)>, summary: Vec<f64> },
    Error(&'static str),
}

fn outcome(result: Result<kgeval::Evaluation, Error>, tagged: bool) -> Outcome {
    match result {
        Ok(evaluation) => {
            let FamilyResult::Trec(result) = evaluation.result else { panic!("a trec result") };
            let run = &result.runs[0];
            Outcome::Values {
                run_id: tagged.then(|| run.run_id.clone()),
                topics: run.topics.iter().map(|t| (t.qid.clone(), t.values.clone())).collect(),
                summary: run.summary.clone(),
            }
        }
        Err(error) => {
            let message = error.to_string();
            Outcome::Error(if message.contains("expected an id without whitespace or control characters") {
                "id"
            } else if message.contains("no topic in common") {
                "no topic in common"
            } else {
                panic!("an unexpected error: {message}")
            })
        }
    }
}

/// One layout of the table: the column order, the names, dictionary-encoded ids.
#[derive(Debug, Clone)]
struct Layout {
    order: Vec<usize>,
    names: [usize; 4],
    dictionary: [bool; 3],
    tagged: bool,
}

fn layout() -> impl Strategy<Value = Layout> {
    (
        Just((0..4).collect::<Vec<usize>>()).prop_shuffle(),
        [0..3usize, 0..3, 0..1, 0..3],
        any::<[bool; 3]>(),
        any::<bool>(),
    )
        .prop_map(|(order, names, dictionary, tagged)| Layout { order, names, dictionary, tagged })
}

fn ids(values: &[&str], dictionary: bool) -> ArrayRef {
    if dictionary {
        Arc::new(values.iter().copied().collect::<DictionaryArray<Int32Type>>())
    } else {
        Arc::new(StringArray::from(values.to_vec()))
    }
}

fn table(rows: &[(String, String, f64)], tag: &str, layout: &Layout) -> RecordBatch {
    let qids: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    let docnos: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
    let tags: Vec<&str> = rows.iter().map(|_| tag).collect();
    let names = [RUN_COLUMNS[0], RUN_COLUMNS[1], RUN_COLUMNS[2], RUN_TAG_COLUMNS];
    let columns: [ArrayRef; 4] = [
        ids(&qids, layout.dictionary[0]),
        ids(&docnos, layout.dictionary[1]),
        Arc::new(Float64Array::from(rows.iter().map(|r| r.2).collect::<Vec<_>>())),
        ids(&tags, layout.dictionary[2]),
    ];
    let chosen = layout
        .order
        .iter()
        .filter(|&&c| c < 3 || layout.tagged)
        .map(|&c| (names[c][layout.names[c]], Arc::clone(&columns[c])));
    RecordBatch::try_from_iter(chosen).expect("batch")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn a_run_as_text_and_as_a_table_gives_the_same_outcome(
        rows in prop::collection::vec((id("q", 4), id("d", 7), (0..16u8).prop_map(|s| f64::from(s) / 4.0)), 1..14),
        tag in id("t", 2),
        layout in layout(),
    ) {
        // One judgment per (qid, docno): a docno twice in a topic is each reader's own error.
        let mut seen = std::collections::HashSet::new();
        let rows: Vec<(String, String, f64)> = rows.into_iter().filter(|r| seen.insert((r.0.clone(), r.1.clone()))).collect();
        let dir = tempfile::tempdir().expect("tempdir");
        let qrels = dir.path().join("qrels");
        std::fs::write(&qrels, QRELS).expect("write");
        let tag = if layout.tagged { tag } else { "kgeval".to_owned() };
        let text: String = rows.iter().enumerate().map(|(i, (q, d, s))| format!("{q} Q0 {d} {} {s} {tag}\n", i + 1)).collect();
        let text_path = dir.path().join("run.txt");
        std::fs::write(&text_path, text).expect("write");
        let table_path = dir.path().join("run.parquet");
        let file = std::fs::File::create(&table_path).expect("create");
        write_batch(file, ArrowFileKind::Parquet, &table(&rows, &tag, &layout), "run.parquet").expect("write");
        let task = |run: &std::path::Path| {
            TrecTask::new(qrels.to_str().expect("path")).measure("map").measure("P.5").measure("num_ret").run_file(run.to_str().expect("path"))
        };
        let from_text = outcome(task(&text_path).run(&NoProgress), layout.tagged);
        let from_table = outcome(task(&table_path).run(&NoProgress), layout.tagged);
        prop_assert_eq!(from_text, from_table);
    }
}
