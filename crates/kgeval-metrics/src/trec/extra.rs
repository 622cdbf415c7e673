//! trec_eval 10.0's remaining measures over one topic, each ported from its `m_*.c`: infAP,
//! Rprec_mult, utility, 11pt_avg, binG, relative_P, set_relative_P, set_map,
//! num_nonrel_judged_ret, yaap, rbp_resid, unj and relstring.

use std::fmt::Write as _;

use super::measures::{RankedRelevance, NOT_JUDGED, NOT_POOLED};

/// `INFAP_EPSILON` of trec_eval.h.
const INFAP_EPSILON: f64 = 0.00001;

impl RankedRelevance {
    /// `m_infap.c`: inferred AP; unpooled documents are skipped, pooled-but-unjudged ones
    /// counted apart.
    pub(super) fn inf_ap(&self) -> f64 {
        let (mut nonrel_so_far, mut rel_so_far, mut pool_unjudged_so_far) = (0i64, 0i64, 0i64);
        let mut inf_ap = 0.0;
        for (j, &value) in self.ranked.iter().enumerate() {
            if value == NOT_POOLED {
                continue;
            }
            if value == NOT_JUDGED {
                pool_unjudged_so_far += 1;
                continue;
            }
            if value >= 0 && value < self.relevance_level {
                nonrel_so_far += 1;
                continue;
            }
            rel_so_far += 1;
            if j == 0 {
                inf_ap += 1.0;
            } else {
                let fj = j as f64;
                inf_ap += 1.0 / (fj + 1.0)
                    + (fj / (fj + 1.0))
                        * ((rel_so_far - 1 + nonrel_so_far + pool_unjudged_so_far) as f64 / fj)
                        * (((rel_so_far - 1) as f64 + INFAP_EPSILON)
                            / ((rel_so_far - 1 + nonrel_so_far) as f64 + 2.0 * INFAP_EPSILON));
            }
        }
        let r = self.num_rel();
        if r > 0 {
            inf_ap / r as f64
        } else {
            inf_ap
        }
    }

    /// `m_Rprec_mult.c`: precision at `(long)(multiple · R + 0.9)` documents (0 when that is
    /// 0).
    pub(super) fn rprec_mult(&self, multiple: f64) -> f64 {
        let cutoff = (multiple * self.num_rel() as f64 + 0.9) as i64;
        if cutoff <= 0 {
            return 0.0;
        }
        let cutoff = usize::try_from(cutoff).unwrap_or(usize::MAX);
        self.relevant_in_top(cutoff) as f64 / cutoff as f64
    }

    /// `m_utility.c`: p1·(relevant retrieved) + p2·(non-relevant retrieved) + p3·(relevant
    /// not retrieved) + p4·(the rest of a collection of 0 documents, trec_eval's default `-N`).
    pub(super) fn utility(&self, p: &[f64]) -> f64 {
        let (num_ret, num_rel) = (self.ranked.len() as f64, self.num_rel() as f64);
        let num_rel_ret = self.relevant_in_top(usize::MAX) as f64;
        let coefficient = |i: usize| p.get(i).copied().unwrap_or(0.0);
        coefficient(0) * num_rel_ret
            + coefficient(1) * (num_ret - num_rel_ret)
            + coefficient(2) * (num_rel - num_rel_ret)
            + coefficient(3) * (num_rel_ret - num_ret - num_rel)
    }

    /// `m_11pt_avg.c`: interpolated precision at `lround(level · R)` relevant documents,
    /// averaged over the levels (in the order given, as trec_eval walks them). An empty
    /// ranking scores 0 (trec_eval never meets one: `-c` gives a missing topic one unpooled
    /// document).
    pub(super) fn eleven_pt_avg(&self, levels: &[f64]) -> f64 {
        if levels.is_empty() || self.ranked.is_empty() {
            return 0.0;
        }
        let num_rel = self.num_rel() as f64;
        let num_ret = self.ranked.len();
        let num_rel_ret = self.relevant_in_top(usize::MAX);
        let cutoff = |i: usize| (levels[i] * num_rel).round() as i64;
        let mut current = levels.len() as isize - 1;
        while current >= 0 && cutoff(current as usize) > num_rel_ret as i64 {
            current -= 1;
        }
        let mut int_precis = num_rel_ret as f64 / num_ret as f64;
        let mut rel_so_far = num_rel_ret as i64;
        let mut sum = 0.0;
        let mut i = num_ret;
        while i > 0 && rel_so_far > 0 {
            int_precis = int_precis.max(rel_so_far as f64 / i as f64);
            if self.is_relevant(self.ranked[i - 1]) {
                while current >= 0 && rel_so_far == cutoff(current as usize) {
                    sum += int_precis;
                    current -= 1;
                }
                rel_so_far -= 1;
            }
            i -= 1;
        }
        // Added one at a time, as trec_eval does (not multiplied: the bits differ).
        for _ in 0..=current {
            sum += int_precis;
        }
        sum / levels.len() as f64
    }

