//! A meta-evaluation's table as it is (agreement, per-group agreement, data sensitivity):
//! text columns left, numbers right, at the largest size (10, 9 or 8 pt) at which it fits.

use std::fmt::Write as _;

use super::results::{text_width_pt, COLUMN_GAP_PT, LINE_WIDTH_PT, SIZES};
use super::{comment_safe, label_key, latex_breakable, latex_escape, latex_scientific};
use crate::campaign::{PlainCell, PlainTable, TaskView};

/// Writes `table`, the `n`th plain table of `task`.
pub(super) fn plain_latex(out: &mut String, task: &TaskView, table: &PlainTable, n: usize) {
    let _ = writeln!(out, "% Table {n} of {}: {}", comment_safe(&task.name), comment_safe(&table.caption));
    out.push_str("\\begin{table}[ht]\n\\centering\n");
    let rows: Vec<Vec<String>> = table
        .rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| match cell {
                    PlainCell::Text(text) => latex_escape(text),
                    PlainCell::Number(value) => latex_scientific(*value),
                    PlainCell::Integer(value) => value.to_string(),
                })
                .collect()
        })
        .collect();
    out.push_str(size(table));
    let _ = writeln!(out, "\\caption{{{}}}", latex_breakable(&table.caption));
    let _ = writeln!(out, "\\label{{tab:{}-t{n}}}", label_key(&task.name));
    let spec: String = (0..table.header.len()).map(|c| if table.is_numeric(c) { 'r' } else { 'l' }).collect();
    let _ = writeln!(out, "\\begin{{tabular}}{{{spec}}}\n\\toprule");
    let header: Vec<String> = table.header.iter().map(|h| latex_escape(h)).collect();
    let _ = writeln!(out, "{} \\\\\n\\midrule", header.join(" & "));
    for row in rows {
        let _ = writeln!(out, "{} \\\\", row.join(" & "));
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n");
}

/// The largest font size at which `table` fits in the line (8 pt when none does).
fn size(table: &PlainTable) -> &'static str {
    let plain = |cell: &PlainCell| match cell {
        PlainCell::Text(text) => text_width_pt(text),
        // `$3.19 \times 10^{-5}$` is about as wide as ten digits.
        PlainCell::Number(value) => match latex_scientific(*value) {
            text if text.starts_with('$') && text.contains("times") => text_width_pt("3.19 x 10-55"),
            text => text_width_pt(&text.replace("$-$", "-")),
        },
        PlainCell::Integer(value) => text_width_pt(&value.to_string()),
    };
    let content: f64 = (0..table.header.len())
        .map(|c| {
            let cells = table.rows.iter().filter_map(|row| row.get(c)).map(plain);
            cells.fold(table.header.get(c).map_or(0.0, |h| text_width_pt(h)), f64::max)
        })
        .sum();
    let gaps = COLUMN_GAP_PT * table.header.len() as f64;
    SIZES.iter().find(|(_, scale)| scale * content + gaps <= LINE_WIDTH_PT).map_or(SIZES[SIZES.len() - 1].0, |s| s.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(columns: usize) -> PlainTable {
        PlainTable {
            caption: "Agreement of a_b".into(),
            header: (0..columns).map(|c| format!("metric {c}")).collect(),
            rows: vec![
                (0..columns).map(|c| PlainCell::Number(c as f64 * -0.1)).collect(),
                (0..columns).map(|c| PlainCell::Number(1e-9 * c as f64)).collect(),
            ],
        }
    }

    #[test]
    fn numbers_right_sizes_shrink_to_fit() {
        let mut out = String::new();
        plain_latex(&mut out, &super::super::tests::task_view("x"), &table(3), 2);
        assert!(out.contains("\\caption{Agreement of a\\_b}"), "{out}");
        assert!(out.contains("\\label{tab:x-t2}"), "{out}");
        assert!(out.contains("\\begin{tabular}{rrr}"), "{out}");
        assert!(out.contains("0.0000 & $-$0.1000 & $-$0.2000 \\\\"), "{out}");
        // Columns of about 54 pt (a p-value in scientific notation) and a 12 pt gap: 5 fit
        // at 10 pt, 6 only at 8 pt.
        assert_eq!(size(&table(5)), "");
        assert_eq!(size(&table(6)), "\\footnotesize\n");
        assert_eq!(size(&table(20)), "\\footnotesize\n");
    }
}
