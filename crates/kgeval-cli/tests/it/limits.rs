//! The bounds of `docs/inputs.md`: the table lists the constants the code
//! checks, and each bound is refused just past its edge before any work (exit 2, one line,
//! no panic, no abort).

use crate::{kgeval, root};

/// The `| option | where | range |` rows of the bounds table.
fn bounds_table() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(root().join("docs/inputs.md")).expect("docs/inputs.md");
    let table = &doc[doc.find("## Bounds").expect("a Bounds section")..];
    table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| option"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].to_owned(), cells[3].to_owned())
        })
        .collect()
}

fn range_of(table: &[(String, String)], option: &str) -> String {
    table.iter().find(|(o, _)| o.contains(option)).map(|(_, r)| r.replace(',', "")).expect(option)
}

#[test]
fn the_documented_bounds_are_the_checked_ones() {
    let table = bounds_table();
    let p = kgeval_report::MAX_PRECISION;
    assert!(range_of(&table, "--precision").starts_with(&format!("0 to {p} decimals")));
    let b = kgeval::compare::MAX_ITERATIONS;
    assert_eq!(range_of(&table, "--iterations"), format!("1 to {b}"));
    let r = kgeval::compare::MAX_REPEATS;
    assert_eq!(range_of(&table, "--repeats"), format!("1 to {r}"));
    let n = kgeval::compare::MAX_RATIOS;
    assert_eq!(range_of(&table, "--ratios"), format!("1 to {n} ratios each in (0 1]"));
    let e = kgeval::compare::MIN_RBO_P;
    assert_eq!(range_of(&table, "--rbo-p"), format!("{e:e} to 1 − {e:e}"));
    let gib = kgeval_formats::input::DEFAULT_DECOMPRESSED_LIMIT >> 30;
    assert_eq!(range_of(&table, "decompressed size"), format!("{gib} GiB (`--max-decompressed` or set by a program)"));
    let depth = kgeval::pool::MAX_POOL_DEPTH;
    assert_eq!(range_of(&table, "--max-depth"), format!("0 to {depth}"));
    let name = kgeval::campaign::MAX_NAME_LENGTH;
    assert_eq!(range_of(&table, "task name"), format!("{name} characters"));
    let rows = kgeval::qald::MAX_MAX_ROWS;
    let default = kgeval::qald::DEFAULT_MAX_ROWS;
    assert_eq!(range_of(&table, "--max-rows"), format!("1 to {rows} rows per query (default {default})"));
    let timeout = kgeval::qald::DEFAULT_TIMEOUT_SECS;
    assert!(range_of(&table, "--timeout").starts_with(&format!("more than 0 seconds per query (default {timeout})")));
    let mib = kgeval::qald::MAX_ANSWER_BYTES >> 20;
    assert!(range_of(&table, "answers of one file's queries").starts_with(&format!("{mib} MiB")));
    let gib = kgeval::qald::MAX_QUERY_MEMORY_GROWTH >> 30;
    assert!(range_of(&table, "memory growth during one embedded query").starts_with(&format!("{gib} GiB")));
    let label = kgeval_model::trec::MAX_RELEVANCE;
    assert_eq!(label, 1 << 53);
    assert!(range_of(&table, "a relevance label").starts_with(&format!("−2^53 to 2^53 (±{label} ")));
    let entities = kgeval_model::kgc::MAX_ENTITIES;
    assert_eq!(entities, 1 << 32);
    assert_eq!(
        range_of(&table, "`num_candidates`"),
        format!("at most the entity list's count; without one {entities} (2^32)")
    );
    assert_eq!(
        range_of(&table, "`compared`"),
        format!("each below {entities}; summed over shards at most {entities} candidates")
    );
}

/// `--precision 65536` panicked in the number formatter (exit 101), in `run` after every task
/// was computed; 17 is the last value accepted.
#[test]
fn precision_at_its_edge() {
    let qrels = "testdata/trec_eval/test/qrels.test";
    let run = "testdata/trec_eval/test/results.test";
    let at_edge = kgeval(&["trec", qrels, run, "-m", "map", "--precision", "17"]);
    assert!(at_edge.status.success(), "{}", String::from_utf8_lossy(&at_edge.stderr));
    for args in [
        vec!["trec", qrels, run, "-m", "map", "--precision", "18"],
        vec!["compare", "--qrels", qrels, "--run", &format!("a={run}"), "--precision", "65536"],
        vec!["run", "testdata/campaigns/trec_eval.toml", "-o", "/nonexistent/x", "--precision", "65536"],
    ] {
        let out = kgeval(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("expected 0 to 17 decimals"), "{args:?}: {stderr}");
    }
}