    /// `m_binG.c`: Σ over retrieved relevant documents of 1 / log2(2 + non-relevant before),
    /// ÷ R.
    pub(super) fn bin_g(&self) -> f64 {
        let mut rel_so_far = 0usize;
        let mut sum = 0.0;
        for (i, &value) in self.ranked.iter().enumerate() {
            if self.is_relevant(value) {
                rel_so_far += 1;
                sum += 1.0 / ((3 + i - rel_so_far) as f64).log2();
            }
        }
        if rel_so_far > 0 {
            sum / self.num_rel() as f64
        } else {
            0.0
        }
    }

    /// `m_rel_P.c`: relevant in the top k ÷ min(k, R); 0 when R = 0.
    pub(super) fn relative_p(&self, k: usize) -> f64 {
        let r = self.num_rel() as usize;
        if r == 0 {
            return 0.0;
        }
        self.relevant_in_top(k) as f64 / k.min(r) as f64
    }

    /// `m_set_rel_P.c` and `m_set_map.c`: relevant retrieved ÷ min(retrieved, R) and
    /// relevant retrieved² ÷ (retrieved · R); 0 without retrieved or relevant documents.
    pub(super) fn set_relative_p_and_map(&self) -> (f64, f64) {
        let (num_ret, num_rel) = (self.ranked.len(), self.num_rel() as usize);
        if num_ret == 0 || num_rel == 0 {
            return (0.0, 0.0);
        }
        let rel_ret = self.relevant_in_top(usize::MAX) as f64;
        (rel_ret / num_ret.min(num_rel) as f64, (rel_ret * rel_ret) / (num_ret as f64 * num_rel as f64))
    }

    /// `m_num_nonrel_judged_ret.c`: retrieved documents judged below the relevance level.
    pub(super) fn num_nonrel_judged_ret(&self) -> f64 {
        self.ranked.iter().filter(|&&v| v >= 0 && v < self.relevance_level).count() as f64
    }

    /// `m_yaap.c`: log((1 + Σ precision at relevant) / (1 + R − Σ)).
    pub(super) fn yaap(&self) -> f64 {
        let sum = self.precision_sum(usize::MAX);
        ((1.0 + sum) / (1.0 + self.num_rel() as f64 - sum)).ln()
    }

    /// `m_rbp_resid.c`: p^n + (1 − p) Σ p^(i−1) over unjudged ranks, when any; else 0.
    pub(super) fn rbp_resid(&self, p: f64) -> f64 {
        let mut unjudged = false;
        let (mut sum, mut cur_p) = (0.0, 1.0);
        for &value in &self.ranked {
            if value < 0 {
                unjudged = true;
                sum += cur_p;
            }
            cur_p *= p;
        }
        if unjudged {
            cur_p + (1.0 - p) * sum
        } else {
            0.0
        }
    }

    /// `m_unjudged.c`: unpooled or unjudged documents in the top k ÷ k.
    pub(super) fn unjudged(&self, k: usize) -> f64 {
        self.ranked.iter().take(k).filter(|&&v| v < 0).count() as f64 / k as f64
    }

