//! Per-answer observations from a TREC-style top-k run over the aggregated questions.

use kgeval_model::kgc::{AnswerObservation, RankObservation};
use kgeval_model::trec::{OwnedRunDoc, Run, RunDoc, RunSource, TieBreak};
use kgeval_model::Diagnostic;
use rustc_hash::FxHashMap;

use super::data::KgcData;
use crate::ranking::sort_run;

/// A run turned into observations.
#[derive(Debug, Clone, Default)]
pub struct RunObservations {
    /// One observation per retrieved test answer: its place in the question's list once the
    /// filter files' answers are removed ([`FilterScope::Filters`](kgeval_model::kgc::FilterScope)).
    /// Answers not retrieved have none (absent).
    pub observations: Vec<AnswerObservation>,
    /// The run without the filter files' answers, topics named by question id: the list of
    /// the IR measures.
    pub filtered: Run,
    /// Run topics that are no test question, documents that are no entity.
    pub warnings: Vec<Diagnostic>,
}

/// Reads every topic of `run`, keeps those `question_of` maps to a test question (its index), removes the
/// answers the filter files know, orders the rest as trec_eval does (score descending, then
/// docno descending: the ranking core's [`sort_run`], the order of `kgeval trec`) and notes
/// the place of every test answer.
///
/// # Errors
/// The first error `run` reports while handing out a topic (a malformed line, a docno
/// retrieved twice).
pub fn observe_run<S: RunSource>(
    data: &KgcData<'_>,
    run: &S,
    question_of: impl Fn(&str) -> Option<u32>,
) -> Result<RunObservations, S::Error> {
    let questions = &data.test.questions;
    let mut out =
        RunObservations { filtered: Run { run_id: run.run_id().to_owned(), topics: Vec::new() }, ..Default::default() };
    let (mut unknown_topics, mut unknown_docs) = (Vec::new(), 0usize);
    let mut docs: Vec<RunDoc<'_>> = Vec::new();
    for topic in 0..run.topic_count() {
        let qid = run.topic_id(topic);
        let Some(index) = question_of(qid) else {
            unknown_topics.push(qid.to_owned());
            continue;
        };
        run.topic_docs(topic, &mut docs)?;
        let question = questions.get(index);
        let mut kept: Vec<RunDoc<'_>> = Vec::with_capacity(docs.len());
        for doc in &docs {
            match data.vocabulary.entities.get(doc.docno) {
                Some(entity) if data.filters.contains(&question.key, entity) => {}
                Some(_) => kept.push(*doc),
                None => {
                    unknown_docs += 1;
                    kept.push(*doc);
                }
            }
        }
        sort_run(&mut kept, TieBreak::DocnoDescending);
        let mut place_of: FxHashMap<&str, usize> = FxHashMap::default();
        for (place, doc) in kept.iter().enumerate() {
            place_of.insert(doc.docno, place + 1);
        }
        for &answer in &question.answers {
            if let Some(&place) = place_of.get(data.vocabulary.entities.resolve(answer)) {
                out.observations.push(AnswerObservation {
                    question: index,
                    answer,
                    observed: RankObservation::Rank(place as f64),
                    candidates: None,
                });
            }
        }
        let filtered = kept
            .iter()
            .enumerate()
            .map(|(place, doc)| OwnedRunDoc { docno: doc.docno.to_owned(), score: doc.score, rank: place as i64 + 1 })
            .collect();
        out.filtered.topics.push((question.id.clone(), filtered));
    }
    if !unknown_topics.is_empty() {
        out.warnings.push(Diagnostic::warning(
            "run-topic-without-question",
            format!(
                "{} run topics are no test question (first: {}); ignored",
                unknown_topics.len(),
                unknown_topics.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    if unknown_docs > 0 {
        out.warnings.push(Diagnostic::warning(
            "run-document-not-an-entity",
            format!("{unknown_docs} retrieved documents name no known entity; ranked as non-answers"),
        ));
    }
    Ok(out)
}
