//! `kgeval pool` on adversarial input: depths past the documented maximum, an empty pool,
//! a series over sparse depths (evaluated once per depth that changes something), conflicting
//! judgments, and no `NaN` in any rendering.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use kgeval::pool::{PoolAction, PoolResult, PoolTask};
use kgeval_model::meta::pool::MAX_POOL_DEPTH;

use crate::kgeval;

const MINI: &str = "testdata/kgc/mini";

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

/// Runs `kgeval args`, expects exit 2 and `message` on stderr.
fn refused(args: &[&str], message: &str) {
    let run = kgeval(args);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{}: {stderr}", args.join(" "));
    assert!(stderr.contains(message), "expected {message:?} in {stderr}");
}

/// The mini series arguments with `depths` as the pool-depth file and `runs` as `--run`s.
fn mini_series(depths: &str, runs: &[&str]) -> Vec<String> {
    let mut args: Vec<String> =
        ["pool", "series", "--test", "test.txt", "--filter", "train.txt"].iter().map(|s| (*s).to_owned()).collect();
    for a in ["--queries", "questions.txt", "--judgments", "judgments.txt", "--pool-depths", depths] {
        args.push(a.to_owned());
    }
    for r in runs {
        args.extend(["--run".to_owned(), (*r).to_owned()]);
    }
    args.into_iter().map(|a| if a.ends_with(".txt") && !a.contains('/') { format!("{MINI}/{a}") } else { a }).collect()
}

/// A 20-byte pool-depth file with depth 4294967295 once aborted with "memory allocation of
/// 137438953440 bytes failed" (exit 134): now a one-line error at the depth's column. The
/// same bound holds for `--depth` / `--max-depth`, which sized tables the same way.
#[test]
fn depths_past_the_maximum_are_errors_not_aborts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = write(dir.path(), "big.txt", "e5\tr0\te1\t4294967295\n");
    let judgments = format!("{MINI}/judgments.txt");
    refused(&["pool", "ingest", "--judgments", &judgments, "--pool-depths", &big], "big.txt:1:10: found depth");
    let fine = format!("{MINI}/pool_depths.txt");
    let max = format!("expected a pool depth from 1 to {MAX_POOL_DEPTH}");
    refused(&["pool", "ingest", "--judgments", &judgments, "--pool-depths", &fine, "--max-depth", "4294967295"], &max);
    let run = "testdata/trec_eval/test/results.test";
    refused(&["pool", "build", "--depth", "4294967295", "--run", run], &max);
    let past = (MAX_POOL_DEPTH + 1).to_string();
    refused(&["pool", "build", "--depth", &past, "--run", run], &max);
    let args = mini_series(&fine, &["mini=testdata/kgc/mini/run.txt"]);
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    args.extend(["--max-depth", "4294967295"]);
    refused(&args, &max);
}

/// `pool series` over a pool file with no pooled triple printed a Kendall table of `NaN`: now
/// an error naming the file.
#[test]
fn empty_pool_series_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = write(dir.path(), "empty.txt", "");
    let args = mini_series(&empty, &["mini=testdata/kgc/mini/run.txt"]);
    refused(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        "empty.txt: found no pooled triple of depth 1 or more, expected at least one",
    );
}

/// One system has no ordering to compare (tau undefined) and two tied systems have a
/// constant column: neither prints `NaN` in text, Markdown or CSV, nor a non-number in JSON.
#[test]
fn no_nan_in_any_series_rendering() {
    let depths = format!("{MINI}/pool_depths.txt");
    for runs in
        [&["mini=testdata/kgc/mini/run.txt"][..], &["A=testdata/kgc/mini/run.txt", "B=testdata/kgc/mini/run.txt"]]
    {
        let args = mini_series(&depths, runs);
        for format in ["text", "markdown", "csv", "json"] {
            let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
            args.extend(["--format", format]);
            let out = kgeval(&args);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{format}: {}", String::from_utf8_lossy(&out.stderr));
            assert!(!stdout.to_lowercase().contains("nan"), "{format} with {runs:?}:\n{stdout}");
        }
    }
}

/// Counts the evaluations `pool series` reports.
#[derive(Default)]
struct Steps(AtomicU64);

impl kgeval::Progress for Steps {
    fn start(&self, _what: &str, _total: u64) {}
    fn advance(&self, steps: u64) {
        self.0.fetch_add(steps, Ordering::Relaxed);
    }
    fn finish(&self) {}
}

/// A pool of two triples at depths 1 and 400 once cost 401 evaluations per system (> 20 s for
/// depth 100,000): a depth no pooled triple has changes nothing, so it is evaluated once per
/// depth present (plus 0 and D) and the rows in between repeat the depth before. Every row is
/// still there, and they equal the full evaluation of that depth.
#[test]
fn series_evaluates_only_the_depths_present() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = crate::root().join(MINI);
    let depths = write(dir.path(), "depths.txt", "e5\tr0\te1\t400\ne5\tr0\te3\t1\n");
    let mut task = PoolTask::new(PoolAction::Series);
    task.test = Some(root.join("test.txt").into());
    task.filters = vec![root.join("train.txt").into()];
    task.queries = Some(root.join("questions.txt").into());
    task.judgments = Some(root.join("judgments.txt").into());
    task.pool_depths = Some(depths.as_str().into());
    task.runs = ["A", "B"]
        .iter()
        .map(|n| kgeval::SystemInput::parse(&format!("{n}={}", root.join("run.txt").display())))
        .collect();
    let steps = Steps::default();
    let PoolResult::Series(series) = task.run(&steps).expect("series").result else { panic!("a series") };
    assert_eq!(steps.0.load(Ordering::Relaxed), 2 * 3, "depths 0, 1 and 400 for each of two systems");
    assert_eq!(series.rows.len(), 2 * 401);
    let at =
        |system: &str, depth: u32| series.rows.iter().find(|r| r.system == system && r.depth == depth).expect("row");
    // e1 (depth 400, judged Y) changes the labels at 400 only.
    assert_eq!(at("A", 1).values, at("A", 399).values);
    assert_ne!(at("A", 399).values, at("A", 400).values);
    // A shallower series, evaluated at every depth, agrees with the reused rows.
    task.depth = Some(3);
    let PoolResult::Series(short) = task.run(&kgeval::NoProgress).expect("series").result else { panic!("a series") };
    for depth in 0..=3 {
        let row = short.rows.iter().find(|r| r.system == "A" && r.depth == depth).expect("row");
        assert_eq!(row.values, at("A", depth).values, "depth {depth}");
    }
}

/// The same triple judged Y, then N: the first judgment is kept and `pool ingest` says so on
/// stderr, naming both lines.
#[test]
fn conflicting_judgments_are_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let judgments = write(dir.path(), "j.txt", "a\tr\tx\tY\nb\tr\tx\tN\na\tr\tx\tN\n");
    let depths = write(dir.path(), "d.txt", "a\tr\tx\t1\nb\tr\tx\t1\n");
    let run = kgeval(&["pool", "ingest", "--judgments", &judgments, "--pool-depths", &depths, "--format", "csv"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("j.txt:3:7: found judgment N for this triple, expected Y as at line 1"), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&run.stdout), "depth,judged,positives,cumulative\n1,2,1,1\n");
}
