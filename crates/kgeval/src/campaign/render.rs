//! A [`CampaignOutcome`] as the report's plain views (`kgeval_report::campaign`): the facade
//! decides which headlines a table shows, which conventions a caption names, which systems a
//! meta-evaluation says each one beats, and which plots a family's results allow.

mod plots;
mod tables;

use std::fmt::Write as _;

use kgeval_model::meta::compare::CompareResult;
use kgeval_model::metric_names::Direction;
use kgeval_model::rank::results::ConventionValue;
use kgeval_report::campaign::{
    metric_label, render_campaign_html, render_campaign_latex, task_element_id, CampaignView, Column, PowerRow,
    PowerTable, ResultTable, TaskView, WarningView,
};

use super::{one_line, CampaignOutcome, ComparisonOutcome, TaskOutcome};
use crate::evaluation::{Conventions, Evaluation};
use crate::{Family, Warning};

/// At most this many headline columns when a family has no preferred set.
const MAX_FALLBACK_COLUMNS: usize = 6;

impl CampaignOutcome {
    /// The campaign as the report's views: one per task, then one per `[[compare]]`, in
    /// manifest order.
    #[must_use]
    pub fn view(&self) -> CampaignView {
        let mut tasks: Vec<TaskView> = self.tasks.iter().map(task_view).collect();
        tasks.extend(self.comparisons.iter().map(comparison_view));
        CampaignView { title: self.title.clone(), tasks }
    }

    /// `tables.tex`: a LaTeX document (pdflatex) with one booktabs table per task.
    #[must_use]
    pub fn render_latex(&self) -> String {
        render_campaign_latex(&self.view())
    }

    /// `index.html`: one self-contained page with a section per task.
    #[must_use]
    pub fn render_html(&self) -> String {
        render_campaign_html(&self.view())
    }
}

impl crate::compare::CompareEvaluation {
    /// The comparison as the campaign's LaTeX document for one section named `name`: systems
    /// × compared metrics (each system's mean over the items), best in bold, the systems each
    /// beats as superscripts — `tables.tex`'s rendering.
    #[must_use]
    pub fn render_latex(&self, name: &str) -> String {
        // The `[[compare]]` section's view: its significance table and its other tables.
        let view = comparison_view(&ComparisonOutcome { name: name.to_owned(), compare: Ok(self.clone()) });
        render_campaign_latex(&CampaignView { title: name.to_owned(), tasks: vec![view] })
    }
}

/// The note of an evaluation of several systems on fewer than two items, where no paired test
/// can run (a task of one pair): said instead of a meta-evaluation.
pub(super) fn one_item_note(evaluation: &crate::Evaluation) -> Option<String> {
    let items = evaluation.table.items().len();
    (items < 2 && evaluation.table.systems().count() >= 2).then(|| {
        format!("One item: no significance test (a paired test needs at least two items; this task has {items}).")
    })
}

fn task_view(task: &TaskOutcome) -> TaskView {
    let mut view = TaskView {
        id: task_element_id("task", &task.name),
        name: task.name.clone(),
        family: task.family.name().to_owned(),
        error: None,
        table: None,
        conventions: Vec::new(),
        caption_conventions: Vec::new(),
        warnings: Vec::new(),
        plots: Vec::new(),
        notes: Vec::new(),
        power: Vec::new(),
        tables: Vec::new(),
    };
    let evaluation = match &task.evaluation {
        Ok(evaluation) => evaluation,
        Err(error) => {
            view.error = Some(one_line(error));
            return view;
        }
    };
    let compare = match &task.compare {
        Some(Ok(compare)) => Some(compare),
        Some(Err(error)) => {
            view.notes.push(format!("The meta-evaluation of this task failed: {}", one_line(error)));
            None
        }
        None => None,
    };
    view.notes.extend(task.compare_note.clone());
    view.table = Some(result_table(evaluation, compare.map(|c| &c.result)));
    view.conventions = conventions(&evaluation.conventions);
    view.caption_conventions = caption_conventions(&evaluation.conventions);
    if let Some(compare) = compare {
        view.conventions.extend(compare_conventions(&compare.result));
    }
    view.warnings = warnings(&evaluation.warnings, "");
    if let Some(compare) = compare {
        view.warnings.extend(warnings(&compare.warnings, "compare: "));
    }
    let (plots, notes) = plots::family_plots(&view.id, evaluation);
    view.plots = plots;
    view.notes.extend(notes);
    if let Some(compare) = compare {
        view.plots.extend(plots::compare_plots(&view.id, compare));
        view.tables = tables::compare_tables(&compare.result);
    }
    match &task.ties {
        None => {}
        Some(Ok(report)) => {
            let (table, notes) = tables::tie_table(report);
            view.tables.extend(table);
            view.notes.extend(notes);
            plots::add_tie_intervals(&view.id, &mut view.plots, evaluation, report);
        }
        Some(Err(error)) => view.notes.push(format!("The tie report of this task failed: {}", one_line(error))),
    }
    view
}

