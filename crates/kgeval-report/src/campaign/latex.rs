//! `tables.tex`: one booktabs table per task, best value in bold, ranx's significance
//! superscripts, a caption naming the conventions. A whole document that compiles with
//! `pdflatex`; each table pastes into a paper that loads `booktabs` and `graphicx`.

use std::fmt::Write as _;

use kgeval_model::metric_names::Direction;

use super::{metric_label, system_letter, CampaignView, PowerTable, ResultTable, TaskView, TABLE_DECIMALS};
use crate::number::format_fixed;

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
    out.push_str("% Compiles as is with pdflatex; to paste a table into a paper, load booktabs and graphicx.\n");
    out.push_str("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n");
    out.push_str("\\usepackage{booktabs}\n\\usepackage{graphicx}\n\\begin{document}\n");
    let _ = writeln!(out, "\\section*{{{}}}", latex_breakable(&campaign.title));
    // Meta-evaluations of published tables have no systems × metrics table: the web page
    // shows them; the discriminative power of published p-values is a table of its own.
    for task in campaign.tasks.iter().filter(|t| t.table.is_some() || t.error.is_some()) {
        out.push('\n');
        task_latex(&mut out, task);
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
    out.push_str("\\begin{table}[ht]\n\\centering\n");
    let _ = writeln!(out, "\\caption{{{}}}", caption(task, table));
    let _ = writeln!(out, "\\label{{tab:{}}}", label_key(&task.name));
    out.push_str("\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%\n");
    let _ = writeln!(out, "\\begin{{tabular}}{{cl{}}}", "r".repeat(table.columns.len()));
    out.push_str("\\toprule\n\\# & System");
    for column in &table.columns {
        let arrow = match column.direction {
            Direction::Higher => "$\\uparrow$",
            Direction::Lower => "$\\downarrow$",
            Direction::Neither => "",
        };
        let _ = write!(out, " & {}{arrow}", latex_escape(&metric_label(&column.metric)));
    }
    out.push_str(" \\\\\n\\midrule\n");
    let best = table.best_cells(TABLE_DECIMALS);
    for (s, system) in table.systems.iter().enumerate() {
        let _ = write!(out, "{} & {}", system_letter(s), latex_escape(system));
        for (c, column) in table.columns.iter().enumerate() {
            out.push_str(" & ");
            let Some(value) = table.values.get(s).and_then(|row| row.get(c)).copied().flatten() else {
                out.push_str("--");
                continue;
            };
            let number = latex_number(value);
            if best[s][c] {
                let _ = write!(out, "\\textbf{{{number}}}");
            } else {
                out.push_str(&number);
            }
            if column.tested {
                let marks = table.marks(s, c);
                // ranx: the letters beaten as a superscript, the others as an invisible
                // phantom so that the numbers stay aligned.
                let phantom: String = (0..table.systems.len())
                    .filter(|&j| j != s && !table.beats[s][c].contains(&j))
                    .map(system_letter)
                    .collect();
                if !marks.is_empty() {
                    let _ = write!(out, "$^{{{marks}}}$");
                }
                if !phantom.is_empty() {
                    let _ = write!(out, "\\hphantom{{$^{{{phantom}}}$}}");
                }
            }
        }
        out.push_str(" \\\\\n");
    }
    out.push_str("\\bottomrule\n\\end{tabular}}\n\\end{table}\n");
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
    if value == 0.0 || value >= 0.5 * 10f64.powi(-(TABLE_DECIMALS as i32)) || !value.is_finite() {
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

/// Text made safe for LaTeX text mode under pdflatex with T1 fonts and UTF-8 input: the ten
/// special characters escaped, common symbols (Greek letters, dashes, ≤, ≥, ×, →, quotes)
/// spelled as LaTeX, Latin letters with accents kept (T1 has them), any other character
/// written as its code point (`[U+4E2D]`) rather than breaking the build.
///
/// ```
/// use kgeval_report::campaign::latex_escape;
/// assert_eq!(latex_escape("P_10 & 50% #1"), r"P\_10 \& 50\% \#1");
/// assert_eq!(latex_escape("τ ≥ 0.5"), r"$\tau$ $\geq$ 0.5");
/// assert_eq!(latex_escape("Crème"), "Crème");
/// assert_eq!(latex_escape("中"), "[U+4E2D]");
/// ```
#[must_use]
pub fn latex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' => out.push_str("\\{"),
            '}' => out.push_str("\\}"),
            '$' => out.push_str("\\$"),
            '&' => out.push_str("\\&"),
            '#' => out.push_str("\\#"),
            '%' => out.push_str("\\%"),
            '_' => out.push_str("\\_"),
            '^' => out.push_str("\\textasciicircum{}"),
            '~' => out.push_str("\\textasciitilde{}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            '|' => out.push_str("\\textbar{}"),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => match symbol(c) {
                Some(latex) => out.push_str(latex),
                // Latin-1 and Latin Extended-A letters: T1 + utf8 inputenc typeset them.
                None if matches!(c as u32, 0xC0..=0x17F) && c.is_alphabetic() => out.push(c),
                None => {
                    let _ = write!(out, "[U+{:04X}]", c as u32);
                }
            },
        }
    }
    out
}

