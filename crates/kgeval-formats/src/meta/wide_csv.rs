//! The wide system × metric CSV: one row per system (per group), one column per metric, as
//! kgc-sparsity publishes its results (`evaluation.csv`, `pooling_depth.csv`,
//! `lp_per_rel_type.csv`, `lp_sample_rel_dist.csv`).
//!
//! Rules: a header is required; the first column names the system (whatever its heading);
//! the columns after it that are known grouping columns (`Depth`, `QuestionType`,
//! `RelationType`, `Side`, `Category`, `Relation`, `Group`, `Split`, `Level`, `Pair`, `Type`,
//! `Ratio`; any case) or whose values are labels (not numbers) in every row are the group keys (one
//! group per distinct combination: one per depth, one per side × relation category); every
//! later column is a metric, named canonically (`canonical_metric_name`) with the vocabulary's
//! direction (`*_mr` lower is better). Fields may be quoted (`"a,b"`, `""` for a quote); blank
//! lines are skipped. Errors at `FILE:LINE:COL`: an empty file, a header without a metric
//! column, a duplicate metric, a row with another number of fields, an empty system, a value
//! that is not a finite number, a system twice in one group.
//!
//! ```
//! use kgeval_formats::meta::wide_csv::read_wide_csv;
//! let csv = b"System,Depth,micro_mrr,micro_mr\nA,0,0.3,120\nB,0,0.2,150\nA,1,0.35,110\nB,1,0.4,90\n";
//! let table = read_wide_csv(csv, "pooling_depth.csv")?;
//! assert_eq!(table.group_columns, ["Depth"]);
//! assert_eq!(table.groups.len(), 2);
//! assert_eq!(table.groups[1].key.to_string(), "Depth=1");
//! assert_eq!(table.groups[1].value("B", 0), Some(0.4));
//! assert_eq!(table.metrics[1].info.direction.name(), "lower");
//! # Ok::<(), kgeval_formats::FormatError>(())
//! ```

use kgeval_model::meta::agreement::{GroupKey, SystemMetricTable};

use super::csv::{split_fields, Field};
use crate::error::utf8_text;
use crate::lines::{lines, Line};
use crate::FormatError;

/// Headings that are group keys even when their values are numbers (compared in lower case).
const GROUP_COLUMNS: [&str; 12] = [
    "depth",
    "questiontype",
    "relationtype",
    "side",
    "category",
    "relation",
    "group",
    "split",
    "level",
    "pair",
    "type",
    "ratio",
];

