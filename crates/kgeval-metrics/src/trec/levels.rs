//! A topic's judged documents counted per relevance level, sparsely: trec_eval keeps one
//! counter per level from 0 to the largest (`rel_levels` in `form_res_rels.c`), which a label
//! of 2^40 turns into terabytes; here a level costs one entry only when some document has it.

/// Levels below this are counted in a fixed array before the sparse list is made.
const SMALL_LEVELS: usize = 16;

/// The judged documents of a topic per relevance level (negative judgments not counted):
/// `(level, count)` in increasing level, every count positive.
///
/// ```
/// use kgeval_metrics::trec::LevelCounts;
///
/// let counts = LevelCounts::from_labels([2, 0, 1 << 40, 2, -1]);
/// assert_eq!(counts.iter().collect::<Vec<_>>(), [(0, 1), (2, 2), (1 << 40, 1)]);
/// assert_eq!(counts, LevelCounts::from_dense(&[1, 0, 2]).with(1 << 40, 1));
/// assert_eq!((counts.at_least(2), counts.below(2)), (3, 1));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LevelCounts(Vec<(i64, u64)>);

impl LevelCounts {
    /// The counts of `labels`; negative ones (pooled, not judged) are skipped.
    #[must_use]
    pub fn from_labels(labels: impl IntoIterator<Item = i64>) -> Self {
        let mut small = [0u64; SMALL_LEVELS];
        let mut large = Vec::new();
        for label in labels {
            match usize::try_from(label) {
                Ok(level) if level < SMALL_LEVELS => small[level] += 1,
                Ok(_) => large.push(label),
                Err(_) => {}
            }
        }
        large.sort_unstable();
        let mut counts: Vec<(i64, u64)> =
            small.iter().enumerate().filter(|(_, &c)| c > 0).map(|(level, &c)| (level as i64, c)).collect();
        for label in large {
            match counts.last_mut() {
                Some((level, count)) if *level == label => *count += 1,
                _ => counts.push((label, 1)),
            }
        }
        LevelCounts(counts)
    }

    /// The counts of levels 0, 1, 2, … given one per level (zeros skipped).
    #[must_use]
    pub fn from_dense(counts: &[u64]) -> Self {
        LevelCounts(counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(level, &c)| (level as i64, c)).collect())
    }

    /// These counts with `count` more documents at `level` (≥ 0).
    #[must_use]
    pub fn with(mut self, level: i64, count: u64) -> Self {
        if level >= 0 && count > 0 {
            match self.0.binary_search_by_key(&level, |&(l, _)| l) {
                Ok(at) => self.0[at].1 += count,
                Err(at) => self.0.insert(at, (level, count)),
            }
        }
        self
    }

    /// Every `(level, count)`, in increasing level.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (i64, u64)> + '_ {
        self.0.iter().copied()
    }

    /// The documents at `level`.
    #[must_use]
    pub fn count(&self, level: i64) -> u64 {
        self.0.binary_search_by_key(&level, |&(l, _)| l).map_or(0, |at| self.0[at].1)
    }

    /// The largest level judged, `None` when no document is.
    #[must_use]
    pub fn max_level(&self) -> Option<i64> {
        self.0.last().map(|&(level, _)| level)
    }

    /// The documents at `level` or above.
    #[must_use]
    pub fn at_least(&self, level: i64) -> u64 {
        self.iter().filter(|&(l, _)| l >= level).map(|(_, c)| c).sum()
    }

    /// The documents below `level`.
    #[must_use]
    pub fn below(&self, level: i64) -> u64 {
        self.iter().filter(|&(l, _)| l < level).map(|(_, c)| c).sum()
    }
}

#[cfg(test)]
mod tests {
    use kgeval_model::trec::{IrOptions, MeasureRequest, MeasureSet, Qrels, Run, Ties};

    use super::LevelCounts;
    use crate::trec::evaluate_run;

    /// q1 judges d1 at 2^40, d2 at 10^9, d4 at 1, d3 at 0; the run ranks d3, d1, d2, then
    /// the unjudged d5.
    fn huge_labels(ties: Ties) -> Vec<f64> {
        let mut qrels = Qrels::new();
        for (docno, label) in [("d1", 1i64 << 40), ("d2", 1_000_000_000), ("d3", 0), ("d4", 1)] {
            qrels.topic_mut("q1").insert(docno, label);
        }
        let mut run = Run::default();
        for (docno, score) in [("d3", 4.0), ("d1", 3.0), ("d2", 2.0), ("d5", 1.0)] {
            run.push("q1", docno, score);
        }
        let names = ["map", "P.2", "ndcg", "ndcg_cut.2", "ndcg_exp_cut.2"];
        let measures = MeasureSet::from_requests(&names.map(|n| MeasureRequest::parse(n).expect(n)));
        let options = IrOptions { ties, ..IrOptions::default() };
        evaluate_run(&qrels, &run, &measures, &options).expect("valid").topics[0].values.clone()
    }

    #[test]
    fn labels_of_two_to_the_forty_and_ten_to_the_nine_score_by_hand() {
        let (top, second) = ((1i64 << 40) as f64, 1e9);
        let log2 = |x: f64| x.log2();
        // Relevant (≥ 1): d1, d2, d4, so R = 3; at ranks 2 and 3: AP = (1/2 + 2/3) / 3.
        let map = (0.5 + 2.0 / 3.0) / 3.0;
        // A label is its own gain: dcg = 0 + 2^40/log2 3 + 10^9/log2 4; the ideal puts
        // 2^40, 10^9, 1 at ranks 1, 2, 3.
        let ndcg = (top / log2(3.0) + second / 2.0) / (top + second / log2(3.0) + 1.0 / 2.0);
        let ndcg_cut_2 = (top / log2(3.0)) / (top + second / log2(3.0));
        // 2^(2^40) − 1 dwarfs every other gain: the ideal at 2 is that gain at rank 1, the
        // run has it at rank 2.
        let exp_cut_2 = 1.0 / log2(3.0);
        // trec_eval's order: map, P_2, ndcg, ndcg_cut_2, ndcg_exp_cut_2.
        let by_hand = [map, 0.5, ndcg, ndcg_cut_2, exp_cut_2];
        for ties in [Ties::Trec, Ties::Expected] {
            let values = huge_labels(ties);
            for (value, hand) in values.iter().zip(by_hand) {
                assert!((value - hand).abs() <= 1e-15, "{ties:?}: {values:?} against {by_hand:?}");
            }
        }
    }

    #[test]
    fn far_apart_levels_cost_one_entry_each() {
        let counts = LevelCounts::from_labels([i64::MAX, 3, 1 << 40, -2, 1 << 40, 15, 16, 0]);
        assert_eq!(counts.iter().collect::<Vec<_>>(), [(0, 1), (3, 1), (15, 1), (16, 1), (1 << 40, 2), (i64::MAX, 1)]);
        assert_eq!((counts.count(1 << 40), counts.count(4), counts.max_level()), (2, 0, Some(i64::MAX)));
        assert_eq!((counts.at_least(16), counts.below(16)), (4, 3));
        assert_eq!(LevelCounts::from_labels([-1, -2]).max_level(), None);
        assert_eq!(LevelCounts::from_dense(&[0, 2]).with(1, 1).with(-1, 5), LevelCounts::from_labels([1, 1, 1]));
    }
}
