//! The exact expectations that sum over a group's arrangements in closed groups of terms:
//! infAP over the compositions of the documents before each relevant one, interpolated
//! precision over the placements of a group's relevant documents.

use super::expected::slots;
use super::TiedRanking;

/// The most terms [`TiedRanking::inf_ap`] sums exactly (positions × compositions).
const INF_AP_WORK: f64 = 2e7;

/// The most placements of a group's relevant documents [`TiedRanking::interpolated_precision`]
/// enumerates.
const IPREC_PLACEMENTS: f64 = 20_000.0;

/// Every placement of `m` relevant documents among a group's `n` places (starting at rank
/// `start` + 1, `before` relevant documents ahead of it): the greatest precision j / rank_j
/// over its relevant documents j ≥ `first` (−∞ when none is). `None` beyond
/// [`IPREC_PLACEMENTS`].
fn placement_maxima(n: usize, m: usize, start: usize, before: usize, first: usize) -> Option<Vec<f64>> {
    let placements = (0..m).fold(1.0, |c, k| c * (n - k) as f64 / (k + 1) as f64);
    if placements > IPREC_PLACEMENTS {
        return None;
    }
    let mut places: Vec<usize> = (0..m).collect();
    let mut out = Vec::with_capacity(placements as usize);
    loop {
        let best = places
            .iter()
            .enumerate()
            .filter(|(k, _)| before + k + 1 >= first)
            .map(|(k, &p)| (before + k + 1) as f64 / (start + p + 1) as f64)
            .fold(f64::NEG_INFINITY, f64::max);
        out.push(best);
        // The next combination in lexicographic order.
        let Some(k) = (0..m).rev().find(|&k| places[k] < n - m + k) else { break };
        places[k] += 1;
        for j in k + 1..m {
            places[j] = places[j - 1] + 1;
        }
    }
    Some(out)
}

/// ln C(n, k) for n up to a bound, from a table of ln k!.
struct LnChoose(Vec<f64>);

impl LnChoose {
    fn new(n: usize) -> Self {
        let mut table = Vec::with_capacity(n + 1);
        table.push(0.0);
        for k in 1..=n {
            table.push(table[k - 1] + (k as f64).ln());
        }
        LnChoose(table)
    }

    /// ln C(n, k), k ≤ n.
    fn of(&self, n: usize, k: usize) -> f64 {
        self.0[n] - self.0[k] - self.0[n - k]
    }
}

impl TiedRanking {
    /// `m_infap.c` in expectation, exactly: a relevant document's term depends on its rank and
    /// the relevant, judged non-relevant and pooled-unjudged documents before it; in its group
    /// those before it are a multivariate hypergeometric sample of the others, summed over
    /// every composition. `None` when that is more than [`INF_AP_WORK`] terms (then estimated).
    pub(super) fn inf_ap(&self) -> Option<f64> {
        const EPSILON: f64 = 0.00001;
        let t = &self.relevance;
        let term = |j: usize, rel: f64, nonrel: f64, unjudged: f64| {
            if j == 0 {
                1.0
            } else {
                let fj = j as f64;
                1.0 / (fj + 1.0)
                    + (fj / (fj + 1.0))
                        * ((rel + nonrel + unjudged) / fj)
                        * ((rel + EPSILON) / (rel + nonrel + 2.0 * EPSILON))
            }
        };
        // The labels' kinds: relevant, judged non-relevant, pooled unjudged, not pooled.
        let kind = |l: i64| match l {
            super::super::NOT_POOLED => 3,
            super::super::NOT_JUDGED => 2,
            l if l >= 0 && l < t.relevance_level => 1,
            _ => 0,
        };
        let work: f64 = self
            .groups
            .iter()
            .map(|g| {
                let mut c = [0usize; 4];
                self.labels(g).for_each(|l| c[kind(l)] += 1);
                g.len as f64 * (c[0] as f64) * (c[1] + 1) as f64 * (c[2] + 1) as f64
            })
            .sum();
        if work > INF_AP_WORK {
            return None;
        }
        let slots = slots(self);
        let (mut before, mut sum) = ([0usize; 3], 0.0);
        let mut i = 0;
        while i < slots.len() {
            match slots[i] {
                None => {
                    let k = kind(t.ranked[i]);
                    if k == 0 {
                        sum += term(i, before[0] as f64, before[1] as f64, before[2] as f64);
                    }
                    if k < 3 {
                        before[k] += 1;
                    }
                    i += 1;
                }
                Some(index) => {
                    let g = &self.groups[index];
                    let mut c = [0usize; 4];
                    self.labels(g).for_each(|l| c[kind(l)] += 1);
                    let n = g.size();
                    let ln_choose = LnChoose::new(n);
                    let (m, q, w, v) = (c[0], c[1], c[2], c[3]);
                    if m > 0 {
                        for offset in 0..g.len {
                            // The `offset` documents before it: a of the m − 1 other relevant,
                            // b of the q judged non-relevant, u of the w pooled unjudged, the
                            // rest of the v not pooled.
                            let total = ln_choose.of(n - 1, offset);
                            let mut expected = 0.0;
                            for a in 0..=offset.min(m - 1) {
                                for b in 0..=(offset - a).min(q) {
                                    for u in 0..=(offset - a - b).min(w) {
                                        let rest = offset - a - b - u;
                                        if rest > v {
                                            continue;
                                        }
                                        let ln_p = ln_choose.of(m - 1, a)
                                            + ln_choose.of(q, b)
                                            + ln_choose.of(w, u)
                                            + ln_choose.of(v, rest)
                                            - total;
                                        let (rel, nonrel, unjudged) =
                                            ((before[0] + a) as f64, (before[1] + b) as f64, (before[2] + u) as f64);
                                        expected += ln_p.exp() * term(g.start + offset, rel, nonrel, unjudged);
                                    }
                                }
                            }
                            sum += (m as f64 / n as f64) * expected;
                        }
                    }
                    before[0] += m;
                    before[1] += q;
                    before[2] += w;
                    i = g.start + g.len;
                }
            }
        }
        let r = t.num_rel();
        Some(if r > 0 { sum / r as f64 } else { sum })
    }

