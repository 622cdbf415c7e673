//! Per-question answer observations: gathered from the input, moved to the fully filtered
//! scope, and turned into the ranking core's records under a tie policy.

use kgeval_model::kgc::{AnswerObservation, FilterScope, KnownAnswers, Question, RankObservation};
use kgeval_model::ranking::TiePolicy;
use kgeval_model::TermId;
use rustc_hash::FxHashMap;

use crate::ranking::{RankRecord, ScorePosition};

/// One answer of one question, fully filtered (every other known answer removed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct AnswerSlot {
    /// What the input says, moved to [`FilterScope::Known`].
    pub(crate) observed: RankObservation,
    /// The candidates it was ranked among, when the input says.
    pub(crate) candidates: Option<u64>,
}

impl AnswerSlot {
    const ABSENT: AnswerSlot = AnswerSlot { observed: RankObservation::Absent, candidates: None };

    /// The core's record under `policy` (`Rank` observations keep their rank).
    pub(crate) fn record(&self, policy: TiePolicy) -> RankRecord {
        match self.observed {
            RankObservation::Rank(rank) => RankRecord::at(rank),
            RankObservation::Counts { greater, equal } => {
                let position = ScorePosition { greater: greater as usize, equal: equal as usize };
                if policy == TiePolicy::Expected {
                    return RankRecord::expected(position.greater, position.equal);
                }
                RankRecord {
                    rank: position.rank(policy).or(Some(position.realistic())),
                    tied: position.is_tied(),
                    places: 1,
                }
            }
            RankObservation::Absent => RankRecord::absent(),
        }
    }
}

/// The slots of every question, aligned with its `answers`; answers without an observation
/// are absent. Returns the observations that name no answer of their question (index into
/// `observations`).
pub(crate) fn gather(questions: &[Question], observations: &[AnswerObservation]) -> (Vec<Vec<AnswerSlot>>, Vec<usize>) {
    let mut slots: Vec<Vec<AnswerSlot>> = questions.iter().map(|q| vec![AnswerSlot::ABSENT; q.answers.len()]).collect();
    let mut position: FxHashMap<(u32, TermId), usize> = FxHashMap::default();
    for (qi, q) in questions.iter().enumerate() {
        for (ai, &a) in q.answers.iter().enumerate() {
            position.insert((qi as u32, a), ai);
        }
    }
    let mut stray = Vec::new();
    for (i, o) in observations.iter().enumerate() {
        match position.get(&(o.question, o.answer)) {
            Some(&ai) => {
                slots[o.question as usize][ai] = AnswerSlot { observed: o.observed, candidates: o.candidates };
            }
            None => stray.push(i),
        }
    }
    (slots, stray)
}

/// Moves one question's observations from `scope` to [`FilterScope::Known`].
///
/// Under [`FilterScope::Filters`] the other test answers were still candidates. With counts
/// this is exact: another answer scores above this one iff it has fewer candidates above it,
/// and ties with it iff it has as many. With plain ranks the spec's rule applies: sorted by
/// rank, the j-th answer has j answers above it. Answers that are themselves in the filter
/// files were never candidates and are not subtracted.
pub(crate) fn to_known_scope(
    question: &Question,
    slots: &mut [AnswerSlot],
    scope: FilterScope,
    filters: &KnownAnswers,
) {
    if scope == FilterScope::Known {
        return;
    }
    let competing: Vec<bool> = question.answers.iter().map(|&a| !filters.contains(&question.key, a)).collect();
    let original: Vec<AnswerSlot> = slots.to_vec();
    let competitors = competing.iter().filter(|&&c| c).count() as u64;
    // Plain ranks: sorted (absent last, then answer order).
    let mut by_rank: Vec<usize> = (0..slots.len()).collect();
    by_rank.sort_by(|&a, &b| rank_key(&original[a]).total_cmp(&rank_key(&original[b])).then(a.cmp(&b)));
    let mut above_in_order = vec![0u64; slots.len()];
    let mut seen_competitors = 0u64;
    for &i in &by_rank {
        above_in_order[i] = seen_competitors;
        seen_competitors += u64::from(competing[i]);
    }
    for (i, slot) in slots.iter_mut().enumerate() {
        let others = competitors - u64::from(competing[i]);
        slot.candidates = slot.candidates.map(|n| n.saturating_sub(others));
        slot.observed = match original[i].observed {
            RankObservation::Counts { greater, equal } => {
                let (mut above, mut tied) = (0, 0);
                for (j, other) in original.iter().enumerate() {
                    if j == i || !competing[j] {
                        continue;
                    }
                    if let RankObservation::Counts { greater: g, .. } = other.observed {
                        above += u64::from(g < greater);
                        tied += u64::from(g == greater);
                    }
                }
                RankObservation::Counts {
                    greater: greater.saturating_sub(above),
                    equal: equal.saturating_sub(tied).max(1),
                }
            }
            RankObservation::Rank(rank) => RankObservation::Rank((rank - above_in_order[i] as f64).max(1.0)),
            RankObservation::Absent => RankObservation::Absent,
        };
    }
}

/// A sort key: the rank, or the tie's first rank for counts; absent answers last.
fn rank_key(slot: &AnswerSlot) -> f64 {
    match slot.observed {
        RankObservation::Rank(r) => r,
        RankObservation::Counts { greater, .. } => (greater + 1) as f64,
        RankObservation::Absent => f64::INFINITY,
    }
}

