//! The bounds of `docs/inputs.md` (issue 31, item 3): the table lists the constants the code
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
    assert_eq!(range_of(&table, "decompressed size"), format!("{gib} GiB (settable by a program)"));
    let name = kgeval::campaign::MAX_NAME_LENGTH;
    assert_eq!(range_of(&table, "task name"), format!("{name} characters"));
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