    /// `m_iprec_at_recall.c` in expectation, exactly: the interpolated precision at the c-th
    /// relevant document is the greatest precision j / rank_j over the relevant documents j ≥ c
    /// (c ≥ 1). Groups are independent, so it is the maximum of a fixed part and one random
    /// maximum per group, each group's distribution taken over the C(n, m) places of its
    /// relevant documents. `None` (then estimated) when a group has more than
    /// [`IPREC_PLACEMENTS`] of them or a `-M` depth cuts a group.
    pub(super) fn interpolated_precision(&self, level: f64) -> Option<f64> {
        let t = &self.relevance;
        if self.groups.iter().any(|g| g.beyond > 0) {
            return None;
        }
        let num_rel_ret = t.ranked.iter().filter(|&&l| t.is_relevant(l)).count();
        let cutoff = (level * t.num_rel() as f64).round() as usize;
        if t.ranked.is_empty() || cutoff > num_rel_ret || num_rel_ret == 0 {
            return Some(0.0);
        }
        let first = cutoff.max(1);
        let slots = slots(self);
        let (mut fixed, mut seen) = (f64::NEG_INFINITY, 0usize);
        // Per group: its possible maxima, each as likely.
        let mut maxima: Vec<Vec<f64>> = Vec::new();
        let mut i = 0;
        while i < slots.len() {
            match slots[i] {
                None => {
                    if t.is_relevant(t.ranked[i]) {
                        seen += 1;
                        if seen >= first {
                            fixed = fixed.max(seen as f64 / (i + 1) as f64);
                        }
                    }
                    i += 1;
                }
                Some(index) => {
                    let g = &self.groups[index];
                    let (n, m) = self.group_count(g, |l| t.is_relevant(l));
                    if m > 0 && seen + m >= first {
                        maxima.push(placement_maxima(n, m, g.start, seen, first)?);
                    }
                    seen += m;
                    i = g.start + g.len;
                }
            }
        }
        // E[max] from the distribution function: P(max ≤ v) = [fixed ≤ v] Π P(group max ≤ v).
        for values in &mut maxima {
            values.sort_by(f64::total_cmp);
        }
        let mut atoms: Vec<f64> = maxima.iter().flatten().copied().chain([fixed]).filter(|v| v.is_finite()).collect();
        atoms.sort_by(f64::total_cmp);
        atoms.dedup();
        let (mut expected, mut below) = (0.0, 0.0);
        for &v in &atoms {
            let mut at_most = if fixed <= v { 1.0 } else { 0.0 };
            for values in &maxima {
                at_most *= values.partition_point(|&x| x <= v) as f64 / values.len() as f64;
            }
            expected += v * (at_most - below);
            below = at_most;
        }
        Some(expected)
    }
}
