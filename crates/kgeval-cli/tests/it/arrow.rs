//! `kgeval trec` with Parquet and Arrow IPC inputs (by extension or content) gives the text
//! files' output, and `--format parquet|arrow -o FILE` writes the CSV's rows as an Arrow table
//! (every other family: its per-item table and headlines).

use std::path::Path;
use std::sync::Arc;

use kgeval_formats::arrow::arrow_array::cast::AsArray;
use kgeval_formats::arrow::arrow_array::types::Float64Type;
use kgeval_formats::arrow::arrow_array::types::Int16Type;
use kgeval_formats::arrow::arrow_array::{
    ArrayRef, DictionaryArray, Float32Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use kgeval_formats::arrow::ipc::writer::StreamWriter;
use kgeval_formats::arrow::{open_batches, write_batch, ArrowFileKind};

use crate::{kgeval, root};

const T: &str = "testdata/trec_eval/test";

/// The rows of a whitespace-separated text file, fields split.
fn fields(path: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(root().join(path)).expect("testdata file");
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| l.split_whitespace().map(str::to_owned).collect()).collect()
}

fn column(values: impl IntoIterator<Item = String>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(values))
}

/// qrels.test as (qid, docno, rel: int32) and results.test as (query_id, doc_id: dictionary,
/// score: float64).
fn tables() -> (RecordBatch, RecordBatch) {
    let qrels = fields(&format!("{T}/qrels.test"));
    let qrels = RecordBatch::try_from_iter([
        ("qid", column(qrels.iter().map(|r| r[0].clone()))),
        ("docno", column(qrels.iter().map(|r| r[2].clone()))),
        (
            "rel",
            Arc::new(Int32Array::from_iter_values(qrels.iter().map(|r| r[3].parse::<i32>().expect("rel")))) as ArrayRef,
        ),
    ])
    .expect("qrels batch");
    let run = fields(&format!("{T}/results.test"));
    let docnos: DictionaryArray<Int16Type> = run.iter().map(|r| r[2].as_str()).collect();
    let run = RecordBatch::try_from_iter([
        ("query_id", column(run.iter().map(|r| r[0].clone()))),
        ("doc_id", Arc::new(docnos) as ArrayRef),
        (
            "score",
            Arc::new(kgeval_formats::arrow::arrow_array::Float64Array::from_iter_values(
                run.iter().map(|r| r[4].parse::<f64>().expect("score")),
            )) as ArrayRef,
        ),
    ])
    .expect("run batch");
    (qrels, run)
}

fn write(path: &Path, kind: ArrowFileKind, batch: &RecordBatch) {
    let file = std::fs::File::create(path).expect("create");
    write_batch(file, kind, batch, &path.display().to_string()).expect("write");
}

