//! Closed forms of the expected value over the orders of every tie group.
//!
//! The counts of each label before a group are fixed (every earlier group lies wholly within
//! the depth), so only the order inside a group is random: a position of group g holds a
//! label with the label's share in g; two positions of g hold two relevant documents with
//! probability m(m−1)/(n(n−1)); the documents before a relevant one are a uniform sample of
//! the others in g.

use kgeval_model::trec::{Measure, MeasureFamily};

use super::super::gain::{self, Gains};
use super::{TieGroup, TiedRanking};

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

/// Where each position lies: `None` outside every tie group, else the group's index.
fn slots(ranking: &TiedRanking) -> Vec<Option<usize>> {
    let mut slots = vec![None; ranking.relevance.ranked.len()];
    for (index, g) in ranking.groups.iter().enumerate() {
        slots[g.start..g.start + g.len].fill(Some(index));
    }
    slots
}

/// The distribution of the successes in `draws` draws without replacement from `population`
/// items of which `successes` succeed: `(first count, probabilities from it on)`.
fn hypergeometric(population: usize, successes: usize, draws: usize) -> (usize, Vec<f64>) {
    let low = draws.saturating_sub(population - successes);
    let high = draws.min(successes);
    // Log weights by the ratio of consecutive terms, then normalised.
    let mut logs = Vec::with_capacity(high + 1 - low);
    let mut log = 0.0;
    logs.push(log);
    for x in low..high {
        let ratio =
            ((successes - x) * (draws - x)) as f64 / ((x + 1) * (population - successes + x + 1 - draws)) as f64;
        log += ratio.ln();
        logs.push(log);
    }
    let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = logs.iter().map(|l| (l - top).exp()).collect();
    let total: f64 = weights.iter().sum();
    (low, weights.into_iter().map(|w| w / total).collect())
}

impl TiedRanking {
    /// E[Σ_{i < k} weight(i) · f(label_i)]: a label's share in its group at a tied position.
    fn expected_sum(&self, k: usize, weight: impl Fn(usize) -> f64, f: impl Fn(i64) -> f64) -> f64 {
        let means: Vec<f64> =
            self.groups.iter().map(|g| self.labels(g).map(&f).sum::<f64>() / g.size() as f64).collect();
        let ranked = &self.relevance.ranked;
        slots(self).iter().enumerate().take(k).fold(0.0, |sum, (i, slot)| {
            let value = slot.map_or_else(|| f(ranked[i]), |g| means[g]);
            if value == 0.0 {
                sum
            } else {
                sum + weight(i) * value
            }
        })
    }

    /// The expected count of the first `k` positions whose label satisfies `f`.
    fn expected_count(&self, k: usize, f: impl Fn(i64) -> bool) -> f64 {
        self.expected_sum(k, |_| 1.0, |l| f64::from(u8::from(f(l))))
    }

    /// `(n, matching)`: the group's size and its labels satisfying `f`.
    fn group_count(&self, g: &TieGroup, f: impl Fn(i64) -> bool) -> (usize, usize) {
        (g.size(), self.labels(g).filter(|&l| f(l)).count())
    }

