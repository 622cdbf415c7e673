//! Per-question P/R/F on answer sets under a rule preset, and aggregates over questions.

use std::collections::BTreeSet;

use kgeval_model::align::PrfScores;
use kgeval_model::qald::{QaldAggregate, QaldRule, QuestionScore, QuestionStatus};

use super::normalise::AnswerKey;

/// P, R, F and counts of one question from its gold set and the system's set (`None`: the
/// question is missing from the submission).
///
/// | gold | system | P | R | F |
/// |---|---|---|---|---|
/// | ∅ | ∅ | 1 | 1 | 1 |
/// | ∅ | ≠ ∅ | 0 | 0 | 0 |
/// | ≠ ∅ | ∅ | `qald3`: 0, `qald6`/`gerbil`: 1 | 0 | 0 |
/// | ≠ ∅ | ≠ ∅ | \|S∩G\|/\|S\| | \|S∩G\|/\|G\| | 2PR/(P+R), 0 if P+R = 0 |
/// | any | missing | 0 | 0 | 0 |
///
/// ```
/// use std::collections::BTreeSet;
/// use kgeval_metrics::qald::{score_question, Normalisation};
/// use kgeval_model::qald::{AnswerValue, QaldRule};
/// let n = Normalisation::default();
/// let set = |xs: &[&str]| xs.iter().map(|x| n.key(&AnswerValue::plain(*x))).collect::<BTreeSet<_>>();
/// // GERBIL's counter example: one exact answer, one wrong; gold has two more.
/// let s = score_question("1", &set(&["a", "b", "c"]), Some(&set(&["a", "x"])), QaldRule::Gerbil);
/// assert_eq!((s.true_positives, s.false_positives, s.false_negatives), (1, 1, 2));
/// assert_eq!((s.scores.precision, s.scores.recall), (0.5, 1.0 / 3.0));
/// ```
#[must_use]
pub fn score_question(
    id: &str,
    gold: &BTreeSet<AnswerKey>,
    system: Option<&BTreeSet<AnswerKey>>,
    rule: QaldRule,
) -> QuestionScore {
    let out_of_scope = gold.is_empty();
    let prf = |precision: f64, recall: f64, f_measure: f64| PrfScores { precision, recall, f_measure };
    let Some(system) = system else {
        return QuestionScore {
            id: id.to_owned(),
            status: QuestionStatus::NotProcessed,
            out_of_scope,
            scores: prf(0.0, 0.0, 0.0),
            true_positives: 0,
            false_positives: 0,
            false_negatives: gold.len() as u64,
        };
    };
    let tp = system.intersection(gold).count() as u64;
    let fp = system.len() as u64 - tp;
    let fn_ = gold.len() as u64 - tp;
    let scores = match (gold.is_empty(), system.is_empty()) {
        (true, true) => prf(1.0, 1.0, 1.0),
        (true, false) => prf(0.0, 0.0, 0.0),
        (false, true) => prf(rule.empty_answer_precision(), 0.0, 0.0),
        (false, false) => {
            let precision = tp as f64 / system.len() as f64;
            let recall = tp as f64 / gold.len() as f64;
            prf(precision, recall, harmonic_mean(precision, recall))
        }
    };
    let status = if system.is_empty() { QuestionStatus::Empty } else { QuestionStatus::Answered };
    QuestionScore {
        id: id.to_owned(),
        status,
        out_of_scope,
        scores,
        true_positives: tp,
        false_positives: fp,
        false_negatives: fn_,
    }
}

/// 2ab/(a+b); 0 when a + b = 0.
#[must_use]
pub fn harmonic_mean(a: f64, b: f64) -> f64 {
    if a + b > 0.0 {
        2.0 * a * b / (a + b)
    } else {
        0.0
    }
}

/// Aggregates over `questions` (all gold questions: "global"; the processed ones: "local").
///
/// Macro P and R are means of the per-question values, QALD F their harmonic mean, mean F the
/// mean of per-question F. Micro P/R/F apply the per-question rule to the summed counts
/// (no system answer and no gold answer: 1; no system answer but gold answers: the rule's
/// precision). No question at all: every score 0.
///
/// ```
/// use kgeval_metrics::qald::aggregate;
/// use kgeval_model::qald::{QaldRule, QuestionScore, QuestionStatus};
/// use kgeval_model::align::PrfScores;
/// let q = |p: f64, r: f64, f: f64| QuestionScore {
///     id: String::new(), status: QuestionStatus::Answered, out_of_scope: false,
///     scores: PrfScores { precision: p, recall: r, f_measure: f },
///     true_positives: 0, false_positives: 0, false_negatives: 0,
/// };
/// let a = aggregate(&[q(1.0, 1.0, 1.0), q(0.5, 0.25, 1.0 / 3.0)], QaldRule::Qald3);
/// assert_eq!((a.macro_precision, a.macro_recall), (0.75, 0.625));
/// assert!((a.qald_f - 2.0 * 0.75 * 0.625 / 1.375).abs() < 1e-15);
/// assert_eq!((a.right, a.partial), (1, 1));
/// ```
#[must_use]
pub fn aggregate(questions: &[QuestionScore], rule: QaldRule) -> QaldAggregate {
    let n = questions.len();
    let mut out = QaldAggregate { questions: n, ..QaldAggregate::default() };
    if n == 0 {
        return out;
    }
    for q in questions {
        out.macro_precision += q.scores.precision;
        out.macro_recall += q.scores.recall;
        out.mean_f += q.scores.f_measure;
        out.true_positives += q.true_positives;
        out.false_positives += q.false_positives;
        out.false_negatives += q.false_negatives;
        out.processed += usize::from(q.status != QuestionStatus::NotProcessed);
        out.right += usize::from(q.scores.f_measure >= 1.0);
        out.partial += usize::from(q.scores.f_measure > 0.0 && q.scores.f_measure < 1.0);
        out.out_of_scope += usize::from(q.out_of_scope);
    }
    out.macro_precision /= n as f64;
    out.macro_recall /= n as f64;
    out.mean_f /= n as f64;
    out.qald_f = harmonic_mean(out.macro_precision, out.macro_recall);
    let (tp, fp, fn_) = (out.true_positives as f64, out.false_positives as f64, out.false_negatives as f64);
    let precision = match (tp + fp > 0.0, fn_ > 0.0) {
        (true, _) => tp / (tp + fp),
        (false, false) => 1.0,
        (false, true) => rule.empty_answer_precision(),
    };
    let recall = match (tp + fn_ > 0.0, fp > 0.0) {
        (true, _) => tp / (tp + fn_),
        (false, false) => 1.0,
        (false, true) => 0.0,
    };
    let f_measure = if tp + fp + fn_ == 0.0 { 1.0 } else { harmonic_mean(precision, recall) };
    out.micro = PrfScores { precision, recall, f_measure };
    out
}
