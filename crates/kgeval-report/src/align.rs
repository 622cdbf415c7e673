//! Rendering of alignment evaluations.

use std::fmt::Write as _;

use kgeval_model::align::{Aggregate, AlignmentProfile, ConfusionCounts, PairEvaluation, PairScores, TrackEvaluation};
use kgeval_model::Interner;
use serde_json::{json, Map, Value};

use crate::common::{csv_field, diagnostic_json, per_item_json, pretty};
use crate::{format_fixed, format_java_double, OutputFormat, RenderOptions, Table};

/// Renders the evaluation of one or more systems (one [`TrackEvaluation`] each).
#[must_use]
pub fn render_alignment(tracks: &[TrackEvaluation], format: OutputFormat, options: &RenderOptions) -> String {
    match format {
        OutputFormat::Text => text(tracks, options),
        OutputFormat::Markdown => markdown(tracks, options),
        OutputFormat::Csv => csv(tracks),
        OutputFormat::Json => pretty(&alignment_json(tracks, options)),
    }
}

/// The JSON contract, for one system or several:
/// `{"kgeval_version", "profile", "mode", "systems": [{"system", "profile", "mode",
/// "conventions", "pairs": [{"name", "primary": {"precision", "recall", "f1", "tp", "fp",
/// "fn", "ignored", "correspondences"}, "secondary", "by_type", "best_threshold",
/// "threshold_curve", "warnings"}], "micro": {"primary", "secondary"}, "macro": {…}}]}`.
#[must_use]
pub fn alignment_json(tracks: &[TrackEvaluation], options: &RenderOptions) -> Value {
    let mut root = Map::new();
    root.insert("kgeval_version".into(), json!(options.version));
    if let Some(first) = tracks.first() {
        root.insert("profile".into(), json!(first.profile.name()));
        root.insert("mode".into(), json!(first.mode.name()));
    }
    root.insert("systems".into(), Value::Array(tracks.iter().map(|t| Value::Object(track_json(t, options))).collect()));
    Value::Object(root)
}

fn track_json(track: &TrackEvaluation, options: &RenderOptions) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("system".into(), json!(track.system));
    m.insert("profile".into(), json!(track.profile.name()));
    m.insert("mode".into(), json!(track.mode.name()));
    let conventions: Map<String, Value> =
        track.conventions.entries().into_iter().map(|(k, v)| (k.to_owned(), json!(v))).collect();
    m.insert("conventions".into(), Value::Object(conventions));
    let pairs: Vec<Value> = track.pairs.iter().map(|p| pair_json(p, track.profile)).collect();
    m.insert("pairs".into(), Value::Array(pairs));
    let secondary = track.secondary.as_ref();
    m.insert(
        "micro".into(),
        json!({"primary": scores_json(&track.primary.micro, track.profile), "secondary": secondary.map(|a| scores_json(&a.micro, track.profile))}),
    );
    m.insert(
        "macro".into(),
        json!({"primary": scores_json(&track.primary.macro_, track.profile), "secondary": secondary.map(|a| scores_json(&a.macro_, track.profile))}),
    );
    if options.per_item {
        m.insert("per_item".into(), per_item_json(&track.score_table));
    }
    m
}

fn pair_json(pair: &PairEvaluation, profile: AlignmentProfile) -> Value {
    let by_type = pair.by_type.as_ref().map(|t| {
        json!({
            "classes": scores_json(&t.classes, profile),
            "properties": scores_json(&t.properties, profile),
            "object_properties": scores_json(&t.object_properties, profile),
            "datatype_properties": scores_json(&t.datatype_properties, profile),
            "instances": scores_json(&t.instances, profile),
        })
    });
    let curve: Vec<Value> = pair
        .threshold_curve
        .iter()
        .map(|p| {
            let mut v = scores_json(&p.scores, profile);
            v["threshold"] = json!(p.threshold);
            v
        })
        .collect();
    json!({
        "name": pair.name,
        "primary": scores_json(&pair.primary, profile),
        "secondary": pair.secondary.as_ref().map(|s| scores_json(s, profile)),
        "by_type": by_type,
        "best_threshold": pair.best_threshold.as_ref().map(|p| {
            let mut v = scores_json(&p.scores, profile);
            v["threshold"] = json!(p.threshold);
            v
        }),
        "threshold_curve": curve,
        "warnings": pair.warnings.iter().map(diagnostic_json).collect::<Vec<_>>(),
    })
}

