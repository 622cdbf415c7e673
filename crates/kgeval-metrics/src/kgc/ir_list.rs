//! The macro IR measures (trec_eval's, from [`crate::trec`]) over every aggregated question: on
//! the list the per-answer ranks imply, or on the system's own run.

use kgeval_model::trec::{DuplicateDoc, IrOptions, MeasureSet, Qrels, QuerySet, TopicScores};
use rustc_hash::FxHashMap;

use super::answers;
use super::data::{KgcData, KgcInput};
use crate::ranking::RankRecord;
use crate::trec::{evaluate_run, summarize_topics, topic_values, LevelCounts, RankedRelevance, NOT_POOLED};

/// The IR measures' summary and per-question values.
pub(crate) struct IrValues {
    /// `(measure name, mean)` in the measure set's order.
    pub(crate) summary: Vec<(String, f64)>,
    /// Per question (index into the question set): values in the measure set's order.
    pub(crate) topics: Vec<Option<Vec<f64>>>,
}

/// The IR measures over every question: on `input.ir_run` when given (relevant: the question's
/// test answers, or `input.ir_qrels`), else on the list the per-answer ranks imply.
pub(crate) fn evaluate_ir(
    data: &KgcData<'_>,
    input: &KgcInput<'_>,
    measures: &MeasureSet,
    records: &[Vec<RankRecord>],
) -> Result<Option<IrValues>, DuplicateDoc> {
    if measures.is_empty() {
        return Ok(None);
    }
    let questions = data.test.questions.questions();
    let names: Vec<String> = measures.measures().iter().map(|m| m.name.clone()).collect();
    let Some(run) = input.ir_run else {
        let depth = measures.depth_needed();
        let topics: Vec<TopicScores> = questions
            .iter()
            .zip(records)
            .map(|(q, records)| TopicScores {
                qid: q.id.clone(),
                missing_from_run: false,
                values: topic_values(&derived_topic(records, depth), measures),
                ranges: Vec::new(),
                std_errors: Vec::new(),
            })
            .collect();
        let summary = names.into_iter().zip(summarize_topics(&topics, measures)).collect();
        return Ok(Some(IrValues { summary, topics: topics.into_iter().map(|t| Some(t.values)).collect() }));
    };
    let answers_qrels;
    let qrels = match input.ir_qrels {
        Some(qrels) => qrels,
        None => {
            let mut qrels = Qrels::new();
            for q in questions {
                let topic = qrels.topic_mut(&q.id);
                for &a in &q.answers {
                    topic.insert(data.vocabulary.entities.resolve(a), 1);
                }
            }
            answers_qrels = qrels;
            &answers_qrels
        }
    };
    let options = IrOptions { query_set: QuerySet::Complete, ..IrOptions::default() };
    let evaluation = evaluate_run(qrels, run, measures, &options)?;
    let index: FxHashMap<&str, usize> = questions.iter().enumerate().map(|(i, q)| (q.id.as_str(), i)).collect();
    let mut topics = vec![None; questions.len()];
    for topic in evaluation.topics {
        if let Some(&i) = index.get(topic.qid.as_str()) {
            topics[i] = Some(topic.values);
        }
    }
    Ok(Some(IrValues { summary: names.into_iter().zip(evaluation.summary).collect(), topics }))
}

/// The ranked list the per-answer ranks imply ([`answers::list_places`]): relevant at the
/// answers' places, stand-ins that are in no qrels elsewhere, up to the last answer within
/// `depth` (documents after the last relevant one change no cut-off measure); every answer is
/// relevant (R = the question's answers).
pub(crate) fn derived_topic(records: &[RankRecord], depth: Option<usize>) -> RankedRelevance {
    let places = answers::list_places(records);
    let end = places.iter().flatten().copied().filter(|&p| depth.is_none_or(|d| p <= d as u64)).max().unwrap_or(0);
    let mut ranked = vec![NOT_POOLED; end as usize];
    for place in places.into_iter().flatten().filter(|&p| p <= end) {
        ranked[place as usize - 1] = 1;
    }
    RankedRelevance {
        ranked,
        level_counts: LevelCounts::from_dense(&[0, records.len() as u64]),
        relevance_level: 1,
        ndcg_uses_level: false,
    }
}
