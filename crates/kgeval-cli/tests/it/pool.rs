//! `kgeval pool`: pools worked by hand (TREC and KGC), the kgc-sparsity positives per depth,
//! a depth series on generated data, the template layouts and bad input.

use std::path::Path;

use crate::{kgeval, kgeval_json};

const SC: &str = "testdata/kgc/kgc-sparsity/data/FB-Test-S-C";
const MINI: &str = "testdata/kgc/mini";

fn stdout(args: &[&str]) -> String {
    let out = kgeval(args);
    assert_eq!(out.status.code(), Some(0), "kgeval {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

/// Seed 004 §3: the positives each pool depth adds, rebuilt from the published annotations and
/// pool depths: 118, 169, 141, 186, 172, 179, 203, 159, 193, 195; depth ≤ 2 adds 287.
#[test]
fn kgc_sparsity_positives_per_depth() {
    let judgments = format!("{SC}/annotations.txt.gz");
    let depths = format!("{SC}/supplementary/pooling_depth.txt.gz");
    let args = ["pool", "ingest", "--judgments", judgments.as_str(), "--pool-depths", depths.as_str()];
    let json = kgeval_json(&args);
    let rows = json["depths"].as_array().expect("depths");
    let positives: Vec<u64> = rows.iter().map(|r| r["positives"].as_u64().expect("positives")).collect();
    assert_eq!(positives, [118, 169, 141, 186, 172, 179, 203, 159, 193, 195]);
    assert_eq!(rows[1]["cumulative"], 287);
    assert_eq!(rows[9]["cumulative"], 1715);
    // 22,492 judgments: the 1,023 sampled test triples (all Y, outside the pool) and the
    // 21,469 pooled triples, every one judged.
    assert_eq!((json["judged"].as_u64(), json["positives"].as_u64()), (Some(22_492), Some(2_738)));
    assert_eq!(
        (json["outside_pool"].as_u64(), json["pooled"].as_u64(), json["unjudged"].as_u64()),
        (Some(1_023), Some(21_469), Some(0))
    );
    // Text and CSV say the same.
    let text = stdout(&args);
    assert!(text.lines().nth(2).expect("depth 2").split_whitespace().eq(["2", "1536", "169", "287"]), "{text}");
    let mut csv_args = args.to_vec();
    csv_args.extend(["--format", "csv", "--max-depth", "2"]);
    assert_eq!(stdout(&csv_args), "depth,judged,positives,cumulative\n1,955,118,118\n2,1536,169,287\n");
}

/// Two TREC runs worked by hand, depth 2. A ranks q1: d1 (3.0), then d2 and d3 tied at 2.0 —
/// trec_eval's order puts d3 first (docno descending) — then d4. B ranks q1: d4, d5, d1 and q2:
/// d9. Top 2: A → d1@1, d3@2; B → d4@1, d5@2; q2: d9@1. d1 is judged in the qrels: removed.
#[test]
fn trec_pool_by_hand() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = write(dir.path(), "a.txt", "q1 Q0 d1 1 3.0 A\nq1 Q0 d2 2 2.0 A\nq1 Q0 d3 3 2.0 A\nq1 Q0 d4 4 1.0 A\n");
    let b = write(dir.path(), "b.txt", "q1 Q0 d4 1 9 B\nq1 Q0 d5 2 8 B\nq1 Q0 d1 3 7 B\nq2 Q0 d9 1 1 B\n");
    let qrels = write(dir.path(), "qrels.txt", "q1 0 d1 1\n");
    let (ra, rb) = (format!("A={a}"), format!("B={b}"));
    let out = dir.path().join("template.txt");
    let o = out.display().to_string();
    let args = ["pool", "build", "--depth", "2", "--run", &ra, "--run", &rb, "--qrels", &qrels, "-o", &o];
    let run = kgeval(&args);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(String::from_utf8_lossy(&run.stderr).contains("4 item(s) to judge, 1 already judged"));
    // qid, 0, docno, an empty relevance field, the depth.
    assert_eq!(
        std::fs::read_to_string(&out).expect("template"),
        "q1\t0\td4\t\t1\nq1\t0\td3\t\t2\nq1\t0\td5\t\t2\nq2\t0\td9\t\t1\n"
    );
    // Depth 3 adds d2 (A's 3rd); d4 is in both top 3s only for B (A ranks it 4th): one run.
    let json = kgeval_json(&["pool", "build", "--depth", "3", "--run", &ra, "--run", &rb, "--qrels", &qrels]);
    let items: Vec<(String, String, u64, u64)> = json["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            (
                i["question"].as_str().unwrap().to_owned(),
                i["item"].as_str().unwrap().to_owned(),
                i["depth"].as_u64().unwrap(),
                i["runs"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected = [("q1", "d4", 1, 1), ("q1", "d3", 2, 1), ("q1", "d5", 2, 1), ("q1", "d2", 3, 1), ("q2", "d9", 1, 1)];
    assert_eq!(items, expected.map(|(q, d, depth, runs)| (q.to_owned(), d.to_owned(), depth, runs)));
    assert_eq!(json["counts"]["judged_removed"], 1);
    assert_eq!(json["counts"]["to_judge_per_depth"], serde_json::json!([2, 2, 1]));
}

/// The mini KGC data, depth 3, worked by hand. head1 = (?, r1, e2): the run scores e5 9, e1 1
/// and e0, e2, e3, e4 0 (trec_eval's order: e4, e3, e2, e0); e5 is its test answer (known,
/// removed before counting): e1@1, e4@2, e3@3. tail0 = (e5, r0, ?): e4 5, e3 3, e1 and e0 tied
/// at 2 (e1 first), e2 1; e0 is known; e4@1, e3@2 and e1@3 — but e5 r0 e3 and e5 r0 e1 are
/// judged: only e5 r0 e4 is pooled.
const MINI_POOL: &str = "\
e0\tr0\te0\t1\ne4\tr0\te0\t2\ne3\tr0\te0\t3\n\
e1\tr1\te2\t1\ne4\tr1\te2\t2\ne3\tr1\te2\t3\n\
e2\tr2\te2\t1\ne4\tr2\te2\t2\ne3\tr2\te2\t3\n\
e5\tr0\te4\t1\n\
e5\tr1\te3\t1\ne5\tr1\te1\t2\ne5\tr1\te0\t3\n\
e5\tr2\te1\t1\ne5\tr2\te0\t2\ne5\tr2\te4\t3\n";

fn mini_build(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["pool", "build", "--depth", "3", "--test", &format!("{MINI}/test.txt"), "--filter"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    args.push(format!("{MINI}/train.txt"));
    args.extend(["--queries".into(), format!("{MINI}/questions.txt"), "--run".into(), format!("mini={MINI}/run.txt")]);
    args.extend(["--judgments".into(), format!("{MINI}/judgments.txt")]);
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args
}

#[test]
fn kgc_pool_by_hand_and_annotation_round_trip() {
    let args = mini_build(&[]);
    let text = stdout(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(text, MINI_POOL);

    // The trivial-triple filter: on train (e3 r0 e4) r0 is 1-1, so head0 (head, r0) and tail0
    // (tail, r0) are trivial: their triples stay in the pool file but are N in the annotation
    // template, after the triples to judge (blank label).
    let dir = tempfile::tempdir().expect("tempdir");
    let (pool, annotations) = (dir.path().join("pool.txt"), dir.path().join("annotations.txt"));
    let (p, a) = (pool.display().to_string(), annotations.display().to_string());
    let args = mini_build(&["--trivial-filter", "-o", &p, "--annotations", &a]);
    let out = kgeval(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("12 item(s) to judge, 2 already judged, 6 known answer(s) skipped, 4 auto-negative"));
    let pool_text = std::fs::read_to_string(&pool).expect("pool");
    let template = std::fs::read_to_string(&annotations).expect("annotations");
    let lines: Vec<&str> = template.lines().collect();
    assert_eq!(lines.len(), 16);
    assert_eq!(lines[0], "e1\tr1\te2\t");
    assert_eq!(&lines[12..], ["e0\tr0\te0\tN", "e4\tr0\te0\tN", "e3\tr0\te0\tN", "e5\tr0\te4\tN"]);
    let mut sorted_pool: Vec<&str> = pool_text.lines().collect();
    let mut expected: Vec<&str> = MINI_POOL.lines().collect();
    sorted_pool.sort_unstable();
    expected.sort_unstable();
    assert_eq!(sorted_pool, expected);

    // Fill the template (Y for every depth-1 triple to judge) and ingest it: depth 1 has
    // e1 r1 e2, e2 r2 e2, e5 r1 e3, e5 r2 e1 to judge (4 Y) and the trivial e0 r0 e0, e5 r0 e4 (N).
    let depth_of: std::collections::HashMap<&str, &str> =
        pool_text.lines().map(|l| l.rsplit_once('\t').expect("depth")).collect();
    let filled: String = template
        .lines()
        .map(|l| {
            let triple = l.rsplit_once('\t').expect("label").0;
            let label = if l.ends_with('N') {
                "N"
            } else if depth_of[triple] == "1" {
                "Y"
            } else {
                "N"
            };
            format!("{triple}\t{label}\n")
        })
        .collect();
    let filled_path = write(dir.path(), "filled.txt", &filled);
    let csv = stdout(&["pool", "ingest", "--judgments", &filled_path, "--pool-depths", &p, "--format", "csv"]);
    assert_eq!(csv, "depth,judged,positives,cumulative\n1,6,4,4\n2,5,0,4\n3,5,0,4\n");
}

/// Generated data for a depth series, worked by hand. Test: `a r x`. Judged pool: `b r x` Y
/// at depth 1, `d r x` N at depth 1, `c r x` Y at depth 2. Three systems rank head0 = (?, r, x):
/// S1 a b c d, S2 b c a d, S3 d c b a; every tail question puts x first.
///
/// micro MRR (each answer ranked among the non-answers): depth 0 (answers a; x):
/// S1 (1 + 1)/2 = 1, S2 (1/3 + 1)/2 = 2/3, S3 (1/4 + 1)/2 = 5/8. Depth 1 (a, b; x, x): S1 1,
/// S2 (1/2 + 1 + 2)/4 = 7/8, S3 (1/3 + 1/3 + 2)/4 = 2/3. Depth 2 (a, b, c; x ×3): S1 1, S2 1,
/// S3 (3 × 1/2 + 3)/6 = 3/4.
/// macro MRR (first answer of each question): depth 0: 1, 2/3, 5/8; depth 1 (3 questions):
/// 1, 1, (1/3 + 2)/3 = 7/9; depth 2 (4 questions): 1, 1, (1/2 + 3)/4 = 7/8.
#[test]
fn depth_series_by_hand() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let test = write(d, "test.txt", "a\tr\tx\n");
    let queries = write(d, "queries.txt", "head0\tx\tr\ntail0\ta\tr\ntail1\tb\tr\ntail2\tc\tr\n");
    let judgments = write(d, "judgments.txt", "a\tr\tx\tY\nb\tr\tx\tY\nd\tr\tx\tN\nc\tr\tx\tY\n");
    let depths = write(d, "depths.txt", "b\tr\tx\t1\nd\tr\tx\t1\nc\tr\tx\t2\n");
    let tails = "tail0 Q0 x 1 1 s\ntail1 Q0 x 1 1 s\ntail2 Q0 x 1 1 s\n";
    let run = |order: [&str; 4]| {
        let head: String =
            order.iter().enumerate().map(|(i, e)| format!("head0 Q0 {e} {} {} s\n", i + 1, 5 - i)).collect();
        format!("{head}{tails}")
    };
    let runs = [
        format!("S1={}", write(d, "s1.txt", &run(["a", "b", "c", "d"]))),
        format!("S2={}", write(d, "s2.txt", &run(["b", "c", "a", "d"]))),
        format!("S3={}", write(d, "s3.txt", &run(["d", "c", "b", "a"]))),
    ];
    let mut args = vec!["pool", "series", "--test", &test, "--queries", &queries, "--judgments", &judgments];
    args.extend(["--pool-depths", &depths]);
    for r in &runs {
        args.extend(["--run", r.as_str()]);
    }
    let json = kgeval_json(&args);
    let rows = json["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 9);
    let value = |system: &str, depth: u64, metric: &str| -> f64 {
        let row = rows.iter().find(|r| r["system"] == system && r["depth"] == depth).expect("row");
        row["metrics"][metric].as_f64().unwrap_or_else(|| panic!("{metric} in {row}"))
    };
    let micro = [[1.0, 1.0, 1.0], [2.0 / 3.0, 7.0 / 8.0, 1.0], [5.0 / 8.0, 2.0 / 3.0, 3.0 / 4.0]];
    let macro_ = [[1.0, 1.0, 1.0], [2.0 / 3.0, 1.0, 1.0], [5.0 / 8.0, 7.0 / 9.0, 7.0 / 8.0]];
    for (s, system) in ["S1", "S2", "S3"].iter().enumerate() {
        for depth in 0..3 {
            let (m, a) = (value(system, depth, "micro_mrr"), value(system, depth, "macro_mrr"));
            assert!((m - micro[s][depth as usize]).abs() < 1e-12, "{system} depth {depth} micro {m}");
            assert!((a - macro_[s][depth as usize]).abs() < 1e-12, "{system} depth {depth} macro {a}");
        }
    }
    assert_eq!(json["positives"][1]["cumulative"], 2);

    // Kendall tau-b against depth 0. micro MRR: depth 1 keeps S1 > S2 > S3 (1); depth 2 ties S1
    // and S2 (P = 2, Q = 0, U = 1): 2/√6. macro MRR ties S1 and S2 from depth 1 on: 2/√6.
    assert_eq!(json["reference"], "depth 0");
    let tau = |depth: u64, metric: &str| -> f64 {
        let rows = json["agreement"].as_array().expect("agreement");
        let row = rows.iter().find(|r| r["depth"] == depth && r["metric"] == metric).expect("agreement row");
        row["tau_b"].as_f64().expect("tau_b")
    };
    let two_over_root_six = 2.0 / 6f64.sqrt();
    for (depth, metric, expected) in [
        (0, "micro_mrr", 1.0),
        (1, "micro_mrr", 1.0),
        (2, "micro_mrr", two_over_root_six),
        (1, "macro_mrr", two_over_root_six),
        (2, "macro_mrr", two_over_root_six),
    ] {
        assert!((tau(depth, metric) - expected).abs() < 1e-12, "{metric} depth {depth}: {}", tau(depth, metric));
    }

    // Against another ordering (reversed: S3 > S2 > S1 on micro MRR): depth 0 is −1; depth 2
    // (S1 = S2 > S3) has P = 0, Q = 2, U = 1: −2/√6. Metrics the file lacks are left out.
    let against = write(d, "against.csv", "System,micro_mrr\nS1,0.1\nS2,0.2\nS3,0.3\n");
    let mut with_against = args.clone();
    with_against.extend(["--against", &against]);
    let other = kgeval_json(&with_against);
    let rows = other["agreement"].as_array().expect("agreement");
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(other["reference"].as_str().map(|r| r.ends_with("against.csv")), Some(true));
    assert_eq!(rows[0]["tau_b"], -1.0);
    assert!((rows[2]["tau_b"].as_f64().expect("tau") + two_over_root_six).abs() < 1e-12);

    // The same systems as dense score matrices (x scores 0 on head0, below every candidate, and
    // 10 on the tail questions, above all): the same micro and macro MRR at every depth.
    let entities = write(d, "entities.txt", "a\nb\nc\nd\nx\n");
    let matrix = |head: [f32; 4]| -> Vec<f32> {
        let mut values = head.to_vec();
        values.push(0.0);
        for _ in 0..3 {
            values.extend([0.0, 0.0, 0.0, 0.0, 10.0]);
        }
        values
    };
    let dense = [
        format!("S1={}", npy(d, "s1.npy", 4, 5, &matrix([5.0, 4.0, 3.0, 2.0]))),
        format!("S2={}", npy(d, "s2.npy", 4, 5, &matrix([3.0, 5.0, 4.0, 2.0]))),
        format!("S3={}", npy(d, "s3.npy", 4, 5, &matrix([2.0, 3.0, 4.0, 5.0]))),
    ];
    let mut dense_args = vec!["pool", "series", "--test", &test, "--queries", &queries, "--judgments", &judgments];
    dense_args.extend(["--pool-depths", &depths, "--entities", &entities]);
    for s in &dense {
        dense_args.extend(["--scores", s.as_str()]);
    }
    let dense_json = kgeval_json(&dense_args);
    for system in ["S1", "S2", "S3"] {
        for depth in 0..3u64 {
            let row = dense_json["rows"]
                .as_array()
                .expect("rows")
                .iter()
                .find(|r| r["system"] == system && r["depth"] == depth)
                .expect("row");
            for metric in ["micro_mrr", "macro_mrr"] {
                let v = row["metrics"][metric].as_f64().expect("value");
                assert!((v - value(system, depth, metric)).abs() < 1e-12, "{system} {depth} {metric}: {v}");
            }
        }
    }

    // CSV: kgc-sparsity's pooling_depth.csv layout, rows system-major then depth.
    args.extend(["--format", "csv"]);
    let csv = stdout(&args);
    let mut lines = csv.lines();
    assert!(lines.next().expect("header").starts_with("System,Depth,"));
    let keys: Vec<String> = lines.map(|l| l.split(',').take(2).collect::<Vec<_>>().join(",")).collect();
    assert_eq!(keys, ["S1,0", "S1,1", "S1,2", "S2,0", "S2,1", "S2,2", "S3,0", "S3,1", "S3,2"]);
}

/// Writes a float32 C-order `.npy` matrix (format 1.0) and returns its path.
fn npy(dir: &Path, name: &str, rows: usize, cols: usize, values: &[f32]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, crate::npy_f32(rows, cols, values.iter().copied())).expect("write npy");
    path.display().to_string()
}

/// Bad input: exit 2, a message pointing into the file, nothing written.
#[test]
fn bad_input_exit_2_nothing_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let out = d.join("out.txt");
    let o = out.display().to_string();
    let check = |args: &[&str], message: &str| {
        let run = kgeval(args);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{}: {stderr}", args.join(" "));
        assert!(stderr.contains(message), "expected {message:?} in {stderr}");
        assert!(!out.exists(), "{} written", out.display());
    };
    // A run that is not a TREC run (three fields).
    let bad_run = write(d, "bad-run.txt", "q1 d1 3.0\n");
    check(&["pool", "build", "--run", &bad_run, "-o", &o], "bad-run.txt:1:");
    // Depth 0.
    let good_run = write(d, "run.txt", "q1 Q0 d1 1 3.0 A\n");
    check(&["pool", "build", "--depth", "0", "--run", &good_run, "-o", &o], "expected a positive pool depth, found 0");
    // A judgment label other than Y, N or blank, at line 2, column 7.
    let labels = write(d, "labels.txt", "a\tr\tx\tY\nb\tr\tx\tX\n");
    let depths = write(d, "depths.txt", "b\tr\tx\t1\n");
    check(
        &["pool", "ingest", "--judgments", &labels, "--pool-depths", &depths, "-o", &o],
        "labels.txt:2:7: found judgment",
    );
    // The same file as known judgments of a KGC build: the same error, no template.
    let test = format!("{MINI}/test.txt");
    let queries = format!("{MINI}/questions.txt");
    let run = format!("{MINI}/run.txt");
    check(
        &["pool", "build", "--test", &test, "--queries", &queries, "--run", &run, "--judgments", &labels, "-o", &o],
        "labels.txt:2:7: found judgment",
    );
    // A pool depth that is not an integer.
    let bad_depths = write(d, "bad-depths.txt", "b\tr\tx\tdeep\n");
    check(&["pool", "ingest", "--judgments", &labels[..], "--pool-depths", &bad_depths, "-o", &o], "labels.txt:2:7");
    let fine = write(d, "fine.txt", "b\tr\tx\tY\n");
    check(
        &["pool", "ingest", "--judgments", &fine, "--pool-depths", &bad_depths, "-o", &o],
        "bad-depths.txt:1:7: found depth",
    );
    // TREC runs with KGC-only flags, KGC runs without the test split.
    check(&["pool", "build", "--run", &good_run, "--trivial-filter", "-o", &o], "--trivial-filter is for KGC runs");
    let args = ["pool", "build", "--run", &run, "--queries", &queries, "--test", &test, "--qrels", &fine, "-o", &o];
    let usage = kgeval(&args);
    assert_eq!(usage.status.code(), Some(2));
    assert!(!out.exists());
}

/// Every example of `kgeval pool --help` runs from the workspace root (its files written to a
/// temporary folder).
#[test]
fn help_examples_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let examples = crate::help_examples("pool");
    assert_eq!(examples.len(), 4, "{examples:?}");
    for mut args in examples {
        for i in 1..args.len() {
            if matches!(args[i - 1].as_str(), "-o" | "--annotations") {
                args[i] = dir.path().join(&args[i]).display().to_string();
            }
        }
        let out = kgeval(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    assert!(dir.path().join("annotations.txt").is_file() && dir.path().join("template.txt").is_file());
}

/// The facade: a `PoolTask` from TOML (paths relative to the manifest's folder) renders what
/// the CLI prints, byte for byte; unknown fields are errors with their position.
#[test]
fn facade_task_renders_what_the_cli_prints() {
    use kgeval::pool::{PoolAction, PoolTask};
    let manifest = r#"
action = "build"
depth = 3
test = "test.txt"
filters = ["train.txt"]
queries = "questions.txt"
runs = ["mini=run.txt"]
judgments = "judgments.txt"
"#;
    let task: PoolTask = kgeval::from_toml(manifest, "pool.toml").expect("task");
    assert_eq!(task.action, PoolAction::Build);
    let outcome = task.resolved(&crate::root().join(MINI)).run(&kgeval::NoProgress).expect("pool");
    let options = kgeval::RenderOptions { version: env!("CARGO_PKG_VERSION").to_owned(), ..Default::default() };
    let args = mini_build(&[]);
    let mut cli: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(outcome.render(kgeval::OutputFormat::Text, &options), stdout(&cli));
    for (format, name) in [
        (kgeval::OutputFormat::Json, "json"),
        (kgeval::OutputFormat::Csv, "csv"),
        (kgeval::OutputFormat::Markdown, "markdown"),
    ] {
        cli.extend(["--format", name]);
        assert_eq!(outcome.render(format, &options), stdout(&cli), "{name}");
        cli.truncate(cli.len() - 2);
    }
    let error = kgeval::from_toml::<PoolTask>("action = \"ingest\"\ndepht = 3\n", "pool.toml").unwrap_err();
    assert!(error.to_string().starts_with("pool.toml:2:1: unknown field `depht`"), "{error}");
    // Ingest without its inputs: a one-line error naming the flag.
    let error = PoolTask::new(PoolAction::Ingest).run(&kgeval::NoProgress).unwrap_err();
    assert_eq!(error.to_string(), "pool ingest: expected --judgments FILE");
}

/// The labels of the published depth series: FB-Test-S (1,023 sampled triples) plus the judged
/// positives up to depth d. Depth 2 adds 287 triples; depth 10 is exactly FB-Test-S-C's
/// `test.txt` (2,738 triples, as a set).
#[test]
fn series_splits_rebuild_fb_test_s_c() {
    use kgeval::pool::{PoolAction, PoolTask};
    let root = crate::root();
    let mut task = PoolTask::new(PoolAction::Series);
    task.test = Some(root.join("testdata/kgc/kgc-sparsity/data/FB-Test-S/samples.txt").into());
    task.judgments = Some(root.join(SC).join("annotations.txt.gz").into());
    task.pool_depths = Some(root.join(SC).join("supplementary/pooling_depth.txt.gz").into());
    let lines = |depth: u32| -> Vec<String> {
        let text = task.series_split(depth).expect("split");
        text.lines().map(str::to_owned).collect()
    };
    assert_eq!(lines(0).len(), 1_023);
    assert_eq!(lines(2).len(), 1_023 + 287);
    let mut ten = lines(10);
    ten.sort_unstable();
    let published = {
        use std::io::Read as _;
        let file = std::fs::File::open(root.join(SC).join("test.txt.gz")).expect("S-C test");
        let mut text = String::new();
        flate2::read::GzDecoder::new(file).read_to_string(&mut text).expect("gzip");
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        lines.sort_unstable();
        lines
    };
    assert_eq!(ten.len(), 2_738);
    assert_eq!(ten, published);
}

/// `-o` and `--annotations` are written together or not at all: an unwritable `-o` leaves no
/// annotation template (and no temporary file) behind.
#[test]
fn nothing_written_when_one_output_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let annotations = dir.path().join("annotations.txt");
    let bad = dir.path().join("no-such-dir").join("pool.txt");
    let (a, p) = (annotations.display().to_string(), bad.display().to_string());
    let args = mini_build(&["-o", &p, "--annotations", &a]);
    let out = kgeval(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let left: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").collect();
    assert!(left.is_empty(), "{left:?}");
}