/// `compare --test tukey -B 10000000000` (80 GB), `--intervals -B 1000000000` and
/// `--sensitivity --repeats 1000000000000` aborted with "memory allocation of … failed".
#[test]
fn sizes_past_their_bound_are_refused_before_work() {
    let qrels = "testdata/trec_eval/test/qrels.test";
    let run = "a=testdata/trec_eval/test/results.test";
    let trunc = "b=testdata/trec_eval/test/results.trunc";
    for (extra, message) in [
        (vec!["--test", "tukey", "-B", "10000000000"], "--iterations: found 10000000000, expected 1 to 10000000"),
        (vec!["--intervals", "-B", "1000000000"], "--iterations: found 1000000000, expected 1 to 10000000"),
        (vec!["--sensitivity", "--repeats", "1000000000000"], "--repeats: found 1000000000000, expected 1 to 100000"),
        (vec!["--test", "t", "--tau", "a"], "--tau: found a flag that a significance test does not read"),
    ] {
        let mut args = vec!["compare", "--qrels", qrels, "--run", run, "--run", trunc, "-m", "map"];
        args.extend(extra);
        let out = kgeval(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// A 14 MB gzip that expanded to 3 GB reached 3.17 GB of RSS: decompression stops at the
/// limit (4 GiB unless `--max-decompressed` says otherwise) with one line.
#[test]
fn decompression_stops_at_the_limit() {
    let published = "FB-Test-O=testdata/kgc/kgc-sparsity/result/FB-Test-O/discriminative_power.csv.gz";
    let within = kgeval(&["compare", "--pvalues", published, "-m", "micro_mrr", "--max-decompressed", "64M"]);
    assert!(within.status.success(), "{}", String::from_utf8_lossy(&within.stderr));
    let out = kgeval(&["compare", "--pvalues", published, "-m", "micro_mrr", "--max-decompressed", "1K"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("found gzip that expands to more than 1024 bytes"), "{stderr}");
    let out = kgeval(&["compare", "--pvalues", published, "--max-decompressed", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected a positive size"));
}

/// A FIFO blocked every subcommand forever and `/dev/zero` grew to 2.1 GB before "out of
/// memory": both are refused before they are opened.
#[cfg(unix)]
#[test]
fn special_files_are_refused_up_front() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    assert!(made, "mkfifo");
    let fifo = fifo.to_str().expect("utf-8");
    let run = "testdata/trec_eval/test/results.test";
    for (args, found) in [
        (vec!["trec", fifo, run], "found a FIFO (named pipe), expected a regular file"),
        (vec!["trec", "/dev/zero", run], "found a device, expected a regular file"),
        (vec!["run", fifo, "-o", "/nonexistent/x"], "found a FIFO (named pipe), expected a regular file"),
    ] {
        let out = kgeval(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(found), "{args:?}: {stderr}");
    }
}

/// A UTF-8 byte-order mark was not stripped from TREC files: `kgeval trec` gave MAP 0.1786
/// instead of trec_eval's 0.1785 (its first topic became `\u{feff}301`, scored apart).
#[test]
fn a_byte_order_mark_is_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let test = crate::root().join("testdata/trec_eval/test");
    let mut paths = Vec::new();
    for name in ["qrels.test", "results.test"] {
        let mut bytes = b"\xef\xbb\xbf".to_vec();
        bytes.extend(std::fs::read(test.join(name)).expect("read"));
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        paths.push(path.display().to_string());
    }
    let out = kgeval(&["trec", &paths[0], &paths[1], "-m", "map"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("map                   \tall\t0.1785"), "{stdout}");
}

/// `--max-rows` past its range and a `--timeout` no clock holds (which panicked converting
/// it to a duration) are refused before any query runs.
#[test]
fn qald_query_bounds_past_their_range_are_refused() {
    let qald = ["qald", "--gold", "testdata/qald/sparql/gold.xml", "--system", "testdata/qald/sparql/system.json"];
    for (extra, message) in [
        (["--max-rows", "0"], "--max-rows: found 0, expected 1 to 10000000 rows"),
        (["--max-rows", "10000001"], "--max-rows: found 10000001, expected 1 to 10000000 rows"),
        (["--timeout", "1e300"], "--timeout: expected a positive number of seconds, found 1000000"),
    ] {
        let mut args = qald.to_vec();
        args.extend(["--data", "testdata/qald/sparql/data.ttl"]);
        args.extend(extra);
        let out = kgeval(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(message), "{extra:?}: {stderr}");
    }
}
