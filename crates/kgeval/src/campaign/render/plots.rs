//! The plots a task's results allow, as the report's plain [`Plot`]s.

use kgeval_model::align::ThresholdPoint;
use kgeval_model::meta::compare::CompareResult;
use kgeval_model::rank::results::RankResult;
use kgeval_report::campaign::{metric_label, Marker, Plot, PlotKind, Series};

use crate::compare::CompareEvaluation;
use crate::evaluation::{Evaluation, FamilyResult};

/// The family's plots, and notes on plots a task could ask for.
pub(super) fn family_plots(key: &str, evaluation: &Evaluation) -> (Vec<Plot>, Vec<String>) {
    let mut plots = Vec::new();
    let mut notes = Vec::new();
    match &evaluation.result {
        FamilyResult::Align(result) => {
            for track in &result.tracks {
                for pair in &track.pairs {
                    if pair.threshold_curve.is_empty() {
                        continue;
                    }
                    plots.push(threshold_plot(
                        &format!("{key}-threshold-{}", plots.len() + 1),
                        &track.system,
                        &pair.name,
                        &pair.threshold_curve,
                        pair.best_threshold.as_ref(),
                    ));
                }
            }
            if plots.is_empty() {
                notes.push(
                    "P/R/F over the confidence threshold: add `best_threshold = true` to the task to compute and plot it."
                        .to_owned(),
                );
            }
        }
        FamilyResult::Rank(RankResult::Local(ranking)) => {
            match &ranking.sweep {
                Some(sweep) if !sweep.points.is_empty() => {
                    let mut series = vec![
                        Series {
                            name: "macro MRR".to_owned(),
                            points: sweep.points.iter().map(|p| (p.tau, p.macro_summary.mrr)).collect(),
                        },
                        Series {
                            name: "abstention F1".to_owned(),
                            points: sweep.points.iter().map(|p| (p.tau, p.abstention.f1)).collect(),
                        },
                    ];
                    if let Some(&(k, _)) = sweep.points[0].macro_summary.hits.first() {
                        series.insert(
                            1,
                            Series {
                                name: format!("macro Hits@{k}"),
                                points: sweep
                                    .points
                                    .iter()
                                    .filter_map(|p| p.macro_summary.hits_at(k).map(|v| (p.tau, v)))
                                    .collect(),
                            },
                        );
                    }
                    let oracle = sweep.points.get(sweep.oracle).map(|p| Marker {
                        label: format!("oracle τ = {} (best macro MRR, chosen on the test data)", p.tau),
                        x: p.tau,
                    });
                    plots.push(Plot {
                        id: format!("{key}-tau-sweep"),
                        title: format!("{}: metrics over the NIL score τ", ranking.system),
                        x_label: "τ given to NIL (score)".to_owned(),
                        y_label: "value (0–1)".to_owned(),
                        kind: PlotKind::Lines,
                        series,
                        markers: oracle.into_iter().collect(),
                    });
                }
                _ => notes.push("τ sweep: add `sweep_tau = true` to the task to compute and plot it.".to_owned()),
            }
            let curves: Vec<Series> = ranking
                .pairs
                .iter()
                .filter_map(|pair| {
                    pair.risk_coverage.as_ref().map(|rc| Series {
                        name: format!("{} (AURC {:.4})", pair.pair, rc.aurc),
                        points: rc.points.clone(),
                    })
                })
                .collect();
            if !curves.is_empty() {
                plots.push(Plot {
                    id: format!("{key}-risk-coverage"),
                    title: format!("{}: risk–coverage of selective answering", ranking.system),
                    x_label: "coverage (share of queries answered)".to_owned(),
                    y_label: "risk (error rate among answered)".to_owned(),
                    kind: PlotKind::Lines,
                    series: curves,
                    markers: Vec::new(),
                });
            }
        }
        FamilyResult::Kgc(evaluations) => {
            for evaluation in evaluations {
                if evaluation.categories.is_empty() {
                    continue;
                }
                let categories: Vec<String> = evaluation
                    .categories
                    .iter()
                    .map(|c| {
                        let category = c.category.map_or("none", |c| c.name());
                        c.side.map_or_else(|| category.to_owned(), |side| format!("{category} {}", side.name()))
                    })
                    .collect();
                let bar = |name: &str, f: &dyn Fn(&kgeval_model::kgc::results::CategoryBreakdown) -> f64| Series {
                    name: name.to_owned(),
                    points: evaluation.categories.iter().enumerate().map(|(i, c)| (i as f64, f(c))).collect(),
                };
                plots.push(Plot {
                    id: format!("{key}-categories-{}", plots.len() + 1),
                    title: format!("{}: micro vs macro MRR per relation category and side", evaluation.system),
                    x_label: "relation category and side".to_owned(),
                    y_label: "MRR (0–1)".to_owned(),
                    kind: PlotKind::Bars { categories },
                    series: vec![bar("micro MRR", &|c| c.micro.mrr), bar("macro MRR (best answer)", &|c| c.best.mrr)],
                    markers: Vec::new(),
                });
            }
            if plots.is_empty() {
                notes.push(
                    "Micro vs macro per relation category: give the task relation categories to plot them.".to_owned(),
                );
            }
        }
        FamilyResult::Trec(_) => {
            let table = &evaluation.table;
            let metric = ["map", "ndcg_cut_10", "P_10", "recip_rank"]
                .into_iter()
                .find_map(|m| table.find_metric(m).map(|id| (m, id)));
            if let Some((name, metric)) = metric {
                let series: Vec<Series> = evaluation
                    .systems
                    .iter()
                    .filter_map(|system| {
                        let sid = table.find_system(system)?;
                        let points: Vec<(f64, f64)> = table
                            .column(sid, metric)
                            .into_iter()
                            .enumerate()
                            .map(|(i, (_, v))| (i as f64, v))
                            .collect();
                        (!points.is_empty()).then(|| Series { name: system.clone(), points })
                    })
                    .collect();
                if !series.is_empty() {
                    plots.push(Plot {
                        id: format!("{key}-per-topic"),
                        title: format!("Per-topic {} by run", metric_label(name)),
                        x_label: "run".to_owned(),
                        y_label: format!("{} per topic (0–1)", metric_label(name)),
                        kind: PlotKind::Boxes,
                        series,
                        markers: Vec::new(),
                    });
                }
            }
        }
        _ => {}
    }
    (plots, notes)
}