fn stdout(args: &[&str]) -> String {
    let out = kgeval(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

/// trec_eval's text without the `runid` line (an Arrow run without a tag column: `kgeval`).
fn without_runid(text: &str) -> String {
    text.lines().filter(|l| !l.starts_with("runid")).collect::<Vec<_>>().join("\n")
}

#[test]
fn parquet_and_ipc_inputs_print_the_text_files_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (qrels, run) = tables();
    let expected = stdout(&["trec", "-q", "-m", "all_trec", &format!("{T}/qrels.test"), &format!("{T}/results.test")]);
    for (extension, kind) in
        [("parquet", ArrowFileKind::Parquet), ("arrow", ArrowFileKind::Ipc), ("feather", ArrowFileKind::Ipc)]
    {
        let (q, r) = (dir.path().join(format!("qrels.{extension}")), dir.path().join(format!("results.{extension}")));
        write(&q, kind, &qrels);
        write(&r, kind, &run);
        let got = stdout(&["trec", "-q", "-m", "all_trec", q.to_str().expect("utf-8"), r.to_str().expect("utf-8")]);
        assert_eq!(without_runid(&got), without_runid(&expected), "{extension}");
        assert!(got.contains("runid                 \tall\tkgeval"), "{got}");
        // Mixed: text qrels, Parquet run.
        let got = stdout(&["trec", "-q", "-m", "all_trec", &format!("{T}/qrels.test"), r.to_str().expect("utf-8")]);
        assert_eq!(without_runid(&got), without_runid(&expected), "{extension}, text qrels");
    }
    // The IPC stream format under .arrows / .ipc reads too; with a `tag` column, the runid is
    // its last row's, as trec_eval's is the last line's: the text files' output exactly.
    let tags = fields(&format!("{T}/results.test"));
    let schema = run.schema();
    let mut columns: Vec<(&str, ArrayRef)> =
        schema.fields().iter().map(|f| f.name().as_str()).zip(run.columns().iter().cloned()).collect();
    columns.push(("tag", column(tags.iter().map(|r| r[5].clone()))));
    let tagged = RecordBatch::try_from_iter(columns).expect("tagged run");
    let stream = dir.path().join("results.ipc");
    let mut writer =
        StreamWriter::try_new(std::fs::File::create(&stream).expect("create"), &tagged.schema()).expect("writer");
    writer.write(&tagged).expect("write");
    writer.finish().expect("finish");
    let got = stdout(&["trec", "-q", "-m", "all_trec", &format!("{T}/qrels.test"), stream.to_str().expect("utf-8")]);
    assert_eq!(got, expected);
}

#[test]
fn parquet_and_arrow_outputs_hold_the_csv_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let qrels = format!("{T}/qrels.test");
    let runs = [format!("full={T}/results.test"), format!("trunc={T}/results.trunc")];
    let csv = stdout(&[
        "trec", "-m", "map", "-m", "P.5,10", "-m", "num_q", "-m", "gm_map", "--format", "csv", &qrels, &runs[0],
        &runs[1],
    ]);
    let mut expected = Vec::new();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        for (name, cell) in header.iter().zip(&cells).skip(3) {
            if cell.is_empty() {
                continue;
            }
            expected.push((
                cells[0].to_owned(),
                cells[2].to_owned(),
                (*name).to_owned(),
                cell.parse::<f64>().expect("value"),
            ));
        }
    }
    expected.sort_by(|a, b| (&a.0, &a.1, &a.2).cmp(&(&b.0, &b.1, &b.2)));
    for (format, kind) in [("parquet", ArrowFileKind::Parquet), ("arrow", ArrowFileKind::Ipc)] {
        let path = dir.path().join(format!("out.{format}"));
        let args = ["trec", "-m", "map", "-m", "P.5,10", "-m", "num_q", "-m", "gm_map", "--format", format, "-o"];
        let out = kgeval(&[&args[..], &[path.to_str().expect("utf-8"), &qrels, &runs[0], &runs[1]]].concat());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty());
        let batches = open_batches(&path, kind, "out").expect("read back");
        let names: Vec<&str> = batches.schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["run", "qid", "measure", "value"]);
        let mut got = Vec::new();
        for batch in batches.batches {
            let batch = batch.expect("batch");
            let text = |i: usize| batch.column(i).as_string::<i32>().clone();
            let (run, qid, measure) = (text(0), text(1), text(2));
            let value = batch.column(3).as_primitive::<Float64Type>().clone();
            for row in 0..batch.num_rows() {
                got.push((
                    run.value(row).to_owned(),
                    qid.value(row).to_owned(),
                    measure.value(row).to_owned(),
                    value.value(row),
                ));
            }
        }
        got.sort_by(|a, b| (&a.0, &a.1, &a.2).cmp(&(&b.0, &b.1, &b.2)));
        assert_eq!(got, expected, "{format}");
    }
}

