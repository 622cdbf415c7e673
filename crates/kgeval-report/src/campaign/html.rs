//! `index.html`: one self-contained page (inline CSS, inline SVG plots, a little inline
//! JavaScript to sort the tables; no network request), a section per task.
//!
//! The page is a minijinja template (`index.html.jinja`) rather than string concatenation:
//! the markup reads as HTML, and every value is HTML-escaped by the template's auto-escaping
//! (names and messages come from user files) unless marked safe (only our own SVG).

use minijinja::{Environment, Value};
use serde::Serialize;

use super::{
    metric_label, plot::render_plot_svg, CampaignView, PlainCell, PlainTable, PowerTable, TaskView, TABLE_DECIMALS,
};
use crate::number::format_fixed;

const TEMPLATE: &str = include_str!("index.html.jinja");

#[derive(Serialize)]
struct Header {
    label: String,
    metric: String,
    direction: &'static str,
}

#[derive(Serialize)]
struct Cell {
    text: String,
    sort: String,
    best: bool,
    marks: String,
}

#[derive(Serialize)]
struct Row {
    letter: String,
    system: String,
    cells: Vec<Cell>,
}

#[derive(Serialize)]
struct PlotPage {
    id: String,
    title: String,
    svg: String,
}

#[derive(Serialize)]
struct PowerRowPage {
    label: String,
    metric: String,
    cells: Vec<Cell>,
}

#[derive(Serialize)]
struct PowerPage {
    id: String,
    heading: String,
    alpha: String,
    rows: Vec<PowerRowPage>,
}

#[derive(Serialize)]
struct PlainHeader {
    label: String,
    sort_type: &'static str,
}

#[derive(Serialize)]
struct PlainPage {
    id: String,
    caption: String,
    headers: Vec<PlainHeader>,
    rows: Vec<Vec<Cell>>,
}

#[derive(Serialize)]
struct TaskPage<'a> {
    id: String,
    name: &'a str,
    family: &'a str,
    error: Option<&'a str>,
    headers: Vec<Header>,
    rows: Vec<Row>,
    significance: Option<&'a str>,
    conventions: &'a [(String, String)],
    warnings: &'a [super::WarningView],
    plots: Vec<PlotPage>,
    notes: &'a [String],
    power: Vec<PowerPage>,
    tables: Vec<PlainPage>,
}

#[derive(Serialize)]
struct Page<'a> {
    title: &'a str,
    failed: usize,
    tasks: Vec<TaskPage<'a>>,
}

/// The element id of a section: `prefix-` (`task`, `compare`) and the name with every
/// character but ASCII letters, digits, `-` and `_` replaced by `-`.
///
/// ```
/// assert_eq!(kgeval_report::campaign::task_element_id("task", "trec_eval test"), "task-trec_eval-test");
/// ```
#[must_use]
pub fn task_element_id(prefix: &str, name: &str) -> String {
    let key: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '-' }).collect();
    format!("{prefix}-{key}")
}

/// The element id of a section's `n`-th (1-based) discriminative power table.
///
/// ```
/// assert_eq!(kgeval_report::campaign::power_element_id("compare-dp", 2), "compare-dp-power-2");
/// ```
#[must_use]
pub fn power_element_id(section: &str, n: usize) -> String {
    format!("{section}-power-{n}")
}

fn power_page(section: &str, n: usize, power: &PowerTable) -> PowerPage {
    let rows = power
        .rows
        .iter()
        .enumerate()
        .map(|(r, row)| {
            let cell = |c: usize, text: String, sort: String| Cell {
                text,
                sort,
                best: power.is_best(r, c),
                marks: String::new(),
            };
            let median = if row.median_p > 0.0 && row.median_p < 0.5e-4 {
                format!("{:.2e}", row.median_p)
            } else {
                format_fixed(row.median_p, TABLE_DECIMALS)
            };
            PowerRowPage {
                label: metric_label(&row.metric),
                metric: row.metric.clone(),
                cells: vec![
                    cell(1, row.pairs.to_string(), row.pairs.to_string()),
                    cell(2, row.significant.to_string(), row.significant.to_string()),
                    cell(3, row.significant_at_01.to_string(), row.significant_at_01.to_string()),
                    cell(4, format_fixed(row.area, TABLE_DECIMALS), row.area.to_string()),
                    cell(5, median, row.median_p.to_string()),
                ],
            }
        })
        .collect();
    let pairs = power.rows.first().map_or(0, |r| r.pairs);
    PowerPage {
        id: power_element_id(section, n),
        heading: format!("Discriminative power on {} ({} systems, {pairs} pairs)", power.name, power.systems),
        alpha: power.alpha.to_string(),
        rows,
    }
}

