//! One row of a dense score matrix (questions × entities), as the `.npy` reader hands it to the
//! ranking core: float32 or float16 values, borrowed from the mapped file when they are aligned.

use std::borrow::Cow;
use std::fmt;

use half::f16;

/// The element type of a dense score matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScoreDtype {
    /// IEEE 754 binary32, little-endian in `.npy` (`<f4`).
    F32,
    /// IEEE 754 binary16, little-endian in `.npy` (`<f2`); widened exactly to `f32`.
    F16,
}

impl ScoreDtype {
    /// The numpy name: `float32` or `float16`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ScoreDtype::F32 => "float32",
            ScoreDtype::F16 => "float16",
        }
    }

    /// Bytes per value.
    #[must_use]
    pub const fn size(self) -> usize {
        match self {
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
            ScoreRow::F32(values) => values.len(),
            ScoreRow::F16(values) => values.len(),
        }
    }

    /// Whether the row has no column.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The score in `column`, widened to `f32` (exact for float16).
    ///
    /// # Panics
    /// When `column` is out of bounds.
    #[must_use]
    pub fn get(&self, column: usize) -> f32 {
        match self {
            ScoreRow::F32(values) => values[column],
            ScoreRow::F16(values) => values[column].to_f32(),
        }
    }

    /// The element type.
    #[must_use]
    pub fn dtype(&self) -> ScoreDtype {
        match self {
            ScoreRow::F32(_) => ScoreDtype::F32,
            ScoreRow::F16(_) => ScoreDtype::F16,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_widen_float16_exactly() {
        let row = ScoreRow::F16(Cow::Owned(vec![f16::from_f32(0.5), f16::from_f32(-2.0), f16::NAN]));
        assert_eq!((row.len(), row.dtype().name()), (3, "float16"));
        assert_eq!((row.get(0), row.get(1)), (0.5, -2.0));
        assert!(row.get(2).is_nan());
        let row = ScoreRow::F32(Cow::Borrowed(&[1.5, 2.5]));
        assert_eq!((row.get(1), row.dtype().size()), (2.5, 4));
    }
}
