//! Rendering of data-sensitivity curves (seed 004 Fig. 7): mean ± sd of Kendall's tau between
//! subset and full orderings, per ratio (rows) and metric (columns).

use std::fmt::Write as _;

use kgeval_model::meta::sensitivity::{Sensitivity, SubsetSource};
use serde_json::{json, Value};

use crate::common::{csv_field, pretty};
use crate::{format_fixed, OutputFormat, RenderOptions, Table};

/// Renders a sensitivity curve: text and Markdown print one row per ratio with `mean ± sd` per
/// metric under a header naming the design (subsets, seed, tau variant); CSV is long
/// (`ratio,size,subsets,metric,mean_tau,sd_tau,undefined`); JSON holds every number.
#[must_use]
pub fn render_sensitivity(result: &Sensitivity, format: OutputFormat, options: &RenderOptions) -> String {
    match format {
        OutputFormat::Text => {
            let mut out = header(result);
            out.push('\n');
            out.push_str(&table(result, options.precision).to_text());
            out
        }
        OutputFormat::Markdown => {
            let mut out = format!("{}\n\n", crate::markdown_comment(header(result).trim_end()));
            out.push_str(&table(result, options.precision).to_markdown());
            out
        }
        OutputFormat::Csv => {
            let mut out = String::from("ratio,size,subsets,metric,mean_tau,sd_tau,undefined\n");
            for point in &result.points {
                for (m, metric) in result.metrics.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "{},{},{},{},{},{},{}",
                        point.ratio,
                        point.size,
                        point.subsets,
                        csv_field(metric),
                        point.mean_tau[m],
                        point.sd_tau[m],
                        point.undefined[m]
                    );
                }
            }
            out
        }
        OutputFormat::Json => pretty(&sensitivity_json(result, options)),
    }
}

/// The JSON value of a sensitivity curve (`kgeval_version`, design, systems, metrics, points).
#[must_use]
pub fn sensitivity_json(result: &Sensitivity, options: &RenderOptions) -> Value {
    let points: Vec<Value> = result
        .points
        .iter()
        .map(|point| {
            let metrics: serde_json::Map<String, Value> = result
                .metrics
                .iter()
                .enumerate()
                .map(|(m, metric)| {
                    let value = json!({
                        "mean_tau": finite(point.mean_tau[m]),
                        "sd_tau": finite(point.sd_tau[m]),
                        "undefined": point.undefined[m],
                    });
                    (metric.clone(), value)
                })
                .collect();
            json!({"ratio": point.ratio, "size": point.size, "subsets": point.subsets, "metrics": metrics})
        })
        .collect();
    json!({
        "kgeval_version": options.version,
        "analysis": "sensitivity",
        "variant": result.variant,
        "unit": result.unit,
        "items": result.items,
        "design": design_json(&result.source),
        "systems": result.systems,
        "metrics": result.metrics,
        "points": points,
    })
}

fn finite(value: f64) -> Value {
    if value.is_finite() {
        json!(value)
    } else {
        Value::Null
    }
}

fn design_json(source: &SubsetSource) -> Value {
    match source {
        SubsetSource::Random { ratios, repeats, seed } => {
            json!({"subsets": "random", "generator": "ChaCha8", "ratios": ratios, "repeats": repeats, "seed": seed})
        }
        SubsetSource::Given(subsets) => json!({"subsets": "given", "count": subsets.len()}),
    }
}

fn header(result: &Sensitivity) -> String {
    let design = match &result.source {
        SubsetSource::Random { repeats, seed, .. } => {
            format!("{repeats} random subsets per ratio (ChaCha8, seed {seed})")
        }
        SubsetSource::Given(subsets) => format!("{} given subsets", subsets.len()),
    };
    format!(
        "kgeval compare: data sensitivity, Kendall {} between the ordering of {} systems on a subset of the {} {} and on all of them; {design}; mean ± sd\n",
        result.variant,
        result.systems.len(),
        result.items,
        result.unit
    )
}

fn table(result: &Sensitivity, decimals: usize) -> Table {
    let mut header = vec!["ratio", "size"];
    header.extend(result.metrics.iter().map(String::as_str));
    let numeric = vec![true; header.len()];
    let mut table = Table::new(&header, &numeric);
    for point in &result.points {
        let mut row = vec![format!("{:.2}", point.ratio), point.size.to_string()];
        for m in 0..result.metrics.len() {
            row.push(if point.mean_tau[m].is_finite() {
                format!("{} ± {}", format_fixed(point.mean_tau[m], decimals), format_fixed(point.sd_tau[m], decimals))
            } else {
                "–".to_owned()
            });
        }
        table.row(row);
    }
    table
}

#[cfg(test)]
mod tests {
    use kgeval_model::meta::sensitivity::SensitivityPoint;

    use super::*;

    #[test]
    fn every_format() {
        let result = Sensitivity {
            metrics: vec!["micro_mrr".into(), "macro_mrr".into()],
            systems: vec!["A".into(), "B".into(), "C".into()],
            items: 100,
            unit: "test triples".into(),
            variant: "tau-b".into(),
            source: SubsetSource::Random { ratios: vec![0.5], repeats: 2, seed: 42 },
            points: vec![SensitivityPoint {
                ratio: 0.5,
                size: 50,
                subsets: 2,
                mean_tau: vec![1.0 / 3.0, f64::NAN],
                sd_tau: vec![0.5, f64::NAN],
                undefined: vec![0, 2],
            }],
        };
        let options = RenderOptions::default();
        let text = render_sensitivity(&result, OutputFormat::Text, &options);
        assert!(text.contains("0.3333 ± 0.5000"), "{text}");
        assert!(text.contains("–"), "{text}");
        assert!(text.contains("seed 42"), "{text}");
        let csv = render_sensitivity(&result, OutputFormat::Csv, &options);
        assert_eq!(csv.lines().nth(1), Some("0.5,50,2,micro_mrr,0.3333333333333333,0.5,0"));
        let json: Value = serde_json::from_str(&render_sensitivity(&result, OutputFormat::Json, &options)).unwrap();
        assert_eq!(json["points"][0]["metrics"]["macro_mrr"]["mean_tau"], Value::Null);
        assert_eq!(json["design"]["repeats"], 2);
        let markdown = render_sensitivity(&result, OutputFormat::Markdown, &options);
        assert!(markdown.contains("| ratio |"), "{markdown}");
    }
}