/// Tokens (runs without white space) up to this many characters are left whole.
const SHORT_TOKEN: usize = 24;
/// The longest run of characters [`latex_breakable`] leaves without a place to break.
const LONGEST_UNBROKEN: usize = 16;

/// [`latex_escape`] for running text that may hold paths, IRIs or file names (error lines,
/// captions, headings): in a token longer than 24 characters a line may break after each
/// `/`, `#`, `_`, `:`, `=`, `?` and `&`, and inside any run of more than 16 characters without
/// such a place, so no token, however long the folder it names, runs into the margin. Shorter
/// tokens (names, numbers) are left whole.
///
/// ```
/// use kgeval_report::campaign::latex_breakable;
/// assert_eq!(latex_breakable("task_1 failed"), r"task\_1 failed");
/// assert_eq!(
///     latex_breakable("/home/someone/campaigns/x.tsv"),
///     r"/\allowbreak{}home/\allowbreak{}someone/\allowbreak{}campaigns/\allowbreak{}x.tsv"
/// );
/// let long = latex_breakable(&"a".repeat(40));
/// assert_eq!(long.matches(r"\allowbreak{}").count(), 2);
/// ```
#[must_use]
pub fn latex_breakable(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut token = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            push_token(&mut out, &token);
            token.clear();
            out.push_str(&latex_escape(c.encode_utf8(&mut [0; 4])));
        } else {
            token.push(c);
        }
    }
    push_token(&mut out, &token);
    out
}

/// One token of [`latex_breakable`], escaped, with places to break when it is long.
fn push_token(out: &mut String, token: &str) {
    if token.chars().count() <= SHORT_TOKEN {
        out.push_str(&latex_escape(token));
        return;
    }
    let mut run = 0;
    let mut buffer = [0u8; 4];
    for c in token.chars() {
        if run == LONGEST_UNBROKEN {
            out.push_str("\\allowbreak{}");
            run = 0;
        }
        out.push_str(&latex_escape(c.encode_utf8(&mut buffer)));
        if matches!(c, '/' | '#' | '_' | ':' | '=' | '?' | '&') {
            out.push_str("\\allowbreak{}");
            run = 0;
        } else {
            run += 1;
        }
    }
}

fn symbol(c: char) -> Option<&'static str> {
    Some(match c {
        'α' => "$\\alpha$",
        'β' => "$\\beta$",
        'γ' => "$\\gamma$",
        'δ' => "$\\delta$",
        'ε' => "$\\epsilon$",
        'κ' => "$\\kappa$",
        'λ' => "$\\lambda$",
        'μ' => "$\\mu$",
        'π' => "$\\pi$",
        'ρ' => "$\\rho$",
        'σ' => "$\\sigma$",
        'τ' => "$\\tau$",
        'Δ' => "$\\Delta$",
        '–' => "--",
        '—' => "---",
        '≤' => "$\\leq$",
        '≥' => "$\\geq$",
        '≠' => "$\\neq$",
        '±' => "$\\pm$",
        '×' => "$\\times$",
        '→' => "$\\rightarrow$",
        '…' => "\\ldots{}",
        '‘' => "`",
        '’' => "'",
        '“' => "``",
        '”' => "''",
        '·' => "$\\cdot$",
        '∞' => "$\\infty$",
        '\u{a0}' => "~",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::Column;

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
        }
    }

    #[test]
    fn superscripts_bold_and_phantoms_as_ranx() {
        let table = ResultTable {
            systems: vec!["Lily_v2".into(), "AML".into(), "Dōme".into()],
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
        assert!(out.contains("\\# & System & F1$\\uparrow$ & rank$\\downarrow$ \\\\"), "{out}");
        assert!(out.contains("a & Lily\\_v2 & \\textbf{0.8000}$^{c}$\\hphantom{$^{b}$} & 2.0000 \\\\"), "{out}");
        assert!(out.contains("b & AML & 0.6000$^{c}$\\hphantom{$^{a}$} & \\textbf{1.5000} \\\\"), "{out}");
        assert!(out.contains("c & Dōme & 0.2000\\hphantom{$^{ab}$} & -- \\\\"), "{out}");
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
        power_latex(
            &mut out,
            &task(ResultTable {
                systems: Vec::new(),
                columns: Vec::new(),
                values: Vec::new(),
                beats: Vec::new(),
                significance: None,
            }),
            &power,
            1,
        );
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
        let mut view = task(ResultTable {
            systems: Vec::new(),
            columns: Vec::new(),
            values: Vec::new(),
            beats: Vec::new(),
            significance: None,
        });
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
