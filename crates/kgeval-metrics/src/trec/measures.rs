//! trec_eval's measures over one topic: the relevance values of the ranked list plus the
//! topic's judgment counts, exactly as trec_eval's `te_form_res_rels` prepares them.

use kgeval_model::trec::{Measure, MeasureFamily};

use super::gain;
use super::levels::LevelCounts;

/// The persistence of `rbp` and `rbp_resid`: `p` as given, else trec_eval's 0.9.
fn persistence(measure: &Measure) -> f64 {
    measure.numbers.first().copied().unwrap_or(0.9)
}

/// A retrieved document that is not in the qrels at all (trec_eval `RELVALUE_NONPOOL`).
pub const NOT_POOLED: i64 = -1;
/// A retrieved document in the qrels with a negative judgment: pooled but not judged
/// (trec_eval `RELVALUE_UNJUDGED`).
pub const NOT_JUDGED: i64 = -2;

/// The largest level from which [`RankedRelevance::exponential_gain`] scales its gains.
const EXPONENT_SCALED_FROM: i64 = 512;

/// One topic ready for the measures: the relevance of each retrieved document, best first
/// (within the `-M` depth), and the judgment counts of the topic.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RankedRelevance {
    /// Relevance value per rank (≥ 0 judged, [`NOT_POOLED`], [`NOT_JUDGED`]).
    pub ranked: Vec<i64>,
    /// Judged documents per relevance value (negative judgments not counted).
    pub level_counts: LevelCounts,
    /// A document is relevant iff its value is ≥ this level.
    pub relevance_level: i64,
    /// Apply the relevance level to the gain measures (ndcg, ndcg_cut, dcg, ideal_dcg,
    /// ndcg_rel, Rndcg, G, rbp); trec_eval ignores it there.
    pub ndcg_uses_level: bool,
}

impl RankedRelevance {
    /// Judged documents at or above the relevance level (R).
    #[must_use]
    pub fn num_rel(&self) -> u64 {
        self.level_counts.at_least(self.relevance_level)
    }

    /// Judged documents below the relevance level.
    #[must_use]
    pub fn num_nonrel(&self) -> u64 {
        self.level_counts.below(self.relevance_level)
    }

    pub(super) fn is_relevant(&self, value: i64) -> bool {
        value >= 0 && value >= self.relevance_level
    }

