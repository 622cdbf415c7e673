//! `tables.tex`: one booktabs table per task, best value in bold, ranx's significance
//! superscripts, a caption naming the conventions. A whole document that compiles with
//! `pdflatex`; each table pastes into a paper that loads `booktabs`.

use std::fmt::Write as _;

use super::{metric_label, CampaignView, PowerTable, ResultTable, TaskView, TABLE_DECIMALS};
use crate::number::format_fixed;

mod escape;
mod plain;
mod results;

pub use escape::{latex_breakable, latex_escape};

/// The campaign's tables as a LaTeX document (pdflatex, T1 fonts, UTF-8 input).
///
/// ```
/// use kgeval_report::campaign::{CampaignView, render_campaign_latex};
/// let tex = render_campaign_latex(&CampaignView { title: "OAEI_2018 & co".into(), tasks: Vec::new() });
/// assert!(tex.contains(r"OAEI\_2018 \& co"));
/// assert!(tex.ends_with("\\end{document}\n"));
/// ```
#[must_use]
pub fn render_campaign_latex(campaign: &CampaignView) -> String {
    let mut out = String::new();
    out.push_str("% Written by kgeval: one booktabs table per task of the campaign.\n");
    out.push_str("% Compiles as is with pdflatex; to paste a table into a paper, load booktabs.\n");
    out.push_str("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n");
    out.push_str("\\usepackage{booktabs}\n\\setlength{\\belowcaptionskip}{4pt}\n\\begin{document}\n");
    let _ = writeln!(out, "\\section*{{{}}}", latex_breakable(&campaign.title));
    // Meta-evaluations of published tables have no systems × metrics table: the web page
    // shows them; the discriminative power of published p-values is a table of its own.
    for task in campaign.tasks.iter().filter(|t| t.table.is_some() || t.error.is_some()) {
        out.push('\n');
        task_latex(&mut out, task);
    }
    for task in &campaign.tasks {
        for (n, table) in task.tables.iter().enumerate() {
            out.push('\n');
            plain::plain_latex(&mut out, task, table, n + 1);
        }
    }
    for task in &campaign.tasks {
        for (n, power) in task.power.iter().enumerate() {
            out.push('\n');
            power_latex(&mut out, task, power, n + 1);
        }
    }
    out.push_str("\n\\end{document}\n");
    out
}

fn task_latex(out: &mut String, task: &TaskView) {
    let _ = writeln!(out, "% Task {} ({})", comment_safe(&task.name), task.family);
    let Some(table) = &task.table else {
        let error = task.error.as_deref().unwrap_or("no result");
        let _ = writeln!(
            out,
            "\\begin{{sloppypar}}\\noindent Task \\texttt{{{}}} ({}) failed: {}\\end{{sloppypar}}",
            latex_breakable(&task.name),
            task.family,
            // Paths and IRIs break anywhere rather than run into the margin.
            latex_breakable(error)
        );
        return;
    };
    results::results_latex(out, task, table);
}

