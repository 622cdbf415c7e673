//! Number formatting.

/// `value` with exactly `decimals` decimals (text and Markdown output).
///
/// ```
/// assert_eq!(kgeval_report::format_fixed(2.0 / 3.0, 4), "0.6667");
/// ```
#[must_use]
pub fn format_fixed(value: f64, decimals: usize) -> String {
    format!("{value:.decimals$}")
}

/// `value` as Java's `Double.toString` prints it for the values MELT writes: the shortest
/// round-trip digits, with `.0` on integral values (`1.0`, `0.0`), so that our CSV matches
/// MELT's `performance.csv` byte for byte.
///
/// ```
/// use kgeval_report::format_java_double;
/// assert_eq!(format_java_double(1.0), "1.0");
/// assert_eq!(format_java_double(2.0 / 3.0), "0.6666666666666666");
/// ```
#[must_use]
pub fn format_java_double(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    let s = value.to_string();
    if value.is_finite() && !s.contains(['.', 'e', 'E']) {
        format!("{s}.0")
    } else {
        s
    }
}
