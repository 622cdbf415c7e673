//! [`TopicStream`]: a run handed over one topic at a time, from any thread, each topic
//! checked, ranked and scored as it arrives — for front ends that convert a run while the
//! topics already converted are being evaluated (Python dicts: the walk must hold the GIL,
//! the evaluation need not).

use std::sync::{Arc, Mutex, PoisonError};

use kgeval_metrics::trec::{
    assemble_run, check_and_evaluate_columns, check_and_evaluate_topic, check_docs, DocsProblem, TopicOutcome,
};
use kgeval_model::trec::{IrOptions, MeasureSet, Qrels, RunDoc, RunEvaluation};

/// One run's topics, handed over one at a time ([`TopicStream::add_topic`], callable from
/// several threads at once) and put together by [`super::TrecTask::run_streams`]. Each topic
/// is checked as a run file's topic is (no docno twice, finite scores) and, when the qrels
/// judge it, ranked and scored by the same code as [`super::TrecTask::run`]: the results are
/// those of [`super::TrecTask::run_in_memory`] on the same entries, at any thread count and
/// in any order of arrival.
///
/// ```
/// use std::sync::Arc;
/// use kgeval::trec::TrecTask;
/// use kgeval_model::trec::{Qrels, RunDoc};
/// let mut qrels = Qrels::new();
/// qrels.topic_mut("q1").insert("d1", 1);
/// let task = TrecTask::new("qrels").measure("recip_rank");
/// let stream = task.topic_stream(Arc::new(qrels))?;
/// let docs = [
///     RunDoc { docno: "d2", score: 2.0, rank: 1, position: 0 },
///     RunDoc { docno: "d1", score: 1.0, rank: 2, position: 1 },
/// ];
/// stream.add_topic(0, "q1", &docs);
/// let evaluation = task.run_streams("qrels", vec![("bm25".to_owned(), stream)])?;
/// assert_eq!(evaluation.headline("bm25", "recip_rank"), Some(0.5));
/// # Ok::<(), kgeval::Error>(())
/// ```
#[derive(Debug)]
pub struct TopicStream {
    pub(super) qrels: Arc<Qrels>,
    pub(super) measures: MeasureSet,
    pub(super) options: IrOptions,
    state: Mutex<StreamState>,
}

/// What the topics handed over so far left.
#[derive(Debug, Default)]
struct StreamState {
    /// Every topic handed over: (index, qid).
    qids: Vec<(usize, Box<str>)>,
    /// The outcomes of the judged ones.
    outcomes: Vec<TopicOutcome>,
    /// The problem of the topic with the smallest index: (index, message).
    problem: Option<(usize, String)>,
}

impl TopicStream {
    pub(super) fn new(qrels: Arc<Qrels>, measures: MeasureSet, options: IrOptions) -> Self {
        TopicStream { qrels, measures, options, state: Mutex::new(StreamState::default()) }
    }

    /// Checks topic `qid` (`docs` in the run's order) and, when the qrels judge it, ranks and
    /// scores it. `index` is the topic's position in the run: when several topics have a
    /// problem (a docno twice, a score that is not finite), the one with the smallest index
    /// is reported, whatever the order of arrival.
    pub fn add_topic(&self, index: usize, qid: &str, docs: &[RunDoc<'_>]) {
        self.add(index, qid, docs, true);
    }

    /// [`TopicStream::add_topic`] for documents whose docnos are distinct by construction
    /// (the keys of one mapping of `str`): only their scores are checked. A docno twice here
    /// is not reported: it is scored as two documents.
    pub fn add_distinct_topic(&self, index: usize, qid: &str, docs: &[RunDoc<'_>]) {
        debug_assert!(!matches!(check_docs(docs), Err(DocsProblem::Repeated { .. })));
        self.add(index, qid, docs, false);
    }

    /// [`TopicStream::add_topic`] for a topic held as columns (an Arrow batch's rows):
    /// document `i` has docno `docno(i)` and score `scores[i]`, rank `i + 1` and position
    /// `i`, as the same documents handed as [`RunDoc`]s in that order would; `docnos` are the
    /// same docnos in order. Ranked from the columns without building the documents
    /// ([`check_and_evaluate_columns`]).
    pub fn add_topic_columns<'d>(
        &self,
        index: usize,
        qid: &str,
        docnos: impl Iterator<Item = &'d str>,
        docno: impl Fn(usize) -> &'d str,
        scores: &[f64],
    ) {
        let (qrels, measures, options) = (&self.qrels, &self.measures, &self.options);
        let checked = check_and_evaluate_columns(qrels, qid, docnos, docno, scores, true, measures, options);
        self.record(index, qid, checked);
    }

    fn add(&self, index: usize, qid: &str, docs: &[RunDoc<'_>], check_docnos: bool) {
        let checked = check_and_evaluate_topic(&self.qrels, qid, docs, check_docnos, &self.measures, &self.options);
        self.record(index, qid, checked);
    }

    /// Keeps topic `qid`'s outcome, or its problem when it is the first in index order.
    fn record(&self, index: usize, qid: &str, checked: Result<Option<TopicOutcome>, DocsProblem<'_>>) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.qids.push((index, qid.into()));
        match checked {
            Ok(outcome) => state.outcomes.extend(outcome),
            Err(problem) => {
                if state.problem.as_ref().is_none_or(|(first, _)| index < *first) {
                    state.problem = Some((index, message(qid, problem)));
                }
            }
        }
    }

    /// The run's evaluation, or its first problem (`topic Q: …`).
    pub(super) fn finish(self, run_id: &str) -> Result<RunEvaluation, String> {
        let state = self.state.into_inner().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, message)) = state.problem {
            return Err(message);
        }
        let mut qids = state.qids;
        qids.sort_unstable_by_key(|&(index, _)| index);
        let mut sorted: Vec<&str> = qids.iter().map(|(_, qid)| &**qid).collect();
        sorted.sort_unstable();
        if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(format!("topic {} is given twice", pair[0]));
        }
        let run_qids: Vec<&str> = qids.iter().map(|(_, qid)| &**qid).collect();
        Ok(assemble_run(&self.qrels, run_id, &run_qids, state.outcomes, &self.measures, &self.options))
    }
}

/// The message for a topic's first problem.
fn message(qid: &str, problem: DocsProblem<'_>) -> String {
    match problem {
        DocsProblem::NotFinite { docno, score } => {
            format!("topic {qid}: document {docno} has score {score}, expected a finite score")
        }
        DocsProblem::Repeated { docno } => format!("topic {qid}: document {docno} is retrieved twice"),
    }
}