fn scores_json(s: &PairScores, profile: AlignmentProfile) -> Value {
    let c = &s.counts;
    let mut v = json!({
        "precision": s.scores.precision,
        "recall": s.scores.recall,
        "f1": s.scores.f_measure,
        "tp": c.tp,
        "fp": c.fp,
        "fn": c.fn_,
        "ignored": c.ignored,
        "correspondences": c.correspondences,
    });
    if profile == AlignmentProfile::OntoAligner {
        v["evaluation_report"] = json!({
            "intersection": c.tp,
            "precision": s.scores.precision * 100.0,
            "recall": s.scores.recall * 100.0,
            "f-score": s.scores.f_measure * 100.0,
            "predictions-len": c.tp + c.fp,
            "reference-len": c.tp + c.fn_,
        });
    }
    v
}

/// The rows shared by text and Markdown: one per (system, pair, reference[, type]), then
/// micro and macro.
fn summary_table(tracks: &[TrackEvaluation], decimals: usize) -> Table {
    let several = tracks.len() > 1;
    let mut header = vec!["pair", "reference", "P", "R", "F1", "TP", "FP", "FN", "ignored", "corr"];
    let mut numeric = vec![false, false, true, true, true, true, true, true, true, true];
    if several {
        header.insert(0, "system");
        numeric.insert(0, false);
    }
    let mut table = Table::new(&header, &numeric);
    let row = |system: &str, name: &str, reference: &str, s: &PairScores| {
        let c = &s.counts;
        let mut cells = vec![
            name.to_owned(),
            reference.to_owned(),
            format_fixed(s.scores.precision, decimals),
            format_fixed(s.scores.recall, decimals),
            format_fixed(s.scores.f_measure, decimals),
            c.tp.to_string(),
            c.fp.to_string(),
            c.fn_.to_string(),
            c.ignored.to_string(),
            c.correspondences.to_string(),
        ];
        if several {
            cells.insert(0, system.to_owned());
        }
        cells
    };
    for track in tracks {
        let sys = track.system.as_str();
        for pair in &track.pairs {
            table.row(row(sys, &pair.name, "primary", &pair.primary));
            if let Some(t) = &pair.by_type {
                for (kind, scores) in
                    [("classes", &t.classes), ("properties", &t.properties), ("instances", &t.instances)]
                {
                    if scores.counts != ConfusionCounts::default() {
                        table.row(row(sys, &format!("{} {kind}", pair.name), "primary", scores));
                    }
                }
            }
            if let Some(s) = &pair.secondary {
                table.row(row(sys, &pair.name, "secondary", s));
            }
        }
        if track.pairs.len() > 1 {
            let aggregates: [(&str, Option<&Aggregate>); 2] =
                [("primary", Some(&track.primary)), ("secondary", track.secondary.as_ref())];
            for (reference, aggregate) in aggregates {
                if let Some(a) = aggregate {
                    table.row(row(sys, "MICRO", reference, &a.micro));
                    table.row(row(sys, "MACRO", reference, &a.macro_));
                }
            }
        }
    }
    table
}

fn header_line(tracks: &[TrackEvaluation]) -> String {
    let Some(first) = tracks.first() else { return "kgeval align: no system evaluated\n".to_owned() };
    let conventions: Vec<String> = first
        .conventions
        .entries()
        .into_iter()
        .filter(|(k, _)| *k != "profile" && *k != "mode")
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    let mut line = format!("kgeval align: profile {}, mode {}", first.profile, first.mode);
    if !conventions.is_empty() {
        line.push_str("; ");
        line.push_str(&conventions.join(", "));
    }
    line.push('\n');
    line
}