fn threshold_plot(id: &str, system: &str, pair: &str, curve: &[ThresholdPoint], best: Option<&ThresholdPoint>) -> Plot {
    let series = |name: &str, f: fn(&ThresholdPoint) -> f64| Series {
        name: name.to_owned(),
        points: curve.iter().map(|p| (p.threshold, f(p))).collect(),
    };
    Plot {
        id: id.to_owned(),
        title: format!("{system} on {pair}: precision, recall and F-measure over the confidence threshold"),
        x_label: "confidence threshold (cells kept: confidence ≥ t)".to_owned(),
        y_label: "score (0–1)".to_owned(),
        kind: PlotKind::Lines,
        series: vec![
            series("precision", |p| p.scores.scores.precision),
            series("recall", |p| p.scores.scores.recall),
            series("F-measure", |p| p.scores.scores.f_measure),
        ],
        markers: best
            .map(|b| Marker {
                label: format!("best threshold {} (F {:.4})", b.threshold, b.scores.scores.f_measure),
                x: b.threshold,
            })
            .into_iter()
            .collect(),
    }
}

/// At most this many metrics per meta-evaluation plot (the palette's size).
const MAX_METRICS: usize = 8;

/// The metrics a plot keeps when there are more than [`MAX_METRICS`]: these, in this order.
const PREFERRED_METRICS: &[&str] = &[
    "micro_mrr",
    "macro_mrr",
    "micro_hits@1",
    "micro_hits@10",
    "macro_hits@1",
    "macro_hits@10",
    "map",
    "ndcg_cut_10",
    "P_10",
    "recip_rank",
    "f1",
    "precision",
    "recall",
];

/// The indices of the metrics a plot shows: all when they fit, else the preferred ones
/// present (then the first others) up to [`MAX_METRICS`]; and the title's note on the cut.
fn chosen(metrics: &[&str]) -> (Vec<usize>, String) {
    if metrics.len() <= MAX_METRICS {
        return ((0..metrics.len()).collect(), String::new());
    }
    let mut keep: Vec<usize> =
        PREFERRED_METRICS.iter().filter_map(|p| metrics.iter().position(|m| m == p)).take(MAX_METRICS).collect();
    for i in 0..metrics.len() {
        if keep.len() >= MAX_METRICS {
            break;
        }
        if !keep.contains(&i) {
            keep.push(i);
        }
    }
    keep.sort_unstable();
    let note = format!(" ({} of {} metrics; every value is in results.json)", keep.len(), metrics.len());
    (keep, note)
}

