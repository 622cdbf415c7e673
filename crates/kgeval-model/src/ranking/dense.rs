//! One row of a dense score matrix (questions × entities), as the `.npy` reader hands it to the
//! ranking core: float64, float32 or float16 values, borrowed from the mapped file when they are
//! aligned, each kept in its own precision (a float64 score is never rounded to float32).

use std::borrow::Cow;
use std::fmt;

use half::f16;

/// The element type of a dense score matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScoreDtype {
    /// IEEE 754 binary64 (`.npy` `<f8` or `>f8`): numpy's and PyKEEN's default; compared in
    /// `f64`.
    F64,
    /// IEEE 754 binary32 (`.npy` `<f4` or `>f4`).
    F32,
    /// IEEE 754 binary16 (`.npy` `<f2` or `>f2`); widened exactly to `f32`.
    F16,
}

impl ScoreDtype {
    /// The numpy name: `float64`, `float32` or `float16`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ScoreDtype::F64 => "float64",
            ScoreDtype::F32 => "float32",
            ScoreDtype::F16 => "float16",
        }
    }

    /// Bytes per value.
    #[must_use]
    pub const fn size(self) -> usize {
        match self {
            ScoreDtype::F64 => 8,
            ScoreDtype::F32 => 4,
            ScoreDtype::F16 => 2,
        }
    }
}

impl fmt::Display for ScoreDtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The scores of one question for every entity (column = entity index).
///
/// Borrowed from the memory-mapped matrix when the data is aligned for the type (numpy aligns
/// the data to 64 bytes), copied otherwise.
#[derive(Debug, Clone, PartialEq)]
pub enum ScoreRow<'a> {
    /// float64 scores (compared in `f64`).
    F64(Cow<'a, [f64]>),
    /// float32 scores.
    F32(Cow<'a, [f32]>),
    /// float16 scores.
    F16(Cow<'a, [f16]>),
}

impl ScoreRow<'_> {
    /// The number of columns.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            ScoreRow::F64(values) => values.len(),
            ScoreRow::F32(values) => values.len(),
            ScoreRow::F16(values) => values.len(),
        }
    }

    /// Whether the row has no column.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The score in `column` as `f64`: exact for every element type (float32 and float16
    /// widen exactly), so no two scores of a row that differ compare equal.
    ///
    /// # Panics
    /// When `column` is out of bounds.
    #[must_use]
    pub fn get(&self, column: usize) -> f64 {
        match self {
            ScoreRow::F64(values) => values[column],
            ScoreRow::F32(values) => f64::from(values[column]),
            ScoreRow::F16(values) => values[column].to_f64(),
        }
    }

    /// The element type.
    #[must_use]
    pub fn dtype(&self) -> ScoreDtype {
        match self {
            ScoreRow::F64(_) => ScoreDtype::F64,
            ScoreRow::F32(_) => ScoreDtype::F32,
            ScoreRow::F16(_) => ScoreDtype::F16,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_widen_exactly_and_float64_keeps_its_precision() {
        let row = ScoreRow::F16(Cow::Owned(vec![f16::from_f32(0.5), f16::from_f32(-2.0), f16::NAN]));
        assert_eq!((row.len(), row.dtype().name()), (3, "float16"));
        assert_eq!((row.get(0), row.get(1)), (0.5, -2.0));
        assert!(row.get(2).is_nan());
        let row = ScoreRow::F32(Cow::Borrowed(&[1.5, 2.5]));
        assert_eq!((row.get(1), row.dtype().size()), (2.5, 4));
        // float64 keeps what float32 would round away.
        let row = ScoreRow::F64(Cow::Owned(vec![1.0, 1.0 + 1e-12]));
        assert_eq!((row.dtype().name(), row.dtype().size()), ("float64", 8));
        assert!(row.get(1) > row.get(0));
    }
}
