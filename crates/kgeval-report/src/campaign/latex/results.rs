//! A task's systems × metrics table in LaTeX, laid out for a paper's column of text:
//!
//! - a tested metric takes two columns, `r@{}l`: the value right-aligned, then its
//!   significance letters left-aligned as a superscript, so values line up however many
//!   letters a row carries (no phantoms, no gap sized for the longest possible set);
//! - nothing is scaled: a table wider than `\linewidth` of a 10 pt `article`
//!   ([`LINE_WIDTH_PT`]) is set in `\small` (9 pt) or `\footnotesize` (8 pt) when that makes
//!   it fit, else its metrics are split over several tables in `\footnotesize`, each repeating
//!   the letters and systems: the type is never below 8 pt;
//! - a system name wider than [`MAX_SYSTEM_PT`] wraps inside a `\parbox`, and a scoped
//!   metric's heading takes two lines (`micro` over `Hits@10`).
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
pub(super) const COLUMN_GAP_PT: f64 = 12.0;

/// Widths of `a`…`z` in Computer Modern Roman at 10 pt (cmr10's metrics, in points).
const LOWER_PT: [f64; 26] = [
    5.0, 5.56, 4.44, 5.56, 4.44, 3.06, 5.0, 5.56, 2.78, 3.06, 5.28, 2.78, 8.33, 5.56, 5.0, 5.56, 5.28, 3.92, 3.94,
    3.89, 5.56, 5.28, 7.22, 5.28, 5.28, 4.44,
];
/// Widths of `A`…`Z` in Computer Modern Roman at 10 pt.
const UPPER_PT: [f64; 26] = [
    7.5, 7.08, 7.22, 7.64, 6.81, 6.53, 7.85, 7.5, 3.61, 5.14, 7.78, 6.25, 9.17, 7.5, 7.78, 6.81, 7.78, 7.36, 5.56,
    7.22, 7.5, 7.5, 10.28, 7.5, 7.5, 6.11,
];

/// The width of `text` in Computer Modern Roman at 10 pt, 3 % wide (T1 fonts differ a
/// little); characters outside ASCII count as a capital.
pub(super) fn text_width_pt(text: &str) -> f64 {
    let width: f64 = text
        .chars()
        .map(|c| match c {
            'a'..='z' => LOWER_PT[(c as u8 - b'a') as usize],
            'A'..='Z' => UPPER_PT[(c as u8 - b'A') as usize],
            '0'..='9' => 5.0,
            '.' | ',' | ':' | ';' | '\'' | '!' | '|' => 2.78,
            ' ' | '-' => 3.33,
            '(' | ')' | '[' | ']' => 3.89,
            '_' | '/' => 5.0,
            '@' | '&' => 7.78,
            '#' | '%' => 8.33,
            _ => 7.5,
        })
        .sum();
    1.03 * width
}

/// The width of a superscript of `letters` (script size, 7 pt).
fn superscript_width_pt(letters: &str) -> f64 {
    0.75 * text_width_pt(letters)
}

/// One metric column as laid out: its heading, and its estimated width at 10 pt without
/// the gap between columns.
struct MetricColumn {
    index: usize,
    heading: String,
    width: f64,
}

