//! `kgeval trec --tie-report`: text, Markdown and JSON of the runs' tie reports.

use std::fmt::Write as _;

use kgeval_model::trec::{RunTieReport, TieReport, TIE_MOVE_THRESHOLD};
use serde_json::{json, Value};

use crate::common::pretty;
use crate::{markdown_code, OutputFormat, Table};

/// Renders `report` in `format`; CSV is the per-topic intervals, one row per run, topic and
/// measure.
#[must_use]
pub fn render_tie_report(report: &TieReport, format: OutputFormat, tab_separated: bool) -> String {
    let reports = &report.runs;
    match format {
        OutputFormat::Json => pretty(&tie_report_json(report)),
        OutputFormat::Markdown => markdown(report),
        OutputFormat::Text => text(report),
        OutputFormat::Csv => {
            let separator = if tab_separated { '\t' } else { ',' };
            let mut out = ["run", "qid", "measure", "pessimistic", "optimistic"].join(&separator.to_string());
            out.push('\n');
            for report in reports {
                for topic in &report.topics {
                    for (measure, low, high) in &topic.intervals {
                        let _ = writeln!(
                            out,
                            "{}{separator}{}{separator}{measure}{separator}{low}{separator}{high}",
                            crate::common::csv_field(&report.run),
                            crate::common::csv_field(&topic.qid)
                        );
                    }
                }
            }
            out
        }
    }
}

/// The JSON contract: `{"runs": [{"run", "topics", "topics_with_ties", "tie_groups",
/// "tied_documents", "mixed_groups", "straddling": {CUTOFF: groups}, "measures": {NAME:
/// {"trec", "expected", "pessimistic", "optimistic", "moved"}}, "topic_intervals": {QID: {NAME:
/// [low, high]}}}], "orderings": {NAME: tau_b}}`; `moved` is true when trec and expected differ
/// by more than 0.001; `orderings` (two runs or more) is Kendall's tau-b between the runs'
/// orderings under trec and under expected (`null` when the runs tie on the measure).
#[must_use]
pub fn tie_report_json(report: &TieReport) -> Value {
    let orderings: serde_json::Map<String, Value> =
        report.orderings.iter().map(|(m, tau)| (m.clone(), json!(tau))).collect();
    let runs = Value::Array(
        report
            .runs
            .iter()
            .map(|r| {
                let c = &r.counts;
                let straddling: serde_json::Map<String, Value> =
                    c.straddling.iter().map(|(k, n)| (k.to_string(), json!(n))).collect();
                let measures: serde_json::Map<String, Value> = r
                    .measures
                    .iter()
                    .map(|m| {
                        let moved = (m.trec - m.expected).abs() > TIE_MOVE_THRESHOLD;
                        let value = json!({"trec": m.trec, "expected": m.expected, "pessimistic": m.range.0, "optimistic": m.range.1, "moved": moved});
                        (m.measure.clone(), value)
                    })
                    .collect();
                let topics: serde_json::Map<String, Value> = r
                    .topics
                    .iter()
                    .map(|t| {
                        let intervals: serde_json::Map<String, Value> =
                            t.intervals.iter().map(|(m, low, high)| (m.clone(), json!([low, high]))).collect();
                        (t.qid.clone(), Value::Object(intervals))
                    })
                    .collect();
                json!({
                    "run": r.run,
                    "topics": c.topics,
                    "topics_with_ties": c.topics_with_ties,
                    "tie_groups": c.groups,
                    "tied_documents": c.tied_documents,
                    "mixed_groups": c.mixed_groups,
                    "straddling": straddling,
                    "measures": measures,
                    "topic_intervals": topics,
                })
            })
            .collect(),
    );
    json!({"runs": runs, "orderings": orderings})
}

/// The orderings line: per measure, tau-b between the runs' orderings under the two policies.
fn orderings_line(report: &TieReport) -> Option<String> {
    (!report.orderings.is_empty()).then(|| {
        let taus: Vec<String> = report
            .orderings
            .iter()
            .map(
                |(m, tau)| if tau.is_nan() { format!("{m} undefined (the runs tie)") } else { format!("{m} {tau:.4}") },
            )
            .collect();
        format!("Kendall's tau-b between the runs' orderings under trec and expected: {}", taus.join(", "))
    })
}

/// The counts line of a run.
fn counts_line(r: &RunTieReport) -> String {
    let c = &r.counts;
    let mut line = format!(
        "{} of {} topics with ties; {} tie groups ({} documents), {} holding relevant and non-relevant documents",
        c.topics_with_ties, c.topics, c.groups, c.tied_documents, c.mixed_groups
    );
    if !c.straddling.is_empty() {
        let cut: Vec<String> = c.straddling.iter().map(|(k, n)| format!("{n} at {k}")).collect();
        let _ = write!(line, "; groups straddling a cutoff: {}", cut.join(", "));
    }
    line
}

fn text(report: &TieReport) -> String {
    let mut out = String::new();
    for r in &report.runs {
        let _ = writeln!(out, "# tie report: {}", crate::text_field(&r.run));
        let _ = writeln!(out, "{}", counts_line(r));
        let moved: Vec<_> = r.moved(TIE_MOVE_THRESHOLD).collect();
        if moved.is_empty() {
            let _ = writeln!(out, "no summary moves by more than {TIE_MOVE_THRESHOLD} between trec and expected");
        } else {
            let _ = writeln!(out, "summaries moving by more than {TIE_MOVE_THRESHOLD} between trec and expected:");
            for m in moved {
                let _ = writeln!(
                    out,
                    "  {:<22}\ttrec {:.4}\texpected {:.4}\t[{:.4}, {:.4}]",
                    m.measure, m.trec, m.expected, m.range.0, m.range.1
                );
            }
        }
        let _ = writeln!(out, "{} topic(s) with a [pessimistic, optimistic] interval:", r.topics.len());
        for t in &r.topics {
            let intervals: Vec<String> =
                t.intervals.iter().map(|(m, low, high)| format!("{m} [{low:.4}, {high:.4}]")).collect();
            let _ = writeln!(out, "  {}\t{}", crate::text_field(&t.qid), intervals.join("  "));
        }
    }
    if let Some(line) = orderings_line(report) {
        let _ = writeln!(out, "{line}");
    }
    out
}

fn markdown(report: &TieReport) -> String {
    let mut out = String::new();
    for r in &report.runs {
        let _ = writeln!(out, "### Ties: {}\n\n{}.\n", markdown_code(&r.run), counts_line(r));
        let mut table =
            Table::new(&["measure", "trec", "expected", "pessimistic", "optimistic"], &[false, true, true, true, true]);
        for m in &r.measures {
            table.row(vec![
                m.measure.clone(),
                format!("{:.4}", m.trec),
                format!("{:.4}", m.expected),
                format!("{:.4}", m.range.0),
                format!("{:.4}", m.range.1),
            ]);
        }
        out.push_str(&table.to_markdown());
        out.push('\n');
    }
    if let Some(line) = orderings_line(report) {
        let _ = writeln!(out, "{line}.");
    }
    out
}
