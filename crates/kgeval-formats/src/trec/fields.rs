//! Whitespace-separated fields of one TREC line and the number parsers of its columns.
//!
//! Separators are C's `isspace` minus the newline (space, tab, CR, VT, FF), as trec_eval reads
//! them, so CRLF files and tab-separated files read like space-separated ones.

/// Whether `byte` separates fields.
#[inline]
pub(super) fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// The fields of one line (without its `\n`), each with its byte offset in the line.
pub(super) struct Fields<'a> {
    line: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    pub(super) fn new(line: &'a [u8]) -> Self {
        Fields { line, pos: 0 }
    }

    /// The offset just past the last field returned (where a missing field would start).
    pub(super) fn offset(&self) -> usize {
        self.pos
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = (usize, &'a [u8]);

    #[inline]
    fn next(&mut self) -> Option<(usize, &'a [u8])> {
        let rest = self.line.get(self.pos..)?;
        let skip = rest.iter().position(|&b| !is_space(b))?;
        let start = self.pos + skip;
        let len = self.line[start..].iter().position(|&b| is_space(b)).unwrap_or(self.line.len() - start);
        self.pos = start + len;
        Some((start, &self.line[start..self.pos]))
    }
}

/// What a line is, judged from its first non-blank byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LineKind {
    /// Only separators (or nothing).
    Blank,
    /// A `#` comment.
    Comment,
    /// Content whose first field starts at this offset.
    Content(usize),
}

/// Classifies `line`; `#` starts a comment only at `comment_column_zero` (qrels) or after
/// leading blanks too (runs, as trec_eval's results reader does).
#[inline]
pub(super) fn line_kind(line: &[u8], comment_only_at_column_zero: bool) -> LineKind {
    match line.iter().position(|&b| !is_space(b)) {
        None => LineKind::Blank,
        Some(0) if line[0] == b'#' => LineKind::Comment,
        Some(i) if line[i] == b'#' && !comment_only_at_column_zero => LineKind::Comment,
        Some(i) => LineKind::Content(i),
    }
}

/// The largest integer every f64 represents exactly, plus one (2^53).
const EXACT_MANTISSA_LIMIT: u64 = 1 << 53;

/// Powers of ten exact in f64.
const EXACT_POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// Parses a score as C's `atof` reads a well-formed number (`2.129133`, `-0.5`, `1e-3`,
/// `.5`, `7`), or `None` when the field is not a decimal number. Infinities and NaN parse
/// (the caller rejects them with a better message).
///
/// Plain decimals of at most 19 characters whose digits make at most 2^53 (the scores trec
/// runs print) take Clinger's fast path: the digits as an exact integer divided by an exact
/// power of ten, one correctly rounded operation, so the result is the correctly rounded value
/// `str::parse` gives. Anything else (exponents, long digit strings, `inf`, junk) goes to
/// `str::parse::<f64>`. (A SWAR conversion of 8 digits at a time measured slower than this
/// loop on the benchmark run.)
#[inline]
pub(super) fn parse_score(field: &[u8]) -> Option<f64> {
    let (negative, digits) = match field.first() {
        Some(b'-') => (true, &field[1..]),
        Some(b'+') => (false, &field[1..]),
        _ => (false, field),
    };
    // At most 19 bytes: the mantissa cannot overflow a u64 and the scale stays below 23.
    if digits.is_empty() || digits.len() > 19 {
        return parse_score_slow(field);
    }
    let mut mantissa: u64 = 0;
    let mut point: Option<usize> = None;
    for (i, &b) in digits.iter().enumerate() {
        let digit = b.wrapping_sub(b'0');
        if digit < 10 {
            mantissa = mantissa * 10 + u64::from(digit);
        } else if b == b'.' && point.is_none() {
            point = Some(i);
        } else {
            return parse_score_slow(field);
        }
    }
    if mantissa > EXACT_MANTISSA_LIMIT || digits.len() == usize::from(point.is_some()) {
        return parse_score_slow(field);
    }
    let fraction_digits = point.map_or(0, |i| digits.len() - i - 1);
    let value = mantissa as f64 / EXACT_POWERS_OF_TEN[fraction_digits];
    Some(if negative { -value } else { value })
}

#[cold]
fn parse_score_slow(field: &[u8]) -> Option<f64> {
    std::str::from_utf8(field).ok()?.parse().ok()
}

