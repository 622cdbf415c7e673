//! The gain-based measures as trec_eval 10.0 computes them (`gain_init.c`, `m_ndcg.c`,
//! `m_ndcg_rel.c`, `m_Rndcg.c`, `m_G.c`, `m_rbp.c`): one gain table per topic, built and
//! ordered exactly as `setup_gains` does, then walked like the C loops.

use super::measures::RankedRelevance;

/// One row of trec_eval's gain table (`REL_GAIN`).
#[derive(Debug, Clone, Copy)]
struct RelGain {
    rel_level: i64,
    gain: f64,
    num_at_level: u64,
}

/// trec_eval's `GAINS`: rows sorted by increasing gain.
pub(super) struct Gains {
    rows: Vec<RelGain>,
    /// `(level, index in rows)` by increasing level: the first row of each level in `rows`.
    by_level: Vec<(i64, usize)>,
}

/// Up to this many levels (0 to the topic's largest) the gain table lists every one, judged or
/// not, exactly as `setup_gains` does; past it, only level 0, the judged levels, the levels
/// given a gain and the unjudged levels holding the least and greatest gain.
const DENSE_GAIN_LEVELS: i64 = 256;

/// `comp_rel_gain`: the difference of the gains truncated to an int, as the C returns it.
fn comp_rel_gain(a: &RelGain, b: &RelGain) -> i64 {
    (a.gain - b.gain) as i64
}

/// glibc's `qsort` on small arrays is `msort_with_tmp`, a top-down merge sort that takes the
/// left element while `cmp(left, right) <= 0`. Reproduced so that gains closer than 1, which
/// `comp_rel_gain` calls equal, land in trec_eval's order.
fn glibc_msort(rows: &mut [RelGain], tmp: &mut Vec<RelGain>) {
    let n = rows.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    glibc_msort(&mut rows[..n1], tmp);
    glibc_msort(&mut rows[n1..], tmp);
    tmp.clear();
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < n {
        if comp_rel_gain(&rows[i], &rows[j]) <= 0 {
            tmp.push(rows[i]);
            i += 1;
        } else {
            tmp.push(rows[j]);
            j += 1;
        }
    }
    tmp.extend_from_slice(&rows[i..n1]);
    tmp.extend_from_slice(&rows[j..]);
    rows.copy_from_slice(tmp);
}

impl Gains {
    /// `setup_gains`: the overrides first (in the order given), then every judged level
    /// 0..num_rel_levels not overridden with gain = level; sorted by gain. With the kgeval
    /// `--ndcg-level` option, levels below the relevance level take level 0's gain.
    ///
    /// trec_eval's table also holds the levels nobody judged between 0 and the largest; past
    /// [`DENSE_GAIN_LEVELS`] they are left out but for level 0 and those holding the table's
    /// least and greatest gain (what `rbp` rescales by and where the ideal ranking starts). A row nobody judged is otherwise skipped by every walk; only
    /// trec_eval's sort of gains less than 1 apart (it compares their difference truncated
    /// to an integer) could order the others differently.
    pub(super) fn new(topic: &RankedRelevance, overrides: &[(i64, f64)]) -> Self {
        Self::listing_every_level_up_to(topic, overrides, DENSE_GAIN_LEVELS)
    }

