//! Partitioned evaluation: random partitions (1–16) of generated runs, their accumulators
//! merged in random orders, give the same bytes whatever the order, and trec_eval's text of
//! the one-machine evaluation byte for byte, every value within 1e-12.

use kgeval::trec::{RunAccumulator, TrecTask};
use kgeval::{FamilyResult, OutputFormat, RenderOptions};
use kgeval_model::trec::{Qrels, Run};
use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, RngSeed};

/// A generated qrels and run: topics `t0..`, heavy ties, graded and unjudged documents, run
/// topics without qrels and qrels topics without run lines.
#[derive(Debug, Clone)]
struct Case {
    qrels: Qrels,
    /// Per run topic: (qid, [(docno, score)]).
    topics: Vec<(String, Vec<(String, f64)>)>,
}

fn case() -> impl Strategy<Value = Case> {
    let doc = (0u32..40, prop_oneof![(0u32..6).prop_map(|s| f64::from(s) / 4.0), -1.0..1.0f64]);
    let topic = (proptest::collection::vec(doc, 0..30), proptest::collection::vec((0u32..40, -1i64..4), 0..12));
    proptest::collection::vec((topic, 0u8..10), 1..40).prop_map(|topics| {
        let mut qrels = Qrels::new();
        let mut run_topics = Vec::new();
        for (i, ((docs, judged), kind)) in topics.into_iter().enumerate() {
            let qid = format!("t{i}");
            if kind != 0 && !judged.is_empty() {
                let judgments = qrels.topic_mut(&qid);
                for (d, rel) in judged {
                    judgments.insert(&format!("d{d}"), rel);
                }
            }
            if kind != 1 {
                let mut seen = std::collections::BTreeSet::new();
                let docs: Vec<(String, f64)> =
                    docs.into_iter().filter(|(d, _)| seen.insert(*d)).map(|(d, s)| (format!("d{d}"), s)).collect();
                if !docs.is_empty() {
                    run_topics.push((qid, docs));
                }
            }
        }
        Case { qrels, topics: run_topics }
    })
}

fn run_of(topics: &[&(String, Vec<(String, f64)>)]) -> Run {
    let mut run = Run { run_id: "tag".into(), ..Run::default() };
    for (qid, docs) in topics {
        for (docno, score) in docs {
            run.push(qid, docno, *score);
        }
    }
    run
}

/// Merges `parts` left to right in `order`, or as a balanced tree when `tree`.
fn merged(parts: &[RunAccumulator], order: &[usize], tree: bool) -> RunAccumulator {
    let mut items: Vec<RunAccumulator> = order.iter().map(|&i| parts[i].clone()).collect();
    if !tree {
        let mut first = items.remove(0);
        for item in &items {
            first.merge(item).expect("disjoint partitions merge");
        }
        return first;
    }
    while items.len() > 1 {
        let mut next = Vec::new();
        for pair in items.chunks(2) {
            let mut a = pair[0].clone();
            if let Some(b) = pair.get(1) {
                a.merge(b).expect("disjoint partitions merge");
            }
            next.push(a);
        }
        items = next;
    }
    items.remove(0)
}

fn summary(evaluation: &kgeval::Evaluation) -> Vec<f64> {
    let FamilyResult::Trec(result) = &evaluation.result else { panic!("trec") };
    result.runs[0].summary.clone()
}

fn ranges(evaluation: &kgeval::Evaluation) -> Vec<(f64, f64)> {
    let FamilyResult::Trec(result) = &evaluation.result else { panic!("trec") };
    result.runs[0].summary_ranges.clone()
}

