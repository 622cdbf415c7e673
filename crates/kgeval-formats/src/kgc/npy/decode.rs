//! Values out of `.npy` bytes: rows of a C-order matrix borrowed or decoded one by one, rows of
//! a Fortran-order (column-major) matrix gathered from their columns.

use std::borrow::Cow;

use half::f16;
use zerocopy::FromBytes;

/// An element type of a score matrix, decoded from either byte order.
pub(super) trait Element: Copy + Default + FromBytes + zerocopy::Immutable + zerocopy::KnownLayout {
    /// Bytes per value.
    const SIZE: usize;
    /// From `SIZE` little-endian bytes.
    fn from_le(bytes: &[u8]) -> Self;
    /// From `SIZE` big-endian bytes.
    fn from_be(bytes: &[u8]) -> Self;
}

impl Element for f64 {
    const SIZE: usize = 8;
    #[inline]
    fn from_le(b: &[u8]) -> Self {
        f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }
    #[inline]
    fn from_be(b: &[u8]) -> Self {
        f64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }
}

impl Element for f32 {
    const SIZE: usize = 4;
    #[inline]
    fn from_le(b: &[u8]) -> Self {
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    #[inline]
    fn from_be(b: &[u8]) -> Self {
        f32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }
}

impl Element for f16 {
    const SIZE: usize = 2;
    #[inline]
    fn from_le(b: &[u8]) -> Self {
        f16::from_bits(u16::from_le_bytes([b[0], b[1]]))
    }
    #[inline]
    fn from_be(b: &[u8]) -> Self {
        f16::from_bits(u16::from_be_bytes([b[0], b[1]]))
    }
}

/// The values of `bytes`: borrowed when they are in the machine's byte order and aligned for
/// `T`, decoded one by one otherwise.
pub(super) fn cast_or_decode<T: Element>(bytes: &[u8], big_endian: bool) -> Cow<'_, [T]> {
    if big_endian == cfg!(target_endian = "big") {
        if let Ok(values) = <[T]>::ref_from_bytes(bytes) {
            return Cow::Borrowed(values);
        }
    }
    let decode = if big_endian { T::from_be } else { T::from_le };
    Cow::Owned(bytes.chunks_exact(T::SIZE).map(decode).collect())
}

/// Where the rows to gather are in column-major bytes: each of `cols` columns holds `stride`
/// values, and the rows wanted are `len` consecutive values of every column from `first`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Columns {
    pub(super) stride: usize,
    pub(super) first: usize,
    pub(super) len: usize,
    pub(super) cols: usize,
}

/// The rows `columns` describes, decoded, row after row (`len × cols` values).
///
/// A blocked transpose: a tile of columns filling one cache line of a row is read as that many
/// sequential streams (one per column), and written a row's cache line at a time, so every
/// source byte and every output line is touched once.
///
/// # Panics
/// When `data` is shorter than the columns need.
pub(super) fn gather<T: Element>(data: &[u8], columns: Columns, big_endian: bool) -> Vec<T> {
    if big_endian {
        gather_with(data, columns, T::from_be)
    } else {
        gather_with(data, columns, T::from_le)
    }
}

fn gather_with<T: Element>(data: &[u8], columns: Columns, decode: impl Fn(&[u8]) -> T) -> Vec<T> {
    let Columns { stride, first, len, cols } = columns;
    let mut out = vec![T::default(); len * cols];
    if out.is_empty() {
        return out;
    }
    let tile = (64 / T::SIZE).max(1);
    let mut segments: Vec<&[u8]> = Vec::with_capacity(tile);
    for start in (0..cols).step_by(tile) {
        let end = (start + tile).min(cols);
        segments.clear();
        segments.extend((start..end).map(|c| {
            let from = (c * stride + first) * T::SIZE;
            &data[from..from + len * T::SIZE]
        }));
        for (i, row) in out.chunks_exact_mut(cols).enumerate() {
            let at = i * T::SIZE;
            for (slot, segment) in row[start..end].iter_mut().zip(&segments) {
                *slot = decode(&segment[at..at + T::SIZE]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathers_rows_from_columns_in_either_byte_order() {
        // A 5 × 37 matrix (more columns than one tile), value r * 100 + c, column-major.
        let (rows, cols) = (5, 37);
        let value = |r: usize, c: usize| (r * 100 + c) as f64;
        let column_major: Vec<f64> = (0..cols).flat_map(|c| (0..rows).map(move |r| value(r, c))).collect();
        let le: Vec<u8> = column_major.iter().flat_map(|v| v.to_le_bytes()).collect();
        let be: Vec<u8> = column_major.iter().flat_map(|v| v.to_be_bytes()).collect();
        for (bytes, big_endian) in [(&le, false), (&be, true)] {
            let got: Vec<f64> = gather(bytes, Columns { stride: rows, first: 1, len: 3, cols }, big_endian);
            let want: Vec<f64> = (1..4).flat_map(|r| (0..cols).map(move |c| value(r, c))).collect();
            assert_eq!(got, want);
        }
        let halves: Vec<u8> = column_major.iter().flat_map(|&v| f16::from_f64(v).to_le_bytes()).collect();
        let got: Vec<f16> = gather(&halves, Columns { stride: rows, first: 4, len: 1, cols }, false);
        assert_eq!(got, (0..cols).map(|c| f16::from_f64(value(4, c))).collect::<Vec<_>>());
        let empty: Vec<f32> = gather(&[], Columns { stride: 0, first: 0, len: 0, cols: 3 }, false);
        assert!(empty.is_empty());
    }

    #[test]
    fn big_endian_rows_are_decoded() {
        let bytes: Vec<u8> = [1.5_f32, -2.0].iter().flat_map(|v| v.to_be_bytes()).collect();
        let values = cast_or_decode::<f32>(&bytes, true);
        assert!(matches!(values, Cow::Owned(_)));
        assert_eq!(&values[..], [1.5, -2.0]);
    }
}
