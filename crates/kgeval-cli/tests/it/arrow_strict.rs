//! Tables read as strictly as text: one column per role (a second column for a role is an
//! error naming both, an unknown column a warning), ids without whitespace or control
//! characters (in text runs and qrels too), an empty table an error as an empty text run is,
//! and text output that no id can forge (a line, a tab, an escape sequence).

use std::path::Path;
use std::process::Output;
use std::sync::Arc;

use kgeval_formats::arrow::arrow_array::{ArrayRef, Float64Array, Int32Array, RecordBatch, StringArray};
use kgeval_formats::arrow::arrow_schema::{DataType, Field, Schema};
use kgeval_formats::arrow::{write_batch, ArrowFileKind};

use crate::kgeval;

fn ids(values: &[&str]) -> ArrayRef {
    Arc::new(StringArray::from(values.to_vec()))
}

fn scores(values: &[f64]) -> ArrayRef {
    Arc::new(Float64Array::from(values.to_vec()))
}

/// A batch of `columns` (names may repeat: `try_from_iter` keeps them as given).
fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let fields: Vec<Field> =
        columns.iter().map(|(name, array)| Field::new(*name, array.data_type().clone(), false)).collect();
    let arrays: Vec<ArrayRef> = columns.into_iter().map(|(_, array)| array).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).expect("batch")
}

fn write(dir: &Path, name: &str, batch: &RecordBatch) -> String {
    let path = dir.join(name);
    let file = std::fs::File::create(&path).expect("create");
    write_batch(file, ArrowFileKind::Parquet, batch, name).expect("write");
    path.display().to_string()
}

