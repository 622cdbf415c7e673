//! The published QALD-3 Task 2 measures: lexical P/R/F on (lemma, POS, reference) entries and
//! the lexical accuracy formula over frames, syntactic arguments and their mapping.

use std::collections::HashMap;

use kgeval_model::align::PrfScores;
use kgeval_model::lexicon::{
    EntryAccuracy, Frame, LexicalEntry, Lexicon, Sense, UriEvaluation, UriKind, OBJECT_ROLES, SUBJECT_ROLES,
};
use kgeval_model::Diagnostic;

use super::{entry_label, prf};

/// The argument class the mapping is judged on: subject, object, or (for a role in neither
/// list, e.g. a misspelt one) the role itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ArgumentClass {
    /// subject, copulativeArg, copulativeSubject, attributiveArg.
    Subject,
    /// directObject, indirectObject, prepositionalObject, prepositionalAdjunct, possessiveAdjunct.
    Object,
    /// Any other role, compared by name.
    Role(String),
}

fn argument_class(role: &str) -> ArgumentClass {
    if SUBJECT_ROLES.contains(&role) {
        ArgumentClass::Subject
    } else if OBJECT_ROLES.contains(&role) {
        ArgumentClass::Object
    } else {
        ArgumentClass::Role(role.to_owned())
    }
}

/// Which side of the property an argument node is mapped to by the senses for one URI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Subject,
    Object,
    Unmapped,
}

fn side_of(node: &str, senses: &[&Sense]) -> Side {
    if senses.iter().any(|s| s.subject_nodes.iter().any(|n| n == node)) {
        Side::Subject
    } else if senses.iter().any(|s| s.object_nodes.iter().any(|n| n == node)) {
        Side::Object
    } else {
        Side::Unmapped
    }
}

/// The paper's entry key: lemma lower-cased with whitespace collapsed, and the POS.
pub(crate) fn paper_lemma(written: &str) -> String {
    written.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// One lexicalization of a URI: an entry and its senses that reference the URI.
pub(crate) struct Lexicalization<'a> {
    entry: &'a LexicalEntry,
    senses: Vec<&'a Sense>,
}

