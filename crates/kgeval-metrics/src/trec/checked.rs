//! Topics handed over by a front end rather than read from a run file
//! ([`check_and_evaluate_topic`]): checked as a run file's reader checks them (finite scores,
//! no docno twice) in the same pass over the documents that finds the judged ones, each
//! docno hashed once for both.

use std::cell::RefCell;
use std::hash::BuildHasher;

use kgeval_model::trec::{IrOptions, MeasureSet, Qrels, RunDoc, TopicJudgments};
use rustc_hash::FxBuildHasher;

use super::{counts_positions, evaluate_judged, finish_topic, ranked_at, ranked_relevance, topic_values, TopicOutcome};
use crate::ranking::{positions_and_ties_in, ListSet, TieKey};

/// Why a topic's documents are no run's: the first offending document in list order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DocsProblem<'d> {
    /// A score that is not finite (NaN or infinite).
    NotFinite {
        /// The document's docno.
        docno: &'d str,
        /// Its score.
        score: f64,
    },
    /// A docno that an earlier document of the topic has.
    Repeated {
        /// The docno.
        docno: &'d str,
    },
}

/// Checks `docs` (topic `qid` of a run, in the run's order) and, when `qrels` judges the
/// topic, ranks and scores it as [`evaluate_topic`](super::evaluate_topic) does: `Ok(None)`
/// for a topic the qrels do not judge. `check_docnos: false` is for documents whose docnos
/// are distinct by construction (the keys of one mapping): only their scores are checked.
///
/// ```
/// use kgeval_metrics::trec::{check_and_evaluate_topic, DocsProblem};
/// use kgeval_model::trec::{IrOptions, MeasureRequest, MeasureSet, Qrels, RunDoc};
/// let mut qrels = Qrels::new();
/// qrels.topic_mut("q1").insert("d1", 1);
/// let measures = MeasureSet::from_requests(&[MeasureRequest::parse("recip_rank").unwrap()]);
/// let doc = |docno, score| RunDoc { docno, score, rank: 0, position: 0 };
/// let docs = [doc("d2", 2.0), doc("d1", 1.0)];
/// let outcome = check_and_evaluate_topic(&qrels, "q1", &docs, true, &measures, &IrOptions::default());
/// assert_eq!(outcome.unwrap().unwrap().scores.values, [0.5]);
/// let twice = [doc("d2", 2.0), doc("d2", 1.0)];
/// let problem = check_and_evaluate_topic(&qrels, "q1", &twice, true, &measures, &IrOptions::default());
/// assert_eq!(problem, Err(DocsProblem::Repeated { docno: "d2" }));
/// ```
///
/// # Errors
/// The first document, in list order, whose score is not finite or (with `check_docnos`)
/// whose docno came before.
pub fn check_and_evaluate_topic<'d>(
    qrels: &Qrels,
    qid: &str,
    docs: &[RunDoc<'d>],
    check_docnos: bool,
    measures: &MeasureSet,
    options: &IrOptions,
) -> Result<Option<TopicOutcome>, DocsProblem<'d>> {
    let judgments = qrels.topic(qid);
    let listed = docs.iter().map(|doc| (doc.docno, doc.score));
    let judged = judged_and_checked(judgments, docs.len(), listed, |i| docs[i].docno, check_docnos)?;
    Ok(judgments.map(|_| evaluate_judged(qrels, qid, Some(docs), Some(&judged), measures, options)))
}