#[test]
fn bad_arrow_inputs_and_outputs_are_one_line_errors_with_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("run.parquet");
    let batch = RecordBatch::try_from_iter([
        ("qid", column(["q1".to_owned()])),
        ("doc", column(["d1".to_owned()])),
        ("score", Arc::new(Float32Array::from(vec![1.0f32])) as ArrayRef),
    ])
    .expect("batch");
    write(&bad, ArrowFileKind::Parquet, &batch);
    let bad_name = bad.to_str().expect("utf-8");
    let out = kgeval(&["trec", &format!("{T}/qrels.test"), bad_name]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{bad_name}: found columns qid, doc, score, expected a document id column named one of docno, doc_id, docid"
        )),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    // Not Parquet at all.
    let garbage = dir.path().join("qrels.parquet");
    std::fs::write(&garbage, b"401 0 d1 1\n").expect("write");
    let out = kgeval(&["trec", garbage.to_str().expect("utf-8"), &format!("{T}/results.test")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("{}: not a Parquet file this build reads", garbage.display())), "{stderr}");
    // Binary formats need -o.
    let out = kgeval(&["trec", "--format", "parquet", &format!("{T}/qrels.test"), &format!("{T}/results.test")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--format parquet: found no -o, expected -o FILE"));
}

/// The `(system, item, metric, value)` rows of a Parquet or IPC file.
fn table_rows(path: &Path, kind: ArrowFileKind) -> Vec<(String, String, String, f64)> {
    let batches = open_batches(path, kind, "out").expect("read back");
    let names: Vec<String> = batches.schema.fields().iter().map(|f| f.name().clone()).collect();
    assert_eq!(names, ["system", "item", "metric", "value"]);
    let mut rows = Vec::new();
    for batch in batches.batches {
        let batch = batch.expect("batch");
        let text = |i: usize| batch.column(i).as_string::<i32>().clone();
        let (systems, items, metrics) = (text(0), text(1), text(2));
        let values = batch.column(3).as_primitive::<Float64Type>();
        for row in 0..batch.num_rows() {
            rows.push((
                systems.value(row).to_owned(),
                items.value(row).to_owned(),
                metrics.value(row).to_owned(),
                values.value(row),
            ));
        }
    }
    rows
}

#[test]
fn other_families_write_their_per_item_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kgc = ["kgc", "--test", "testdata/kgc/mini/test.txt", "--filter", "testdata/kgc/mini/train.txt"];
    let ranks = "--ranks=testdata/kgc/mini/ranks.tsv";
    // kgc: every value of --format csv (scope `both`) under item `all`, to the last bit.
    let csv = stdout(&[&kgc[..], &[ranks, "--format", "csv"]].concat());
    let expected: Vec<(String, f64)> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|c| c[1] == "both")
        .map(|c| (c[2].to_owned(), c[3].parse().expect("value")))
        .collect();
    assert!(expected.len() > 20, "{csv}");
    for (extension, kind) in [("parquet", ArrowFileKind::Parquet), ("arrow", ArrowFileKind::Ipc)] {
        let path = dir.path().join(format!("kgc.{extension}"));
        stdout(&[&kgc[..], &[ranks, "--format", extension, "-o", path.to_str().expect("utf-8")]].concat());
        let rows = table_rows(&path, kind);
        let got: Vec<(String, f64)> =
            rows.iter().filter(|r| r.0 == "ranks" && r.1 == "all").map(|r| (r.2.clone(), r.3)).collect();
        assert_eq!(got, expected, "{extension}");
    }
    // rank: per-query rows, then the headlines (MACRO over pairs, MICRO over queries).
    let manifest = ["rank", "--manifest", "testdata/ranking/diso-synthetic/task2.toml"];
    let json = crate::kgeval_json(&manifest);
    let path = dir.path().join("rank.parquet");
    stdout(&[&manifest[..], &["--format", "parquet", "-o", path.to_str().expect("utf-8")]].concat());
    let rows = table_rows(&path, ArrowFileKind::Parquet);
    let summary = |metric: &str| rows.iter().find(|r| r.1 == "all" && r.2 == metric).map(|r| r.3);
    assert_eq!(summary("recip_rank"), json["MACRO"]["mrr"].as_f64());
    assert_eq!(summary("hits@10"), json["MACRO"]["hits_at_10"].as_f64());
    assert_eq!(summary("micro_mrr"), json["MICRO"]["mrr"].as_f64());
    let first_summary = rows.iter().position(|r| r.1 == "all").expect("headlines");
    assert!(first_summary > 1000 && rows[..first_summary].iter().all(|r| r.1 != "all"), "per-query rows first");
    assert!(rows[..first_summary].iter().any(|r| r.1 == "uco-stix/0" && r.2 == "recip_rank"));
}

