//! Rendering of lexicon evaluations (QALD-3 Task 2).

use std::fmt::Write as _;

use kgeval_model::lexicon::LexiconEvaluation;
use serde_json::{json, Map, Value};

use crate::common::{csv_field, diagnostic_json, per_item_json, pretty};
use crate::{format_fixed, OutputFormat, RenderOptions, Table};

/// Renders the lexicon evaluations of one or more systems: per system a per-URI table
/// (entries in gold, matched, missing, extra; P, R, F; the accuracy components, A ÷ 3 and the
/// raw sum) and the average and micro rows. Text and Markdown print one block per system
/// (separated by a blank line), CSV one row set per system under one header, JSON a `systems`
/// array.
#[must_use]
pub fn render_lexicon(evaluations: &[LexiconEvaluation], format: OutputFormat, options: &RenderOptions) -> String {
    match format {
        OutputFormat::Text => blocks(evaluations, |evaluation| {
            let mut out = header_line(evaluation);
            let _ = writeln!(out, "system: {}\n", crate::text_field(&evaluation.system));
            out.push_str(&table(evaluation, options.precision).to_text());
            out
        }),
        OutputFormat::Markdown => blocks(evaluations, |evaluation| {
            let mut out = format!("{}\n\n", crate::markdown_comment(header_line(evaluation).trim_end()));
            if evaluations.len() > 1 {
                let _ = writeln!(out, "**{}**\n", crate::escape_markdown(&evaluation.system));
            }
            out.push_str(&table(evaluation, options.precision).to_markdown());
            out
        }),
        OutputFormat::Csv => {
            let mut out = String::from(CSV_HEADER);
            for evaluation in evaluations {
                csv_rows(evaluation, &mut out);
            }
            out
        }
        OutputFormat::Json => pretty(&lexicon_json(evaluations, options)),
    }
}

/// One block per evaluation, separated by a blank line.
fn blocks(evaluations: &[LexiconEvaluation], block: impl Fn(&LexiconEvaluation) -> String) -> String {
    evaluations.iter().map(block).collect::<Vec<_>>().join("\n")
}

fn header_line(evaluation: &LexiconEvaluation) -> String {
    let conventions: Vec<String> = evaluation
        .conventions
        .entries()
        .into_iter()
        .filter(|(k, _)| *k != "mode")
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    format!("kgeval lexicon: mode {}; {}\n", evaluation.mode, conventions.join("; "))
}

fn table(evaluation: &LexiconEvaluation, decimals: usize) -> Table {
    let header =
        ["uri", "kind", "gold", "matched", "missing", "extra", "P", "R", "F", "frame", "args", "map", "A", "A_raw"];
    let numeric = [false, false, true, true, true, true, true, true, true, true, true, true, true, true];
    let mut table = Table::new(&header, &numeric);
    let fixed = |v: f64| format_fixed(v, decimals);
    let optional = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format_fixed(v, decimals));
    for row in &evaluation.uris {
        table.row(vec![
            row.uri.clone(),
            row.kind.map_or("unlisted", |k| k.name()).to_owned(),
            row.gold.len().to_string(),
            row.matched.len().to_string(),
            row.missing.len().to_string(),
            row.extra.len().to_string(),
            fixed(row.scores.precision),
            fixed(row.scores.recall),
            fixed(row.scores.f_measure),
            optional(row.mean_component(|e| Some(e.frame))),
            optional(row.mean_component(|e| e.arguments)),
            optional(row.mean_component(|e| e.mapping)),
            fixed(row.accuracy),
            fixed(row.accuracy_raw),
        ]);
    }
    let counts = &evaluation.micro_counts;
    table.row(vec![
        "AVERAGE".into(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        fixed(evaluation.average.precision),
        fixed(evaluation.average.recall),
        fixed(evaluation.average.f_measure),
        String::new(),
        String::new(),
        String::new(),
        fixed(evaluation.average_accuracy),
        fixed(evaluation.average_accuracy_raw),
    ]);
    table.row(vec![
        "MICRO".into(),
        String::new(),
        (counts.tp + counts.fn_).to_string(),
        counts.tp.to_string(),
        counts.fn_.to_string(),
        counts.fp.to_string(),
        fixed(evaluation.micro.precision),
        fixed(evaluation.micro.recall),
        fixed(evaluation.micro.f_measure),
    ]);
    table
}