fn check(task: &TrecTask, case: &Case, assignment: &[usize], parts: usize, orders: &[Vec<usize>]) {
    let whole = run_of(&case.topics.iter().collect::<Vec<_>>());
    let one = task.run_in_memory(&case.qrels, "qrels", &[("run".to_owned(), whole)]);
    let accumulators: Vec<RunAccumulator> = (0..parts)
        .map(|p| {
            let topics: Vec<_> =
                case.topics.iter().zip(assignment).filter(|(_, &a)| a % parts == p).map(|(t, _)| t).collect();
            // Compact: exact sums only.
            let mut accumulator =
                task.accumulate_in_memory(&case.qrels, &run_of(&topics)).expect("partition").accumulator;
            accumulator.forget_topics();
            accumulator
        })
        .collect();
    let first = merged(&accumulators, &orders[0], false);
    let bytes = first.to_bytes();
    for (i, order) in orders.iter().enumerate() {
        let other = merged(&accumulators, order, i % 2 == 1);
        assert_eq!(other.to_bytes(), bytes, "merge order {order:?}");
        assert_eq!(other, first);
    }
    let back = RunAccumulator::from_bytes(&bytes).expect("reads");
    let finalized = task.finalize_accumulators(Some(&case.qrels), "qrels", vec![("run".to_owned(), back)]);
    match (one, finalized) {
        (Ok(one), Ok(finalized)) => {
            let (a, b) = (summary(&one), summary(&finalized));
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() <= 1e-12 * x.abs().max(1.0), "{x} vs {y}");
            }
            let text = |e: &kgeval::Evaluation| e.render(OutputFormat::Text, &RenderOptions::default());
            let mut every = a;
            for (x, y) in ranges(&one).iter().zip(ranges(&finalized)) {
                assert!(
                    (x.0 - y.0).abs() <= 1e-12 * x.0.abs().max(1.0) && (x.1 - y.1).abs() <= 1e-12 * x.1.abs().max(1.0)
                );
                every.extend([x.0, x.1]);
            }
            same_text_but_knife_edges(&text(&one), &text(&finalized), &every);
            assert_eq!(finalized.warnings[0].diagnostic.message, one.warnings[0].diagnostic.message);
        }
        (Err(_), Err(_)) => {}
        (one, finalized) => panic!("one machine {:?}, merged {:?}", one.map(|_| ()), finalized.map(|_| ())),
    }
    // With their topics kept (the ledger, the default), the merged partitions are the
    // one-machine run byte for byte: summary, per-topic rows, note.
    let kept: Vec<RunAccumulator> = (0..parts)
        .map(|p| {
            let topics: Vec<_> =
                case.topics.iter().zip(assignment).filter(|(_, &a)| a % parts == p).map(|(t, _)| t).collect();
            let accumulator = task.accumulate_in_memory(&case.qrels, &run_of(&topics)).expect("partition").accumulator;
            assert!(accumulator.keeps_topics());
            accumulator
        })
        .collect();
    let ledger = merged(&kept, orders.last().map_or(&[][..], Vec::as_slice), true);
    assert_eq!(RunAccumulator::from_bytes(&ledger.to_bytes()).expect("reads"), ledger);
    let whole = run_of(&case.topics.iter().collect::<Vec<_>>());
    let one = task.run_in_memory(&case.qrels, "qrels", &[("run".to_owned(), whole)]);
    let finalized = task.finalize_accumulators(Some(&case.qrels), "qrels", vec![("run".to_owned(), ledger)]);
    if let (Ok(one), Ok(finalized)) = (&one, &finalized) {
        let options = RenderOptions {
            trec_lines: kgeval::TrecTextLines { per_topic: true, summary: true },
            ..RenderOptions::default()
        };
        let (a, b) = (finalized.render(OutputFormat::Text, &options), one.render(OutputFormat::Text, &options));
        for (x, y) in a.lines().zip(b.lines()) {
            assert_eq!(x, y);
        }
        assert_eq!(a, b);
        assert_eq!(summary(finalized), summary(one));
        assert_eq!(finalized.warnings[0].diagnostic.message, one.warnings[0].diagnostic.message);
    } else {
        assert_eq!(one.is_ok(), finalized.is_ok());
    }
}