/// [`check_and_evaluate_topic`] for a topic held as columns, as a columnar front end (an
/// Arrow batch) holds it: `scores[i]` and `docno(i)` are document `i`'s, in the run's order,
/// its rank `i + 1` and position `i` (as a run file's documents without a rank column have);
/// `docnos` gives the same docnos in order (the one pass over them; `docno` is for the few
/// looked up again).
/// The documents are checked and, in the common case (the run's own order for ties, few
/// judged documents, no depth cut), ranked straight from the columns; otherwise they are
/// built as [`RunDoc`]s and evaluated by [`check_and_evaluate_topic`]'s code. The outcome is
/// the same either way.
///
/// ```
/// use kgeval_metrics::trec::{check_and_evaluate_columns, check_and_evaluate_topic};
/// use kgeval_model::trec::{IrOptions, MeasureRequest, MeasureSet, Qrels, RunDoc};
/// let mut qrels = Qrels::new();
/// qrels.topic_mut("q1").insert("d1", 1);
/// let measures = MeasureSet::from_requests(&[MeasureRequest::parse("recip_rank").unwrap()]);
/// let (docnos, scores) = (["d2", "d1"], [2.0, 1.0]);
/// let options = IrOptions::default();
/// let outcome =
///     check_and_evaluate_columns(&qrels, "q1", docnos.iter().copied(), |i| docnos[i], &scores, true, &measures, &options);
/// assert_eq!(outcome.unwrap().unwrap().scores.values, [0.5]);
/// ```
///
/// # Errors
/// As [`check_and_evaluate_topic`].
#[allow(clippy::too_many_arguments)]
pub fn check_and_evaluate_columns<'d>(
    qrels: &Qrels,
    qid: &str,
    docnos: impl Iterator<Item = &'d str>,
    docno: impl Fn(usize) -> &'d str,
    scores: &[f64],
    check_docnos: bool,
    measures: &MeasureSet,
    options: &IrOptions,
) -> Result<Option<TopicOutcome>, DocsProblem<'d>> {
    let judgments = qrels.topic(qid);
    let listed = docnos.zip(scores.iter().copied());
    let judged = judged_and_checked(judgments, scores.len(), listed, &docno, check_docnos)?;
    if judgments.is_none() {
        return Ok(None);
    }
    if !options.ties.follows_tie_break() || !counts_positions(scores.len(), judged.len(), options) {
        let docs: Vec<RunDoc<'d>> = (0..scores.len())
            .map(|i| RunDoc { docno: docno(i), score: scores[i], rank: i as i64 + 1, position: i as u64 })
            .collect();
        return Ok(Some(evaluate_judged(qrels, qid, Some(&docs), Some(&judged), measures, options)));
    }
    let selected: Vec<u32> = judged.iter().map(|&(i, _)| i).collect();
    let mut positions = Vec::with_capacity(selected.len());
    let tie_key = |i: usize| TieKey { id: docno(i), rank: i as i64 + 1, position: i as u64 };
    let tied = positions_and_ties_in(scores, tie_key, options.tie_break, &selected, &mut positions);
    let topic = ranked_relevance(judgments, ranked_at(scores.len(), &judged, &positions), options);
    let values = topic_values(&topic, measures);
    Ok(Some(finish_topic(qid, &topic, tied, values, Vec::new(), Vec::new(), false, measures)))
}

/// Checks `docs` as [`check_and_evaluate_topic`] does, evaluating nothing.
///
/// # Errors
/// As [`check_and_evaluate_topic`] with `check_docnos`.
pub fn check_docs<'d>(docs: &[RunDoc<'d>]) -> Result<(), DocsProblem<'d>> {
    let listed = docs.iter().map(|doc| (doc.docno, doc.score));
    judged_and_checked(None, docs.len(), listed, |i| docs[i].docno, true).map(drop)
}

thread_local! {
    /// [`judged_and_checked`]'s table, reused from topic to topic.
    static TABLE: RefCell<ListSet> = const { RefCell::new(ListSet::new()) };
}

/// A payload of [`judged_and_checked`]'s table: a judged docno (its index among the topic's
/// judgments in the low bits), not yet retrieved unless [`RETRIEVED`] is set too.
const JUDGED: u32 = 1 << 31;
/// A payload bit: a judged docno that a document of the topic has.
const RETRIEVED: u32 = 1 << 30;
/// The index bits of a payload.
const INDEX: u32 = RETRIEVED - 1;

