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

/// A CSV field: a text a spreadsheet would run as a formula — starting with `=`, `+`, `-`,
/// `@`, a tab or a carriage return — gets a leading `'` (a number such as `-0.5` or `+1e-3`
/// is left as it is), then the field is quoted when it holds a comma, a quote, a line feed
/// or a carriage return. Every CSV kgeval writes (the families' `--format csv`, the campaign
/// report's, `kgeval serve`'s leaderboard) writes its text fields with it.
///
/// ```
/// use kgeval_report::csv_field;
/// assert_eq!(csv_field("=HYPERLINK(\"http://x\",\"y\")"), "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
/// assert_eq!(csv_field("-0.25"), "-0.25");
/// assert_eq!(csv_field("@SUM(A1)"), "'@SUM(A1)");
/// assert_eq!(csv_field("run, tuned"), "\"run, tuned\"");
/// ```
#[must_use]
pub fn csv_field(s: &str) -> String {
    let defused;
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) && !is_number(s) {
        defused = format!("'{s}");
        defused.as_str()
    } else {
        s
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// Whether `s` is a decimal number (`-0.5`, `+1e-3`; not `inf` or `NaN`, which a spreadsheet
/// reads as names).
fn is_number(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
        && s.bytes().any(|b| b.is_ascii_digit())
        && s.parse::<f64>().is_ok()
}

/// Pretty JSON with a final newline.
pub(crate) fn pretty(value: &Value) -> String {
    let mut s = serde_json::to_string_pretty(value).unwrap_or_default();
    s.push('\n');
    s
}
