//! Measures (confidences) as every alignment reader reads them.

use kgeval_model::{Diagnostic, Location};

/// The code of the warning for a measure outside [0, 1].
pub(crate) const OUT_OF_RANGE: &str = "measure-out-of-range";

/// A trimmed measure token as a finite number, or `None` (not a number, NaN, infinite).
pub(crate) fn measure_value(token: &str) -> Option<f64> {
    token.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Whether a measure lies outside [0, 1] (accepted, but warned about).
pub(crate) fn is_out_of_range(value: f64) -> bool {
    !(0.0..=1.0).contains(&value)
}

/// The warning for a measure outside [0, 1]; `subject` names it (`measure 1.5`,
/// `confidence 1.5`, `measure 1.5 of cell <c>`).
pub(crate) fn out_of_range_warning(subject: &str, location: Location) -> Diagnostic {
    Diagnostic::warning(OUT_OF_RANGE, format!("{subject} is outside [0, 1]; kept as is")).at(location)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        assert_eq!(measure_value("1."), Some(1.0));
        assert_eq!(measure_value("1e-1"), Some(0.1));
        assert_eq!(measure_value("NaN"), None);
        assert_eq!(measure_value("inf"), None);
        assert!(is_out_of_range(1.5) && is_out_of_range(-0.1) && !is_out_of_range(1.0));
    }
}
