//! `kgeval kgc` end to end: the mini case (PyKEEN's fixture) from ranks, scores and a run; the
//! popularity baseline on FB15k-237; published kgc-sparsity numbers (relation categories,
//! relation-weighted micro metrics, pool-depth positives); malformed inputs.

use kgeval_formats::kgc::{read_judgments_file, read_pool_depths_file, read_triples_file};
use kgeval_metrics::kgc::{depth_series_positives, relation_categories, relation_counts, weighted_summary};
use kgeval_model::kgc::{CategoryRule, KgcVocabulary, RelationCategory};
use kgeval_model::rank::results::RankSummary;

use crate::{assert_clean_failure, f, kgeval, kgeval_json, root};

const MINI: &str = "testdata/kgc/mini";
const FB: &str = "testdata/kgc/fb15k-237";
const SPARSITY: &str = "testdata/kgc/kgc-sparsity";
/// The element types the `.npy` reader accepts, as its refusal lists them.
const ACCEPTED_DTYPES: &str =
    "expected float64, float32 or float16 ('<f8', '<f4', '<f2', or big-endian '>f8', '>f4', '>f2')";

fn mini(input: &[&str]) -> Vec<String> {
    let mut args: Vec<String> =
        ["kgc", "--test", "testdata/kgc/mini/test.txt", "--filter", "testdata/kgc/mini/train.txt", "--k", "1"]
            .map(str::to_owned)
            .to_vec();
    args.extend(input.iter().map(|s| (*s).to_owned()));
    args
}

fn json(args: &[String]) -> serde_json::Value {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    kgeval_json(&args)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-7
}

/// The spec's hand-checked values on the tail side (realistic ranks [3.5, 2, 1], N = [5, 5, 4]).
pub(crate) fn assert_fixture_tail(tail: &serde_json::Value) {
    for (metric, value) in [
        ("micro_mr", 2.1666667),
        ("micro_mrr", 0.5952381),
        ("micro_hits@1", 1.0 / 3.0),
        ("micro_expected_mr", 2.8333333),
        ("micro_amr", 0.7647059),
        ("micro_amri", 0.3636364),
        ("micro_zmr", 0.8728716),
        ("micro_expected_mrr", 0.4780556),
        ("micro_amrr", 0.2245115),
        ("micro_zmrr", 0.6989267),
        ("micro_expected_hits@1", 0.2166667),
        ("micro_ahits@1", 0.1489362),
        ("micro_zhits@1", 0.4913037),
    ] {
        assert!(close(f(tail, metric), value), "{metric}: {} vs {value}", f(tail, metric));
    }
}

#[test]
fn mini_case_from_ranks_and_from_scores() {
    let entities = format!("{MINI}/entities.txt");
    let from_ranks = json(&mini(&["--ranks", "testdata/kgc/mini/ranks.tsv"]));
    let from_scores = json(&mini(&[
        "--entities",
        &entities,
        "--scores",
        "testdata/kgc/mini/scores.npy",
        "--questions",
        "testdata/kgc/mini/questions.txt",
        "--nan",
        "worst",
    ]));
    for v in [&from_ranks, &from_scores] {
        let s = &v["systems"][0];
        assert_fixture_tail(&s["scopes"]["tail"]);
        assert_eq!(f(&s["scopes"]["head"], "micro_mrr"), 1.0);
        assert_eq!(s["ties"]["tied_answers"], 1);
        assert_eq!(s["conventions"]["tie_policy"], "realistic");
    }
    assert_eq!(from_ranks["systems"][0]["scopes"], from_scores["systems"][0]["scopes"]);
    // Other tie policies on the counts: tail ranks [3, 2, 1], [4, 2, 1], rounded mean [4, 2, 1]
    // (the tie of two at ranks 3 and 4: mean 3.5, rounded up).
    for (ties, mr) in [("optimistic", 2.0), ("pessimistic", 7.0 / 3.0), ("rounded-mean", 7.0 / 3.0)] {
        let v = json(&mini(&["--ranks", "testdata/kgc/mini/ranks.tsv", "--ties", ties]));
        let tail = &v["systems"][0]["scopes"]["tail"];
        assert!(close(f(tail, "micro_mr"), mr), "{ties}");
        assert_eq!(v["systems"][0]["conventions"]["tie_policy"], ties);
    }
    // expected: the tie of two at 3 and 4 is rank 3 or 4 with probability 1/2 each, so its
    // reciprocal rank is (1/3 + 1/4)/2, not realistic's 1/3.5; the mean rank is realistic's.
    let expected = json(&mini(&["--ranks", "testdata/kgc/mini/ranks.tsv", "--ties", "expected"]));
    let realistic = json(&mini(&["--ranks", "testdata/kgc/mini/ranks.tsv", "--ties", "realistic"]));
    let (tail, realistic_tail) =
        (&expected["systems"][0]["scopes"]["tail"], &realistic["systems"][0]["scopes"]["tail"]);
    assert!(close(f(tail, "micro_mrr"), ((1.0 / 3.0 + 0.25) / 2.0 + 0.5 + 1.0) / 3.0));
    assert!(close(f(realistic_tail, "micro_mrr"), (1.0 / 3.5 + 0.5 + 1.0) / 3.0));
    assert!(close(f(tail, "micro_mr"), f(realistic_tail, "micro_mr")));
    assert_eq!(expected["systems"][0]["conventions"]["tie_policy"], "expected");
}

