//! QALD scoring: per-question P/R/F on normalised answer sets under a named rule preset,
//! global and local aggregates, breakdowns, the failed-question list and the per-item table.
//!
//! ```
//! use kgeval_metrics::qald::{evaluate_qald, QaldOptions};
//! use kgeval_model::qald::{Answer, AnswerValue, QaldDataset, QaldRule, Question};
//! let question = |id: &str, answers: Option<Vec<&str>>| Question {
//!     id: id.into(),
//!     answers: answers.map(|a| a.into_iter().map(|x| Answer::new(AnswerValue::plain(x))).collect()),
//!     ..Question::default()
//! };
//! let gold = QaldDataset { id: None, questions: vec![question("1", Some(vec!["a", "b"])), question("2", Some(vec!["c"]))] };
//! let system = QaldDataset { id: None, questions: vec![question("1", Some(vec!["a"])), question("2", Some(vec![]))] };
//! let qald3 = evaluate_qald(&gold, &system, "sys", &QaldOptions::default());
//! assert_eq!((qald3.global.macro_precision, qald3.global.macro_recall), (0.5, 0.25));
//! let qald6 = evaluate_qald(&gold, &system, "sys", &QaldOptions { rule: QaldRule::Qald6, ..QaldOptions::default() });
//! assert_eq!(qald6.global.macro_precision, 1.0);
//! ```

mod normalise;
mod score;

use std::collections::{BTreeSet, HashMap};

use kgeval_model::qald::{
    Answer, AnswerValue, FailedQuestion, LabelMap, QaldAggregate, QaldBreakdown, QaldConventions, QaldDataset,
    QaldEvaluation, QaldRule, QueryExecution, Question, QuestionScore, QuestionStatus,
};
use kgeval_model::{Diagnostic, ScoreTable};

pub use normalise::{canonical_decimal, decode_iri, AnswerKey, KeyKind, Normalisation};
pub use score::{aggregate, harmonic_mean, score_question};

/// The grouping keys of the breakdowns, in output order.
pub const BREAKDOWN_KEYS: [&str; 4] = ["answertype", "aggregation", "onlydbo", "language"];

/// How to score.
#[derive(Debug, Clone)]
pub struct QaldOptions<'a> {
    /// What a non-empty gold answered with the empty set scores.
    pub rule: QaldRule,
    /// Normalisation steps.
    pub normalisation: Normalisation,
    /// The language of the questions (breakdown key when the submission gives no string,
    /// question texts in the failed list).
    pub language: String,
    /// IRI → labels, so a label answer matches a URI gold.
    pub labels: Option<&'a LabelMap>,
}

impl Default for QaldOptions<'_> {
    fn default() -> Self {
        Self { rule: QaldRule::Qald3, normalisation: Normalisation::default(), language: "en".to_owned(), labels: None }
    }
}

/// The submitted questions whose id is not in the gold (the QALD-3 script crashed on them).
#[must_use]
pub fn unknown_questions<'a>(gold: &QaldDataset, system: &'a QaldDataset) -> Vec<&'a Question> {
    let ids: std::collections::HashSet<&str> = gold.questions.iter().map(|q| q.id.as_str()).collect();
    system.questions.iter().filter(|q| !ids.contains(q.id.as_str())).collect()
}

/// Scores one submission against the gold, over every gold question.
#[must_use]
pub fn evaluate_qald(
    gold: &QaldDataset,
    system: &QaldDataset,
    name: &str,
    options: &QaldOptions<'_>,
) -> QaldEvaluation {
    let submitted: HashMap<&str, &Question> = system.questions.iter().map(|q| (q.id.as_str(), q)).collect();
    let normalisation = &options.normalisation;
    let mut table = ScoreTable::new();
    let system_id = table.system(name);
    let metrics = [table.metric("precision"), table.metric("recall"), table.metric("f1")];
    let mut questions = Vec::with_capacity(gold.questions.len());
    let mut groups = Vec::with_capacity(gold.questions.len());
    let mut failed = Vec::new();
    let mut warnings = Vec::new();
    for gold_question in &gold.questions {
        let answered = submitted.get(gold_question.id.as_str()).copied();
        let gold_keys: BTreeSet<AnswerKey> =
            gold_question.answer_slice().iter().map(|a| normalisation.key(&a.value)).collect();
        let system_keys = answered.map(|q| system_keys(q.answer_slice(), gold_question, options));
        let score = score_question(&gold_question.id, &gold_keys, system_keys.as_ref(), options.rule);
        if let Some(q) = answered {
            if q.answers.is_none() && !matches!(q.query, kgeval_model::qald::QaldQuery::None) {
                let location = q.location.clone();
                warnings.push(
                    Diagnostic::warning(
                        "qald-query-not-executed",
                        format!("question {}: a query and no answers; scored as the empty set", q.id),
                    )
                    .at(location),
                );
            }
        }
        let keys = grouping_keys(gold_question, answered, &options.language);
        let key_refs: Vec<(&str, &str)> = keys.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let item = table.item(&gold_question.id, &key_refs);
        let values = [score.scores.precision, score.scores.recall, score.scores.f_measure];
        for (metric, value) in metrics.into_iter().zip(values) {
            table.set(system_id, item, metric, value);
        }
        if score.scores.f_measure < 1.0 {
            failed.push(failed_question(gold_question, answered, &score, &options.language));
        }
        groups.push(keys);
        questions.push(score);
    }
    let local_scores: Vec<QuestionScore> =
        questions.iter().filter(|q| q.status != QuestionStatus::NotProcessed).cloned().collect();
    QaldEvaluation {
        system: name.to_owned(),
        rule: options.rule,
        conventions: conventions(options),
        global: aggregate(&questions, options.rule),
        local: aggregate(&local_scores, options.rule),
        breakdowns: breakdowns(&questions, &groups, options.rule),
        questions,
        failed,
        score_table: table,
        warnings,
    }
}

