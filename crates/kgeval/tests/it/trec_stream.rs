//! `TrecTask::topic_stream` / `run_streams`: a run handed over topic by topic, in any order and
//! from several threads, evaluates exactly as the same entries in a `Run` do, with the same
//! checks.

use std::sync::Arc;

use kgeval::trec::{InternedRun, TopicStream, TrecTask};
use kgeval::{Evaluation, FamilyResult};
use kgeval_model::trec::{Qrels, Run, RunDoc};

use crate::trec_interned::message;

/// A run as topics: (qid, [(docno, score)]) in input order.
type Topics = Vec<(String, Vec<(String, f64)>)>;

/// A seeded generator (64-bit LCG, high bits): no dependency, the same cases everywhere.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// 34 topics of 1–60 documents with many tied scores (from 6 values), qrels on 30 of them
/// plus 5 topics the run lacks, graded and negative judgments.
fn generated(seed: u64) -> (Qrels, Topics) {
    let mut rng = Lcg(seed);
    let mut qrels = Qrels::new();
    for t in 5..40 {
        if t % 4 == 3 {
            continue;
        }
        for _ in 0..rng.below(12) + 1 {
            let docno = format!("d{}", rng.below(80));
            qrels.topic_mut(&format!("q{t}")).insert(&docno, rng.below(4) as i64 - 1);
        }
    }
    let topics = (0..40)
        .filter(|t| t % 7 != 6)
        .map(|t| {
            let mut docs: Vec<(String, f64)> = Vec::new();
            for _ in 0..=rng.below(60) {
                let docno = format!("d{}", rng.below(80));
                if docs.iter().all(|(d, _)| *d != docno) {
                    docs.push((docno, rng.below(6) as f64 / 2.0));
                }
            }
            (format!("q{t}"), docs)
        })
        .collect();
    (qrels, topics)
}

fn owned(topics: &Topics) -> Run {
    let mut run = Run { run_id: "kgeval".to_owned(), topics: Vec::new() };
    for (qid, docs) in topics {
        for (docno, score) in docs {
            run.push(qid, docno, *score);
        }
    }
    run
}

fn interned(topics: &Topics) -> InternedRun {
    let mut run = InternedRun::with_capacity(topics.len(), 0);
    for (qid, docs) in topics {
        let slot = run.topic(qid);
        for (docno, score) in docs {
            run.push(slot, docno, *score);
        }
    }
    run
}

fn docs(docs: &[(String, f64)]) -> Vec<RunDoc<'_>> {
    docs.iter()
        .enumerate()
        .map(|(i, (docno, score))| RunDoc { docno, score: *score, rank: i as i64 + 1, position: i as u64 })
        .collect()
}

/// The topics handed over from two threads, the second half first, each thread backwards.
fn streamed(task: &TrecTask, qrels: &Qrels, topics: &Topics) -> TopicStream {
    let stream = task.topic_stream(Arc::new(qrels.clone())).expect("measures");
    let half = topics.len() / 2;
    std::thread::scope(|scope| {
        for (offset, part) in [(half, &topics[half..]), (0, &topics[..half])] {
            let stream = &stream;
            scope.spawn(move || {
                for (i, (qid, entries)) in part.iter().enumerate().rev() {
                    stream.add_topic(offset + i, qid, &docs(entries));
                }
            });
        }
    });
    stream
}

fn per_topic(evaluation: &Evaluation) -> Vec<(String, bool, Vec<f64>)> {
    let FamilyResult::Trec(result) = &evaluation.result else { panic!("a trec result") };
    result.runs[0].topics.iter().map(|t| (t.qid.clone(), t.missing_from_run, t.values.clone())).collect()
}

fn same(ours: &Evaluation, theirs: &Evaluation) {
    let (a, b) = (per_topic(ours), per_topic(theirs));
    assert_eq!(a.len(), b.len());
    for (a, b) in a.iter().zip(&b) {
        let differs = a.2.iter().zip(&b.2).position(|(x, y)| x.to_bits() != y.to_bits());
        assert!(
            a.0 == b.0 && a.1 == b.1 && differs.is_none(),
            "{} {:?}: {:?}",
            a.0,
            differs,
            differs.map(|i| (a.2[i], b.2[i]))
        );
    }
    let (FamilyResult::Trec(a), FamilyResult::Trec(b)) = (&ours.result, &theirs.result) else { panic!("trec") };
    assert_eq!(a.runs[0].summary, b.runs[0].summary);
    assert_eq!(a.runs[0].relstrings, b.runs[0].relstrings);
    assert_eq!(a.runs[0].qrels_topics_missing_from_run, b.runs[0].qrels_topics_missing_from_run);
    assert_eq!(a.runs[0].run_topics_missing_from_qrels, b.runs[0].run_topics_missing_from_qrels);
    assert_eq!(a.runs[0].topics_with_tied_scores, b.runs[0].topics_with_tied_scores);
    // The notes and the score table too (compared as their debug text: no PartialEq).
    assert_eq!(format!("{:?}", ours.warnings), format!("{:?}", theirs.warnings));
    assert_eq!(format!("{:?}", ours.table), format!("{:?}", theirs.table));
}

