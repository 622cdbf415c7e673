//! The sharded accumulator against the dense path's engine ([`evaluate_kgc`]) on the same
//! counts, under every count policy; shard counts against [`rank_row`].

use std::borrow::Cow;

use kgeval_model::kgc::{
    AnswerObservation, FilterScope, KgcVocabulary, KnownAnswers, RankObservation, Side, TestSet, Triple, TripleFile,
};
use kgeval_model::ranking::{ScoreRow, TiePolicy};
use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, RngSeed};

use super::{default_ir_measures, evaluate_kgc, CountAccumulator, KgcData, KgcInput, KgcOptions};
use crate::ranking::{count_shard, rank_row, RowOptions, ShardCounts};

const POLICIES: [TiePolicy; 5] =
    [TiePolicy::Optimistic, TiePolicy::Pessimistic, TiePolicy::Realistic, TiePolicy::Expected, TiePolicy::RoundedMean];

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 64,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(0x5eed_0005),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// The dense path's values under the accumulator's names.
fn dense_values(evaluation: &kgeval_model::kgc::results::KgcEvaluation) -> Vec<(String, f64)> {
    evaluation.scope_values().remove(0).1
}

proptest! {
    #![proptest_config(config())]

    /// Counts split over 1–4 column shards and merged in any order give the dense path's
    /// micro, adjusted, macro, IR and answer-mean values to 1e-12.
    #[test]
    fn sharded_counts_equal_the_dense_path(
        triples in proptest::collection::btree_set((0u32..12, 0u32..3, 0u32..12), 1..30),
        counts in proptest::collection::vec((0u64..20, 0u64..6, 0u64..40), 64),
        shards in 1usize..=4,
        reversed in any::<bool>(),
    ) {
        let names: Vec<String> = (0..12).map(|i| format!("e{i}")).collect();
        let mut vocabulary = KgcVocabulary::with_entities(names.iter().map(String::as_str));
        let relations: Vec<_> = (0..3).map(|r| vocabulary.relations.intern(&format!("r{r}"))).collect();
        let entity = |i: u32| vocabulary.entities.get(&format!("e{i}")).expect("entity");
        let triples: Vec<Triple> = triples
            .iter()
            .map(|&(h, r, t)| Triple { head: entity(h), relation: relations[r as usize], tail: entity(t) })
            .collect();
        let lines = (1..=triples.len() as u32).collect();
        let test = TestSet::new(TripleFile { name: "test".into(), triples: triples.clone(), lines });
        let mut known = KnownAnswers::new();
        known.extend(&triples);
        let filters = KnownAnswers::new();
        let data = KgcData { vocabulary: &vocabulary, test: &test, filters: &filters, known: &known };
        let mut observations = Vec::new();
        let mut parts = vec![CountAccumulator::new(); shards];
        for (side_index, side) in Side::BOTH.into_iter().enumerate() {
            for (i, &triple) in triples.iter().enumerate() {
                let (question, answer) = test.question_of(triple, side);
                let (greater, tied, compared) = counts[(i * 2 + side_index) % counts.len()];
                let compared = compared + greater + tied;
                observations.push(AnswerObservation {
                    question,
                    answer,
                    observed: RankObservation::Counts { greater, equal: tied + 1 },
                    candidates: Some(compared + 1),
                });
                // Shard s holds its share of each count (the last one the rest).
                let id = (side_index * triples.len() + i) as u64;
                let mut given = ShardCounts::default();
                for (s, part) in parts.iter_mut().enumerate() {
                    let share = |v: u64| if s + 1 == shards { v - v / shards as u64 * s as u64 } else { v / shards as u64 };
                    let piece = ShardCounts { greater: share(greater), tied: share(tied), compared: share(compared) };
                    given = given.plus(piece);
                    part.add(id, piece, true, (s == 0).then_some(u64::from(question))).expect("one group");
                }
                prop_assert_eq!(given, ShardCounts { greater, tied, compared });
            }
        }
        if reversed {
            parts.reverse();
        }
        let mut merged = CountAccumulator::new();
        for part in &parts {
            merged.merge(part).expect("merges");
        }
        let back = CountAccumulator::from_bytes(&merged.to_bytes()).expect("reads");
        prop_assert_eq!(&back, &merged);
        let input = KgcInput { observations: &observations, scope: FilterScope::Known, ir_run: None, ir_qrels: None };
        let measures = default_ir_measures();
        for policy in POLICIES {
            let options = KgcOptions { ties: policy, ks: vec![1, 3, 10], ..KgcOptions::default() };
            let dense = dense_values(&evaluate_kgc(&data, &input, &options, "s").expect("evaluates"));
            let sharded = back.finalize(policy, &[1, 3, 10], Some(&measures)).values();
            let names = |v: &[(String, f64)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
            prop_assert_eq!(names(&sharded), names(&dense));
            for ((name, a), (_, b)) in sharded.iter().zip(&dense) {
                prop_assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{} {}: {} vs {}", policy.name(), name, a, b);
            }
        }
    }

    /// Column shards of a row, counted apart and summed, give [`rank_row`]'s position.
    #[test]
    fn shard_counts_add_up_to_rank_row(
        row in proptest::collection::vec(0u8..6, 2..40),
        target in 0usize..40,
        excluded in proptest::collection::vec(0usize..40, 0..8),
        cuts in proptest::collection::vec(0usize..40, 0..4),
    ) {
        let scores: Vec<f32> = row.iter().map(|&s| f32::from(s) / 2.0).collect();
        let target = target % scores.len();
        let excluded: Vec<u32> = excluded.iter().map(|&c| (c % scores.len()) as u32).filter(|&c| c as usize != target).collect();
        let whole = rank_row(&ScoreRow::F32(Cow::Borrowed(&scores)), &[target as u32], &excluded, RowOptions::default())
            .expect("no NaN");
        let mut bounds: Vec<usize> = cuts.iter().map(|&c| c % scores.len()).chain([0, scores.len()]).collect();
        bounds.sort_unstable();
        bounds.dedup();
        let mut sum = ShardCounts::default();
        for pair in bounds.windows(2) {
            let (first, last) = (pair[0], pair[1]);
            let slice = ScoreRow::F32(Cow::Borrowed(&scores[first..last]));
            let skip = (first..last).contains(&target).then(|| target - first);
            let counts = count_shard(&slice, f64::from(scores[target]), skip, |c| excluded.contains(&((first + c) as u32)))
                .expect("no NaN");
            sum = sum.plus(counts);
        }
        prop_assert_eq!(sum.position(), whole.positions[0]);
        prop_assert_eq!(sum.compared as usize + 1, whole.candidates);
    }
}

#[test]
fn nan_and_groups_are_refused() {
    let row = [1.0f64, f64::NAN];
    assert!(count_shard(&ScoreRow::F64(Cow::Borrowed(&row)), 0.5, None, |_| false).is_err());
    assert!(count_shard(&ScoreRow::F64(Cow::Borrowed(&row)), 0.5, None, |c| c == 1).is_ok());
    let mut a = CountAccumulator::new();
    a.add(1, ShardCounts::default(), true, Some(3)).expect("first");
    let before = a.clone();
    let mut b = CountAccumulator::new();
    b.add(1, ShardCounts { greater: 1, ..ShardCounts::default() }, true, Some(4)).expect("first");
    assert!(a.merge(&b).is_err());
    assert_eq!(a, before);
    assert!(CountAccumulator::from_bytes(&before.to_bytes()[..20]).is_err());
}
