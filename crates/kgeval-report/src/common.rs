//! Pieces every family's renderer shares: diagnostics and the per-item table as JSON, CSV
//! quoting, pretty JSON text.

use kgeval_model::{Diagnostic, ScoreTable, Severity};
use serde_json::{json, Value};

/// A diagnostic as JSON: `{"severity", "code", "message", "location"}`.
pub(crate) fn diagnostic_json(d: &Diagnostic) -> Value {
    json!({
        "severity": match d.severity { Severity::Note => "note", Severity::Warning => "warning" },
        "code": d.code,
        "message": d.message,
        "location": d.location.as_ref().map(ToString::to_string),
    })
}

/// Every value of the per-item score table as `{"system", "item", "metric", "value"}`, in id
/// order.
pub(crate) fn per_item_json(table: &ScoreTable) -> Value {
    let rows: Vec<Value> = table
        .rows()
        .into_iter()
        .map(|(s, i, metric, v)| {
            json!({"system": table.system_name(s), "item": table.item_info(i).name, "metric": table.metric_name(metric), "value": v})
        })
        .collect();
    Value::Array(rows)
}

/// A CSV field, quoted when it holds a comma, a quote or a newline.
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// Pretty JSON with a final newline.
pub(crate) fn pretty(value: &Value) -> String {
    let mut s = serde_json::to_string_pretty(value).unwrap_or_default();
    s.push('\n');
    s
}
