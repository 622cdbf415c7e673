//! The tie policies against brute force: every permutation of every group enumerated.

use kgeval_model::trec::{Measure, MeasureFamily, MeasureRequest, MeasureSet, Ties};
use proptest::prelude::*;

use super::super::levels::LevelCounts;
use super::super::measures::{RankedRelevance, NOT_JUDGED, NOT_POOLED};
use super::{SplitMix64ForTests as Rng, TiedRanking};

/// Every measure of `all_trec` plus the ones outside it, with small cutoffs that fall inside
/// the generated groups.
fn measures() -> MeasureSet {
    let names = [
        "all_trec",
        "P.1,2,3,5",
        "recall.2,4",
        "success.1,2,4",
        "ndcg_cut.2,4",
        "ndcg_exp_cut.3",
        "map_cut.3",
        "relative_P.3",
        "Rprec_mult.0.5,1.5",
        "recip_rank_cut.2,4",
        "hits.3",
        "f1.3",
        "unj.3",
        "yaap",
        "rbp.p=0.7",
        "rbp_resid.p=0.7",
        "ndcg.1=3,2=0.5",
        "ndcg_rel.1=3,2=0.5",
        "ndcg_rel.0=1,2=0,3=2",
        "ndcg_rel.1=-1,2=2",
        "utility.2,-1,-3,0.5",
    ];
    let requests: Vec<MeasureRequest> = names.iter().map(|n| MeasureRequest::parse(n).expect(n)).collect();
    MeasureSet::from_requests(&requests)
}

/// A generated topic: labels, runs of equal scores, labels past the depth, relevance level.
#[derive(Debug, Clone)]
struct Case {
    labels: Vec<i64>,
    runs: Vec<usize>,
    beyond: usize,
    level: i64,
    ndcg_uses_level: bool,
}

fn case(max_group: usize, max_len: usize) -> impl Strategy<Value = Case> {
    let label = prop_oneof![Just(NOT_POOLED), Just(NOT_JUDGED), 0i64..4];
    (
        prop::collection::vec(label, 1..=max_len),
        prop::collection::vec(1..=max_group, 1..=max_len),
        0usize..3,
        1i64..=2,
        any::<bool>(),
    )
        .prop_map(move |(labels, sizes, beyond, level, ndcg_uses_level)| {
            // Cut the labels into runs of the sizes drawn; the last run keeps `beyond` labels
            // past the depth.
            let mut runs = Vec::new();
            let mut left = labels.len();
            for size in sizes {
                if left == 0 {
                    break;
                }
                runs.push(size.min(left));
                left -= size.min(left);
            }
            while left > 0 {
                runs.push(left.min(max_group));
                left -= left.min(max_group);
            }
            let beyond = beyond.min(runs.last().map_or(0, |&r| r.saturating_sub(1)));
            Case { labels, runs, beyond, level, ndcg_uses_level }
        })
}

impl Case {
    /// The full list (depth included); `relevance` ranks the first `len − beyond` of it.
    fn relevance(&self, ranked: &[i64]) -> RankedRelevance {
        // Judged documents the run never retrieved, so R and N exceed what is ranked.
        let level_counts = LevelCounts::from_labels(self.labels.iter().copied()).with(1, 1).with(0, 1);
        RankedRelevance {
            ranked: ranked[..ranked.len() - self.beyond].to_vec(),
            level_counts,
            relevance_level: self.level,
            ndcg_uses_level: self.ndcg_uses_level,
        }
    }

    fn ranking(&self) -> TiedRanking {
        let depth = self.labels.len() - self.beyond;
        let mut runs = Vec::new();
        let mut start = 0;
        for &size in &self.runs {
            runs.push((start, size));
            start += size;
        }
        TiedRanking::new(self.relevance(&self.labels), &runs, self.labels[depth..].to_vec())
    }

    /// Every order of every run (permutations, not distinct arrangements), each measure's
    /// values over them.
    fn every_order(&self, measures: &[Measure]) -> Vec<Vec<f64>> {
        let mut values = vec![Vec::new(); measures.len()];
        let mut list = self.labels.clone();
        self.permute(0, 0, &mut list, measures, &mut values);
        values
    }

