//! Ranks of targets under tie policies, and full orders.

use std::cmp::Ordering;

use kgeval_model::ranking::{TieBreak, TiePolicy, Tolerance};

use super::run::{break_tie, score_key, sort_keyed, TieKey};

/// Where a target stands among scored candidates: how many score strictly higher and how many
/// score the same (the target included). Enough for the optimistic, pessimistic, expected and
/// rounded-mean ranks; KGC rank files give these two numbers directly, and
/// [`rank_row`](super::rank_row) computes them for every target of a dense score row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScorePosition {
    /// Candidates scoring strictly higher than the target.
    pub greater: usize,
    /// Candidates scoring the same as the target, the target included (≥ 1).
    pub equal: usize,
}

impl ScorePosition {
    /// Counts over `scores` (the target's own score included) for a target scoring
    /// `target_score`.
    #[must_use]
    pub fn of(scores: impl IntoIterator<Item = f64>, target_score: f64) -> Self {
        let mut position = ScorePosition::default();
        for s in scores {
            if s > target_score {
                position.greater += 1;
            } else if s == target_score {
                position.equal += 1;
            }
        }
        position
    }

    /// Counts where a tie is LibKGE's `isclose` under `tolerance` (see [`Tolerance`]): `equal`
    /// counts the scores close to `target_score` (the target's own included), `greater` the
    /// scores above it that are **not** close (LibKGE: `is_greater & ~is_close`). NaN scores
    /// count in neither. Computed in `f64`, the precision of the inputs.
    ///
    /// ```
    /// use kgeval_metrics::ranking::ScorePosition;
    /// use kgeval_model::ranking::Tolerance;
    /// // 10.0005 is within 1e-5 + 1e-4 · 10 of 10: a tie, not a better score.
    /// let position = ScorePosition::of_tolerant([10.0005, 10.0, 9.0], 10.0, Tolerance::LIBKGE);
    /// assert_eq!((position.greater, position.equal), (0, 2));
    /// ```
    #[must_use]
    pub fn of_tolerant(scores: impl IntoIterator<Item = f64>, target_score: f64, tolerance: Tolerance) -> Self {
        let allowed = tolerance.atol + (tolerance.rtol * target_score).abs();
        let mut position = ScorePosition::default();
        for s in scores {
            let difference = (s - target_score).abs();
            let close = s == target_score || (difference <= allowed && difference.is_finite());
            position.greater += usize::from(s > target_score && !close);
            position.equal += usize::from(close);
        }
        position
    }

    /// The target ranks first among its ties: greater + 1.
    #[must_use]
    pub fn optimistic(self) -> f64 {
        (self.greater + 1) as f64
    }

    /// The target ranks last among its ties: greater + equal.
    #[must_use]
    pub fn pessimistic(self) -> f64 {
        (self.greater + self.equal.max(1)) as f64
    }

    /// The mean rank over the orders of the tie: greater + (equal + 1) / 2 (PyKEEN's
    /// realistic rank).
    #[must_use]
    pub fn realistic(self) -> f64 {
        self.greater as f64 + (self.equal.max(1) as f64 + 1.0) / 2.0
    }

    /// The mean rank of the tie rounded up: greater + ⌊equal / 2⌋ + 1 (LibKGE's
    /// `rounded_mean_rank`: its `rank + num_ties // 2` is 0-based).
    #[must_use]
    pub fn rounded_mean(self) -> f64 {
        (self.greater + self.equal.max(1) / 2 + 1) as f64
    }

    /// The rank under a count policy (`optimistic`, `pessimistic`, `realistic` and `expected`
    /// (the mean rank), `rounded-mean`); `None` for the order policies, which need identifiers to break ties.
    #[must_use]
    pub fn rank(self, policy: TiePolicy) -> Option<f64> {
        match policy {
            TiePolicy::Optimistic => Some(self.optimistic()),
            TiePolicy::Pessimistic => Some(self.pessimistic()),
            TiePolicy::Realistic | TiePolicy::Expected => Some(self.realistic()),
            TiePolicy::RoundedMean => Some(self.rounded_mean()),
            TiePolicy::Order(_) => None,
        }
    }

    /// Whether the target shares its score with another candidate.
    #[must_use]
    pub fn is_tied(self) -> bool {
        self.equal > 1
    }
}

/// A score rounded to 12 decimal places the way Python's `round(x, 12)` does (correctly
/// rounded from the exact binary value), as OAEI-Bio-ML-eval does before comparing scores.
#[must_use]
pub fn quantize_12dp(score: f64) -> f64 {
    if !score.is_finite() {
        return score;
    }
    // `{:.12}` rounds the exact decimal expansion, half to even, like CPython's round().
    format!("{score:.12}").parse().unwrap_or(score)
}

