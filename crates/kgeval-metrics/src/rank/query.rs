//! One query's outcome: where the gold and NIL stand, whether the system abstained, and how
//! confident its best answer was.

use kgeval_model::rank::Submitted;
use kgeval_model::ranking::TiePolicy;
use kgeval_model::{Interner, TermId};

use super::validate::JoinedQuery;
use crate::ranking::{order, rank_of, RankRecord};

/// The outcome of one query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct QueryOutcome {
    /// The gold's rank.
    pub record: RankRecord,
    /// Whether the gold is NIL (a NIL query).
    pub nil_query: bool,
    /// NIL's rank, when NIL is in the ranking.
    pub nil_rank: Option<f64>,
    /// Whether NIL shared its score with another candidate.
    pub nil_tied: bool,
    /// Rank-1 NIL: the system abstained.
    pub abstained: bool,
    /// The best non-NIL candidate's score (scored submissions only).
    pub confidence: Option<f64>,
    /// Whether the best non-NIL candidate is the gold.
    pub answer_correct: bool,
    /// Whether the query was absent from the submission.
    pub missing: bool,
}

/// Ranks one query. With `tau`, scored submissions give NIL the confidence τ unless they score
/// NIL themselves; under `stable` NIL then comes after every submitted candidate, so a candidate
/// scoring exactly τ ranks above NIL. Without `tau`, NIL is an ordinary candidate.
pub(crate) fn outcome(
    query: &JoinedQuery<'_>,
    nil: Option<TermId>,
    tau: Option<f64>,
    policy: TiePolicy,
    interner: &Interner,
) -> QueryOutcome {
    let nil_query = Some(query.gold) == nil;
    let Some(entry) = query.entry else {
        return QueryOutcome {
            record: RankRecord::absent(),
            nil_query,
            nil_rank: None,
            nil_tied: false,
            abstained: false,
            confidence: None,
            answer_correct: false,
            missing: true,
        };
    };
    match &entry.submitted {
        Submitted::Ranking(ranking) => {
            let position = |target: TermId| {
                ranking.iter().chain(&query.repaired).position(|&c| c == target).map(|i| (i + 1) as f64)
            };
            let nil_rank = nil.and_then(position);
            let answer = ranking.iter().chain(&query.repaired).find(|&&c| Some(c) != nil);
            QueryOutcome {
                record: RankRecord { rank: position(query.gold), tied: false, places: 1 },
                nil_query,
                nil_rank,
                nil_tied: false,
                abstained: nil_rank == Some(1.0),
                confidence: None,
                answer_correct: !nil_query && answer == Some(&query.gold),
                missing: false,
            }
        }
        Submitted::Scores(scores) => {
            let mut list: Vec<(&str, f64)> = Vec::with_capacity(scores.len() + 1 + query.repaired.len());
            let mut ids: Vec<TermId> = Vec::with_capacity(list.capacity());
            for &(id, score) in scores {
                list.push((interner.resolve(id), score));
                ids.push(id);
            }
            for &id in &query.repaired {
                if Some(id) != nil {
                    list.push((interner.resolve(id), f64::NEG_INFINITY));
                    ids.push(id);
                }
            }
            if let (Some(nil), Some(tau)) = (nil.filter(|n| !ids.contains(n)), tau) {
                list.push((interner.resolve(nil), tau));
                ids.push(nil);
            }
            // (rank, tied, tied places: the candidates at the target's score, itself included).
            let rank_and_tie = |target: TermId| {
                ids.iter().position(|&c| c == target).map(|i| {
                    let equal = list.iter().filter(|c| c.1 == list[i].1).count();
                    (rank_of(&list, i, policy), equal > 1, equal)
                })
            };
            let gold = rank_and_tie(query.gold);
            let nil_position = nil.and_then(rank_and_tie);
            let best = order(&list, policy).into_iter().map(|i| i as usize).find(|&i| Some(ids[i]) != nil);
            QueryOutcome {
                record: RankRecord {
                    rank: gold.map(|g| g.0),
                    tied: gold.is_some_and(|g| g.1),
                    places: if policy == TiePolicy::Expected {
                        gold.map_or(1, |g| u32::try_from(g.2).unwrap_or(u32::MAX))
                    } else {
                        1
                    },
                },
                nil_query,
                nil_rank: nil_position.map(|n| n.0),
                nil_tied: nil_position.is_some_and(|n| n.1),
                abstained: nil_position.is_some_and(|n| n.0 == 1.0),
                confidence: best.map(|i| list[i].1),
                answer_correct: !nil_query && best.is_some_and(|i| ids[i] == query.gold),
                missing: false,
            }
        }
    }
}