/// (index, relevance value) of the judged documents among the `len` documents `listed`
/// (docno and score of each, in order; `docno(i)` the `i`-th docno again), in order, or the
/// first problem: one pass and one table, each docno hashed once and probed once. The table
/// starts with the topic's judged docnos; a document's docno either is new (added), is a judged
/// one not retrieved yet (marked retrieved: a judged document) or was retrieved before (a
/// docno twice). Without `check_docnos` the table holds the judged docnos alone and is only
/// looked up.
fn judged_and_checked<'d>(
    judgments: Option<&TopicJudgments>,
    len: usize,
    listed: impl Iterator<Item = (&'d str, f64)>,
    docno: impl Fn(usize) -> &'d str,
    check_docnos: bool,
) -> Result<Vec<(u32, i64)>, DocsProblem<'d>> {
    let judged_docnos: Vec<(&str, i64)> = judgments.map(|j| j.iter().collect()).unwrap_or_default();
    // At most one entry per judgment: allocated once, not grown.
    let mut judged = Vec::with_capacity(judged_docnos.len().min(len));
    TABLE.with_borrow_mut(|table| {
        table.reset(judged_docnos.len() + if check_docnos { len } else { judged_docnos.len() });
        for (k, (judged_docno, _)) in judged_docnos.iter().enumerate() {
            table.insert(docno_hash(judged_docno), JUDGED | (k as u32 & INDEX), |_| false);
        }
        let docno_of = |payload: u32| {
            let index = (payload & INDEX) as usize;
            if payload & JUDGED != 0 {
                judged_docnos[index].0
            } else {
                docno(index)
            }
        };
        for (i, (this, this_score)) in listed.enumerate() {
            if !this_score.is_finite() {
                return Err(DocsProblem::NotFinite { docno: this, score: this_score });
            }
            if !check_docnos && judged_docnos.is_empty() {
                continue;
            }
            let hash = docno_hash(this);
            // A topic's documents are numbered by u32 everywhere in the engine.
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let same = |payload: u32| docno_of(payload) == this;
            let found = if check_docnos {
                table.upsert(hash, index.min(INDEX), same, |found| found | (found & JUDGED) >> 1)
            } else {
                table.get(hash, same)
            };
            match found {
                None => {}
                Some(payload) if payload & (JUDGED | RETRIEVED) == JUDGED => {
                    judged.push((index, judged_docnos[(payload & INDEX) as usize].1));
                }
                Some(_) => return Err(DocsProblem::Repeated { docno: this }),
            }
        }
        Ok(())
    })?;
    Ok(judged)
}