/// A `[[compare]]` of published score tables: its conventions, warnings, the agreement of
/// ungrouped orderings as notes, and its plots.
fn comparison_view(comparison: &ComparisonOutcome) -> TaskView {
    let mut view = TaskView {
        id: task_element_id("compare", &comparison.name),
        name: comparison.name.clone(),
        family: "compare".to_owned(),
        error: None,
        table: None,
        conventions: Vec::new(),
        caption_conventions: Vec::new(),
        warnings: Vec::new(),
        plots: Vec::new(),
        notes: Vec::new(),
        power: Vec::new(),
        tables: Vec::new(),
    };
    match &comparison.compare {
        Err(error) => view.error = Some(one_line(error)),
        Ok(compare) => {
            view.conventions = compare_conventions(&compare.result);
            view.warnings = warnings(&compare.warnings, "");
            view.table = significance_text(&compare.result, "means")
                .and_then(|significance| tables::significance_table(&compare.result, significance));
            view.tables = tables::compare_tables(&compare.result);
            for m in &compare.result.metrics {
                view.notes.push(format!(
                    "{}: {} of {} system pairs differ significantly at α = {}",
                    metric_label(&m.power.metric),
                    m.power.significant,
                    m.power.pairs,
                    m.power.alpha
                ));
            }
            view.power = compare
                .result
                .published_power
                .iter()
                .map(|set| power_table(set, compare.result.conventions.alpha))
                .collect();
            view.plots = plots::compare_plots(&view.id, compare);
        }
    }
    view
}

/// A published p-value matrix's discriminative power as the report's table.
fn power_table(set: &kgeval_model::meta::compare::PublishedPower, alpha: f64) -> PowerTable {
    PowerTable {
        name: set.name.clone(),
        systems: set.systems.len(),
        alpha,
        rows: set
            .power
            .iter()
            .map(|p| PowerRow {
                metric: p.metric.clone(),
                pairs: p.pairs,
                significant: p.significant,
                significant_at_01: p.significant_at_01,
                area: p.area,
                median_p: p.median_p,
            })
            .collect(),
    }
}

/// The headline columns a family's table shows, best known first; metrics the evaluation
/// lacks are skipped.
fn preferred_columns(family: Family) -> &'static [&'static str] {
    match family {
        Family::Align => &["precision", "recall", "f1", "macro_f1"],
        Family::Rank => &["recip_rank", "hits@1", "hits@5", "hits@10", "micro_mrr"],
        Family::Trec => &["map", "Rprec", "bpref", "recip_rank", "P_10", "ndcg_cut_10", "ndcg"],
        Family::Kgc => &["micro_mrr", "micro_hits@1", "micro_hits@10", "macro_mrr", "macro_hits@10", "map_cut_20"],
        Family::Qald => &["precision", "recall", "f1", "qald_f"],
        Family::Lexicon => &["precision", "recall", "f1", "accuracy"],
    }
}