fn thresholds_text(tracks: &[TrackEvaluation], decimals: usize) -> String {
    let mut out = String::new();
    for track in tracks {
        for pair in &track.pairs {
            if let Some(best) = &pair.best_threshold {
                let _ = writeln!(
                    out,
                    "best threshold {} {}: {} (P {}, R {}, F1 {})",
                    crate::text_field(&track.system),
                    crate::text_field(&pair.name),
                    best.threshold,
                    format_fixed(best.scores.scores.precision, decimals),
                    format_fixed(best.scores.scores.recall, decimals),
                    format_fixed(best.scores.scores.f_measure, decimals),
                );
            }
        }
    }
    out
}

fn text(tracks: &[TrackEvaluation], options: &RenderOptions) -> String {
    let mut out = header_line(tracks);
    if let [track] = tracks {
        let _ = writeln!(out, "system: {}", crate::text_field(&track.system));
    }
    out.push('\n');
    out.push_str(&summary_table(tracks, options.precision).to_text());
    let thresholds = thresholds_text(tracks, options.precision);
    if !thresholds.is_empty() {
        out.push('\n');
        out.push_str(&thresholds);
    }
    out
}

fn markdown(tracks: &[TrackEvaluation], options: &RenderOptions) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}\n", crate::markdown_comment(header_line(tracks).trim_end()));
    out.push_str(&summary_table(tracks, options.precision).to_markdown());
    out
}

/// MELT `performance.csv` columns, one row per (system, pair, reference, type), then the
/// micro and macro rows. `Residual Recall (R+)` is the recall of the residual scores (MELT
/// `ResidualRefiner`), empty where none was computed (no ontologies, no baseline; secondary
/// references).
fn csv(tracks: &[TrackEvaluation]) -> String {
    let mut out = String::from(
        "Matcher,Test Case,Reference,Type,Precision (P),Recall (R),Residual Recall (R+),F1,\"# of TP\",\"# of FP\",\"# of FN\",\"# of Correspondences\"\n",
    );
    let mut row =
        |system: &str, case: &str, reference: &str, kind: &str, s: &PairScores, residual: Option<&PairScores>| {
            let c = &s.counts;
            let _ = writeln!(
                out,
                "{},{},{reference},{kind},{},{},{},{},{},{},{},{}",
                csv_field(system),
                csv_field(case),
                format_java_double(s.scores.precision),
                format_java_double(s.scores.recall),
                residual.map(|r| format_java_double(r.scores.recall)).unwrap_or_default(),
                format_java_double(s.scores.f_measure),
                c.tp,
                c.fp,
                c.fn_,
                c.correspondences
            );
        };
    for track in tracks {
        let sys = track.system.as_str();
        for pair in &track.pairs {
            let residual = pair.residual.as_ref();
            row(sys, &pair.name, "primary", "ALL", &pair.primary, residual.map(|r| &r.primary));
            if let Some(t) = &pair.by_type {
                let by_type = residual.and_then(|r| r.by_type.as_ref());
                row(sys, &pair.name, "primary", "CLASSES", &t.classes, by_type.map(|r| &r.classes));
                row(sys, &pair.name, "primary", "PROPERTIES", &t.properties, by_type.map(|r| &r.properties));
                row(sys, &pair.name, "primary", "INSTANCES", &t.instances, by_type.map(|r| &r.instances));
            }
            if let Some(s) = &pair.secondary {
                row(sys, &pair.name, "secondary", "ALL", s, None);
            }
        }
        let aggregates: [(&str, Option<&Aggregate>, Option<&Aggregate>); 2] =
            [("primary", Some(&track.primary), track.residual.as_ref()), ("secondary", track.secondary.as_ref(), None)];
        for (reference, aggregate, residual) in aggregates {
            if let Some(a) = aggregate {
                row(sys, "MICRO", reference, "ALL", &a.micro, residual.map(|r| &r.micro));
                row(sys, "MACRO", reference, "ALL", &a.macro_, residual.map(|r| &r.macro_));
            }
        }
    }
    out
}