/// qrels: q1 judges d1 relevant, d2 not; q2 judges d3 relevant.
fn qrels(dir: &Path) -> String {
    let table = batch(vec![
        ("qid", ids(&["q1", "q1", "q2"])),
        ("docno", ids(&["d1", "d2", "d3"])),
        ("rel", Arc::new(Int32Array::from(vec![1, 0, 1])) as ArrayRef),
    ]);
    write(dir, "qrels.parquet", &table)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Two `score` columns: the first was used silently. Now an error naming both.
#[test]
fn a_second_column_for_a_role_is_an_error_naming_both() {
    let dir = tempfile::tempdir().expect("tempdir");
    let qrels = qrels(dir.path());
    let twice = batch(vec![
        ("qid", ids(&["q1", "q1"])),
        ("docno", ids(&["d1", "d2"])),
        ("score", scores(&[1.0, 2.0])),
        ("score", scores(&[2.0, 1.0])),
    ]);
    let run = write(dir.path(), "run_dupcol.parquet", &twice);
    let out = kgeval(&["trec", "-m", "map", &qrels, &run]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("run_dupcol.parquet: found columns score and score, both a score column; keep one"),
        "{}",
        stderr(&out)
    );
    // Two aliases of one role with different values: `qid` was preferred silently.
    let aliases = batch(vec![
        ("qid", ids(&["q1", "q1"])),
        ("query_id", ids(&["q2", "q2"])),
        ("docno", ids(&["d1", "d2"])),
        ("score", scores(&[1.0, 2.0])),
    ]);
    let run = write(dir.path(), "run.parquet", &aliases);
    let out = kgeval(&["trec", "-m", "map", &qrels, &run]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("run.parquet: found columns qid and query_id, both a query id column; keep one"),
        "{}",
        stderr(&out)
    );
    // The qrels and the tag follow the same rule.
    let tags = batch(vec![
        ("qid", ids(&["q1"])),
        ("docno", ids(&["d1"])),
        ("score", scores(&[1.0])),
        ("tag", ids(&["a"])),
        ("run_id", ids(&["b"])),
    ]);
    let run = write(dir.path(), "tags.parquet", &tags);
    let out = kgeval(&["trec", "-m", "map", &qrels, &run]);
    assert!(stderr(&out).contains("found columns tag and run_id, both a tag column; keep one"), "{}", stderr(&out));
    let judged = batch(vec![
        ("qid", ids(&["q1"])),
        ("docno", ids(&["d1"])),
        ("rel", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
        ("label", Arc::new(Int32Array::from(vec![0])) as ArrayRef),
    ]);
    let bad_qrels = write(dir.path(), "qrels2.parquet", &judged);
    let out = kgeval(&["trec", "-m", "map", &bad_qrels, &run]);
    assert!(
        stderr(&out).contains("qrels2.parquet: found columns rel and label, both a relevance column; keep one"),
        "{}",
        stderr(&out)
    );
}

/// A column kgeval does not read is named in one warning; a run converted from a TREC file
/// (`iter`, `rank`) warns about nothing.
#[test]
fn unknown_columns_are_one_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let qrels = qrels(dir.path());
    let extra = batch(vec![
        ("qid", ids(&["q1", "q1"])),
        ("docno", ids(&["d1", "d2"])),
        ("score", scores(&[2.0, 1.0])),
        ("rank", Arc::new(Int32Array::from(vec![1, 2])) as ArrayRef),
        ("scroe", scores(&[1.0, 2.0])),
        ("note", ids(&["x", "y"])),
    ]);
    let run = write(dir.path(), "run.parquet", &extra);
    let out = kgeval(&["trec", "-m", "map", &qrels, &run]);
    assert!(out.status.success(), "{}", stderr(&out));
    let warnings: Vec<&str> = std::str::from_utf8(&out.stderr)
        .expect("utf-8")
        .lines()
        .filter(|l| l.contains("unknown-column"))
        .collect::<Vec<_>>();
    assert_eq!(warnings.len(), 1, "{}", stderr(&out));
    assert!(warnings[0].contains("found 2 columns kgeval does not read (scroe, note)"), "{}", warnings[0]);
}

/// A tag or qid holding a newline, a tab or an escape printed as written: a forged
/// `map all 0.9999` line. Now an error naming the row and the column.
#[test]
fn ids_with_line_breaks_or_escapes_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let qrels = qrels(dir.path());
    let forged = batch(vec![
        ("qid", ids(&["q1", "q1"])),
        ("docno", ids(&["d1", "d2"])),
        ("score", scores(&[1.0, 2.0])),
        ("tag", ids(&["x", "x\nmap                   \tall\t0.9999"])),
    ]);
    let run = write(dir.path(), "run_tag_nl.parquet", &forged);
    let out = kgeval(&["trec", &qrels, &run]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(!stdout(&out).contains("0.9999"));
    assert!(stderr(&out).contains("run_tag_nl.parquet: row 2, column tag: found"), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    let escaped =
        batch(vec![("qid", ids(&["q1", "q1\x1b[31m"])), ("docno", ids(&["d1", "d2"])), ("score", scores(&[1.0, 2.0]))]);
    let run = write(dir.path(), "run_qid.parquet", &escaped);
    let out = kgeval(&["trec", "-q", "-m", "map", &qrels, &run]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("run_qid.parquet: row 2, column qid: found"), "{}", stderr(&out));
    assert!(!stderr(&out).contains('\x1b'), "the message shows the id escaped");
    let spaced = batch(vec![("qid", ids(&["q1"])), ("docno", ids(&["d 1"])), ("score", scores(&[1.0]))]);
    let run = write(dir.path(), "run_space.parquet", &spaced);
    let out = kgeval(&["trec", "-m", "map", &qrels, &run]);
    assert!(stderr(&out).contains("run_space.parquet: row 1, column docno: found"), "{}", stderr(&out));
}

/// A text run or qrels cannot hold whitespace in a field, but held an escape or a NUL byte as
/// written. Now the same error as a table's, at the field's line and column.
#[test]
fn text_ids_with_control_characters_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let qrels = dir.path().join("qrels");
    std::fs::write(&qrels, "q1 0 d1 1\nq1 0 d2 0\n").expect("write");
    let qrels = qrels.display().to_string();
    for (text, at) in [
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d\x1b[2J 2 1.0 t\n", "run:2:8:"),
        ("q1 Q0 d1 1 2.0 t\nq\x001 Q0 d2 2 1.0 t\n", "run:2:2:"),
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\u{85}x\n", "run:2:17:"),
    ] {
        let run = dir.path().join("run");
        std::fs::write(&run, text).expect("write");
        let out = kgeval(&["trec", "-q", "-m", "map", &qrels, &run.display().to_string()]);
        assert_eq!(out.status.code(), Some(2), "{text:?}: {}", stdout(&out));
        assert!(stderr(&out).contains(at), "{text:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains('\x1b'));
    }
    std::fs::write(dir.path().join("qrels"), "q1 0 d1 1\nq1 0 d\x7f2 0\n").expect("write");
    let run = dir.path().join("run");
    std::fs::write(&run, "q1 Q0 d1 1 2.0 t\n").expect("write");
    let out = kgeval(&["trec", "-m", "map", &qrels, &run.display().to_string()]);
    assert!(stderr(&out).contains("qrels:2:7: found the docno"), "{}", stderr(&out));
}

/// An empty table scored 0 with `-c` where an empty text run is an error, with or without.
#[test]
fn an_empty_table_is_an_error_as_an_empty_text_run_is() {
    let dir = tempfile::tempdir().expect("tempdir");
    let qrels = qrels(dir.path());
    let empty = batch(vec![("qid", ids(&[])), ("docno", ids(&[])), ("score", scores(&[]))]);
    let run = write(dir.path(), "run_empty.parquet", &empty);
    let text = dir.path().join("empty.txt");
    std::fs::write(&text, "").expect("write");
    for complete in [&["-c"][..], &[]] {
        let out = kgeval(&[&["trec", "-m", "map"][..], complete, &[&qrels, &run]].concat());
        assert_eq!(out.status.code(), Some(2), "{complete:?}: {}", stdout(&out));
        assert!(stderr(&out).contains("run_empty.parquet: found no rows"), "{}", stderr(&out));
        let out = kgeval(&[&["trec", "-m", "map"][..], complete, &[&qrels, &text.display().to_string()]].concat());
        assert_eq!(out.status.code(), Some(2), "{complete:?}: {}", stdout(&out));
    }
    let empty_qrels = batch(vec![
        ("qid", ids(&[])),
        ("docno", ids(&[])),
        ("rel", Arc::new(Int32Array::from(Vec::<i32>::new())) as ArrayRef),
    ]);
    let bad = write(dir.path(), "qrels_empty.parquet", &empty_qrels);
    let out = kgeval(&["trec", "-m", "map", &bad, &text.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    // A table with no row for a judged topic follows a text run's rule: an error without
    // `-c`, every qrels topic scored 0 with it.
    let other = batch(vec![("qid", ids(&["q9"])), ("docno", ids(&["d1"])), ("score", scores(&[1.0]))]);
    let run = write(dir.path(), "other.parquet", &other);
    let out = kgeval(&["trec", "-m", "map", &qrels, &run]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no topic in common"), "{}", stderr(&out));
    let out = kgeval(&["trec", "-c", "-m", "map", &qrels, &run]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("map                   \tall\t0.0000"), "{}", stdout(&out));
}

/// `--precision 6` was ignored by the trec_eval-style text (Markdown honoured it).
#[test]
fn precision_applies_to_the_trec_text() {
    let args =
        ["trec", "-q", "-m", "map", "testdata/trec_eval/test/qrels.test", "testdata/trec_eval/test/results.test"];
    let four = stdout(&kgeval(&args));
    let six = stdout(&kgeval(&[&args[..], &["--precision", "6"]].concat()));
    let map = |text: &str| text.lines().find(|l| l.starts_with("map") && l.contains("\tall\t")).map(str::to_owned);
    let (four, six) = (map(&four).expect("map line"), map(&six).expect("map line"));
    let decimals = |line: &str| line.rsplit('\t').next().and_then(|v| v.split_once('.')).map(|(_, d)| d.len());
    assert_eq!((decimals(&four), decimals(&six)), (Some(4), Some(6)), "{four} / {six}");
    let value = |line: &str| line.rsplit('\t').next().and_then(|v| v.parse::<f64>().ok()).expect("value");
    assert!((value(&four) - value(&six)).abs() < 5e-5);
}

/// A table id that is only a dictionary value is checked too (once per value).
#[test]
fn dictionary_ids_are_checked() {
    use kgeval_formats::arrow::arrow_array::types::Int16Type;
    use kgeval_formats::arrow::arrow_array::DictionaryArray;
    let dir = tempfile::tempdir().expect("tempdir");
    let qrels = qrels(dir.path());
    let docnos: DictionaryArray<Int16Type> = vec!["d1", "d2", "d\t3"].into_iter().collect();
    let table = batch(vec![
        ("qid", ids(&["q1", "q1", "q1"])),
        ("docno", Arc::new(docnos) as ArrayRef),
        ("score", scores(&[3.0, 2.0, 1.0])),
    ]);
    assert!(matches!(table.column(1).data_type(), DataType::Dictionary(_, _)));
    let run = write(dir.path(), "dict.parquet", &table);
    let out = kgeval(&["trec", "-m", "map", &qrels, &run]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("dict.parquet: row 3, column docno: found"), "{}", stderr(&out));
}
