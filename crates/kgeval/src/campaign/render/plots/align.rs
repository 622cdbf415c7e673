//! An alignment task's plots, as a track organiser shows them: per reference pair, every
//! matcher's precision, recall and F-measure over the confidence threshold (three small
//! multiples, one line per matcher whose confidences take more than one value), and the
//! precision–recall scatter of every matcher at its own output (per pair, and micro over the
//! pairs). Confidences and measures outside [0, 1] (already warned about) are drawn at the
//! bound.

use kgeval_model::align::{PairScores, ThresholdPoint, TrackEvaluation};
use kgeval_report::campaign::{Axis, Panel, Plot, PlotKind, Series, TABLE_DECIMALS};
use kgeval_report::format_fixed;

/// The task's alignment plots and notes on them.
pub(super) fn align_plots(key: &str, tracks: &[TrackEvaluation]) -> (Vec<Plot>, Vec<String>) {
    let mut plots = Vec::new();
    let mut notes = Vec::new();
    let names = short_names(tracks);
    let pairs = pair_names(tracks);
    let mut curves_seen = false;
    let mut single: Vec<&str> = Vec::new();
    for (n, pair) in pairs.iter().enumerate() {
        let mut precision = Vec::new();
        let mut recall = Vec::new();
        let mut f_measure = Vec::new();
        for (track, name) in tracks.iter().zip(&names) {
            // Every matcher has its series (its colour and marker in every plot of the task);
            // one without a curve on this pair has no points, and no legend entry.
            let empty = Series { name: name.clone(), points: Vec::new() };
            let evaluation = track.pairs.iter().find(|p| &p.name == pair);
            let curve = evaluation.map_or(&[][..], |e| e.threshold_curve.as_slice());
            curves_seen |= !curve.is_empty();
            if distinct_thresholds(curve) < 2 {
                if !curve.is_empty() && !single.contains(&name.as_str()) {
                    single.push(name);
                }
                precision.push(empty.clone());
                recall.push(empty.clone());
                f_measure.push(empty);
                continue;
            }
            let label = evaluation.and_then(|e| e.best_threshold.as_ref()).map_or_else(
                || name.clone(),
                |b| {
                    format!(
                        "{name} (best F {} at t = {})",
                        format_fixed(b.scores.scores.f_measure, TABLE_DECIMALS),
                        format_fixed(b.threshold.clamp(0.0, 1.0), TABLE_DECIMALS)
                    )
                },
            );
            let series = |f: fn(&PairScores) -> f64| Series {
                name: label.clone(),
                points: curve.iter().map(|p| (p.threshold.clamp(0.0, 1.0), f(&p.scores).clamp(0.0, 1.0))).collect(),
            };
            precision.push(series(|s| s.scores.precision));
            recall.push(series(|s| s.scores.recall));
            f_measure.push(series(|s| s.scores.f_measure));
        }
        if f_measure.iter().all(|s| s.points.is_empty()) {
            continue;
        }
        let mut plot = Plot::new(
            format!("{key}-threshold-{}", n + 1),
            format!(
                "{pair}: precision, recall and F-measure of every matcher over the confidence threshold t (cells kept: confidence ≥ t)"
            ),
            ("confidence threshold t".to_owned(), "score (0–1)".to_owned()),
            PlotKind::Lines,
        );
        plot.panels = [("precision", precision), ("recall", recall), ("F-measure", f_measure)]
            .into_iter()
            .map(|(title, series)| Panel { title: title.to_owned(), series, markers: Vec::new() })
            .collect();
        plot.x_axis = Axis::UNIT;
        plot.y_axis = Axis::UNIT;
        plots.push(plot);
    }
    if !curves_seen {
        notes.push(
            "P/R/F over the confidence threshold: add `best_threshold = true` to the task to compute and plot it."
                .to_owned(),
        );
    } else if !single.is_empty() {
        notes.push(format!(
            "{} give every correspondence the same confidence: no curve over the threshold, a point in the precision–recall scatter.",
            single.join(", ")
        ));
    }
    if let Some(scatter) = scatter(key, tracks, &names, &pairs) {
        plots.push(scatter);
    }
    (plots, notes)
}

/// Precision against recall of every matcher at its own output: one panel per pair, and
/// one of the micro averages when there are several pairs.
fn scatter(key: &str, tracks: &[TrackEvaluation], names: &[String], pairs: &[String]) -> Option<Plot> {
    let point = |s: &PairScores| vec![(s.scores.recall.clamp(0.0, 1.0), s.scores.precision.clamp(0.0, 1.0))];
    let mut panels: Vec<Panel> = pairs
        .iter()
        .map(|pair| Panel {
            title: pair.clone(),
            series: tracks
                .iter()
                .zip(names)
                .map(|(track, name)| Series {
                    name: name.clone(),
                    points: track.pairs.iter().find(|p| &p.name == pair).map_or_else(Vec::new, |p| point(&p.primary)),
                })
                .collect(),
            markers: Vec::new(),
        })
        .collect();
    if panels.iter().all(|p| p.series.iter().all(|s| s.points.is_empty())) {
        return None;
    }
    if pairs.len() > 1 {
        panels.push(Panel {
            title: format!("micro over {} pairs", pairs.len()),
            series: tracks
                .iter()
                .zip(names)
                .map(|(track, name)| Series { name: name.clone(), points: point(&track.primary.micro) })
                .collect(),
            markers: Vec::new(),
        });
    }
    let mut plot = Plot::new(
        format!("{key}-precision-recall"),
        "Precision and recall of every matcher at its own output".to_owned(),
        ("recall".to_owned(), "precision".to_owned()),
        PlotKind::Scatter,
    );
    if panels.len() == 1 {
        plot.series = panels.remove(0).series;
    } else {
        plot.panels = panels;
    }
    plot.x_axis = Axis::UNIT;
    plot.y_axis = Axis::UNIT;
    Some(plot)
}

fn distinct_thresholds(curve: &[ThresholdPoint]) -> usize {
    let mut xs: Vec<f64> = curve.iter().map(|p| p.threshold.clamp(0.0, 1.0)).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    xs.len()
}

/// Every pair's name, in first-seen order.
fn pair_names(tracks: &[TrackEvaluation]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for pair in tracks.iter().flat_map(|t| &t.pairs) {
        if !names.contains(&pair.name) {
            names.push(pair.name.clone());
        }
    }
    names
}

/// The matchers' names without a `track:` prefix they all share.
fn short_names(tracks: &[TrackEvaluation]) -> Vec<String> {
    let prefix = tracks.first().and_then(|t| t.system.split_once(':')).map(|(p, _)| format!("{p}:"));
    match prefix {
        Some(p) if tracks.iter().all(|t| t.system.starts_with(&p) && t.system.len() > p.len()) => {
            tracks.iter().map(|t| t.system[p.len()..].to_owned()).collect()
        }
        _ => tracks.iter().map(|t| t.system.clone()).collect(),
    }
}