/// Every judged correspondence as TSV:
/// `system, pair, label, entity1, entity2, relation, confidence, line`.
#[must_use]
pub fn render_labels_tsv(tracks: &[TrackEvaluation], interner: &Interner) -> String {
    let mut out = String::from("system\tpair\tlabel\tentity1\tentity2\trelation\tconfidence\tline\n");
    for track in tracks {
        for pair in &track.pairs {
            for labeled in &pair.labels {
                let c = &labeled.cell;
                let _ = writeln!(
                    out,
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    track.system,
                    pair.name,
                    labeled.label.name(),
                    interner.resolve(c.entity1),
                    interner.resolve(c.entity2),
                    c.relation,
                    c.confidence,
                    c.line
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kgeval_model::align::{PrfScores, Residual};

    fn scores(p: f64, r: f64, f: f64, tp: u64, fp: u64, fn_: u64) -> PairScores {
        PairScores {
            scores: PrfScores { precision: p, recall: r, f_measure: f },
            counts: ConfusionCounts { tp, fp, fn_, ignored: 0, correspondences: tp + fp },
        }
    }

    fn track() -> TrackEvaluation {
        let pair = PairEvaluation {
            name: "cmt-conference".into(),
            primary: scores(2.0 / 3.0, 8.0 / 15.0, 0.5925925925925926, 8, 4, 7),
            ..PairEvaluation::default()
        };
        TrackEvaluation { system: "AML".into(), pairs: vec![pair], ..TrackEvaluation::default() }
    }

    #[test]
    fn json_contract_keys_and_full_precision() {
        let v = alignment_json(&[track()], &RenderOptions { version: "0.0.0".into(), ..RenderOptions::default() });
        assert_eq!(v["kgeval_version"], "0.0.0");
        assert_eq!(v["profile"], "melt");
        let v = &v["systems"][0];
        assert_eq!(v["system"], "AML");
        let p = &v["pairs"][0]["primary"];
        assert_eq!(p["precision"].as_f64(), Some(2.0 / 3.0));
        assert_eq!(p["tp"], 8);
        assert_eq!(p["fn"], 7);
        assert!(v["pairs"][0]["secondary"].is_null());
        assert!(v["micro"]["secondary"].is_null());
    }

    #[test]
    fn csv_prints_like_melt() {
        let csv = render_alignment(&[track()], OutputFormat::Csv, &RenderOptions::default());
        let line = csv.lines().nth(1).unwrap();
        // No baseline: the R+ cell is empty (it used to repeat recall).
        assert_eq!(
            line,
            "AML,cmt-conference,primary,ALL,0.6666666666666666,0.5333333333333333,,0.5925925925925926,8,4,7,12"
        );
        // With residual scores (4 of the 11 cells the baseline misses), R+ is their recall.
        let mut with_residual = track();
        let residual = scores(4.0 / 8.0, 4.0 / 11.0, 0.42105263157894735, 4, 4, 7);
        with_residual.pairs[0].residual = Some(Residual { primary: residual, by_type: None });
        with_residual.residual = Some(Aggregate { micro: residual, macro_: residual });
        let csv = render_alignment(&[with_residual], OutputFormat::Csv, &RenderOptions::default());
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[1],
            "AML,cmt-conference,primary,ALL,0.6666666666666666,0.5333333333333333,0.36363636363636365,0.5925925925925926,8,4,7,12"
        );
        assert!(lines[2].starts_with("AML,MICRO,primary,ALL,") && lines[2].contains(",0.36363636363636365,"), "{csv}");
    }

    #[test]
    fn text_rounds_to_precision() {
        let text = render_alignment(
            &[track()],
            OutputFormat::Text,
            &RenderOptions { precision: 2, ..RenderOptions::default() },
        );
        assert!(text.contains("cmt-conference  primary    0.67  0.53  0.59   8   4   7        0    12"), "{text}");
        assert!(text.starts_with("kgeval align: profile melt, mode partial; threshold: none, beta: 1,"), "{text}");
    }
}
