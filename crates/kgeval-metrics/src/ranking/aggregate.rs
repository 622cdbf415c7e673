//! Per-query rank records and their aggregation.

use std::hash::Hash;

use kgeval_model::rank::results::RankSummary;
use kgeval_model::{ItemId, ScoreTable, SystemId};
use rustc_hash::FxHashMap;

/// One query's outcome: the rank of its gold (absent: `None`) and whether the gold was inside
/// a score tie.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RankRecord {
    /// The 1-based rank (fractional under the `realistic` and `expected` policies); `None`
    /// when the gold is not in the ranking (reciprocal rank 0, no hit, still in the
    /// denominator).
    pub rank: Option<f64>,
    /// Whether the gold shared its score with another candidate.
    pub tied: bool,
    /// Under the `expected` policy, the tied places the rank is uniform over (its mean is
    /// `rank`): reciprocal rank and hits are then their expectations. 0 or 1: one rank.
    pub places: u32,
}

/// The n-th harmonic number H(n) = Σ_{i ≤ n} 1/i: summed up to 1024, beyond by its
/// asymptotic series (error below 1e-20 there).
fn harmonic(n: u64) -> f64 {
    const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;
    if n <= 1024 {
        return (1..=n).rev().map(|i| 1.0 / i as f64).sum();
    }
    let x = n as f64;
    let x2 = x * x;
    x.ln() + EULER_GAMMA + 1.0 / (2.0 * x) - 1.0 / (12.0 * x2) + 1.0 / (120.0 * x2 * x2) - 1.0 / (252.0 * x2 * x2 * x2)
}

impl RankRecord {
    /// A gold at `rank`, not tied.
    #[must_use]
    pub const fn at(rank: f64) -> Self {
        RankRecord { rank: Some(rank), tied: false, places: 1 }
    }

    /// A gold absent from the ranking.
    #[must_use]
    pub const fn absent() -> Self {
        RankRecord { rank: None, tied: false, places: 1 }
    }

    /// A gold with `greater` candidates above it and `equal` at its score (itself included)
    /// under the `expected` policy: the rank uniform over greater + 1 … greater + equal.
    #[must_use]
    pub fn expected(greater: usize, equal: usize) -> Self {
        let equal = equal.max(1);
        RankRecord {
            rank: Some(greater as f64 + (equal as f64 + 1.0) / 2.0),
            tied: equal > 1,
            places: u32::try_from(equal).unwrap_or(u32::MAX),
        }
    }

    /// The first and last place of a rank uniform over `places` (`None` for a single rank).
    fn span(&self) -> Option<(u64, u64)> {
        let rank = self.rank?;
        (self.places > 1).then(|| {
            let first = (rank - (f64::from(self.places) - 1.0) / 2.0).round() as u64;
            (first, first + u64::from(self.places) - 1)
        })
    }

    /// 1 / rank, 0 when absent; under `expected`, E[1/rank] = (H(last) − H(first − 1)) / places.
    #[must_use]
    pub fn reciprocal_rank(&self) -> f64 {
        match self.span() {
            Some((first, last)) if first > 1024 => (harmonic(last) - harmonic(first - 1)) / f64::from(self.places),
            Some((first, last)) => (first..=last).rev().map(|r| 1.0 / r as f64).sum::<f64>() / f64::from(self.places),
            None => self.rank.map_or(0.0, |r| 1.0 / r),
        }
    }

    /// Whether rank ≤ k (never when absent).
    #[must_use]
    pub fn hit(&self, k: u32) -> bool {
        self.rank.is_some_and(|r| r <= f64::from(k))
    }

    /// The hit at `k` as a number: 1 or 0, and under `expected` the share of the tied places
    /// within the first `k`.
    #[must_use]
    pub fn hit_share(&self, k: u32) -> f64 {
        match self.span() {
            Some((first, last)) => {
                let within = (u64::from(k) + 1).saturating_sub(first).min(last + 1 - first);
                within as f64 / f64::from(self.places)
            }
            None => f64::from(u8::from(self.hit(k))),
        }
    }
}

/// Running sums over rank records; [`RankAccumulator::summary`] divides.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RankAccumulator {
    queries: usize,
    reciprocal_sum: f64,
    hits: Vec<f64>,
    rank_sum: f64,
    ranked: usize,
    tied: usize,
}

impl RankAccumulator {
    /// Empty sums for the cut-offs `ks`.
    #[must_use]
    pub fn new(ks: &[u32]) -> Self {
        RankAccumulator { hits: vec![0.0; ks.len()], ..Self::default() }
    }