/// The system's normalised answers; a literal equal to a label of a gold IRI (QALD-2 alias or
/// label map) counts as that IRI.
fn system_keys(answers: &[Answer], gold: &Question, options: &QaldOptions<'_>) -> BTreeSet<AnswerKey> {
    let normalisation = &options.normalisation;
    let mut by_label: HashMap<AnswerKey, AnswerKey> = HashMap::new();
    for answer in gold.answer_slice() {
        let key = normalisation.key(&answer.value);
        let mut labels: Vec<&str> = answer.aliases.iter().map(String::as_str).collect();
        if let (AnswerValue::Iri(iri), Some(map)) = (&answer.value, options.labels) {
            labels.extend(map.get(iri.trim()).into_iter().flatten().map(String::as_str));
        }
        for label in labels {
            by_label.entry(normalisation.label_key(label)).or_insert_with(|| key.clone());
        }
    }
    answers
        .iter()
        .map(|a| {
            let key = normalisation.key(&a.value);
            if key.kind != KeyKind::Literal {
                return key;
            }
            let bare = AnswerKey { tag: String::new(), ..key.clone() };
            by_label.get(&bare).cloned().unwrap_or(key)
        })
        .collect()
}

/// The breakdown group of a gold `answertype`: the value in lower case, with QALD-3's
/// abbreviation `num` (one question of the DBpedia test set) counted as `number`, as its
/// answers are read.
fn answertype_group(answertype: &str) -> String {
    match answertype.trim().to_ascii_lowercase().as_str() {
        "num" => "number".to_owned(),
        other => other.to_owned(),
    }
}

fn grouping_keys(gold: &Question, system: Option<&Question>, language: &str) -> Vec<(&'static str, String)> {
    let flag = |f: Option<bool>| f.map_or("unknown", |b| if b { "true" } else { "false" }).to_owned();
    let strings = system.map(|q| &q.strings[..]).unwrap_or_default();
    let language = if strings.iter().any(|s| s.language == language && !s.text.is_empty()) {
        language.to_owned()
    } else {
        strings.iter().find(|s| !s.text.is_empty()).map_or_else(|| language.to_owned(), |s| s.language.clone())
    };
    vec![
        ("answertype", gold.answertype.as_deref().map_or_else(|| "unknown".to_owned(), answertype_group)),
        ("aggregation", flag(gold.aggregation)),
        ("onlydbo", flag(gold.onlydbo)),
        ("language", language),
    ]
}

/// One aggregate per value of each grouping key; keys whose only value is `unknown` are left out.
fn breakdowns(
    questions: &[QuestionScore],
    groups: &[Vec<(&'static str, String)>],
    rule: QaldRule,
) -> Vec<QaldBreakdown> {
    BREAKDOWN_KEYS
        .iter()
        .enumerate()
        .filter_map(|(k, key)| {
            let mut values: Vec<(String, Vec<QuestionScore>)> = Vec::new();
            for (question, keys) in questions.iter().zip(groups) {
                let value = &keys[k].1;
                match values.iter_mut().find(|(v, _)| v == value) {
                    Some((_, list)) => list.push(question.clone()),
                    None => values.push((value.clone(), vec![question.clone()])),
                }
            }
            if values.iter().all(|(v, _)| v == "unknown") {
                return None;
            }
            let groups: Vec<(String, QaldAggregate)> =
                values.into_iter().map(|(value, list)| (value, aggregate(&list, rule))).collect();
            Some(QaldBreakdown { key: (*key).to_owned(), groups })
        })
        .collect()
}

fn failed_question(
    gold: &Question,
    system: Option<&Question>,
    score: &QuestionScore,
    language: &str,
) -> FailedQuestion {
    let show = |answers: &[Answer]| answers.iter().map(|a| a.value.to_string()).collect::<Vec<_>>();
    FailedQuestion {
        id: gold.id.clone(),
        text: gold.text(language).unwrap_or_default().to_owned(),
        scores: score.scores,
        gold: show(gold.answer_slice()),
        system: system.map(|q| show(q.answer_slice())).unwrap_or_default(),
        not_processed: system.is_none(),
    }
}

fn conventions(options: &QaldOptions<'_>) -> QaldConventions {
    QaldConventions {
        rule: options.rule,
        normalisation: options.normalisation.steps().to_vec(),
        language: options.language.clone(),
        label_map: options.labels.map(|m| m.len()),
        queries: QueryExecution::NotExecuted,
    }
}

#[cfg(test)]
mod tests {
    use super::answertype_group;

    #[test]
    fn num_and_number_are_one_group() {
        assert_eq!(answertype_group("num"), "number");
        assert_eq!(answertype_group("Number"), "number");
        assert_eq!(answertype_group(" resource "), "resource");
        assert_eq!(answertype_group("list"), "list");
    }
}
