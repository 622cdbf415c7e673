//! How much a run's ties can matter: its tie groups, tied documents, the groups that hold both
//! relevant and non-relevant documents, and those a measure's cutoff cuts through.

use kgeval_model::trec::{IrOptions, Qrels, RunDoc, RunSource, TieCounts};
use rayon::prelude::*;

use crate::ranking::rank_order;

/// The ties of one topic: `docs` ranked as the measures rank them, `cutoffs` the ranks the
/// measures asked for cut at.
#[must_use]
pub fn topic_tie_counts(
    relevance: impl Fn(&str) -> Option<i64>,
    relevance_level: i64,
    docs: &[RunDoc<'_>],
    options: &IrOptions,
    cutoffs: &[usize],
) -> TieCounts {
    let mut order = Vec::new();
    rank_order(docs, options.tie_break, &mut order);
    let depth = options.max_docs.map_or(order.len(), |m| m.min(order.len()));
    let relevant = |i: u32| relevance(docs[i as usize].docno).is_some_and(|v| v >= 0 && v >= relevance_level);
    let mut counts =
        TieCounts { topics: 1, straddling: cutoffs.iter().map(|&k| (k, 0)).collect(), ..TieCounts::default() };
    let mut start = 0;
    while start < depth {
        let key = order[start].0;
        let end = start + order[start..].iter().take_while(|o| o.0 == key).count();
        if end - start > 1 {
            counts.groups += 1;
            counts.tied_documents += end.min(depth) - start;
            let group = &order[start..end];
            let with = group.iter().filter(|o| relevant(o.1)).count();
            counts.mixed_groups += usize::from(with > 0 && with < group.len());
            for (k, straddling) in &mut counts.straddling {
                *straddling += usize::from(start < *k && *k < end.min(depth));
            }
        }
        start = end;
    }
    counts.topics_with_ties = usize::from(counts.groups > 0);
    counts
}

/// The ties of `run`'s topics that `qrels` judges, summed.
///
/// # Errors
/// The first error `run` reports while handing out a topic's documents.
pub fn run_tie_counts<S: RunSource>(
    qrels: &Qrels,
    run: &S,
    options: &IrOptions,
    cutoffs: &[usize],
) -> Result<TieCounts, S::Error> {
    let topics: Vec<usize> = (0..run.topic_count()).filter(|&i| qrels.topic(run.topic_id(i)).is_some()).collect();
    let per_topic: Vec<Result<TieCounts, S::Error>> = topics
        .par_iter()
        .map_init(Vec::new, |docs, &index| {
            run.topic_docs(index, docs)?;
            let judgments = qrels.topic(run.topic_id(index));
            let relevance = |docno: &str| judgments.and_then(|j| j.get(docno));
            Ok(topic_tie_counts(relevance, options.relevance_level, docs, options, cutoffs))
        })
        .collect();
    let mut total = TieCounts { straddling: cutoffs.iter().map(|&k| (k, 0)).collect(), ..TieCounts::default() };
    for counts in per_topic {
        total.add(&counts?);
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use kgeval_model::trec::{IrOptions, RunDoc};

    use super::topic_tie_counts;

    #[test]
    fn groups_documents_mixed_and_straddling_by_hand() {
        // Scores 3, 2, 2, 2, 1, 1: groups at ranks 2–4 (b relevant) and 5–6 (none relevant).
        let docs: Vec<RunDoc<'_>> = [("a", 3.0), ("b", 2.0), ("c", 2.0), ("d", 2.0), ("e", 1.0), ("f", 1.0)]
            .iter()
            .enumerate()
            .map(|(i, &(docno, score))| RunDoc { docno, score, rank: 0, position: i as u64 })
            .collect();
        let relevance = |docno: &str| match docno {
            "b" => Some(1),
            "c" => Some(0),
            _ => None,
        };
        let counts = topic_tie_counts(relevance, 1, &docs, &IrOptions::default(), &[1, 2, 5, 10]);
        assert_eq!((counts.topics, counts.topics_with_ties, counts.groups), (1, 1, 2));
        assert_eq!((counts.tied_documents, counts.mixed_groups), (5, 1));
        // k = 2 cuts the first group, k = 5 the second; 1 and 10 cut none.
        assert_eq!(counts.straddling, [(1, 0), (2, 1), (5, 1), (10, 0)]);
        // A depth of 5 keeps one document of the second group: the depth cuts that tie.
        let shallow = IrOptions { max_docs: Some(5), ..IrOptions::default() };
        let counts = topic_tie_counts(relevance, 1, &docs, &shallow, &[5]);
        assert_eq!((counts.groups, counts.tied_documents, counts.straddling[0].1), (2, 4, 0));
    }
}
