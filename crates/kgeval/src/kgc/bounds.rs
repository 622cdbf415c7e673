//! Sizes a KGC input declares, checked before anything is sized by them: the counts a rank
//! accumulator is given (at most [`MAX_ENTITIES`] candidates a question), and the list of
//! places the IR measures derive from declared ranks (8 bytes a place, at most the
//! decompressed limit: the memory one input may make kgeval hold).

use kgeval_formats::input::decompressed_limit;
use kgeval_metrics::ranking::ShardCounts;
use kgeval_model::kgc::{AnswerObservation, QuestionSet, RankObservation, MAX_ENTITIES};
use kgeval_model::trec::MeasureSet;

use crate::Error;

/// What a count past the bound is measured against, for messages.
const ENTITY_BOUND: &str =
    "a question has at most 2^32 candidates, the target included: the most entities kgeval numbers";

/// The bytes a place of a derived IR list takes.
const PLACE_BYTES: u64 = 8;

/// Refuses a count (`greater`, `tied`, `compared`: the target not counted) of `MAX_ENTITIES`
/// or more; `what` names the array.
pub(super) fn counts_within(what: &str, values: &[u64]) -> Result<(), Error> {
    match values.iter().enumerate().find(|&(_, &v)| v >= MAX_ENTITIES) {
        None => Ok(()),
        Some((i, v)) => Err(Error::invalid(format!(
            "{what}[{i}]: found {v}, expected at most {} ({ENTITY_BOUND})",
            MAX_ENTITIES - 1
        ))),
    }
}

/// Refuses summed counts (over shards) whose answer would have more than `MAX_ENTITIES`
/// candidates or a rank past it.
pub(super) fn summed_counts_within(largest: ShardCounts) -> Result<(), Error> {
    let rank = largest.greater.saturating_add(largest.tied).saturating_add(1);
    for (what, value) in [("a worst rank", rank), ("candidates", largest.compared.saturating_add(1))] {
        if value > MAX_ENTITIES {
            return Err(Error::invalid(format!(
                "rank accumulator: found an answer with {what} of {value} (counts summed over shards), expected at most \
                 {MAX_ENTITIES} ({ENTITY_BOUND})"
            )));
        }
    }
    Ok(())
}

/// The most places the IR list derived from `observations` takes for one question (its worst
/// rank plus its other answers, at most the measures' `depth`).
pub(super) fn longest_rank_list(
    observations: &[AnswerObservation],
    questions: &QuestionSet,
    depth: Option<usize>,
) -> u64 {
    let longest = observations
        .iter()
        .filter(|o| (o.question as usize) < questions.len())
        .map(|o| {
            let worst = match o.observed {
                RankObservation::Rank(rank) => rank.ceil() as u64,
                RankObservation::Counts { greater, equal } => greater.saturating_add(equal),
                RankObservation::Absent => 0,
            };
            let others = questions.get(o.question).answers.len().saturating_sub(1) as u64;
            worst.saturating_add(others)
        })
        .max()
        .unwrap_or(0);
    depth.map_or(longest, |depth| longest.min(depth as u64))
}

/// Refuses a derived IR list of `places` (see [`longest_rank_list`]) that would hold more than
/// the decompressed limit; `what` names the input.
pub(super) fn derived_list_within(what: &str, places: u64, measures: &MeasureSet) -> Result<(), Error> {
    let (bytes, limit) = (places.saturating_mul(PLACE_BYTES), decompressed_limit());
    if measures.is_empty() || bytes <= limit {
        return Ok(());
    }
    let names: Vec<&str> = measures.measures().iter().map(|m| m.name.as_str()).collect();
    Err(Error::invalid(format!(
        "{what}: found ranks that make the list of the IR measures ({}) {places} places long ({bytes} bytes), \
         expected at most {limit} bytes (the decompressed limit, set by --max-decompressed); give the measures a \
         cut-off (map_cut.1000) or raise the limit",
        names.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::super::ShardAccumulator;
    use super::*;

    fn message(result: Result<impl std::fmt::Debug, Error>) -> String {
        result.unwrap_err().to_string()
    }

    /// A `compared` of 10¹⁴ made the adjusted metrics size a table by it; a count is below
    /// 2³² (the target not counted), and so are the sums of the shards of one answer.
    #[test]
    fn accumulator_counts_at_their_edge() {
        let below = (MAX_ENTITIES - 1) as i64;
        let mut counts = ShardAccumulator::new();
        counts.add_counts(&[0], &[0], &[0], Some(&[below]), None).expect("at the edge");
        assert!(counts.finalize(&[1], None).is_ok());
        let past = MAX_ENTITIES as i64;
        for (greater, tied, compared, what) in [(past, 0, 0, "greater"), (0, past, 0, "tied"), (0, 0, past, "compared")]
        {
            let added = ShardAccumulator::new().add_counts(&[0], &[greater], &[tied], Some(&[compared]), None);
            assert_eq!(
                message(added),
                format!("{what}[0]: found 4294967296, expected at most 4294967295 ({ENTITY_BOUND})")
            );
        }
        let huge = ShardAccumulator::new().add_counts(&[0], &[0], &[0], Some(&[100_000_000_000_000]), None);
        assert!(message(huge).starts_with("compared[0]: found 100000000000000, expected at most 4294967295"));
        // Two column shards of one answer: 2³¹ + (2³¹ − 1) compared is 2³² candidates, one
        // more is past.
        let half = 1i64 << 31;
        let summed = |second: i64| {
            let mut left = ShardAccumulator::new();
            left.add_counts(&[7], &[0], &[0], Some(&[half]), None).expect("a shard");
            let mut right = ShardAccumulator::new();
            right.add_counts(&[7], &[0], &[0], Some(&[second]), None).expect("a shard");
            left.merge(&right).expect("merged");
            left.finalize(&[1], None).map(|e| e.answers)
        };
        assert_eq!(summed(half - 1).expect("at the edge"), 1);
        assert_eq!(
            message(summed(half)),
            format!(
                "rank accumulator: found an answer with candidates of 4294967297 (counts summed over shards), \
                 expected at most 4294967296 ({ENTITY_BOUND})"
            )
        );
    }

    /// A group's derived IR list without a cut-off holds 8 bytes a place down to its worst
    /// rank: refused past the decompressed limit (4 GiB: 536,870,912 places), bounded by a
    /// cut-off.
    #[test]
    fn accumulator_ir_lists_at_their_edge() {
        let places = (decompressed_limit() / PLACE_BYTES) as i64;
        let list = |worst: i64, measures: &[&str]| {
            let mut counts = ShardAccumulator::new();
            // Two answers of group 3: the worst at `worst` (greater + 1), the other first.
            counts.add_counts(&[0, 1], &[worst - 1, 0], &[0, 0], None, Some(&[3, 3])).expect("counts");
            let measures: Vec<String> = measures.iter().map(|m| (*m).to_owned()).collect();
            counts.finalize(&[1], Some(&measures)).map(|e| e.answers)
        };
        // The list reaches the worst rank plus the other answer.
        assert_eq!(list(places - 1, &["map_cut.20"]).expect("a cut-off"), 2);
        assert_eq!(
            message(list(places, &["map"])),
            format!(
                "rank accumulator: found ranks that make the list of the IR measures (map) {} places long ({} bytes), \
                 expected at most {} bytes (the decompressed limit, set by --max-decompressed); give the measures a \
                 cut-off (map_cut.1000) or raise the limit",
                places + 1,
                (places as u64 + 1) * PLACE_BYTES,
                decompressed_limit()
            )
        );
        assert!(list(places, &["map_cut.20"]).is_ok());
    }
}