    /// The value of `measure` for this topic (`runid` and `num_q` excluded: they are not
    /// per-topic values; `gm_*` give the plain per-topic value, geometric means are taken in
    /// the summary).
    #[must_use]
    pub fn value(&self, measure: &Measure) -> f64 {
        let k = measure.cutoff.map_or(0, |k| k as usize);
        let r = self.num_rel() as f64;
        let ratio = |num: f64, den: f64| if den > 0.0 { num / den } else { 0.0 };
        match measure.family {
            MeasureFamily::Runid => 0.0,
            MeasureFamily::NumQ => 1.0,
            MeasureFamily::NumRet => self.ranked.len() as f64,
            MeasureFamily::NumRel => r,
            MeasureFamily::NumRelRet => self.relevant_in_top(usize::MAX) as f64,
            MeasureFamily::Map | MeasureFamily::GmMap => ratio(self.precision_sum(usize::MAX), r),
            MeasureFamily::MapCut => ratio(self.precision_sum(k), r),
            MeasureFamily::Rprec => ratio(self.relevant_in_top(r as usize) as f64, r),
            MeasureFamily::Bpref | MeasureFamily::GmBpref => self.bpref(),
            MeasureFamily::RecipRank => self.first_relevant_rank().map_or(0.0, |rank| 1.0 / rank as f64),
            MeasureFamily::RecipRankCut => {
                self.first_relevant_rank().filter(|&rank| rank <= k).map_or(0.0, |rank| 1.0 / rank as f64)
            }
            MeasureFamily::IprecAtRecall => self.interpolated_precision(measure.recall_level.unwrap_or(0.0)),
            MeasureFamily::P => self.relevant_in_top(k) as f64 / k as f64,
            MeasureFamily::Recall => ratio(self.relevant_in_top(k) as f64, r),
            MeasureFamily::Success => f64::from(u8::from(self.relevant_in_top(k) > 0)),
            MeasureFamily::Hits => self.relevant_in_top(k) as f64,
            MeasureFamily::F1 => {
                let precision = self.relevant_in_top(k) as f64 / k as f64;
                let recall = ratio(self.relevant_in_top(k) as f64, r);
                ratio(2.0 * precision * recall, precision + recall)
            }
            MeasureFamily::SetP => ratio(self.relevant_in_top(usize::MAX) as f64, self.ranked.len() as f64),
            MeasureFamily::SetRecall => ratio(self.relevant_in_top(usize::MAX) as f64, r),
            MeasureFamily::SetF => {
                let rel_ret = self.relevant_in_top(usize::MAX) as f64;
                let precision = ratio(rel_ret, self.ranked.len() as f64);
                let recall = ratio(rel_ret, r);
                ratio(2.0 * precision * recall, precision + recall)
            }
            MeasureFamily::Ndcg => gain::ndcg(self, &measure.gains),
            MeasureFamily::NdcgCut => self.ndcg_cut(k, |value| value as f64),
            MeasureFamily::NdcgExpCut => self.ndcg_cut(k, self.exponential_gain()),
            MeasureFamily::Relstring => 0.0,
            MeasureFamily::InfAp => self.inf_ap(),
            MeasureFamily::RprecMult => self.rprec_mult(measure.recall_level.unwrap_or(0.0)),
            MeasureFamily::Utility => self.utility(&measure.numbers),
            MeasureFamily::ElevenPtAvg => self.eleven_pt_avg(&measure.numbers),
            MeasureFamily::BinG => self.bin_g(),
            MeasureFamily::G => gain::g(self, &measure.gains),
            MeasureFamily::Dcg => gain::dcg_and_ideal(self, &measure.gains).0,
            MeasureFamily::IdealDcg => gain::dcg_and_ideal(self, &measure.gains).1,
            MeasureFamily::NdcgRel => gain::ndcg_rel(self, &measure.gains),
            MeasureFamily::Rndcg => gain::rndcg(self, &measure.gains),
            MeasureFamily::RelativeP => self.relative_p(k),
            MeasureFamily::SetRelativeP => self.set_relative_p_and_map().0,
            MeasureFamily::SetMap => self.set_relative_p_and_map().1,
            MeasureFamily::NumNonrelJudgedRet => self.num_nonrel_judged_ret(),
            MeasureFamily::Yaap => self.yaap(),
            MeasureFamily::Rbp => gain::rbp(self, &measure.gains, persistence(measure)),
            MeasureFamily::RbpResid => self.rbp_resid(persistence(measure)),
            MeasureFamily::Unj => self.unjudged(k),
        }
    }

    /// Relevant documents among the first `k` retrieved.
    pub(super) fn relevant_in_top(&self, k: usize) -> usize {
        self.ranked.iter().take(k).filter(|&&v| self.is_relevant(v)).count()
    }

    /// Σ precision at each relevant rank within the first `k`.
    pub(super) fn precision_sum(&self, k: usize) -> f64 {
        let mut relevant = 0u64;
        let mut sum = 0.0;
        for (i, &value) in self.ranked.iter().take(k).enumerate() {
            if self.is_relevant(value) {
                relevant += 1;
                sum += relevant as f64 / (i + 1) as f64;
            }
        }
        sum
    }

    fn first_relevant_rank(&self) -> Option<usize> {
        self.ranked.iter().position(|&v| self.is_relevant(v)).map(|i| i + 1)
    }

    /// trec_eval `m_bpref.c`: unjudged and unpooled documents are skipped.
    fn bpref(&self) -> f64 {
        let r = self.num_rel();
        let n = self.num_nonrel();
        let mut nonrel_so_far = 0u64;
        let mut sum = 0.0;
        for &value in &self.ranked {
            if value < 0 {
                continue;
            }
            if value < self.relevance_level {
                nonrel_so_far += 1;
            } else if nonrel_so_far > 0 {
                sum += 1.0 - nonrel_so_far.min(r) as f64 / n.min(r) as f64;
            } else {
                sum += 1.0;
            }
        }
        if r > 0 {
            sum / r as f64
        } else {
            0.0
        }
    }

    /// trec_eval 10.0 `m_iprec_at_recall.c`: the recall level becomes a number of relevant
    /// documents by rounding (`lround`), precision is interpolated from below.
    fn interpolated_precision(&self, level: f64) -> f64 {
        let num_ret = self.ranked.len();
        let num_rel_ret = self.relevant_in_top(usize::MAX);
        let cutoff = (level * self.num_rel() as f64).round() as usize;
        if num_ret == 0 || cutoff > num_rel_ret {
            return 0.0;
        }
        let mut best = num_rel_ret as f64 / num_ret as f64;
        let mut rel_so_far = num_rel_ret;
        for i in (1..=num_ret).rev() {
            if rel_so_far == 0 {
                break;
            }
            best = best.max(rel_so_far as f64 / i as f64);
            if self.is_relevant(self.ranked[i - 1]) {
                if rel_so_far == cutoff {
                    return best;
                }
                rel_so_far -= 1;
            }
        }
        best
    }