/// Reads a wide system × metric CSV into a [`SystemMetricTable`] (see the module rules).
///
/// # Errors
/// [`FormatError::Syntax`] at the offending line and column: empty input, no metric column,
/// a duplicate metric heading, a ragged row, an empty system name, a value that is not a
/// finite number, a system twice in one group, an unterminated quote; bytes that are not UTF-8.
pub fn read_wide_csv(input: &[u8], file: &str) -> Result<SystemMetricTable, FormatError> {
    let text = utf8_text(file, input)?;
    let mut rows = lines(text).filter(|line| !line.is_blank());
    let Some(header) = rows.next() else {
        return Err(FormatError::syntax(file, 1, 1, "found an empty file, expected a header System,<metric>,…"));
    };
    let headings = split_fields(file, header.number, header.text)?;
    let data: Vec<Line<'_>> = rows.collect();
    if data.is_empty() {
        return Err(FormatError::syntax(
            file,
            header.number + 1,
            1,
            "found no row after the header, expected one row per system",
        ));
    }
    let rows: Vec<Vec<Field>> =
        data.iter().map(|line| split_fields(file, line.number, line.text)).collect::<Result<_, _>>()?;
    let first = &rows[0];
    // A column of labels is a group column only when every row holds a label there: a number
    // in a later row makes it a metric column whose first value is wrong (an error below).
    let n_groups = headings
        .iter()
        .enumerate()
        .skip(1)
        .take_while(|(i, heading)| {
            GROUP_COLUMNS.contains(&heading.text.trim().to_ascii_lowercase().as_str())
                || first.get(*i).is_some_and(|f| is_label(&f.text))
                    && rows.iter().all(|row| row.get(*i).is_none_or(|f| is_label(&f.text)))
        })
        .count();
    if 1 + n_groups >= headings.len() {
        return Err(FormatError::syntax(
            file,
            header.number,
            1,
            format!(
                "found a header of {} columns and {n_groups} group column(s) with no metric column, expected a \
                 system column, optional group columns, then metric columns",
                headings.len()
            ),
        ));
    }
    let group_columns: Vec<String> = headings[1..=n_groups].iter().map(|f| f.text.trim().to_owned()).collect();
    let metric_headings: Vec<String> = headings[1 + n_groups..].iter().map(|f| f.text.trim().to_owned()).collect();
    let mut table = SystemMetricTable::new(file, group_columns, &metric_headings);
    for (i, metric) in table.metrics.iter().enumerate() {
        if metric.column.is_empty() {
            let column = headings[1 + n_groups + i].column;
            return Err(FormatError::syntax(
                file,
                header.number,
                column,
                "found an empty heading, expected a metric name",
            ));
        }
        if let Some(first) = table.metrics[..i].iter().find(|m| m.name == metric.name) {
            let column = headings[1 + n_groups + i].column;
            return Err(FormatError::syntax(
                file,
                header.number,
                column,
                format!(
                    "found the metric {} a second time (first as {}), expected distinct metrics",
                    crate::echo(&metric.column),
                    crate::echo(&first.column)
                ),
            ));
        }
    }
    // The line of each (group, system), for duplicate errors.
    let mut seen: Vec<(usize, Vec<u32>)> = Vec::new();
    for (line, fields) in data.iter().zip(rows) {
        if fields.len() != headings.len() {
            return Err(FormatError::syntax(
                file,
                line.number,
                fields.last().map_or(1, |f| f.column),
                format!("found {} fields, expected {} as in the header", fields.len(), headings.len()),
            ));
        }
        let system = fields[0].text.trim();
        if system.is_empty() {
            return Err(FormatError::syntax(file, line.number, 1, "found an empty system name, expected a system"));
        }
        let key = GroupKey(
            table
                .group_columns
                .iter()
                .zip(&fields[1..=n_groups])
                .map(|(c, f)| (c.clone(), f.text.trim().to_owned()))
                .collect(),
        );
        let mut values = Vec::with_capacity(table.metrics.len());
        for (metric, field) in table.metrics.iter().zip(&fields[1 + n_groups..]) {
            match parse_number(&field.text) {
                Some(value) => values.push(value),
                None => {
                    return Err(FormatError::syntax(
                        file,
                        line.number,
                        field.column,
                        format!(
                            "found {}, expected a finite number for metric {}",
                            crate::echo(field.text.trim()),
                            crate::echo(&metric.column)
                        ),
                    ))
                }
            }
        }
        let group_index = table.groups.iter().position(|g| g.key == key);
        if let Some(index) = group_index {
            if let Some(at) = table.groups[index].systems.iter().position(|s| s == system) {
                let first_line = seen.iter().find(|(g, _)| *g == index).map_or(0, |(_, lines)| lines[at]);
                return Err(FormatError::syntax(
                    file,
                    line.number,
                    fields[0].column,
                    format!(
                        "found the system {} a second time in group {} (first on line {first_line}), expected one row per system and group",
                        crate::echo(system),
                        crate::shorten(&key.to_string(), crate::MAX_ECHO)
                    ),
                ));
            }
        }
        table.push_row(key, system, values);
        let index = group_index.unwrap_or(table.groups.len() - 1);
        match seen.iter_mut().find(|(g, _)| *g == index) {
            Some((_, lines)) => lines.push(line.number),
            None => seen.push((index, vec![line.number])),
        }
    }
    Ok(table)
}

