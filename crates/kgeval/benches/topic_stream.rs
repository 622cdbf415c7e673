//! The per-topic work the Python paths share (issue 30): `python_bench.py`'s workload — topics
//! of 1,000 retrieved documents `d0…d999` with distinct random scores, 20 graded judgments drawn
//! from `d0…d1999` — handed to a [`TopicStream`] one topic at a time on one thread: the
//! duplicate-docno check, the judged lookup, the ranking and the measures (map, P.10,
//! ndcg_cut.10, recip_rank). Run with `cargo bench -p kgeval --bench topic_stream`; with
//! `--features arrow`, also the Arrow path's unit: 1,000 such topics as one record batch
//! (`qid, docno, score`, 17 MB: past the second-level cache, as a large table is), each topic
//! handed over as the batch's columns (`RunBatch::topic_columns`) or as documents built from
//! its rows (`RunBatch::push_docs`).

use std::sync::Arc;

use divan::Bencher;
use kgeval::trec::TrecTask;
use kgeval_model::trec::{Qrels, RunDoc};

fn main() {
    divan::main();
}

const TOPICS: usize = 100;
const DOCS: usize = 1000;

/// A topic: its qid, and its docnos and scores in run order.
type Topic = (String, Vec<String>, Vec<f64>);

/// The qrels and the topics.
fn workload() -> (Qrels, Vec<Topic>) {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let mut qrels = Qrels::new();
    let mut topics = Vec::new();
    for t in 0..TOPICS {
        let qid = format!("q{t}");
        for _ in 0..20 {
            qrels.topic_mut(&qid).insert(&format!("d{}", next(2 * DOCS as u64)), [0, 1, 1, 2][next(4) as usize]);
        }
        let docnos: Vec<String> = (0..DOCS).map(|i| format!("d{i}")).collect();
        // Distinct scores: a random permutation of multiples of 1/7.
        let mut scores: Vec<f64> = (0..DOCS).map(|i| (i * 50 + next(50) as usize) as f64 / 7.0).collect();
        for i in (1..DOCS).rev() {
            scores.swap(i, next(i as u64 + 1) as usize);
        }
        topics.push((qid, docnos, scores));
    }
    (qrels, topics)
}

#[divan::bench]
fn hundred_topics_of_1000_documents(bencher: Bencher<'_, '_>) {
    let (qrels, topics) = workload();
    let qrels = Arc::new(qrels);
    let task = TrecTask::new("qrels").measure("map").measure("P.10").measure("ndcg_cut.10").measure("recip_rank");
    let docs: Vec<Vec<RunDoc<'_>>> = topics
        .iter()
        .map(|(_, docnos, scores)| {
            docnos
                .iter()
                .zip(scores)
                .enumerate()
                .map(|(i, (docno, &score))| RunDoc { docno, score, rank: 0, position: i as u64 })
                .collect()
        })
        .collect();
    bencher.bench_local(|| {
        let stream = task.topic_stream(Arc::clone(&qrels)).expect("known measures");
        for (index, ((qid, _, _), docs)) in topics.iter().zip(&docs).enumerate() {
            stream.add_topic(index, qid, docs);
        }
        stream
    });
}

/// The Arrow path's per-topic work (`kgeval-py`'s `arrow_in.rs` does this on each worker):
/// 1,000 topics of the workload in one record batch, each topic handed to the stream as the
/// batch's columns (`topic_columns`: no document built) or, with `documents`, as documents
/// built from its rows (`push_docs`: what a topic split across batches takes).
#[cfg(feature = "arrow")]
#[divan::bench(args = [false, true])]
fn thousand_topics_from_one_record_batch(bencher: Bencher<'_, '_>, documents: bool) {
    use kgeval::arrow::arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray};
    use kgeval::arrow::RunColumns;

    let mut qrels = Qrels::new();
    let (mut qids, mut docnos, mut scores) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..10 {
        let (round_qrels, topics) = workload();
        for (qid, judgments) in round_qrels.topics() {
            let topic = qrels.topic_mut(&format!("{qid}.{round}"));
            for (docno, value) in judgments.iter() {
                topic.insert(docno, value);
            }
        }
        for (qid, topic_docnos, topic_scores) in topics {
            qids.extend(std::iter::repeat_n(format!("{qid}.{round}"), topic_docnos.len()));
            docnos.extend(topic_docnos);
            scores.extend(topic_scores);
        }
    }
    let batch = RecordBatch::try_from_iter([
        ("qid", Arc::new(StringArray::from(qids)) as ArrayRef),
        ("docno", Arc::new(StringArray::from(docnos)) as ArrayRef),
        ("score", Arc::new(Float64Array::from(scores)) as ArrayRef),
    ])
    .expect("three columns of one length");
    let columns = RunColumns::resolve(&batch.schema(), "run").expect("run columns");
    let rows = columns.batch(&batch, "run", 0).expect("a valid batch");
    let topics: Vec<_> = rows.topics().collect();
    let qrels = Arc::new(qrels);
    let task = TrecTask::new("qrels").measure("map").measure("P.10").measure("ndcg_cut.10").measure("recip_rank");
    bencher.bench_local(|| {
        let stream = task.topic_stream(Arc::clone(&qrels)).expect("known measures");
        let mut docs = Vec::new();
        for (index, (qid, range)) in topics.iter().enumerate() {
            match rows.topic_columns(range.clone()).filter(|_| !documents) {
                Some(columns) => {
                    stream.add_topic_columns(index, qid, columns.docnos(), |i| columns.docno(i), columns.scores);
                }
                None => {
                    docs.clear();
                    rows.push_docs(range.clone(), &mut docs);
                    stream.add_topic(index, qid, &docs);
                }
            }
        }
        stream
    });
}
