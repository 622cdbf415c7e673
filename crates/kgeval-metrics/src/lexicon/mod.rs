//! Ontology lexicalization scoring (QALD-3 Task 2): per-URI lexical precision, recall, F and
//! lexical accuracy of a submitted lemon lexicon against a gold lexicon, their averages over
//! the gold URI list, micro entry-level scores, and a mode reproducing the original script.
//!
//! Pure functions over [`kgeval_model::lexicon`] values; nothing here reads files.
//!
//! # Paper mode (the default)
//! - entries(u) = the set of (lemma, POS) of entries with a sense referencing u; lemma = the
//!   canonical written form lower-cased, whitespace collapsed. P, R, F per URI; when neither
//!   side has an entry for u, P = R = F = A = 1; otherwise an empty side gives 0.
//! - accuracy of a matched entry: frameEq + |args ∩ gold args| / |gold args| +
//!   Σ map(a) / |args|, divided by 3; classes: frameEq only. Arguments compare as role
//!   multisets; map(a) = 1 when the argument's node is mapped (subjOfProp / objOfProp of the
//!   senses for u) to the side gold maps arguments of the same class to (subject roles:
//!   [`SUBJECT_ROLES`], object roles: [`OBJECT_ROLES`], other roles by name). A ratio's 0/0 is 1
//!   when both frames have no argument. Several frames: each submitted frame takes its best
//!   gold frame, and the entry's values are their mean.
//! - A_lex(u) = mean over u's matched entries (0 when none).
//! - averages over every listed URI (unmentioned URIs count 0); micro = pooled counts.

mod paper;
mod script;

use kgeval_model::align::{ConfusionCounts, PrfScores};
use kgeval_model::lexicon::{Lexicon, LexiconConventions, LexiconEvaluation, LexiconMode, UriEvaluation, UriList};
use kgeval_model::{Diagnostic, ScoreTable};

pub use kgeval_model::lexicon::{OBJECT_ROLES, SCRIPT_DENOMINATOR, SUBJECT_ROLES};