/// One published p-value matrix's discriminative power: a row per metric, the best of each
/// column in bold (most pairs significant, smallest area and median p).
fn power_latex(out: &mut String, task: &TaskView, power: &PowerTable, n: usize) {
    let _ = writeln!(out, "% Discriminative power: {} of {}", comment_safe(&power.name), comment_safe(&task.name));
    out.push_str("\\begin{table}[ht]\n\\centering\n");
    let pairs = power.rows.first().map_or(0, |r| r.pairs);
    let _ = writeln!(
        out,
        "\\caption{{Discriminative power on {} ({} systems, {pairs} pairs; {}), from the published p-values \
         (taken as published, no test run by kgeval): pairs with $p < {}$ and $p < 0.01$, the area under the p-value \
         curve sorted in descending order (smaller is more discriminative) and the median $p$. Best value per \
         column in bold.}}",
        latex_breakable(&power.name),
        power.systems,
        latex_breakable(&task.name),
        power.alpha
    );
    let _ = writeln!(out, "\\label{{tab:{}-{n}}}", label_key(&task.name));
    out.push_str("\\begin{tabular}{lrrrrr}\n\\toprule\n");
    let _ = writeln!(
        out,
        "Metric & Pairs & $p < {}$$\\uparrow$ & $p < 0.01$$\\uparrow$ & Area$\\downarrow$ & Median $p$$\\downarrow$ \\\\",
        power.alpha
    );
    out.push_str("\\midrule\n");
    for (r, row) in power.rows.iter().enumerate() {
        let cells = [
            row.significant.to_string(),
            row.significant_at_01.to_string(),
            latex_number(row.area),
            latex_scientific(row.median_p),
        ];
        let _ = write!(out, "{} & {}", latex_escape(&metric_label(&row.metric)), row.pairs);
        for (c, cell) in cells.iter().enumerate() {
            if power.is_best(r, c + 2) {
                let _ = write!(out, " & \\textbf{{{cell}}}");
            } else {
                let _ = write!(out, " & {cell}");
            }
        }
        out.push_str(" \\\\\n");
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n");
}

/// A p-value: fixed decimals, or `$m \times 10^{e}$` (3 significant digits) when it would
/// print as zero.
fn latex_scientific(value: f64) -> String {
    if !super::prints_as_zero(value) {
        return latex_number(value);
    }
    let text = format!("{value:.2e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    format!("${mantissa} \\times 10^{{{exponent}}}$")
}

fn caption(task: &TaskView, table: &ResultTable) -> String {
    let mut text = format!("Task {} ({}).", latex_breakable(&task.name), task.family);
    text.push_str(" Best value per column in bold ($\\uparrow$ higher is better, $\\downarrow$ lower is better).");
    if let Some(significance) = &table.significance {
        let _ = write!(
            text,
            " Superscripts: the letters of the systems a system beats significantly ({}).",
            latex_escape(significance)
        );
    }
    if !task.caption_conventions.is_empty() {
        let conventions: Vec<String> = task
            .caption_conventions
            .iter()
            .map(|(key, value)| format!("{} {}", latex_escape(key), latex_breakable(value)))
            .collect();
        let _ = write!(text, " Conventions: {}.", conventions.join("; "));
    }
    text
}

fn latex_number(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    let text = format_fixed(value, TABLE_DECIMALS);
    match text.strip_prefix('-') {
        Some(rest) => format!("$-${rest}"),
        None => text,
    }
}

/// A label key: letters, digits and `-`, the rest replaced by `-`.
fn label_key(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// A name inside a `%` comment: one line.
fn comment_safe(name: &str) -> String {
    name.replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::Column;
    use kgeval_model::metric_names::Direction;

    /// A task named `name` with an empty result table.
    pub(super) fn task_view(name: &str) -> TaskView {
        let mut view = task(ResultTable {
            systems: Vec::new(),
            letters: Vec::new(),
            columns: Vec::new(),
            values: Vec::new(),
            beats: Vec::new(),
            significance: None,
        });
        name.clone_into(&mut view.name);
        view
    }

    fn task(table: ResultTable) -> TaskView {
        TaskView {
            id: "task-conf_2018--1".into(),
            name: "conf_2018 #1".into(),
            family: "align".into(),
            error: None,
            table: Some(table),
            conventions: Vec::new(),
            caption_conventions: vec![("profile".into(), "melt".into()), ("mode".into(), "complete".into())],
            warnings: Vec::new(),
            plots: Vec::new(),
            notes: Vec::new(),
            power: Vec::new(),
            tables: Vec::new(),
        }
    }

    #[test]
    fn superscripts_in_a_column_of_their_own() {
        let table = ResultTable {
            systems: vec!["Lily_v2".into(), "AML".into(), "Dōme".into()],
            letters: vec!["a".into(), "b".into(), "c".into()],
            columns: vec![
                Column { metric: "f1".into(), direction: Direction::Higher, tested: true },
                Column { metric: "rank".into(), direction: Direction::Lower, tested: false },
            ],
            values: vec![vec![Some(0.8), Some(2.0)], vec![Some(0.6), Some(1.5)], vec![Some(0.2), None]],
            beats: vec![vec![vec![2], vec![]], vec![vec![2], vec![]], vec![vec![], vec![]]],
            significance: Some("paired t test, holm correction, α = 0.05".into()),
        };
        let mut out = String::new();
        task_latex(&mut out, &task(table));
        assert!(out.contains("\\caption{Task conf\\_2018 \\#1 (align)."), "{out}");
        assert!(out.contains("holm correction, $\\alpha$ = 0.05)."), "{out}");
        assert!(out.contains("Conventions: profile melt; mode complete."), "{out}");
        assert!(out.contains("\\label{tab:conf-2018--1}"), "{out}");
        // A tested metric spans two columns: the value right-aligned, its letters beside it.
        assert!(out.contains("\\begin{tabular}{clr@{}lr}"), "{out}");
        assert!(out.contains("\\# & System & \\multicolumn{2}{c}{F1$\\uparrow$} & rank$\\downarrow$ \\\\"), "{out}");
        assert!(out.contains("a & Lily\\_v2 & \\textbf{0.8000} & $^{c}$ & 2.0000 \\\\"), "{out}");
        assert!(out.contains("b & AML & 0.6000 & $^{c}$ & \\textbf{1.5000} \\\\"), "{out}");
        assert!(out.contains("c & Dōme & 0.2000 &  & -- \\\\"), "{out}");
        assert!(!out.contains("hphantom") && !out.contains("resizebox"), "{out}");
    }

    #[test]
    fn wide_tables_split_instead_of_shrinking() {
        let metrics: Vec<Column> = (1..=12)
            .map(|k| Column { metric: format!("macro_hits@{k}"), direction: Direction::Higher, tested: true })
            .collect();
        let systems: Vec<String> = (0..12).map(|i| format!("System{i}")).collect();
        let table = ResultTable {
            letters: (0..12).map(|i| char::from(b'a' + i).to_string()).collect(),
            values: vec![vec![Some(0.5); metrics.len()]; systems.len()],
            beats: (0..12).map(|s| vec![(0..12).filter(|&o| o != s).collect(); metrics.len()]).collect(),
            systems,
            columns: metrics,
            significance: Some("paired t test".into()),
        };
        let mut out = String::new();
        task_latex(&mut out, &task(table));
        let tables = out.matches("\\begin{tabular}").count();
        assert!(tables > 1, "{out}");
        assert!(out.contains(&format!("continued (part 2 of {tables})")), "{out}");
        assert!(out.contains("\\label{tab:conf-2018--1-part2}"), "{out}");
        // Every metric appears once, every table repeats the systems.
        assert_eq!(out.matches("\\shortstack{macro\\\\Hits@7$\\uparrow$}").count(), 1, "{out}");
        assert_eq!(out.matches("System11").count(), tables, "{out}");
    }

    #[test]
    fn power_table_bolds_the_most_discriminative() {
        use crate::campaign::PowerRow;
        let row = |metric: &str, significant, at_01, area, median_p| PowerRow {
            metric: metric.into(),
            pairs: 3,
            significant,
            significant_at_01: at_01,
            area,
            median_p,
        };
        let power = PowerTable {
            name: "FB_O".into(),
            systems: 3,
            alpha: 0.05,
            rows: vec![row("micro_mrr", 2, 1, 0.5, 0.01), row("map_cut_20", 1, 1, 1.25, 3.2e-11)],
        };
        let mut out = String::new();
        power_latex(&mut out, &task_view("conf_2018 #1"), &power, 1);
        assert!(
            out.contains("\\caption{Discriminative power on FB\\_O (3 systems, 3 pairs; conf\\_2018 \\#1)"),
            "{out}"
        );
        assert!(out.contains("\\label{tab:conf-2018--1-1}"), "{out}");
        assert!(out.contains("micro MRR & 3 & \\textbf{2} & \\textbf{1} & \\textbf{0.5000} & 0.0100 \\\\"), "{out}");
        assert!(
            out.contains("MAP@20 & 3 & 1 & \\textbf{1} & 1.2500 & \\textbf{$3.20 \\times 10^{-11}$} \\\\"),
            "{out}"
        );
    }

    #[test]
    fn failed_task_is_a_sentence() {
        let mut view = task_view("conf_2018 #1");
        view.table = None;
        view.error = Some("a.rdf:3:1: found <x>, expected <Cell>".into());
        let mut out = String::new();
        task_latex(&mut out, &view);
        assert_eq!(
            out,
            "% Task conf_2018 #1 (align)\n\\begin{sloppypar}\\noindent Task \\texttt{conf\\_2018 \\#1} (align) \
             failed: a.rdf:3:1: found \\textless{}x\\textgreater{}, expected \\textless{}Cell\\textgreater{}\
             \\end{sloppypar}\n"
        );
    }
}