    /// Adds one query.
    pub fn add(&mut self, record: &RankRecord, ks: &[u32]) {
        self.queries += 1;
        self.reciprocal_sum += record.reciprocal_rank();
        for (count, &k) in self.hits.iter_mut().zip(ks) {
            *count += record.hit_share(k);
        }
        if let Some(rank) = record.rank {
            self.rank_sum += rank;
            self.ranked += 1;
        }
        self.tied += usize::from(record.tied);
    }

    /// Means over the added queries (0 for an empty set).
    #[must_use]
    pub fn summary(&self, ks: &[u32]) -> RankSummary {
        let n = self.queries as f64;
        let mean = |sum: f64| if self.queries == 0 { 0.0 } else { sum / n };
        RankSummary {
            queries: self.queries,
            mrr: mean(self.reciprocal_sum),
            hits: ks.iter().zip(&self.hits).map(|(&k, &c)| (k, mean(c))).collect(),
            mean_rank: (self.ranked > 0).then(|| self.rank_sum / self.ranked as f64),
            ranked: self.ranked,
            gold_tied: self.tied,
        }
    }
}

/// Mean over queries: MRR and Hits@k for each k in `ks`.
#[must_use]
pub fn summarize<'a>(records: impl IntoIterator<Item = &'a RankRecord>, ks: &[u32]) -> RankSummary {
    let mut sums = RankAccumulator::new(ks);
    for record in records {
        sums.add(record, ks);
    }
    sums.summary(ks)
}

/// Mean over queries per value of a grouping key, groups in first-seen order.
#[must_use]
pub fn summarize_by<'a, K: Hash + Eq + Clone>(
    records: impl IntoIterator<Item = (K, &'a RankRecord)>,
    ks: &[u32],
) -> Vec<(K, RankSummary)> {
    let mut index: FxHashMap<K, usize> = FxHashMap::default();
    let mut groups: Vec<(K, RankAccumulator)> = Vec::new();
    for (key, record) in records {
        let slot = *index.entry(key.clone()).or_insert_with(|| {
            groups.push((key, RankAccumulator::new(ks)));
            groups.len() - 1
        });
        groups[slot].1.add(record, ks);
    }
    groups.into_iter().map(|(k, sums)| (k, sums.summary(ks))).collect()
}

/// The unweighted mean of several summaries (DISO's MACRO over pairs): every mean is averaged,
/// counts (`queries`, `ranked`, `gold_tied`) are summed, never averaged. The cut-offs are those
/// of the first summary; an empty input gives the empty summary.
#[must_use]
pub fn macro_mean<'a>(summaries: impl IntoIterator<Item = &'a RankSummary>) -> RankSummary {
    let summaries: Vec<&RankSummary> = summaries.into_iter().collect();
    let Some(first) = summaries.first() else {
        return RankSummary::default();
    };
    let n = summaries.len() as f64;
    let mean_of = |f: &dyn Fn(&RankSummary) -> f64| summaries.iter().map(|s| f(s)).sum::<f64>() / n;
    let mean_ranks: Vec<f64> = summaries.iter().filter_map(|s| s.mean_rank).collect();
    RankSummary {
        queries: summaries.iter().map(|s| s.queries).sum(),
        mrr: mean_of(&|s| s.mrr),
        hits: first.hits.iter().map(|&(k, _)| (k, mean_of(&|s: &RankSummary| s.hits_at(k).unwrap_or(0.0)))).collect(),
        mean_rank: (!mean_ranks.is_empty()).then(|| mean_ranks.iter().sum::<f64>() / mean_ranks.len() as f64),
        ranked: summaries.iter().map(|s| s.ranked).sum(),
        gold_tied: summaries.iter().map(|s| s.gold_tied).sum(),
    }
}

