//! Partitions that hold one side alone: each partition gets the run lines *and* the judgments
//! of its topics — a partition of topics only the run holds (run lines, no judgment), one of
//! topics only the qrels judge (judgments, no run line), one holding neither, and mixed
//! ones. Their accumulators, merged in any order and finalised, give the one-machine
//! evaluation of the whole run against the whole qrels: with and without `-c`, kept topics
//! byte for byte (text with per-topic lines, the note, `runid`), compact ones to 1e-12.

use kgeval::trec::{InternedRun, RunAccumulator, TrecTask};
use kgeval::{Evaluation, FamilyResult, OutputFormat, RenderOptions, TrecTextLines};
use kgeval_model::trec::{Qrels, Run};

/// One topic: its qid, its judgments and its run lines (either may be empty).
struct Topic {
    qid: String,
    judged: Vec<(String, i64)>,
    retrieved: Vec<(String, f64)>,
}

/// Topics `b*` judged and retrieved (ties included), `r*` retrieved only, `j*` judged only.
fn topics() -> Vec<Topic> {
    let mut topics = Vec::new();
    for i in 0..6u32 {
        let judged = (0..5).map(|d| (format!("d{d}"), i64::from((d + i) % 4) - 1)).collect();
        let retrieved = (0..8).map(|d| (format!("d{}", (d * 2 + i) % 9), f64::from((d * 7 + i) % 5) / 4.0)).collect();
        topics.push(Topic { qid: format!("b{i}"), judged, retrieved });
    }
    for i in 0..4u32 {
        let retrieved = (0..3).map(|d| (format!("d{d}"), f64::from(d + i))).collect();
        topics.push(Topic { qid: format!("r{i}"), judged: Vec::new(), retrieved });
    }
    for i in 0..4u32 {
        let judged = (0..3).map(|d| (format!("d{d}"), i64::from((d + i) % 3))).collect();
        topics.push(Topic { qid: format!("j{i}"), judged, retrieved: Vec::new() });
    }
    topics
}

/// The partitions, as qid prefixes: mixed; run only; qrels only; neither; mixed with qrels-only
/// and run-only topics.
const PARTITIONS: [&[&str]; 5] =
    [&["b0", "b1", "b2", "r0"], &["r1", "r2"], &["j0", "j1"], &[], &["b3", "b4", "b5", "j2", "j3", "r3"]];

fn qrels_of(topics: &[&Topic]) -> Qrels {
    let mut qrels = Qrels::new();
    for topic in topics {
        for (docno, rel) in &topic.judged {
            qrels.topic_mut(&topic.qid).insert(docno, *rel);
        }
    }
    qrels
}

fn run_of(topics: &[&Topic]) -> Run {
    let mut run = Run { run_id: "bm25".into(), ..Run::default() };
    for topic in topics {
        for (docno, score) in &topic.retrieved {
            run.push(&topic.qid, docno, *score);
        }
    }
    run
}

/// The same lines interned: tagged `bm25` only when the partition has a line (an interned run
/// without a tag is `kgeval`'s, as a table without a tag column).
fn interned_of(topics: &[&Topic]) -> InternedRun {
    let mut run = InternedRun::with_capacity(topics.len(), 0);
    for topic in topics.iter().filter(|t| !t.retrieved.is_empty()) {
        let slot = run.topic(&topic.qid);
        for (docno, score) in &topic.retrieved {
            run.push(slot, docno, *score);
        }
        run.set_run_id("bm25".into());
    }
    run
}

/// Every partition's accumulator (odd partitions through the interned path).
fn accumulators(task: &TrecTask, all: &[Topic]) -> Vec<RunAccumulator> {
    PARTITIONS
        .iter()
        .enumerate()
        .map(|(p, qids)| {
            let topics: Vec<&Topic> = all.iter().filter(|t| qids.contains(&t.qid.as_str())).collect();
            let qrels = qrels_of(&topics);
            let partition = if p % 2 == 1 {
                task.accumulate_interned(&qrels, &interned_of(&topics))
            } else {
                task.accumulate_in_memory(&qrels, &run_of(&topics))
            };
            partition.expect("a partition with an empty side is evaluated").accumulator
        })
        .collect()
}

fn merged(parts: &[RunAccumulator], order: &[usize]) -> RunAccumulator {
    let mut merged = parts[order[0]].clone();
    for &i in &order[1..] {
        merged.merge(&parts[i]).expect("disjoint partitions");
    }
    merged
}

fn run_result(evaluation: &Evaluation) -> &kgeval_model::trec::RunEvaluation {
    let FamilyResult::Trec(result) = &evaluation.result else { panic!("a trec result") };
    &result.runs[0]
}

fn text(evaluation: &Evaluation) -> String {
    let options =
        RenderOptions { trec_lines: TrecTextLines { per_topic: true, summary: true }, ..RenderOptions::default() };
    evaluation.render(OutputFormat::Text, &options)
}