    /// The exact expected value of `measure`, `None` for the measures without a closed form.
    pub(super) fn closed_form(&self, measure: &Measure) -> Option<f64> {
        let t = &self.relevance;
        let k = measure.cutoff.map_or(0, |k| k as usize);
        let r = t.num_rel() as f64;
        let ret = t.ranked.len() as f64;
        let ratio = |num: f64, den: f64| if den > 0.0 { num / den } else { 0.0 };
        let relevant = |l: i64| t.is_relevant(l);
        let all = usize::MAX;
        Some(match measure.family {
            MeasureFamily::Runid
            | MeasureFamily::NumQ
            | MeasureFamily::NumRet
            | MeasureFamily::NumRel
            | MeasureFamily::Relstring
            | MeasureFamily::IdealDcg => t.value(measure),
            MeasureFamily::NumRelRet => self.expected_count(all, relevant),
            MeasureFamily::Map | MeasureFamily::GmMap => ratio(self.precision_sum(all), r),
            MeasureFamily::MapCut => ratio(self.precision_sum(k), r),
            MeasureFamily::Rprec => ratio(self.expected_count(r as usize, relevant), r),
            MeasureFamily::RprecMult => {
                let cutoff = (measure.recall_level.unwrap_or(0.0) * r + 0.9) as i64;
                let cutoff = usize::try_from(cutoff).unwrap_or(0);
                ratio(self.expected_count(cutoff, relevant), cutoff as f64)
            }
            MeasureFamily::Bpref | MeasureFamily::GmBpref => self.bpref(),
            MeasureFamily::RecipRank => self.reciprocal_rank(all),
            MeasureFamily::RecipRankCut => self.reciprocal_rank(k),
            MeasureFamily::P => self.expected_count(k, relevant) / k as f64,
            MeasureFamily::Recall => ratio(self.expected_count(k, relevant), r),
            MeasureFamily::Success => self.success(k),
            MeasureFamily::Hits => self.expected_count(k, relevant),
            // 2PR/(P+R) with P = x/k, R = x/R is 2x/(k+R), 0 at x = 0: linear in x.
            MeasureFamily::F1 if r > 0.0 => 2.0 * self.expected_count(k, relevant) / (k as f64 + r),
            MeasureFamily::F1 => 0.0,
            MeasureFamily::SetP => ratio(self.expected_count(all, relevant), ret),
            MeasureFamily::SetRecall => ratio(self.expected_count(all, relevant), r),
            MeasureFamily::SetF if ret > 0.0 && r > 0.0 => 2.0 * self.expected_count(all, relevant) / (ret + r),
            MeasureFamily::SetF => 0.0,
            MeasureFamily::SetRelativeP if ret > 0.0 && r > 0.0 => self.expected_count(all, relevant) / ret.min(r),
            MeasureFamily::SetRelativeP => 0.0,
            MeasureFamily::SetMap if ret > 0.0 && r > 0.0 => self.relevant_retrieved_squared() / (ret * r),
            MeasureFamily::SetMap => 0.0,
            MeasureFamily::RelativeP if r > 0.0 => self.expected_count(k, relevant) / (k as f64).min(r),
            MeasureFamily::RelativeP => 0.0,
            MeasureFamily::Utility => {
                let x = self.expected_count(all, relevant);
                let p = |i: usize| measure.numbers.get(i).copied().unwrap_or(0.0);
                p(0) * x + p(1) * (ret - x) + p(2) * (r - x) + p(3) * (x - ret - r)
            }
            MeasureFamily::NumNonrelJudgedRet => self.expected_count(all, |l| l >= 0 && l < t.relevance_level),
            MeasureFamily::Unj => self.expected_count(k, |l| l < 0) / k as f64,
            MeasureFamily::Dcg | MeasureFamily::Ndcg => {
                let gains = Gains::new(t, &measure.gains);
                let dcg = self.expected_sum(all, |i| 1.0 / gain::discount(i), |l| gains.gain(l));
                if measure.family == MeasureFamily::Dcg {
                    dcg
                } else {
                    ratio(dcg, gain::dcg_and_ideal(t, &measure.gains).1)
                }
            }
            MeasureFamily::NdcgCut | MeasureFamily::NdcgExpCut => {
                let exponential = measure.family == MeasureFamily::NdcgExpCut;
                let g = |v: i64| if exponential { (v as f64).exp2() - 1.0 } else { v as f64 };
                let ideal = t.ideal_cut(k, g);
                ratio(self.expected_sum(k, |i| 1.0 / gain::discount(i), |l| t.cut_gain(l, g)), ideal)
            }
            MeasureFamily::Rbp => {
                let p = measure.numbers.first().copied().unwrap_or(0.9);
                let gains = gain::rbp_gains(t, &measure.gains);
                (1.0 - p) * self.expected_sum(all, |i| p.powi(i as i32), |l| gains.gain(l))
            }
            MeasureFamily::RbpResid => self.rbp_resid(measure.numbers.first().copied().unwrap_or(0.9)),
            MeasureFamily::BinG => self.bin_g(),
            MeasureFamily::InfAp => return self.inf_ap(),
            MeasureFamily::IprecAtRecall => return self.interpolated_precision(measure.recall_level.unwrap_or(0.0)),
            MeasureFamily::ElevenPtAvg => {
                // trec_eval walks the levels from the last: exact for ascending levels only.
                let levels = &measure.numbers;
                if levels.is_empty() || t.ranked.is_empty() || levels.windows(2).any(|w| w[0] > w[1]) {
                    return None;
                }
                let mut sum = 0.0;
                for &level in levels {
                    sum += self.interpolated_precision(level)?;
                }
                sum / levels.len() as f64
            }
            MeasureFamily::Yaap | MeasureFamily::G | MeasureFamily::NdcgRel | MeasureFamily::Rndcg => return None,
        })
    }

