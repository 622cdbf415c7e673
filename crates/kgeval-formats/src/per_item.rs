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
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::FormatError;

/// Reads every `per_item` array of a kgeval JSON result into one table.
///
/// # Errors
/// [`FormatError::Syntax`] when the bytes are not JSON (at the parser's line and column), when
/// no `per_item` array is found (the result was written without `--per-item`), when a row lacks
/// a string `system`, `item` or `metric` or a numeric `value` (named by its index), or when the
/// same (system, item, metric) holds two different values; a key repeated in one object (at
/// its line and column); an empty system, item or metric name.
pub fn read_per_item(input: &[u8], file: &str) -> Result<ScoreTable, FormatError> {
    let root = serde_json::from_slice::<Strict>(input)
        .map_err(|e| {
            let (line, column) = (e.line().max(1) as u32, e.column().max(1) as u32);
            if e.classify() == serde_json::error::Category::Data {
                // Our own message (a repeated key), without serde_json's position suffix.
                let text = e.to_string();
                let suffix = format!(" at line {} column {}", e.line(), e.column());
                FormatError::syntax(file, line, column, text.strip_suffix(&suffix).unwrap_or(&text).to_owned())
            } else {
                FormatError::syntax(file, line, column, format!("found invalid JSON ({e})"))
            }
        })?
        .0;
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
                    format!(
                        "per_item row {row_index}: found {}, expected string `system`, `item` and `metric`",
                        crate::echo(&row.to_string())
                    ),
                ));
            };
            for (key, name) in [("system", system), ("item", item), ("metric", metric)] {
                if name.trim().is_empty() {
                    return Err(FormatError::syntax(
                        file,
                        1,
                        1,
                        format!("per_item row {row_index}: found an empty `{key}`, expected a name"),
                    ));
                }
            }
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
                    format!(
                        "per_item row {row_index}: found {}, expected a numeric `value`",
                        crate::echo(&row.to_string())
                    ),
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
                            "per_item row {row_index}: found a second value {value} for system {}, item {}, metric {} (first {old}), expected one",
                            crate::echo(system),
                            crate::echo(item),
                            crate::echo(metric)
                        ),
                    ));
                }
            }
            table.set(s, i, m, value);
        }
    }
    Ok(table)
}

/// A JSON value read with every object's keys distinct: serde_json's own `Value` keeps the
/// last of a repeated key, which silently replaced a row's value (or a whole `per_item` array).
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

/// Builds a [`Value`] like serde_json's, refusing a key seen before in the same object.
struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "found the key {} a second time in one object, expected distinct keys",
                    crate::echo(&key)
                )));
            }
            let Strict(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
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

    /// A repeated key was read as its last value (serde_json's map): a row's `value` given
    /// twice, or a `per_item` array twice in one object, silently changed the means.
    #[test]
    fn a_repeated_key_is_an_error_at_its_place() {
        let row = b"{\"per_item\": [\n  {\"system\": \"A\", \"item\": \"q\", \"metric\": \"f1\", \"value\": 0.1, \"value\": 0.9}]}";
        let error = read_per_item(row, "k.json").unwrap_err().to_string();
        assert_eq!(error, "k.json:2:68: found the key \"value\" a second time in one object, expected distinct keys");
        let arrays = br#"{"per_item": [], "per_item": []}"#;
        let error = read_per_item(arrays, "k.json").unwrap_err().to_string();
        assert!(error.starts_with("k.json:1:") && error.contains("\"per_item\" a second time"), "{error}");
    }

    /// Empty names were taken as a system (and item, metric) called "".
    #[test]
    fn empty_names_are_errors_and_rows_are_not_echoed_whole() {
        for key in ["system", "item", "metric"] {
            let mut row = serde_json::json!({"system": "A", "item": "q", "metric": "f1", "value": 0.5});
            row[key] = serde_json::json!(" ");
            let json = serde_json::json!({ "per_item": [row] }).to_string();
            let error = read_per_item(json.as_bytes(), "e.json").unwrap_err().to_string();
            assert_eq!(error, format!("e.json:1:1: per_item row 1: found an empty `{key}`, expected a name"));
        }
        let long = "x".repeat(500);
        let json = format!(r#"{{"per_item": [{{"system": "{long}", "item": "q", "value": 1}}]}}"#);
        let error = read_per_item(json.as_bytes(), "e.json").unwrap_err().to_string();
        assert!(!error.contains(&long) && error.len() < 300, "{error}");
    }
}