fn task_page(task: &TaskView) -> TaskPage<'_> {
    let mut headers = Vec::new();
    let mut rows = Vec::new();
    if let Some(table) = &task.table {
        headers = table
            .columns
            .iter()
            .map(|c| Header { label: metric_label(&c.metric), metric: c.metric.clone(), direction: c.direction.name() })
            .collect();
        let best = table.best_cells(TABLE_DECIMALS);
        for (s, system) in table.systems.iter().enumerate() {
            let cells = (0..table.columns.len())
                .map(|c| {
                    let value = table.values.get(s).and_then(|row| row.get(c)).copied().flatten();
                    Cell {
                        text: value.map_or_else(|| "–".to_owned(), |v| format_fixed(v, TABLE_DECIMALS)),
                        sort: value.map_or_else(String::new, |v| v.to_string()),
                        best: best[s][c],
                        marks: table.marks(s, c),
                    }
                })
                .collect();
            rows.push(Row { letter: table.letter(s).to_owned(), system: system.clone(), cells });
        }
    }
    TaskPage {
        id: task.id.clone(),
        name: &task.name,
        family: &task.family,
        error: task.error.as_deref(),
        headers,
        rows,
        significance: task.table.as_ref().and_then(|t| t.significance.as_deref()),
        conventions: &task.conventions,
        warnings: &task.warnings,
        plots: task
            .plots
            .iter()
            .map(|p| PlotPage { id: p.id.clone(), title: p.title.clone(), svg: render_plot_svg(p) })
            .collect(),
        notes: &task.notes,
        power: task.power.iter().enumerate().map(|(n, p)| power_page(&task.id, n + 1, p)).collect(),
        tables: task.tables.iter().enumerate().map(|(n, t)| plain_page(&task.id, n + 1, t)).collect(),
    }
}

/// The `n`-th (1-based) meta-evaluation table of a section, as the page shows it.
fn plain_page(section: &str, n: usize, table: &PlainTable) -> PlainPage {
    let headers = table
        .header
        .iter()
        .enumerate()
        .map(|(c, h)| PlainHeader { label: h.clone(), sort_type: if table.is_numeric(c) { "number" } else { "text" } })
        .collect();
    let rows = table
        .rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| {
                    let (text, sort) = match cell {
                        PlainCell::Text(text) => (text.clone(), text.clone()),
                        PlainCell::Number(v) => (plain_number(*v), v.to_string()),
                        PlainCell::Integer(v) => (v.to_string(), v.to_string()),
                    };
                    Cell { text, sort, best: false, marks: String::new() }
                })
                .collect()
        })
        .collect();
    PlainPage { id: format!("{section}-table-{n}"), caption: table.caption.clone(), headers, rows }
}

/// A value of a meta-evaluation table: [`TABLE_DECIMALS`] decimals, or scientific notation
/// when that would print zero.
fn plain_number(value: f64) -> String {
    if super::prints_as_zero(value) {
        format!("{value:.2e}")
    } else {
        format_fixed(value, TABLE_DECIMALS)
    }
}

