//! An [`Axis`] made concrete for the values drawn on it: the range shown, how a value maps
//! onto it (log10 for a log scale, clamped into the range) and the tick labels (integers
//! without decimals, decimals from the tick step, powers of ten on a log scale).

use super::Axis;

/// At most this many tick labels on an axis.
const MAX_TICKS: usize = 10;

/// An axis's range, in drawn units (log10 of the value on a log scale).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Scale {
    /// The lower end of the range shown, in drawn units.
    pub lo: f64,
    /// The upper end.
    pub hi: f64,
    integer: bool,
    log: bool,
}

impl Scale {
    /// The scale of `axis` for `values` (non-finite values ignored).
    pub fn new(axis: &Axis, values: impl Iterator<Item = f64>) -> Scale {
        let finite: Vec<f64> = values.filter(|v| v.is_finite() && (!axis.log || *v > 0.0)).collect();
        let (min, max) = finite.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let (lo, hi) = if axis.log {
            match axis.bounds {
                Some((a, b)) if a > 0.0 && b > a => (a.log10(), b.log10()),
                _ if finite.is_empty() => (-3.0, 0.0),
                _ => {
                    let (lo, hi) = (min.log10().floor(), max.log10().ceil());
                    (lo, if hi > lo { hi } else { lo + 1.0 })
                }
            }
        } else {
            match axis.bounds {
                Some((a, b)) if b > a => (a, b),
                _ => auto_range(min, max, axis.integer),
            }
        };
        Scale { lo, hi, integer: axis.integer && !axis.log, log: axis.log }
    }

    /// `value` in drawn units, clamped into the range (a value ≤ 0 on a log scale: the low
    /// end).
    pub fn map(&self, value: f64) -> f64 {
        let v = if self.log {
            if value > 0.0 {
                value.log10()
            } else {
                self.lo
            }
        } else {
            value
        };
        v.clamp(self.lo, self.hi)
    }

    /// How many tick labels to ask for: integer steps on an integer or log axis.
    pub fn ticks(&self) -> usize {
        if self.integer || self.log {
            let whole = (self.hi.floor() - self.lo.ceil()) as usize + 1;
            whole.clamp(1, MAX_TICKS)
        } else {
            MAX_TICKS
        }
    }

    /// The label of the tick at `t` (drawn units); empty for a tick the axis does not label
    /// (a fraction on an integer axis, a fractional power on a log axis).
    pub fn label(&self, t: f64) -> String {
        let whole = (t - t.round()).abs() < 1e-9;
        if self.log {
            if !whole {
                return String::new();
            }
            let k = t.round() as i32;
            return if (-3..=3).contains(&k) { trimmed(10f64.powi(k), (-k).max(0) as usize) } else { format!("1e{k}") };
        }
        if self.integer {
            return if whole { format!("{}", t.round() as i64) } else { String::new() };
        }
        trimmed(t, self.decimals())
    }

    /// Decimals enough to tell the ticks apart: from plotters' tick step (1, 2 or 5 × 10^k
    /// for at most [`MAX_TICKS`] ticks).
    fn decimals(&self) -> usize {
        let span = self.hi - self.lo;
        if span <= 0.0 || !span.is_finite() {
            return 2;
        }
        let raw = span / MAX_TICKS as f64;
        let step = [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * 10f64.powf(raw.log10().floor()))
            .find(|s| *s >= raw * 0.999)
            .unwrap_or(raw);
        (-step.log10().floor()).max(0.0) as usize
    }
}

/// `value` with `decimals` decimals, `-0` shown as `0`.
fn trimmed(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') {
        text[1..].to_owned()
    } else {
        text
    }
}

/// The data's range with room: values in [0, 1] spread over more than half of it get the
/// unit interval; an integer axis gets half a step on either side; one value gets ±0.5.
fn auto_range(min: f64, max: f64, integer: bool) -> (f64, f64) {
    if !min.is_finite() {
        return (0.0, 1.0);
    }
    if integer {
        return (min.floor() - 0.5, max.ceil() + 0.5);
    }
    if min >= 0.0 && max <= 1.0 && max - min > 0.5 {
        return (0.0, 1.0);
    }
    if max - min < 1e-12 {
        return (min - 0.5, max + 0.5);
    }
    let pad = (max - min) * 0.05;
    (min - pad, max + pad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scale(axis: Axis, values: &[f64]) -> Scale {
        Scale::new(&axis, values.iter().copied())
    }

    #[test]
    fn bounds_hold_and_values_are_clamped() {
        let s = scale(Axis::UNIT, &[0.2, 10.0]);
        assert_eq!((s.lo, s.hi), (0.0, 1.0));
        assert_eq!(s.map(10.0), 1.0);
        assert_eq!(s.map(-3.0), 0.0);
        assert_eq!(s.label(0.2), "0.2");
    }

    #[test]
    fn integer_axes_label_integers_only() {
        let s = scale(Axis::INTEGER, &[0.0, 10.0]);
        assert_eq!((s.lo, s.hi), (-0.5, 10.5));
        assert_eq!(s.ticks(), 10);
        assert_eq!(s.label(10.0), "10");
        assert_eq!(s.label(2.5), "");
        assert_eq!(scale(Axis::INTEGER, &[1.0, 78.0]).label(40.0), "40");
    }

    #[test]
    fn log_axes_span_whole_decades() {
        let s = scale(Axis::LOG, &[3.2e-11, 0.04, 0.9, 0.0]);
        assert_eq!((s.lo, s.hi), (-11.0, 0.0));
        assert_eq!(s.map(0.0), -11.0);
        assert_eq!(s.label(-2.0), "0.01");
        assert_eq!(s.label(-6.0), "1e-6");
        assert_eq!(s.label(-2.5), "");
        assert_eq!(s.label(0.0), "1");
    }

    #[test]
    fn automatic_ranges_pad_or_take_the_unit_interval() {
        assert_eq!(auto_range(0.1, 0.9, false), (0.0, 1.0));
        assert_eq!(auto_range(3.0, 3.0, false), (2.5, 3.5));
        assert_eq!(auto_range(f64::INFINITY, f64::NEG_INFINITY, false), (0.0, 1.0));
        let (lo, hi) = auto_range(0.6, 0.8, false);
        assert!((lo - 0.59).abs() < 1e-12 && (hi - 0.81).abs() < 1e-12);
    }

    #[test]
    fn decimals_follow_the_tick_step() {
        assert_eq!(scale(Axis::UNIT, &[]).label(0.3), "0.3");
        assert_eq!(scale(Axis::AUTO, &[0.0, 100.0]).label(40.0), "40");
        assert_eq!(scale(Axis::AUTO, &[0.61, 0.64]).label(0.615), "0.615");
        assert_eq!(scale(Axis::CORRELATION, &[]).label(-0.0), "0.0");
    }
}