    fn permute(&self, run: usize, start: usize, list: &mut Vec<i64>, measures: &[Measure], out: &mut [Vec<f64>]) {
        if run == self.runs.len() {
            let topic = self.relevance(list);
            for (values, measure) in out.iter_mut().zip(measures) {
                values.push(topic.value(measure));
            }
            return;
        }
        let size = self.runs[run];
        let mut indices: Vec<usize> = (0..size).collect();
        let original: Vec<i64> = list[start..start + size].to_vec();
        // Heap's algorithm over the run's positions.
        let mut c = vec![0usize; size];
        self.permute(run + 1, start + size, list, measures, out);
        let mut i = 0;
        while i < size {
            if c[i] < i {
                let j = if i % 2 == 0 { 0 } else { c[i] };
                indices.swap(j, i);
                for (slot, &index) in indices.iter().enumerate() {
                    list[start + slot] = original[index];
                }
                self.permute(run + 1, start + size, list, measures, out);
                c[i] += 1;
                i = 0;
            } else {
                c[i] = 0;
                i += 1;
            }
        }
        list[start..start + size].copy_from_slice(&original);
    }
}

/// Families whose optimistic and pessimistic values are the maximum and minimum over every
/// order (monotone in moving a better document up within a group).
fn monotone(family: MeasureFamily) -> bool {
    !matches!(
        family,
        MeasureFamily::InfAp
            | MeasureFamily::G
            | MeasureFamily::NdcgRel
            | MeasureFamily::Rndcg
            | MeasureFamily::Unj
            | MeasureFamily::RbpResid
            | MeasureFamily::Utility
            | MeasureFamily::NumNonrelJudgedRet
    )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

/// Neumaier's compensated sum: the brute-force mean stays exact to the last bits over 8!
/// orders.
fn compensated_sum(values: &[f64]) -> f64 {
    let (mut sum, mut compensation) = (0.0f64, 0.0f64);
    for &v in values {
        let t = sum + v;
        compensation += if sum.abs() >= v.abs() { (sum - t) + v } else { (v - t) + sum };
        sum = t;
    }
    sum + compensation
}

/// Expected = the mean over every order (1e-12); optimistic and pessimistic = the maximum
/// and minimum for the monotone measures, every value within them otherwise.
fn check_against_every_order(case: &Case, set: &MeasureSet) -> Result<(), TestCaseError> {
    let ranking = case.ranking();
    let orders = case.every_order(set.measures());
    let expected = ranking.values(set.measures(), Ties::Expected);
    let optimistic = ranking.values(set.measures(), Ties::Optimistic);
    let pessimistic = ranking.values(set.measures(), Ties::Pessimistic);
    for (i, measure) in set.measures().iter().enumerate() {
        let values = &orders[i];
        let mean = compensated_sum(values) / values.len() as f64;
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        prop_assert!(expected[i].std_error.is_none(), "{}: estimated on a small case", measure.name);
        prop_assert!(
            close(expected[i].value, mean),
            "{}: expected {} ≠ mean {} over {} orders",
            measure.name,
            expected[i].value,
            mean,
            values.len()
        );
        for extreme in [optimistic[i].value, pessimistic[i].value] {
            prop_assert!(min - 1e-12 <= extreme && extreme <= max + 1e-12, "{}", measure.name);
        }
        if monotone(measure.family) {
            prop_assert!(
                close(optimistic[i].value, max),
                "{}: optimistic {} ≠ max {max}",
                measure.name,
                optimistic[i].value
            );
            prop_assert!(
                close(pessimistic[i].value, min),
                "{}: pessimistic {} ≠ min {min}",
                measure.name,
                pessimistic[i].value
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    #[test]
    fn expected_is_the_mean_over_every_order_and_the_extremes_its_max_and_min(case in case(4, 10)) {
        check_against_every_order(&case, &measures())?;
    }

    #[test]
    fn groups_of_up_to_eight(case in case(8, 9)) {
        // Fewer measures: up to 8! orders each.
        let names = ["map", "P.3", "recip_rank", "bpref", "ndcg", "ndcg_cut.4", "iprec_at_recall.0.5", "infAP", "yaap", "success.2", "binG", "G", "Rndcg", "ndcg_rel"];
        let set = MeasureSet::from_requests(&names.map(|n| MeasureRequest::parse(n).expect(n)));
        check_against_every_order(&case, &set)?;
    }

    #[test]
    fn groups_without_both_relevant_and_non_relevant_change_no_binary_measure(case in case(4, 12)) {
        // Relabel so that no group mixes relevant and non-relevant documents.
        let mut case = case;
        let mut start = 0;
        for &size in &case.runs {
            let relevant = case.labels[start..start + size].iter().any(|&l| l >= case.level);
            for l in &mut case.labels[start..start + size] {
                *l = if relevant { (*l).max(case.level) } else { (*l).min(case.level - 1) };
            }
            start += size;
        }
        let set = measures();
        let ranking = case.ranking();
        let range = ranking.values(set.measures(), Ties::Range);
        for (value, measure) in range.iter().zip(set.measures()) {
            let (low, high) = value.range.expect("range asked for");
            prop_assert!(low <= value.value + 1e-12 && value.value <= high + 1e-12, "{}", measure.name);
            let binary = matches!(measure.family, MeasureFamily::Map | MeasureFamily::P | MeasureFamily::Recall | MeasureFamily::RecipRank | MeasureFamily::Rprec | MeasureFamily::Success | MeasureFamily::MapCut | MeasureFamily::IprecAtRecall | MeasureFamily::ElevenPtAvg | MeasureFamily::BinG | MeasureFamily::NumRelRet);
            if binary {
                prop_assert!(close(low, high) && close(low, value.value), "{}: [{low}, {high}] around {}", measure.name, value.value);
            }
        }
    }
}

/// A large group: the closed forms against 10^5 random orders (within 4 standard errors),
/// and the sampled measures against an independent shuffle estimate.
#[test]
fn large_groups_agree_with_shuffles() {
    let mut rng = Rng(7);
    let mut labels: Vec<i64> = (0..120).map(|i| [1, 0, 0, 2, NOT_POOLED, 0, NOT_JUDGED, 1][i % 8]).collect();
    for i in (1..labels.len()).rev() {
        labels.swap(i, rng.below(i + 1));
    }
    let case = Case { labels, runs: vec![3, 60, 1, 1, 40, 15], beyond: 5, level: 1, ndcg_uses_level: false };
    // Every closed form's code path, and three measures estimated from random orders.
    let names = [
        "map",
        "map_cut.30",
        "P.50",
        "recall.70",
        "success.5",
        "recip_rank",
        "recip_rank_cut.70",
        "bpref",
        "binG",
        "ndcg",
        "ndcg_cut.70",
        "ndcg_exp_cut.10",
        "rbp.p=0.99",
        "rbp_resid.p=0.99",
        "set_map",
        "set_F",
        "num_rel_ret",
        "unj.110",
        "Rprec",
        "iprec_at_recall.0.5",
        "infAP",
        "yaap",
    ];
    let set = MeasureSet::from_requests(&names.map(|n| MeasureRequest::parse(n).expect(n)));
    let ranking = case.ranking();
    let expected = ranking.values(set.measures(), Ties::Expected);
    let (mut sums, mut squares) = (vec![0.0; set.len()], vec![0.0; set.len()]);
    let samples = 100_000;
    let mut list = case.labels.clone();
    for _ in 0..samples {
        let mut start = 0;
        for &size in &case.runs {
            for i in (1..size).rev() {
                list.swap(start + i, start + rng.below(i + 1));
            }
            start += size;
        }
        let topic = case.relevance(&list);
        for (i, measure) in set.measures().iter().enumerate() {
            let v = topic.value(measure);
            sums[i] += v;
            squares[i] += v * v;
        }
    }
    let n = f64::from(samples);
    for (i, measure) in set.measures().iter().enumerate() {
        let mean = sums[i] / n;
        let se = ((squares[i] - sums[i] * mean) / (n - 1.0)).max(0.0).sqrt() / n.sqrt();
        let theirs = expected[i].std_error.unwrap_or(0.0);
        let allowed = 4.0 * (se * se + theirs * theirs).sqrt() + 1e-12;
        assert!(
            (expected[i].value - mean).abs() <= allowed,
            "{}: {} vs shuffles {mean} ± {se}",
            measure.name,
            expected[i].value
        );
    }
    // The measures without a closed form were estimated here (the groups are too large).
    let estimated: Vec<&str> = set
        .measures()
        .iter()
        .zip(&expected)
        .filter(|(_, v)| v.std_error.is_some())
        .map(|(m, _)| m.name.as_str())
        .collect();
    assert!(estimated.iter().any(|n| n.starts_with("iprec_at_recall")), "{estimated:?}");
    assert!(!estimated.contains(&"map"), "{estimated:?}");
}

#[test]
fn hand_worked_expectations() {
    // R N N at one score, R = 1: AP = RR = (1 + 1/2 + 1/3) / 3; P@1 = 1/3; P@2 = 1/3.
    let relevance = RankedRelevance {
        ranked: vec![0, 0, 1],
        level_counts: LevelCounts::from_dense(&[2, 1]),
        relevance_level: 1,
        ndcg_uses_level: false,
    };
    let ranking = TiedRanking::new(relevance, &[(0, 3)], Vec::new());
    let set = MeasureSet::from_requests(
        &["map", "recip_rank", "P.1,2", "success.2", "bpref"].map(|n| MeasureRequest::parse(n).expect(n)),
    );
    let values: Vec<f64> = ranking.values(set.measures(), Ties::Expected).iter().map(|v| v.value).collect();
    let names: Vec<&str> = set.measures().iter().map(|m| m.name.as_str()).collect();
    let get = |name: &str| values[names.iter().position(|n| *n == name).expect(name)];
    let rr = (1.0 + 0.5 + 1.0 / 3.0) / 3.0;
    assert!(close(get("map"), rr) && close(get("recip_rank"), rr));
    assert!(close(get("P_1"), 1.0 / 3.0) && close(get("P_2"), 1.0 / 3.0));
    // success@2: 1 − P(both first two non-relevant) = 1 − (2/3)(1/2).
    assert!(close(get("success_2"), 2.0 / 3.0));
    // bpref: the relevant document has 0, 1 or 2 of the N = 2 non-relevant before it; with
    // min(N, R) = 1 one is enough to score 0: (1 + 0 + 0) / 3.
    assert!(close(get("bpref"), 1.0 / 3.0));
}

#[test]
fn one_group_of_a_million_documents_by_hand() {
    // N documents at one score, m of them relevant (R = m): every position holds a relevant
    // one with probability m/N, two positions both with m(m−1)/(N(N−1)), so
    // E[AP] = H_N / N + (m − 1)(N − H_N) / (N(N − 1)); E[P@10] = E[Rprec] = m/N, and with
    // m = 10 E[ndcg@10] = m/N too (its ideal holds 10 relevant documents).
    let (n, m) = (1_000_000usize, 10usize);
    let ranked: Vec<i64> = (0..n).map(|i| i64::from(i % (n / m) == 0)).collect();
    let relevance = RankedRelevance {
        ranked,
        level_counts: LevelCounts::from_dense(&[(n - m) as u64, m as u64]),
        relevance_level: 1,
        ndcg_uses_level: false,
    };
    let ranking = TiedRanking::new(relevance, &[(0, n)], Vec::new());
    let set =
        MeasureSet::from_requests(&["map", "P.10", "Rprec", "ndcg_cut.10"].map(|n| MeasureRequest::parse(n).expect(n)));
    let values = ranking.values(set.measures(), Ties::Expected);
    let (nf, mf) = (n as f64, m as f64);
    let harmonic: f64 = (1..=n).rev().map(|i| 1.0 / i as f64).sum();
    let map = harmonic / nf + (mf - 1.0) * (nf - harmonic) / (nf * (nf - 1.0));
    let names: Vec<&str> = set.measures().iter().map(|m| m.name.as_str()).collect();
    for (name, value) in names.iter().zip(&values) {
        let hand = if *name == "map" { map } else { mf / nf };
        assert!(close(value.value, hand), "{name}: {} against {hand}", value.value);
        assert!(value.std_error.is_none(), "{name}");
    }
}

/// Labels far apart: the gain table past its dense size, and `ndcg_exp_cut` past 2^512.
const FAR_LEVELS: [i64; 8] = [1, 2, 3, 7, 300, 1_000_000_000, 1 << 40, 1 << 53];

/// A topic with one large group holding few relevant documents (1 or 2, at far-apart levels)
/// among one filler label, after a few single documents and a small group, the large group
/// last so that a depth can cut it.
fn large_group_case() -> impl Strategy<Value = Case> {
    let single = prop_oneof![Just(NOT_POOLED), Just(NOT_JUDGED), Just(0i64), prop::sample::select(FAR_LEVELS.to_vec())];
    let filler = prop_oneof![Just(0i64), Just(NOT_POOLED), Just(NOT_JUDGED)];
    (
        prop::collection::vec(single.clone(), 0..4),
        prop::collection::vec(single, 2..=3),
        filler,
        prop::collection::vec(prop::sample::select(FAR_LEVELS.to_vec()), 1..=2),
        8usize..=30,
        0usize..=6,
        1i64..=2,
        any::<bool>(),
    )
        .prop_map(|(singles, small, filler, relevant, size, beyond, level, ndcg_uses_level)| {
            let mut labels = singles.clone();
            labels.extend(&small);
            let mut group = vec![filler; size - relevant.len()];
            group.extend(&relevant);
            labels.extend(&group);
            let mut runs = vec![1; singles.len()];
            runs.extend([small.len(), size]);
            Case { labels, runs, beyond: beyond.min(size - 1), level, ndcg_uses_level }
        })
}

impl Case {
    /// Each measure's values over every distinct arrangement of every run (each as likely
    /// under a uniform order).
    fn every_arrangement(&self, measures: &[Measure]) -> Vec<Vec<f64>> {
        let mut values = vec![Vec::new(); measures.len()];
        let mut list = self.labels.clone();
        let mut bounds = Vec::new();
        let mut start = 0;
        for &size in &self.runs {
            list[start..start + size].sort_unstable();
            bounds.push((start, start + size));
            start += size;
        }
        loop {
            let topic = self.relevance(&list);
            for (out, measure) in values.iter_mut().zip(measures) {
                out.push(topic.value(measure));
            }
            // The odometer over the runs' arrangements, each in lexicographic order.
            if !bounds.iter().any(|&(from, to)| super::orders::next_permutation(&mut list[from..to])) {
                break;
            }
        }
        values
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn large_groups_with_few_relevant_at_far_levels_match_every_arrangement(case in large_group_case()) {
        let names = [
            "map", "map_cut.5", "P.3,20", "recall.10", "Rprec", "recip_rank", "recip_rank_cut.10", "success.5",
            "bpref", "binG", "ndcg", "ndcg_cut.10", "ndcg_exp_cut.10", "ndcg_rel", "rbp.p=0.9", "set_map", "Rndcg",
            "ndcg.7=0.5,300=2",
        ];
        let set = MeasureSet::from_requests(&names.map(|n| MeasureRequest::parse(n).expect(n)));
        let ranking = case.ranking();
        let values = case.every_arrangement(set.measures());
        let expected = ranking.values(set.measures(), Ties::Expected);
        for ((measure, values), expected) in set.measures().iter().zip(&values).zip(&expected) {
            let mean = compensated_sum(values) / values.len() as f64;
            prop_assert!(expected.std_error.is_none(), "{}: estimated", measure.name);
            prop_assert!(close(expected.value, mean), "{}: expected {} ≠ mean {mean} over {} arrangements", measure.name, expected.value, values.len());
        }
    }
}