    /// The gain of relevance `value` for the ndcg family when the level applies.
    pub(super) fn leveled(&self, value: i64) -> i64 {
        if self.ndcg_uses_level && value < self.relevance_level {
            0
        } else {
            value
        }
    }

    /// What a document of relevance `value` adds to `ndcg_cut`'s DCG before its discount:
    /// only positive judgments with a positive gain count.
    pub(super) fn cut_gain(&self, value: i64, gain: impl Fn(i64) -> f64) -> f64 {
        if value > 0 {
            let g = gain(self.leveled(value));
            if g > 0.0 {
                return g;
            }
        }
        0.0
    }

    /// `ndcg_cut`'s ideal DCG at `k`: the judged documents by level, best first.
    pub(super) fn ideal_cut(&self, k: usize, gain: impl Fn(i64) -> f64) -> f64 {
        let mut ideal = 0.0;
        let mut position = 0usize;
        for (level, count) in self.level_counts.iter().rev().filter(|&(level, _)| level >= 1) {
            let g = gain(self.leveled(level));
            let take = usize::try_from(count).unwrap_or(usize::MAX).min(k - position);
            if g > 0.0 {
                for p in position..position + take {
                    ideal += g / ((p + 2) as f64).log2();
                }
            }
            position += take;
            if position == k {
                break;
            }
        }
        ideal
    }

    /// `ndcg_exp_cut`'s gain, 2^v − 1. Past level [`EXPONENT_SCALED_FROM`] (2^v overflows an
    /// f64 at 1024, a sum of such gains sooner) every gain is divided by 2^top, `top` the
    /// topic's largest level: dcg and its ideal scale alike, so their ratio is kept.
    pub(super) fn exponential_gain(&self) -> impl Fn(i64) -> f64 {
        let top = self.level_counts.max_level().filter(|&top| top >= EXPONENT_SCALED_FROM);
        move |value| match top {
            None => (value as f64).exp2() - 1.0,
            Some(top) => (value.saturating_sub(top) as f64).exp2() - (-(top as f64)).exp2(),
        }
    }