    /// [`Gains::new`] with the table listing every level when there are at most `dense` of
    /// them.
    fn listing_every_level_up_to(topic: &RankedRelevance, overrides: &[(i64, f64)], dense: i64) -> Self {
        let levels = &topic.level_counts;
        let num_rel_levels = levels.max_level().map_or(0, |top| top + 1);
        let mut rows: Vec<RelGain> =
            overrides.iter().map(|&(rel_level, gain)| RelGain { rel_level, gain, num_at_level: 0 }).collect();
        let add = |rows: &mut Vec<RelGain>, level: i64, count: u64| match rows.iter_mut().find(|r| r.rel_level == level)
        {
            Some(row) => row.num_at_level = count,
            None => rows.push(RelGain { rel_level: level, gain: level as f64, num_at_level: count }),
        };
        if num_rel_levels <= dense {
            let mut judged = levels.iter().peekable();
            for level in 0..num_rel_levels {
                let count = judged.next_if(|&(l, _)| l == level).map_or(0, |(_, c)| c);
                add(&mut rows, level, count);
            }
        } else {
            // The levels between 0 and the top that nobody judged nor gave a gain (gain =
            // level, or level 0's under `--ndcg-level` below the relevance level): the
            // greatest, the least, and the least not levelled keep the table's extremes.
            let top = num_rel_levels - 1;
            let listed = |level: i64| levels.count(level) > 0 || overrides.iter().any(|o| o.0 == level);
            let walk = |mut level: i64, step: i64| {
                while 0 < level && level < top && listed(level) {
                    level += step;
                }
                (0 < level && level < top).then_some((level, 0))
            };
            let unlevelled = topic.ndcg_uses_level.then(|| walk(topic.relevance_level.max(1), 1)).flatten();
            let extremes = [walk(top - 1, -1), walk(1, 1), unlevelled];
            let mut sparse: Vec<(i64, u64)> = levels.iter().collect();
            sparse.push((0, levels.count(0)));
            sparse.extend(extremes.into_iter().flatten());
            sparse.sort_unstable();
            sparse.dedup_by_key(|&mut (level, _)| level);
            for (level, count) in sparse {
                add(&mut rows, level, count);
            }
        }
        if topic.ndcg_uses_level {
            let zero = overrides.iter().find(|o| o.0 == 0).map_or(0.0, |o| o.1);
            for row in rows.iter_mut().filter(|r| (0..topic.relevance_level).contains(&r.rel_level)) {
                row.gain = zero;
            }
        }
        let mut tmp = Vec::with_capacity(rows.len());
        glibc_msort(&mut rows, &mut tmp);
        // `get_gain` takes a level's first row in gain order: a stable sort by level keeps it
        // first among its level's rows.
        let mut by_level: Vec<(i64, usize)> = rows.iter().enumerate().map(|(i, r)| (r.rel_level, i)).collect();
        by_level.sort_by_key(|&(level, _)| level);
        by_level.dedup_by_key(|&mut (level, _)| level);
        Gains { rows, by_level }
    }

    /// `get_gain`: the first row of `rel_level`, 0 when there is none.
    pub(super) fn gain(&self, rel_level: i64) -> f64 {
        match self.by_level.binary_search_by_key(&rel_level, |&(level, _)| level) {
            Ok(at) => self.rows[self.by_level[at].1].gain,
            Err(_) => 0.0,
        }
    }

    /// The ideal ranking's gains, best first, as the C loops step through them: the next gain
    /// (0 once the positive levels are used up).
    fn ideal(&self) -> IdealGains<'_> {
        let cur_level = self.rows.len() as isize - 1;
        let gain = if cur_level >= 0 { self.rows[cur_level as usize].gain } else { 0.0 };
        IdealGains { gains: self, cur_level, num_at_level: 0, gain }
    }
}

/// The C state `cur_level`, `num_at_level`, `ideal_gain`.
struct IdealGains<'a> {
    gains: &'a Gains,
    cur_level: isize,
    num_at_level: u64,
    gain: f64,
}

impl IdealGains<'_> {
    /// One rank further down the ideal ranking; returns the ideal gain there.
    fn step(&mut self) -> f64 {
        self.num_at_level += 1;
        while self.cur_level >= 0 && self.num_at_level > self.gains.rows[self.cur_level as usize].num_at_level {
            self.num_at_level = 1;
            self.cur_level -= 1;
            self.gain = if self.cur_level >= 0 { self.gains.rows[self.cur_level as usize].gain } else { 0.0 };
        }
        self.gain
    }
}

pub(super) fn discount(i: usize) -> f64 {
    ((i + 2) as f64).log2()
}

