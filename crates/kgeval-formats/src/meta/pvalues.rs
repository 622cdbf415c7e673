//! The p-value matrix of kgc-sparsity's `discriminative_power.csv`: one row per system pair,
//! `SystemA,SystemB,<metric>,<metric>,…`, each cell the p-value of that pair on that metric.
//!
//! The published files hold both orders of every pair (156 rows for 13 systems); a pair may
//! also appear in one order only. A mirrored row must carry the same p-values (relative
//! difference ≤ 1e-12) and is then dropped, so the result has one entry per unordered pair,
//! in order of first appearance. Every pair of the systems named must be present. Errors
//! (`FILE:LINE:COL`): an empty file, a header with fewer than three columns, an empty or
//! repeated metric heading (names compared canonically: `mrr` = `recip_rank`), a row with
//! another number of fields, an empty system name, a system paired with itself, a cell that is
//! not a number in [0, 1], the same ordered pair twice, an asymmetric mirror, a missing pair.
//!
//! ```
//! use kgeval_formats::meta::pvalues::read_pvalue_matrix;
//! let csv = b"SystemA,SystemB,mrr\nA,B,0.01\nB,A,0.01\nA,C,0.5\nB,C,0.2\n";
//! let matrix = read_pvalue_matrix(csv, "dp.csv")?;
//! assert_eq!(matrix.systems, ["A", "B", "C"]);
//! assert_eq!(matrix.pairs, [(0, 1), (0, 2), (1, 2)]);
//! assert_eq!(matrix.metric("mrr"), Some(&[0.01, 0.5, 0.2][..]));
//! # Ok::<(), kgeval_formats::FormatError>(())
//! ```

use std::collections::HashMap;

use kgeval_model::meta::significance::PValueMatrix;
use kgeval_model::metric_names::canonical_metric_name;

use crate::error::utf8_text;
use crate::lines::lines;
use crate::FormatError;

/// The fields of a plain comma-separated line with their 1-based columns (in characters).
fn fields(text: &str) -> Vec<(u32, &str)> {
    let mut out = Vec::new();
    let mut column = 1u32;
    for field in text.split(',') {
        out.push((column, field.trim()));
        column += field.chars().count() as u32 + 1;
    }
    out
}