#[test]
fn streamed_topics_score_as_a_whole_run_does() {
    let tasks = [
        TrecTask::new("qrels").measure("all_trec"),
        TrecTask { complete: true, level: 2, ..TrecTask::new("qrels").measure("all_trec") },
        TrecTask { max_docs: Some(7), ..TrecTask::new("qrels").measure("official").measure("relstring.10") },
    ];
    for seed in 1..=6 {
        let (qrels, topics) = generated(seed);
        for task in &tasks {
            let theirs = task.run_in_memory(&qrels, "qrels", &[("r".to_owned(), owned(&topics))]).expect("valid");
            let stream = streamed(task, &qrels, &topics);
            let ours = task.run_streams("qrels", vec![("r".to_owned(), stream)]).expect("valid");
            same(&ours, &theirs);
        }
    }
}

#[test]
fn a_topic_without_documents_is_kept_as_dicts_keep_it() {
    // `{"q1": {}}`: the topic is in the run with nothing retrieved (num_ret 0), as
    // `run_interned` has it; a run file cannot say this.
    let (qrels, mut topics) = generated(7);
    topics[3].1.clear();
    let task = TrecTask::new("qrels").measure("all_trec");
    let theirs = task.run_interned(&qrels, "qrels", &[("r".to_owned(), interned(&topics))]).expect("valid");
    let ours = task.run_streams("qrels", vec![("r".to_owned(), streamed(&task, &qrels, &topics))]).expect("valid");
    same(&ours, &theirs);
}

#[test]
fn a_hand_worked_topic() {
    // q1 ranks d2 d1 d3 (relevant d1, d3): AP (1/2 + 2/3) / 2, RR 1/2.
    let mut qrels = Qrels::new();
    qrels.topic_mut("q1").insert("d1", 1);
    qrels.topic_mut("q1").insert("d3", 1);
    let task = TrecTask::new("qrels").measure("map").measure("recip_rank");
    let stream = task.topic_stream(Arc::new(qrels)).expect("measures");
    let entries = vec![("d3".to_owned(), 1.0), ("d2".to_owned(), 3.0), ("d1".to_owned(), 2.0)];
    stream.add_topic(0, "q1", &docs(&entries));
    let evaluation = task.run_streams("qrels", vec![("r".to_owned(), stream)]).expect("valid");
    assert_eq!(evaluation.headline("r", "map"), Some((1.0 / 2.0 + 2.0 / 3.0) / 2.0));
    assert_eq!(evaluation.headline("r", "recip_rank"), Some(0.5));
}

#[test]
fn the_checks_of_in_memory_runs() {
    let mut qrels = Qrels::new();
    qrels.topic_mut("q1").insert("d1", 1);
    qrels.topic_mut("q2").insert("a", 1);
    let task = TrecTask::new("qrels").measure("map");
    let topics = |list: &[(&str, &[(&str, f64)])]| -> Topics {
        list.iter().map(|(q, d)| (q.to_string(), d.iter().map(|(d, s)| (d.to_string(), *s)).collect())).collect()
    };
    let cases: [(Topics, &str); 4] = [
        (topics(&[("q1", &[("d1", 1.0), ("d1", 2.0)])]), "run r: topic q1: document d1 is retrieved twice"),
        // Two problems: the earlier topic's is reported, though it arrives last.
        (
            topics(&[("q2", &[("a", f64::NAN)]), ("q1", &[("d1", 1.0), ("d1", 2.0)])]),
            "run r: topic q2: document a has score NaN, expected a finite score",
        ),
        (
            topics(&[("q7", &[("d1", 1.0)])]),
            "r: no topic in common with qrels (1 run topics, 2 qrels topics; -c scores every qrels topic)",
        ),
        (topics(&[("q1", &[("d1", 1.0)]), ("q1", &[("d2", 1.0)])]), "run r: topic q1 is given twice"),
    ];
    for (run, expected) in cases {
        let stream = streamed(&task, &qrels, &run);
        assert_eq!(message(task.run_streams("qrels", vec![("r".to_owned(), stream)])), expected);
        if !expected.ends_with("given twice") {
            assert_eq!(message(task.run_in_memory(&qrels, "qrels", &[("r".to_owned(), owned(&run))])), expected);
        }
    }
    // A stream of another task is refused.
    let other = TrecTask::new("qrels").measure("P.5").topic_stream(Arc::new(qrels.clone())).expect("measures");
    assert_eq!(
        message(task.run_streams("qrels", vec![("r".to_owned(), other)])),
        "run r: the topic stream was made by a task with other measures or options"
    );
}