/// The CSV header.
const CSV_HEADER: &str =
    "system,uri,kind,gold,matched,missing,extra,precision,recall,f1,frame,arguments,mapping,accuracy,accuracy_raw\n";

/// One row per URI, then `AVERAGE` and `MICRO`, full precision.
fn csv_rows(evaluation: &LexiconEvaluation, out: &mut String) {
    let opt = |v: Option<f64>| v.map_or_else(String::new, |v| v.to_string());
    let system = csv_field(&evaluation.system);
    for row in &evaluation.uris {
        let _ = writeln!(
            out,
            "{system},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&row.uri),
            row.kind.map_or("unlisted", |k| k.name()),
            row.gold.len(),
            row.matched.len(),
            row.missing.len(),
            row.extra.len(),
            row.scores.precision,
            row.scores.recall,
            row.scores.f_measure,
            opt(row.mean_component(|e| Some(e.frame))),
            opt(row.mean_component(|e| e.arguments)),
            opt(row.mean_component(|e| e.mapping)),
            row.accuracy,
            row.accuracy_raw,
        );
    }
    let a = &evaluation.average;
    let _ = writeln!(
        out,
        "{system},AVERAGE,,,,,,{},{},{},,,,{},{}",
        a.precision, a.recall, a.f_measure, evaluation.average_accuracy, evaluation.average_accuracy_raw
    );
    let (m, c) = (&evaluation.micro, &evaluation.micro_counts);
    let _ = writeln!(
        out,
        "{system},MICRO,,{},{},{},{},{},{},{},,,,,",
        c.tp + c.fn_,
        c.tp,
        c.fn_,
        c.fp,
        m.precision,
        m.recall,
        m.f_measure
    );
}

/// The JSON contract: `{"kgeval_version", "systems": [{"system", "mode", "conventions",
/// "uris": [{"uri", "kind", "gold", "matched", "missing", "extra", "precision", "recall", "f1",
/// "accuracy", "accuracy_raw", "entries": [{"entry", "frame", "arguments", "mapping", "raw",
/// "accuracy"}]}], "average": {"precision", "recall", "f1", "accuracy", "accuracy_raw"},
/// "micro": {"precision", "recall", "f1", "matched", "extra", "missing"}, "warnings",
/// "per_item"?}]}` (one object per system, as `kgeval qald` and `kgeval kgc`).
#[must_use]
pub fn lexicon_json(evaluations: &[LexiconEvaluation], options: &RenderOptions) -> Value {
    json!({
        "kgeval_version": options.version,
        "systems": evaluations.iter().map(|e| system_json(e, options)).collect::<Vec<_>>(),
    })
}