/// Whether some answers of the question may tie with each other *and* other candidates (equal
/// counts with a tie, or an equal fractional plain rank), so that their places in the ranked
/// list are not exact. Equal integer ranks are answers next to each other (or tied among
/// themselves only): their places are exact.
pub(crate) fn answers_may_tie(slots: &[AnswerSlot]) -> bool {
    for (i, a) in slots.iter().enumerate() {
        for b in &slots[i + 1..] {
            let tie = match (a.observed, b.observed) {
                (
                    RankObservation::Counts { greater: g1, equal: e1 },
                    RankObservation::Counts { greater: g2, equal: e2 },
                ) => g1 == g2 && e1 == e2 && e1 > 1,
                // Plain ranks say nothing about ties, except a shared fractional (mean) rank.
                (RankObservation::Rank(r1), RankObservation::Rank(r2)) => r1 == r2 && r1.fract() != 0.0,
                _ => false,
            };
            if tie {
                return true;
            }
        }
    }
    false
}

/// The places of a question's answers in its ranked list (other test answers not removed), by
/// the spec's rule: answers sorted by fully filtered rank r (answer order among equal ranks),
/// the j-th at ⌈r⌉ + j. Absent answers have no place.
pub(crate) fn list_places(records: &[RankRecord]) -> Vec<Option<u64>> {
    let mut order: Vec<usize> = (0..records.len()).filter(|&i| records[i].rank.is_some()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (records[a].rank.unwrap_or(f64::INFINITY), records[b].rank.unwrap_or(f64::INFINITY));
        ra.total_cmp(&rb).then(a.cmp(&b))
    });
    let mut places = vec![None; records.len()];
    for (j, &i) in order.iter().enumerate() {
        places[i] = records[i].rank.map(|r| r.ceil() as u64 + j as u64);
    }
    places
}

#[cfg(test)]
mod tests {
    use super::*;
    use kgeval_model::kgc::{QuestionKey, Side, Triple};
    use kgeval_model::Interner;

    fn question(n: &mut Interner, answers: &[&str]) -> Question {
        let key = QuestionKey { side: Side::Tail, relation: n.intern("r"), anchor: n.intern("s") };
        Question { id: "tail0".into(), key, answers: answers.iter().map(|a| n.intern(a)).collect() }
    }

    fn counts(greater: u64, equal: u64) -> AnswerSlot {
        AnswerSlot { observed: RankObservation::Counts { greater, equal }, candidates: Some(10) }
    }

    #[test]
    fn counts_move_to_the_known_scope_exactly() {
        // Scores: x 9 | a 8 | b 7, y 7 | c 5 (x, y non-answers; a, b, c answers), filters empty.
        // Filters scope: a (1, 1), b (2, 2), c (4, 1); 10 candidates each.
        let mut n = Interner::new();
        let q = question(&mut n, &["a", "b", "c"]);
        let mut slots = vec![counts(1, 1), counts(2, 2), counts(4, 1)];
        to_known_scope(&q, &mut slots, FilterScope::Filters, &KnownAnswers::new());
        // Known scope: a (1, 1), b (1, 2: x above, tied with y), c (2, 1: x, y above).
        let got: Vec<_> = slots.iter().map(|s| (s.observed, s.candidates)).collect();
        assert_eq!(
            got,
            vec![
                (RankObservation::Counts { greater: 1, equal: 1 }, Some(8)),
                (RankObservation::Counts { greater: 1, equal: 2 }, Some(8)),
                (RankObservation::Counts { greater: 2, equal: 1 }, Some(8)),
            ]
        );
    }

    #[test]
    fn ranks_move_by_the_answers_above() {
        let mut n = Interner::new();
        let q = question(&mut n, &["a", "b", "c"]);
        let rank = |r| AnswerSlot { observed: RankObservation::Rank(r), candidates: None };
        let mut slots = vec![rank(5.0), rank(2.0), AnswerSlot::ABSENT];
        // An answer that is also a filter (train) answer was never a competitor.
        let mut filters = KnownAnswers::new();
        let (s, r, b) = (n.intern("s"), n.intern("r"), n.intern("b"));
        filters.extend(&[Triple { head: s, relation: r, tail: b }]);
        to_known_scope(&q, &mut slots, FilterScope::Filters, &filters);
        // b (rank 2) is a filter answer: a keeps rank 5.
        assert_eq!(slots[0].observed, RankObservation::Rank(5.0));
        let mut slots = vec![rank(5.0), rank(2.0), AnswerSlot::ABSENT];
        to_known_scope(&q, &mut slots, FilterScope::Filters, &KnownAnswers::new());
        assert_eq!(
            slots.iter().map(|s| s.observed).collect::<Vec<_>>()[..2],
            [RankObservation::Rank(4.0), RankObservation::Rank(2.0)]
        );
    }

    #[test]
    fn places_follow_the_spec_rule() {
        let records = [RankRecord::at(4.0), RankRecord::at(1.0), RankRecord::absent(), RankRecord::at(1.5)];
        // Sorted: 1.0 (j 0) → 1, 1.5 (j 1) → 2 + 1 = 3, 4.0 (j 2) → 6.
        assert_eq!(list_places(&records), vec![Some(6), Some(1), None, Some(3)]);
        assert!(answers_may_tie(&[counts(3, 2), counts(3, 2)]));
        assert!(!answers_may_tie(&[counts(3, 1), counts(3, 1)]));
        let rank = |r| AnswerSlot { observed: RankObservation::Rank(r), candidates: None };
        assert!(!answers_may_tie(&[rank(1.0), rank(1.0)]));
        assert!(answers_may_tie(&[rank(2.5), rank(2.5)]));
    }
}
