//! Relation categories 1-1 / 1-N / N-1 / N-N from a triple set, and relation weights.

use kgeval_model::kgc::{CategoryRule, RelationCardinality, RelationCategory, Triple};
use kgeval_model::rank::results::RankSummary;
use kgeval_model::TermId;
use rustc_hash::{FxHashMap, FxHashSet};

/// Every relation of `triples` (first-seen order) with its average tails per distinct
/// (head, relation), heads per distinct (relation, tail), and the category `rule` gives
/// (LibKGE: a side is "many" iff its average exceeds 1.5). Repeated triples count once.
///
/// ```
/// use kgeval_metrics::kgc::relation_categories;
/// use kgeval_model::kgc::{CategoryRule, RelationCategory, Triple};
/// use kgeval_model::Interner;
/// let mut n = Interner::new();
/// let (a, b, c, p) = (n.intern("a"), n.intern("b"), n.intern("c"), n.intern("p"));
/// // a → b, a → c: two tails per head, one head per tail.
/// let triples = [Triple { head: a, relation: p, tail: b }, Triple { head: a, relation: p, tail: c }];
/// let rule = CategoryRule { threshold: 1.5, inclusive: false, source: "train.txt".into() };
/// let categories = relation_categories(&triples, &rule);
/// assert_eq!((categories[0].tails_per_head, categories[0].heads_per_tail), (2.0, 1.0));
/// assert_eq!(categories[0].category, RelationCategory::OneToMany);
/// ```
#[must_use]
pub fn relation_categories(triples: &[Triple], rule: &CategoryRule) -> Vec<RelationCardinality> {
    let mut order: Vec<TermId> = Vec::new();
    let mut seen: FxHashSet<Triple> = FxHashSet::default();
    // relation → (distinct triples, distinct (head, relation), distinct (relation, tail)).
    let mut counts: FxHashMap<TermId, (usize, FxHashSet<TermId>, FxHashSet<TermId>)> = FxHashMap::default();
    for &t in triples {
        if !seen.insert(t) {
            continue;
        }
        let entry = counts.entry(t.relation).or_insert_with(|| {
            order.push(t.relation);
            (0, FxHashSet::default(), FxHashSet::default())
        });
        entry.0 += 1;
        entry.1.insert(t.head);
        entry.2.insert(t.tail);
    }
    order
        .into_iter()
        .map(|relation| {
            let (n, heads, tails) = &counts[&relation];
            let tails_per_head = *n as f64 / heads.len() as f64;
            let heads_per_tail = *n as f64 / tails.len() as f64;
            RelationCardinality {
                relation,
                triples: *n,
                tails_per_head,
                heads_per_tail,
                category: RelationCategory::of(rule.is_many(heads_per_tail), rule.is_many(tails_per_head)),
            }
        })
        .collect()
}

/// Relation weights as the number of triples with each relation (first-seen order): the
/// weights "from another test set".
#[must_use]
pub fn relation_counts(triples: &[Triple]) -> Vec<(TermId, f64)> {
    let mut index: FxHashMap<TermId, usize> = FxHashMap::default();
    let mut out: Vec<(TermId, f64)> = Vec::new();
    for t in triples {
        let slot = *index.entry(t.relation).or_insert_with(|| {
            out.push((t.relation, 0.0));
            out.len() - 1
        });
        out[slot].1 += 1.0;
    }
    out
}

/// Σ_r w_r M_r / Σ_r w_r over the relations that have both a weight > 0 and a summary, for
/// MRR, every Hits@k and MR (MR over relations with a mean rank); counts are summed over those
/// relations. Also returns the weighted relations that have no summary (left out).
///
/// ```
/// use kgeval_metrics::kgc::weighted_summary;
/// use kgeval_model::rank::results::RankSummary;
/// use kgeval_model::Interner;
/// let mut n = Interner::new();
/// let (r, s) = (n.intern("r"), n.intern("s"));
/// let summary = |mrr| RankSummary { queries: 1, mrr, ..RankSummary::default() };
/// let (weighted, missing) = weighted_summary(&[(r, summary(1.0)), (s, summary(0.0))], &[(r, 3.0), (s, 1.0)]);
/// assert_eq!(weighted.mrr, 0.75);
/// assert!(missing.is_empty());
/// ```
#[must_use]
pub fn weighted_summary(
    per_relation: &[(TermId, RankSummary)],
    weights: &[(TermId, f64)],
) -> (RankSummary, Vec<TermId>) {
    let summaries: FxHashMap<TermId, &RankSummary> = per_relation.iter().map(|(r, s)| (*r, s)).collect();
    let ks: Vec<u32> = per_relation.first().map(|(_, s)| s.hits.iter().map(|h| h.0).collect()).unwrap_or_default();
    let mut out = RankSummary { hits: ks.iter().map(|&k| (k, 0.0)).collect(), ..RankSummary::default() };
    let (mut total, mut rank_total, mut rank_sum) = (0.0, 0.0, 0.0);
    let mut missing = Vec::new();
    for &(relation, weight) in weights {
        if weight <= 0.0 {
            continue;
        }
        let Some(summary) = summaries.get(&relation) else {
            missing.push(relation);
            continue;
        };
        total += weight;
        out.mrr += weight * summary.mrr;
        for (slot, &(k, _)) in out.hits.iter_mut().zip(&summary.hits) {
            slot.1 += weight * summary.hits_at(k).unwrap_or(0.0);
        }
        if let Some(mr) = summary.mean_rank {
            rank_total += weight;
            rank_sum += weight * mr;
        }
        out.queries += summary.queries;
        out.ranked += summary.ranked;
        out.gold_tied += summary.gold_tied;
    }
    if total > 0.0 {
        out.mrr /= total;
        for slot in &mut out.hits {
            slot.1 /= total;
        }
    }
    out.mean_rank = (rank_total > 0.0).then(|| rank_sum / rank_total);
    (out, missing)
}