    /// trec_eval `m_ndcg_cut.c` (and the exponential-gain extension): DCG and ideal DCG both cut
    /// at `k`, only positive gains count.
    fn ndcg_cut(&self, k: usize, gain: impl Fn(i64) -> f64) -> f64 {
        let dcg: f64 = self
            .ranked
            .iter()
            .take(k)
            .enumerate()
            .map(|(i, &value)| (i, self.cut_gain(value, &gain)))
            .filter(|(_, g)| *g > 0.0)
            .map(|(i, g)| g / ((i + 2) as f64).log2())
            .fold(0.0, |sum, gain| sum + gain); // an empty `sum()` is -0.0
        let ideal = self.ideal_cut(k, gain);
        if ideal > 0.0 {
            dcg / ideal
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use kgeval_model::trec::{MeasureRequest, MeasureSet};

    use super::*;

    fn value(topic: &RankedRelevance, name: &str) -> f64 {
        let set = MeasureSet::from_requests(&[MeasureRequest::parse(name).expect("parses")]);
        assert_eq!(set.len(), 1, "{name}");
        topic.value(&set.measures()[0])
    }

    /// Ranked: R N R U(-1) R; judged: 4 relevant (level 1: 3, level 2: 1), 2 non-relevant.
    fn topic() -> RankedRelevance {
        RankedRelevance {
            ranked: vec![2, 0, 1, NOT_POOLED, 1],
            level_counts: LevelCounts::from_dense(&[2, 3, 1]),
            relevance_level: 1,
            ndcg_uses_level: false,
        }
    }

    #[test]
    fn hand_worked_values() {
        let t = topic();
        assert_eq!(t.num_rel(), 4);
        // AP = (1/1 + 2/3 + 3/5) / 4.
        assert_eq!(value(&t, "map"), (1.0 + 2.0 / 3.0 + 3.0 / 5.0) / 4.0);
        assert_eq!(value(&t, "map_cut.3"), (1.0 + 2.0 / 3.0) / 4.0);
        assert_eq!(value(&t, "P.2"), 0.5);
        assert_eq!(value(&t, "P.10"), 0.3);
        assert_eq!(value(&t, "recall.3"), 0.5);
        assert_eq!(value(&t, "Rprec"), 2.0 / 4.0);
        assert_eq!(value(&t, "recip_rank"), 1.0);
        assert_eq!(value(&t, "success.1"), 1.0);
        // bpref: R at 1 (+1), N, R (1 − 1/2), U skipped, R (1 − 1/2); ÷ 4. min(N=2, R=4) = 2.
        assert_eq!(value(&t, "bpref"), (1.0 + 0.5 + 0.5) / 4.0);
        assert_eq!(value(&t, "set_P"), 3.0 / 5.0);
        assert_eq!(value(&t, "set_recall"), 3.0 / 4.0);
        let f = 2.0 * 0.6 * 0.75 / (0.6 + 0.75);
        assert!((value(&t, "set_F") - f).abs() < 1e-15);
        // ndcg: gains 2, 0, 1, 0, 1 at log2(2), log2(4), log2(6); ideal 2, 1, 1, 1.
        let dcg = 2.0 + 1.0 / 4f64.log2() + 1.0 / 6f64.log2();
        let ideal = 2.0 + 1.0 / 3f64.log2() + 1.0 / 4f64.log2() + 1.0 / 5f64.log2();
        assert_eq!(value(&t, "ndcg"), dcg / ideal);
        let cut2 = 2.0 / (2.0 + 1.0 / 3f64.log2());
        assert_eq!(value(&t, "ndcg_cut.2"), cut2);
        // Exponential gain: 2^2 − 1 = 3 at rank 1.
        assert_eq!(value(&t, "ndcg_exp_cut.1"), 1.0);
        assert_eq!(value(&t, "mrr@1"), 1.0);
        assert_eq!(value(&t, "hits@5"), 3.0);
    }

    #[test]
    fn graded_gains_and_levels() {
        let t = topic();
        // ndcg.2=9: the level-2 document gains 9.
        let dcg = 9.0 + 1.0 / 4f64.log2() + 1.0 / 6f64.log2();
        let ideal = 9.0 + 1.0 / 3f64.log2() + 1.0 / 4f64.log2() + 1.0 / 5f64.log2();
        assert_eq!(value(&t, "ndcg.2=9"), dcg / ideal);
        // -l 2: only the level-2 document is relevant; ndcg ignores the level.
        let l2 = RankedRelevance { relevance_level: 2, ..topic() };
        assert_eq!(l2.num_rel(), 1);
        assert_eq!(value(&l2, "map"), 1.0);
        assert_eq!(value(&l2, "ndcg"), value(&t, "ndcg"));
        let applied = RankedRelevance { relevance_level: 2, ndcg_uses_level: true, ..topic() };
        assert_eq!(value(&applied, "ndcg"), 1.0);
    }

    #[test]
    fn empty_ranking_and_no_relevant_documents_score_zero() {
        let empty = RankedRelevance { ranked: Vec::new(), ..topic() };
        let none =
            RankedRelevance { ranked: vec![0, NOT_POOLED, 0], level_counts: LevelCounts::from_dense(&[3]), ..topic() };
        for name in ["map", "P.5", "recall.5", "ndcg", "ndcg_cut.5", "recip_rank", "Rprec", "bpref", "set_F"] {
            assert_eq!(value(&empty, name), 0.0, "{name}");
            assert_eq!(value(&none, name), 0.0, "{name}");
        }
        assert_eq!(value(&empty, "iprec_at_recall.0"), 0.0);
        // Positive zero: trec_eval prints 0.0000, never -0.0000.
        assert!(value(&none, "ndcg_cut.5").is_sign_positive());
        assert!(value(&none, "ndcg").is_sign_positive());
    }

    #[test]
    fn interpolated_precision() {
        // R N R U R with R = 4: precision at relevant ranks 1, 2/3, 3/5.
        let t = topic();
        assert_eq!(value(&t, "iprec_at_recall.0"), 1.0);
        assert_eq!(value(&t, "iprec_at_recall.0.5"), 2.0 / 3.0);
        assert_eq!(value(&t, "iprec_at_recall.0.7"), 3.0 / 5.0); // lround(2.8) = 3
        assert_eq!(value(&t, "iprec_at_recall.1"), 0.0); // the 4th relevant is never retrieved
    }
}