/// A run ranks as trec_eval does: the tie of e0 and e1 at 2 puts e1 first (docno
/// descending), so the tail ranks are [4, 2, 1]; the IR list is the run itself.
#[test]
fn mini_case_from_a_run() {
    let v = json(&mini(&["--run", "testdata/kgc/mini/run.txt", "--queries", "testdata/kgc/mini/questions.txt"]));
    let s = &v["systems"][0];
    assert!(close(f(&s["scopes"]["tail"], "micro_mr"), 7.0 / 3.0));
    assert!(close(f(&s["scopes"]["both"], "macro_mrr"), (3.0 + 0.25 + 0.5 + 1.0) / 6.0));
    // AP@20 of one relevant document at rank r is 1 / r.
    assert!(close(f(&s["scopes"]["both"], "map_cut_20"), (3.0 + 0.25 + 0.5 + 1.0) / 6.0));
    assert_eq!(s["system"], "run");
    // Judgments as qrels: e1, a non-answer of tail0 at rank 3, judged Y: AP@20 of tail0 goes
    // from 1/4 to (1/3 + 2/4) / 2. The pool brought e1 in at depth 2: at depth 1 it is out.
    let judged = ["--judgments", "testdata/kgc/mini/judgments.txt"];
    let with_depth = |depth: &'static str| {
        let mut args = mini(&["--run", "testdata/kgc/mini/run.txt", "--queries", "testdata/kgc/mini/questions.txt"]);
        args.extend(judged.map(str::to_owned));
        if !depth.is_empty() {
            args.extend(
                ["--pool-depths", "testdata/kgc/mini/pool_depths.txt", "--max-depth", depth].map(str::to_owned),
            );
        }
        f(&json(&args)["systems"][0]["scopes"]["both"], "map_cut_20")
    };
    let judged_ap = (1.0 / 3.0 + 0.5) / 2.0;
    assert!(close(with_depth(""), (3.0 + judged_ap + 0.5 + 1.0) / 6.0));
    assert!(close(with_depth("2"), (3.0 + judged_ap + 0.5 + 1.0) / 6.0));
    assert!(close(with_depth("1"), (3.0 + 0.25 + 0.5 + 1.0) / 6.0));
    // Micro and macro rank metrics do not use the judgments.
    assert_eq!(f(&s["scopes"]["both"], "macro_mrr"), {
        let mut args = mini(&["--run", "testdata/kgc/mini/run.txt", "--queries", "testdata/kgc/mini/questions.txt"]);
        args.extend(judged.map(str::to_owned));
        f(&json(&args)["systems"][0]["scopes"]["both"], "macro_mrr")
    });
}

