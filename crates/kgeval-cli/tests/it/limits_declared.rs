//! Sizes an input declares (docs/inputs.md, "Bounds"): a KGC `num_candidates` or rank, the
//! list the IR measures derive from ranks, and the rows of a Parquet table are checked
//! against what the task allows before anything is sized by them — just within passes, just
//! past is one located line (exit 2), never an abort.

use std::path::Path;

use crate::{kgeval, root};

const MINI: &str = "testdata/kgc/mini";

/// The mini ranks file with its first rank line's `rank` and `num_candidates` replaced, and
/// `n_greater` one below the rank (when it is an integer) so that the rank is in its tie.
fn mini_ranks(dir: &Path, name: &str, rank: &str, candidates: &str) -> String {
    let text = std::fs::read_to_string(root().join(MINI).join("ranks.tsv")).expect("mini ranks");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let greater = rank.parse::<u64>().map_or_else(|_| "0".to_owned(), |r| (r - 1).to_string());
    let mut fields: Vec<&str> = lines[2].split('\t').collect();
    (fields[4], fields[5], fields[7]) = (rank, &greater, candidates);
    lines[2] = fields.join("\t");
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    path.display().to_string()
}

fn kgc_mini(ranks: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["kgc", "--test", "testdata/kgc/mini/test.txt", "--filter", "testdata/kgc/mini/train.txt"];
    args.extend(["--ranks", ranks]);
    args.extend(extra);
    kgeval(&args)
}

fn refused(out: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(out.stdout.is_empty());
    stderr
}

