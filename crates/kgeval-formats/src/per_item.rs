//! Reading `--per-item` JSON back into a [`ScoreTable`] (meta-evaluation's input).
//!
//! Every family's JSON result with `--per-item` holds one or more `per_item` arrays of
//! `{"system", "item", "metric", "value"}` rows: at the top level (`kgeval trec`) or inside
//! each object of `systems` (`kgeval align`, `qald`, `kgc`, `lexicon`). The reader collects
//! every such array, wherever it is, into one table: systems, items and metrics in first-seen
//! order, metric names canonical ([`canonical_metric_name`]: `rr` → `recip_rank`,
//! `hits_at_10` → `hits@10`) with the vocabulary's [`MetricInfo`](kgeval_model::MetricInfo).
//! The rows carry neither the items' grouping keys nor the headlines, so the table read back
//! has values only.
//!
//! ```
//! use kgeval_formats::per_item::read_per_item;
//! let json = br#"{"systems": [{"system": "A", "per_item": [
//!     {"system": "A", "item": "q1", "metric": "rr", "value": 0.5},
//!     {"system": "A", "item": "q2", "metric": "rr", "value": 1.0}]}]}"#;
//! let table = read_per_item(json, "a.json")?;
//! let (a, _, rr) = table.find("A", "q1", "recip_rank").unwrap();
//! assert_eq!(table.mean(a, rr), Some(0.75));
//! # Ok::<(), kgeval_formats::FormatError>(())
//! ```

use kgeval_model::metric_names::canonical_metric_name;
use kgeval_model::ScoreTable;
use serde_json::Value;

use crate::FormatError;

/// Reads every `per_item` array of a kgeval JSON result into one table.
///
/// # Errors
/// [`FormatError::Syntax`] when the bytes are not JSON (at the parser's line and column), when
/// no `per_item` array is found (the result was written without `--per-item`), when a row lacks
/// a string `system`, `item` or `metric` or a numeric `value` (named by its index), or when the
/// same (system, item, metric) holds two different values.
pub fn read_per_item(input: &[u8], file: &str) -> Result<ScoreTable, FormatError> {
    let root: Value = serde_json::from_slice(input).map_err(|e| {
        FormatError::syntax(file, e.line().max(1) as u32, e.column().max(1) as u32, format!("found invalid JSON ({e})"))
    })?;
    let mut arrays = Vec::new();
    collect_per_item(&root, &mut arrays);
    if arrays.is_empty() {
        return Err(FormatError::syntax(
            file,
            1,
            1,
            "found no `per_item` array, expected a kgeval JSON result written with --per-item",
        ));
    }
    let mut table = ScoreTable::new();
    let mut row_index = 0usize;
    for rows in arrays {
        for row in rows {
            row_index += 1;
            let field = |key: &str| row.get(key).and_then(Value::as_str);
            let (Some(system), Some(item), Some(metric)) = (field("system"), field("item"), field("metric")) else {
                return Err(FormatError::syntax(
                    file,
                    1,
                    1,
                    format!("per_item row {row_index}: found {row}, expected string `system`, `item` and `metric`"),
                ));
            };
            let value = match row.get("value") {
                Some(Value::Number(n)) => n.as_f64(),
                // serde_json writes non-finite floats as null.
                Some(Value::Null) => Some(f64::NAN),
                _ => None,
            };
            let Some(value) = value else {
                return Err(FormatError::syntax(
                    file,
                    1,
                    1,
                    format!("per_item row {row_index}: found {row}, expected a numeric `value`"),
                ));
            };
            let s = table.system(system);
            let i = table.item(item, &[]);
            let m = table.metric(&canonical_metric_name(metric));
            if let Some(old) = table.get(s, i, m) {
                if old.to_bits() != value.to_bits() {
                    return Err(FormatError::syntax(
                        file,
                        1,
                        1,
                        format!(
                            "per_item row {row_index}: found a second value {value} for system {system:?}, item {item:?}, metric {metric:?} (first {old}), expected one"
                        ),
                    ));
                }
            }
            table.set(s, i, m, value);
        }
    }
    Ok(table)
}

/// Every array under a `per_item` key, depth first in document order.
fn collect_per_item<'a>(value: &'a Value, out: &mut Vec<&'a Vec<Value>>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                match child {
                    Value::Array(rows) if key == "per_item" => out.push(rows),
                    _ => collect_per_item(child, out),
                }
            }
        }
        Value::Array(items) => {
            for child in items {
                collect_per_item(child, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_and_nested_arrays_and_errors() {
        let trec = br#"{"runs": [], "per_item": [{"system": "r", "item": "401", "metric": "map", "value": 0.25}]}"#;
        let table = read_per_item(trec, "t.json").unwrap();
        assert_eq!((table.len(), table.metrics().collect::<Vec<_>>()), (1, vec!["map"]));
        let nested = br#"{"systems": [
            {"per_item": [{"system": "A", "item": "q", "metric": "hits_at_1", "value": 1}]},
            {"per_item": [{"system": "B", "item": "q", "metric": "hits_at_1", "value": 0}]}]}"#;
        let table = read_per_item(nested, "n.json").unwrap();
        assert_eq!(table.systems().collect::<Vec<_>>(), ["A", "B"]);
        assert_eq!(table.metrics().collect::<Vec<_>>(), ["hits@1"]);
        let none = read_per_item(br#"{"systems": []}"#, "x.json").unwrap_err();
        assert!(none.to_string().starts_with("x.json:1:1: found no `per_item` array"), "{none}");
        let bad = read_per_item(b"{\n  \"per_item\": [\n", "b.json").unwrap_err();
        assert!(bad.to_string().starts_with("b.json:3:"), "{bad}");
        let row = read_per_item(br#"{"per_item": [{"system": "A", "item": "q", "value": 1}]}"#, "r.json").unwrap_err();
        assert!(row.to_string().contains("per_item row 1"), "{row}");
        let twice = br#"{"per_item": [{"system": "A", "item": "q", "metric": "f1", "value": 1},
                                      {"system": "A", "item": "q", "metric": "f1", "value": 0.5}]}"#;
        assert!(read_per_item(twice, "d.json").unwrap_err().to_string().contains("second value"));
    }
}
