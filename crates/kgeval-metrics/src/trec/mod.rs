//! IR-run evaluation with trec_eval's definitions: rank each topic with the shared ranking
//! core ([`rank_order`]), turn it into relevance values against the qrels, compute every
//! requested measure, and summarise over topics.
//!
//! ```
//! use kgeval_metrics::trec::evaluate_run;
//! use kgeval_model::trec::{IrOptions, MeasureRequest, MeasureSet, Qrels, Run};
//!
//! // d1, d2, d3 all at 0.5, d1 relevant: trec_eval ranks d3, d2, d1 (docno descending).
//! let mut qrels = Qrels::new();
//! qrels.topic_mut("q1").insert("d1", 1);
//! let mut run = Run { run_id: "tied".into(), ..Run::default() };
//! for docno in ["d1", "d2", "d3"] {
//!     run.push("q1", docno, 0.5);
//! }
//! let measures = MeasureSet::from_requests(&[
//!     MeasureRequest::parse("P.1").unwrap(),
//!     MeasureRequest::parse("recip_rank").unwrap(),
//! ]);
//! let evaluation = evaluate_run(&qrels, &run, &measures, &IrOptions::default()).unwrap();
//! // recip_rank, then P_1 (trec_eval's order).
//! assert_eq!(evaluation.topics[0].values, [1.0 / 3.0, 0.0]);
//! ```

mod accumulate;
mod checked;
mod extra;
mod gain;
mod levels;
mod measures;
mod ties;

use kgeval_model::trec::{
    Aggregation, IrOptions, MeasureFamily, MeasureSet, Qrels, QuerySet, RunDoc, RunEvaluation, RunSource, Ties,
    TopicJudgments, TopicScores,
};
use kgeval_model::{ScoreTable, SystemId};
use rayon::prelude::*;

pub use accumulate::{AccumulateError, SummaryAccumulator, SUMMARY_KIND, SUMMARY_VERSION};
pub use checked::{check_and_evaluate_columns, check_and_evaluate_topic, check_docs, DocsProblem};
pub use levels::LevelCounts;
pub use measures::{RankedRelevance, NOT_JUDGED, NOT_POOLED};
pub use ties::{run_tie_counts, topic_tie_counts, TieValue, TiedRanking};

use crate::ranking::{positions_and_ties, rank_order};

/// A topic's judged documents are ranked by counting ([`positions_and_ties`]) when there are at
/// most one per this many retrieved documents; otherwise the whole list is sorted.
const COUNT_JUDGED_BELOW: usize = 16;

/// trec_eval's floor for geometric means (`MIN_GEO_MEAN`).
pub const MIN_GEO_MEAN: f64 = 0.00001;