/// The texts are equal line by line, except where a printed number is a 4th-decimal
/// knife-edge: the one-machine value within 1e-12 of a rounding boundary (`x.xxxx5`), where
/// trec_eval's sequential sum and the correctly rounded exact mean may round either way
/// (docs/trec.md, "Partitioned evaluation"). Those lines must differ by one unit of the 4th
/// decimal in such numbers only.
fn same_text_but_knife_edges(one: &str, merged: &str, values: &[f64]) {
    let mut differing = 0;
    let (one, merged): (Vec<&str>, Vec<&str>) = (one.lines().collect(), merged.lines().collect());
    assert_eq!(one.len(), merged.len());
    for (a, b) in one.iter().zip(&merged) {
        if a == b {
            continue;
        }
        differing += 1;
        let numbers = |line: &str| -> Vec<f64> {
            line.split(['\t', '[', ']', ',', ' ']).filter_map(|f| f.parse::<f64>().ok()).collect()
        };
        let (x, y) = (numbers(a), numbers(b));
        assert_eq!(x.len(), y.len(), "{a} vs {b}");
        for (p, q) in x.iter().zip(&y) {
            if p != q {
                assert!((p - q).abs() <= 1.000_001e-4, "{a} vs {b}");
                let boundary = (p.min(*q) * 1e4).floor() / 1e4 + 0.5e-4;
                // Some summary value of the run sits on that boundary.
                assert!(
                    values.iter().any(|v| (v.abs() - boundary.abs()).abs() < 1e-12),
                    "not a knife-edge: {a} vs {b}"
                );
                eprintln!("knife-edge: {a:?} vs {b:?}");
            }
        }
    }
    eprintln!("case: {differing} of {} summary lines at a knife-edge", one.len());
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 48,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(0x5eed_0030),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn partitions_merge_to_the_one_machine_text(
        case in case(),
        parts in 1usize..=16,
        assignment in proptest::collection::vec(0usize..16, 40),
        orders in proptest::collection::vec(Just((0..16).collect::<Vec<usize>>()).prop_shuffle(), 3),
        complete in any::<bool>(),
        ties in prop_oneof![Just("trec"), Just("expected"), Just("range")],
    ) {
        let mut task = TrecTask::new("qrels").measure("all_trec");
        task.complete = complete;
        task.ties = kgeval_model::trec::Ties::from_name(ties).expect("policy");
        let orders: Vec<Vec<usize>> = orders.into_iter().map(|o| o.into_iter().filter(|&i| i < parts).collect()).collect();
        check(&task, &case, &assignment, parts, &orders);
    }
}

#[test]
fn a_topic_in_two_partitions_is_an_error() {
    let mut qrels = Qrels::new();
    qrels.topic_mut("q1").insert("d1", 1);
    let mut run = Run::default();
    run.push("q1", "d1", 1.0);
    let task = TrecTask::new("qrels").measure("map");
    let mut a = task.accumulate_in_memory(&qrels, &run).expect("partition").accumulator;
    let b = a.clone();
    let error = a.merge(&b).expect_err("q1 twice");
    assert_eq!(
        error.to_string(),
        "1 topics are in two partitions (the first: q1), expected each topic in one partition"
    );
    // Nothing was merged.
    assert_eq!(a, b);
    let other = TrecTask::new("qrels").measure("P.5").accumulate_in_memory(&qrels, &Run::default()).expect("empty");
    assert!(a.merge(&other.accumulator).is_err());
    let complete = TrecTask { complete: true, ..task.clone() };
    let c = complete.accumulate_in_memory(&qrels, &Run::default()).expect("empty").accumulator;
    assert!(complete.finalize_accumulators(None, "qrels", vec![("run".into(), c)]).is_err());
    assert!(RunAccumulator::from_bytes(b"KGEVACC\0\x01\x02\x00").is_err());
    // The ledger: only the partition's own topics; kept by a merge only when both sides keep it.
    let mut other_run = Run::default();
    other_run.push("q2", "d1", 1.0);
    qrels.topic_mut("q2").insert("d1", 1);
    let mut other = task.accumulate_in_memory(&qrels, &other_run).expect("partition");
    let mut kept = task.accumulate_in_memory(&qrels, &run).expect("partition");
    assert!(kept.accumulator.keep_topics(&other.evaluation).is_err());
    kept.accumulator.keep_topics(&kept.evaluation).expect("its own topics");
    other.accumulator.forget_topics();
    let mut mixed = kept.accumulator.clone();
    mixed.merge(&other.accumulator).expect("disjoint");
    assert!(kept.accumulator.keeps_topics() && !mixed.keeps_topics());
    let mut bytes = a.to_bytes();
    bytes.pop();
    assert!(RunAccumulator::from_bytes(&bytes).is_err());
}
