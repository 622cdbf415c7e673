//! Rendering of QALD evaluations.

use std::fmt::Write as _;

use kgeval_model::qald::{QaldAggregate, QaldEvaluation, QuestionScore};
use serde_json::{json, Map, Value};

use crate::common::{csv_field, diagnostic_json, per_item_json, pretty};
use crate::{format_fixed, OutputFormat, RenderOptions, Table};

/// At most this many answers per side are shown for a failed question in text and Markdown.
const ANSWERS_SHOWN: usize = 5;

/// Renders the evaluation of one or more submissions against the same gold.
#[must_use]
pub fn render_qald(evaluations: &[QaldEvaluation], format: OutputFormat, options: &RenderOptions) -> String {
    match format {
        OutputFormat::Text => text(evaluations, options),
        OutputFormat::Markdown => markdown(evaluations, options),
        OutputFormat::Csv => csv(evaluations),
        OutputFormat::Json => pretty(&qald_json(evaluations, options)),
    }
}

/// The JSON contract: `{"kgeval_version", "systems": [{"system", "rule", "conventions",
/// "global", "local", "breakdowns": {KEY: [{"value", …aggregate}]}, "questions": [{"id",
/// "status", "out_of_scope", "precision", "recall", "f1", "tp", "fp", "fn"}], "failed": [{"id",
/// "question", "precision", "recall", "f1", "not_processed", "gold", "system"}], "warnings",
/// "per_item"?}]}`. An aggregate is `{"questions", "processed", "right", "partial",
/// "out_of_scope", "macro_precision", "macro_recall", "qald_f", "mean_f", "micro_precision",
/// "micro_recall", "micro_f1", "tp", "fp", "fn"}`.
#[must_use]
pub fn qald_json(evaluations: &[QaldEvaluation], options: &RenderOptions) -> Value {
    let systems: Vec<Value> = evaluations.iter().map(|e| evaluation_json(e, options)).collect();
    json!({"kgeval_version": options.version, "systems": systems})
}

fn evaluation_json(e: &QaldEvaluation, options: &RenderOptions) -> Value {
    let mut m = Map::new();
    m.insert("system".into(), json!(e.system));
    m.insert("rule".into(), json!(e.rule.name()));
    let conventions: Map<String, Value> =
        e.conventions.entries().into_iter().map(|(k, v)| (k.to_owned(), json!(v))).collect();
    m.insert("conventions".into(), Value::Object(conventions));
    m.insert("global".into(), aggregate_json(&e.global));
    m.insert("local".into(), aggregate_json(&e.local));
    let breakdowns: Map<String, Value> = e
        .breakdowns
        .iter()
        .map(|b| {
            let groups: Vec<Value> = b
                .groups
                .iter()
                .map(|(value, a)| {
                    let mut v = aggregate_json(a);
                    v["value"] = json!(value);
                    v
                })
                .collect();
            (b.key.clone(), Value::Array(groups))
        })
        .collect();
    m.insert("breakdowns".into(), Value::Object(breakdowns));
    m.insert("questions".into(), Value::Array(e.questions.iter().map(question_json).collect()));
    let failed: Vec<Value> = e
        .failed
        .iter()
        .map(|f| {
            json!({
                "id": f.id, "question": f.text, "precision": f.scores.precision, "recall": f.scores.recall,
                "f1": f.scores.f_measure, "not_processed": f.not_processed, "gold": f.gold, "system": f.system,
            })
        })
        .collect();
    m.insert("failed".into(), Value::Array(failed));
    m.insert("warnings".into(), Value::Array(e.warnings.iter().map(diagnostic_json).collect()));
    if options.per_item {
        m.insert("per_item".into(), per_item_json(&e.score_table));
    }
    Value::Object(m)
}

fn aggregate_json(a: &QaldAggregate) -> Value {
    json!({
        "questions": a.questions, "processed": a.processed, "right": a.right, "partial": a.partial,
        "out_of_scope": a.out_of_scope, "macro_precision": a.macro_precision, "macro_recall": a.macro_recall,
        "qald_f": a.qald_f, "mean_f": a.mean_f, "micro_precision": a.micro.precision,
        "micro_recall": a.micro.recall, "micro_f1": a.micro.f_measure,
        "tp": a.true_positives, "fp": a.false_positives, "fn": a.false_negatives,
    })
}

