//! Quantities in words a reader takes in at a glance: sizes in decimal units.

/// A number of bytes in decimal units, to three significant digits: `512 bytes`, `10 MB`,
/// `1.25 GB`.
///
/// ```
/// use kgeval_server::units::size;
/// assert_eq!(size(512), "512 bytes");
/// assert_eq!(size(10_000_000), "10 MB");
/// assert_eq!(size(1_250_000_000), "1.25 GB");
/// assert_eq!(size(64 << 20), "67.1 MB");
/// assert_eq!(size(999_999), "1000 kB");
/// ```
#[must_use]
#[allow(clippy::cast_precision_loss)] // three digits shown
pub fn size(bytes: u64) -> String {
    let units = [(1e9, "GB"), (1e6, "MB"), (1e3, "kB")];
    let Some(&(scale, unit)) = units.iter().find(|(scale, _)| bytes as f64 >= *scale) else {
        return format!("{bytes} bytes");
    };
    let value = bytes as f64 / scale;
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    let text = format!("{value:.decimals$}");
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
    format!("{text} {unit}")
}