/// The meta-evaluation's plots: p-value curves (discriminative power; one per published
/// p-value matrix), Kendall tau over the subsample ratio (sensitivity) and over the pool depth
/// (agreement with a `Depth` series).
pub(super) fn compare_plots(key: &str, compare: &CompareEvaluation) -> Vec<Plot> {
    let result: &CompareResult = &compare.result;
    let mut plots = Vec::new();
    if !result.metrics.is_empty() {
        let names: Vec<&str> = result.metrics.iter().map(|m| m.power.metric.as_str()).collect();
        let (keep, cut) = chosen(&names);
        plots.push(Plot {
            id: format!("{key}-pvalues"),
            title: format!("Discriminative power: corrected p-values of every system pair, sorted{cut}"),
            x_label: "system pair (sorted by p-value, descending)".to_owned(),
            y_label: "p-value after correction".to_owned(),
            kind: PlotKind::Lines,
            series: keep
                .iter()
                .map(|&i| &result.metrics[i])
                .map(|m| Series {
                    name: format!(
                        "{} ({} of {} pairs at α = {})",
                        metric_label(&m.power.metric),
                        m.power.significant,
                        m.power.pairs,
                        m.power.alpha
                    ),
                    points: m.power.curve.iter().enumerate().map(|(i, &p)| ((i + 1) as f64, p)).collect(),
                })
                .collect(),
            markers: Vec::new(),
        });
    }
    for (n, set) in result.published_power.iter().enumerate() {
        let names: Vec<&str> = set.power.iter().map(|p| p.metric.as_str()).collect();
        let (keep, cut) = chosen(&names);
        plots.push(Plot {
            id: format!("{key}-pvalues-{}", n + 1),
            title: format!(
                "Discriminative power on {}: published p-values of every pair of its {} systems, sorted{cut}",
                set.name,
                set.systems.len()
            ),
            x_label: "system pair (sorted by p-value, descending)".to_owned(),
            y_label: "p-value as published".to_owned(),
            kind: PlotKind::Lines,
            series: keep
                .iter()
                .map(|&i| &set.power[i])
                .map(|p| Series {
                    name: format!(
                        "{} ({} of {} pairs at α = {})",
                        metric_label(&p.metric),
                        p.significant,
                        p.pairs,
                        p.alpha
                    ),
                    points: p.curve.iter().enumerate().map(|(i, &v)| ((i + 1) as f64, v)).collect(),
                })
                .collect(),
            markers: Vec::new(),
        });
    }
    if let Some(sensitivity) = &result.sensitivity {
        let names: Vec<&str> = sensitivity.metrics.iter().map(String::as_str).collect();
        let (keep, cut) = chosen(&names);
        plots.push(Plot {
            id: format!("{key}-sensitivity"),
            title: format!("Data sensitivity: Kendall {} between subset and full orderings{cut}", sensitivity.variant),
            x_label: format!("{} kept (% of {})", sensitivity.unit, sensitivity.items),
            y_label: format!("mean Kendall {}", sensitivity.variant),
            kind: PlotKind::Lines,
            series: keep
                .iter()
                .map(|&m| Series {
                    name: metric_label(&sensitivity.metrics[m]),
                    points: sensitivity.points.iter().map(|p| (p.ratio * 100.0, p.mean_tau[m])).collect(),
                })
                .collect(),
            markers: Vec::new(),
        });
    }
    if let Some(agreement) = &result.agreement {
        let mut series: Vec<Series> = Vec::new();
        let mut metrics: Vec<String> = Vec::new();
        for row in &agreement.rows {
            let Some(depth) = row.group.get(kgeval_meta::pool::DEPTH_COLUMN).and_then(|d| d.parse::<f64>().ok()) else {
                continue;
            };
            let name = metric_label(&row.metric);
            match series.iter_mut().find(|s| s.name == name) {
                Some(s) => s.points.push((depth, row.tau_b)),
                None => {
                    metrics.push(row.metric.clone());
                    series.push(Series { name, points: vec![(depth, row.tau_b)] });
                }
            }
        }
        for s in &mut series {
            s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let names: Vec<&str> = metrics.iter().map(String::as_str).collect();
        let (keep, cut) = chosen(&names);
        let series: Vec<Series> =
            series.into_iter().enumerate().filter(|(i, _)| keep.contains(i)).map(|(_, s)| s).collect();
        if !series.is_empty() {
            plots.push(Plot {
                id: format!("{key}-depth"),
                title: format!(
                    "Kendall tau-b of the system ordering against {} over the pool depth{cut}",
                    short_name(&agreement.right)
                ),
                x_label: "pool depth d (pooled triples judged up to rank d)".to_owned(),
                y_label: "Kendall tau-b".to_owned(),
                kind: PlotKind::Lines,
                series,
                markers: Vec::new(),
            });
        }
    }
    plots
}

/// The last two components of a path (`FB-Test-S-C/pooling_depth.csv.gz`): enough to tell the
/// file, without the machine's directories.
pub(super) fn short_name(path: &str) -> String {
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    parts[parts.len().saturating_sub(2)..].join("/")
}
