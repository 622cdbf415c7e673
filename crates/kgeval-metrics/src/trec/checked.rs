//! Topics handed over by a front end rather than read from a run file
//! ([`check_and_evaluate_topic`]): checked as a run file's reader checks them (finite scores,
//! no docno twice) in the same pass over the documents that finds the judged ones, each
//! docno hashed once for both.

use std::cell::RefCell;
use std::hash::BuildHasher;

use kgeval_model::trec::{IrOptions, MeasureSet, Qrels, RunDoc, TopicJudgments};
use rustc_hash::FxBuildHasher;

use super::{evaluate_judged, TopicOutcome};
use crate::ranking::ListSet;

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
    let judged = judged_and_checked(judgments, docs, check_docnos)?;
    Ok(judgments.map(|_| evaluate_judged(qrels, qid, Some(docs), Some(&judged), measures, options)))
}

/// Checks `docs` as [`check_and_evaluate_topic`] does, evaluating nothing.
///
/// # Errors
/// As [`check_and_evaluate_topic`] with `check_docnos`.
pub fn check_docs<'d>(docs: &[RunDoc<'d>]) -> Result<(), DocsProblem<'d>> {
    judged_and_checked(None, docs, true).map(drop)
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

/// (index in `docs`, relevance value) of the judged documents of `docs`, in order, or the
/// first problem: one pass and one table, each docno hashed once and probed once. The table
/// starts with the topic's judged docnos; a document's docno either is new (added), is a judged
/// one not retrieved yet (marked retrieved: a judged document) or was retrieved before (a
/// docno twice). Without `check_docnos` the table holds the judged docnos alone and is only
/// looked up.
fn judged_and_checked<'d>(
    judgments: Option<&TopicJudgments>,
    docs: &[RunDoc<'d>],
    check_docnos: bool,
) -> Result<Vec<(u32, i64)>, DocsProblem<'d>> {
    let hasher = FxBuildHasher;
    let judged_docnos: Vec<(&str, i64)> = judgments.map(|j| j.iter().collect()).unwrap_or_default();
    // At most one entry per judgment: allocated once, not grown.
    let mut judged = Vec::with_capacity(judged_docnos.len().min(docs.len()));
    TABLE.with_borrow_mut(|table| {
        table.reset(judged_docnos.len() + if check_docnos { docs.len() } else { judged_docnos.len() });
        for (k, (docno, _)) in judged_docnos.iter().enumerate() {
            table.insert(hasher.hash_one(docno), JUDGED | (k as u32 & INDEX), |_| false);
        }
        let docno_of = |payload: u32| {
            let index = (payload & INDEX) as usize;
            if payload & JUDGED != 0 {
                judged_docnos[index].0
            } else {
                docs[index].docno
            }
        };
        for (i, doc) in docs.iter().enumerate() {
            if !doc.score.is_finite() {
                return Err(DocsProblem::NotFinite { docno: doc.docno, score: doc.score });
            }
            if !check_docnos && judged_docnos.is_empty() {
                continue;
            }
            let hash = hasher.hash_one(doc.docno);
            // A topic's documents are numbered by u32 everywhere in the engine.
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let same = |payload: u32| docno_of(payload) == doc.docno;
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
                Some(_) => return Err(DocsProblem::Repeated { docno: doc.docno }),
            }
        }
        Ok(())
    })?;
    Ok(judged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trec::evaluate_topic;
    use kgeval_model::trec::MeasureRequest;

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
    }
}
