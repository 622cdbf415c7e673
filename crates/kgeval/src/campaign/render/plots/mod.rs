//! The plots a task's results allow, as the report's plain [`Plot`]s: which plots, which
//! series, and each axis's bounds (a metric's range, integer counts, a log scale where
//! p-values span decades). Every series is drawn; a "curve" of one x value becomes a dot plot.

mod align;

use kgeval_model::meta::compare::CompareResult;
use kgeval_model::rank::results::RankResult;
use kgeval_report::campaign::{metric_label, Axis, Marker, Plot, PlotKind, Series, TABLE_DECIMALS};
use kgeval_report::format_fixed;

use crate::compare::CompareEvaluation;
use crate::evaluation::{Evaluation, FamilyResult};

/// The family's plots, and notes on plots a task could ask for.
pub(super) fn family_plots(key: &str, evaluation: &Evaluation) -> (Vec<Plot>, Vec<String>) {
    let mut plots = Vec::new();
    let mut notes = Vec::new();
    match &evaluation.result {
        FamilyResult::Align(result) => {
            let (align_plots, align_notes) = align::align_plots(key, &result.tracks);
            plots = align_plots;
            notes = align_notes;
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
                        label: format!(
                            "oracle τ = {} (best macro MRR, chosen on the test data)",
                            format_fixed(p.tau, TABLE_DECIMALS)
                        ),
                        x: p.tau,
                    });
                    let mut plot = Plot::new(
                        format!("{key}-tau-sweep"),
                        format!("{}: metrics over the NIL score τ", ranking.system),
                        ("τ given to NIL (score)".to_owned(), "value (0–1)".to_owned()),
                        PlotKind::Lines,
                    );
                    plot.series = series;
                    plot.markers = oracle.into_iter().collect();
                    plot.y_axis = Axis::UNIT;
                    plots.push(plot);
                }
                _ => notes.push("τ sweep: add `sweep_tau = true` to the task to compute and plot it.".to_owned()),
            }
            let curves: Vec<Series> = ranking
                .pairs
                .iter()
                .filter_map(|pair| {
                    pair.risk_coverage.as_ref().map(|rc| Series {
                        name: format!("{} (AURC {})", pair.pair, format_fixed(rc.aurc, TABLE_DECIMALS)),
                        points: rc.points.clone(),
                    })
                })
                .collect();
            if !curves.is_empty() {
                let mut plot = Plot::new(
                    format!("{key}-risk-coverage"),
                    format!("{}: risk–coverage of selective answering", ranking.system),
                    ("coverage (share of queries answered)".to_owned(), "risk (error rate among answered)".to_owned()),
                    PlotKind::Lines,
                );
                plot.series = curves;
                plot.x_axis = Axis::UNIT;
                plot.y_axis = Axis::UNIT;
                plots.push(plot);
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
                let mut plot = Plot::new(
                    format!("{key}-categories-{}", plots.len() + 1),
                    format!("{}: micro vs macro MRR per relation category and side", evaluation.system),
                    ("relation category and side".to_owned(), "MRR (0–1)".to_owned()),
                    PlotKind::Bars { categories },
                );
                plot.series = vec![bar("micro MRR", &|c| c.micro.mrr), bar("macro MRR (best answer)", &|c| c.best.mrr)];
                plot.y_axis = Axis::UNIT;
                plots.push(plot);
            }
            if plots.is_empty() {
                notes.push(
                    "Micro vs macro per relation category: give the task relation categories to plot them.".to_owned(),
                );
            }
        }
        FamilyResult::Trec(_) => {
            let table = &evaluation.table;
            if let Some((name, metric)) = per_topic_metric(table) {
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
                    let mut plot = Plot::new(
                        format!("{key}-per-topic"),
                        format!("Per-topic {} by run", metric_label(name)),
                        ("run".to_owned(), format!("{} per topic (0–1)", metric_label(name))),
                        PlotKind::Boxes,
                    );
                    plot.series = series;
                    plot.y_axis = Axis::UNIT;
                    plots.push(plot);
                }
            }
        }
        _ => {}
    }
    (plots.into_iter().map(one_x_as_dots).collect(), notes)
}

/// The measure a trec task's per-topic plot shows: the first of map, ndcg_cut_10, P_10 and
/// recip_rank its table has.
fn per_topic_metric(table: &kgeval_model::ScoreTable) -> Option<(&'static str, kgeval_model::MetricId)> {
    ["map", "ndcg_cut_10", "P_10", "recip_rank"].into_iter().find_map(|m| table.find_metric(m).map(|id| (m, id)))
}