    /// `m_relstring.c`: one character per document of the first `len`: its relevance 0–9,
    /// `>` above 9, `-` unpooled, `.` pooled but unjudged, `<` any other negative value.
    pub fn relstring(&self, len: usize, out: &mut String) {
        out.clear();
        for &value in self.ranked.iter().take(len) {
            let c = match value {
                10.. => '>',
                0..=9 => char::from(b'0' + value as u8),
                NOT_POOLED => '-',
                NOT_JUDGED => '.',
                _ => '<',
            };
            let _ = out.write_char(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use kgeval_model::trec::{MeasureRequest, MeasureSet};

    use super::super::levels::LevelCounts;

    use super::*;

    fn value(topic: &RankedRelevance, name: &str) -> f64 {
        let set = MeasureSet::from_requests(&[MeasureRequest::parse(name).expect("parses")]);
        assert_eq!(set.len(), 1, "{name}");
        topic.value(&set.measures()[0])
    }

    /// Ranked: R2 N R1 U(unpooled) R1 J(pooled, unjudged); judged: level 0: 2, 1: 3, 2: 1
    /// (R = 4, 2 judged non-relevant).
    fn topic() -> RankedRelevance {
        RankedRelevance {
            ranked: vec![2, 0, 1, NOT_POOLED, 1, NOT_JUDGED],
            level_counts: LevelCounts::from_dense(&[2, 3, 1]),
            relevance_level: 1,
            ndcg_uses_level: false,
        }
    }

    #[test]
    fn set_and_count_measures() {
        let t = topic();
        // 3 relevant of 6 retrieved, R = 4.
        assert_eq!(value(&t, "set_relative_P"), 3.0 / 4.0);
        assert_eq!(value(&t, "set_map"), 9.0 / 24.0);
        assert_eq!(value(&t, "num_nonrel_judged_ret"), 1.0);
        // utility 1,-1,0,0: 3 − 3; with 2,-1,-3,0.5: 6 − 3 − 3 + 0.5·(3 − 6 − 4).
        assert_eq!(value(&t, "utility"), 0.0);
        assert_eq!(value(&t, "utility.2,-1,-3,0.5"), -3.5);
        // relative_P: 2 of the top 3 ÷ min(3, 4); 3 of the top 5 ÷ min(5, 4).
        assert_eq!(value(&t, "relative_P.3"), 2.0 / 3.0);
        assert_eq!(value(&t, "relative_P.5"), 3.0 / 4.0);
        // unj: 1 unjudged in the top 5, 2 in the top 6, 2 in the top 10 (filled with judged).
        assert_eq!(value(&t, "unj.5"), 1.0 / 5.0);
        assert_eq!(value(&t, "unj.10"), 2.0 / 10.0);
    }

    #[test]
    fn precision_at_multiples_of_r_and_interpolated_average() {
        let t = topic();
        // (long)(0.5·4 + 0.9) = 2: P@2 = 1/2; (long)(1.5·4 + 0.9) = 6: 3/6; 0.01·4 + 0.9 → 0.
        assert_eq!(value(&t, "Rprec_mult.0.5"), 0.5);
        assert_eq!(value(&t, "Rprec_mult.1.5"), 0.5);
        assert_eq!(value(&t, "Rprec_mult.0.01"), 0.0);
        // Interpolated precision at 1, 2, 3 relevant: 1, 2/3, 3/5; at 0 relevant (level 0):
        // max over all = 1; level 1 (4 relevant) is never reached: the last interpolated
        // precision, 1, is added for it as trec_eval does.
        assert_eq!(value(&t, "11pt_avg.0.5"), 2.0 / 3.0);
        assert_eq!(value(&t, "11pt_avg.0.75"), 3.0 / 5.0);
        assert_eq!(value(&t, "11pt_avg.0,0.25"), 1.0);
    }

    #[test]
    fn inferred_ap_bin_g_and_yaap() {
        // Judged only: R N R → infAP = (1 + (1/3 + 2/3 · (2/2) · (1 + ε)/(2 + 2ε))) / 2.
        let t = RankedRelevance { ranked: vec![1, 0, 1], level_counts: LevelCounts::from_dense(&[1, 2]), ..topic() };
        let e = INFAP_EPSILON;
        let expected = (1.0 + (1.0 / 3.0 + (2.0 / 3.0) * (2.0 / 2.0) * ((1.0 + e) / (2.0 + 2.0 * e)))) / 2.0;
        assert_eq!(value(&t, "infAP"), expected);
        // binG: relevant at rank 1 (0 non-relevant before) and 3 (1 before): (1/log2 2 + 1/log2 3)/2.
        assert_eq!(value(&t, "binG"), (1.0 + 1.0 / 3f64.log2()) / 2.0);
        // yaap: Σ precision = 1 + 2/3; log((1 + Σ) / (1 + R − Σ)).
        let sum: f64 = 1.0 + 2.0 / 3.0;
        assert_eq!(value(&t, "yaap"), ((1.0 + sum) / (1.0 + 2.0 - sum)).ln());
    }

    #[test]
    fn rbp_residual_and_relstring() {
        let t = topic();
        // Unjudged at ranks 4 and 6: p^6 + (1 − p)(p^3 + p^5).
        let p: f64 = 0.5;
        assert_eq!(value(&t, "rbp_resid.p=0.5"), p.powi(6) + (1.0 - p) * (p.powi(3) + p.powi(5)));
        let judged = RankedRelevance { ranked: vec![1, 0], ..topic() };
        assert_eq!(value(&judged, "rbp_resid"), 0.0);
        let mut s = String::new();
        let odd = RankedRelevance { ranked: vec![2, 0, 12, NOT_POOLED, NOT_JUDGED, -7], ..topic() };
        odd.relstring(10, &mut s);
        assert_eq!(s, "20>-.<");
        odd.relstring(2, &mut s);
        assert_eq!(s, "20");
    }
}
