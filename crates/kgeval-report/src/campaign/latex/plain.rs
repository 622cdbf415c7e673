//! A meta-evaluation's table as it is (agreement, per-group agreement, data sensitivity):
//! text columns left, numbers right, at the largest size (10, 9 or 8 pt) at which it fits;
//! a table too wide even at 8 pt is split into several, each repeating the key columns.

use std::fmt::Write as _;
use std::ops::Range;

use super::results::{text_width_pt, COLUMN_GAP_PT, LINE_WIDTH_PT, SIZES};
use super::{comment_safe, label_key, latex_breakable, latex_escape, latex_scientific};
use crate::campaign::{PlainCell, PlainTable, TaskView};

/// Writes `table`, the `n`th plain table of `task`.
pub(super) fn plain_latex(out: &mut String, task: &TaskView, table: &PlainTable, n: usize) {
    let _ = writeln!(out, "% Table {n} of {}: {}", comment_safe(&task.name), comment_safe(&table.caption));
    let cells: Vec<Vec<String>> = table
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
    let keys = table.key_columns.min(table.header.len());
    let (size, parts) = layout(&column_widths(table), keys);
    for (part, columns) in parts.iter().enumerate() {
        if part > 0 {
            out.push('\n');
        }
        out.push_str("\\begin{table}[ht]\n\\centering\n");
        out.push_str(size);
        if part == 0 {
            let _ = writeln!(out, "\\caption{{{}}}", latex_breakable(&table.caption));
            let _ = writeln!(out, "\\label{{tab:{}-t{n}}}", label_key(&task.name));
        } else {
            let _ = writeln!(
                out,
                "\\caption{{Table {n} of {}, continued (part {} of {}).}}",
                latex_breakable(&task.name),
                part + 1,
                parts.len()
            );
            let _ = writeln!(out, "\\label{{tab:{}-t{n}-part{}}}", label_key(&task.name), part + 1);
        }
        let shown: Vec<usize> = (0..keys).chain(columns.clone()).collect();
        let spec: String = shown.iter().map(|&c| if table.is_numeric(c) { 'r' } else { 'l' }).collect();
        let _ = writeln!(out, "\\begin{{tabular}}{{{spec}}}\n\\toprule");
        let header: Vec<String> = shown.iter().map(|&c| latex_escape(&table.header[c])).collect();
        let _ = writeln!(out, "{} \\\\\n\\midrule", header.join(" & "));
        for row in &cells {
            let row: Vec<&str> = shown.iter().map(|&c| row.get(c).map_or("", String::as_str)).collect();
            let _ = writeln!(out, "{} \\\\", row.join(" & "));
        }
        out.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n");
    }
}

/// Each column's width at 10 pt: its widest cell or heading, without the gap.
fn column_widths(table: &PlainTable) -> Vec<f64> {
    let plain = |cell: &PlainCell| match cell {
        PlainCell::Text(text) => text_width_pt(text),
        PlainCell::Number(value) => match latex_scientific(*value) {
            // `$3.19 \times 10^{-5}$` is about as wide as ten digits.
            text if text.contains("times") => text_width_pt("3.19 x 10-55"),
            text => text_width_pt(&text.replace("$-$", "-")),
        },
        PlainCell::Integer(value) => text_width_pt(&value.to_string()),
    };
    (0..table.header.len())
        .map(|c| {
            let cells = table.rows.iter().filter_map(|row| row.get(c)).map(plain);
            cells.fold(table.header.get(c).map_or(0.0, |h| text_width_pt(h)), f64::max)
        })
        .collect()
}

/// The font size and the groups of non-key columns: every column in one table at the
/// largest size that fits; else as few groups as fit at 8 pt, the columns spread evenly
/// when the even groups fit too.
fn layout(widths: &[f64], keys: usize) -> (&'static str, Vec<Range<usize>>) {
    let fits = |range: Range<usize>, scale: f64| {
        let content: f64 = widths[..keys].iter().chain(&widths[range.clone()]).sum();
        scale * content + COLUMN_GAP_PT * (keys + range.len()) as f64 <= LINE_WIDTH_PT
    };
    let all = keys..widths.len();
    if let Some((size, _)) = SIZES.iter().find(|(_, scale)| fits(all.clone(), *scale)) {
        return (size, vec![all]);
    }
    let (size, scale) = SIZES[SIZES.len() - 1];
    let mut greedy = Vec::new();
    let mut start = keys;
    while start < widths.len() {
        let mut end = start + 1;
        while end < widths.len() && fits(start..end + 1, scale) {
            end += 1;
        }
        greedy.push(start..end);
        start = end;
    }
    let columns = widths.len() - keys;
    let count = greedy.len().max(1);
    let (base, extra) = (columns / count, columns % count);
    let mut even = Vec::with_capacity(count);
    let mut start = keys;
    for part in 0..count {
        let end = start + base + usize::from(part < extra);
        even.push(start..end);
        start = end;
    }
    if even.iter().all(|range| fits(range.clone(), scale)) {
        return (size, even);
    }
    (size, greedy)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(columns: usize) -> PlainTable {
        PlainTable {
            caption: "Agreement of a_b".into(),
            header: (0..columns).map(|c| format!("metric {c}")).collect(),
            key_columns: 1,
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
        // at 10 pt, 6 only at 8 pt; 20 make 4 tables of 5 or 4 columns, each with the key.
        let size = |columns: usize| layout(&column_widths(&table(columns)), 1);
        let one = |range: Range<usize>| Vec::from([range]);
        assert_eq!(size(5), ("", one(1..5)));
        assert_eq!(size(6), ("\\footnotesize\n", one(1..6)));
        let (font, parts) = size(20);
        assert_eq!(font, "\\footnotesize\n");
        assert_eq!(parts, vec![1..6, 6..11, 11..16, 16..20]);
        let mut out = String::new();
        plain_latex(&mut out, &super::super::tests::task_view("x"), &table(20), 1);
        assert_eq!(out.matches("\\begin{tabular}").count(), 4, "{out}");
        assert!(out.contains("Table 1 of x, continued (part 4 of 4)."), "{out}");
        assert!(out.contains("metric 0 & metric 16 & metric 17 & metric 18 & metric 19 \\\\"), "{out}");
    }
}