/// The entries of `lexicon` for `uri`, keyed by (lemma, POS), first entry per key.
pub(crate) fn lexicalizations<'a>(
    lexicon: &'a Lexicon,
    uri: &str,
) -> Vec<((String, Option<String>), Lexicalization<'a>)> {
    let mut out: Vec<((String, Option<String>), Lexicalization<'a>)> = Vec::new();
    for entry in &lexicon.entries {
        let Some(written) = &entry.written_rep else { continue };
        let senses: Vec<&Sense> = entry.senses.iter().filter(|s| s.references.iter().any(|r| r == uri)).collect();
        if senses.is_empty() {
            continue;
        }
        let key = (paper_lemma(written), entry.part_of_speech.clone());
        if !out.iter().any(|(k, _)| *k == key) {
            out.push((key, Lexicalization { entry, senses }));
        }
    }
    out
}

/// Scores one URI by the paper's formulas.
pub(crate) fn score_uri(
    gold: &Lexicon,
    system: &Lexicon,
    uri: &str,
    kind: UriKind,
    warnings: &mut Vec<Diagnostic>,
) -> UriEvaluation {
    let gold_entries = lexicalizations(gold, uri);
    let system_entries = lexicalizations(system, uri);
    let gold_index: HashMap<&(String, Option<String>), &Lexicalization<'_>> =
        gold_entries.iter().map(|(k, l)| (k, l)).collect();
    let mut evaluation = UriEvaluation {
        uri: uri.to_owned(),
        kind: Some(kind),
        gold: gold_entries.iter().map(|(k, _)| entry_label(k)).collect(),
        ..UriEvaluation::default()
    };
    for (key, submitted) in &system_entries {
        match gold_index.get(key) {
            Some(gold_lexicalization) => {
                evaluation.matched.push(entry_label(key));
                if markers(submitted.entry) != markers(gold_lexicalization.entry) {
                    warnings.push(Diagnostic::warning(
                        "marker-differs",
                        format!(
                            "{uri}: {} has markers {:?}, gold {:?} (the accuracy formula does not look at markers)",
                            entry_label(key),
                            markers(submitted.entry),
                            markers(gold_lexicalization.entry)
                        ),
                    ));
                }
                let mut accuracy = entry_accuracy(submitted, gold_lexicalization, kind);
                accuracy.entry = entry_label(key);
                evaluation.entries.push(accuracy);
            }
            None => evaluation.extra.push(entry_label(key)),
        }
    }
    evaluation.missing = gold_entries
        .iter()
        .filter(|(k, _)| !system_entries.iter().any(|(s, _)| s == k))
        .map(|(k, _)| entry_label(k))
        .collect();
    let matched = evaluation.matched.len();
    let (n_system, n_gold) = (system_entries.len(), gold_entries.len());
    if n_system == 0 && n_gold == 0 {
        evaluation.scores = PrfScores { precision: 1.0, recall: 1.0, f_measure: 1.0 };
        evaluation.accuracy = 1.0;
        evaluation.accuracy_raw = if kind == UriKind::Class { 1.0 } else { 3.0 };
        return evaluation;
    }
    evaluation.scores = prf(matched, n_system, n_gold);
    if !evaluation.entries.is_empty() {
        let n = evaluation.entries.len() as f64;
        evaluation.accuracy = evaluation.entries.iter().map(|e| e.accuracy).sum::<f64>() / n;
        evaluation.accuracy_raw = evaluation.entries.iter().map(|e| e.raw).sum::<f64>() / n;
    }
    evaluation
}

/// A frame or, for an entry without frames, the empty frame (no class, no argument).
fn frames_or_empty(entry: &LexicalEntry) -> Vec<Frame> {
    if entry.frames.is_empty() {
        vec![Frame::default()]
    } else {
        entry.frames.clone()
    }
}

/// The accuracy of a submitted lexicalization against its gold one: for each submitted frame
/// the best-scoring gold frame, averaged over the submitted frames.
fn entry_accuracy(submitted: &Lexicalization<'_>, gold: &Lexicalization<'_>, kind: UriKind) -> EntryAccuracy {
    let submitted_frames = frames_or_empty(submitted.entry);
    let gold_frames = frames_or_empty(gold.entry);
    let mut total = EntryAccuracy::default();
    for frame in &submitted_frames {
        let best = gold_frames
            .iter()
            .map(|g| frame_accuracy(frame, &submitted.senses, g, &gold.senses, kind))
            .max_by(|a, b| a.raw.total_cmp(&b.raw))
            .unwrap_or_default();
        total.frame += best.frame;
        total.raw += best.raw;
        total.accuracy += best.accuracy;
        if kind == UriKind::Property {
            *total.arguments.get_or_insert(0.0) += best.arguments.unwrap_or(0.0);
            *total.mapping.get_or_insert(0.0) += best.mapping.unwrap_or(0.0);
        }
    }
    let n = submitted_frames.len() as f64;
    EntryAccuracy {
        entry: String::new(),
        frame: total.frame / n,
        arguments: total.arguments.map(|v| v / n),
        mapping: total.mapping.map(|v| v / n),
        raw: total.raw / n,
        accuracy: total.accuracy / n,
    }
}

/// A = frameEq + |args ∩ gold args| / |gold args| + Σ map(a) / |args|, for one frame pair.
/// Classes: frameEq only. 0/0 in a ratio is 1 when both sides have no argument.
pub(crate) fn frame_accuracy(
    submitted: &Frame,
    submitted_senses: &[&Sense],
    gold: &Frame,
    gold_senses: &[&Sense],
    kind: UriKind,
) -> EntryAccuracy {
    let frame = f64::from(u8::from(submitted.frame_type == gold.frame_type));
    if kind == UriKind::Class {
        return EntryAccuracy::class(frame);
    }
    let (n_submitted, n_gold) = (submitted.arguments.len(), gold.arguments.len());
    // Role multiset intersection.
    let mut gold_roles: HashMap<&str, usize> = HashMap::new();
    for argument in &gold.arguments {
        *gold_roles.entry(argument.role.as_str()).or_default() += 1;
    }
    let mut shared = 0usize;
    for argument in &submitted.arguments {
        if let Some(count) = gold_roles.get_mut(argument.role.as_str()).filter(|c| **c > 0) {
            *count -= 1;
            shared += 1;
        }
    }
    let arguments = ratio(shared, n_gold, n_submitted == 0);
    // The sides gold maps each argument class to.
    let mut gold_sides: HashMap<ArgumentClass, Vec<Side>> = HashMap::new();
    for argument in &gold.arguments {
        gold_sides.entry(argument_class(&argument.role)).or_default().push(side_of(&argument.node, gold_senses));
    }
    let mapped = submitted
        .arguments
        .iter()
        .filter(|a| {
            let side = side_of(&a.node, submitted_senses);
            gold_sides.get(&argument_class(&a.role)).is_some_and(|sides| sides.contains(&side))
        })
        .count();
    let mapping = ratio(mapped, n_submitted, n_gold == 0);
    EntryAccuracy::property(frame, arguments, mapping)
}

/// `numerator / denominator`; a zero denominator gives 1 when `other_side_empty`, else 0.
fn ratio(numerator: usize, denominator: usize, other_side_empty: bool) -> f64 {
    if denominator == 0 {
        f64::from(u8::from(other_side_empty))
    } else {
        numerator as f64 / denominator as f64
    }
}

/// The sorted `role marker` pairs of an entry's frames (arguments without marker left out).
fn markers(entry: &LexicalEntry) -> Vec<String> {
    let mut out: Vec<String> = entry
        .frames
        .iter()
        .flat_map(|f| &f.arguments)
        .filter_map(|a| a.marker.as_ref().map(|m| format!("{} {m}", a.role)))
        .collect();
    out.sort_unstable();
    out
}
