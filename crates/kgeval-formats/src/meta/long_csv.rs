//! The long CSV score table: one `system,item,metric,value` row per value.
//!
//! A header is required; it names the four columns (any case, any order); further columns are
//! the item's grouping keys (`relation`, `side`, …). Fields may be quoted (`"a,b"`, `""` for a
//! quote); a heading may appear once (any case). Metric names become canonical ([`canonical_metric_name`]) with the vocabulary's
//! direction. A value that is not a number, a row with the wrong number of fields and two
//! different values for one (system, item, metric) are errors at their line and column.
//!
//! ```
//! use kgeval_formats::meta::long_csv::read_long_csv;
//! let csv = b"system,item,metric,value\nA,q1,map,0.5\nA,q2,map,1\nB,q1,map,0.25\n";
//! let table = read_long_csv(csv, "scores.csv")?;
//! let (a, _, map) = table.find("A", "q1", "map").unwrap();
//! assert_eq!(table.mean(a, map), Some(0.75));
//! # Ok::<(), kgeval_formats::FormatError>(())
//! ```

use std::collections::HashMap;

use kgeval_model::metric_names::canonical_metric_name;
use kgeval_model::ScoreTable;

use super::csv::split_fields;
use crate::error::utf8_text;
use crate::lines::lines;
use crate::FormatError;

/// The four required columns, in the order the error message lists them.
const REQUIRED: [&str; 4] = ["system", "item", "metric", "value"];

/// Reads a long CSV (`system,item,metric,value` header, one value per row) into a table.
///
/// # Errors
/// [`FormatError::Syntax`] for an empty input, a header without the four columns, a row with
/// another number of fields, an empty system / item / metric, a value that is not a number, or
/// a second, different value for the same (system, item, metric).
pub fn read_long_csv(input: &[u8], file: &str) -> Result<ScoreTable, FormatError> {
    let text = utf8_text(file, input)?;
    let mut rows = lines(text).filter(|line| !line.is_blank());
    let Some(header) = rows.next() else {
        return Err(FormatError::syntax(file, 1, 1, "found an empty file, expected a header system,item,metric,value"));
    };
    let headings = split_fields(file, header.number, header.text)?;
    let mut first_column: HashMap<String, u32> = HashMap::with_capacity(headings.len());
    for heading in &headings {
        let name = heading.text.trim();
        if let Some(first) = first_column.insert(name.to_lowercase(), heading.column) {
            return Err(FormatError::syntax(
                file,
                header.number,
                heading.column,
                format!(
                    "found the column {} a second time (first in column {first}), expected distinct columns",
                    crate::echo(name)
                ),
            ));
        }
    }
    let names: Vec<String> = headings.into_iter().map(|field| field.text).collect();
    let mut columns = [usize::MAX; 4];
    for (slot, wanted) in columns.iter_mut().zip(REQUIRED) {
        if let Some(at) = names.iter().position(|n| n.trim().eq_ignore_ascii_case(wanted)) {
            *slot = at;
        }
    }
    if let Some(missing) = columns.iter().zip(REQUIRED).find(|(slot, _)| **slot == usize::MAX).map(|(_, w)| w) {
        return Err(FormatError::syntax(
            file,
            header.number,
            1,
            format!(
                "found a header of {} columns without `{missing}`, expected the columns system,item,metric,value",
                names.len()
            ),
        ));
    }
    let groups: Vec<(usize, &str)> =
        names.iter().enumerate().filter(|(i, _)| !columns.contains(i)).map(|(i, n)| (i, n.trim())).collect();
    let mut table = ScoreTable::new();
    for line in rows {
        let fields = split_csv(file, line.number, line.text)?;
        if fields.len() != names.len() {
            return Err(FormatError::syntax(
                file,
                line.number,
                1,
                format!("found {} fields, expected {} as in the header", fields.len(), names.len()),
            ));
        }
        let field = |i: usize| fields[columns[i]].trim();
        for (i, what) in REQUIRED.iter().enumerate().take(3) {
            if field(i).is_empty() {
                return Err(FormatError::syntax(
                    file,
                    line.number,
                    column_of(line.text, columns[i]),
                    format!("found an empty {what}, expected a name"),
                ));
            }
        }
        let value: f64 = field(3).parse().map_err(|_| {
            FormatError::syntax(
                file,
                line.number,
                column_of(line.text, columns[3]),
                format!("found value {}, expected a number", crate::echo(field(3))),
            )
        })?;
        let item_groups: Vec<(&str, &str)> = groups.iter().map(|&(i, key)| (key, fields[i].trim())).collect();
        let s = table.system(field(0));
        let i = table.item(field(1), &item_groups);
        let m = table.metric(&canonical_metric_name(field(2)));
        if let Some(old) = table.get(s, i, m) {
            if old.to_bits() != value.to_bits() {
                return Err(FormatError::syntax(
                    file,
                    line.number,
                    1,
                    format!(
                        "found a second value {value} for system {}, item {}, metric {} (first {old}), expected one",
                        crate::echo(field(0)),
                        crate::echo(field(1)),
                        crate::echo(field(2))
                    ),
                ));
            }
        }
        table.set(s, i, m, value);
    }
    Ok(table)
}

