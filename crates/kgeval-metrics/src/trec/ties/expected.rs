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

/// Where each position lies: `None` outside every tie group, else the group's index.
pub(super) fn slots(ranking: &TiedRanking) -> Vec<Option<usize>> {
    let mut slots = vec![None; ranking.relevance.ranked.len()];
    for (index, g) in ranking.groups.iter().enumerate() {
        slots[g.start..g.start + g.len].fill(Some(index));
    }
    slots
}

/// Where [`TiedRanking::first_relevant`] finds the first relevant document.
enum FirstRelevant<'a> {
    /// At this 0-based rank, no tie group before it holding one.
    At(usize),
    /// In this group, of `n` documents, `m` relevant.
    InGroup(&'a TieGroup, usize, usize),
    /// Not within the cutoff.
    None,
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

    /// E[f(label)] at every rank: the label's own value, or its group's mean.
    fn position_means(&self, f: impl Fn(i64) -> f64) -> Vec<f64> {
        let means: Vec<f64> =
            self.groups.iter().map(|g| self.labels(g).map(&f).sum::<f64>() / g.size() as f64).collect();
        let ranked = &self.relevance.ranked;
        slots(self).iter().enumerate().map(|(i, slot)| slot.map_or_else(|| f(ranked[i]), |g| means[g])).collect()
    }

    /// The expected count of the first `k` positions whose label satisfies `f`.
    fn expected_count(&self, k: usize, f: impl Fn(i64) -> bool) -> f64 {
        self.expected_sum(k, |_| 1.0, |l| f64::from(u8::from(f(l))))
    }

    /// `(n, matching)`: the group's size and its labels satisfying `f`.
    pub(super) fn group_count(&self, g: &TieGroup, f: impl Fn(i64) -> bool) -> (usize, usize) {
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
                let exponential = (measure.family == MeasureFamily::NdcgExpCut).then(|| t.exponential_gain());
                let g = |v: i64| exponential.as_ref().map_or(v as f64, |gain| gain(v));
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
            MeasureFamily::Rndcg => {
                // Linear in the gain at each rank: trec_eval's loop on the expected gains.
                let gains = Gains::new(t, &measure.gains);
                let expected = self.position_means(|l| gains.gain(l));
                gain::rndcg_of(t, &gains, |i| expected[i])
            }
            MeasureFamily::NdcgRel => return self.ndcg_rel(&Gains::new(t, &measure.gains)),
            MeasureFamily::Yaap | MeasureFamily::G => return None,
        })
    }

    /// E[Σ precision at each relevant rank within the first `k`]: at a tied position i of a
    /// group (n, m relevant, b relevant before it, offset o), E[rel_i · (1 + b + relevant
    /// before i in the group)] = (m/n)(1 + b) + o · m(m−1)/(n(n−1)). Each group's counts are
    /// taken once, so the walk is linear in the ranking.
    fn precision_sum(&self, k: usize) -> f64 {
        let t = &self.relevance;
        let counts: Vec<(f64, f64)> = self
            .groups
            .iter()
            .map(|g| {
                let (n, m) = self.group_count(g, |l| t.is_relevant(l));
                (n as f64, m as f64)
            })
            .collect();
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
                    let (n, m) = counts[*index];
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

    /// Where the first relevant document within the first `k` can be: at a fixed rank, or in
    /// the first group holding one (with the group's size and relevant count).
    fn first_relevant(&self, k: usize) -> FirstRelevant<'_> {
        let t = &self.relevance;
        let slots = slots(self);
        let mut i = 0;
        while i < slots.len().min(k) {
            match slots[i] {
                None if t.is_relevant(t.ranked[i]) => return FirstRelevant::At(i),
                None => i += 1,
                Some(index) => {
                    let g = &self.groups[index];
                    let (n, m) = self.group_count(g, |l| t.is_relevant(l));
                    if m > 0 {
                        return FirstRelevant::InGroup(g, n, m);
                    }
                    i = g.start + g.len;
                }
            }
        }
        FirstRelevant::None
    }

    /// E[1 / rank of the first relevant document], 0 past rank `k`: the first group holding a
    /// relevant document decides it, its first relevant offset j having probability
    /// C(n−1−j, m−1) / C(n, m).
    fn reciprocal_rank(&self, k: usize) -> f64 {
        match self.first_relevant(k) {
            FirstRelevant::At(i) => 1.0 / (i + 1) as f64,
            FirstRelevant::InGroup(g, n, m) => {
                let (mut sum, mut p) = (0.0, m as f64 / n as f64);
                for j in 0..g.len.min(k - g.start) {
                    sum += p / (g.start + j + 1) as f64;
                    if n - j <= m {
                        break;
                    }
                    p *= (n - j - m) as f64 / (n - 1 - j) as f64;
                }
                sum
            }
            FirstRelevant::None => 0.0,
        }
    }

    /// P(a relevant document within the first `k`): 1 − P(none in the part of the first group
    /// holding one that lies within `k`) = 1 − C(n−m, d) / C(n, d).
    fn success(&self, k: usize) -> f64 {
        match self.first_relevant(k) {
            FirstRelevant::At(_) => 1.0,
            FirstRelevant::InGroup(g, n, m) => {
                let d = (g.start + g.len).min(k) - g.start;
                let none =
                    (0..d).fold(1.0, |p, j| if n - m > j { p * (n - m - j) as f64 / (n - j) as f64 } else { 0.0 });
                1.0 - none
            }
            FirstRelevant::None => 0.0,
        }
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
                        // A relevant document of the group has x of the c counted ones before
                        // it with probability 1/(c+1), and lies within the depth when at least
                        // x + 1 of the c + 1 (it and the counted) fall in the group's first
                        // `len` places: S ~ hypergeometric(n, c + 1, len), P(S ≥ x + 1).
                        let (low, probabilities) = hypergeometric(n, c + 1, g.len);
                        let mut at_least = 0.0;
                        let mut term = 0.0;
                        for x in (0..=c).rev() {
                            // P(S ≥ x + 1) = Σ over s > x.
                            if let Some(p) = (x + 1).checked_sub(low).and_then(|at| probabilities.get(at)) {
                                at_least += p;
                            }
                            let tail = if x < low { 1.0 } else { at_least };
                            if tail > 0.0 {
                                term += tail * value(before + x);
                            }
                        }
                        sum += m as f64 / (c + 1) as f64 * term;
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

    /// `m_ndcg_rel.c` in expectation: the sum over the ranks i with a positive gain of
    /// D_i / I_i, plus (R − positive retrieved) · D / I, over R; D_i is the DCG through rank i
    /// and I_i the ideal's (fixed). E[1(g_i > 0) · D_i] needs the pairs inside i's group: for two of its
    /// positions, E[1(g_i > 0) · g_j] = (p·S − S⁺) / (n(n−1)) (n documents, p with a positive
    /// gain, gains summing to S, the positive ones to S⁺); the other groups are independent of
    /// i's. Only the group the depth cuts makes R − positive retrieved random, and its product
    /// with D is taken the same way. `None` when a ranked gain is negative: trec_eval's
    /// "sum > 0" test then makes the value nonlinear.
    fn ndcg_rel(&self, gains: &Gains) -> Option<f64> {
        let t = &self.relevance;
        if t.ranked.iter().chain(&self.beyond).any(|&l| gains.gain(l) < 0.0) {
            return None;
        }
        let (ideal_at, ideal, num_rel) = gain::ndcg_rel_ideal(t, gains);
        if num_rel == 0 {
            return Some(0.0);
        }
        // Per group: (n, p, S, S⁺, E[1(g_i > 0) g_j] for two of its positions).
        let stats: Vec<(f64, f64, f64, f64, f64)> = self
            .groups
            .iter()
            .map(|g| {
                let n = g.size() as f64;
                let (mut p, mut total, mut positive) = (0.0, 0.0, 0.0);
                for l in self.labels(g) {
                    let gain = gains.gain(l);
                    total += gain;
                    if gain > 0.0 {
                        p += 1.0;
                        positive += gain;
                    }
                }
                (n, p, total, positive, (p * total - positive) / (n * (n - 1.0)))
            })
            .collect();
        let slots = slots(self);
        let (mut dcg, mut within, mut sum, mut positive_fixed) = (0.0, 0.0, 0.0, 0.0);
        // The group the depth cuts: Σ 1/discount over its ranks.
        let mut cut_weights = 0.0;
        for (i, slot) in slots.iter().enumerate() {
            let d = gain::discount(i);
            let mean = match *slot {
                None => {
                    let g = gains.gain(t.ranked[i]);
                    if g > 0.0 {
                        positive_fixed += 1.0;
                        sum += (dcg + g / d) / ideal_at[i];
                    }
                    g
                }
                Some(index) => {
                    let group = &self.groups[index];
                    let (n, p, total, positive, pair) = stats[index];
                    if i == group.start {
                        within = 0.0;
                    }
                    let others = dcg - total / n * within;
                    sum += (p / n * others + pair * within + positive / n / d) / ideal_at[i];
                    within += 1.0 / d;
                    if group.beyond > 0 {
                        cut_weights += 1.0 / d;
                    } else if i + 1 == group.start + group.len {
                        positive_fixed += p;
                    }
                    total / n
                }
            };
            dcg += mean / d;
        }
        // E[(R − positive retrieved) · D]: R − fixed − Y, Y the cut group's positives within
        // the depth.
        let mut tail = (num_rel as f64 - positive_fixed) * dcg;
        if let Some((index, group)) = self.groups.iter().enumerate().next_back().filter(|(_, g)| g.beyond > 0) {
            let (n, p, total, positive, pair) = stats[index];
            let len = group.len as f64;
            let others = dcg - total / n * cut_weights;
            tail -= len * p / n * others + cut_weights * ((len - 1.0) * pair + positive / n);
        }
        Some((sum + tail / ideal) / num_rel as f64)
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