#[test]
fn partitions_holding_one_side_alone_merge_to_the_one_machine_evaluation() {
    let all = topics();
    let everything: Vec<&Topic> = all.iter().collect();
    let (qrels, run) = (qrels_of(&everything), run_of(&everything));
    for complete in [false, true] {
        let mut task = TrecTask::new("qrels").measure("all_trec");
        task.complete = complete;
        let one = task.run_in_memory(&qrels, "qrels", &[("run".to_owned(), run.clone())]).expect("one machine");
        let parts = accumulators(&task, &all);
        let first = merged(&parts, &[0, 1, 2, 3, 4]);
        for order in [[4, 3, 2, 1, 0], [2, 0, 3, 4, 1], [3, 1, 4, 0, 2]] {
            assert_eq!(merged(&parts, &order).to_bytes(), first.to_bytes(), "order {order:?}");
        }
        // Topics kept (the default): the one-machine evaluation byte for byte.
        let kept = task.finalize_accumulators(Some(&qrels), "qrels", vec![("run".to_owned(), first.clone())]);
        let kept = kept.expect("finalised");
        assert_eq!(text(&kept), text(&one), "complete={complete}");
        assert!(text(&kept).contains("\nrunid                 \tall\tbm25\n"));
        assert_eq!(run_result(&kept).summary, run_result(&one).summary);
        assert_eq!(kept.warnings[0].diagnostic.message, one.warnings[0].diagnostic.message);
        let csv = |e: &Evaluation| e.render(OutputFormat::Csv, &RenderOptions::default());
        assert_eq!(csv(&kept), csv(&one));
        // Compact: every summary value to 1e-12, the same note.
        let mut compact = first.clone();
        compact.forget_topics();
        let compact = task.finalize_accumulators(Some(&qrels), "qrels", vec![("run".to_owned(), compact)]);
        let compact = compact.expect("finalised");
        let (want, got) = (run_result(&one), run_result(&compact));
        assert_eq!(got.run_id, "bm25");
        for (x, y) in want.summary.iter().zip(&got.summary) {
            assert!((x - y).abs() <= 1e-12 * x.abs().max(1.0), "complete={complete}: {x} vs {y}");
        }
        assert_eq!(compact.warnings[0].diagnostic.message, one.warnings[0].diagnostic.message);
        // The rows finalisation adds under -c: the one machine's rows of the unretrieved topics.
        let absent = task.absent_topics(&qrels, &first).expect("same task");
        let unretrieved: Vec<_> = want.topics.iter().filter(|t| t.qid.starts_with('j')).collect();
        if complete {
            assert_eq!(unretrieved.len(), 4);
            assert_eq!(absent.iter().collect::<Vec<_>>(), unretrieved);
        } else {
            assert!(unretrieved.is_empty() && absent.is_empty());
        }
    }
}

#[test]
fn partitions_with_no_judged_topic_merge_to_the_one_machine_error_or_c() {
    let all = topics();
    let only_run: Vec<&Topic> = all.iter().filter(|t| t.qid.starts_with('r')).collect();
    let only_qrels: Vec<&Topic> = all.iter().filter(|t| t.qid.starts_with('j')).collect();
    let (qrels, run) = (qrels_of(&only_qrels), run_of(&only_run));
    for complete in [false, true] {
        let mut task = TrecTask::new("qrels").measure("map").measure("num_q").measure("num_ret");
        task.complete = complete;
        let one = task.run_in_memory(&qrels, "qrels", &[("run".to_owned(), run.clone())]);
        let mut merged = task.accumulate_in_memory(&Qrels::new(), &run).expect("run side alone").accumulator;
        let judged = task.accumulate_interned(&qrels, &InternedRun::with_capacity(0, 0)).expect("qrels side alone");
        merged.merge(&judged.accumulator).expect("disjoint");
        let finalized = task.finalize_accumulators(Some(&qrels), "qrels", vec![("run".to_owned(), merged)]);
        match (one, finalized) {
            (Ok(one), Ok(finalized)) => {
                assert!(complete);
                assert_eq!(text(&finalized), text(&one));
                // Four judged topics, none retrieved: hand-worked.
                for (measure, value) in [("num_q", 4.0), ("num_ret", 0.0), ("map", 0.0)] {
                    assert_eq!(finalized.headline("run", measure), Some(value), "{measure}");
                }
            }
            (Err(one), Err(finalized)) => {
                assert!(!complete);
                assert!(one.to_string().contains("no topic in common"), "{one}");
                assert!(finalized.to_string().contains("no topic in common"), "{finalized}");
            }
            (one, finalized) => panic!("one machine {:?}, merged {:?}", one.map(|_| ()), finalized.map(|_| ())),
        }
    }
}