/// A finite number, or `None`.
fn parse_number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// A non-empty field that is not a number (`nan` and `inf` are numbers here): a group value.
fn is_label(text: &str) -> bool {
    let text = text.trim();
    !text.is_empty() && text.parse::<f64>().is_err()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(input: &str) -> String {
        read_wide_csv(input.as_bytes(), "t.csv").unwrap_err().to_string()
    }

    #[test]
    fn groups_by_side_and_category() {
        let csv = "System,QuestionType,RelationType,micro_mrr\nA,head,one_to_one,0.5\nA,tail,one_to_one,0.25\n\
                   B,head,one_to_one,0.75\n";
        let table = read_wide_csv(csv.as_bytes(), "t.csv").unwrap();
        assert_eq!(table.group_columns, ["QuestionType", "RelationType"]);
        let keys: Vec<String> = table.groups.iter().map(|g| g.key.to_string()).collect();
        assert_eq!(keys, ["QuestionType=head,RelationType=one_to_one", "QuestionType=tail,RelationType=one_to_one"]);
        assert_eq!(table.groups[0].systems, ["A", "B"]);
        assert_eq!(table.groups[0].column(0), [0.5, 0.75]);
    }

    #[test]
    fn ungrouped_quoted_and_canonical() {
        let csv = "\"System\",hits_at_10,\"micro_mr\"\r\n\"a,b\",1,2.5e2\r\n\r\nc,0,3\r\n";
        let table = read_wide_csv(csv.as_bytes(), "t.csv").unwrap();
        assert!(table.group_columns.is_empty());
        assert_eq!(table.metrics[0].name, "hits@10");
        assert_eq!(table.metrics[0].column, "hits_at_10");
        assert_eq!(table.find_metric("Hits@10"), Some(0));
        assert_eq!(table.groups[0].systems, ["a,b", "c"]);
        assert_eq!(table.groups[0].value("a,b", 1), Some(250.0));
    }

    /// A non-number in the first row turned a metric column into a group key (`map=x`), and
    /// the other rows' numbers became group values: now it is the bad value it is.
    #[test]
    fn a_non_number_in_the_first_row_of_a_metric_column_is_an_error() {
        assert_eq!(
            error("System,map,mrr\nA,x,0.5\nB,0.3,0.4\n"),
            "t.csv:2:3: found \"x\", expected a finite number for metric \"map\""
        );
        // A column of labels in every row is still a group column.
        let table = read_wide_csv(b"System,Model,map\nA,transe,0.5\nB,rotate,0.4\n", "t.csv").unwrap();
        assert_eq!(table.group_columns, ["Model"]);
    }

    #[test]
    fn bad_input_is_located() {
        assert_eq!(error(""), "t.csv:1:1: found an empty file, expected a header System,<metric>,…");
        assert!(error("System,map\n").starts_with("t.csv:2:1: found no row after the header"));
        assert!(error("System,map\nA,0.5,1\n").starts_with("t.csv:2:7: found 3 fields, expected 2"));
        assert_eq!(
            error("System,map,P_10\nA,0.5,x\n"),
            "t.csv:2:7: found \"x\", expected a finite number for metric \"P_10\""
        );
        assert!(error("System,map\nA,nan\n").starts_with("t.csv:2:3: found \"nan\""));
        assert!(error("System,Depth,map\nA,0,0.5\nB,0,1\nA,0,0.25\n")
            .starts_with("t.csv:4:1: found the system \"A\" a second time in group Depth=0 (first on line 2)"));
        // Another depth: not a duplicate.
        assert!(read_wide_csv(b"System,Depth,map\nA,0,0.5\nA,1,0.25\n", "t.csv").is_ok());
        assert!(
            error("System,Depth\nA,0\n").starts_with("t.csv:1:1: found a header of 2 columns and 1 group column(s)")
        );
        assert!(error("System,mrr,recip_rank\nA,1,1\n")
            .starts_with("t.csv:1:12: found the metric \"recip_rank\" a second time"));
        assert!(error("System,map\n\"A,0.5\n").starts_with("t.csv:2:1: found an unterminated quote"));
        assert!(error("System,map\n,0.5\n").starts_with("t.csv:2:1: found an empty system name"));
        assert!(error("System,,map\nA,1,2\n").starts_with("t.csv:1:8: found an empty heading"));
    }
}
