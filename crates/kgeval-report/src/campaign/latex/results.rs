//! A task's systems × metrics table in LaTeX, laid out for a paper's column of text:
//!
//! - a tested metric takes two columns, `r@{}l`: the value right-aligned, then its
//!   significance letters left-aligned as a superscript, so values line up however many
//!   letters a row carries (no phantoms, no gap sized for the longest possible set);
//! - nothing is scaled: when the columns would be wider than `\linewidth` of a 10 pt
//!   `article` ([`LINE_WIDTH_PT`]), the metrics are split over several tables, each repeating
//!   the letters and systems, so the type stays at the document's size (never below 8 pt);
//! - a system name wider than [`MAX_SYSTEM_PT`] wraps inside a `\parbox`.
//!
//! Widths are estimated from Computer Modern's glyph widths at 10 pt; the estimate errs wide.

use std::fmt::Write as _;

use kgeval_model::metric_names::Direction;

use super::{caption, label_key, latex_breakable, latex_escape, latex_number};
use crate::campaign::{metric_label, ResultTable, TaskView, TABLE_DECIMALS};

/// `\linewidth` of LaTeX's `article` class at 10 pt (`\textwidth` = 345 pt).
pub(crate) const LINE_WIDTH_PT: f64 = 345.0;
/// The widest a system name may be set before it wraps.
const MAX_SYSTEM_PT: f64 = 150.0;
/// The space LaTeX puts between two columns (`2\tabcolsep`).
const COLUMN_GAP_PT: f64 = 12.0;

/// The width of `text` in Computer Modern Roman at 10 pt (rounded up per glyph class).
fn text_width_pt(text: &str) -> f64 {
    text.chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '!' | '|' => 2.8,
            ' ' | 'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '-' => 3.9,
            'm' | 'w' => 8.4,
            'M' | 'W' => 10.3,
            c if c.is_ascii_uppercase() => 7.6,
            '@' | '%' | '&' => 7.8,
            _ => 5.3,
        })
        .sum()
}

/// The width of a superscript of `letters` (script size, 7 pt).
fn superscript_width_pt(letters: &str) -> f64 {
    0.75 * text_width_pt(letters)
}

/// One metric column as laid out: its heading, and its estimated width with its gap.
struct MetricColumn {
    index: usize,
    heading: String,
    width: f64,
}

/// Writes `table` of `task` (its caption, label and rows), split over several tables when
/// the metrics do not fit in [`LINE_WIDTH_PT`].
pub(super) fn results_latex(out: &mut String, task: &TaskView, table: &ResultTable) {
    let marks: Vec<Vec<String>> =
        (0..table.systems.len()).map(|s| (0..table.columns.len()).map(|c| table.marks(s, c)).collect()).collect();
    let columns: Vec<MetricColumn> = table
        .columns
        .iter()
        .enumerate()
        .map(|(c, column)| {
            let arrow = match column.direction {
                Direction::Higher => "$\\uparrow$",
                Direction::Lower => "$\\downarrow$",
                Direction::Neither => "",
            };
            let label = metric_label(&column.metric);
            let heading_width = text_width_pt(&label) + if arrow.is_empty() { 0.0 } else { 5.0 };
            let value_width = (0..table.systems.len())
                .map(|s| {
                    let value = table.values.get(s).and_then(|row| row.get(c)).copied().flatten();
                    // Bold digits are 5.75 pt wide.
                    value.map_or(10.0, |v| 1.1 * text_width_pt(&latex_plain_number(v)))
                })
                .fold(0.0, f64::max);
            let marks_width = marks.iter().map(|row| superscript_width_pt(&row[c])).fold(0.0, f64::max);
            let width = heading_width.max(value_width + marks_width) + COLUMN_GAP_PT;
            MetricColumn { index: c, heading: format!("{}{arrow}", latex_escape(&label)), width }
        })
        .collect();
    let letter_width = table.letters.iter().map(|l| text_width_pt(l)).fold(text_width_pt("#"), f64::max);
    let system_width =
        table.systems.iter().map(|s| text_width_pt(s)).fold(text_width_pt("System"), f64::max).min(MAX_SYSTEM_PT);
    let fixed = letter_width + system_width + 2.0 * COLUMN_GAP_PT;
    let parts = split_columns(&columns, fixed);
    let best = table.best_cells(TABLE_DECIMALS);
    for (part, &chunk) in parts.iter().enumerate() {
        if part > 0 {
            out.push('\n');
        }
        out.push_str("\\begin{table}[ht]\n\\centering\n");
        if part == 0 {
            let _ = writeln!(out, "\\caption{{{}}}", caption(task, table));
            let _ = writeln!(out, "\\label{{tab:{}}}", label_key(&task.name));
        } else {
            let _ = writeln!(
                out,
                "\\caption{{Task {} ({}), continued (part {} of {}).}}",
                latex_breakable(&task.name),
                task.family,
                part + 1,
                parts.len()
            );
            let _ = writeln!(out, "\\label{{tab:{}-part{}}}", label_key(&task.name), part + 1);
        }
        let spec: String = chunk.iter().map(|m| if table.columns[m.index].tested { "r@{}l" } else { "r" }).collect();
        let _ = writeln!(out, "\\begin{{tabular}}{{cl{spec}}}");
        out.push_str("\\toprule\n\\# & System");
        for m in chunk {
            if table.columns[m.index].tested {
                let _ = write!(out, " & \\multicolumn{{2}}{{c}}{{{}}}", m.heading);
            } else {
                let _ = write!(out, " & {}", m.heading);
            }
        }
        out.push_str(" \\\\\n\\midrule\n");
        for (s, system) in table.systems.iter().enumerate() {
            let _ = write!(out, "{} & {}", latex_escape(table.letter(s)), system_cell(system));
            for m in chunk {
                let c = m.index;
                out.push_str(" & ");
                match table.values.get(s).and_then(|row| row.get(c)).copied().flatten() {
                    None => out.push_str("--"),
                    Some(value) if best[s][c] => {
                        let _ = write!(out, "\\textbf{{{}}}", latex_number(value));
                    }
                    Some(value) => out.push_str(&latex_number(value)),
                }
                if table.columns[c].tested {
                    out.push_str(" & ");
                    if !marks[s][c].is_empty() {
                        let _ = write!(out, "$^{{{}}}$", marks[s][c]);
                    }
                }
            }
            out.push_str(" \\\\\n");
        }
        out.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n");
    }
}