/// Systems × headlines: the family's preferred columns, then the metrics the meta-evaluation
/// compared (when not already shown); without either, the first headline metrics with a
/// direction. Superscripts come from the meta-evaluation: system i beats j on a metric when
/// their corrected p-value is below α and i's mean is better in the metric's direction.
fn result_table(evaluation: &Evaluation, compare: Option<&CompareResult>) -> ResultTable {
    let table = &evaluation.table;
    let headline_metrics: Vec<&str> = {
        let mut seen = Vec::new();
        for (_, metric, _) in table.headlines() {
            let name = table.metric_name(metric);
            if !seen.contains(&name) {
                seen.push(name);
            }
        }
        seen
    };
    let mut metrics: Vec<String> = preferred_columns(evaluation.family)
        .iter()
        .filter(|m| headline_metrics.contains(m))
        .map(|m| (*m).to_owned())
        .collect();
    if let Some(compare) = compare {
        for comparison in &compare.metrics {
            let name = &comparison.significance.metric;
            if !metrics.contains(name) && table.find_metric(name).is_some() {
                metrics.push(name.clone());
            }
        }
    }
    if metrics.is_empty() {
        metrics = headline_metrics
            .iter()
            .filter(|m| table.find_metric(m).is_some_and(|id| table.metric_info(id).direction != Direction::Neither))
            .take(MAX_FALLBACK_COLUMNS)
            .map(|m| (*m).to_owned())
            .collect();
    }
    let systems = evaluation.systems.clone();
    let mut columns = Vec::with_capacity(metrics.len());
    let mut values = vec![Vec::with_capacity(metrics.len()); systems.len()];
    let mut beats = vec![Vec::with_capacity(metrics.len()); systems.len()];
    for metric in &metrics {
        let id = table.find_metric(metric);
        let direction = id.map_or(Direction::Neither, |id| table.metric_info(id).direction);
        let comparison = compare.and_then(|c| c.metrics.iter().find(|m| &m.significance.metric == metric));
        columns.push(Column { metric: metric.clone(), direction, tested: comparison.is_some() });
        for (s, system) in systems.iter().enumerate() {
            let value = id.and_then(|id| table.find_system(system).and_then(|sid| table.headline(sid, id)));
            values[s].push(value);
            beats[s].push(comparison.map_or_else(Vec::new, |c| beaten(&c.significance, &systems, s)));
        }
    }
    let significance = compare.and_then(|c| significance_text(c, "headlines"));
    let letters = system_letters(&systems, compare);
    ResultTable { systems, letters, columns, values, beats, significance }
}

/// How the marks of `compare` were decided (`paired t test, Holm correction, α = 0.05, on
/// per-item values`, with a word when there are too few items), when a test ran.
pub(crate) fn significance_text(compare: &CompareResult, shown: &str) -> Option<String> {
    if compare.metrics.is_empty() {
        return None;
    }
    let conventions = &compare.conventions;
    let correction = if conventions.test.is_family_wise() {
        "family-wise by construction".to_owned()
    } else {
        format!("{} correction", conventions.correction.name())
    };
    let mut text = format!(
        "{}, {correction}, α = {}, on per-item values; the table shows the {shown}",
        crate::compare::test_name(conventions.test),
        conventions.alpha
    );
    let items = compare.metrics.iter().map(|m| m.significance.n_items).min().unwrap_or(0);
    if items < crate::compare::MIN_TEST_ITEMS {
        let _ = write!(
            text,
            "; only {items} item(s): too few for a test to mean anything (warning {})",
            crate::compare::TOO_FEW_ITEMS
        );
    }
    Some(text)
}

/// Each system's significance letter, decided once for every output of the task: its
/// position in the task (`a`, `b`, …, as `kgeval_meta::leaderboard` letters a meta-evaluation's
/// systems), or the letter its meta-evaluation's leaderboards gave it.
fn system_letters(systems: &[String], compare: Option<&CompareResult>) -> Vec<String> {
    systems
        .iter()
        .enumerate()
        .map(|(s, name)| {
            compare
                .and_then(|c| c.metrics.first())
                .and_then(|m| m.leaderboard.rows.iter().find(|row| &row.name == name))
                .map_or_else(|| kgeval_meta::leaderboard::letter(s), |row| row.letter.clone())
        })
        .collect()
}

/// The systems (indices into `systems`) that `systems[s]` beats significantly.
fn beaten(
    significance: &kgeval_model::meta::significance::SignificanceResult,
    systems: &[String],
    s: usize,
) -> Vec<usize> {
    let Some(i) = significance.systems.iter().position(|name| name == &systems[s]) else { return Vec::new() };
    systems
        .iter()
        .enumerate()
        .filter(|&(t, _)| t != s)
        .filter_map(|(t, other)| {
            let j = significance.systems.iter().position(|name| name == other)?;
            let pair = significance.pair(i, j)?;
            let (mi, mj) = (significance.means[i], significance.means[j]);
            let better = if significance.higher_is_better { mi > mj } else { mi < mj };
            (pair.is_significant(significance.alpha) && better).then_some(t)
        })
        .collect()
}