/// `m_ndcg.c`: (dcg, ideal dcg) over the whole ranking.
pub(super) fn dcg_and_ideal(topic: &RankedRelevance, overrides: &[(i64, f64)]) -> (f64, f64) {
    let gains = Gains::new(topic, overrides);
    let mut ideal = gains.ideal();
    let (mut results_dcg, mut ideal_dcg) = (0.0, 0.0);
    let mut i = 0;
    while i < topic.ranked.len() && ideal.gain > 0.0 {
        let results_gain = gains.gain(topic.ranked[i]);
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
        let ideal_gain = ideal.step();
        if ideal_gain > 0.0 {
            ideal_dcg += ideal_gain / discount(i);
        }
        i += 1;
    }
    for (i, &rel) in topic.ranked.iter().enumerate().skip(i) {
        let results_gain = gains.gain(rel);
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
    }
    i = i.max(topic.ranked.len());
    while ideal.gain > 0.0 {
        let ideal_gain = ideal.step();
        if ideal_gain > 0.0 {
            ideal_dcg += ideal_gain / discount(i);
        }
        i += 1;
    }
    (results_dcg, ideal_dcg)
}

/// `m_ndcg.c`: dcg ÷ ideal dcg, 0 when the ideal is 0.
pub(super) fn ndcg(topic: &RankedRelevance, overrides: &[(i64, f64)]) -> f64 {
    let (dcg, ideal) = dcg_and_ideal(topic, overrides);
    if ideal > 0.0 {
        dcg / ideal
    } else {
        0.0
    }
}