fn question_json(q: &QuestionScore) -> Value {
    json!({
        "id": q.id, "status": q.status.name(), "out_of_scope": q.out_of_scope,
        "precision": q.scores.precision, "recall": q.scores.recall, "f1": q.scores.f_measure,
        "tp": q.true_positives, "fp": q.false_positives, "fn": q.false_negatives,
    })
}

const AGGREGATE_HEADER: [&str; 12] = [
    "questions",
    "processed",
    "right",
    "partial",
    "oos",
    "macro P",
    "macro R",
    "QALD F",
    "mean F",
    "micro P",
    "micro R",
    "micro F",
];

fn aggregate_cells(a: &QaldAggregate, decimals: usize) -> Vec<String> {
    let mut cells = vec![
        a.questions.to_string(),
        a.processed.to_string(),
        a.right.to_string(),
        a.partial.to_string(),
        a.out_of_scope.to_string(),
    ];
    for v in
        [a.macro_precision, a.macro_recall, a.qald_f, a.mean_f, a.micro.precision, a.micro.recall, a.micro.f_measure]
    {
        cells.push(format_fixed(v, decimals));
    }
    cells
}

/// One row per (system, scope): global, local, then every breakdown group.
fn summary_table(evaluations: &[QaldEvaluation], decimals: usize) -> Table {
    let mut header = vec!["system", "scope"];
    header.extend(AGGREGATE_HEADER);
    let numeric: Vec<bool> = header.iter().enumerate().map(|(i, _)| i >= 2).collect();
    let mut table = Table::new(&header, &numeric);
    for e in evaluations {
        let mut row = |scope: String, a: &QaldAggregate| {
            let mut cells = vec![e.system.clone(), scope];
            cells.extend(aggregate_cells(a, decimals));
            table.row(cells);
        };
        row("global".into(), &e.global);
        row("local".into(), &e.local);
        for b in &e.breakdowns {
            for (value, a) in &b.groups {
                row(format!("{}={value}", b.key), a);
            }
        }
    }
    table
}

fn header_line(evaluations: &[QaldEvaluation]) -> String {
    let Some(first) = evaluations.first() else { return "kgeval qald: no system evaluated\n".to_owned() };
    let conventions: Vec<String> = first.conventions.entries().iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("kgeval qald: {}\n", conventions.join("; "))
}

