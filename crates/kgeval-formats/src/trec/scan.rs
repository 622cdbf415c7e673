//! Byte scanning for the run fast path: field and line ends found eight bytes at a time (SWAR
//! on `u64` words, no `unsafe`), positions absolute in the file.
//!
//! Byte masks are exact (no borrow or carry crosses a byte), so any set bit may be used.
//! A field ends at the first byte ≤ `b' '` that is a separator or `\n`; other control bytes
//! (rare) stay inside the field, as in trec_eval.

use super::fields::is_space;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;
const LOWS: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// The high bit of each byte of `word` that is ≤ `b' '` (exact: no carry crosses bytes, since
/// each 7-bit part plus 0x5f stays below 0x100).
#[inline]
fn bytes_at_most_space(word: u64) -> u64 {
    !(((word & LOWS) + ONES * 0x5f) | word) & HIGHS
}

/// The high bit of each byte of `word` that is `\n` (exact, as above).
#[inline]
fn newline_bytes(word: u64) -> u64 {
    let x = word ^ (ONES * u64::from(b'\n'));
    !(((x & LOWS) + LOWS) | x) & HIGHS
}

/// The first position in `pos..end` holding a byte ≤ `b' '`, or `end`.
#[inline(always)]
fn first_low_byte(bytes: &[u8], mut pos: usize, end: usize) -> usize {
    while let Some(chunk) = bytes[pos..end].first_chunk::<8>() {
        let mask = bytes_at_most_space(u64::from_le_bytes(*chunk));
        if mask != 0 {
            return pos + (mask.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while pos < end && bytes[pos] > b' ' {
        pos += 1;
    }
    pos
}

/// The end of the field starting at `pos` (the first separator, `\n` or `end` after it).
#[inline(always)]
pub(super) fn field_end(bytes: &[u8], pos: usize, end: usize) -> usize {
    let mut at = first_low_byte(bytes, pos, end);
    while at < end && bytes[at] != b'\n' && !is_space(bytes[at]) {
        at = first_low_byte(bytes, at + 1, end);
    }
    at
}

/// The first position in `pos..end` that is not a separator (`\n` is not a separator).
#[inline]
pub(super) fn skip_separators(bytes: &[u8], mut pos: usize, end: usize) -> usize {
    while pos < end && is_space(bytes[pos]) {
        pos += 1;
    }
    pos
}

/// The position just past the `\n` ending the line that contains `pos`, or `end`.
#[inline]
pub(super) fn next_line(bytes: &[u8], mut pos: usize, end: usize) -> usize {
    while let Some(chunk) = bytes[pos..end].first_chunk::<8>() {
        let mask = newline_bytes(u64::from_le_bytes(*chunk));
        if mask != 0 {
            return pos + (mask.trailing_zeros() / 8) as usize + 1;
        }
        pos += 8;
    }
    match memchr::memchr(b'\n', &bytes[pos..end]) {
        Some(i) => pos + i + 1,
        None => end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_ends_match_a_byte_loop() {
        let text = b"301\tQ0 FBIS3-10082\x01x 104   2.129133 STANDARD junk\nnext line here is long\n\x7f\xff\xfe";
        for start in 0..text.len() {
            for end in start..=text.len() {
                let expected = (start..end).find(|&i| text[i] == b'\n' || is_space(text[i])).unwrap_or(end);
                assert_eq!(field_end(text, start, end), expected, "{start}..{end}");
                let line = (start..end).find(|&i| text[i] == b'\n').map_or(end, |i| i + 1);
                assert_eq!(next_line(text, start, end), line, "{start}..{end}");
            }
        }
        assert_eq!(skip_separators(b"  \t\r\nx", 0, 6), 4);
    }
}