/// One system's object of [`lexicon_json`].
fn system_json(evaluation: &LexiconEvaluation, options: &RenderOptions) -> Value {
    let mut root = Map::new();
    root.insert("system".into(), json!(evaluation.system));
    root.insert("mode".into(), json!(evaluation.mode.name()));
    let conventions: Map<String, Value> =
        evaluation.conventions.entries().into_iter().map(|(k, v)| (k.to_owned(), json!(v))).collect();
    root.insert("conventions".into(), Value::Object(conventions));
    let uris: Vec<Value> = evaluation
        .uris
        .iter()
        .map(|row| {
            json!({
                "uri": row.uri,
                "kind": row.kind.map_or("unlisted", |k| k.name()),
                "gold": row.gold,
                "matched": row.matched,
                "missing": row.missing,
                "extra": row.extra,
                "precision": row.scores.precision,
                "recall": row.scores.recall,
                "f1": row.scores.f_measure,
                "accuracy": row.accuracy,
                "accuracy_raw": row.accuracy_raw,
                "entries": row.entries.iter().map(|e| json!({
                    "entry": e.entry, "frame": e.frame, "arguments": e.arguments,
                    "mapping": e.mapping, "raw": e.raw, "accuracy": e.accuracy,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    root.insert("uris".into(), Value::Array(uris));
    let a = &evaluation.average;
    root.insert(
        "average".into(),
        json!({"precision": a.precision, "recall": a.recall, "f1": a.f_measure,
               "accuracy": evaluation.average_accuracy, "accuracy_raw": evaluation.average_accuracy_raw}),
    );
    let (m, c) = (&evaluation.micro, &evaluation.micro_counts);
    root.insert(
        "micro".into(),
        json!({"precision": m.precision, "recall": m.recall, "f1": m.f_measure,
               "matched": c.tp, "extra": c.fp, "missing": c.fn_}),
    );
    root.insert("warnings".into(), Value::Array(evaluation.warnings.iter().map(diagnostic_json).collect()));
    if options.per_item {
        root.insert("per_item".into(), per_item_json(&evaluation.score_table));
    }
    Value::Object(root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kgeval_model::align::PrfScores;
    use kgeval_model::lexicon::{EntryAccuracy, LexiconMode, UriEvaluation, UriKind};

    fn evaluation() -> LexiconEvaluation {
        let row = UriEvaluation {
            uri: "http://dbpedia.org/ontology/crosses".into(),
            kind: Some(UriKind::Property),
            gold: vec!["cross (verb)".into(), "span (verb)".into()],
            matched: vec!["cross (verb)".into()],
            missing: vec!["span (verb)".into()],
            scores: PrfScores { precision: 1.0, recall: 0.5, f_measure: 2.0 / 3.0 },
            accuracy: 2.0 / 3.0,
            accuracy_raw: 2.0,
            entries: vec![EntryAccuracy {
                entry: "cross (verb)".into(),
                frame: 1.0,
                arguments: Some(1.0),
                mapping: Some(0.0),
                raw: 2.0,
                accuracy: 2.0 / 3.0,
            }],
            ..UriEvaluation::default()
        };
        LexiconEvaluation {
            system: "sys".into(),
            mode: LexiconMode::Paper,
            uris: vec![row],
            ..LexiconEvaluation::default()
        }
    }

    #[test]
    fn text_rounds_and_json_keeps_precision() {
        let text =
            render_lexicon(&[evaluation()], OutputFormat::Text, &RenderOptions { precision: 2, ..Default::default() });
        assert!(
            text.contains("http://dbpedia.org/ontology/crosses  property     2        1        1      0  1.00  0.50  0.67   1.00  1.00  0.00  0.67   2.00"),
            "{text}"
        );
        let json = lexicon_json(&[evaluation()], &RenderOptions::default());
        let system = &json["systems"][0];
        assert_eq!(system["uris"][0]["f1"].as_f64(), Some(2.0 / 3.0));
        assert_eq!(system["uris"][0]["entries"][0]["mapping"].as_f64(), Some(0.0));
        assert_eq!(system["mode"], "paper");
        let csv = render_lexicon(&[evaluation()], OutputFormat::Csv, &RenderOptions::default());
        assert_eq!(
            csv.lines().nth(1),
            Some("sys,http://dbpedia.org/ontology/crosses,property,2,1,1,0,1,0.5,0.6666666666666666,1,1,0,0.6666666666666666,2")
        );
        // Two systems: two text blocks, one CSV header, two JSON objects.
        let mut other = evaluation();
        other.system = "other".into();
        let both = [evaluation(), other];
        let text = render_lexicon(&both, OutputFormat::Text, &RenderOptions::default());
        assert_eq!(text.matches("kgeval lexicon: mode paper").count(), 2);
        assert!(text.contains("\n\nkgeval lexicon: mode paper") && text.contains("system: other"), "{text}");
        let csv = render_lexicon(&both, OutputFormat::Csv, &RenderOptions::default());
        assert_eq!(csv.matches("system,uri").count(), 1);
        assert_eq!(csv.lines().filter(|l| l.starts_with("other,")).count(), 3);
        assert_eq!(lexicon_json(&both, &RenderOptions::default())["systems"][1]["system"], "other");
    }
}