/// A system's name: as it is, or in a ragged-right `\parbox` when wider than
/// [`MAX_SYSTEM_PT`].
fn system_cell(system: &str) -> String {
    if text_width_pt(system) <= MAX_SYSTEM_PT {
        latex_escape(system)
    } else {
        format!("\\parbox[t]{{{MAX_SYSTEM_PT}pt}}{{\\raggedright {}}}", latex_breakable(system))
    }
}

/// The metric columns in groups that fit beside the letter and system columns (`fixed`
/// points wide), in order; each group holds at least one column.
fn split_columns(columns: &[MetricColumn], fixed: f64) -> Vec<&[MetricColumn]> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut width = fixed;
    for (i, column) in columns.iter().enumerate() {
        if i > start && width + column.width > LINE_WIDTH_PT {
            parts.push(&columns[start..i]);
            start = i;
            width = fixed;
        }
        width += column.width;
    }
    if start < columns.len() || parts.is_empty() {
        parts.push(&columns[start..]);
    }
    parts
}

/// A value as printed, without LaTeX markup (for its width).
fn latex_plain_number(value: f64) -> String {
    crate::number::format_fixed(value, TABLE_DECIMALS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(index: usize, width: f64) -> MetricColumn {
        MetricColumn { index, heading: String::new(), width }
    }

    #[test]
    fn columns_split_where_the_line_is_full() {
        let columns: Vec<MetricColumn> = (0..7).map(|i| column(i, 60.0)).collect();
        // 100 + 4 × 60 = 340 fits in 345; a fifth column would not.
        let parts = split_columns(&columns, 100.0);
        let sizes: Vec<usize> = parts.iter().map(|p| p.len()).collect();
        assert_eq!(sizes, [4, 3]);
        // A column wider than the line still gets a table of its own.
        let wide = [column(0, 400.0), column(1, 400.0)];
        assert_eq!(split_columns(&wide, 100.0).len(), 2);
        assert_eq!(split_columns(&[], 100.0).len(), 1);
    }

    #[test]
    fn widths_err_wide_for_digits_and_capitals() {
        assert!((text_width_pt("0.8000") - (5.3 * 5.0 + 2.8)).abs() < 1e-9);
        assert!(text_width_pt("AML") > text_width_pt("aml"));
        assert!(superscript_width_pt("abc") < text_width_pt("abc"));
    }
}