/// `num_candidates` 10¹⁴ aborted `kgeval kgc` (exit 134: the adjusted metrics sized a table by
/// it), and 10⁸ cost 1.6 GB: a count is at most the entity list's count (6 for mini), and
/// without an entity list at most 2³².
#[test]
fn kgc_candidate_counts_at_their_edge() {
    let dir = tempfile::tempdir().expect("tempdir");
    let entities = ["--entities", "testdata/kgc/mini/entities.txt"];
    let at_list = mini_ranks(dir.path(), "six.tsv", "1.0", "6");
    assert!(kgc_mini(&at_list, &entities).status.success());
    let past_list = mini_ranks(dir.path(), "seven.tsv", "1.0", "7");
    let stderr = refused(&kgc_mini(&past_list, &entities));
    assert!(
        stderr.contains("seven.tsv:3:23: found num_candidates 7, expected at most 6, the number of entities"),
        "{stderr}"
    );
    let max = kgeval_model::kgc::MAX_ENTITIES;
    let at_max = mini_ranks(dir.path(), "max.tsv", "1.0", &max.to_string());
    let out = kgc_mini(&at_max, &["--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for (name, candidates) in [("past-max.tsv", max + 1), ("huge.tsv", 100_000_000_000_000), ("u64.tsv", u64::MAX)] {
        let past = mini_ranks(dir.path(), name, "1.0", &candidates.to_string());
        let stderr = refused(&kgc_mini(&past, &[]));
        let expected = format!(
            "{name}:3:23: found num_candidates {candidates}, expected at most {max}, 2^32, the most entities kgeval \
             numbers (give the entity list for the exact bound)"
        );
        assert!(stderr.contains(&expected), "{stderr}");
    }
    let past = mini_ranks(dir.path(), "rank.tsv", "7", "7");
    let stderr = refused(&kgc_mini(&past, &entities));
    assert!(stderr.contains("rank.tsv:3:15: found rank 7, expected at most 6, the number of entities"), "{stderr}");
}

/// A rank of 10⁹ with `--ir-measures map` (no cut-off) grew to 7.8 GB of RSS: the list the
/// ranks imply holds 8 bytes a place, at most the decompressed limit.
#[test]
fn the_ir_list_of_declared_ranks_at_its_edge() {
    let dir = tempfile::tempdir().expect("tempdir");
    let deep = mini_ranks(dir.path(), "deep.tsv", "1000000000", "1000000000");
    let stderr = refused(&kgc_mini(&deep, &["--ir-measures", "map"]));
    assert!(
        stderr.contains(&format!(
            "error: {}: found ranks that make the list of the IR measures (map) 1000000000 places long (8000000000 \
             bytes), expected at most 4294967296 bytes",
            dir.path().join("deep.tsv").display()
        )),
        "{stderr}"
    );
    // A cut-off bounds the list: map_cut.20 needs 20 places.
    assert!(kgc_mini(&deep, &["--ir-measures", "map_cut.20"]).status.success());
    // At the limit: the list of rank 1000 and the question's other answers.
    let shallow = mini_ranks(dir.path(), "shallow.tsv", "1000", "1000");
    let stderr = refused(&kgc_mini(&shallow, &["--ir-measures", "map", "--max-decompressed", "1K"]));
    let places: u64 = stderr
        .split(" places long")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the places in the message");
    assert!(places >= 1000, "{stderr}");
    let at_edge = (places * 8).to_string();
    let out = kgc_mini(&shallow, &["--ir-measures", "map", "--max-decompressed", &at_edge]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let past_edge = (places * 8 - 1).to_string();
    refused(&kgc_mini(&shallow, &["--ir-measures", "map", "--max-decompressed", &past_edge]));
}

/// A Parquet run of hundreds of millions of rows in a file of a few hundred kilobytes
/// (written here: every column a dictionary of one value and run-length-encoded keys) grew
/// `kgeval trec` to gigabytes of RSS and aborted a server: its footer's rows are counted
/// against the decompressed limit before a page is decoded.
#[cfg(feature = "arrow")]
pub(crate) mod parquet_rows {
    use std::path::Path;
    use std::sync::Arc;
    use std::time::Instant;

    use kgeval_formats::arrow::arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;

    use super::refused;
    use crate::kgeval;

    /// Writes `groups` row groups of `rows` run rows as Parquet: qid `301`, score 1, and docno
    /// `d1` on every row (`distinct`: `d0`, `d1`, … — a valid run).
    pub(crate) fn run_table(path: &Path, rows: usize, groups: usize, distinct: bool) {
        let docnos: ArrayRef = if distinct {
            Arc::new(StringArray::from_iter_values((0..rows).map(|i| format!("d{i}"))))
        } else {
            Arc::new(StringArray::from_iter_values(std::iter::repeat_n("d1", rows)))
        };
        let batch = RecordBatch::try_from_iter([
            ("qid", Arc::new(StringArray::from_iter_values(std::iter::repeat_n("301", rows))) as ArrayRef),
            ("docno", docnos),
            ("score", Arc::new(Float64Array::from(vec![1.0; rows])) as ArrayRef),
        ])
        .expect("a batch");
        let properties = WriterProperties::builder()
            .set_dictionary_enabled(true)
            .set_data_page_row_count_limit(usize::MAX)
            .set_data_page_size_limit(usize::MAX)
            .build();
        let file = std::fs::File::create(path).expect("create");
        let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(properties)).expect("writer");
        for _ in 0..groups {
            writer.write(&batch).expect("write");
        }
        writer.close().expect("close");
    }

    #[test]
    fn a_parquet_run_declaring_more_rows_than_the_limit_is_refused_before_decoding() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("run.parquet");
        run_table(&path, 1 << 20, 256, false);
        let size = std::fs::metadata(&path).expect("written").len();
        assert!(size < 4 << 20, "{size} bytes");
        let run = path.display().to_string();
        let qrels = "testdata/trec_eval/test/qrels.test";
        let started = Instant::now();
        let stderr = refused(&kgeval(&["trec", "-m", "map", qrels, &run]));
        assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
        assert!(stderr.starts_with(&format!("error: {run}: row group ")), "{stderr}");
        assert!(
            stderr.contains(" of 256, column `") && stderr.contains("expected at most 4294967296 bytes"),
            "{stderr}"
        );
        // A valid run of 65,536 rows (about 30 bytes each, 2 MB) reads within the default limit
        // and within 4 MiB, and is refused within 1 MiB.
        let small = dir.path().join("small.parquet");
        run_table(&small, 1 << 16, 1, true);
        let small = small.display().to_string();
        for limit in ["4G", "4M"] {
            let out = kgeval(&["--max-decompressed", limit, "trec", "-m", "map", qrels, &small]);
            assert!(out.status.success(), "{limit}: {}", String::from_utf8_lossy(&out.stderr));
        }
        let stderr = refused(&kgeval(&["--max-decompressed", "1M", "trec", "-m", "map", qrels, &small]));
        assert!(stderr.contains("small.parquet: row group 1 of 1, column `"), "{stderr}");
    }
}
