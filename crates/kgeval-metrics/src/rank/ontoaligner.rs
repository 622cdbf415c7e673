//! OntoAligner's `hit_at_k`, `mrr` and `evaluation_report` (seed 001).

use kgeval_model::rank::results::OntoalignerScores;
use kgeval_model::rank::ScoredPair;
use kgeval_model::ranking::TiePolicy;
use kgeval_model::TermId;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::ranking::{rank_of, summarize, RankRecord};

/// OntoAligner semantics: predictions grouped by source; a duplicate (source, target) keeps its
/// maximum score at its first position; each source's targets sorted by score descending with
/// first-seen order on ties; every reference is scored against its source's list (a source
/// without predictions scores 0); the denominator is the number of references. Hits@k is 0 for
/// k = 0 and every metric is 0 without references. The set metrics use unique (source, target)
/// pairs (OntoAligner v1.9.4): P = |pred ∩ ref| / |pred| (0 without predictions),
/// R = |pred ∩ ref| / |ref| (0 without references), Fβ = (1 + β²)PR / (β²P + R) (0 when
/// P = R = 0), and `predictions-len` / `reference-len` are |pred| and |ref|.
#[must_use]
pub fn evaluate_ontoaligner(
    predictions: &[ScoredPair],
    references: &[(TermId, TermId)],
    ks: &[u32],
    beta: f64,
) -> OntoalignerScores {
    let mut lists: FxHashMap<TermId, Vec<(u32, f64)>> = FxHashMap::default();
    for p in predictions {
        let list = lists.entry(p.source).or_default();
        match list.iter_mut().find(|(t, _)| *t == p.target.index()) {
            Some(slot) => slot.1 = slot.1.max(p.score),
            None => list.push((p.target.index(), p.score)),
        }
    }
    let records: Vec<RankRecord> = references
        .iter()
        .map(|(source, target)| {
            let Some(list) = lists.get(source) else { return RankRecord::absent() };
            match list.iter().position(|(t, _)| *t == target.index()) {
                Some(i) => RankRecord::at(rank_of(list, i, TiePolicy::STABLE)),
                None => RankRecord::absent(),
            }
        })
        .collect();
    let positive_ks: Vec<u32> = ks.iter().copied().filter(|&k| k > 0).collect();
    let summary = summarize(&records, &positive_ks);
    let predicted: FxHashSet<(TermId, TermId)> = predictions.iter().map(|p| (p.source, p.target)).collect();
    let referenced: FxHashSet<(TermId, TermId)> = references.iter().copied().collect();
    let intersection = predicted.intersection(&referenced).count();
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let precision = ratio(intersection, predicted.len());
    let recall = ratio(intersection, referenced.len());
    let b2 = beta * beta;
    let denominator = b2 * precision + recall;
    OntoalignerScores {
        intersection,
        precision,
        recall,
        f_score: if denominator == 0.0 { 0.0 } else { (1.0 + b2) * precision * recall / denominator },
        beta,
        predictions_len: predicted.len(),
        reference_len: referenced.len(),
        hits: ks.iter().map(|&k| (k, summary.hits_at(k).unwrap_or(0.0))).collect(),
        mrr: summary.mrr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kgeval_model::Interner;

    #[test]
    fn seed_001_example() {
        // predicts A→1 0.9, A→2 0.5, B→3 0.8; references A→1, B→3.
        let mut i = Interner::new();
        let (a, b, t1, t2, t3) = (i.intern("A"), i.intern("B"), i.intern("1"), i.intern("2"), i.intern("3"));
        let p = |source, target, score| ScoredPair { source, target, score };
        let predictions = [p(a, t1, 0.9), p(a, t2, 0.5), p(b, t3, 0.8)];
        let s = evaluate_ontoaligner(&predictions, &[(a, t1), (b, t3)], &[1, 2], 1.0);
        assert_eq!(s.hits, vec![(1, 1.0), (2, 1.0)]);
        assert_eq!(s.mrr, 1.0);
        assert_eq!((s.intersection, s.precision, s.recall), (2, 2.0 / 3.0, 1.0));
        assert_eq!(s.f_score, 0.8);
        assert_eq!((s.predictions_len, s.reference_len), (3, 2));
    }

    #[test]
    fn duplicates_keep_max_ties_keep_first_seen_and_missing_sources_score_zero() {
        let mut i = Interner::new();
        let (a, b, t1, t2, t3) = (i.intern("A"), i.intern("B"), i.intern("1"), i.intern("2"), i.intern("3"));
        let p = |source, target, score| ScoredPair { source, target, score };
        // A: 2 (0.7) first seen, 1 at 0.2 then 0.7 (max) → tie 0.7, 2 first; 3 at 0.0.
        let predictions = [p(a, t2, 0.7), p(a, t1, 0.2), p(a, t3, 0.0), p(a, t1, 0.7)];
        let s = evaluate_ontoaligner(&predictions, &[(a, t1), (b, t1)], &[0, 1, 2], 1.0);
        // A→1 ranks 2; B has no predictions.
        assert_eq!(s.hits, vec![(0, 0.0), (1, 0.0), (2, 0.5)]);
        assert_eq!(s.mrr, 0.25);
        let empty = evaluate_ontoaligner(&predictions, &[], &[1], 1.0);
        assert_eq!((empty.mrr, empty.hits[0].1, empty.recall), (0.0, 0.0, 0.0));
    }
}