/// A docno's hash for [`judged_and_checked`]'s table. A docno of up to 8 bytes (most are:
/// `d123`, MS MARCO's `7067032`, `LA010189`) is read as one word (two overlapping 4-byte reads
/// from 4 bytes on), its length mixed in, and multiplied once: a few instructions where a
/// general string hash takes about thirty, and docnos that differ in their last digits, as a
/// corpus numbers them, still fall into different slots ([`ListSet`] takes the product's top
/// bits). Longer docnos take FxHash.
#[inline]
fn docno_hash(docno: &str) -> u64 {
    let bytes = docno.as_bytes();
    let len = bytes.len();
    let word =
        |at: usize| bytes.get(at..at + 4).and_then(|b| <[u8; 4]>::try_from(b).ok()).map_or(0, u32::from_le_bytes);
    let packed = match len {
        0 => 0,
        1..=3 => u64::from(bytes[0]) | u64::from(bytes[len / 2]) << 8 | u64::from(bytes[len - 1]) << 16,
        4..=8 => u64::from(word(0)) | u64::from(word(len - 4)) << 32,
        _ => return FxBuildHasher.hash_one(docno),
    };
    (packed ^ (len as u64) << 59).wrapping_mul(0xa076_1d64_78bd_642f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trec::evaluate_topic;
    use kgeval_model::ranking::TieBreak;
    use kgeval_model::trec::{MeasureRequest, Ties};

    #[test]
    fn short_docnos_hash_apart_and_long_ones_are_checked_too() {
        // Up to 8 bytes a docno's hash is a bijection of its bytes for each length: a
        // corpus' numbered docnos never share a hash.
        let docnos: Vec<String> =
            (0..100_000).map(|i| format!("d{i}")).chain((0..1000).map(|i| format!("LA0{i:05}"))).collect();
        let hashes: std::collections::HashSet<u64> = docnos.iter().map(|d| docno_hash(d)).collect();
        assert_eq!(hashes.len(), docnos.len());
        // Longer docnos (FxHash): judged ones found, a repeated one reported.
        let long = |i: usize| format!("clueweb09-en0000-00-{i:05}");
        let names: Vec<String> = (0..40).map(long).collect();
        let doc = |i: usize| RunDoc { docno: &names[i], score: i as f64, rank: i as i64 + 1, position: i as u64 };
        let mut qrels = Qrels::new();
        qrels.topic_mut("q").insert(&long(3), 1);
        qrels.topic_mut("q").insert(&long(77), 1);
        let measures = MeasureSet::from_requests(&[MeasureRequest::parse("map").expect("known")]);
        let docs: Vec<RunDoc<'_>> = (0..40).map(doc).collect();
        let outcome = check_and_evaluate_topic(&qrels, "q", &docs, true, &measures, &IrOptions::default());
        // d3 ranked 37th of 40 (scores ascending by index), one of two relevant: AP = (1/37)/2.
        assert_eq!(outcome.expect("no problem").expect("judged").scores.values, [1.0 / 37.0 / 2.0]);
        let mut twice = docs.clone();
        twice.push(doc(5));
        let problem = check_and_evaluate_topic(&qrels, "q", &twice, true, &measures, &IrOptions::default());
        assert_eq!(problem, Err(DocsProblem::Repeated { docno: &names[5] }));
    }

    proptest::proptest! {
        /// Checked topics give what a run file's topics give: the first problem in list order,
        /// or exactly `evaluate_topic`'s outcome (judged documents found by the hashed pass
        /// against the qrels' own lookup), whether or not the qrels judge the topic.
        #[test]
        fn equals_the_run_file_path(
            lines in proptest::collection::vec((0u8..40, 0u8..6, proptest::bool::weighted(0.02)), 0..120),
            judged in proptest::collection::vec((0u8..50, -1i64..3), 0..30),
            judge_topic: bool,
            check_docnos: bool,
        ) {
            let docnos: Vec<String> = lines.iter().map(|&(d, _, _)| format!("d{d}")).collect();
            let docs: Vec<RunDoc<'_>> = lines
                .iter()
                .zip(&docnos)
                .enumerate()
                .map(|(i, (&(_, s, bad), docno))| {
                    let score = if bad { f64::NAN } else { f64::from(s) / 2.0 };
                    RunDoc { docno, score, rank: i as i64, position: i as u64 }
                })
                .collect();
            let mut qrels = Qrels::new();
            qrels.topic_mut("other").insert("d1", 1);
            if judge_topic {
                for &(d, rel) in &judged {
                    qrels.topic_mut("q").insert(&format!("d{d}"), rel);
                }
                qrels.topic_mut("q");
            }
            let measures = MeasureSet::from_requests(
                &["map", "P.5", "ndcg", "recip_rank", "num_rel_ret", "relstring.10"]
                    .map(|m| MeasureRequest::parse(m).expect("known")),
            );
            let options = IrOptions::default();
            let expected_problem = docs.iter().enumerate().find_map(|(i, d)| {
                if !d.score.is_finite() {
                    Some(DocsProblem::NotFinite { docno: d.docno, score: d.score })
                } else if check_docnos && docs[..i].iter().any(|e| e.docno == d.docno) {
                    Some(DocsProblem::Repeated { docno: d.docno })
                } else {
                    None
                }
            });
            let got = check_and_evaluate_topic(&qrels, "q", &docs, check_docnos, &measures, &options);
            match (got, expected_problem) {
                (Err(DocsProblem::NotFinite { docno, score }), Some(DocsProblem::NotFinite { docno: d, .. })) => {
                    proptest::prop_assert_eq!(docno, d);
                    proptest::prop_assert!(score.is_nan());
                }
                (Err(problem), Some(expected)) => proptest::prop_assert_eq!(problem, expected),
                (Ok(outcome), None) => {
                    let expected = qrels.topic("q").map(|_| evaluate_topic(&qrels, "q", Some(&docs), &measures, &options));
                    proptest::prop_assert_eq!(outcome, expected);
                }
                (got, expected) => proptest::prop_assert!(false, "{got:?} vs {expected:?}"),
            }
            if check_docnos {
                proptest::prop_assert_eq!(check_docs(&docs).err().is_some(), expected_problem.is_some());
            }
        }

        /// The columns' entry gives the rows' outcome, or its problem, for documents with
        /// rank `i + 1` and position `i`: under every tie-break and tie policy, with and
        /// without a depth cut, on long lists with few judged documents (ranked straight from
        /// the columns) and short ones (built as rows).
        #[test]
        fn columns_equal_rows(
            levels in proptest::collection::vec(0u8..12, 0..300),
            judged in proptest::collection::vec((0usize..320, -1i64..3), 0..12),
            repeated in proptest::option::weighted(0.1, (0usize..300, 0usize..300)),
            not_finite in proptest::option::weighted(0.1, 0usize..300),
            tie_break in 0usize..5,
            ties in 0usize..5,
            max_docs in proptest::option::of(1usize..400),
            check_docnos: bool,
        ) {
            let mut docnos: Vec<String> = (0..levels.len()).map(|i| format!("d{i}")).collect();
            if let Some((from, to)) = repeated.filter(|&(from, to)| from.max(to) < docnos.len()) {
                docnos[to] = docnos[from].clone();
            }
            let mut scores: Vec<f64> = levels.iter().map(|&s| f64::from(s) / 3.0).collect();
            if let Some(at) = not_finite.filter(|&at| at < scores.len()) {
                scores[at] = f64::INFINITY;
            }
            let docs: Vec<RunDoc<'_>> = docnos
                .iter()
                .zip(&scores)
                .enumerate()
                .map(|(i, (docno, &score))| RunDoc { docno, score, rank: i as i64 + 1, position: i as u64 })
                .collect();
            let mut qrels = Qrels::new();
            for &(d, rel) in &judged {
                qrels.topic_mut("q").insert(&format!("d{d}"), rel);
            }
            qrels.topic_mut("q");
            let measures = MeasureSet::from_requests(
                &["map", "P.5", "ndcg_cut.10", "recip_rank", "relstring.10"]
                    .map(|m| MeasureRequest::parse(m).expect("known")),
            );
            let options = IrOptions {
                tie_break: [TieBreak::DocnoDescending, TieBreak::DocnoAscending, TieBreak::Rank, TieBreak::Input, TieBreak::Lexicographic][tie_break],
                ties: [Ties::Trec, Ties::Expected, Ties::Optimistic, Ties::Pessimistic, Ties::Range][ties],
                max_docs,
                ..IrOptions::default()
            };
            let rows = check_and_evaluate_topic(&qrels, "q", &docs, check_docnos, &measures, &options);
            let listed = docnos.iter().map(String::as_str);
            let columns =
                check_and_evaluate_columns(&qrels, "q", listed, |i| docnos[i].as_str(), &scores, check_docnos, &measures, &options);
            proptest::prop_assert_eq!(columns, rows);
        }
    }
}