#[test]
fn written_questions_are_the_mini_question_list() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("questions.txt");
    let args = mini(&["--write-questions", out.to_str().expect("utf-8")]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = kgeval(&args);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(run.stdout.is_empty());
    let expected = std::fs::read(root().join(MINI).join("questions.txt")).expect("questions");
    assert_eq!(std::fs::read(&out).expect("written"), expected);

    // With a system input, the list is written from the evaluation's own read, and only when
    // the evaluation succeeds.
    std::fs::remove_file(&out).expect("remove");
    let ranks = format!("{MINI}/ranks.tsv");
    let args = mini(&["--write-questions", out.to_str().expect("utf-8"), "--ranks", &ranks]);
    let run = kgeval(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(std::fs::read(&out).expect("written"), expected);
    std::fs::remove_file(&out).expect("remove");
    let args =
        mini(&["--write-questions", out.to_str().expect("utf-8"), "--ranks", "testdata/kgc/bad/ranks-repeated.tsv"]);
    let run = kgeval(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run.status.code(), Some(2));
    assert!(!out.exists(), "nothing written on failure");

    // An unwritable -o: the question list is not written either.
    let bad = dir.path().join("no-such-dir").join("out.json");
    let args = mini(&[
        "--write-questions",
        out.to_str().expect("utf-8"),
        "--ranks",
        &ranks,
        "-o",
        bad.to_str().expect("utf-8"),
    ]);
    let run = kgeval(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run.status.code(), Some(2), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0, "nothing written when -o fails");
}

/// The popularity baseline (`testdata/kgc/baseline/make_popularity_ranks.py`) on FB15k-237:
/// the values its naive Python implementation prints, for every tie policy.
#[test]
fn fb15k237_popularity_baseline() {
    let base = [
        "kgc",
        "--test",
        "testdata/kgc/fb15k-237/test.txt.gz",
        "--filter",
        "testdata/kgc/fb15k-237/train.txt.gz",
        "--filter",
        "testdata/kgc/fb15k-237/valid.txt.gz",
        "--entities",
        "testdata/kgc/fb15k-237/entities.txt.gz",
        "--ranks",
        "testdata/kgc/baseline/popularity-ranks.tsv.gz",
    ];
    #[allow(clippy::type_complexity)]
    let expected: [(&str, (f64, f64, [f64; 3]), (f64, f64, [f64; 3])); 4] = [
        (
            "realistic",
            (1394.9279048177466, 0.23341932824975833, [0.16996481970096747, 0.25002443076321706, 0.3541483435942539]),
            (768.0167177242888, 0.33625511495116833, [0.2575929978118162, 0.36310722100656456, 0.4848140043763676]),
        ),
        (
            "optimistic",
            (275.55672823219, 0.2597355315116254, [0.19378481383758428, 0.2771181471709176, 0.38693442783152543]),
            (160.07343544857767, 0.3442123086672003, [0.26424507658643326, 0.37299781181619257, 0.4989496717724289]),
        ),
        (
            "pessimistic",
            (2514.2990814033033, 0.23049393016116224, [0.16996481970096747, 0.24855858497019448, 0.34953092934623275]),
            (1375.96, 0.3334759140854208, [0.2575929978118162, 0.3618818380743983, 0.4813566739606127]),
        ),
        (
            "rounded-mean",
            (1395.0998973907945, 0.23205849483842197, [0.16996481970096747, 0.25002443076321706, 0.3541483435942539]),
            (768.1554048140043, 0.3348537586326646, [0.2575929978118162, 0.36310722100656456, 0.4848140043763676]),
        ),
    ];
    for (ties, micro, macro_values) in expected {
        let mut args = base.to_vec();
        args.extend(["--ties", ties]);
        let v = kgeval_json(&args);
        let s = &v["systems"][0];
        let both = &s["scopes"]["both"];
        for (prefix, (mr, mrr, hits)) in [("micro", micro), ("macro", macro_values)] {
            assert!((f(both, &format!("{prefix}_mr")) - mr).abs() < 1e-9, "{ties} {prefix}_mr");
            assert!((f(both, &format!("{prefix}_mrr")) - mrr).abs() < 1e-12, "{ties} {prefix}_mrr");
            for (k, h) in [1, 3, 10].into_iter().zip(hits) {
                assert!((f(both, &format!("{prefix}_hits@{k}")) - h).abs() < 1e-12, "{ties} {prefix}_hits@{k}");
            }
        }
        assert_eq!((s["ties"]["answers"].as_u64(), s["ties"]["questions"].as_u64()), (Some(40_932), Some(22_850)));
        assert_eq!(s["ties"]["tied_answers"], 26_348);
        // Relation categories from train: kgc-sparsity's 17 / 26 / 86 / 108.
        let counts = &s["category_counts"];
        assert_eq!([&counts["1-1"], &counts["1-N"], &counts["N-1"], &counts["N-N"]], [17, 26, 86, 108]);
    }
}

/// LibKGE's rule on the FB15k-237 train split reproduces kgc-sparsity's `type_information/`
/// for all 237 relations (17 / 26 / 86 / 108).
#[test]
fn relation_categories_match_kgc_sparsity() {
    let mut vocabulary = KgcVocabulary::open();
    let train = read_triples_file(&root().join(FB).join("train.txt.gz"), &mut vocabulary).expect("train");
    let rule = CategoryRule { threshold: 1.5, inclusive: false, source: "train.txt".into() };
    let categories = relation_categories(&train.triples, &rule);
    assert_eq!(categories.len(), 237);
    let mut matched = 0;
    for category in RelationCategory::ALL {
        let path = root().join(SPARSITY).join(format!("data/FB-Test-O/type_information/{}.txt", category.long_name()));
        let listed = std::fs::read_to_string(path).expect("type file");
        let names: Vec<&str> = listed.lines().filter(|l| !l.is_empty()).collect();
        let ours: Vec<&str> = categories
            .iter()
            .filter(|c| c.category == category)
            .map(|c| vocabulary.relations.resolve(c.relation))
            .collect();
        assert_eq!(ours.len(), names.len(), "{category}");
        matched += names.iter().filter(|n| ours.contains(n)).count();
    }
    assert_eq!(matched, 237);
    // On train + valid + test instead, 4 relations move (233 / 237 agree).
    let mut all = train.triples;
    for split in ["valid", "test"] {
        all.extend(
            read_triples_file(&root().join(FB).join(format!("{split}.txt.gz")), &mut vocabulary)
                .expect("split")
                .triples,
        );
    }
    let moved = relation_categories(&all, &rule)
        .iter()
        .filter(|c| categories.iter().any(|t| t.relation == c.relation && t.category != c.category))
        .count();
    assert_eq!(moved, 4);
}

/// `lp_sample_rel_dist.csv` = Σ_r w_r M_r / Σ_r w_r with M_r from `lp_per_rel.csv` and w_r the
/// triples of relation r in FB-Test-S `samples.txt`, for every system and column.
#[test]
fn relation_weights_reproduce_lp_sample_rel_dist() {
    let mut vocabulary = KgcVocabulary::open();
    let samples =
        read_triples_file(&root().join(SPARSITY).join("data/FB-Test-S/samples.txt"), &mut vocabulary).expect("samples");
    let weights = relation_counts(&samples.triples);
    let per_rel = kgeval_formats::Input::path(root().join(SPARSITY).join("result/FB-Test-S-C/lp_per_rel.csv.gz"))
        .open()
        .expect("csv")
        .bytes()
        .to_vec();
    let per_rel = String::from_utf8(per_rel).expect("utf-8");
    let expected =
        std::fs::read_to_string(root().join(SPARSITY).join("result/FB-Test-S-C/lp_sample_rel_dist.csv")).expect("csv");
    // System → per relation: hits@1..10, mr, mrr.
    let mut systems: Vec<(String, Vec<(kgeval_model::TermId, RankSummary)>)> = Vec::new();
    for line in per_rel.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let values: Vec<f64> = cells[2..].iter().map(|c| c.parse().expect("number")).collect();
        let summary = RankSummary {
            queries: 1,
            mrr: values[11],
            hits: (1..=10).map(|k| (k, values[k as usize - 1])).collect(),
            mean_rank: Some(values[10]),
            ranked: 1,
            gold_tied: 0,
        };
        let relation = vocabulary.relations.intern(cells[1]);
        match systems.iter_mut().find(|(s, _)| s == cells[0]) {
            Some((_, list)) => list.push((relation, summary)),
            None => systems.push((cells[0].to_owned(), vec![(relation, summary)])),
        }
    }
    let rows: Vec<&str> = expected.lines().skip(1).collect();
    assert_eq!((systems.len(), rows.len()), (13, 13));
    for ((system, per_relation), row) in systems.iter().zip(rows) {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells[0], system);
        let (weighted, missing) = weighted_summary(per_relation, &weights);
        assert!(missing.is_empty(), "{system}: sampled relations without a value");
        let want: Vec<f64> = cells[1..].iter().map(|c| c.parse().expect("number")).collect();
        for k in 1..=10u32 {
            assert!((weighted.hits_at(k).expect("k") - want[k as usize - 1]).abs() < 1e-12, "{system} hits@{k}");
        }
        assert!((weighted.mean_rank.expect("mr") - want[10]).abs() < 1e-9, "{system} mr");
        assert!((weighted.mrr - want[11]).abs() < 1e-12, "{system} mrr");
    }
}

