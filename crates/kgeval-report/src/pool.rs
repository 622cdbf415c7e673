//! Pooling outputs (`kgeval pool`): judgment templates, positives per depth, depth series.

use std::fmt::Write as _;

use kgeval_model::meta::agreement::AgreementRow;
use kgeval_model::meta::pool::{BuiltPool, DepthSeries, PoolSummary, TemplateKey, TemplateRow};
use serde_json::{json, Value};

use crate::common::{csv_field, pretty};
use crate::number::format_fixed;
use crate::{OutputFormat, RenderOptions, Table};

/// A built pool (`kgeval pool build`). Text is the **pool-depth template**, one line per
/// pooled item, tab-separated, no header:
///
/// - KGC (`kgc`): `head<TAB>relation<TAB>tail<TAB>depth` — kgc-sparsity's `pooling_depth.txt`,
///   every pooled triple (the trivial-triple filter's too), each once;
/// - TREC: `qid<TAB>0<TAB>docno<TAB><TAB>depth` — a qrels line whose relevance (4th field) is
///   empty for the assessor to fill, then the depth.
///
/// JSON: the depth, runs, counts and `items` (`question`, `item`, `depth`, `runs`,
/// `auto_negative`); CSV: the template rows with a header; Markdown: items per depth.
///
/// ```
/// use kgeval_model::meta::pool::{BuiltPool, TemplateKey, TemplateRow};
/// let row = TemplateRow { key: TemplateKey::Document { qid: "401".into(), docno: "d7".into() }, depth: 2, auto_negative: false };
/// let built = BuiltPool { rows: vec![row], ..Default::default() };
/// let text = kgeval_report::render_pool(&built, false, kgeval_report::OutputFormat::Text, &Default::default());
/// assert_eq!(text, "401\t0\td7\t\t2\n");
/// ```
#[must_use]
pub fn render_pool(built: &BuiltPool, kgc: bool, format: OutputFormat, options: &RenderOptions) -> String {
    match format {
        OutputFormat::Text => {
            let mut out = String::new();
            for row in &built.rows {
                match &row.key {
                    TemplateKey::Triple { head, relation, tail } => {
                        let _ = writeln!(out, "{head}\t{relation}\t{tail}\t{}", row.depth);
                    }
                    TemplateKey::Document { qid, docno } => {
                        let _ = writeln!(out, "{qid}\t0\t{docno}\t\t{}", row.depth);
                    }
                }
            }
            out
        }
        OutputFormat::Json => pretty(&pool_json(built, kgc, options)),
        OutputFormat::Csv => {
            let mut out =
                String::from(if kgc { "head,relation,tail,depth,auto_negative\n" } else { "qid,docno,depth\n" });
            for row in &built.rows {
                let _ = writeln!(out, "{}", template_csv(row).join(","));
            }
            out
        }
        OutputFormat::Markdown => {
            let counts = &built.pool.counts;
            let mut t = Table::new(&["depth", "to judge"], &[true, true]);
            for (d, n) in counts.per_depth.iter().enumerate() {
                t.row(vec![(d + 1).to_string(), n.to_string()]);
            }
            t.row(vec!["all".into(), built.pool.items.len().to_string()]);
            format!(
                "Pool of depth {} over {} run(s), {} question(s): {} judged removed, {} auto-negative.\n\n{}",
                built.pool.depth,
                built.pool.runs.len(),
                built.pool.questions.len(),
                counts.judged,
                counts.auto_negative,
                t.to_markdown()
            )
        }
    }
}

fn template_csv(row: &TemplateRow) -> Vec<String> {
    match &row.key {
        TemplateKey::Triple { head, relation, tail } => vec![
            csv_field(head),
            csv_field(relation),
            csv_field(tail),
            row.depth.to_string(),
            row.auto_negative.to_string(),
        ],
        TemplateKey::Document { qid, docno } => vec![csv_field(qid), csv_field(docno), row.depth.to_string()],
    }
}

fn pool_json(built: &BuiltPool, kgc: bool, options: &RenderOptions) -> Value {
    let pool = &built.pool;
    let items: Vec<Value> = pool
        .items
        .iter()
        .map(|i| (i, false))
        .chain(pool.auto_negative.iter().map(|i| (i, true)))
        .map(|(i, auto_negative)| {
            json!({"question": pool.questions[i.question as usize], "item": i.item, "depth": i.depth, "runs": i.runs, "auto_negative": auto_negative})
        })
        .collect();
    json!({
        "kgeval_version": options.version,
        "pool": if kgc { "kgc" } else { "trec" },
        "depth": pool.depth,
        "runs": pool.runs,
        "questions": pool.questions.len(),
        "counts": {
            "candidates": pool.counts.candidates,
            "judged_removed": pool.counts.judged,
            "known_removed": pool.counts.known,
            "auto_negative": pool.counts.auto_negative,
            "to_judge": pool.items.len(),
            "to_judge_per_depth": pool.counts.per_depth,
        },
        "items": items,
    })
}

