//! Which options a comparison reads, and the range of each: decided here once, so that the
//! CLI and the manifests refuse an option that would be ignored or is out of range, before
//! any work, each with its own words (a flag, or a manifest's `FILE:LINE:COL`).

use super::CompareTask;

/// What a comparison computes; it decides which options are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareMode {
    /// A paired significance test between every two systems (the default).
    Significance,
    /// The agreement of two system orderings (`against`).
    Agreement,
    /// Data sensitivity: the ordering on subsets of the items (`sensitivity`).
    Sensitivity,
    /// The discriminative power of published p-value matrices (`pvalues`).
    PublishedPower,
}

impl CompareMode {
    /// The options (manifest keys) this mode reads; inputs aside.
    #[must_use]
    pub fn options(self) -> &'static [&'static str] {
        match self {
            CompareMode::Significance => &[
                "metrics",
                "test",
                "correction",
                "alpha",
                "iterations",
                "seed",
                "intervals",
                "missing",
                "input_format",
            ],
            CompareMode::Agreement => &["metrics", "tau", "rbo_p", "missing", "input_format"],
            CompareMode::Sensitivity => &["metrics", "tau", "ratios", "repeats", "seed", "missing", "input_format"],
            CompareMode::PublishedPower => &["metrics", "alpha"],
        }
    }

    /// How the mode is asked for, for messages.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            CompareMode::Significance => "a significance test",
            CompareMode::Agreement => "the agreement of two orderings (against)",
            CompareMode::Sensitivity => "data sensitivity (sensitivity)",
            CompareMode::PublishedPower => "the power of published p-values (pvalues)",
        }
    }
}

/// Every option of a comparison (manifest keys), inputs aside.
pub const COMPARE_OPTIONS: [&str; 13] = [
    "metrics",
    "test",
    "correction",
    "alpha",
    "iterations",
    "seed",
    "intervals",
    "tau",
    "rbo_p",
    "missing",
    "input_format",
    "ratios",
    "repeats",
];

/// The largest number of iterations B of a randomised test or of the intervals: 10^7 draws
/// (about 80 MB of statistics for Tukey HSD).
pub const MAX_ITERATIONS: usize = 10_000_000;
/// The largest number of random subsets per ratio of a sensitivity curve.
pub const MAX_REPEATS: usize = 100_000;
/// The largest number of subset ratios of a sensitivity curve.
pub const MAX_RATIOS: usize = 1_000;
/// The smallest rank-biased-overlap persistence p (and 1 − p is at least this too): below
/// it, RBO's weights underflow.
pub const MIN_RBO_P: f64 = 1e-6;

/// An option out of its range: its manifest key and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionError {
    /// The option's manifest key (`alpha`, `iterations`, …).
    pub key: &'static str,
    /// `found …, expected …`.
    pub message: String,
}

impl CompareTask {
    /// What this comparison computes.
    #[must_use]
    pub fn mode(&self) -> CompareMode {
        if !self.pvalues.is_empty() {
            CompareMode::PublishedPower
        } else if self.sensitivity {
            CompareMode::Sensitivity
        } else if !self.against.is_empty() {
            CompareMode::Agreement
        } else {
            CompareMode::Significance
        }
    }

    /// The first option of `given` (manifest keys) that `mode` does not read, so that no option
    /// is silently ignored.
    #[must_use]
    pub fn unread_option<'a>(mode: CompareMode, given: &[&'a str]) -> Option<&'a str> {
        given.iter().copied().find(|key| COMPARE_OPTIONS.contains(key) && !mode.options().contains(key))
    }

    /// Every option within its range (documented in the README's table of bounds).
    ///
    /// # Errors
    /// The first option out of range: α and RBO's p in (0, 1), B in 1..=10^7, repeats in
    /// 1..=10^5, 1 to 1000 ratios each in (0, 1].
    pub fn check_ranges(&self) -> Result<(), OptionError> {
        let error = |key, message: String| Err(OptionError { key, message });
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return error("alpha", format!("found {}, expected a level in (0, 1)", short_float(self.alpha)));
        }
        if let Some(b) = self.iterations {
            if !(1..=MAX_ITERATIONS).contains(&b) {
                return error("iterations", format!("found {b}, expected 1 to {MAX_ITERATIONS}"));
            }
        }
        if !(self.rbo_p >= MIN_RBO_P && self.rbo_p <= 1.0 - MIN_RBO_P) {
            return error(
                "rbo_p",
                format!(
                    "found {}, expected a persistence in (0, 1), from {MIN_RBO_P:e} to 1 - {MIN_RBO_P:e}",
                    short_float(self.rbo_p)
                ),
            );
        }
        if !(1..=MAX_REPEATS).contains(&self.repeats) {
            return error("repeats", format!("found {}, expected 1 to {MAX_REPEATS}", self.repeats));
        }
        if self.ratios.is_empty() || self.ratios.len() > MAX_RATIOS {
            return error("ratios", format!("found {} ratios, expected 1 to {MAX_RATIOS}", self.ratios.len()));
        }
        if let Some(r) = self.ratios.iter().find(|r| !(**r > 0.0 && **r <= 1.0)) {
            return error("ratios", format!("found the ratio {}, expected ratios in (0, 1]", short_float(*r)));
        }
        Ok(())
    }
}

/// A float as a message shows it: plain, or in scientific notation when tiny or huge.
fn short_float(value: f64) -> String {
    if value != 0.0 && value.is_finite() && !(1e-4..1e15).contains(&value.abs()) {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use super::{CompareMode, MAX_ITERATIONS, MAX_REPEATS};
    use crate::compare::CompareTask;

    #[test]
    fn each_bound_is_checked_at_its_edge() {
        let check = |edit: &dyn Fn(&mut CompareTask)| {
            let mut task = CompareTask::new();
            edit(&mut task);
            task.check_ranges().err().map(|e| e.key)
        };
        assert_eq!(check(&|_| {}), None);
        assert_eq!(check(&|t| t.iterations = Some(MAX_ITERATIONS)), None);
        assert_eq!(check(&|t| t.iterations = Some(MAX_ITERATIONS + 1)), Some("iterations"));
        assert_eq!(check(&|t| t.iterations = Some(0)), Some("iterations"));
        assert_eq!(check(&|t| t.repeats = MAX_REPEATS), None);
        assert_eq!(check(&|t| t.repeats = MAX_REPEATS + 1), Some("repeats"));
        assert_eq!(check(&|t| t.repeats = 0), Some("repeats"));
        assert_eq!(check(&|t| t.alpha = 1.0), Some("alpha"));
        assert_eq!(check(&|t| t.alpha = f64::NAN), Some("alpha"));
        assert_eq!(check(&|t| t.rbo_p = 1e-320), Some("rbo_p"));
        assert_eq!(check(&|t| t.rbo_p = 1e-6), None);
        assert_eq!(check(&|t| t.ratios = vec![0.5, 1.0]), None);
        assert_eq!(check(&|t| t.ratios = vec![0.0]), Some("ratios"));
        assert_eq!(check(&|t| t.ratios = Vec::new()), Some("ratios"));
    }

    #[test]
    fn an_option_the_mode_does_not_read_is_named() {
        let given = ["metrics", "test", "alpha"];
        assert_eq!(CompareTask::unread_option(CompareMode::Significance, &given), None);
        assert_eq!(CompareTask::unread_option(CompareMode::Agreement, &given), Some("test"));
        assert_eq!(CompareTask::unread_option(CompareMode::PublishedPower, &given), Some("test"));
        assert_eq!(CompareTask::unread_option(CompareMode::Sensitivity, &["tau", "repeats"]), None);
    }
}
