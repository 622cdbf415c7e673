//! The TREC run reader on the spec's workload shape: 10,000 topics × 1,000 documents (~430 MB,
//! ~5 % tied scores), generated once into `target/bench-trec-parse/run` (never committed), and
//! the qrels reader on 10,000 × 28 judgments. Run with `cargo bench -p kgeval-formats --bench
//! trec_parse`; `KGEVAL_BENCH_TOPICS=N` shrinks the run.
//!
//! - `open_index`: map the file and build the topic index (one parallel pass);
//! - `read_all_topics`: `topic_docs` for every topic, in parallel (rayon), on an open run;
//! - `open_and_read_all`: both, what `kgeval trec` pays before sorting and measuring;
//! - `read_qrels`: the qrels.

use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use divan::Bencher;
use kgeval_formats::trec::{read_qrels, RunFile};
use kgeval_model::trec::{RunDoc, RunSource};
use rayon::prelude::*;

const DOCS_PER_TOPIC: usize = 1000;
const JUDGED_PER_TOPIC: usize = 28;

fn main() {
    divan::main();
}

fn topics() -> usize {
    std::env::var("KGEVAL_BENCH_TOPICS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000)
}

/// A xorshift64 stream (deterministic, no dependency).
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The run and qrels files, generated on first use.
fn inputs() -> (PathBuf, PathBuf) {
    let topics = topics();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-trec-parse");
    let (run, qrels) = (dir.join(format!("run-{topics}")), dir.join(format!("qrels-{topics}")));
    if run.exists() && qrels.exists() {
        return (run, qrels);
    }
    std::fs::create_dir_all(&dir).expect("target/bench-trec-parse");
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    let mut run_out = BufWriter::new(std::fs::File::create(&run).expect("run"));
    let mut qrels_out = BufWriter::new(std::fs::File::create(&qrels).expect("qrels"));
    let mut docnos = Vec::with_capacity(DOCS_PER_TOPIC);
    let mut judged = Vec::with_capacity(JUDGED_PER_TOPIC);
    for topic in 0..topics {
        let qid = 10_000 + topic;
        docnos.clear();
        while docnos.len() < DOCS_PER_TOPIC {
            let docno = 1_000_000 + random.next() % 9_000_000;
            if !docnos.contains(&docno) {
                docnos.push(docno);
            }
        }
        let mut score = 20.0 + (random.next() % 1000) as f64 / 100.0;
        for (rank, docno) in docnos.iter().enumerate() {
            if random.next() % 100 >= 5 {
                score -= (random.next() % 20_000) as f64 / 1e6;
            }
            writeln!(run_out, "{qid} Q0 D{docno} {} {score:.6} bench-run-1", rank + 1).expect("write");
        }
        judged.clear();
        for j in 0..JUDGED_PER_TOPIC as u64 {
            // 20 judged among the top 200 retrieved (a docno drawn twice is judged once), 8 not retrieved.
            let docno = if j < 20 { docnos[(random.next() % 200) as usize] } else { 10_000_000 + j };
            let relevance = [0, 0, 0, 1, 1, 2][(random.next() % 6) as usize];
            if judged.contains(&docno) {
                continue;
            }
            judged.push(docno);
            writeln!(qrels_out, "{qid} 0 D{docno} {relevance}").expect("write");
        }
    }
    run_out.flush().expect("flush");
    qrels_out.flush().expect("flush");
    (run, qrels)
}

fn read_all(run: &RunFile) -> usize {
    (0..run.topic_count())
        .into_par_iter()
        .map_init(Vec::<RunDoc<'_>>::new, |docs, index| {
            run.topic_docs(index, docs).expect("well-formed");
            docs.len()
        })
        .sum()
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn open_index(bencher: Bencher<'_, '_>) {
    let (run, _) = inputs();
    let path = run.to_string_lossy().into_owned();
    bencher.bench(|| RunFile::open(&path).expect("run").topic_count());
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn read_all_topics(bencher: Bencher<'_, '_>) {
    let (run, _) = inputs();
    let run = RunFile::open(&run.to_string_lossy()).expect("run");
    bencher.bench(|| read_all(&run));
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn open_and_read_all(bencher: Bencher<'_, '_>) {
    let (run, _) = inputs();
    let path = run.to_string_lossy().into_owned();
    bencher.bench(|| {
        let run = RunFile::open(&path).expect("run");
        assert_eq!(read_all(&run), topics() * DOCS_PER_TOPIC);
    });
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn read_qrels_file(bencher: Bencher<'_, '_>) {
    let (_, qrels) = inputs();
    let path = qrels.to_string_lossy().into_owned();
    bencher.bench(|| read_qrels(&path).expect("qrels").value.len());
}