/// The 1-based rank of `candidates[target]` among `candidates` (identifier, score; in
/// submission order) under `policy`:
///
/// - an order ([`TiePolicy::Order`]): 1 + the candidates before it in the core's order
///   (score descending, ties by the [`TieBreak`]: `stable` = earlier equal candidates first,
///   `lexicographic` = scores rounded to 12 dp then smaller identifiers first, `trec-eval` =
///   larger identifiers first; a pool's rank column is its input position);
/// - `optimistic` / `pessimistic` / `realistic` / `rounded-mean`: from [`ScorePosition`]
///   (exact ties; [`ScorePosition::of_tolerant`] for LibKGE's tolerance).
///
/// Scores must not be NaN (readers reject them).
///
/// # Panics
/// When `target` is out of bounds.
#[must_use]
pub fn rank_of<K: Ord>(candidates: &[(K, f64)], target: usize, policy: TiePolicy) -> f64 {
    let (_, score) = candidates[target];
    let position = || ScorePosition::of(candidates.iter().map(|c| c.1), score);
    match policy {
        TiePolicy::Order(tie_break) => {
            let key = score_key(score, tie_break);
            let target = pool_key(candidates, target);
            let before = candidates
                .iter()
                .enumerate()
                .filter(|&(i, (_, s))| match score_key(*s, tie_break).cmp(&key) {
                    Ordering::Less => true,
                    Ordering::Equal => break_tie(tie_break, pool_key(candidates, i), target) == Ordering::Less,
                    Ordering::Greater => false,
                })
                .count();
            (before + 1) as f64
        }
        TiePolicy::Optimistic => position().optimistic(),
        TiePolicy::Pessimistic => position().pessimistic(),
        TiePolicy::Realistic | TiePolicy::Expected => position().realistic(),
        TiePolicy::RoundedMean => position().rounded_mean(),
    }
}

/// A pool candidate's [`TieKey`]: its identifier, and its input position as rank and position.
fn pool_key<K>(candidates: &[(K, f64)], index: usize) -> TieKey<'_, K> {
    TieKey { id: &candidates[index].0, rank: index as i64 + 1, position: index as u64 }
}