fn shown(answers: &[String]) -> String {
    let mut out = answers.iter().take(ANSWERS_SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if answers.len() > ANSWERS_SHOWN {
        let _ = write!(out, ", … ({} more)", answers.len() - ANSWERS_SHOWN);
    }
    if answers.is_empty() {
        out.push('∅');
    }
    out
}

fn failed_text(e: &QaldEvaluation, decimals: usize) -> String {
    let mut out = format!("failed questions of {} ({}):\n", crate::text_field(&e.system), e.failed.len());
    for f in &e.failed {
        let state = if f.not_processed { " (not processed)" } else { "" };
        let _ = writeln!(
            out,
            "  {}{state}  P {} R {} F {}  {}",
            crate::text_field(&f.id),
            format_fixed(f.scores.precision, decimals),
            format_fixed(f.scores.recall, decimals),
            format_fixed(f.scores.f_measure, decimals),
            crate::text_field(&f.text)
        );
        let _ = writeln!(out, "    gold:   {}", crate::text_field(&shown(&f.gold)));
        if !f.not_processed {
            let _ = writeln!(out, "    system: {}", crate::text_field(&shown(&f.system)));
        }
    }
    out
}

fn text(evaluations: &[QaldEvaluation], options: &RenderOptions) -> String {
    let mut out = header_line(evaluations);
    out.push('\n');
    out.push_str(&summary_table(evaluations, options.precision).to_text());
    for e in evaluations {
        out.push('\n');
        out.push_str(&failed_text(e, options.precision));
    }
    out
}

fn markdown(evaluations: &[QaldEvaluation], options: &RenderOptions) -> String {
    let mut out = format!("{}\n\n", crate::markdown_comment(header_line(evaluations).trim_end()));
    out.push_str(&summary_table(evaluations, options.precision).to_markdown());
    for e in evaluations {
        let mut failed =
            Table::new(&["system", "id", "F", "question", "gold", "system answers"], &[false, false, true]);
        for f in &e.failed {
            let system = if f.not_processed { "(not processed)".to_owned() } else { shown(&f.system) };
            failed.row(vec![
                e.system.clone(),
                f.id.clone(),
                format_fixed(f.scores.f_measure, options.precision),
                f.text.clone(),
                shown(&f.gold),
                system,
            ]);
        }
        if !failed.is_empty() {
            out.push('\n');
            out.push_str(&failed.to_markdown());
        }
    }
    out
}

/// One row per (system, scope): `system,scope,questions,processed,right,partial,out_of_scope,
/// macro_precision,macro_recall,qald_f,mean_f,micro_precision,micro_recall,micro_f1,tp,fp,fn`,
/// full precision.
fn csv(evaluations: &[QaldEvaluation]) -> String {
    let mut out = String::from(
        "system,scope,questions,processed,right,partial,out_of_scope,macro_precision,macro_recall,qald_f,mean_f,micro_precision,micro_recall,micro_f1,tp,fp,fn\n",
    );
    for e in evaluations {
        let mut row = |scope: &str, a: &QaldAggregate| {
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                csv_field(&e.system),
                csv_field(scope),
                a.questions,
                a.processed,
                a.right,
                a.partial,
                a.out_of_scope,
                a.macro_precision,
                a.macro_recall,
                a.qald_f,
                a.mean_f,
                a.micro.precision,
                a.micro.recall,
                a.micro.f_measure,
                a.true_positives,
                a.false_positives,
                a.false_negatives
            );
        };
        row("global", &e.global);
        row("local", &e.local);
        for b in &e.breakdowns {
            for (value, a) in &b.groups {
                row(&format!("{}={value}", b.key), a);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kgeval_model::align::PrfScores;
    use kgeval_model::qald::{FailedQuestion, QaldConventions, QaldRule};

    fn evaluation() -> QaldEvaluation {
        let global = QaldAggregate {
            questions: 2,
            macro_precision: 0.5,
            macro_recall: 2.0 / 3.0,
            qald_f: 4.0 / 7.0,
            processed: 1,
            right: 1,
            ..QaldAggregate::default()
        };
        QaldEvaluation {
            system: "s".into(),
            rule: QaldRule::Qald6,
            conventions: QaldConventions { rule: QaldRule::Qald6, ..QaldConventions::default() },
            global,
            failed: vec![FailedQuestion {
                id: "2".into(),
                text: "Who?".into(),
                scores: PrfScores::default(),
                gold: (0..7).map(|i| format!("<http://x.org/{i}>")).collect(),
                system: vec![],
                not_processed: true,
            }],
            ..QaldEvaluation::default()
        }
    }

    #[test]
    fn json_keeps_full_precision_and_names_the_rule() {
        let v = qald_json(&[evaluation()], &RenderOptions::default());
        let s = &v["systems"][0];
        assert_eq!(s["rule"], "qald6");
        assert_eq!(s["global"]["qald_f"].as_f64(), Some(4.0 / 7.0));
        assert_eq!(s["failed"][0]["gold"].as_array().map(Vec::len), Some(7));
    }

    #[test]
    fn text_rounds_and_lists_failed_questions() {
        let text = render_qald(
            &[evaluation()],
            OutputFormat::Text,
            &RenderOptions { precision: 3, ..RenderOptions::default() },
        );
        assert!(
            text.starts_with("kgeval qald: rule: qald6; empty_answer: gold non-empty, system empty: P 1, R 0, F 0;"),
            "{text}"
        );
        assert!(
            text.contains("s       global          2          1      1        0    0    0.500    0.667   0.571"),
            "{text}"
        );
        assert!(text.contains("  2 (not processed)  P 0.000 R 0.000 F 0.000  Who?"), "{text}");
        assert!(text.contains("<http://x.org/4>, … (2 more)"), "{text}");
    }

    #[test]
    fn csv_rows() {
        let csv = render_qald(&[evaluation()], OutputFormat::Csv, &RenderOptions::default());
        assert_eq!(
            csv.lines().nth(1),
            Some("s,global,2,1,1,0,0,0.5,0.6666666666666666,0.5714285714285714,0,0,0,0,0,0,0")
        );
    }
}