/// The campaign as one self-contained HTML page.
///
/// ```
/// use kgeval_report::campaign::{CampaignView, render_campaign_html};
/// let html = render_campaign_html(&CampaignView { title: "<OAEI>".into(), tasks: Vec::new() });
/// assert!(html.starts_with("<!DOCTYPE html>"));
/// assert!(html.contains("<h1>&lt;OAEI&gt;</h1>"));
/// assert!(!html.contains("http://") && !html.contains("https://"));
/// ```
#[must_use]
pub fn render_campaign_html(campaign: &CampaignView) -> String {
    let page = Page {
        title: &campaign.title,
        failed: campaign.tasks.iter().filter(|t| t.error.is_some()).count(),
        tasks: campaign.tasks.iter().map(task_page).collect(),
    };
    let mut env = Environment::new();
    let rendered = env
        .add_template("index.html", TEMPLATE)
        .and_then(|()| env.get_template("index.html"))
        .and_then(|template| template.render(Value::from_serialize(&page)));
    match rendered {
        Ok(mut html) => {
            if !html.ends_with('\n') {
                html.push('\n');
            }
            html
        }
        // The template is ours and compiled in: a failure is a bug, shown rather than hidden.
        Err(error) => {
            format!("<!DOCTYPE html>\n<html><body><p>kgeval: the page template failed: {error}</p></body></html>\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::{Column, Plot, PlotKind, PowerRow, ResultTable, Series, WarningView};
    use kgeval_model::metric_names::Direction;

    #[test]
    fn sections_tables_warnings_and_plots() {
        let task = TaskView {
            id: task_element_id("task", "conf <2018>"),
            name: "conf <2018>".into(),
            family: "align".into(),
            error: None,
            table: Some(ResultTable {
                systems: vec!["A&B".into(), "C".into()],
                letters: vec!["a".into(), "b".into()],
                columns: vec![Column { metric: "f1".into(), direction: Direction::Higher, tested: true }],
                values: vec![vec![Some(0.75)], vec![Some(0.5)]],
                beats: vec![vec![vec![1]], vec![vec![]]],
                significance: Some("paired t test, holm correction, α = 0.05".into()),
            }),
            conventions: vec![("profile".into(), "melt".into())],
            caption_conventions: Vec::new(),
            warnings: vec![WarningView {
                scope: "system C".into(),
                code: "duplicate-cell".into(),
                message: "cell repeated".into(),
                location: Some("c.rdf:12:3".into()),
            }],
            plots: vec![Plot {
                id: "task-conf--2018--curve".into(),
                title: "F1".into(),
                x_label: "x".into(),
                y_label: "y".into(),
                kind: PlotKind::Lines,
                series: vec![Series { name: "C".into(), points: vec![(0.0, 0.1), (1.0, 0.2)] }],
                markers: Vec::new(),
                panels: Vec::new(),
                x_axis: crate::campaign::Axis::AUTO,
                y_axis: crate::campaign::Axis::UNIT,
                intervals: Vec::new(),
            }],
            notes: Vec::new(),
            power: vec![PowerTable {
                name: "FB-Test-O".into(),
                systems: 3,
                alpha: 0.05,
                rows: vec![
                    PowerRow {
                        metric: "micro_mrr".into(),
                        pairs: 3,
                        significant: 2,
                        significant_at_01: 1,
                        area: 0.25,
                        median_p: 3.2e-11,
                    },
                    PowerRow {
                        metric: "macro_mrr".into(),
                        pairs: 3,
                        significant: 1,
                        significant_at_01: 1,
                        area: 1.5,
                        median_p: 0.2,
                    },
                ],
            }],
            tables: vec![PlainTable {
                caption: "Agreement <of> A and B".into(),
                header: vec!["Metric".into(), "Systems".into(), "p".into()],
                key_columns: 1,
                rows: vec![vec![PlainCell::Text("MRR".into()), PlainCell::Integer(13), PlainCell::Number(3.2e-5)]],
            }],
        };
        let html = render_campaign_html(&CampaignView { title: "T".into(), tasks: vec![task] });
        assert!(html.contains("<section class=\"task\" id=\"task-conf--2018-\""), "{html}");
        assert!(html.contains("<h2 id=\"task-conf--2018--heading\">conf &lt;2018&gt;"), "{html}");
        assert!(html.contains("<td>A&amp;B</td>"), "{html}");
        assert!(html.contains("<table class=\"results plain sortable\" id=\"task-conf--2018--table-1\">"), "{html}");
        assert!(
            html.contains(
                "<td data-sort=\"13\" class=\"num\">13</td><td data-sort=\"0.000032\" class=\"num\">3.20e-5</td>"
            ),
            "{html}"
        );
        assert!(html.contains("Agreement &lt;of&gt; A and B"), "{html}");
        assert!(html.contains("<td data-sort=\"0.75\" class=\"best\">0.7500<sup class=\"marks\" title=\"beats b significantly\">b</sup></td>"), "{html}");
        assert!(html.contains("<td data-sort=\"0.5\">0.5000</td>"), "{html}");
        assert!(
            html.contains("<span class=\"loc\">c.rdf:12:3</span>: cell repeated <code>[duplicate-cell]</code>"),
            "{html}"
        );
        assert!(
            html.contains(
                "<figure class=\"plot\" id=\"task-conf--2018--curve\">\n<div class=\"plot-wrap\"><svg role=\"img\""
            ),
            "{html}"
        );
        assert!(html.contains("<table class=\"results sortable\" id=\"task-conf--2018--power-1\">"), "{html}");
        assert!(
            html.contains("<tr><td>micro MRR</td><td>micro_mrr</td><td data-sort=\"3\">3</td><td data-sort=\"2\" class=\"best\">2</td>"),
            "{html}"
        );
        assert!(html.contains("class=\"best\">3.20e-11</td></tr>"), "{html}");
        assert!(
            !html.contains("http://")
                || html.matches("http://").all(|_| html.contains("xmlns=\"http://www.w3.org/2000/svg\""))
        );
    }
}