/// Reads a p-value matrix (see the module documentation).
///
/// # Errors
/// [`FormatError::Syntax`] at the offending line and column.
pub fn read_pvalue_matrix(input: &[u8], file: &str) -> Result<PValueMatrix, FormatError> {
    let text = utf8_text(file, input)?;
    let mut rows = lines(text).filter(|line| !line.is_blank());
    let Some(header) = rows.next() else {
        return Err(FormatError::syntax(
            file,
            1,
            1,
            "found an empty file, expected a header SystemA,SystemB,<metric>…",
        ));
    };
    let names = fields(header.text);
    if names.len() < 3 {
        return Err(FormatError::syntax(
            file,
            header.number,
            1,
            format!("found {} column(s), expected SystemA,SystemB and at least one metric", names.len()),
        ));
    }
    let metrics: Vec<String> = names[2..].iter().map(|(_, name)| (*name).to_owned()).collect();
    let mut first_column: HashMap<String, u32> = HashMap::new();
    for &(column, name) in &names[2..] {
        if name.is_empty() {
            return Err(FormatError::syntax(
                file,
                header.number,
                column,
                "found an empty heading, expected a metric name",
            ));
        }
        if let Some(first) = first_column.insert(canonical_metric_name(name).into_owned(), column) {
            return Err(FormatError::syntax(
                file,
                header.number,
                column,
                format!(
                    "found the metric {} a second time (first in column {first}), expected distinct metrics",
                    crate::echo(name)
                ),
            ));
        }
    }
    let mut systems: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut p_values: Vec<Vec<f64>> = vec![Vec::new(); metrics.len()];
    // (first, second) in file order → the pair's index and whether this order was seen.
    let mut seen: HashMap<(usize, usize), usize> = HashMap::new();
    let mut last_line = header.number;
    for line in rows {
        last_line = line.number;
        let cells = fields(line.text);
        if cells.len() != names.len() {
            return Err(FormatError::syntax(
                file,
                line.number,
                1,
                format!("found {} fields, expected {} as in the header", cells.len(), names.len()),
            ));
        }
        let mut ids = [0usize; 2];
        for (slot, &(column, name)) in ids.iter_mut().zip(&cells[..2]) {
            if name.is_empty() {
                return Err(FormatError::syntax(
                    file,
                    line.number,
                    column,
                    "found an empty system name, expected a name",
                ));
            }
            *slot = *index.entry(name.to_owned()).or_insert_with(|| {
                systems.push(name.to_owned());
                systems.len() - 1
            });
        }
        let [first, second] = ids;
        if first == second {
            return Err(FormatError::syntax(
                file,
                line.number,
                cells[1].0,
                format!("found system {} paired with itself, expected two different systems", crate::echo(cells[0].1)),
            ));
        }
        let mut values = Vec::with_capacity(metrics.len());
        for &(column, cell) in &cells[2..] {
            match cell.parse::<f64>() {
                Ok(p) if (0.0..=1.0).contains(&p) => values.push(p),
                _ => {
                    return Err(FormatError::syntax(
                        file,
                        line.number,
                        column,
                        format!("found {}, expected a p-value (a number from 0 to 1)", crate::echo(cell)),
                    ))
                }
            }
        }
        if seen.contains_key(&(first, second)) {
            return Err(FormatError::syntax(
                file,
                line.number,
                1,
                format!(
                    "found the pair {},{} a second time, expected each ordered pair once",
                    crate::echo(cells[0].1),
                    crate::echo(cells[1].1)
                ),
            ));
        }
        if let Some(&pair) = seen.get(&(second, first)) {
            for (m, (&(column, _), value)) in cells[2..].iter().zip(&values).enumerate() {
                let mirror = p_values[m][pair];
                if (mirror - value).abs() > 1e-12 * mirror.abs().max(value.abs()) {
                    return Err(FormatError::syntax(
                        file,
                        line.number,
                        column,
                        format!(
                            "found {value} for {} on {},{}, expected {mirror} as for {},{} (the matrix is symmetric)",
                            crate::echo(&metrics[m]),
                            crate::echo(cells[0].1),
                            crate::echo(cells[1].1),
                            crate::echo(cells[1].1),
                            crate::echo(cells[0].1)
                        ),
                    ));
                }
            }
            seen.insert((first, second), pair);
            continue;
        }
        seen.insert((first, second), pairs.len());
        pairs.push((first.min(second), first.max(second)));
        for (column, value) in p_values.iter_mut().zip(values) {
            column.push(value);
        }
    }
    let k = systems.len();
    if pairs.len() != k * k.saturating_sub(1) / 2 {
        let missing = (0..k)
            .flat_map(|a| (a + 1..k).map(move |b| (a, b)))
            .find(|&(a, b)| !seen.contains_key(&(a, b)) && !seen.contains_key(&(b, a)))
            .map_or_else(String::new, |(a, b)| {
                format!(" (first: {},{})", crate::echo(&systems[a]), crate::echo(&systems[b]))
            });
        return Err(FormatError::syntax(
            file,
            last_line,
            1,
            format!(
                "found {} system pairs among {k} systems, expected all {}{missing}",
                pairs.len(),
                k * k.saturating_sub(1) / 2
            ),
        ));
    }
    Ok(PValueMatrix { systems, metrics, pairs, p_values })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(input: &str) -> String {
        read_pvalue_matrix(input.as_bytes(), "dp.csv").unwrap_err().to_string()
    }

    #[test]
    fn keeps_unique_pairs_in_first_order() {
        let m = read_pvalue_matrix(b"SystemA,SystemB,x,y\nB,A,0.1,1\nA,B,0.1,1\n\nC,A,0,0.5\nC,B,1e-30,0.25\n", "f")
            .unwrap();
        assert_eq!(m.systems, ["B", "A", "C"]);
        assert_eq!(m.metrics, ["x", "y"]);
        assert_eq!(m.pairs, [(0, 1), (1, 2), (0, 2)]);
        assert_eq!(m.p_values, vec![vec![0.1, 0.0, 1e-30], vec![1.0, 0.5, 0.25]]);
        assert_eq!(m.metric("z"), None);
    }

    /// 600 systems without their last pair: the missing pair was searched with a linear
    /// `contains` per pair (179,700²/2 comparisons, minutes); now one lookup each.
    #[test]
    fn a_missing_pair_among_many_systems_is_found_fast() {
        let k = 600;
        let mut csv = String::from("SystemA,SystemB,mrr\n");
        for a in 0..k {
            for b in a + 1..k {
                if (a, b) != (k - 2, k - 1) {
                    csv.push_str(&format!("s{a},s{b},0.5\n"));
                }
            }
        }
        let message = error(&csv);
        assert!(
            message.ends_with(
                "found 179699 system pairs among 600 systems, expected all 179700 (first: \"s598\",\"s599\")"
            ),
            "{message}"
        );
    }

    /// Two `mrr` columns: the second was shadowed by the first (both printed the first's values).
    #[test]
    fn a_duplicate_metric_column_is_an_error() {
        assert_eq!(
            error("SystemA,SystemB,mrr,hits@1,mrr\nA,B,0.5,0.1,0.9\n"),
            "dp.csv:1:28: found the metric \"mrr\" a second time (first in column 17), expected distinct metrics"
        );
        assert!(error("SystemA,SystemB,mrr,\nA,B,0.5,0.1\n").starts_with("dp.csv:1:21: found an empty heading"));
    }

    #[test]
    fn bad_input_is_located() {
        assert_eq!(error(""), "dp.csv:1:1: found an empty file, expected a header SystemA,SystemB,<metric>…");
        assert!(error("a,b\nA,B\n").starts_with("dp.csv:1:1: found 2 column(s)"));
        assert!(error("a,b,m\nA,B\n").starts_with("dp.csv:2:1: found 2 fields, expected 3"));
        assert!(error("a,b,m\nA,B,x\n").starts_with("dp.csv:2:5: found \"x\", expected a p-value"));
        assert!(error("a,b,m\nA,B,1.5\n").starts_with("dp.csv:2:5: found \"1.5\""));
        assert!(error("a,b,m\nA,B,NaN\n").starts_with("dp.csv:2:5: found \"NaN\""));
        assert!(error("a,b,m\nA,A,0.5\n").starts_with("dp.csv:2:3: found system \"A\" paired with itself"));
        assert!(error("a,b,m\nA,,0.5\n").starts_with("dp.csv:2:3: found an empty system name"));
        assert!(error("a,b,m\nA,B,0.5\nA,B,0.5\n").starts_with("dp.csv:3:1: found the pair \"A\",\"B\" a second time"));
        assert_eq!(
            error("a,b,m\nA,B,0.5\nB,A,0.25\n"),
            "dp.csv:3:5: found 0.25 for \"m\" on \"B\",\"A\", expected 0.5 as for \"A\",\"B\" (the matrix is symmetric)"
        );
        assert_eq!(
            error("a,b,m\nA,B,0.5\nA,C,0.25\n"),
            "dp.csv:3:1: found 2 system pairs among 3 systems, expected all 3 (first: \"B\",\"C\")"
        );
    }
}
