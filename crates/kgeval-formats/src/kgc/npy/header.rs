//! The NPY header: `\x93NUMPY`, a version byte pair, the header length (2 bytes little-endian
//! in 1.0, 4 bytes in 2.0 and 3.0), then a Python dict literal
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }` padded with spaces and ended
//! by a newline (ASCII / Latin-1 in 1.0 and 2.0, UTF-8 in 3.0). numpy pads it so that the data
//! starts at a multiple of 64 bytes.
//!
//! Accepted element types: `f8`, `f4` and `f2`, little-endian (`<`, what numpy writes on every
//! common machine) or big-endian (`>`, written on a big-endian machine or asked for with
//! `astype('>f8')`); decoded per value, never converted to another precision. `=` (native) is
//! not accepted: a file does not say which machine's order it meant.

use std::io::Read;

use kgeval_model::ranking::ScoreDtype;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// What the header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) version: (u8, u8),
    pub(super) dtype: ScoreDtype,
    /// `>` in `descr`: the values are big-endian.
    pub(super) big_endian: bool,
    /// `fortran_order` True: the matrix is stored column by column.
    pub(super) fortran_order: bool,
    pub(super) shape: (usize, usize),
    pub(super) data_offset: u64,
}

/// Reads and checks the header at the start of `file` (`length` bytes long: an open file, or
/// the bytes of one for the fuzz target); the message of an error says what was found and
/// what was expected.
pub(super) fn read(mut file: impl Read, length: u64) -> Result<Header, String> {
    let mut prefix = [0_u8; 12];
    let available = length.min(12) as usize;
    file.read_exact(&mut prefix[..available]).map_err(|e| format!("cannot read the header: {e}"))?;
    if available < 10 || &prefix[..6] != MAGIC {
        let shown = prefix[..available.min(6)].escape_ascii().to_string();
        return Err(format!("found \"{shown}\" at byte 0, expected the .npy magic \"\\x93NUMPY\" (not a .npy file)"));
    }
    let version = (prefix[6], prefix[7]);
    let (prefix_len, header_len) = match version {
        (1, 0) => (10, u64::from(u16::from_le_bytes([prefix[8], prefix[9]]))),
        (2 | 3, 0) if available == 12 => {
            (12, u64::from(u32::from_le_bytes([prefix[8], prefix[9], prefix[10], prefix[11]])))
        }
        (2 | 3, 0) => return Err(format!("found {length} bytes, expected a .npy header (the file is truncated)")),
        (major, minor) => return Err(format!("found .npy format version {major}.{minor}, expected 1.0, 2.0 or 3.0")),
    };
    let data_offset = prefix_len + header_len;
    if data_offset > length {
        return Err(format!(
            "found {length} bytes, expected a header of {header_len} bytes after byte {prefix_len} (the file is truncated)"
        ));
    }
    let mut raw = vec![0_u8; header_len as usize];
    // The bytes of the prefix read past the length field belong to the header, or (a header of
    // 0 or 1 byte in version 1.0) already to the data.
    let start = prefix_len as usize;
    let carried = (available - start).min(raw.len());
    raw[..carried].copy_from_slice(&prefix[start..start + carried]);
    file.read_exact(&mut raw[carried..]).map_err(|e| format!("cannot read the header: {e}"))?;
    let text: String = if version.0 == 3 {
        String::from_utf8(raw)
            .map_err(|_| "found a header that is not UTF-8, expected UTF-8 (version 3.0)".to_owned())?
    } else {
        raw.iter().map(|&b| char::from(b)).collect() // Latin-1
    };
    let fields = parse_dict(&text)?;
    Ok(Header {
        version,
        dtype: fields.dtype,
        big_endian: fields.big_endian,
        fortran_order: fields.fortran_order,
        shape: fields.shape,
        data_offset,
    })
}

struct Fields {
    dtype: ScoreDtype,
    big_endian: bool,
    fortran_order: bool,
    shape: (usize, usize),
}

/// The three keys of the header dict, checked.
fn parse_dict(text: &str) -> Result<Fields, String> {
    let mut p = Parser { text, at: 0 };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    p.expect('{')?;
    loop {
        p.skip_space();
        if p.eat('}') {
            break;
        }
        let key = p.string()?;
        p.skip_space();
        p.expect(':')?;
        p.skip_space();
        match key.as_str() {
            "descr" => descr = Some(p.string()?),
            "fortran_order" => fortran = Some(p.boolean()?),
            "shape" => shape = Some(p.tuple()?),
            other => {
                return Err(format!(
                    "found the header key '{other}', expected only 'descr', 'fortran_order' and 'shape'"
                ))
            }
        }
        p.skip_space();
        if !p.eat(',') {
            p.skip_space();
            p.expect('}')?;
            break;
        }
    }
    if !text[p.at..].chars().all(|c| c == ' ' || c == '\n' || c == '\0') {
        return Err(format!("found {:?} after the header dict, expected spaces and a newline", &text[p.at..]));
    }
    let missing = |key: &str| format!("found no '{key}' in the header, expected 'descr', 'fortran_order' and 'shape'");
    let descr = descr.ok_or_else(|| missing("descr"))?;
    let (dtype, big_endian) = match descr.as_str() {
        "<f8" => (ScoreDtype::F64, false),
        "<f4" => (ScoreDtype::F32, false),
        "<f2" => (ScoreDtype::F16, false),
        ">f8" => (ScoreDtype::F64, true),
        ">f4" => (ScoreDtype::F32, true),
        ">f2" => (ScoreDtype::F16, true),
        other => {
            return Err(format!(
                "found dtype '{other}' ({}), expected float64, float32 or float16 \
                 ('<f8', '<f4', '<f2', or big-endian '>f8', '>f4', '>f2')",
                describe(other)
            ))
        }
    };
    let fortran_order = fortran.ok_or_else(|| missing("fortran_order"))?;
    let dims = shape.ok_or_else(|| missing("shape"))?;
    let [rows, cols] = dims[..] else {
        let shown: Vec<String> = dims.iter().map(usize::to_string).collect();
        let shown = if dims.len() == 1 { format!("({},)", shown[0]) } else { format!("({})", shown.join(", ")) };
        return Err(format!(
            "found shape {shown} ({}-D), expected a 2-D matrix: one row per question, one column per entity",
            dims.len()
        ));
    };
    Ok(Fields { dtype, big_endian, fortran_order, shape: (rows, cols) })
}

/// Words for a numpy type string (`>f4` → "big-endian float32").
fn describe(descr: &str) -> String {
    let (order, rest) = match descr.chars().next() {
        Some('>') => ("big-endian ", &descr[1..]),
        Some('<' | '=' | '|') => ("", &descr[1..]),
        _ => ("", descr),
    };
    let (kind, size) = rest.split_at(rest.find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len()));
    let bits = size.parse::<u32>().map_or(String::new(), |bytes| (bytes * 8).to_string());
    let kind = match kind {
        "f" => "float",
        "i" => "int",
        "u" => "uint",
        "c" => "complex",
        "b" => return format!("{order}bool"),
        "O" => return "Python objects".to_owned(),
        _ => return "not a float type".to_owned(),
    };
    format!("{order}{kind}{bits}")
}

/// A cursor over the header text.
struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start_matches([' ', '\t', '\n', '\r']).len();
    }

    fn eat(&mut self, c: char) -> bool {
        let found = self.rest().starts_with(c);
        if found {
            self.at += c.len_utf8();
        }
        found
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            return Ok(());
        }
        Err(self.found(&format!("'{c}'")))
    }

    /// "found X at byte N of the header dict, expected WHAT".
    fn found(&self, what: &str) -> String {
        let token: String = self.rest().chars().take(12).collect();
        let token = if token.is_empty() { "the end".to_owned() } else { format!("{token:?}") };
        format!("found {token} at byte {} of the header dict, expected {what}", self.at)
    }

    /// A quoted string without escapes (numpy's type strings and keys).
    fn string(&mut self) -> Result<String, String> {
        let Some(quote @ ('\'' | '"')) = self.rest().chars().next() else {
            return Err(self.found("a quoted string"));
        };
        let body = &self.rest()[1..];
        let Some(end) = body.find([quote, '\\', '\n']).filter(|&i| body[i..].starts_with(quote)) else {
            return Err(self.found("a quoted string without escapes"));
        };
        let value = body[..end].to_owned();
        self.at += end + 2;
        Ok(value)
    }

    fn boolean(&mut self) -> Result<bool, String> {
        for (word, value) in [("True", true), ("False", false)] {
            if self.rest().starts_with(word) {
                self.at += word.len();
                return Ok(value);
            }
        }
        Err(self.found("True or False"))
    }

    /// `(a, b, …)` of non-negative integers (a Python 2 `L` suffix allowed), `()` or `(n,)`.
    fn tuple(&mut self) -> Result<Vec<usize>, String> {
        self.expect('(')?;
        let mut dims = Vec::new();
        loop {
            self.skip_space();
            if self.eat(')') {
                return Ok(dims);
            }
            let digits = self.rest().len() - self.rest().trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let value = self.rest()[..digits].parse::<usize>().map_err(|_| self.found("a dimension (an integer)"))?;
            self.at += digits;
            self.eat('L');
            dims.push(value);
            self.skip_space();
            if !self.eat(',') {
                self.skip_space();
                self.expect(')')?;
                return Ok(dims);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_headers_parse() {
        let fields = parse_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }    \n").unwrap();
        assert_eq!(
            (fields.dtype, fields.big_endian, fields.fortran_order, fields.shape),
            (ScoreDtype::F32, false, false, (3, 5))
        );
        // Key order, double quotes, Python 2 longs and no trailing comma are all accepted.
        let fields = parse_dict("{\"shape\": (2L, 0L), \"fortran_order\": False, \"descr\": \"<f2\"}\n").unwrap();
        assert_eq!((fields.dtype, fields.shape), (ScoreDtype::F16, (2, 0)));
        // float64, big-endian, Fortran order.
        for (descr, dtype, big_endian) in [
            ("<f8", ScoreDtype::F64, false),
            (">f8", ScoreDtype::F64, true),
            (">f4", ScoreDtype::F32, true),
            (">f2", ScoreDtype::F16, true),
        ] {
            let fields =
                parse_dict(&format!("{{'descr': '{descr}', 'fortran_order': True, 'shape': (3, 5), }}")).unwrap();
            assert_eq!((fields.dtype, fields.big_endian, fields.fortran_order), (dtype, big_endian, true), "{descr}");
        }
    }

    #[test]
    fn a_version_1_header_shorter_than_two_bytes_is_an_error_not_a_panic() {
        // Found by the `npy` fuzz target: a 12-byte file announcing a 0- or 1-byte header
        // indexed past the header's end.
        for header_len in [0_u8, 1] {
            let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
            bytes.extend([header_len, 0, b'{', b'}']);
            let err = read(&bytes[..], bytes.len() as u64).err().unwrap();
            assert!(err.starts_with("found "), "{err}");
        }
    }

    #[test]
    fn header_errors_say_what_was_expected() {
        let err = |text: &str| parse_dict(text).err().unwrap();
        let accepted = "expected float64, float32 or float16 ('<f8', '<f4', '<f2', or big-endian '>f8', '>f4', '>f2')";
        for (descr, what) in [
            ("<i4", "int32"),
            (">i8", "big-endian int64"),
            ("<c16", "complex128"),
            ("|O", "Python objects"),
            ("=f4", "float32"),
            ("|b1", "bool"),
        ] {
            assert_eq!(
                err(&format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (3, 5), }}")),
                format!("found dtype '{descr}' ({what}), {accepted}")
            );
        }
        assert_eq!(
            err("{'descr': '<f4', 'fortran_order': False, 'shape': (15,), }"),
            "found shape (15,) (1-D), expected a 2-D matrix: one row per question, one column per entity"
        );
        assert_eq!(
            err("{'descr': '<f4', 'fortran_order': False}"),
            "found no 'shape' in the header, expected 'descr', 'fortran_order' and 'shape'"
        );
        assert_eq!(
            err("{'descr': '<f4', 'shape': (3, 5)}"),
            "found no 'fortran_order' in the header, expected 'descr', 'fortran_order' and 'shape'"
        );
        assert_eq!(
            err("{'descr': '<f4', 'fortran_order': Nope}"),
            "found \"Nope}\" at byte 34 of the header dict, expected True or False"
        );
        assert_eq!(
            err("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1, 1)}"),
            "found \"[('a', '<f4'\" at byte 10 of the header dict, expected a quoted string"
        );
    }
}