fn rank_value(value: &ConventionValue) -> String {
    match value {
        ConventionValue::Text(text) => text.clone(),
        ConventionValue::Number(n) => n.to_string(),
        ConventionValue::Integers(ks) => ks.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
    }
}

/// Every convention of the family, `(key, text)`, in the family's output order.
fn conventions(conventions: &Conventions) -> Vec<(String, String)> {
    let owned = |entries: Vec<(&'static str, String)>| entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    match conventions {
        Conventions::Align(c) => owned(c.entries()),
        Conventions::Kgc(c) => owned(c.entries()),
        Conventions::Lexicon(c) => owned(c.entries()),
        Conventions::Qald(c) => owned(c.entries()),
        Conventions::Rank(c) => c.entries().into_iter().map(|(k, v)| (k.to_owned(), rank_value(&v))).collect(),
        Conventions::Trec(o) => {
            let mut entries = vec![("tie_break".to_owned(), o.tie_break.name().to_owned())];
            if !o.ties.follows_tie_break() {
                entries.push(("ties".to_owned(), o.ties.name().to_owned()));
            }
            entries.extend([
                ("query_set".to_owned(), o.query_set.name().to_owned()),
                ("relevance_level".to_owned(), o.relevance_level.to_string()),
                ("ndcg_uses_level".to_owned(), o.ndcg_uses_level.to_string()),
                ("max_docs".to_owned(), o.max_docs.map_or_else(|| "all".to_owned(), |m| m.to_string())),
            ]);
            entries
        }
    }
}

/// The conventions a caption names: profile, mode, tie policy, rule preset (whichever the
/// family has), under readable keys.
fn caption_conventions(conventions: &Conventions) -> Vec<(String, String)> {
    let all = self::conventions(conventions);
    let pick = |key: &str, label: &str| all.iter().find(|(k, _)| k == key).map(|(_, v)| (label.to_owned(), v.clone()));
    let wanted: &[(&str, &str)] = match conventions {
        Conventions::Align(_) => &[("profile", "profile"), ("mode", "mode"), ("threshold", "threshold")],
        Conventions::Rank(_) => &[("profile", "profile"), ("ties", "tie policy")],
        Conventions::Kgc(_) => &[("tie_policy", "tie policy")],
        Conventions::Qald(_) => &[("rule", "rule preset")],
        Conventions::Lexicon(_) => &[("mode", "mode")],
        Conventions::Trec(_) => &[("tie_break", "tie policy"), ("relevance_level", "relevance level")],
    };
    wanted.iter().filter_map(|(key, label)| pick(key, label)).collect()
}

fn compare_conventions(result: &CompareResult) -> Vec<(String, String)> {
    let c = &result.conventions;
    if result.metrics.is_empty() {
        // Agreement or sensitivity: no paired test ran.
        return vec![
            ("compare.tau".to_owned(), c.tau.name().to_owned()),
            ("compare.rbo_p".to_owned(), c.rbo_p.to_string()),
            ("compare.seed".to_owned(), c.seed.to_string()),
            ("compare.missing".to_owned(), c.missing.clone()),
            ("compare.input_format".to_owned(), c.input_format.clone()),
        ];
    }
    vec![
        ("compare.test".to_owned(), crate::compare::test_name(c.test).to_owned()),
        ("compare.correction".to_owned(), c.correction.name().to_owned()),
        ("compare.alpha".to_owned(), c.alpha.to_string()),
        ("compare.iterations".to_owned(), c.iterations.to_string()),
        ("compare.seed".to_owned(), c.seed.to_string()),
        ("compare.missing".to_owned(), c.missing.clone()),
    ]
}

fn warnings(list: &[Warning], prefix: &str) -> Vec<WarningView> {
    list.iter()
        .map(|w| WarningView {
            scope: format!("{prefix}{}", w.scope),
            code: w.diagnostic.code.to_owned(),
            message: w.diagnostic.message.clone(),
            location: w.diagnostic.location.as_ref().map(ToString::to_string),
        })
        .collect()
}