/// Stores one query's values in the per-item score table: `rr`, `hits_at_{k}` (0/1) for each k,
/// and `rank` when the gold was ranked.
pub fn record_into_table(table: &mut ScoreTable, system: SystemId, item: ItemId, record: &RankRecord, ks: &[u32]) {
    let rr = table.metric("rr");
    table.set(system, item, rr, record.reciprocal_rank());
    for &k in ks {
        let metric = table.metric(&format!("hits_at_{k}"));
        table.set(system, item, metric, record.hit_share(k));
    }
    if let Some(rank) = record.rank {
        let metric = table.metric("rank");
        table.set(system, item, metric, rank);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KS: [u32; 4] = [1, 3, 5, 10];

    #[test]
    fn absent_gold_stays_in_the_denominator() {
        let records = [RankRecord::at(1.0), RankRecord::at(4.0), RankRecord::absent()];
        let s = summarize(&records, &KS);
        assert_eq!(s.queries, 3);
        assert_eq!(s.mrr, (1.0 + 0.25) / 3.0);
        assert_eq!(s.hits, vec![(1, 1.0 / 3.0), (3, 1.0 / 3.0), (5, 2.0 / 3.0), (10, 2.0 / 3.0)]);
        assert_eq!(s.mean_rank, Some(2.5));
        assert_eq!(s.ranked, 2);
    }

    #[test]
    fn oaei_bioml_eval_contract() {
        // Golds at ranks 2 and 1: mrr 0.75, hits@1 0.5, hits@5 = hits@10 = 1.
        let s = summarize(&[RankRecord::at(2.0), RankRecord::at(1.0)], &[1, 5, 10]);
        assert_eq!((s.mrr, s.hits_at(1), s.hits_at(5), s.hits_at(10)), (0.75, Some(0.5), Some(1.0), Some(1.0)));
    }

    #[test]
    fn breakdown_and_macro() {
        let records = [RankRecord::at(1.0), RankRecord::at(2.0), RankRecord::at(1.0), RankRecord::absent()];
        let keys = ["CLS", "DPROP", "CLS", "DPROP"];
        let groups = summarize_by(keys.iter().copied().zip(&records), &KS);
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].0, "CLS");
        assert_eq!((groups[0].1.queries, groups[0].1.mrr), (2, 1.0));
        assert_eq!((groups[1].1.queries, groups[1].1.mrr), (2, 0.25));
        // Overall is the query-weighted mean of the groups; macro is their plain mean.
        let overall = summarize(&records, &KS);
        assert_eq!(overall.mrr, (2.0 * 1.0 + 2.0 * 0.25) / 4.0);
        let m = macro_mean([&groups[0].1, &groups[1].1]);
        assert_eq!((m.queries, m.mrr), (4, 0.625));
        assert_eq!(m.hits_at(1), Some(0.5));
        assert_eq!(macro_mean([]), RankSummary::default());
    }

    #[test]
    fn expected_ranks_hit_only_when_not_above_k() {
        let tied = RankRecord { rank: Some(1.5), tied: true, places: 1 };
        assert!(!tied.hit(1));
        assert!(tied.hit(3));
        let s = summarize(&[tied], &[1, 3]);
        assert_eq!((s.gold_tied, s.mrr), (1, 1.0 / 1.5));
    }

    #[test]
    fn expected_policy_averages_the_metrics_over_the_tied_places() {
        // 2 above, 4 at the gold's score: the rank is 3, 4, 5 or 6 with probability 1/4 each.
        let record = RankRecord::expected(2, 4);
        assert_eq!((record.rank, record.tied, record.places), (Some(4.5), true, 4));
        let rr = (1.0 / 3.0 + 1.0 / 4.0 + 1.0 / 5.0 + 1.0 / 6.0) / 4.0;
        assert!((record.reciprocal_rank() - rr).abs() < 1e-15);
        // PyKEEN's realistic MRR is that of the mean rank: 1/4.5 ≠ E[1/rank].
        assert!((record.reciprocal_rank() - 1.0 / 4.5).abs() > 1e-3);
        assert_eq!([2, 3, 4, 6, 10].map(|k| record.hit_share(k)), [0.0, 0.25, 0.5, 1.0, 1.0]);
        let s = summarize(&[record, RankRecord::at(1.0)], &[1, 4]);
        assert_eq!(s.hits_at(4), Some(0.75));
        assert_eq!(s.mean_rank, Some(2.75));
        // Large ties: the harmonic series agrees with the sum term by term.
        let wide = RankRecord::expected(5_000, 3_000);
        let direct: f64 = (5_001..=8_000u32).rev().map(|r| 1.0 / f64::from(r)).sum::<f64>() / 3_000.0;
        assert!((wide.reciprocal_rank() - direct).abs() < 1e-15, "{} vs {direct}", wide.reciprocal_rank());
        // One place: the plain rank.
        assert_eq!(RankRecord::expected(3, 1), RankRecord { rank: Some(4.0), tied: false, places: 1 });
    }

    #[test]
    fn table_rows() {
        let mut table = ScoreTable::new();
        let system = table.system("lexical");
        let item = table.item("uco-stix/0", &[("pair", "uco-stix")]);
        record_into_table(&mut table, system, item, &RankRecord::at(2.0), &[1, 3]);
        let (_, _, rr) = table.find("lexical", "uco-stix/0", "rr").unwrap();
        assert_eq!(table.get(system, item, rr), Some(0.5));
        let (_, _, h3) = table.find("lexical", "uco-stix/0", "hits_at_3").unwrap();
        assert_eq!(table.get(system, item, h3), Some(1.0));
    }
}
