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

/// A name or id from the input as plain text prints it: every control character (C0 — line
/// feed, tab, carriage return, escape … —, DEL, C1) and the Unicode line and paragraph
/// separators written as an escape (`\n`, `\t`, `\r`, `\u{1b}`), so no input can add a
/// line, shift a tab-separated column or send an escape sequence to a terminal. Every text
/// renderer passes the names and ids it prints through it (trec_eval's text, its `-q` lines,
/// the aligned tables of [`crate::Table::to_text`]); [`crate::escape_markdown`] does the same
/// for Markdown.
///
/// ```
/// use kgeval_report::text_field;
/// assert_eq!(text_field("FBIS3-10082"), "FBIS3-10082");
/// assert_eq!(text_field("x\nmap\tall\t0.9999"), "x\\nmap\\tall\\t0.9999");
/// assert_eq!(text_field("\x1b[31mred"), "\\u{1b}[31mred");
/// ```
#[must_use]
pub fn text_field(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_escape(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether [`text_field`] escapes `c`.
pub(crate) fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
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