/// Scores a submitted lexicon against the gold lexicon for every URI of `uris`.
///
/// ```
/// use kgeval_metrics::lexicon::evaluate_lexicon;
/// use kgeval_model::lexicon::{LexicalEntry, Lexicon, LexiconMode, ListedUri, Sense, UriKind, UriList};
/// let entry = |lemma: &str| LexicalEntry {
///     written_rep: Some(lemma.into()),
///     part_of_speech: Some("noun".into()),
///     senses: vec![Sense { references: vec!["http://x/Bridge".into()], ..Sense::default() }],
///     ..LexicalEntry::default()
/// };
/// let gold = Lexicon { entries: vec![entry("bridge"), entry("viaduct")] };
/// let system = Lexicon { entries: vec![entry("Bridge"), entry("span")] };
/// let uris = UriList { uris: vec![ListedUri { uri: "http://x/Bridge".into(), kind: UriKind::Class }] };
/// let result = evaluate_lexicon(&gold, &system, &uris, LexiconMode::Paper, "sys");
/// let bridge = &result.uris[0];
/// assert_eq!((bridge.scores.precision, bridge.scores.recall), (0.5, 0.5));
/// assert_eq!(bridge.accuracy, 1.0); // both without frame: frameEq = 1
/// assert_eq!(result.micro_counts.tp, 1);
/// ```
#[must_use]
pub fn evaluate_lexicon(
    gold: &Lexicon,
    system: &Lexicon,
    uris: &UriList,
    mode: LexiconMode,
    system_name: &str,
) -> LexiconEvaluation {
    let mut warnings = Vec::new();
    let mut rows: Vec<UriEvaluation> = uris
        .uris
        .iter()
        .map(|listed| match mode {
            LexiconMode::Paper => paper::score_uri(gold, system, &listed.uri, listed.kind, &mut warnings),
            LexiconMode::Qald3Script => script::score_uri(gold, system, &listed.uri, uris),
        })
        .collect();
    let listed = rows.len();
    let denominator = match mode {
        LexiconMode::Paper => listed.max(1) as f64,
        LexiconMode::Qald3Script => {
            // The script scores every URI the submission mentions, listed or not, and leaves
            // the listed URIs it does not mention at 0.
            let mentioned = script::mentioned_uris(system);
            for (row, listed_uri) in rows.iter_mut().zip(&uris.uris) {
                if !mentioned.contains(&listed_uri.uri) {
                    *row = UriEvaluation {
                        uri: row.uri.clone(),
                        kind: row.kind,
                        gold: row.gold.clone(),
                        ..Default::default()
                    };
                    row.missing = row.gold.clone();
                }
            }
            for uri in mentioned.iter().filter(|u| uris.kind_of(u).is_none()) {
                let row = script::score_uri(gold, system, uri, uris);
                if row.scores != PrfScores::default() || row.accuracy != 0.0 {
                    warnings.push(Diagnostic::warning(
                        "unlisted-uri-scored",
                        format!("{uri} is not in the URI list but the system lexicalizes it: qald3-script mode adds its scores to the sums"),
                    ));
                }
                rows.push(row);
            }
            SCRIPT_DENOMINATOR
        }
    };
    for row in rows.iter().take(listed).filter(|r| r.gold.is_empty()) {
        warnings.push(Diagnostic::warning(
            "uri-without-gold-entries",
            format!("{}: the gold lexicon has no scorable entry for this listed URI", row.uri),
        ));
    }
    let sum = |f: &dyn Fn(&UriEvaluation) -> f64| rows.iter().map(f).sum::<f64>() / denominator;
    let average = PrfScores {
        precision: sum(&|r| r.scores.precision),
        recall: sum(&|r| r.scores.recall),
        f_measure: sum(&|r| r.scores.f_measure),
    };
    let average_accuracy = sum(&|r| r.accuracy);
    let average_accuracy_raw = sum(&|r| r.accuracy_raw);
    let mut counts = ConfusionCounts::default();
    for row in rows.iter().take(listed) {
        counts.tp += row.matched.len() as u64;
        counts.fp += row.extra.len() as u64;
        counts.fn_ += row.missing.len() as u64;
    }
    counts.correspondences = counts.tp + counts.fp;
    let micro = prf(counts.tp as usize, (counts.tp + counts.fp) as usize, (counts.tp + counts.fn_) as usize);
    let score_table = score_table(&rows, system_name);
    LexiconEvaluation {
        system: system_name.to_owned(),
        mode,
        conventions: LexiconConventions { mode, listed_uris: listed },
        uris: rows,
        average,
        average_accuracy,
        average_accuracy_raw,
        micro,
        micro_counts: counts,
        warnings,
        score_table,
    }
}

/// `lemma (pos)`, the way entries are shown.
pub(crate) fn entry_label((lemma, pos): &(String, Option<String>)) -> String {
    format!("{lemma} ({})", pos.as_deref().unwrap_or("no POS"))
}

/// P, R and F from counts; 0 on a zero denominator.
pub(crate) fn prf(matched: usize, submitted: usize, gold: usize) -> PrfScores {
    let div = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let (precision, recall) = (div(matched, submitted), div(matched, gold));
    let f_measure = if precision + recall > 0.0 { 2.0 * precision * recall / (precision + recall) } else { 0.0 };
    PrfScores { precision, recall, f_measure }
}

fn score_table(rows: &[UriEvaluation], system_name: &str) -> ScoreTable {
    let mut table = ScoreTable::new();
    let system = table.system(system_name);
    for row in rows {
        let kind = row.kind.map_or("unlisted", |k| k.name());
        let item = table.item(&row.uri, &[("kind", kind)]);
        let mut values = vec![
            ("precision", Some(row.scores.precision)),
            ("recall", Some(row.scores.recall)),
            ("f1", Some(row.scores.f_measure)),
            ("accuracy", Some(row.accuracy)),
            ("accuracy_raw", Some(row.accuracy_raw)),
            ("frame", row.mean_component(|e| Some(e.frame))),
            ("arguments", row.mean_component(|e| e.arguments)),
            ("mapping", row.mean_component(|e| e.mapping)),
        ];
        values.extend([
            ("gold_entries", Some(row.gold.len() as f64)),
            ("matched", Some(row.matched.len() as f64)),
            ("missing", Some(row.missing.len() as f64)),
            ("extra", Some(row.extra.len() as f64)),
        ]);
        for (name, value) in values {
            if let Some(value) = value {
                let metric = table.metric(name);
                table.set(system, item, metric, value);
            }
        }
    }
    table
}
