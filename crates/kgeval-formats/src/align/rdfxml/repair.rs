//! Input checks and MELT's raw-`&` repair, shared with the RDF-triples reader.

use std::borrow::Cow;

use crate::FormatError;

/// Checks the input is UTF-8 and not empty; strips a UTF-8 byte-order mark.
pub(crate) fn decode<'a>(input: &'a [u8], file: &str) -> Result<&'a str, FormatError> {
    if input.starts_with(&[0xFF, 0xFE]) || input.starts_with(&[0xFE, 0xFF]) {
        return Err(FormatError::syntax(file, 1, 1, "found a UTF-16 byte-order mark: expected UTF-8 XML"));
    }
    let body = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let text = std::str::from_utf8(body).map_err(|e| {
        let at = e.valid_up_to();
        let byte = body.get(at).copied().unwrap_or(0);
        FormatError::syntax_at_offset(
            file,
            body,
            at,
            format!("found byte 0x{byte:02X} that is not UTF-8: expected UTF-8 text"),
        )
    })?;
    not_blank(text, file)
}

/// `text`, unless it is empty or only whitespace (then the error `decode` gives).
pub(crate) fn not_blank<'a>(text: &'a str, file: &str) -> Result<&'a str, FormatError> {
    if text.trim().is_empty() {
        return Err(FormatError::syntax(
            file,
            1,
            1,
            "empty file: expected an Alignment-API RDF/XML document (<rdf:RDF>)",
        ));
    }
    Ok(text)
}

/// Escapes every `&` that does not start a well-formed reference (`&name;`, `&#N;`, `&#xH;`)
/// as `&amp;` (MELT's `AlignmentXmlRepair`). Returns the text and how many were escaped.
pub(crate) fn repair_ampersands(doc: &str) -> (Cow<'_, str>, usize) {
    let bytes = doc.as_bytes();
    let mut out: Option<String> = None;
    let mut last = 0;
    let mut count = 0;
    for at in memchr::memchr_iter(b'&', bytes) {
        if reference_len(&bytes[at..]).is_some() {
            continue;
        }
        let out = out.get_or_insert_with(|| String::with_capacity(doc.len() + 16));
        out.push_str(&doc[last..at]);
        out.push_str("&amp;");
        last = at + 1;
        count += 1;
    }
    match out {
        None => (Cow::Borrowed(doc), 0),
        Some(mut out) => {
            out.push_str(&doc[last..]);
            (Cow::Owned(out), count)
        }
    }
}

/// The length of a well-formed reference at the start of `s` (which starts with `&`),
/// including `&` and `;`.
pub(super) fn reference_len(s: &[u8]) -> Option<usize> {
    let body = s.get(1..)?;
    if let Some(num) = body.strip_prefix(b"#") {
        let (digits, extra) = match num.strip_prefix(b"x") {
            Some(hex) => (hex.iter().take_while(|b| b.is_ascii_hexdigit()).count(), 2),
            None => (num.iter().take_while(|b| b.is_ascii_digit()).count(), 1),
        };
        let end = 1 + extra + digits;
        return (digits > 0 && s.get(end) == Some(&b';')).then_some(end + 1);
    }
    let first = *body.first()?;
    if !(is_name_start(first)) {
        return None;
    }
    let len = body.iter().take_while(|&&b| is_name_char(b)).count();
    (s.get(1 + len) == Some(&b';')).then_some(len + 2)
}

pub(super) fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b':' || b >= 0x80
}

pub(super) fn is_name_char(b: u8) -> bool {
    is_name_start(b) || b.is_ascii_digit() || b == b'-' || b == b'.'
}
