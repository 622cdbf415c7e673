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
    use super::LevelCounts;

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