/// The KGC annotation template of a built pool: `head<TAB>relation<TAB>tail<TAB>` with an
/// empty label for each triple to judge (fill in `Y` or `N`; a blank reads as `N` with a
/// warning), and `N` for the trivial-triple filter's; the layout `kgeval pool ingest`,
/// `kgeval kgc --judgments` and kgc-sparsity's `annotations.txt` read. TREC pools have no
/// separate annotation file (their template is already qrels-shaped).
#[must_use]
pub fn annotation_template(built: &BuiltPool) -> String {
    let mut out = String::new();
    for row in &built.rows {
        if let TemplateKey::Triple { head, relation, tail } = &row.key {
            let label = if row.auto_negative { "N" } else { "" };
            let _ = writeln!(out, "{head}\t{relation}\t{tail}\t{label}");
        }
    }
    out
}

/// Positives per pool depth (`kgeval pool ingest`). Text and Markdown: a table `depth`,
/// `judged`, `positives`, `cumulative` then the totals; CSV: those columns; JSON: every field.
#[must_use]
pub fn render_pool_summary(summary: &PoolSummary, format: OutputFormat, options: &RenderOptions) -> String {
    match format {
        OutputFormat::Json => pretty(&summary_json(summary, options)),
        OutputFormat::Csv => {
            let mut out = String::from("depth,judged,positives,cumulative\n");
            for d in &summary.depths {
                let _ = writeln!(out, "{},{},{},{}", d.depth, d.judged, d.positives, d.cumulative);
            }
            out
        }
        OutputFormat::Text | OutputFormat::Markdown => {
            let table = summary_table(summary);
            let totals = format!(
                "{} judged ({} positive); outside the pool (original labels): {} ({} positive); pooled: {}, unjudged: {}\n",
                summary.judged,
                summary.positives,
                summary.outside_pool,
                summary.outside_pool_positives,
                summary.pooled,
                summary.unjudged
            );
            if format == OutputFormat::Text {
                format!("{}{totals}", table.to_text())
            } else {
                format!("{}\n{totals}", table.to_markdown())
            }
        }
    }
}

fn summary_table(summary: &PoolSummary) -> Table {
    let mut t = Table::new(&["depth", "judged", "positives", "cumulative"], &[true, true, true, true]);
    for d in &summary.depths {
        t.row(vec![d.depth.to_string(), d.judged.to_string(), d.positives.to_string(), d.cumulative.to_string()]);
    }
    t
}

fn summary_json(summary: &PoolSummary, options: &RenderOptions) -> Value {
    json!({
        "kgeval_version": options.version,
        "judged": summary.judged,
        "positives": summary.positives,
        "outside_pool": summary.outside_pool,
        "outside_pool_positives": summary.outside_pool_positives,
        "pooled": summary.pooled,
        "unjudged": summary.unjudged,
        "depths": summary.depths.iter().map(|d| json!({"depth": d.depth, "judged": d.judged, "positives": d.positives, "cumulative": d.cumulative})).collect::<Vec<_>>(),
    })
}