/// Adds to a trec task's per-topic plot (`{key}-per-topic`) each topic's [pessimistic,
/// optimistic] interval of the plotted measure from the task's tie report, drawn as error
/// bars; topics whose order of ties changes nothing get none.
pub(super) fn add_tie_intervals(
    key: &str,
    plots: &mut [Plot],
    evaluation: &Evaluation,
    report: &kgeval_model::trec::TieReport,
) {
    let table = &evaluation.table;
    let Some((name, metric)) = per_topic_metric(table) else { return };
    let Some(plot) = plots.iter_mut().find(|p| p.id == format!("{key}-per-topic")) else { return };
    let items: Vec<&str> = table.items().map(|i| i.name.as_str()).collect();
    plot.title.push_str(" (bars: each topic's range over the orders of its tied documents)");
    plot.intervals = plot
        .series
        .iter()
        .map(|series| {
            let run = report.runs.iter().find(|r| r.run == series.name);
            let interval_of = |qid: &str| {
                run?.topics
                    .iter()
                    .find(|t| t.qid == qid)?
                    .intervals
                    .iter()
                    .find(|(m, _, _)| m == name)
                    .map(|&(_, low, high)| (low, high))
            };
            let Some(system) = table.find_system(&series.name) else { return Vec::new() };
            table
                .column(system, metric)
                .into_iter()
                .map(|(item, value)| interval_of(items[item.0 as usize]).unwrap_or((value, value)))
                .collect()
        })
        .collect();
}

/// The lowest p-value a log axis shows: published p-values reach 1e-300, and a range of 300
/// decades would squash the ones that matter (around α) into the top of the plot.
const LOG_FLOOR: f64 = 1e-12;

/// A p-value curve: one series per metric, the pairs numbered 1.. on an integer axis, a
/// log scale (down to [`LOG_FLOOR`]) when the p-values span two decades or more.
fn pvalue_plot(id: String, title: String, y_label: &str, curves: Vec<Series>) -> Plot {
    let positive = curves.iter().flat_map(|s| s.points.iter().map(|p| p.1)).filter(|p| *p > 0.0 && p.is_finite());
    let (lo, hi) = positive.fold((f64::INFINITY, 0.0_f64), |(lo, hi), p| (lo.min(p), hi.max(p)));
    let log = lo.is_finite() && hi / lo >= 100.0;
    let floor = if log { 10f64.powf(lo.log10().floor()).max(LOG_FLOOR) } else { 0.0 };
    let below = curves.iter().flat_map(|s| &s.points).any(|p| p.1 < floor);
    let title = if below { format!("{title}; p-values below {floor:e} drawn at the bottom") } else { title };
    let y_label = if log { format!("{y_label} (log scale)") } else { y_label.to_owned() };
    let mut plot =
        Plot::new(id, title, ("system pair (sorted by p-value, descending)".to_owned(), y_label), PlotKind::Lines);
    plot.series = curves;
    plot.x_axis = Axis::INTEGER;
    plot.y_axis = if log { Axis { bounds: Some((floor, 1.0)), ..Axis::LOG } } else { Axis::UNIT };
    let mut plot = one_x_as_dots(plot);
    if matches!(plot.kind, PlotKind::Dots { .. }) {
        "metric (one system pair: its p-value per metric)".clone_into(&mut plot.x_label);
    }
    plot
}

/// A metric's p-value curve as a series named with its counts at α.
fn power_series(metric: &str, (significant, pairs, alpha): (usize, usize, f64), curve: &[f64]) -> Series {
    Series {
        name: format!("{} ({significant} of {pairs} pairs at α = {alpha})", metric_label(metric)),
        points: curve.iter().enumerate().map(|(i, &p)| ((i + 1) as f64, p)).collect(),
    }
}