/// The texts of one CSV line's fields.
pub(crate) fn split_csv(file: &str, number: u32, text: &str) -> Result<Vec<String>, FormatError> {
    Ok(split_fields(file, number, text)?.into_iter().map(|field| field.text).collect())
}

/// The 1-based character column where field `index` starts (unquoted counting; for errors).
fn column_of(line: &str, index: usize) -> u32 {
    let mut seen = 0;
    for (at, c) in line.char_indices() {
        if seen == index {
            return line[..at].chars().count() as u32 + 1;
        }
        if c == ',' {
            seen += 1;
        }
    }
    if seen == index {
        line.chars().count() as u32 + 1
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_groups_and_canonical_names() {
        let csv =
            b"Metric,System,Item,Value,relation\nrr,A,q1,0.5,r1\nhits_at_10,A,q1,1,r1\n\"rr\",\"B, Inc\",q1,0.25,r1\n";
        let table = read_long_csv(csv, "x.csv").unwrap();
        assert_eq!(table.systems().collect::<Vec<_>>(), ["A", "B, Inc"]);
        assert_eq!(table.metrics().collect::<Vec<_>>(), ["recip_rank", "hits@10"]);
        let (b, q1, rr) = table.find("B, Inc", "q1", "recip_rank").unwrap();
        assert_eq!(table.get(b, q1, rr), Some(0.25));
        assert_eq!(table.item_info(q1).group("relation"), Some("r1"));
    }

    #[test]
    fn bad_input_is_located() {
        let error = |csv: &[u8]| read_long_csv(csv, "x.csv").unwrap_err().to_string();
        assert_eq!(error(b""), "x.csv:1:1: found an empty file, expected a header system,item,metric,value");
        assert!(error(b"system,item,value\n").starts_with("x.csv:1:1: found a header of 3 columns without `metric`"));
        assert_eq!(
            error(b"system,item,metric,value\nA,q1,map\n"),
            "x.csv:2:1: found 3 fields, expected 4 as in the header"
        );
        assert_eq!(
            error(b"system,item,metric,value\nA,q1,map,high\n"),
            "x.csv:2:10: found value \"high\", expected a number"
        );
        assert_eq!(error(b"system,item,metric,value\nA,,map,1\n"), "x.csv:2:3: found an empty item, expected a name");
        assert!(error(b"system,item,metric,value\nA,q1,map,1\nA,q1,map,2\n").contains("second value 2"));
        assert_eq!(
            error(b"system,item,metric,value\n\"A,q1,map,1\n"),
            "x.csv:2:1: found an unterminated quote, expected a closing \""
        );
    }

    /// A second `system` column became a grouping key; any repeated heading is an error.
    #[test]
    fn a_repeated_column_is_an_error() {
        let error = |csv: &[u8]| read_long_csv(csv, "x.csv").unwrap_err().to_string();
        assert_eq!(
            error(b"system,item,metric,value,System\nA,q1,map,1,B\n"),
            "x.csv:1:26: found the column \"System\" a second time (first in column 1), expected distinct columns"
        );
        assert!(error(b"system,item,metric,value,side,side\nA,q1,map,1,h,t\n")
            .starts_with("x.csv:1:31: found the column \"side\""));
    }

    #[test]
    fn split_handles_quotes() {
        assert_eq!(split_csv("t.csv", 1, "a,\"b,c\",\"d\"\"e\",").unwrap(), ["a", "b,c", "d\"e", ""]);
    }
}