/// A depth series (`kgeval pool series`). CSV is kgc-sparsity's `pooling_depth.csv` layout:
/// `System,Depth,` then every metric, one row per system and depth (system-major), full
/// precision. Text and Markdown: the positives per depth, the series table and the Kendall
/// table (tau-b of each depth against the reference, per metric). JSON: everything.
#[must_use]
pub fn render_depth_series(series: &DepthSeries, format: OutputFormat, options: &RenderOptions) -> String {
    match format {
        OutputFormat::Csv => {
            let mut out = String::from("System,Depth");
            for m in &series.metrics {
                out.push(',');
                out.push_str(&csv_field(m));
            }
            out.push('\n');
            for row in &series.rows {
                let _ = write!(out, "{},{}", csv_field(&row.system), row.depth);
                for v in &row.values {
                    let _ = write!(out, ",{}", if v.is_nan() { String::new() } else { v.to_string() });
                }
                out.push('\n');
            }
            out
        }
        OutputFormat::Json => {
            let rows: Vec<Value> = series
                .rows
                .iter()
                .map(|r| {
                    let values: serde_json::Map<String, Value> =
                        series.metrics.iter().zip(&r.values).map(|(m, v)| (m.clone(), json!(v))).collect();
                    json!({"system": r.system, "depth": r.depth, "metrics": values})
                })
                .collect();
            let agreement: Vec<Value> = series
                .agreement
                .iter()
                .flat_map(|a| &a.rows)
                .map(|r| {
                    json!({
                        "depth": depth_of(r).parse::<u32>().ok(),
                        "metric": r.metric,
                        "n_systems": r.n_systems,
                        "tau_b": r.tau_b,
                        "tau_a": r.tau_a,
                        "tau_c": r.tau_c,
                        "p_value": r.p_value,
                        "p_method": r.p_method.name(),
                        "tau_ap": r.tau_ap,
                        "rbo": r.rbo,
                    })
                })
                .collect();
            pretty(&json!({
                "kgeval_version": options.version,
                "systems": series.systems,
                "metrics": series.metrics,
                "positives": summary_json(&series.positives, options)["depths"],
                "rows": rows,
                "reference": series.agreement.as_ref().map(|a| a.left.clone()),
                "agreement": agreement,
            }))
        }
        OutputFormat::Text | OutputFormat::Markdown => {
            let p = options.precision;
            let mut header: Vec<&str> = vec!["system", "depth"];
            header.extend(series.metrics.iter().map(String::as_str));
            let numeric: Vec<bool> = header.iter().enumerate().map(|(i, _)| i > 0).collect();
            let mut t = Table::new(&header, &numeric);
            for row in &series.rows {
                let mut cells = vec![row.system.clone(), row.depth.to_string()];
                cells.extend(row.values.iter().map(|v| number(*v, p)));
                t.row(cells);
            }
            let rows: &[AgreementRow] = series.agreement.as_ref().map_or(&[], |a| a.rows.as_slice());
            let mut depths: Vec<String> = Vec::new();
            let mut metrics: Vec<&str> = Vec::new();
            for r in rows {
                if !depths.contains(&depth_of(r)) {
                    depths.push(depth_of(r));
                }
                if !metrics.contains(&r.metric.as_str()) {
                    metrics.push(&r.metric);
                }
            }
            let mut head: Vec<String> = vec!["metric".into()];
            head.extend(depths.iter().map(|d| format!("d={d}")));
            let head_refs: Vec<&str> = head.iter().map(String::as_str).collect();
            let numeric: Vec<bool> = head.iter().enumerate().map(|(i, _)| i > 0).collect();
            let mut k = Table::new(&head_refs, &numeric);
            for metric in metrics {
                let mut cells = vec![metric.to_owned()];
                for d in &depths {
                    let tau = rows.iter().find(|r| r.metric == metric && depth_of(r) == *d);
                    cells.push(tau.map_or(String::new(), |r| number(r.tau_b, p)));
                }
                k.row(cells);
            }
            let reference = series.agreement.as_ref().map_or("depth 0", |a| a.left.as_str());
            let positives = summary_table(&series.positives);
            let (kendall_text, kendall_markdown) = if series.agreement.is_some() {
                (k.to_text(), k.to_markdown())
            } else {
                (NO_KENDALL.to_owned(), NO_KENDALL.to_owned())
            };
            if format == OutputFormat::Text {
                format!(
                    "Positives added per pool depth\n{}\nSystems per depth\n{}\nKendall tau-b vs {reference}\n{kendall_text}",
                    positives.to_text(),
                    t.to_text(),
                )
            } else {
                format!(
                    "### Positives added per pool depth\n\n{}\n### Systems per depth\n\n{}\n### Kendall tau-b vs {}\n\n{kendall_markdown}",
                    positives.to_markdown(),
                    t.to_markdown(),
                    crate::escape_markdown(reference),
                )
            }
        }
    }
}

/// What text and Markdown say instead of a Kendall table there is none of.
const NO_KENDALL: &str = "none: it needs two systems or more and a metric every depth has\n";

/// `value` with `decimals` decimals, `-` for an undefined one (a tau over one ordering or a
/// constant column, a metric missing at some depth): never `NaN` in text or Markdown.
fn number(value: f64, decimals: usize) -> String {
    if value.is_nan() {
        "-".to_owned()
    } else {
        format_fixed(value, decimals)
    }
}

/// The depth of an agreement row (its `Depth` group value).
fn depth_of(row: &AgreementRow) -> String {
    row.group.get("Depth").unwrap_or_default().to_owned()
}
