//! `TrecTask::run_interned`: runs whose document ids are interned evaluate exactly as the
//! same entries in a `Run` do, with the same checks.

use kgeval::trec::{InternedRun, TrecTask};
use kgeval::{Error, Evaluation, FamilyResult};
use kgeval_model::trec::{Qrels, Run};

/// (qid, docno, score) entries in input order.
const ENTRIES: &[(&str, &str, f64)] =
    &[("q2", "z", 1.0), ("q2", "a", 1.0), ("q1", "d2", 3.0), ("q1", "d1", 2.0), ("q1", "d3", 1.0), ("q9", "d1", 5.0)];

fn qrels() -> Qrels {
    let mut qrels = Qrels::new();
    qrels.topic_mut("q1").insert("d1", 1);
    qrels.topic_mut("q1").insert("d3", 1);
    qrels.topic_mut("q2").insert("a", 1);
    qrels
}

fn interned(entries: &[(&str, &str, f64)]) -> InternedRun {
    let mut run = InternedRun::with_capacity(2, 4);
    for &(qid, docno, score) in entries {
        let slot = run.topic(qid);
        run.push(slot, docno, score);
    }
    run
}

fn owned(entries: &[(&str, &str, f64)]) -> Run {
    let mut run = Run { run_id: "kgeval".to_owned(), topics: Vec::new() };
    for &(qid, docno, score) in entries {
        run.push(qid, docno, score);
    }
    run
}

fn task() -> TrecTask {
    TrecTask::new("qrels").measure("map").measure("recip_rank").measure("P.2").measure("num_ret")
}

fn per_topic(evaluation: &Evaluation) -> Vec<(String, Vec<f64>)> {
    let FamilyResult::Trec(result) = &evaluation.result else { panic!("a trec result") };
    result.runs[0].topics.iter().map(|t| (t.qid.clone(), t.values.clone())).collect()
}

#[test]
fn interned_runs_score_as_owned_runs_do() {
    let run = interned(ENTRIES);
    assert_eq!((run.topic_len(), run.len(), run.distinct_docnos()), (3, 6, 5));
    let ours = task().run_interned(&qrels(), "qrels", &[("r".to_owned(), run)]).expect("evaluation");
    let theirs = task().run_in_memory(&qrels(), "qrels", &[("r".to_owned(), owned(ENTRIES))]).expect("evaluation");
    // Hand-worked: q1 ranks d2 d1 d3 (relevant d1, d3): AP (1/2 + 2/3) / 2, RR 1/2, P_2 1/2.
    // q2's tie breaks by docno descending: z before a, so AP = RR = P_2 = 1/2.
    let map = ((1.0 / 2.0 + 2.0 / 3.0) / 2.0 + 0.5) / 2.0;
    assert_eq!(ours.headline("r", "map"), Some(map));
    assert_eq!(ours.headline("r", "recip_rank"), Some(0.5));
    assert_eq!(ours.headline("r", "P_2"), Some(0.5));
    assert_eq!(ours.headline("r", "num_ret"), Some(5.0));
    assert_eq!(per_topic(&ours), per_topic(&theirs));
    // The notes and the score table too (compared as their debug text: no PartialEq).
    assert_eq!(format!("{:?}", ours.warnings), format!("{:?}", theirs.warnings));
    assert_eq!(format!("{:?}", ours.table), format!("{:?}", theirs.table));
}

#[test]
fn a_topic_may_come_back_later() {
    // Columns whose rows of a topic are not adjacent: the topic keeps its first slot.
    let scattered = [ENTRIES[2], ENTRIES[0], ENTRIES[3], ENTRIES[1], ENTRIES[4]];
    let ours = task().run_interned(&qrels(), "qrels", &[("r".to_owned(), interned(&scattered))]).expect("evaluation");
    let theirs = task().run_in_memory(&qrels(), "qrels", &[("r".to_owned(), owned(&scattered))]).expect("evaluation");
    assert_eq!(per_topic(&ours), per_topic(&theirs));
}

/// The text of an expected error (panics on success).
pub(crate) fn message(result: Result<Evaluation, Error>) -> String {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn the_checks_of_in_memory_runs() {
    let run = |entries: &[(&str, &str, f64)]| vec![("r".to_owned(), interned(entries))];
    let owned_run = |entries: &[(&str, &str, f64)]| vec![("r".to_owned(), owned(entries))];
    let cases: [&[(&str, &str, f64)]; 4] = [
        // A docno twice in one topic, also when the topic's rows are apart.
        &[("q1", "d1", 1.0), ("q1", "d1", 2.0)],
        &[("q1", "d1", 1.0), ("q2", "a", 1.0), ("q1", "d1", 2.0)],
        &[("q1", "d1", 1.0), ("q1", "d2", f64::NAN)],
        &[("q7", "d1", 1.0)],
    ];
    let expected = [
        "run r: topic q1: document d1 is retrieved twice",
        "run r: topic q1: document d1 is retrieved twice",
        "run r: topic q1: document d2 has score NaN, expected a finite score",
        "r: no topic in common with qrels (1 run topics, 2 qrels topics; -c scores every qrels topic)",
    ];
    for (entries, expected) in cases.iter().zip(expected) {
        let ours = message(task().run_interned(&qrels(), "qrels", &run(entries)));
        assert_eq!(ours, expected);
        assert_eq!(ours, message(task().run_in_memory(&qrels(), "qrels", &owned_run(entries))));
    }
    // The same docno in two topics is fine.
    let fine = [("q1", "d1", 1.0), ("q2", "d1", 1.0)];
    assert!(task().run_interned(&qrels(), "qrels", &run(&fine)).is_ok());
}