/// `m_ndcg_rel.c`: ndcg averaged over the relevant (positive-gain) documents; a relevant
/// document not retrieved counts the final dcg ÷ its ideal dcg.
pub(super) fn ndcg_rel(topic: &RankedRelevance, overrides: &[(i64, f64)]) -> f64 {
    let gains = Gains::new(topic, overrides);
    let mut ideal = gains.ideal();
    let (mut results_dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
    let (mut num_rel_ret, mut num_rel) = (0u64, 0u64);
    let mut i = 0;
    while i < topic.ranked.len() && ideal.gain > 0.0 {
        let results_gain = gains.gain(topic.ranked[i]);
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
        let ideal_gain = ideal.step();
        if ideal_gain > 0.0 {
            num_rel += 1;
            ideal_dcg += ideal_gain / discount(i);
        }
        if results_gain > 0.0 {
            sum += results_dcg / ideal_dcg;
            num_rel_ret += 1;
        }
        i += 1;
    }
    while i < topic.ranked.len() {
        let results_gain = gains.gain(topic.ranked[i]);
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
        if results_gain > 0.0 {
            sum += results_dcg / ideal_dcg;
            num_rel_ret += 1;
        }
        i += 1;
    }
    while ideal.gain > 0.0 {
        let ideal_gain = ideal.step();
        if ideal_gain > 0.0 {
            num_rel += 1;
            ideal_dcg += ideal_gain / discount(i);
        }
        i += 1;
    }
    sum += (num_rel as f64 - num_rel_ret as f64) * results_dcg / ideal_dcg;
    if sum > 0.0 {
        sum / num_rel as f64
    } else {
        0.0
    }
}

/// `m_ndcg_rel.c`'s ideal side, which no order of the run changes: the ideal DCG at each
/// rank of the ranking (through that rank), the whole ideal DCG and the number of positive
/// ideal gains (R).
pub(super) fn ndcg_rel_ideal(topic: &RankedRelevance, gains: &Gains) -> (Vec<f64>, f64, u64) {
    let mut ideal = gains.ideal();
    let (mut ideal_dcg, mut num_rel) = (0.0, 0u64);
    let mut at = Vec::with_capacity(topic.ranked.len());
    let mut i = 0;
    while i < topic.ranked.len() || ideal.gain > 0.0 {
        if ideal.gain > 0.0 {
            let ideal_gain = ideal.step();
            if ideal_gain > 0.0 {
                num_rel += 1;
                ideal_dcg += ideal_gain / discount(i);
            }
        }
        if i < topic.ranked.len() {
            at.push(ideal_dcg);
        }
        i += 1;
    }
    (at, ideal_dcg, num_rel)
}

/// `m_Rndcg.c`: ndcg averaged at the points where the ideal gain changes (and at the end of
/// the ranking when it ends after the positive gains). trec_eval divides 0 by 0 when no such
/// point exists (all positive-gain levels empty); kgeval gives 0 there.
pub(super) fn rndcg(topic: &RankedRelevance, overrides: &[(i64, f64)]) -> f64 {
    let gains = Gains::new(topic, overrides);
    rndcg_of(topic, &gains, |i| gains.gain(topic.ranked[i]))
}

/// [`rndcg`] with the gain at each rank given by `results_gain` (linear in it: the tie
/// policies pass each rank's expected gain).
pub(super) fn rndcg_of(topic: &RankedRelevance, gains: &Gains, results_gain_at: impl Fn(usize) -> f64) -> f64 {
    if topic.num_rel() == 0 {
        return 0.0;
    }
    let mut ideal = gains.ideal();
    let mut old_ideal_gain = ideal.gain;
    let (mut results_dcg, mut ideal_dcg, mut sum) = (0.0, 0.0, 0.0);
    let mut changes = 0u64;
    let mut i = 0;
    while i < topic.ranked.len() && ideal.gain > 0.0 {
        let results_gain = results_gain_at(i);
        let ideal_gain = ideal.step();
        if old_ideal_gain != ideal_gain {
            if ideal_dcg > 0.0 {
                sum += results_dcg / ideal_dcg;
                changes += 1;
            }
            old_ideal_gain = ideal_gain;
        }
        if results_gain != 0.0 {
            results_dcg += results_gain / discount(i);
        }
        if ideal_gain > 0.0 {
            ideal_dcg += ideal_gain / discount(i);
        }
        i += 1;
    }
    if i < topic.ranked.len() {
        for i in i..topic.ranked.len() {
            let results_gain = results_gain_at(i);
            if results_gain != 0.0 {
                results_dcg += results_gain / discount(i);
            }
        }
        i = topic.ranked.len();
        if ideal_dcg > 0.0 {
            sum += results_dcg / ideal_dcg;
            changes += 1;
        }
    }
    while ideal.gain > 0.0 {
        let ideal_gain = ideal.step();
        if old_ideal_gain != ideal_gain {
            if ideal_dcg > 0.0 {
                sum += results_dcg / ideal_dcg;
                changes += 1;
            }
            old_ideal_gain = ideal_gain;
        }
        if ideal_gain > 0.0 {
            ideal_dcg += ideal_gain / discount(i);
        }
        i += 1;
    }
    if changes == 0 {
        0.0
    } else {
        sum / changes as f64
    }
}

/// `m_G.c`: normalized gain, each document's gain discounted by log2(2 + ideal cost so far −
/// results gain so far), ÷ the total ideal gain.
pub(super) fn g(topic: &RankedRelevance, overrides: &[(i64, f64)]) -> f64 {
    const MIN_COST: f64 = 1.0;
    let gains = Gains::new(topic, overrides);
    let mut ideal = gains.ideal();
    let (mut results_g, mut sum_results, mut sum_ideal, mut sum_cost) = (0.0, 0.0, 0.0, 0.0);
    let mut i = 0;
    while i < topic.ranked.len() && ideal.gain > 0.0 {
        let results_gain = gains.gain(topic.ranked[i]);
        sum_results += results_gain;
        let ideal_gain = ideal.step();
        if ideal_gain > 0.0 {
            sum_ideal += ideal_gain;
        }
        sum_cost += if ideal_gain >= MIN_COST { ideal_gain } else { MIN_COST };
        if results_gain != 0.0 {
            results_g += results_gain / (2.0 + sum_cost - sum_results).log2();
        }
        i += 1;
    }
    for &rel in topic.ranked.iter().skip(i) {
        let results_gain = gains.gain(rel);
        sum_results += results_gain;
        sum_cost += MIN_COST;
        if results_gain != 0.0 {
            results_g += results_gain / (2.0 + sum_cost - sum_results).log2();
        }
    }
    while ideal.gain > 0.0 {
        let ideal_gain = ideal.step();
        if ideal_gain > 0.0 {
            sum_ideal += ideal_gain;
        }
    }
    if sum_ideal > 0.0 {
        results_g / sum_ideal
    } else {
        0.0
    }
}

/// `m_rbp.c`: (1 − p) Σ gain(rank i) p^(i−1), gains rescaled to [0, 1] when any lies outside.
/// trec_eval leaves the running min and max of that rescaling uninitialised (undefined
/// behaviour); kgeval starts them at the first gain, which is what the code means and what
/// trec_eval 10.0 prints for its own test files.
/// `rbp`'s gains: trec_eval's, rescaled to [0, 1] when any lies outside.
pub(super) fn rbp_gains(topic: &RankedRelevance, overrides: &[(i64, f64)]) -> Gains {
    let mut gains = Gains::new(topic, overrides);
    let first = gains.rows.first().map_or(0.0, |r| r.gain);
    let (min, max) = gains.rows.iter().fold((first, first), |(lo, hi), r| (lo.min(r.gain), hi.max(r.gain)));
    if min < 0.0 || max > 1.0 {
        for row in &mut gains.rows {
            row.gain = (row.gain - min) / (max - min);
        }
    }
    gains
}

pub(super) fn rbp(topic: &RankedRelevance, overrides: &[(i64, f64)], p: f64) -> f64 {
    let gains = rbp_gains(topic, overrides);
    let mut sum = 0.0;
    let mut cur_p = 1.0;
    for &rel in &topic.ranked {
        let gain = gains.gain(rel);
        if gain != 0.0 {
            sum += gain * cur_p;
        }
        cur_p *= p;
    }
    (1.0 - p) * sum
}

#[cfg(test)]
mod tests {
    use super::super::levels::LevelCounts;
    use super::*;

    /// Ranked: 2 0 1 (unpooled) 1; judged: level 0: 2, 1: 3, 2: 1.
    fn topic() -> RankedRelevance {
        RankedRelevance {
            ranked: vec![2, 0, 1, super::super::NOT_POOLED, 1],
            level_counts: LevelCounts::from_dense(&[2, 3, 1]),
            relevance_level: 1,
            ndcg_uses_level: false,
        }
    }

    #[test]
    fn gain_order_follows_trec_eval_comparator() {
        // Overrides 1=1.5, 2=1.2 differ by less than 1: comp_rel_gain calls them equal, so the
        // merge keeps their given order (1.5 before 1.2) after level 0's gain 0.
        let gains = Gains::new(&topic(), &[(1, 1.5), (2, 1.2)]);
        let order: Vec<i64> = gains.rows.iter().map(|r| r.rel_level).collect();
        assert_eq!(order, [0, 1, 2]);
        // So the ideal ranking walks level 2 (1.2) first, then level 1 (1.5 ×3).
        let (dcg, ideal) = dcg_and_ideal(&topic(), &[(1, 1.5), (2, 1.2)]);
        assert_eq!(dcg, 1.2 + 1.5 / 4f64.log2() + 1.5 / 6f64.log2());
        assert_eq!(ideal, 1.2 + 1.5 / 3f64.log2() + 1.5 / 4f64.log2() + 1.5 / 5f64.log2());
    }

    /// What a walk over the gain table reads: every level's gain, the first ideal gain and
    /// the ideal gains step by step, and the least and greatest gain (`rbp`'s rescaling).
    fn walk(gains: &Gains, levels: &[i64]) -> (Vec<f64>, f64, Vec<f64>, f64, f64) {
        let each: Vec<f64> = levels.iter().map(|&l| gains.gain(l)).collect();
        let mut ideal = gains.ideal();
        let first = ideal.gain;
        let steps: Vec<f64> = (0..12).map(|_| ideal.step()).collect();
        let least = gains.rows.iter().map(|r| r.gain).fold(f64::INFINITY, f64::min);
        let greatest = gains.rows.iter().map(|r| r.gain).fold(f64::NEG_INFINITY, f64::max);
        (each, first, steps, least, greatest)
    }

    #[test]
    fn the_sparse_gain_table_walks_like_trec_eval_s_dense_one() {
        // Levels 3, 7 and 300 judged, 0 not: trec_eval's table lists 0 … 300.
        let labels = [3, 7, 7, 300, 300];
        let overrides: [&[(i64, f64)]; 5] = [
            &[],
            // The top level given a low gain: the table's greatest is level 299's, unjudged.
            &[(300, 0.0)],
            &[(300, -2.0), (299, 1.0), (5, 4.0)],
            &[(7, 12.0), (0, 3.0)],
            &[(1000, 9.0), (300, 2.0)],
        ];
        for overrides in overrides {
            for (relevance_level, ndcg_uses_level) in [(1, false), (5, true), (400, true)] {
                let topic = RankedRelevance {
                    ranked: vec![300, 0, 7, 3],
                    level_counts: LevelCounts::from_labels(labels),
                    relevance_level,
                    ndcg_uses_level,
                };
                let dense = Gains::listing_every_level_up_to(&topic, overrides, i64::MAX);
                let sparse = Gains::listing_every_level_up_to(&topic, overrides, 0);
                assert_eq!(dense.rows.len(), 301 + overrides.iter().filter(|o| o.0 > 300).count());
                assert!(sparse.rows.len() <= 7 + overrides.len(), "{}", sparse.rows.len());
                // The labels a ranking holds: judged (0 stands for a judged non-relevant one
                // where judged), or negative; and those given a gain.
                let levels: Vec<i64> = [3, 7, 300, -1, -2].into_iter().chain(overrides.iter().map(|o| o.0)).collect();
                assert_eq!(walk(&dense, &levels), walk(&sparse, &levels), "{overrides:?} {relevance_level}");
            }
        }
    }

    #[test]
    fn ndcg_rel_rndcg_and_g_by_hand() {
        let t = topic();
        let d = |rank: usize| ((rank + 1) as f64).log2();
        // ndcg_rel: at each relevant retrieved (ranks 1, 3, 5) dcg/ideal there; the one
        // relevant not retrieved counts the final dcg ÷ the full ideal.
        let dcg = [2.0, 2.0, 2.0 + 1.0 / d(3), 2.0 + 1.0 / d(3), 2.0 + 1.0 / d(3) + 1.0 / d(5)];
        let ideal = [2.0, 2.0 + 1.0 / d(2), 2.0 + 1.0 / d(2) + 1.0 / d(3), 2.0 + 1.0 / d(2) + 1.0 / d(3) + 1.0 / d(4)];
        let sum = dcg[0] / ideal[0] + dcg[2] / ideal[2] + dcg[4] / ideal[3] + dcg[4] / ideal[3];
        assert_eq!(ndcg_rel(&t, &[]), sum / 4.0);
        // Rndcg: the ideal gain changes after rank 1 (2 → 1) and after rank 4 (1 → 0).
        assert_eq!(rndcg(&t, &[]), (dcg[0] / ideal[0] + dcg[3] / ideal[3]) / 2.0);
        // G: costs follow the ideal gains 2, 1, 1, 1 then 1 per rank; gains 2, 0, 1, 0, 1.
        let g =
            2.0 / (2.0f64 + 2.0 - 2.0).log2() + 1.0 / (2.0f64 + 4.0 - 3.0).log2() + 1.0 / (2.0f64 + 6.0 - 4.0).log2();
        assert_eq!(super::g(&t, &[]), g / 5.0);
    }

    #[test]
    fn rbp_rescales_gains_outside_zero_one() {
        let t = topic();
        // Gains 0, 1, 2 → 0, 0.5, 1: (1 − p)(1 + 0.5 p² + 0.5 p⁴).
        let p: f64 = 0.9;
        assert_eq!(rbp(&t, &[], p), (1.0 - p) * (1.0 + 0.5 * p.powi(2) + 0.5 * p.powi(4)));
        // Binary judgments keep their gains.
        let binary = RankedRelevance { ranked: vec![1, 0, 1], level_counts: LevelCounts::from_dense(&[1, 2]), ..t };
        assert_eq!(rbp(&binary, &[], 0.5), 0.5 * (1.0 + 0.25));
    }
}