/// The indices of `candidates` best first under `policy`: the core's order under the
/// policy's [`TieBreak`]. The count policies (`optimistic`, `pessimistic`, `realistic`,
/// `rounded-mean`), which rank one target rather than order a list, use the stable order.
#[must_use]
pub fn order<K: Ord>(candidates: &[(K, f64)], policy: TiePolicy) -> Vec<u32> {
    let tie_break = policy.tie_break().unwrap_or(TieBreak::Input);
    let mut keyed = Vec::with_capacity(candidates.len());
    sort_keyed(candidates.iter().map(|c| c.1), |i| pool_key(candidates, i as usize), tie_break, &mut keyed);
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// The 1-based position of `target` in an explicit ranking (best first), `None` when absent.
#[must_use]
pub fn rank_in_permutation<T: PartialEq>(ranking: &[T], target: &T) -> Option<usize> {
    ranking.iter().position(|c| c == target).map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-made pool with ties around the gold (`g`) and NIL (`nil`):
    /// x 0.9 | g 0.5, y 0.5, nil 0.5 | z 0.1 — in this submission order.
    const POOL: [(&str, f64); 5] = [("x", 0.9), ("y", 0.5), ("g", 0.5), ("nil", 0.5), ("z", 0.1)];

    #[test]
    fn every_policy_on_a_tie_of_three() {
        // gold at index 2: 1 greater, 3 equal (y, g, nil).
        assert_eq!(rank_of(&POOL, 2, TiePolicy::STABLE), 3.0); // x, y before it
        assert_eq!(rank_of(&POOL, 2, TiePolicy::LEXICOGRAPHIC), 2.0); // "g" < "nil" < "y"
        assert_eq!(rank_of(&POOL, 2, TiePolicy::TREC_EVAL), 4.0); // "y", "nil" > "g"
        assert_eq!(rank_of(&POOL, 2, TiePolicy::Optimistic), 2.0);
        assert_eq!(rank_of(&POOL, 2, TiePolicy::Pessimistic), 4.0);
        assert_eq!(rank_of(&POOL, 2, TiePolicy::Realistic), 3.0);
        assert_eq!(rank_of(&POOL, 2, TiePolicy::RoundedMean), 3.0); // 1 + ⌊3/2⌋ + 1
                                                                    // NIL at index 3.
        assert_eq!(rank_of(&POOL, 3, TiePolicy::STABLE), 4.0);
        assert_eq!(rank_of(&POOL, 3, TiePolicy::LEXICOGRAPHIC), 3.0);
        assert_eq!(rank_of(&POOL, 3, TiePolicy::TREC_EVAL), 3.0);
        // An untied candidate has the same rank under every policy.
        for policy in TiePolicy::ALL {
            assert_eq!(rank_of(&POOL, 0, policy), 1.0, "{policy}");
            assert_eq!(rank_of(&POOL, 4, policy), 5.0, "{policy}");
        }
    }

    #[test]
    fn orders_agree_with_ranks() {
        for policy in [TiePolicy::STABLE, TiePolicy::LEXICOGRAPHIC, TiePolicy::TREC_EVAL] {
            let order = order(&POOL, policy);
            for (position, &index) in order.iter().enumerate() {
                assert_eq!(rank_of(&POOL, index as usize, policy), (position + 1) as f64, "{policy}");
            }
        }
        assert_eq!(order(&POOL, TiePolicy::TREC_EVAL), vec![0, 1, 3, 2, 4]);
    }

    #[test]
    fn lexicographic_quantizes_to_12_decimal_places() {
        // 0.5 + 1e-13 rounds to 0.5: the tie is broken by identifier, "a" first.
        let pool = [("b", 0.5 + 1e-13), ("a", 0.5)];
        assert_eq!(rank_of(&pool, 1, TiePolicy::LEXICOGRAPHIC), 1.0);
        assert_eq!(rank_of(&pool, 1, TiePolicy::STABLE), 2.0);
        assert_eq!(quantize_12dp(0.123_456_789_012_49), 0.123_456_789_012);
    }

    #[test]
    fn pykeen_fixture_ranks() {
        // PyKEEN: scores [[2,2,1,3,5],[1,1,3,4,0]], true [2,3] → optimistic [3,2],
        // pessimistic [4,2], realistic [3.5,2].
        let rows: [(&[f64], usize); 2] = [(&[2.0, 2.0, 1.0, 3.0, 5.0], 0), (&[1.0, 1.0, 3.0, 4.0, 0.0], 2)];
        let expected = [(3.0, 4.0, 3.5), (2.0, 2.0, 2.0)];
        for ((scores, target), (o, p, r)) in rows.into_iter().zip(expected) {
            let position = ScorePosition::of(scores.iter().copied(), scores[target]);
            assert_eq!((position.optimistic(), position.pessimistic(), position.realistic()), (o, p, r));
        }
    }

    #[test]
    fn libkge_tie_handling_example() {
        // LibKGE config-default.yaml: a 10, b 10, c 10, d 11, e 9; correct a → best_rank 2,
        // worst_rank 4, rounded_mean_rank 3. The same with exact ties and with isclose.
        let scores = [10.0, 10.0, 10.0, 11.0, 9.0];
        for position in [ScorePosition::of(scores, 10.0), ScorePosition::of_tolerant(scores, 10.0, Tolerance::LIBKGE)] {
            assert_eq!((position.greater, position.equal), (1, 3));
            assert_eq!((position.optimistic(), position.pessimistic(), position.rounded_mean()), (2.0, 4.0, 3.0));
        }
        let pool: Vec<(&str, f64)> = ["a", "b", "c", "d", "e"].into_iter().zip(scores).collect();
        assert_eq!(rank_of(&pool, 0, TiePolicy::RoundedMean), 3.0);
    }

    #[test]
    fn rounded_mean_rounds_the_mean_rank_up() {
        // e = 1, 2, 3, 4 with g = 5: means 6, 6.5, 7, 7.5 → 6, 7, 7, 8.
        for (equal, rank) in [(1, 6.0), (2, 7.0), (3, 7.0), (4, 8.0)] {
            let position = ScorePosition { greater: 5, equal };
            assert_eq!(position.rounded_mean(), rank);
            assert_eq!(position.rank(TiePolicy::RoundedMean), Some(rank));
            assert_eq!(position.realistic().ceil(), rank);
        }
        assert_eq!(ScorePosition { greater: 5, equal: 1 }.rank(TiePolicy::TREC_EVAL), None);
    }

    #[test]
    fn tolerant_ties_follow_torch_isclose() {
        let tolerance = Tolerance { atol: 1e-5, rtol: 1e-4 };
        // Allowed difference around a target of 100: 1e-5 + 1e-2 — rtol scales the target.
        let position = ScorePosition::of_tolerant([100.009, 100.011, 99.991, 99.989, 100.0], 100.0, tolerance);
        assert_eq!((position.greater, position.equal), (1, 3));
        // A close score above the target is a tie, not "greater"; around 0 only atol counts.
        let position = ScorePosition::of_tolerant([0.000_009, 0.000_011, -0.000_009, 0.0], 0.0, tolerance);
        assert_eq!((position.greater, position.equal), (1, 3));
        // Infinities tie only with themselves; NaN with nothing.
        let position = ScorePosition::of_tolerant([f64::INFINITY, f64::NAN, 1.0], f64::INFINITY, tolerance);
        assert_eq!((position.greater, position.equal), (0, 1));
        let position = ScorePosition::of_tolerant([f64::INFINITY, f64::NAN, 1.0], 1.0, tolerance);
        assert_eq!((position.greater, position.equal), (1, 1));
    }

    #[test]
    fn permutation_rank() {
        assert_eq!(rank_in_permutation(&["a", "b", "c"], &"c"), Some(3));
        assert_eq!(rank_in_permutation(&["a", "b", "c"], &"d"), None);
    }
}