    /// E[Σ precision at each relevant rank within the first `k`]: at a tied position i of a
    /// group (n, m relevant, b relevant before it, offset o), E[rel_i · (1 + b + relevant
    /// before i in the group)] = (m/n)(1 + b) + o · m(m−1)/(n(n−1)).
    fn precision_sum(&self, k: usize) -> f64 {
        let t = &self.relevance;
        let slots = slots(self);
        let (mut before, mut sum) = (0.0, 0.0);
        let mut group_start_before = 0.0;
        for (i, slot) in slots.iter().enumerate().take(k) {
            match slot {
                None => {
                    if t.is_relevant(t.ranked[i]) {
                        before += 1.0;
                        sum += before / (i + 1) as f64;
                    }
                }
                Some(index) => {
                    let g = &self.groups[*index];
                    if i == g.start {
                        group_start_before = before;
                    }
                    let (n, m) = self.group_count(g, |l| t.is_relevant(l));
                    let (n, m) = (n as f64, m as f64);
                    let offset = (i - g.start) as f64;
                    let pairs = if n > 1.0 { m * (m - 1.0) / (n * (n - 1.0)) } else { 0.0 };
                    sum += ((m / n) * (1.0 + group_start_before) + offset * pairs) / (i + 1) as f64;
                    if i + 1 == g.start + g.len {
                        before = group_start_before + m;
                    }
                }
            }
        }
        sum
    }

    /// E[1 / rank of the first relevant document], 0 past rank `k`: the first group holding a
    /// relevant document decides it, its first relevant offset j having probability
    /// C(n−1−j, m−1) / C(n, m).
    fn reciprocal_rank(&self, k: usize) -> f64 {
        let t = &self.relevance;
        let slots = slots(self);
        let mut i = 0;
        while i < slots.len().min(k) {
            match slots[i] {
                None if t.is_relevant(t.ranked[i]) => return 1.0 / (i + 1) as f64,
                None => i += 1,
                Some(index) => {
                    let g = &self.groups[index];
                    let (n, m) = self.group_count(g, |l| t.is_relevant(l));
                    if m == 0 {
                        i = g.start + g.len;
                        continue;
                    }
                    let (mut sum, mut p) = (0.0, m as f64 / n as f64);
                    for j in 0..g.len.min(k - g.start) {
                        sum += p / (g.start + j + 1) as f64;
                        if n - j <= m {
                            break;
                        }
                        p *= (n - j - m) as f64 / (n - 1 - j) as f64;
                    }
                    return sum;
                }
            }
        }
        0.0
    }

    /// P(a relevant document within the first `k`): 1 − P(none in the part of the first group
    /// holding one that lies within `k`) = 1 − C(n−m, d) / C(n, d).
    fn success(&self, k: usize) -> f64 {
        let t = &self.relevance;
        let slots = slots(self);
        let mut i = 0;
        while i < slots.len().min(k) {
            match slots[i] {
                None if t.is_relevant(t.ranked[i]) => return 1.0,
                None => i += 1,
                Some(index) => {
                    let g = &self.groups[index];
                    let (n, m) = self.group_count(g, |l| t.is_relevant(l));
                    if m == 0 {
                        i = g.start + g.len;
                        continue;
                    }
                    let d = (g.start + g.len).min(k) - g.start;
                    let none =
                        (0..d).fold(1.0, |p, j| if n - m > j { p * (n - m - j) as f64 / (n - j) as f64 } else { 0.0 });
                    return 1.0 - none;
                }
            }
        }
        0.0
    }