/// Seed 004 §3: the pooled triples judged Y per pool depth 1..10, and the 287 of depth ≤ 2.
#[test]
fn pool_depth_positives() {
    let mut vocabulary = KgcVocabulary::open();
    let judgments =
        read_judgments_file(&root().join(SPARSITY).join("data/FB-Test-S-C/annotations.txt.gz"), &mut vocabulary)
            .expect("annotations");
    let pool = read_pool_depths_file(
        &root().join(SPARSITY).join("data/FB-Test-S-C/supplementary/pooling_depth.txt.gz"),
        &mut vocabulary,
    )
    .expect("pool");
    let positives = depth_series_positives(&judgments.judgments, &pool, 10);
    assert_eq!(positives, [118, 169, 141, 186, 172, 179, 203, 159, 193, 195]);
    assert_eq!(positives[..2].iter().sum::<usize>(), 287);
    assert_eq!(positives.iter().sum::<usize>(), 1_715);
}

#[test]
fn malformed_inputs_fail_cleanly() {
    let dir = root().join("testdata/kgc/bad");
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("README");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("bad")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "README.md")
        .collect();
    files.sort();
    assert!(files.len() >= 15);
    let out_dir = tempfile::tempdir().expect("tempdir");
    for name in &files {
        assert!(readme.contains(&format!("`{name}`")), "{name} is not described in the README");
        let file = format!("testdata/kgc/bad/{name}");
        let out_path = out_dir.path().join(format!("{name}.out"));
        let out_arg = out_path.to_str().expect("utf-8");
        let mut args: Vec<&str> = vec!["kgc", "-o", out_arg, "--entities", "testdata/kgc/mini/entities.txt"];
        let scores = ["--scores", "testdata/kgc/mini/scores.npy", "--nan", "worst"];
        match name.split('-').next() {
            Some("test") => args.extend(["--test", &file, "--ranks", "testdata/kgc/mini/ranks.tsv"]),
            Some("ranks") => args.extend(["--test", "testdata/kgc/mini/test.txt", "--ranks", &file]),
            Some("questions") => {
                args.extend(["--test", "testdata/kgc/mini/test.txt", "--questions", &file]);
                args.extend(scores);
            }
            _ => args.extend([
                "--test",
                "testdata/kgc/mini/test.txt",
                "--scores",
                &file,
                "--questions",
                "testdata/kgc/mini/questions.txt",
            ]),
        }
        let out = kgeval(&args);
        if name.ends_with(".npy") {
            // A binary file has no line: `error: FILE: found …, expected …`.
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
            assert!(
                stderr.trim_end().lines().last().unwrap_or_default().starts_with(&format!("error: {file}: found ")),
                "{name}: {stderr}"
            );
            assert!(!out_path.exists() && out.stdout.is_empty(), "{name}: output written");
            if name.starts_with("scores-") && !name.contains("shape") {
                // An element type kgeval does not read: the ones it reads are listed.
                assert!(stderr.contains(": found dtype '") && stderr.contains(ACCEPTED_DTYPES), "{name}: {stderr}");
            }
        } else {
            assert_clean_failure(name, &out, &file, &out_path);
        }
    }
    // NaN scores without --nan worst: located at row and column.
    let out_path = out_dir.path().join("nan.out");
    let out = kgeval(&[
        "kgc",
        "--test",
        "testdata/kgc/mini/test.txt",
        "--entities",
        "testdata/kgc/mini/entities.txt",
        "--scores",
        "testdata/kgc/mini/scores.npy",
        "--questions",
        "testdata/kgc/mini/questions.txt",
        "-o",
        out_path.to_str().expect("utf-8"),
    ]);
    assert_clean_failure("NaN", &out, "testdata/kgc/mini/scores.npy", &out_path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error: testdata/kgc/mini/scores.npy:4:6: found a NaN score (question tail0, entity column 6)"),
        "{stderr}"
    );
}
