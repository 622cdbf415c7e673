//! Abstention as a decision: the 2×2 confusion, the trivial baselines and risk–coverage.

use kgeval_model::rank::results::{AbstentionScores, Baselines, RiskCoverage};

use super::query::QueryOutcome;
use crate::ranking::{summarize, RankRecord};

fn ratio(numerator: usize, denominator: usize) -> f64 {
    if denominator == 0 {
        0.0
    } else {
        numerator as f64 / denominator as f64
    }
}

/// Hard abstention over outcomes: rank-1 NIL = abstain. Missing queries count as answered
/// (they did not abstain).
pub(crate) fn abstention<'a>(outcomes: impl IntoIterator<Item = &'a QueryOutcome>) -> AbstentionScores {
    let mut s = AbstentionScores::default();
    for o in outcomes {
        match (o.nil_query, o.abstained) {
            (false, false) => s.answered_matched += 1,
            (false, true) => s.abstained_matched += 1,
            (true, false) => s.answered_nil += 1,
            (true, true) => s.abstained_nil += 1,
        }
    }
    s.precision = ratio(s.abstained_nil, s.abstained_nil + s.abstained_matched);
    s.recall = ratio(s.abstained_nil, s.abstained_nil + s.answered_nil);
    s.f1 = if s.precision + s.recall == 0.0 { 0.0 } else { 2.0 * s.precision * s.recall / (s.precision + s.recall) };
    s.false_abstention_rate = ratio(s.abstained_matched, s.abstained_matched + s.answered_matched);
    s
}

/// The baselines that need only the gold: the NIL share, "always NIL first" (gold second on
/// matched queries) and hedging (gold first, NIL second on NIL queries).
pub(crate) fn baselines(nil_queries: &[bool], ks: &[u32]) -> Baselines {
    let nil_first: Vec<RankRecord> =
        nil_queries.iter().map(|&nil| RankRecord::at(if nil { 1.0 } else { 2.0 })).collect();
    let hedge: Vec<RankRecord> = nil_queries.iter().map(|&nil| RankRecord::at(if nil { 2.0 } else { 1.0 })).collect();
    Baselines {
        nil_share: ratio(nil_queries.iter().filter(|&&n| n).count(), nil_queries.len()),
        nil_first: summarize(&nil_first, ks),
        hedge: summarize(&hedge, ks),
    }
}

/// Risk–coverage over the queries with a confidence: sorted by confidence descending (ties in
/// query order), risk at coverage i/n = wrong answers among the first i / i; AURC = mean risk.
/// `None` when no query has a confidence (rankings without scores).
pub(crate) fn risk_coverage(outcomes: &[QueryOutcome]) -> Option<RiskCoverage> {
    let mut scored: Vec<(f64, bool)> =
        outcomes.iter().filter_map(|o| o.confidence.map(|c| (c, o.answer_correct))).collect();
    if scored.is_empty() {
        return None;
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let n = scored.len() as f64;
    let mut wrong = 0usize;
    let points: Vec<(f64, f64)> = scored
        .iter()
        .enumerate()
        .map(|(i, &(_, correct))| {
            wrong += usize::from(!correct);
            ((i + 1) as f64 / n, wrong as f64 / (i + 1) as f64)
        })
        .collect();
    let aurc = points.iter().map(|p| p.1).sum::<f64>() / n;
    Some(RiskCoverage { points, aurc })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(nil_query: bool, abstained: bool, confidence: Option<f64>, answer_correct: bool) -> QueryOutcome {
        QueryOutcome {
            record: RankRecord::at(1.0),
            nil_query,
            nil_rank: None,
            nil_tied: false,
            abstained,
            confidence,
            answer_correct,
            missing: false,
        }
    }

    #[test]
    fn confusion_by_hand() {
        // 3 matched (1 abstained), 2 NIL (1 abstained).
        let outcomes = [
            outcome(false, false, None, true),
            outcome(false, false, None, true),
            outcome(false, true, None, false),
            outcome(true, true, None, false),
            outcome(true, false, None, false),
        ];
        let s = abstention(&outcomes);
        assert_eq!((s.answered_matched, s.abstained_matched, s.answered_nil, s.abstained_nil), (2, 1, 1, 1));
        assert_eq!((s.precision, s.recall, s.f1), (0.5, 0.5, 0.5));
        assert_eq!(s.false_abstention_rate, 1.0 / 3.0);
    }

    #[test]
    fn baselines_by_hand() {
        // 1 NIL of 4: NIL-first hits@1 = 1/4, MRR = (1 + 3 × 0.5) / 4; hedge MRR = (3 + 0.5) / 4.
        let b = baselines(&[false, true, false, false], &[1, 3]);
        assert_eq!(b.nil_share, 0.25);
        assert_eq!(b.nil_first.hits_at(1), Some(0.25));
        assert_eq!(b.nil_first.mrr, 2.5 / 4.0);
        assert_eq!(b.hedge.mrr, 3.5 / 4.0);
        assert_eq!(b.hedge.hits_at(3), Some(1.0));
    }

    #[test]
    fn risk_coverage_by_hand() {
        // Confidences 0.9 (right), 0.8 (wrong), 0.3 (right): risks 0, 1/2, 1/3.
        let outcomes = [
            outcome(false, false, Some(0.3), true),
            outcome(false, false, Some(0.9), true),
            outcome(true, false, Some(0.8), false),
        ];
        let rc = risk_coverage(&outcomes).unwrap();
        assert_eq!(rc.points, vec![(1.0 / 3.0, 0.0), (2.0 / 3.0, 0.5), (1.0, 1.0 / 3.0)]);
        assert_eq!(rc.aurc, (0.5 + 1.0 / 3.0) / 3.0);
        assert_eq!(risk_coverage(&[outcome(false, false, None, true)]), None);
    }
}