    /// E[Σ over relevant retrieved documents of value(counted before it)] ÷ R for bpref and
    /// binG: `counted` marks the labels counted before a relevant document, `value` turns that
    /// count into its term. In a whole group the count among its own documents is uniform on
    /// 0…c (the relative order of one relevant document and the c counted ones); in the group
    /// the depth cuts it is hypergeometric at each position.
    fn relevant_terms(&self, counted: impl Fn(i64) -> bool, value: impl Fn(usize) -> f64) -> f64 {
        let t = &self.relevance;
        let r = t.num_rel();
        if r == 0 {
            return 0.0;
        }
        let slots = slots(self);
        let (mut before, mut sum) = (0usize, 0.0);
        let mut i = 0;
        while i < slots.len() {
            match slots[i] {
                None => {
                    let label = t.ranked[i];
                    if t.is_relevant(label) {
                        sum += value(before);
                    } else if counted(label) {
                        before += 1;
                    }
                    i += 1;
                }
                Some(index) => {
                    let g = &self.groups[index];
                    let (n, m) = self.group_count(g, |l| t.is_relevant(l));
                    let (_, c) = self.group_count(g, |l| !t.is_relevant(l) && counted(l));
                    if m == 0 {
                        // No relevant document: the group only adds to the counts.
                    } else if g.beyond == 0 {
                        let mean = (0..=c).map(|x| value(before + x)).sum::<f64>() / (c + 1) as f64;
                        sum += m as f64 * mean;
                    } else {
                        for offset in 0..g.len {
                            let (low, probabilities) = hypergeometric(n - 1, c, offset);
                            let term: f64 =
                                probabilities.iter().enumerate().map(|(x, p)| p * value(before + low + x)).sum();
                            sum += (m as f64 / n as f64) * term;
                        }
                    }
                    before += c;
                    i = g.start + g.len;
                }
            }
        }
        sum / r as f64
    }

    /// `m_bpref.c` in expectation: judged non-relevant documents count before a relevant one.
    fn bpref(&self) -> f64 {
        let t = &self.relevance;
        let (r, n) = (t.num_rel(), t.num_nonrel());
        self.relevant_terms(
            |l| l >= 0,
            |before| if before > 0 { 1.0 - before.min(r as usize) as f64 / n.min(r) as f64 } else { 1.0 },
        )
    }

    /// `m_binG.c` in expectation: every document that is not relevant counts before.
    fn bin_g(&self) -> f64 {
        self.relevant_terms(|_| true, |before| 1.0 / ((2 + before) as f64).log2())
    }

    /// `m_rbp_resid.c` in expectation: p^n when an unjudged document is retrieved (certain
    /// unless only the group the depth cuts holds them), plus (1 − p) Σ p^i over unjudged ranks.
    fn rbp_resid(&self, p: f64) -> f64 {
        let t = &self.relevance;
        let unjudged = |l: i64| l < 0;
        let cut = self.groups.last().filter(|g| g.beyond > 0);
        let certain = t.ranked.iter().enumerate().any(|(i, &l)| unjudged(l) && cut.is_none_or(|g| i < g.start));
        let any = match cut {
            _ if certain => 1.0,
            None => 0.0,
            Some(g) => {
                let (n, u) = self.group_count(g, unjudged);
                1.0 - (0..g.len).fold(1.0, |q, j| if n - u > j { q * (n - u - j) as f64 / (n - j) as f64 } else { 0.0 })
            }
        };
        let n = t.ranked.len() as i32;
        any * p.powi(n)
            + (1.0 - p) * self.expected_sum(usize::MAX, |i| p.powi(i as i32), |l| f64::from(u8::from(unjudged(l))))
    }

    /// `m_infap.c` in expectation, exactly: a relevant document's term depends on its rank and
    /// the relevant, judged non-relevant and pooled-unjudged documents before it; in its group
    /// those before it are a multivariate hypergeometric sample of the others, summed over
    /// every composition. `None` when that is more than [`INF_AP_WORK`] terms (then estimated).
    fn inf_ap(&self) -> Option<f64> {
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
    fn interpolated_precision(&self, level: f64) -> Option<f64> {
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

    /// E[(relevant retrieved)²]: the group the depth cuts keeps a hypergeometric number of its
    /// relevant documents; every other count is fixed.
    fn relevant_retrieved_squared(&self) -> f64 {
        let t = &self.relevance;
        let mean = self.expected_count(usize::MAX, |l| t.is_relevant(l));
        let variance = match self.groups.last().filter(|g| g.beyond > 0) {
            Some(g) => {
                let (n, m) = self.group_count(g, |l| t.is_relevant(l));
                let (n, m, d) = (n as f64, m as f64, g.len as f64);
                d * (m / n) * (1.0 - m / n) * (n - d) / (n - 1.0)
            }
            None => 0.0,
        };
        mean * mean + variance
    }
}