/// Ranks `docs` with the shared ranking core ([`rank_order`]) and pairs them with
/// `judgments`: the input of every measure. Returns it with whether two documents within the
/// depth share a score.
#[must_use]
pub fn rank_topic(
    judgments: Option<&TopicJudgments>,
    docs: &[RunDoc<'_>],
    options: &IrOptions,
) -> (RankedRelevance, bool) {
    let judged: Vec<(u32, i64)> = judgments
        .map(|j| docs.iter().enumerate().filter_map(|(i, d)| j.get(d.docno).map(|v| (i as u32, v))).collect())
        .unwrap_or_default();
    rank_judged(judgments, docs, &judged, options)
}

/// [`rank_topic`] with the judged documents of `docs` found already: `judged` holds (index
/// in `docs`, relevance value) of each, in `docs` order.
fn rank_judged(
    judgments: Option<&TopicJudgments>,
    docs: &[RunDoc<'_>],
    judged: &[(u32, i64)],
    options: &IrOptions,
) -> (RankedRelevance, bool) {
    // When the judged documents are few and the whole list is scored, their positions are
    // counted (`positions_and_ties`) instead of sorting every document.
    let (ranked, tied) = if counts_positions(docs.len(), judged.len(), options) {
        let selected: Vec<u32> = judged.iter().map(|&(i, _)| i).collect();
        let mut positions = Vec::with_capacity(selected.len());
        let tied = positions_and_ties(docs, options.tie_break, &selected, &mut positions);
        (ranked_at(docs.len(), judged, &positions), tied)
    } else {
        let mut order = Vec::new();
        rank_order(docs, options.tie_break, &mut order);
        let depth = options.max_docs.map_or(order.len(), |m| m.min(order.len()));
        let order = &order[..depth];
        let tied = order.windows(2).any(|w| w[0].0 == w[1].0);
        let mut labels = vec![measures::NOT_POOLED; docs.len()];
        for &(i, value) in judged {
            labels[i as usize] = ranked_value(Some(value));
        }
        (order.iter().map(|&(_, i)| labels[i as usize]).collect(), tied)
    };
    (ranked_relevance(judgments, ranked, options), tied)
}

/// Whether the judged documents (`judged` of `len`) are ranked by counting their positions:
/// few of them, and the whole list within the depth.
fn counts_positions(len: usize, judged: usize, options: &IrOptions) -> bool {
    options.max_docs.is_none_or(|m| m >= len) && judged * COUNT_JUDGED_BELOW <= len
}

/// The relevance values of a list of `len` documents, best first, whose judged ones
/// (`judged`, as [`rank_judged`] takes them) are at `positions` (0-based, in `judged`'s order).
fn ranked_at(len: usize, judged: &[(u32, i64)], positions: &[u32]) -> Vec<i64> {
    let mut ranked = vec![measures::NOT_POOLED; len];
    for (&position, &(_, value)) in positions.iter().zip(judged) {
        ranked[position as usize] = ranked_value(Some(value));
    }
    ranked
}

/// The relevance value of a retrieved document as the measures read it.
fn ranked_value(value: Option<i64>) -> i64 {
    match value {
        None => measures::NOT_POOLED,
        Some(value) if value < 0 => measures::NOT_JUDGED,
        Some(value) => value,
    }
}

/// `ranked` with the judgment counts of the topic.
fn ranked_relevance(judgments: Option<&TopicJudgments>, ranked: Vec<i64>, options: &IrOptions) -> RankedRelevance {
    let level_counts = LevelCounts::from_labels(judgments.into_iter().flat_map(TopicJudgments::relevances));
    RankedRelevance {
        ranked,
        level_counts,
        relevance_level: options.relevance_level,
        ndcg_uses_level: options.ndcg_uses_level,
    }
}

/// Ranks `docs` as [`rank_topic`] does and keeps the runs of equal scores (with the labels of
/// the run the `-M` depth cuts that fall past it): the input of the tie policies. Returns it
/// with whether two documents within the depth share a score.
#[must_use]
pub fn rank_topic_with_ties(
    judgments: Option<&TopicJudgments>,
    docs: &[RunDoc<'_>],
    options: &IrOptions,
) -> (TiedRanking, bool) {
    let mut order = Vec::new();
    rank_order(docs, options.tie_break, &mut order);
    let label = |i: u32| ranked_value(judgments.and_then(|j| j.get(docs[i as usize].docno)));
    let depth = options.max_docs.map_or(order.len(), |m| m.min(order.len()));
    let ranked: Vec<i64> = order[..depth].iter().map(|&(_, i)| label(i)).collect();
    let (mut runs, mut beyond) = (Vec::new(), Vec::new());
    let mut start = 0;
    while start < depth {
        let key = order[start].0;
        let end = start + order[start..].iter().take_while(|o| o.0 == key).count();
        if end - start > 1 {
            runs.push((start, end.min(depth) - start));
            if end > depth {
                beyond.extend(order[depth..end].iter().map(|&(_, i)| label(i)));
            }
        }
        start = end;
    }
    let tied = order[..depth].windows(2).any(|w| w[0].0 == w[1].0);
    (TiedRanking::new(ranked_relevance(judgments, ranked, options), &runs, beyond), tied)
}

/// The per-topic values of every measure in `measures`, in order.
#[must_use]
pub fn topic_values(topic: &RankedRelevance, measures: &MeasureSet) -> Vec<f64> {
    measures.measures().iter().map(|m| topic.value(m)).collect()
}

/// One evaluated topic: its scores, its relevance string (empty unless `relstring` is asked
/// for) and whether two documents within the depth share a score. What [`evaluate_topic`]
/// returns and [`assemble_run`] puts together.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicOutcome {
    /// The topic's id and its value of every measure.
    pub scores: TopicScores,
    /// The relevance string (`relstring`), empty when not asked for.
    pub relstring: String,
    /// Whether two documents within the depth share a score.
    pub tied: bool,
}

/// The length `relstring` asks for, `None` when it is not among `measures`.
fn relstring_len(measures: &MeasureSet) -> Option<usize> {
    measures
        .measures()
        .iter()
        .find(|m| m.family == MeasureFamily::Relstring)
        .map(|m| m.numbers.first().map_or(0, |&n| n.max(0.0) as usize))
}

/// Ranks and scores one topic of a run: `docs` as the run holds them (`None`: a qrels topic
/// the run lacks, scored under `-c` as trec_eval does). The unit of [`evaluate_run`], public
/// so a front end that builds topics one at a time evaluates each exactly as a whole run is.
#[must_use]
pub fn evaluate_topic(
    qrels: &Qrels,
    qid: &str,
    docs: Option<&[RunDoc<'_>]>,
    measures: &MeasureSet,
    options: &IrOptions,
) -> TopicOutcome {
    evaluate_judged(qrels, qid, docs, None, measures, options)
}

/// [`evaluate_topic`], with the judged documents of `docs` found already when `judged` is
/// given (as [`rank_judged`] takes them).
fn evaluate_judged(
    qrels: &Qrels,
    qid: &str,
    docs: Option<&[RunDoc<'_>]>,
    judged: Option<&[(u32, i64)]>,
    measures: &MeasureSet,
    options: &IrOptions,
) -> TopicOutcome {
    let judgments = qrels.topic(qid);
    let docs_or_none = docs.unwrap_or_default();
    let (topic, tied, ranges, std_errors, values);
    if options.ties.follows_tie_break() {
        (topic, tied) = match judged {
            Some(judged) => rank_judged(judgments, docs_or_none, judged, options),
            None => rank_topic(judgments, docs_or_none, options),
        };
        values = topic_values(&topic, measures);
        (ranges, std_errors) = (Vec::new(), Vec::new());
    } else {
        let ranking;
        (ranking, tied) = rank_topic_with_ties(judgments, docs_or_none, options);
        let tie_values = ranking.values(measures.measures(), options.ties);
        values = tie_values.iter().map(|v| v.value).collect();
        ranges =
            if options.ties == Ties::Range { tie_values.iter().filter_map(|v| v.range).collect() } else { Vec::new() };
        std_errors = if tie_values.iter().any(|v| v.std_error.is_some()) {
            tie_values.iter().map(|v| v.std_error).collect()
        } else {
            Vec::new()
        };
        topic = ranking.relevance;
    }
    finish_topic(qid, &topic, tied, values, ranges, std_errors, docs.is_none(), measures)
}

/// A ranked topic's outcome from its measures' `values` (and `ranges`, `std_errors` under a
/// tie policy): the relevance string when asked for, and for a topic `missing_from_run`
/// (`-c`) trec_eval's zeroing of utility.
#[allow(clippy::too_many_arguments)]
fn finish_topic(
    qid: &str,
    topic: &RankedRelevance,
    tied: bool,
    mut values: Vec<f64>,
    mut ranges: Vec<(f64, f64)>,
    std_errors: Vec<Option<f64>>,
    missing_from_run: bool,
    measures: &MeasureSet,
) -> TopicOutcome {
    let mut relstring = String::new();
    if let Some(len) = relstring_len(measures) {
        topic.relstring(len, &mut relstring);
    }
    if missing_from_run {
        // trec_eval scores a missing topic (-c) on one unpooled document, then zeroes
        // what that document would change: only utility differs from an empty ranking.
        for (value, measure) in values.iter_mut().zip(measures.measures()) {
            if measure.family == MeasureFamily::Utility {
                *value = 0.0;
            }
        }
        for (range, measure) in ranges.iter_mut().zip(measures.measures()) {
            if measure.family == MeasureFamily::Utility {
                *range = (0.0, 0.0);
            }
        }
    }
    let scores = TopicScores { qid: qid.to_owned(), missing_from_run, values, ranges, std_errors };
    TopicOutcome { scores, relstring, tied }
}

/// Evaluates `run` against `qrels`: topics selected by `options.query_set`, ranked and scored
/// in parallel, returned in strcmp order of qid with the summary.
///
/// # Errors
/// The first error, in topic order (evaluated topics first, then run topics without qrels,
/// which are read only to be checked), that `run` reports while handing out a topic's
/// documents. Deterministic at any thread count.
pub fn evaluate_run<S: RunSource>(
    qrels: &Qrels,
    run: &S,
    measures: &MeasureSet,
    options: &IrOptions,
) -> Result<RunEvaluation, S::Error> {
    // Judged run topics are evaluated; run topics without qrels are read too (and their
    // results dropped), so a malformed line is an error wherever it is.
    let mut order: Vec<usize> = (0..run.topic_count()).filter(|&i| qrels.topic(run.topic_id(i)).is_some()).collect();
    let evaluated = order.len();
    order.extend((0..run.topic_count()).filter(|&i| qrels.topic(run.topic_id(i)).is_none()));
    let results: Vec<Result<Option<TopicOutcome>, S::Error>> = order
        .par_iter()
        .enumerate()
        .map_init(Vec::new, |docs, (position, &index)| {
            run.topic_docs(index, docs)?;
            Ok((position < evaluated)
                .then(|| evaluate_topic(qrels, run.topic_id(index), Some(docs), measures, options)))
        })
        .collect();
    let mut outcomes = Vec::with_capacity(evaluated);
    for result in results {
        outcomes.extend(result?);
    }
    let run_qids: Vec<&str> = (0..run.topic_count()).map(|i| run.topic_id(i)).collect();
    Ok(assemble_run(qrels, run.run_id(), &run_qids, outcomes, measures, options))
}

/// A run's evaluation from its topics' outcomes: `run_qids` are every topic the run holds
/// (judged or not), `outcomes` those of its judged topics (any order). Adds the qrels topics
/// the run lacks under `-c`, sorts topics in strcmp order of qid and summarises them.
#[must_use]
pub fn assemble_run(
    qrels: &Qrels,
    run_id: &str,
    run_qids: &[&str],
    outcomes: Vec<TopicOutcome>,
    measures: &MeasureSet,
    options: &IrOptions,
) -> RunEvaluation {
    let run_topics: rustc_hash::FxHashSet<&str> = run_qids.iter().copied().collect();
    let mut qrels_topics_missing_from_run: Vec<String> =
        qrels.topics().map(|(qid, _)| qid).filter(|qid| !run_topics.contains(qid)).map(str::to_owned).collect();
    let mut run_topics_missing_from_qrels: Vec<String> =
        run_qids.iter().filter(|qid| qrels.topic(qid).is_none()).map(|&qid| qid.to_owned()).collect();
    run_topics_missing_from_qrels.sort_unstable();
    let mut outcomes = outcomes;
    if options.query_set == QuerySet::Complete {
        outcomes.extend(
            qrels_topics_missing_from_run.iter().map(|qid| evaluate_topic(qrels, qid, None, measures, options)),
        );
    }
    let topics_with_tied_scores = outcomes.iter().filter(|o| o.tied).count();
    outcomes.sort_unstable_by(|a, b| a.scores.qid.as_bytes().cmp(b.scores.qid.as_bytes()));
    let (topics, relstrings): (Vec<TopicScores>, Vec<String>) =
        outcomes.into_iter().map(|o| (o.scores, o.relstring)).unzip();
    let relstrings = if relstring_len(measures).is_some() { relstrings } else { Vec::new() };
    qrels_topics_missing_from_run.sort_unstable();
    let mut summary = summarize_topics(&topics, measures);
    let mut summary_ranges = Vec::new();
    if options.ties == Ties::Range {
        let low = summarize_by(&topics, measures, |t, i| t.ranges.get(i).map_or(t.values[i], |r| r.0));
        let high = summarize_by(&topics, measures, |t, i| t.ranges.get(i).map_or(t.values[i], |r| r.1));
        summary_ranges = low.into_iter().zip(high).collect();
    }
    if options.query_set == QuerySet::Complete {
        // m_num_rel.c: under -c the num_rel summary counts every qrels line with rel > 0,
        // whatever -l says.
        if let Some(i) = measures.measures().iter().position(|m| m.family == MeasureFamily::NumRel) {
            summary[i] = qrels.topics().map(|(_, t)| t.relevances().filter(|&r| r > 0).count()).sum::<usize>() as f64;
            if let Some(range) = summary_ranges.get_mut(i) {
                *range = (summary[i], summary[i]);
            }
        }
    }
    let summary_std_errors = summary_std_errors(&topics, measures, &summary);
    RunEvaluation {
        run_id: run_id.to_owned(),
        name: String::new(),
        source: String::new(),
        summary,
        topics,
        relstrings,
        qrels_topics_missing_from_run,
        run_topics_missing_from_qrels,
        topics_with_tied_scores,
        summary_ranges,
        summary_std_errors,
    }
}

/// The summary line of each measure over `topics`: the mean, the sum for counts, the topic
/// count for `num_q`, the geometric mean (floored at [`MIN_GEO_MEAN`]) for `gm_*`. With no
/// topic every value is 0.
#[must_use]
pub fn summarize_topics(topics: &[TopicScores], measures: &MeasureSet) -> Vec<f64> {
    summarize_by(topics, measures, |t, i| t.values[i])
}

/// [`summarize_topics`] over `value(topic, measure index)`.
fn summarize_by(topics: &[TopicScores], measures: &MeasureSet, value: impl Fn(&TopicScores, usize) -> f64) -> Vec<f64> {
    let n = topics.len() as f64;
    measures
        .measures()
        .iter()
        .enumerate()
        .map(|(i, measure)| {
            let values = topics.iter().map(|t| value(t, i));
            match measure.family.aggregation() {
                Aggregation::Text => 0.0,
                Aggregation::Count => n,
                Aggregation::Sum => values.fold(0.0, |sum, v| sum + v),
                Aggregation::Mean if topics.is_empty() => 0.0,
                Aggregation::Mean => values.sum::<f64>() / n,
                Aggregation::GeometricMean if topics.is_empty() => 0.0,
                Aggregation::GeometricMean => (values.map(|v| v.max(MIN_GEO_MEAN).ln()).sum::<f64>() / n).exp(),
            }
        })
        .collect()
}

/// The standard error of each summary value that averages estimated topic values (`None`
/// where every topic value is exact; empty when all are): √Σse² for sums, √Σse² / n for
/// means, and for geometric means the delta method, gm · √Σ(se / max(v, floor))² / n.
fn summary_std_errors(topics: &[TopicScores], measures: &MeasureSet, summary: &[f64]) -> Vec<Option<f64>> {
    if topics.iter().all(|t| t.std_errors.is_empty()) {
        return Vec::new();
    }
    let n = topics.len() as f64;
    measures
        .measures()
        .iter()
        .enumerate()
        .map(|(i, measure)| {
            let errors: Vec<(f64, f64)> = topics
                .iter()
                .filter_map(|t| t.std_errors.get(i).copied().flatten().map(|se| (se, t.values[i])))
                .collect();
            if errors.is_empty() {
                return None;
            }
            let squares = |f: &dyn Fn(f64, f64) -> f64| errors.iter().map(|&(se, v)| f(se, v).powi(2)).sum::<f64>();
            match measure.family.aggregation() {
                Aggregation::Text | Aggregation::Count => None,
                Aggregation::Sum => Some(squares(&|se, _| se).sqrt()),
                Aggregation::Mean => Some(squares(&|se, _| se).sqrt() / n),
                Aggregation::GeometricMean => Some(summary[i] * squares(&|se, v| se / v.max(MIN_GEO_MEAN)).sqrt() / n),
            }
        })
        .collect()
}

/// Writes the per-topic values of `evaluation` into `table` (system = the run's name, item =
/// qid, metric = the measure's printed name). Summary-only and text measures are skipped.
pub fn record_run_into_table(
    table: &mut ScoreTable,
    system: SystemId,
    evaluation: &RunEvaluation,
    measures: &MeasureSet,
) {
    let metrics: Vec<_> = measures
        .measures()
        .iter()
        .map(|m| (m.family.per_topic() && m.family.aggregation() != Aggregation::Text).then(|| table.metric(&m.name)))
        .collect();
    for topic in &evaluation.topics {
        let item = table.item(&topic.qid, &[]);
        for (metric, &value) in metrics.iter().zip(&topic.values) {
            if let Some(metric) = metric {
                table.set(system, item, *metric, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use kgeval_model::trec::{MeasureRequest, Run, TieBreak};

    use super::*;

    fn set(names: &[&str]) -> MeasureSet {
        MeasureSet::from_requests(&names.iter().map(|n| MeasureRequest::parse(n).expect("parses")).collect::<Vec<_>>())
    }

    fn tie_example() -> (Qrels, Run) {
        let mut qrels = Qrels::new();
        qrels.topic_mut("q1").insert("d1", 1);
        let mut run = Run { run_id: "r".into(), ..Run::default() };
        for docno in ["d1", "d2", "d3"] {
            run.push("q1", docno, 0.5);
        }
        (qrels, run)
    }

    #[test]
    fn spec_tie_example_under_every_tie_break() {
        let (qrels, run) = tie_example();
        let measures = set(&["P.1", "recip_rank"]);
        for (tie_break, expected) in [
            // Measures print in trec_eval's order: recip_rank before P_1.
            (TieBreak::DocnoDescending, [1.0 / 3.0, 0.0]),
            (TieBreak::DocnoAscending, [1.0, 1.0]),
            (TieBreak::Input, [1.0, 1.0]),
            (TieBreak::Rank, [1.0, 1.0]),
        ] {
            let options = IrOptions { tie_break, ..IrOptions::default() };
            let evaluation = evaluate_run(&qrels, &run, &measures, &options).expect("valid");
            assert_eq!(evaluation.topics[0].values, expected, "{tie_break}");
            assert_eq!(evaluation.topics_with_tied_scores, 1);
        }
    }

    #[test]
    fn query_set_policies_and_missing_topics() {
        let (mut qrels, mut run) = tie_example();
        qrels.topic_mut("q2").insert("d9", 1);
        run.push("q0", "d1", 1.0);
        let measures = set(&["num_q", "num_rel", "map"]);
        let intersection = evaluate_run(&qrels, &run, &measures, &IrOptions::default()).expect("valid");
        assert_eq!(intersection.topics.len(), 1);
        assert_eq!(intersection.qrels_topics_missing_from_run, ["q2"]);
        assert_eq!(intersection.run_topics_missing_from_qrels, ["q0"]);
        assert_eq!(intersection.summary, [1.0, 1.0, 1.0 / 3.0]);
        let options = IrOptions { query_set: QuerySet::Complete, ..IrOptions::default() };
        let complete = evaluate_run(&qrels, &run, &measures, &options).expect("valid");
        assert_eq!(complete.topics.iter().map(|t| t.qid.as_str()).collect::<Vec<_>>(), ["q1", "q2"]);
        assert!(complete.topics[1].missing_from_run);
        assert_eq!(complete.summary, [2.0, 2.0, 1.0 / 6.0]);
    }

    #[test]
    fn depth_limit_truncates_after_sorting() {
        let mut qrels = Qrels::new();
        qrels.topic_mut("q").insert("a", 1);
        let mut run = Run::default();
        run.push("q", "b", 2.0);
        run.push("q", "a", 1.0);
        let measures = set(&["num_ret", "num_rel_ret", "map"]);
        let options = IrOptions { max_docs: Some(1), ..IrOptions::default() };
        let evaluation = evaluate_run(&qrels, &run, &measures, &options).expect("valid");
        assert_eq!(evaluation.summary, [1.0, 0.0, 0.0]);
    }

    #[test]
    fn geometric_mean_floors_zero() {
        let topics: Vec<TopicScores> = [0.0, 0.25]
            .iter()
            .map(|&v| TopicScores {
                qid: String::new(),
                missing_from_run: false,
                values: vec![v],
                ranges: Vec::new(),
                std_errors: Vec::new(),
            })
            .collect();
        let summary = summarize_topics(&topics, &set(&["gm_map"]));
        assert!((summary[0] - (MIN_GEO_MEAN * 0.25).sqrt()).abs() < 1e-15);
    }

    #[test]
    fn topics_without_qrels_are_still_checked() {
        let (qrels, mut run) = tie_example();
        run.push("unjudged", "x", 1.0);
        run.push("unjudged", "x", 0.5);
        assert!(evaluate_run(&qrels, &run, &set(&["map"]), &IrOptions::default()).is_err());
    }

    #[test]
    fn duplicate_docs_are_reported() {
        let (qrels, mut run) = tie_example();
        run.push("q1", "d1", 0.1);
        assert!(evaluate_run(&qrels, &run, &set(&["map"]), &IrOptions::default()).is_err());
    }
}