/// The font sizes a table may use, largest first: the command and its scale to 10 pt.
pub(super) const SIZES: [(&str, f64); 3] = [("", 1.0), ("\\small\n", 0.9), ("\\footnotesize\n", 0.8)];

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
            let arrow_width = if arrow.is_empty() { 0.0 } else { 5.0 };
            // `micro Hits@10` is set on two lines, the scope above the metric.
            let (heading, heading_width) = match label.split_once(' ') {
                Some((scope, metric)) => (
                    format!("\\shortstack{{{}\\\\{}{arrow}}}", latex_escape(scope), latex_escape(metric)),
                    text_width_pt(scope).max(text_width_pt(metric) + arrow_width),
                ),
                None => (format!("{}{arrow}", latex_escape(&label)), text_width_pt(&label) + arrow_width),
            };
            let value_width = (0..table.systems.len())
                .map(|s| {
                    let value = table.values.get(s).and_then(|row| row.get(c)).copied().flatten();
                    // Bold digits are 5.75 pt wide.
                    value.map_or(10.0, |v| 1.1 * text_width_pt(&latex_plain_number(v)))
                })
                .fold(0.0, f64::max);
            let marks_width = marks.iter().map(|row| superscript_width_pt(&row[c])).fold(0.0, f64::max);
            let width = heading_width.max(value_width + marks_width);
            MetricColumn { index: c, heading, width }
        })
        .collect();
    let letter_width = table.letters.iter().map(|l| text_width_pt(l)).fold(text_width_pt("#"), f64::max);
    let system_width =
        table.systems.iter().map(|s| text_width_pt(s)).fold(text_width_pt("System"), f64::max).min(MAX_SYSTEM_PT);
    let fixed = letter_width + system_width;
    let (size, parts) = layout(&columns, fixed);
    let best = table.best_cells(TABLE_DECIMALS);
    for (part, &chunk) in parts.iter().enumerate() {
        if part > 0 {
            out.push('\n');
        }
        out.push_str("\\begin{table}[ht]\n\\centering\n");
        out.push_str(size);
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

/// The font size and the groups of metric columns of a table whose letter and system
/// columns are `fixed` points wide at 10 pt: the largest size at which every column fits on
/// one line; else as few groups as fit at 8 pt, at the largest size that needs no more.
fn layout(columns: &[MetricColumn], fixed: f64) -> (&'static str, Vec<&[MetricColumn]>) {
    for (size, scale) in SIZES {
        let parts = split_columns(columns, fixed, scale);
        if parts.len() == 1 {
            return (size, parts);
        }
    }
    // As few tables as 8 pt allows, at the largest size that needs no more.
    let (smallest, scale) = SIZES[SIZES.len() - 1];
    let fewest = split_columns(columns, fixed, scale).len();
    for (size, scale) in SIZES {
        let parts = balanced(columns, fixed, scale);
        if parts.len() == fewest {
            return (size, parts);
        }
    }
    (smallest, balanced(columns, fixed, scale))
}

/// [`split_columns`], with the columns spread evenly over as many tables (3 + 3 rather than
/// 5 + 1) when the even groups fit too.
fn balanced(columns: &[MetricColumn], fixed: f64, scale: f64) -> Vec<&[MetricColumn]> {
    let greedy = split_columns(columns, fixed, scale);
    let parts = greedy.len();
    let (base, extra) = (columns.len() / parts, columns.len() % parts);
    let mut even = Vec::with_capacity(parts);
    let mut start = 0;
    for part in 0..parts {
        let end = start + base + usize::from(part < extra);
        even.push(&columns[start..end]);
        start = end;
    }
    if even.iter().all(|group| split_columns(group, fixed, scale).len() == 1) {
        even
    } else {
        greedy
    }
}

/// The metric columns in groups that fit beside the letter and system columns (`fixed`
/// points wide at 10 pt) with the type at `scale` × 10 pt, in order; each group holds at
/// least one column.
fn split_columns(columns: &[MetricColumn], fixed: f64, scale: f64) -> Vec<&[MetricColumn]> {
    let width_of = |content: f64| scale * content + COLUMN_GAP_PT;
    let mut parts = Vec::new();
    let mut start = 0;
    let mut width = width_of(fixed) + COLUMN_GAP_PT;
    for (i, column) in columns.iter().enumerate() {
        if i > start && width + width_of(column.width) > LINE_WIDTH_PT {
            parts.push(&columns[start..i]);
            start = i;
            width = width_of(fixed) + COLUMN_GAP_PT;
        }
        width += width_of(column.width);
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
        let columns: Vec<MetricColumn> = (0..7).map(|i| column(i, 48.0)).collect();
        // At 10 pt: 88 + 2 gaps (24) = 112, then 60 per column: 3 columns make 292, a fourth
        // 352 > 345.
        let parts = split_columns(&columns, 88.0, 1.0);
        let sizes: Vec<usize> = parts.iter().map(|p| p.len()).collect();
        assert_eq!(sizes, [3, 3, 1]);
        // A column wider than the line still gets a table of its own.
        let wide = [column(0, 400.0), column(1, 400.0)];
        assert_eq!(split_columns(&wide, 100.0, 1.0).len(), 2);
        assert_eq!(split_columns(&[], 100.0, 1.0).len(), 1);
    }

    #[test]
    fn a_smaller_size_before_a_split_never_below_8_pt() {
        let columns: Vec<MetricColumn> = (0..9).map(|i| column(i, 47.0)).collect();
        // Columns 47 pt wide beside 88 pt: 3 fit at 10 pt (289 pt), 4 do not (348 pt) but fit
        // at 9 pt (320.4 pt); 5 need 8 pt (342.4 pt).
        assert_eq!(layout(&columns[..3], 88.0).0, "");
        assert_eq!(layout(&columns[..4], 88.0).0, "\\small\n");
        let (size, parts) = layout(&columns[..5], 88.0);
        assert_eq!((size, parts.len()), ("\\footnotesize\n", 1));
        // Too wide even at 8 pt: split evenly (7 columns: 4 + 3, not 5 + 2), at the largest
        // size where 4 columns fit (9 pt).
        let (size, parts) = layout(&columns[..7], 88.0);
        assert_eq!(size, "\\small\n");
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [4, 3]);
        assert_eq!(split_columns(&columns[..7], 88.0, 0.8).len(), 2);
        assert_eq!(split_columns(&columns[..7], 88.0, 0.8)[0].len(), 5);
    }

    #[test]
    fn widths_follow_computer_modern() {
        assert!((text_width_pt("0.8000") - 1.03 * (5.0 * 5.0 + 2.78)).abs() < 1e-9);
        assert!(text_width_pt("AML") > text_width_pt("aml"));
        assert!(superscript_width_pt("abc") < text_width_pt("abc"));
    }
}
