//! Number formatting.

/// The most decimals text, Markdown and the reports print: an f64 holds 17 significant digits,
/// so more would print noise (and the formatter refuses very large counts).
pub const MAX_PRECISION: usize = 17;

/// `value` with exactly `decimals` decimals (text and Markdown output), at most
/// [`MAX_PRECISION`].
///
/// ```
/// assert_eq!(kgeval_report::format_fixed(2.0 / 3.0, 4), "0.6667");
/// assert_eq!(kgeval_report::format_fixed(0.5, 65536), kgeval_report::format_fixed(0.5, 17));
/// ```
#[must_use]
pub fn format_fixed(value: f64, decimals: usize) -> String {
    let decimals = decimals.min(MAX_PRECISION);
    format!("{value:.decimals$}")
}

/// `text` quoted and cut to 40 characters, for a message.
fn kgeval_model_echo(text: &str) -> String {
    format!("{:?}", text.chars().take(40).collect::<String>())
}

/// A `--precision` value: 0 to [`MAX_PRECISION`].
///
/// # Errors
/// `found …, expected 0 to 17` for anything else.
pub fn parse_precision(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(p) if p <= MAX_PRECISION => Ok(p),
        _ => Err(format!("found {}, expected 0 to {MAX_PRECISION} decimals", kgeval_model_echo(text))),
    }
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
