//! One IR topic of the `cargo xtask bench trec` workload (1,000 retrieved documents, ~5 % tied
//! scores, 28 judged of which ~10 relevant): ranking with the core's `rank_order` plus
//! relevance lookup, and the measures of the benchmark command on the ranked topic; then the
//! same measures' expected values over one group of tied documents (10 relevant), by the
//! group's size. Run with `cargo bench -p kgeval-metrics --bench ir`.

use divan::Bencher;
use kgeval_metrics::trec::{rank_topic, topic_values, LevelCounts, RankedRelevance, TiedRanking};
use kgeval_model::trec::{IrOptions, MeasureRequest, MeasureSet, RunDoc, Ties, TopicJudgments};

fn main() {
    divan::main();
}

struct Topic {
    docnos: Vec<String>,
    scores: Vec<f64>,
    judgments: TopicJudgments,
}

impl Topic {
    /// The run lines, in input order.
    fn docs(&self) -> Vec<RunDoc<'_>> {
        self.docnos
            .iter()
            .zip(&self.scores)
            .enumerate()
            .map(|(i, (docno, &score))| RunDoc { docno, score, rank: i as i64, position: i as u64 })
            .collect()
    }
}

fn topic() -> Topic {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let docnos: Vec<String> = (0..1000).map(|_| format!("D{}", next() % 10_000_000)).collect();
    let scores: Vec<f64> =
        (0..1000).map(|i| if i % 20 == 0 { 0.5 } else { (next() % 1_000_000) as f64 / 1_000_000.0 }).collect();
    let mut judgments = TopicJudgments::default();
    for (i, docno) in docnos.iter().step_by(36).enumerate() {
        judgments.insert(docno, [0, 1, 2][i % 3]);
    }
    Topic { docnos, scores, judgments }
}

fn measures(names: &[&str]) -> MeasureSet {
    MeasureSet::from_requests(&names.iter().map(|n| MeasureRequest::parse(n).expect("known")).collect::<Vec<_>>())
}

#[divan::bench]
fn rank_1000_docs(bencher: Bencher<'_, '_>) {
    let topic = topic();
    let options = IrOptions::default();
    let docs = topic.docs();
    bencher.with_inputs(|| docs.clone()).bench_local_refs(|docs| rank_topic(Some(&topic.judgments), docs, &options));
}

#[divan::bench(args = [&["map", "ndcg_cut.10", "recip_rank", "P.10"][..], &["all_trec"][..]])]
fn measures_of_a_ranked_topic(bencher: Bencher<'_, '_>, names: &[&str]) {
    let topic = topic();
    let docs = topic.docs();
    let (ranked, _) = rank_topic(Some(&topic.judgments), &docs, &IrOptions::default());
    let set = measures(names);
    bencher.bench(|| topic_values(&ranked, &set));
}

#[divan::bench(args = [10_000, 100_000, 300_000])]
fn expected_over_one_tie_group(bencher: Bencher<'_, '_>, size: usize) {
    let ranked: Vec<i64> = (0..size).map(|i| i64::from(i % (size / 10) == 0)).collect();
    let relevance = RankedRelevance {
        ranked,
        level_counts: LevelCounts::from_dense(&[(size - 10) as u64, 10]),
        relevance_level: 1,
        ndcg_uses_level: false,
    };
    let ranking = TiedRanking::new(relevance, &[(0, size)], Vec::new());
    let set = measures(&["map", "ndcg_cut.10", "recip_rank", "P.10"]);
    bencher.bench(|| ranking.values(set.measures(), Ties::Expected));
}