/// A lines plot whose series each have at most one x value (one system pair, one depth)
/// as a dot plot: one category per series, named by it.
fn one_x_as_dots(mut plot: Plot) -> Plot {
    let mut xs: Vec<f64> = plot.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    if plot.kind != PlotKind::Lines || !plot.panels.is_empty() || xs.len() != 1 {
        return plot;
    }
    let categories: Vec<String> = plot.series.iter().map(|s| s.name.clone()).collect();
    let x = plot.series.iter().find_map(|s| s.points.first()).map_or(0.0, |p| p.0);
    plot.x_label = if x.fract() == 0.0 {
        format!("{} = {} for every series", plot.x_label, format_fixed(x, 0))
    } else {
        format!("{} = {} for every series", plot.x_label, format_fixed(x, TABLE_DECIMALS))
    };
    for (i, series) in plot.series.iter_mut().enumerate() {
        for point in &mut series.points {
            point.0 = i as f64;
        }
    }
    plot.kind = PlotKind::Dots { categories };
    plot.markers.clear();
    plot
}

/// The meta-evaluation's plots: p-value curves (discriminative power; one per published
/// p-value matrix), Kendall tau over the subsample ratio (sensitivity) and over the pool depth
/// (agreement with a `Depth` series). Every metric is drawn.
pub(super) fn compare_plots(key: &str, compare: &CompareEvaluation) -> Vec<Plot> {
    let result: &CompareResult = &compare.result;
    let mut plots = Vec::new();
    if !result.metrics.is_empty() {
        let curves = result
            .metrics
            .iter()
            .map(|m| {
                let p = &m.power;
                power_series(&p.metric, (p.significant, p.pairs, p.alpha), &p.curve)
            })
            .collect();
        plots.push(pvalue_plot(
            format!("{key}-pvalues"),
            "Discriminative power: corrected p-values of every system pair, sorted".to_owned(),
            "p-value after correction",
            curves,
        ));
    }
    for (n, set) in result.published_power.iter().enumerate() {
        let curves =
            set.power.iter().map(|p| power_series(&p.metric, (p.significant, p.pairs, p.alpha), &p.curve)).collect();
        plots.push(pvalue_plot(
            format!("{key}-pvalues-{}", n + 1),
            format!(
                "Discriminative power on {}: published p-values of every pair of its {} systems, sorted",
                set.name,
                set.systems.len()
            ),
            "p-value as published",
            curves,
        ));
    }
    if let Some(sensitivity) = &result.sensitivity {
        let mut plot = Plot::new(
            format!("{key}-sensitivity"),
            format!("Data sensitivity: Kendall {} between subset and full orderings", sensitivity.variant),
            (
                format!("{} kept (% of {})", sensitivity.unit, sensitivity.items),
                format!("mean Kendall {}", sensitivity.variant),
            ),
            PlotKind::Lines,
        );
        plot.series = sensitivity
            .metrics
            .iter()
            .enumerate()
            .map(|(m, metric)| Series {
                name: metric_label(metric),
                points: sensitivity.points.iter().map(|p| (p.ratio * 100.0, p.mean_tau[m])).collect(),
            })
            .collect();
        plot.x_axis = Axis { bounds: Some((0.0, 100.0)), ..Axis::AUTO };
        plot.y_axis = Axis::CORRELATION;
        plots.push(plot);
    }
    if let Some(agreement) = &result.agreement {
        let mut series: Vec<Series> = Vec::new();
        for row in &agreement.rows {
            let Some(depth) = row.group.get(kgeval_meta::pool::DEPTH_COLUMN).and_then(|d| d.parse::<f64>().ok()) else {
                continue;
            };
            let name = metric_label(&row.metric);
            match series.iter_mut().find(|s| s.name == name) {
                Some(s) => s.points.push((depth, row.tau_b)),
                None => series.push(Series { name, points: vec![(depth, row.tau_b)] }),
            }
        }
        for s in &mut series {
            s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        if !series.is_empty() {
            let mut plot = Plot::new(
                format!("{key}-depth"),
                format!(
                    "Kendall tau-b of the system ordering against {} over the pool depth",
                    short_name(&agreement.right)
                ),
                ("pool depth d (pooled triples judged up to rank d)".to_owned(), "Kendall tau-b".to_owned()),
                PlotKind::Lines,
            );
            plot.series = series;
            plot.x_axis = Axis::INTEGER;
            plot.y_axis = Axis::CORRELATION;
            plots.push(plot);
        }
    }
    plots.into_iter().map(one_x_as_dots).collect()
}

/// The last two components of a path (`FB-Test-S-C/pooling_depth.csv.gz`): enough to tell the
/// file, without the machine's directories.
pub(super) fn short_name(path: &str) -> String {
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    parts[parts.len().saturating_sub(2)..].join("/")
}
