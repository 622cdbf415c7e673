//! Typed, borrowed views of one record batch's id, score and relevance columns: every value
//! is read in place from the batch's buffers (no copy of a column).

use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, ArrayRef, DictionaryArray, GenericStringArray, StringViewArray};
use arrow_schema::DataType;

use crate::ids::{id_problem, printable_ascii};

/// An id column (`qid`, `docno`): string, large string, string view, or a dictionary of one
/// of them with any integer key.
#[derive(Debug, Clone, Copy)]
pub enum IdColumn<'a> {
    /// `utf8`.
    Utf8(&'a GenericStringArray<i32>),
    /// `large_utf8`.
    LargeUtf8(&'a GenericStringArray<i64>),
    /// `utf8_view`.
    View(&'a StringViewArray),
    /// `dictionary<K, utf8 | large_utf8 | utf8_view>`: keys and the dictionary's values.
    Dictionary(Keys<'a>, IdValues<'a>),
}

/// The values of a dictionary-encoded id column (never itself a dictionary).
#[derive(Debug, Clone, Copy)]
pub enum IdValues<'a> {
    /// `utf8`.
    Utf8(&'a GenericStringArray<i32>),
    /// `large_utf8`.
    LargeUtf8(&'a GenericStringArray<i64>),
    /// `utf8_view`.
    View(&'a StringViewArray),
}

/// The keys of a dictionary column, as the slice of their native type.
#[derive(Debug, Clone, Copy)]
pub enum Keys<'a> {
    /// `int8` keys.
    I8(&'a [i8]),
    /// `int16` keys.
    I16(&'a [i16]),
    /// `int32` keys.
    I32(&'a [i32]),
    /// `int64` keys.
    I64(&'a [i64]),
    /// `uint8` keys.
    U8(&'a [u8]),
    /// `uint16` keys.
    U16(&'a [u16]),
    /// `uint32` keys.
    U32(&'a [u32]),
    /// `uint64` keys.
    U64(&'a [u64]),
}

impl Keys<'_> {
    /// Key `i` as an index (keys out of range were refused when the column was checked).
    #[inline]
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    fn get(&self, i: usize) -> usize {
        // Negative keys and keys past the dictionary were refused by `id_column`.
        match *self {
            Keys::I8(k) => k[i] as usize,
            Keys::I16(k) => k[i] as usize,
            Keys::I32(k) => k[i] as usize,
            Keys::I64(k) => k[i] as usize,
            Keys::U8(k) => k[i] as usize,
            Keys::U16(k) => k[i] as usize,
            Keys::U32(k) => k[i] as usize,
            Keys::U64(k) => k[i] as usize,
        }
    }
}

impl<'a> IdValues<'a> {
    /// The number of values in the dictionary.
    #[must_use]
    pub fn len(&self) -> usize {
        match *self {
            IdValues::Utf8(a) => a.len(),
            IdValues::LargeUtf8(a) => a.len(),
            IdValues::View(a) => a.len(),
        }
    }

    /// Whether the dictionary holds no value.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    fn get(&self, i: usize) -> &'a str {
        match *self {
            IdValues::Utf8(a) => a.value(i),
            IdValues::LargeUtf8(a) => a.value(i),
            IdValues::View(a) => a.value(i),
        }
    }

    fn of(array: &'a dyn Array) -> Option<Self> {
        match array.data_type() {
            DataType::Utf8 => Some(IdValues::Utf8(array.as_string::<i32>())),
            DataType::LargeUtf8 => Some(IdValues::LargeUtf8(array.as_string::<i64>())),
            DataType::Utf8View => Some(IdValues::View(array.as_string_view())),
            _ => None,
        }
    }
}

impl<'a> IdColumn<'a> {
    /// The text of row `i` (its nulls were refused when the column was checked).
    #[inline]
    #[must_use]
    pub fn get(&self, i: usize) -> &'a str {
        match *self {
            IdColumn::Utf8(a) => a.value(i),
            IdColumn::LargeUtf8(a) => a.value(i),
            IdColumn::View(a) => a.value(i),
            IdColumn::Dictionary(keys, values) => values.get(keys.get(i)),
        }
    }
}

impl IdColumn<'_> {
    /// The first of the first `len` rows whose id is not an id ([`crate::ids::id_problem`]:
    /// empty, or holding whitespace or a control character). The rows' bytes are scanned at
    /// once when they are printable ASCII (the common case); a dictionary's values are
    /// checked once each, its keys looked at only when a value is bad.
    #[must_use]
    pub fn first_bad_id(&self, len: usize) -> Option<usize> {
        match *self {
            IdColumn::Utf8(a) => first_bad_string(a, len),
            IdColumn::LargeUtf8(a) => first_bad_string(a, len),
            IdColumn::View(a) => (0..len).find(|&i| id_problem(a.value(i)).is_some()),
            IdColumn::Dictionary(keys, values) => {
                let bad = match values {
                    IdValues::Utf8(a) => first_bad_string(a, a.len()),
                    IdValues::LargeUtf8(a) => first_bad_string(a, a.len()),
                    IdValues::View(a) => (0..a.len()).find(|&i| id_problem(a.value(i)).is_some()),
                }?;
                let flags: Vec<bool> =
                    (0..values.len()).map(|i| i >= bad && (i == bad || id_problem(values.get(i)).is_some())).collect();
                (0..len).find(|&row| flags[keys.get(row)])
            }
        }
    }
}

/// The first of the first `len` strings of `array` that is not an id.
fn first_bad_string<O: arrow_array::OffsetSizeTrait>(array: &GenericStringArray<O>, len: usize) -> Option<usize> {
    let offsets = array.value_offsets().get(..=len)?;
    let (first, last) = (offsets.first()?.as_usize(), offsets.last()?.as_usize());
    let clean = array.value_data().get(first..last).is_some_and(printable_ascii)
        && offsets.windows(2).fold(true, |ok, pair| ok & (pair[0] < pair[1]));
    if clean {
        return None;
    }
    (0..len).find(|&i| id_problem(array.value(i)).is_some())
}

impl IdColumn<'_> {
    /// The end of the run of rows from `start` (before `len`) whose id equals row `start`'s.
    #[must_use]
    pub fn run_end(&self, start: usize, len: usize) -> usize {
        let mut end = start + 1;
        match *self {
            IdColumn::Utf8(a) => return bytes_run_end(a.value_offsets(), a.value_data(), start, len),
            IdColumn::LargeUtf8(a) => return bytes_run_end(a.value_offsets(), a.value_data(), start, len),
            IdColumn::Dictionary(keys, values) => {
                // Equal keys are equal ids; other keys may still name an equal value.
                let key = keys.get(start);
                let first = values.get(key);
                while end < len && (keys.get(end) == key || values.get(keys.get(end)) == first) {
                    end += 1;
                }
            }
            _ => {
                let first = self.get(start);
                while end < len && self.get(end) == first {
                    end += 1;
                }
            }
        }
        end
    }
}

/// A numeric column read as `f64` (scores) or `i64` (relevance), in place.
#[derive(Debug, Clone, Copy)]
pub enum Numbers<'a> {
    /// `float64`.
    F64(&'a [f64]),
    /// `float32`.
    F32(&'a [f32]),
    /// `int8`.
    I8(&'a [i8]),
    /// `int16`.
    I16(&'a [i16]),
    /// `int32`.
    I32(&'a [i32]),
    /// `int64`.
    I64(&'a [i64]),
    /// `uint8`.
    U8(&'a [u8]),
    /// `uint16`.
    U16(&'a [u16]),
    /// `uint32`.
    U32(&'a [u32]),
    /// `uint64`.
    U64(&'a [u64]),
}

impl Numbers<'_> {
    /// Row `i` as `f64` (integers above 2^53 round, as a run file's text would).
    #[inline]
    #[must_use]
    #[allow(clippy::cast_precision_loss)]
    pub fn f64(&self, i: usize) -> f64 {
        match *self {
            Numbers::F64(v) => v[i],
            Numbers::F32(v) => f64::from(v[i]),
            Numbers::I8(v) => f64::from(v[i]),
            Numbers::I16(v) => f64::from(v[i]),
            Numbers::I32(v) => f64::from(v[i]),
            Numbers::I64(v) => v[i] as f64,
            Numbers::U8(v) => f64::from(v[i]),
            Numbers::U16(v) => f64::from(v[i]),
            Numbers::U32(v) => f64::from(v[i]),
            Numbers::U64(v) => v[i] as f64,
        }
    }

    /// Row `i` as `i64`: `None` for a float column or a `uint64` above `i64::MAX`.
    #[inline]
    #[must_use]
    pub fn i64(&self, i: usize) -> Option<i64> {
        match *self {
            Numbers::F64(_) | Numbers::F32(_) => None,
            Numbers::I8(v) => Some(i64::from(v[i])),
            Numbers::I16(v) => Some(i64::from(v[i])),
            Numbers::I32(v) => Some(i64::from(v[i])),
            Numbers::I64(v) => Some(v[i]),
            Numbers::U8(v) => Some(i64::from(v[i])),
            Numbers::U16(v) => Some(i64::from(v[i])),
            Numbers::U32(v) => Some(i64::from(v[i])),
            Numbers::U64(v) => i64::try_from(v[i]).ok(),
        }
    }

    /// Whether the column holds floating-point numbers.
    #[must_use]
    pub fn is_float(&self) -> bool {
        matches!(self, Numbers::F64(_) | Numbers::F32(_))
    }
}

/// A numeric column's values; `None` for any other type.
pub(crate) fn numbers(array: &ArrayRef) -> Option<Numbers<'_>> {
    use arrow_array::types::{Float32Type, Float64Type};
    Some(match array.data_type() {
        DataType::Float64 => Numbers::F64(array.as_primitive::<Float64Type>().values()),
        DataType::Float32 => Numbers::F32(array.as_primitive::<Float32Type>().values()),
        DataType::Int8 => Numbers::I8(array.as_primitive::<Int8Type>().values()),
        DataType::Int16 => Numbers::I16(array.as_primitive::<Int16Type>().values()),
        DataType::Int32 => Numbers::I32(array.as_primitive::<Int32Type>().values()),
        DataType::Int64 => Numbers::I64(array.as_primitive::<Int64Type>().values()),
        DataType::UInt8 => Numbers::U8(array.as_primitive::<UInt8Type>().values()),
        DataType::UInt16 => Numbers::U16(array.as_primitive::<UInt16Type>().values()),
        DataType::UInt32 => Numbers::U32(array.as_primitive::<UInt32Type>().values()),
        DataType::UInt64 => Numbers::U64(array.as_primitive::<UInt64Type>().values()),
        _ => return None,
    })
}

/// The first row of `array` that is null, if any.
pub(crate) fn first_null(array: &dyn Array) -> Option<usize> {
    // Logical: a dictionary row is null when its key is, or the value it points to.
    let nulls = array.logical_nulls()?;
    if nulls.null_count() == 0 {
        return None;
    }
    (0..array.len()).find(|&i| nulls.is_null(i))
}

/// The id column of `array` (its nulls not checked here); `Err` with the problem: a type
/// that holds no string, or a dictionary key out of range.
pub(crate) fn id_column(array: &ArrayRef) -> Result<IdColumn<'_>, IdProblem> {
    let column = id_column_typed(array)?;
    if let IdColumn::Dictionary(keys, values) = column {
        check_keys(array.as_ref(), keys, values.len())?;
    }
    Ok(column)
}

/// The id column of `array` by its type alone: dictionary keys are not checked (for a batch
/// [`id_column`] accepted before).
pub(crate) fn id_column_typed(array: &ArrayRef) -> Result<IdColumn<'_>, IdProblem> {
    match array.data_type() {
        DataType::Utf8 => Ok(IdColumn::Utf8(array.as_string::<i32>())),
        DataType::LargeUtf8 => Ok(IdColumn::LargeUtf8(array.as_string::<i64>())),
        DataType::Utf8View => Ok(IdColumn::View(array.as_string_view())),
        DataType::Dictionary(key, _) => {
            let (keys, values): (Keys<'_>, &dyn Array) = match key.as_ref() {
                DataType::Int8 => dict::<Int8Type>(array, Keys::I8),
                DataType::Int16 => dict::<Int16Type>(array, Keys::I16),
                DataType::Int32 => dict::<Int32Type>(array, Keys::I32),
                DataType::Int64 => dict::<Int64Type>(array, Keys::I64),
                DataType::UInt8 => dict::<UInt8Type>(array, Keys::U8),
                DataType::UInt16 => dict::<UInt16Type>(array, Keys::U16),
                DataType::UInt32 => dict::<UInt32Type>(array, Keys::U32),
                DataType::UInt64 => dict::<UInt64Type>(array, Keys::U64),
                _ => return Err(IdProblem::Type),
            };
            let values_column = IdValues::of(values).ok_or(IdProblem::Type)?;
            Ok(IdColumn::Dictionary(keys, values_column))
        }
        _ => Err(IdProblem::Type),
    }
}

/// `Err` at the first valid row of the dictionary column `array` whose key is outside the
/// dictionary (`size` values); keys of null rows may hold anything.
fn check_keys(array: &dyn Array, keys: Keys<'_>, size: usize) -> Result<(), IdProblem> {
    let nulls = array.nulls();
    for i in 0..array.len() {
        if nulls.is_some_and(|n| n.is_null(i)) {
            continue;
        }
        let ok = match keys {
            Keys::I8(k) => usize::try_from(k[i]).is_ok_and(|k| k < size),
            Keys::I16(k) => usize::try_from(k[i]).is_ok_and(|k| k < size),
            Keys::I32(k) => usize::try_from(k[i]).is_ok_and(|k| k < size),
            Keys::I64(k) => usize::try_from(k[i]).is_ok_and(|k| k < size),
            Keys::U8(k) => usize::from(k[i]) < size,
            Keys::U16(k) => usize::from(k[i]) < size,
            Keys::U32(k) => usize::try_from(k[i]).is_ok_and(|k| k < size),
            Keys::U64(k) => usize::try_from(k[i]).is_ok_and(|k| k < size),
        };
        if !ok {
            return Err(IdProblem::Key(i));
        }
    }
    Ok(())
}

/// Why a column is no id column.
#[derive(Debug)]
pub(crate) enum IdProblem {
    /// Not a string type (nor a dictionary of one).
    Type,
    /// A dictionary key at this row is outside the dictionary.
    Key(usize),
}

fn dict<'a, K: arrow_array::types::ArrowDictionaryKeyType>(
    array: &'a ArrayRef,
    wrap: fn(&'a [K::Native]) -> Keys<'a>,
) -> (Keys<'a>, &'a dyn Array) {
    let dictionary: &'a DictionaryArray<K> = array.as_dictionary::<K>();
    (wrap(dictionary.keys().values()), dictionary.values().as_ref())
}

/// [`IdColumn::run_end`] on a string column's offsets and bytes, in place and without a
/// comparison per row: a run of equal strings is a run of rows of one length (its offsets grow
/// by one stride) whose bytes, from the second row on, equal the bytes one row earlier — one
/// comparison of two overlapping spans, the first difference naming the first other row. The
/// rows are taken in blocks that double in size, so the work is in proportion to the run, not
/// to the rows after it.
fn bytes_run_end<O: Copy + Into<i64>>(offsets: &[O], data: &[u8], start: usize, len: usize) -> usize {
    // Offsets of a valid array never decrease and lie within its bytes.
    let at = |i: usize| usize::try_from(offsets[i].into()).unwrap_or(0);
    let width = at(start + 1).saturating_sub(at(start));
    let mut end = start + 1;
    let mut block = 16;
    while end < len {
        let block_end = (end + block).min(len);
        let mut same_width = end;
        while same_width < block_end && at(same_width + 1).saturating_sub(at(same_width)) == width {
            same_width += 1;
        }
        if width > 0 && same_width > end {
            // Rows end..same_width against the rows one earlier.
            let (from, to) = (at(end), at(same_width));
            match (data.get(from..to), data.get(from - width..to - width)) {
                (Some(later), Some(earlier)) => {
                    if let Some(p) = first_difference(later, earlier) {
                        return end + p / width;
                    }
                }
                _ => return end,
            }
        }
        if same_width < block_end {
            return same_width;
        }
        end = block_end;
        block = (block * 2).min(1 << 16);
    }
    end
}

/// The first index at which `a` and `b` (of one length) differ: 64-byte blocks compared whole,
/// then the differing block byte by byte.
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    const BLOCK: usize = 64;
    a.chunks(BLOCK)
        .zip(b.chunks(BLOCK))
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .and_then(|(block, (x, y))| x.iter().zip(y).position(|(p, q)| p != q).map(|p| block * BLOCK + p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{LargeStringArray, StringArray};

    proptest::proptest! {
        /// The run ends found on offsets and bytes are those of comparing row by row, for
        /// string and large-string columns, whole and sliced, with ids of one length that
        /// differ anywhere (within and across 64-byte blocks) and ids of other lengths; and the
        /// documents `push_docs` builds from such a column (ASCII or not, in two pieces).
        #[test]
        fn run_ends_equal_a_row_by_row_scan(
            mut rows in proptest::collection::vec((0u8..4, 0usize..3), 1..400),
            offset in 0usize..5,
            grouped: bool,
            accented: bool,
            split in 0usize..400,
        ) {
            if grouped {
                // Long runs, as a run grouped by qid has (blocks of rows past the first).
                rows.sort_unstable();
            }
            let ids: Vec<String> = rows
                .iter()
                .map(|&(id, long)| {
                    // Non-ASCII ids take the docnos' checked path, ASCII ones the direct one.
                    let pad = (if accented { "é" } else { "x" }).repeat([0, 30, 70][long]);
                    if id == 3 { format!("{pad}q") } else { format!("{pad}q{id}") }
                })
                .collect();
            let offset = offset.min(ids.len() - 1);
            let utf8 = StringArray::from(ids.clone()).slice(offset, ids.len() - offset);
            let large = LargeStringArray::from(ids.clone()).slice(offset, ids.len() - offset);
            let ids = &ids[offset..];
            // A topic's documents, built from a span of the (sliced) column: its docnos.
            let scores: Vec<f64> = (0..ids.len()).map(|i| i as f64).collect();
            let batch = crate::arrow::RunBatch { qid: IdColumn::Utf8(&utf8), docno: IdColumn::Utf8(&utf8), score: Numbers::F64(&scores), len: ids.len() };
            let from = offset % ids.len();
            // In two pieces (a topic across two batches): ranks and positions go on.
            let split = from + split % (ids.len() - from + 1);
            let mut docs = Vec::new();
            batch.push_docs(from..split, &mut docs);
            batch.push_docs(split..ids.len(), &mut docs);
            proptest::prop_assert!(docs.iter().enumerate().all(|(i, d)| d.position == i as u64));
            let built: Vec<(&str, f64, i64)> = docs.iter().map(|d| (d.docno, d.score, d.rank)).collect();
            let expected: Vec<(&str, f64, i64)> = (from..ids.len()).map(|i| (ids[i].as_str(), i as f64, (i - from + 1) as i64)).collect();
            proptest::prop_assert_eq!(built, expected);
            for column in [IdColumn::Utf8(&utf8), IdColumn::LargeUtf8(&large)] {
                let mut start = 0;
                while start < ids.len() {
                    let expected = start + ids[start..].iter().take_while(|id| **id == ids[start]).count();
                    let end = column.run_end(start, ids.len());
                    proptest::prop_assert_eq!(end, expected, "from row {}", start);
                    start = end;
                }
            }
        }
    }
}
