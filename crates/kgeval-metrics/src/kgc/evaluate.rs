//! The evaluation of one system from its per-answer observations.

use kgeval_model::kgc::conventions::{KgcConventions, KgcSources};
use kgeval_model::kgc::results::{CategoryBreakdown, KgcEvaluation, MacroScores, MicroScores, TieShare};
use kgeval_model::kgc::{RankObservation, RelationCategory, Side};
use kgeval_model::rank::results::RankSummary;
use kgeval_model::trec::DuplicateDoc;
use kgeval_model::{Diagnostic, TermId};
use rustc_hash::FxHashMap;

use super::adjusted::adjusted_metrics;
use super::categories::weighted_summary;
use super::data::{KgcData, KgcInput, KgcOptions};
use super::{answers, ir_list, table};
use crate::ranking::{macro_mean, summarize, summarize_by, RankRecord};

/// One (triple, side) pair of the micro average.
struct Pair {
    side: Side,
    relation: TermId,
    question: u32,
    answer: usize,
}

/// Evaluates one system: micro, adjusted, weighted, macro, IR, ties, categories, score table.
///
/// ```
/// use kgeval_metrics::kgc::{evaluate_kgc, KgcData, KgcInput, KgcOptions};
/// use kgeval_model::kgc::{AnswerObservation, FilterScope, KgcVocabulary, KnownAnswers, RankObservation, TestSet, Triple, TripleFile};
///
/// let mut vocabulary = KgcVocabulary::with_entities(["a", "b", "c", "d"]);
/// let r = vocabulary.relations.intern("r");
/// let e = |n: &str| vocabulary.entities.get(n).unwrap();
/// let triples = vec![Triple { head: e("a"), relation: r, tail: e("b") }];
/// let test = TestSet::new(TripleFile { name: "test.txt".into(), triples: triples.clone(), lines: vec![1] });
/// let mut known = KnownAnswers::new();
/// known.extend(&triples);
/// let filters = KnownAnswers::new();
/// let data = KgcData { vocabulary: &vocabulary, test: &test, filters: &filters, known: &known };
/// // Head question (?, r, b): answer a at rank 2; tail question (a, r, ?): answer b, tied.
/// let observations = [
///     AnswerObservation { question: 0, answer: e("a"), observed: RankObservation::Rank(2.0), candidates: None },
///     AnswerObservation { question: 1, answer: e("b"), observed: RankObservation::Counts { greater: 0, equal: 2 }, candidates: None },
/// ];
/// let input = KgcInput { observations: &observations, scope: FilterScope::Known, ir_run: None, ir_qrels: None };
/// let evaluation = evaluate_kgc(&data, &input, &KgcOptions::default(), "demo")?;
/// // Realistic rank of the tie: 1.5. MRR = (1/2 + 1/1.5) / 2.
/// assert_eq!(evaluation.micro[0].summary.mrr, (0.5 + 1.0 / 1.5) / 2.0);
/// assert_eq!(evaluation.ties.tied_answers, Some(1));
/// # Ok::<(), kgeval_model::trec::DuplicateDoc>(())
/// ```
///
/// # Errors
/// A document the system's run (`input.ir_run`) retrieves twice for one question.
pub fn evaluate_kgc(
    data: &KgcData<'_>,
    input: &KgcInput<'_>,
    options: &KgcOptions,
    system: &str,
) -> Result<KgcEvaluation, DuplicateDoc> {
    let questions = data.test.questions.questions();
    let ks = options.ks.as_slice();
    let mut warnings = Vec::new();
    let (mut slots, stray) = answers::gather(questions, input.observations);
    if !stray.is_empty() {
        warnings.push(Diagnostic::warning(
            "observation-without-answer",
            format!("{} observations name no test answer of their question; ignored", stray.len()),
        ));
    }
    for (question, slots) in questions.iter().zip(&mut slots) {
        answers::to_known_scope(question, slots, input.scope, data.filters);
    }
    let entity_count = data.vocabulary.entity_count() as u64;
    let records: Vec<Vec<RankRecord>> =
        slots.iter().map(|s| s.iter().map(|slot| slot.record(options.ties)).collect()).collect();
    let candidates: Vec<Vec<u64>> = questions
        .iter()
        .zip(&slots)
        .map(|(q, s)| {
            let known = data.known.answers(&q.key).len() as u64;
            s.iter().map(|slot| slot.candidates.unwrap_or_else(|| entity_count.saturating_sub(known) + 1)).collect()
        })
        .collect();
    let category_of: FxHashMap<TermId, RelationCategory> =
        options.categories.iter().flat_map(|c| c.relations.iter().map(|r| (r.relation, r.category))).collect();

    // Micro: every test line, both sides (a repeated line counts twice).
    let mut pairs = Vec::with_capacity(data.test.answer_pairs());
    for side in Side::BOTH {
        for &triple in &data.test.file.triples {
            let (question, answer) = data.test.question_of(triple, side);
            let index = questions[question as usize].answers.iter().position(|&a| a == answer).unwrap_or(0);
            pairs.push(Pair { side, relation: triple.relation, question, answer: index });
        }
    }
    let record_of = |p: &Pair| &records[p.question as usize][p.answer];
    let micro = [None, Some(Side::Head), Some(Side::Tail)].map(|side| {
        let chosen: Vec<&Pair> = pairs.iter().filter(|p| side.is_none_or(|s| p.side == s)).collect();
        let summary = summarize(chosen.iter().map(|p| record_of(p)), ks);
        let counts: Vec<u64> = chosen.iter().map(|p| candidates[p.question as usize][p.answer]).collect();
        MicroScores { adjusted: adjusted_metrics(&summary, &counts), summary }
    });
    let weighted = options.weights.as_ref().map(|(weights, _)| {
        let per_relation = summarize_by(pairs.iter().map(|p| (p.relation, record_of(p))), ks);
        let (summary, missing) = weighted_summary(&per_relation, weights);
        if !missing.is_empty() {
            warnings.push(Diagnostic::warning(
                "weight-without-test-triple",
                format!("{} weighted relations have no test triple; left out of the weighted metrics", missing.len()),
            ));
        }
        summary
    });

    // Macro: the best answer of each aggregated question, and PyKEEN's answer mean.
    let best: Vec<RankRecord> = records.iter().map(|r| best_record(r)).collect();
    let best_summary = summarize(&best, ks);
    let per_question: Vec<RankSummary> = records.iter().map(|r| summarize(r, ks)).collect();
    let answer_mean = macro_mean(&per_question);
    let may_tie: Vec<bool> = slots.iter().map(|s| answers::answers_may_tie(s)).collect();
    let questions_with_tied_answers = may_tie.iter().filter(|&&t| t).count();
    let ir = ir_list::evaluate_ir(data, input, &options.ir_measures, &records)?;

    let has_counts = slots.iter().flatten().any(|s| matches!(s.observed, RankObservation::Counts { .. }));
    let ties = TieShare {
        answers: pairs.len(),
        tied_answers: has_counts.then(|| pairs.iter().filter(|p| record_of(p).tied).count()),
        questions: questions.len(),
        tied_questions: has_counts.then(|| records.iter().filter(|r| r.iter().any(|x| x.tied)).count()),
        questions_with_tied_answers,
    };
    if questions_with_tied_answers > 0 && input.ir_run.is_none() {
        let first: Vec<&str> =
            questions.iter().zip(&may_tie).filter(|(_, &t)| t).take(5).map(|(q, _)| q.id.as_str()).collect();
        warnings.push(Diagnostic::warning(
            "answers-tie",
            format!(
                "{questions_with_tied_answers} questions have answers tying with each other and other candidates \
                 (first: {}); their places in the IR list (MAP, nDCG) are not exact",
                first.join(", ")
            ),
        ));
    }

    // Categories × side.
    let mut categories = Vec::new();
    if options.categories.is_some() {
        let key = |relation: TermId, side: Side| (category_of.get(&relation).copied(), side);
        let micro_groups = summarize_by(pairs.iter().map(|p| (key(p.relation, p.side), record_of(p))), ks);
        let macro_groups: FxHashMap<(Option<RelationCategory>, Side), RankSummary> =
            summarize_by(questions.iter().zip(&best).map(|(q, b)| (key(q.key.relation, q.key.side), b)), ks)
                .into_iter()
                .collect();
        let mut order: Vec<Option<RelationCategory>> = RelationCategory::ALL.into_iter().map(Some).collect();
        order.push(None);
        for category in order {
            for side in Side::BOTH {
                if let Some((_, micro)) = micro_groups.iter().find(|(k, _)| *k == (category, side)) {
                    let best = macro_groups.get(&(category, side)).cloned().unwrap_or_default();
                    categories.push(CategoryBreakdown { category, side: Some(side), micro: micro.clone(), best });
                }
            }
        }
    }
    let category_counts = options
        .categories
        .as_ref()
        .map(|c| {
            RelationCategory::ALL
                .into_iter()
                .map(|cat| (cat, c.relations.iter().filter(|r| r.category == cat).count()))
                .collect()
        })
        .unwrap_or_default();

    let score_table = if options.per_item {
        table::fill(data, system, ks, &records, &best, &category_of, ir.as_ref(), &options.ir_measures)
    } else {
        kgeval_model::ScoreTable::new()
    };
    let conventions = KgcConventions {
        sources: KgcSources::default(),
        tie_policy: options.ties,
        entities: entity_count as usize,
        micro_pairs: pairs.len(),
        macro_questions: questions.len(),
        observed_scope: input.scope,
        ir_list_from_run: input.ir_run.is_some(),
        ir_qrels_from_judgments: input.ir_qrels.is_some(),
        relation_weights: options.weights.as_ref().map(|(_, source)| source.clone()),
        relation_categories: options.categories.as_ref().map(|c| c.rule.clone()),
    };
    Ok(KgcEvaluation {
        system: system.to_owned(),
        conventions,
        ks: ks.to_vec(),
        micro,
        weighted,
        macro_scores: MacroScores { best: best_summary, ir: ir.map(|ir| ir.summary).unwrap_or_default(), answer_mean },
        ties,
        category_counts,
        categories,
        warnings,
        score_table,
    })
}

/// The record of the best-ranked answer (tie flag included); absent when no answer is ranked.
pub(crate) fn best_record(records: &[RankRecord]) -> RankRecord {
    records
        .iter()
        .filter(|r| r.rank.is_some())
        .min_by(|a, b| a.rank.unwrap_or(f64::INFINITY).total_cmp(&b.rank.unwrap_or(f64::INFINITY)))
        .copied()
        .unwrap_or_else(RankRecord::absent)
}