/// Parses an optionally signed decimal integer (`atol` on a well-formed field).
#[inline]
pub(super) fn parse_integer(field: &[u8]) -> Option<i64> {
    let (negative, digits) = match field.first() {
        Some(b'-') => (true, &field[1..]),
        Some(b'+') => (false, &field[1..]),
        _ => (false, field),
    };
    if digits.is_empty() || digits.len() > 18 {
        return std::str::from_utf8(field).ok()?.parse().ok();
    }
    let mut value: i64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        value = value * 10 + i64::from(b - b'0');
    }
    Some(if negative { -value } else { value })
}

/// Whether `field` is an optionally signed run of decimal digits (of any length).
pub(super) fn is_decimal_integer(field: &[u8]) -> bool {
    let digits = field.strip_prefix(b"-").or_else(|| field.strip_prefix(b"+")).unwrap_or(field);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// A field for a message: lossy UTF-8, shortened to 40 characters.
pub(super) fn shown(field: &[u8]) -> String {
    let text = String::from_utf8_lossy(field);
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(line: &str) -> Vec<(usize, &str)> {
        Fields::new(line.as_bytes()).map(|(i, f)| (i, std::str::from_utf8(f).unwrap())).collect()
    }

    #[test]
    fn fields_split_on_spaces_tabs_and_cr() {
        assert_eq!(
            fields("301\tQ0  d1 1\t  2.129133\tSTANDARD\r"),
            [(0, "301"), (4, "Q0"), (8, "d1"), (11, "1"), (15, "2.129133"), (24, "STANDARD")]
        );
        assert_eq!(fields("  a"), [(2, "a")]);
        assert!(fields(" \t ").is_empty());
    }

    #[test]
    fn line_kinds() {
        assert_eq!(line_kind(b"", true), LineKind::Blank);
        assert_eq!(line_kind(b" \t\r", false), LineKind::Blank);
        assert_eq!(line_kind(b"# x", true), LineKind::Comment);
        assert_eq!(line_kind(b"  # x", true), LineKind::Content(2));
        assert_eq!(line_kind(b"  # x", false), LineKind::Comment);
        assert_eq!(line_kind(b"q#1 0 d 1", true), LineKind::Content(0));
    }

    #[test]
    fn scores_parse_like_std() {
        for text in [
            "2.129133",
            "-0.5",
            "+0.25",
            "1e-3",
            ".5",
            "5.",
            "7",
            "0.6898301657029192",
            "9007199254740993",
            "123456789012345678901234",
            "0.00000000000000000000001234",
            "-0",
            "1E5",
            "inf",
            "-infinity",
            "NaN",
        ] {
            let ours = parse_score(text.as_bytes()).unwrap();
            let std: f64 = text.parse().unwrap();
            assert!(ours.to_bits() == std.to_bits() || (ours.is_nan() && std.is_nan()), "{text}: {ours} vs {std}");
        }
        for text in ["", "-", ".", "1.2.3", "1,5", "abc", "0x10", "1e", "--1"] {
            assert_eq!(parse_score(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn random_decimals_parse_like_std() {
        let mut x: u64 = 0x1234_5678_9ABC_DEF1;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (int_digits, frac_digits) = ((x % 10) as usize, ((x >> 8) % 12) as usize);
            let digits: String =
                (0..int_digits + frac_digits).map(|i| char::from(b'0' + ((x >> (i % 50)) % 10) as u8)).collect();
            let sign = ["", "-", "+"][((x >> 20) % 3) as usize];
            let text = format!("{sign}{}.{}", &digits[..int_digits], &digits[int_digits..]);
            let std: Option<f64> = text.parse().ok();
            let ours = parse_score(text.as_bytes());
            assert_eq!(ours.map(f64::to_bits), std.map(f64::to_bits), "{text}");
        }
    }

    #[test]
    fn integers() {
        assert_eq!(parse_integer(b"42"), Some(42));
        assert_eq!(parse_integer(b"-1"), Some(-1));
        assert_eq!(parse_integer(b"+3"), Some(3));
        assert_eq!(parse_integer(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_integer(b"-9223372036854775808"), Some(i64::MIN));
        for bad in ["", "-", "1.0", "x", "9223372036854775808", "1e3"] {
            assert_eq!(parse_integer(bad.as_bytes()), None, "{bad}");
        }
    }
}