#[test]
fn tables_are_recognised_by_content_on_stdin_gzip_and_any_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (qrels, run) = tables();
    let expected = stdout(&["trec", "-m", "all_trec", &format!("{T}/qrels.test"), &format!("{T}/results.test")]);
    let (q, r) = (dir.path().join("qrels.parquet"), dir.path().join("results.parquet"));
    write(&q, ArrowFileKind::Parquet, &qrels);
    write(&r, ArrowFileKind::Parquet, &run);
    let q = q.to_str().expect("utf-8");
    // A Parquet run on standard input, and the qrels on standard input.
    let piped = |args: &[&str], input: &Path| {
        let out = crate::kgeval_stdin(args, &std::fs::read(input).expect("table"));
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).expect("utf-8")
    };
    assert_eq!(without_runid(&piped(&["trec", "-m", "all_trec", q, "-"], &r)), without_runid(&expected));
    let text_run = format!("{T}/results.test");
    assert_eq!(piped(&["trec", "-m", "all_trec", "-", &text_run], Path::new(q)), expected);
    // gzip-compressed, and under names that say nothing (an IPC file and an IPC stream).
    let gz = dir.path().join("results.parquet.gz");
    crate::gzip_file(&r, &gz);
    let ipc = dir.path().join("results.bin");
    write(&ipc, ArrowFileKind::Ipc, &run);
    let stream = dir.path().join("results.dat");
    let mut writer =
        StreamWriter::try_new(std::fs::File::create(&stream).expect("create"), &run.schema()).expect("writer");
    writer.write(&run).expect("write");
    writer.finish().expect("finish");
    for path in [&gz, &ipc, &stream] {
        let got = stdout(&["trec", "-m", "all_trec", q, path.to_str().expect("utf-8")]);
        assert_eq!(without_runid(&got), without_runid(&expected), "{}", path.display());
    }
    // A truncated table is read as the table it starts as, and refused as one: exit 2, one line.
    let truncated = dir.path().join("results.part");
    std::fs::write(&truncated, &std::fs::read(&r).expect("table")[..100]).expect("write");
    let out = kgeval(&["trec", q, truncated.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with(&format!("error: {}: not a Parquet file", truncated.display())), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_table_qrels_label_past_two_to_the_fifty_three_is_a_row_error_with_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let qrels = dir.path().join("qrels.parquet");
    let batch = RecordBatch::try_from_iter([
        ("qid", column(["301".to_owned(), "301".to_owned()])),
        ("docno", column(["FBIS3-10082".to_owned(), "FBIS3-10169".to_owned()])),
        ("rel", Arc::new(Int64Array::from(vec![1i64 << 40, (1 << 53) + 1])) as ArrayRef),
    ])
    .expect("batch");
    write(&qrels, ArrowFileKind::Parquet, &batch);
    let name = qrels.to_str().expect("utf-8");
    let out = kgeval(&["trec", name, &format!("{T}/results.test")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{name}: row 2: column `rel`: found `9007199254740993` as the relevance, expected an integer from -2^53 to 2^53"
        )),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// Parquet written with every codec the build reads (polars writes ZSTD by default, Spark and
/// pyarrow Snappy, others LZ4 or gzip) scores as the text files do.
#[test]
fn parquet_of_every_codec_the_build_reads_scores_as_the_text_files() {
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, GzipLevel, ZstdLevel};
    use parquet::file::properties::WriterProperties;

    let dir = tempfile::tempdir().expect("tempdir");
    let (qrels, run) = tables();
    let expected = stdout(&["trec", "-q", "-m", "all_trec", &format!("{T}/qrels.test"), &format!("{T}/results.test")]);
    let codecs = [
        ("uncompressed", Compression::UNCOMPRESSED),
        ("snappy", Compression::SNAPPY),
        ("zstd", Compression::ZSTD(ZstdLevel::default())),
        ("lz4", Compression::LZ4),
        ("lz4_raw", Compression::LZ4_RAW),
        ("gzip", Compression::GZIP(GzipLevel::default())),
    ];
    for (name, codec) in codecs {
        let paths = [dir.path().join(format!("qrels.{name}.parquet")), dir.path().join(format!("run.{name}.parquet"))];
        for (path, batch) in paths.iter().zip([&qrels, &run]) {
            let properties = WriterProperties::builder().set_compression(codec).build();
            let file = std::fs::File::create(path).expect("create");
            let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(properties)).expect("writer");
            writer.write(batch).expect("write");
            writer.close().expect("close");
        }
        let [q, r] = paths.each_ref().map(|p| p.to_str().expect("utf-8").to_owned());
        let got = stdout(&["trec", "-q", "-m", "all_trec", &q, &r]);
        assert_eq!(without_runid(&got), without_runid(&expected), "{name}");
    }
}
