//! Per-query rank records and their aggregation.

use std::hash::Hash;

use kgeval_model::rank::results::RankSummary;
use kgeval_model::{ItemId, ScoreTable, SystemId};
use rustc_hash::FxHashMap;

/// One query's outcome: the rank of its gold (absent: `None`) and whether the gold was inside
/// a score tie.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RankRecord {
    /// The 1-based rank (fractional under the `expected` policy); `None` when the gold is not
    /// in the ranking (reciprocal rank 0, no hit, still in the denominator).
    pub rank: Option<f64>,
    /// Whether the gold shared its score with another candidate.
    pub tied: bool,
}

impl RankRecord {
    /// A gold at `rank`, not tied.
    #[must_use]
    pub const fn at(rank: f64) -> Self {
        RankRecord { rank: Some(rank), tied: false }
    }

    /// A gold absent from the ranking.
    #[must_use]
    pub const fn absent() -> Self {
        RankRecord { rank: None, tied: false }
    }

    /// 1 / rank, 0 when absent.
    #[must_use]
    pub fn reciprocal_rank(&self) -> f64 {
        self.rank.map_or(0.0, |r| 1.0 / r)
    }

    /// Whether rank ≤ k (never when absent).
    #[must_use]
    pub fn hit(&self, k: u32) -> bool {
        self.rank.is_some_and(|r| r <= f64::from(k))
    }
}

/// Running sums over rank records; [`RankAccumulator::summary`] divides.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RankAccumulator {
    queries: usize,
    reciprocal_sum: f64,
    hits: Vec<usize>,
    rank_sum: f64,
    ranked: usize,
    tied: usize,
}

impl RankAccumulator {
    /// Empty sums for the cut-offs `ks`.
    #[must_use]
    pub fn new(ks: &[u32]) -> Self {
        RankAccumulator { hits: vec![0; ks.len()], ..Self::default() }
    }

    /// Adds one query.
    pub fn add(&mut self, record: &RankRecord, ks: &[u32]) {
        self.queries += 1;
        self.reciprocal_sum += record.reciprocal_rank();
        for (count, &k) in self.hits.iter_mut().zip(ks) {
            *count += usize::from(record.hit(k));
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
            hits: ks.iter().zip(&self.hits).map(|(&k, &c)| (k, mean(c as f64))).collect(),
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
        table.set(system, item, metric, f64::from(u8::from(record.hit(k))));
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
        let tied = RankRecord { rank: Some(1.5), tied: true };
        assert!(!tied.hit(1));
        assert!(tied.hit(3));
        let s = summarize(&[tied], &[1, 3]);
        assert_eq!((s.gold_tied, s.mrr), (1, 1.0 / 1.5));
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
