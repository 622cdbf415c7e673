//! Answer normalisation: each step switchable, and named in every result.

use kgeval_model::qald::AnswerValue;

const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

/// Which normalisation steps run before answers are compared. [`Default`] turns every step on
/// and compares literals on their lexical form only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)]
pub struct Normalisation {
    /// Trim whitespace around every value.
    pub trim: bool,
    /// Compare booleans case-insensitively (`True` = `true`).
    pub boolean_case: bool,
    /// Decode percent-encoded UTF-8 and unreserved characters in IRIs (reserved ones such as
    /// `%3F` stay encoded, with upper-case hex).
    pub iri_percent_decoding: bool,
    /// Compare numbers as decimals (`42` = `42.0` = `+42`).
    pub numbers_as_decimals: bool,
    /// Compare dates on the date part (`1886-10-28` = `1886-10-28T00:00:00Z`).
    pub date_part: bool,
    /// Also compare literals on datatype and language tag (off: lexical form only).
    pub respect_literal_type: bool,
}

impl Default for Normalisation {
    fn default() -> Self {
        Self {
            trim: true,
            boolean_case: true,
            iri_percent_decoding: true,
            numbers_as_decimals: true,
            date_part: true,
            respect_literal_type: false,
        }
    }
}

/// The kind of a compared answer: IRIs never equal literals; numbers and dates are literals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyKind {
    /// An IRI.
    Iri,
    /// A literal (strings, numbers, dates).
    Literal,
    /// A boolean.
    Boolean,
}

/// A normalised answer: what set operations compare.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AnswerKey {
    /// IRI, literal or boolean.
    pub kind: KeyKind,
    /// The normalised text.
    pub text: String,
    /// Datatype or `@language` when [`Normalisation::respect_literal_type`] is on, else empty.
    pub tag: String,
}

impl Normalisation {
    /// No step at all: values compare exactly as written (datatype and language included).
    #[must_use]
    pub const fn none() -> Self {
        Self {
            trim: false,
            boolean_case: false,
            iri_percent_decoding: false,
            numbers_as_decimals: false,
            date_part: false,
            respect_literal_type: true,
        }
    }

    /// Every step with its state, in the order they apply.
    #[must_use]
    pub fn steps(&self) -> [(&'static str, bool); 6] {
        [
            ("trim", self.trim),
            ("boolean-case", self.boolean_case),
            ("iri-percent-decoding", self.iri_percent_decoding),
            ("numbers-as-decimals", self.numbers_as_decimals),
            ("date-part", self.date_part),
            ("respect-literal-type", self.respect_literal_type),
        ]
    }

    /// `trim on, boolean-case on, …` for result headers.
    #[must_use]
    pub fn describe(&self) -> String {
        kgeval_model::qald::describe_normalisation(&self.steps())
    }

    /// The normalised key of one answer value.
    ///
    /// ```
    /// use kgeval_metrics::qald::Normalisation;
    /// use kgeval_model::qald::AnswerValue;
    /// let n = Normalisation::default();
    /// let key = |v| n.key(&v);
    /// assert_eq!(key(AnswerValue::Number("+42".into())), key(AnswerValue::plain("42.0")));
    /// assert_eq!(key(AnswerValue::Boolean("True".into())), key(AnswerValue::Boolean("true".into())));
    /// assert_eq!(
    ///     key(AnswerValue::Iri("http://x.org/Caf%C3%A9".into())),
    ///     key(AnswerValue::Iri("http://x.org/Café".into()))
    /// );
    /// assert_ne!(key(AnswerValue::Iri("http://x.org/a%3F".into())), key(AnswerValue::Iri("http://x.org/a?".into())));
    /// ```
    #[must_use]
    pub fn key(&self, value: &AnswerValue) -> AnswerKey {
        let clean = |s: &str| if self.trim { s.trim().to_owned() } else { s.to_owned() };
        match value {
            AnswerValue::Iri(iri) => {
                let iri = clean(iri);
                let text = if self.iri_percent_decoding { decode_iri(&iri) } else { iri };
                AnswerKey { kind: KeyKind::Iri, text, tag: String::new() }
            }
            AnswerValue::Boolean(b) => self.boolean(&clean(b)),
            AnswerValue::Number(n) => self.literal(clean(n), Some(&format!("{XSD}decimal")), None),
            AnswerValue::Date(d) => self.literal(clean(d), Some(&format!("{XSD}date")), None),
            AnswerValue::Literal { lexical, datatype, language } => {
                let lexical = clean(lexical);
                if datatype.as_deref() == Some(&format!("{XSD}boolean")) {
                    return self.boolean(&lexical);
                }
                self.literal(lexical, datatype.as_deref(), language.as_deref())
            }
        }
    }

    /// The key of a label (a plain literal), for label maps and QALD-2 aliases.
    #[must_use]
    pub fn label_key(&self, label: &str) -> AnswerKey {
        let text = if self.trim { label.trim() } else { label };
        AnswerKey { kind: KeyKind::Literal, text: text.to_owned(), tag: String::new() }
    }

    fn boolean(&self, text: &str) -> AnswerKey {
        let text = if self.boolean_case { text.to_ascii_lowercase() } else { text.to_owned() };
        AnswerKey { kind: KeyKind::Boolean, text, tag: String::new() }
    }

    fn literal(&self, lexical: String, datatype: Option<&str>, language: Option<&str>) -> AnswerKey {
        let numeric_type = datatype.is_none_or(is_numeric_datatype);
        let date_type = datatype.is_none_or(|d| d == format!("{XSD}date") || d == format!("{XSD}dateTime"));
        let number = if self.numbers_as_decimals && numeric_type { canonical_decimal(&lexical) } else { None };
        let date = if self.date_part && date_type { date_part(&lexical).map(str::to_owned) } else { None };
        let text = number.or(date).unwrap_or(lexical);
        let tag = match (self.respect_literal_type, language, datatype) {
            (false, _, _) => String::new(),
            (true, Some(language), _) => format!("@{}", language.to_ascii_lowercase()),
            (true, None, Some(datatype)) => datatype.to_owned(),
            (true, None, None) => String::new(),
        };
        AnswerKey { kind: KeyKind::Literal, text, tag }
    }
}

fn is_numeric_datatype(datatype: &str) -> bool {
    datatype.strip_prefix(XSD).is_some_and(|local| {
        matches!(
            local,
            "decimal"
                | "integer"
                | "int"
                | "long"
                | "short"
                | "byte"
                | "double"
                | "float"
                | "nonNegativeInteger"
                | "positiveInteger"
                | "nonPositiveInteger"
                | "negativeInteger"
                | "unsignedInt"
                | "unsignedLong"
                | "unsignedShort"
                | "unsignedByte"
        )
    })
}

/// `+042.50` → `42.5`, `-0` → `0`, `1.0E3` → `1000`; `None` when not a number.
///
/// ```
/// use kgeval_metrics::qald::canonical_decimal;
/// assert_eq!(canonical_decimal("+100").as_deref(), Some("100"));
/// assert_eq!(canonical_decimal("1.9812").as_deref(), Some("1.9812"));
/// assert_eq!(canonical_decimal("42.0").as_deref(), Some("42"));
/// assert_eq!(canonical_decimal("1.0E3").as_deref(), Some("1000"));
/// assert_eq!(canonical_decimal("1886-10-28"), None);
/// ```
#[must_use]
pub fn canonical_decimal(text: &str) -> Option<String> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'+' => (false, &text[1..]),
        b'-' => (true, &text[1..]),
        _ => (false, text),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let plain = !(int.is_empty() && frac.is_empty())
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit());
    if !plain {
        let value: f64 = text.parse().ok().filter(|v: &f64| v.is_finite())?;
        if !text.bytes().any(|b| b == b'e' || b == b'E') {
            return None; // `inf`, `NaN` and friends are not numbers here
        }
        return canonical_decimal(&value.to_string());
    }
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    let mut out = String::new();
    if negative && !(int.is_empty() && frac.is_empty()) {
        out.push('-');
    }
    out.push_str(if int.is_empty() { "0" } else { int });
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    Some(out)
}

/// The `YYYY-MM-DD` part of a date or dateTime.
fn date_part(text: &str) -> Option<&str> {
    let body = text.strip_prefix('-').unwrap_or(text);
    let year_len = body.bytes().take_while(u8::is_ascii_digit).count();
    let rest = body.get(year_len..)?.as_bytes();
    let ok = year_len >= 4
        && rest.len() >= 6
        && rest[0] == b'-'
        && rest[1..3].iter().all(u8::is_ascii_digit)
        && rest[3] == b'-'
        && rest[4..6].iter().all(u8::is_ascii_digit)
        && (rest.len() == 6 || matches!(rest[6], b'T' | b'Z' | b'+' | b'-'));
    ok.then(|| &text[..text.len() - body.len() + year_len + 6])
}

/// Decodes `%XX` of unreserved characters and of UTF-8 sequences; other escapes stay, with
/// upper-case hex.
///
/// ```
/// use kgeval_metrics::qald::decode_iri;
/// assert_eq!(decode_iri("http://x.org/K%C3%B6ln_%28city%29%3f%7e"), "http://x.org/Köln_%28city%29%3F~");
/// ```
#[must_use]
pub fn decode_iri(iri: &str) -> String {
    let bytes = iri.as_bytes();
    let mut out = String::with_capacity(iri.len());
    let mut i = 0;
    while i < bytes.len() {
        if let Some(byte) = hex_escape(bytes, i) {
            if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
                out.push(byte as char);
                i += 3;
                continue;
            }
            if byte >= 0x80 {
                // A run of escaped bytes: decoded when it is valid UTF-8.
                let mut run = Vec::new();
                let mut j = i;
                while let Some(b) = hex_escape(bytes, j).filter(|b| *b >= 0x80) {
                    run.push(b);
                    j += 3;
                }
                if let Ok(text) = std::str::from_utf8(&run) {
                    out.push_str(text);
                    i = j;
                    continue;
                }
            }
            out.push_str(&format!("%{byte:02X}"));
            i += 3;
            continue;
        }
        let ch = iri[i..].chars().next().unwrap_or('\u{fffd}');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

fn hex_escape(bytes: &[u8], i: usize) -> Option<u8> {
    if bytes.get(i) != Some(&b'%') {
        return None;
    }
    let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
    u8::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literal(lexical: &str, datatype: Option<&str>, language: Option<&str>) -> AnswerValue {
        AnswerValue::Literal {
            lexical: lexical.into(),
            datatype: datatype.map(Into::into),
            language: language.map(Into::into),
        }
    }

    #[test]
    fn each_step_can_be_switched_off() {
        let on = Normalisation::default();
        let pairs = [
            (AnswerValue::plain(" x\n"), AnswerValue::plain("x"), "trim"),
            (AnswerValue::Boolean("True".into()), AnswerValue::Boolean("true".into()), "boolean-case"),
            (AnswerValue::Iri("http://x.org/%41".into()), AnswerValue::Iri("http://x.org/A".into()), "iri"),
            (AnswerValue::Number("42".into()), literal("42.0", Some(&format!("{XSD}decimal")), None), "numbers"),
            (AnswerValue::Date("1886-10-28".into()), literal("1886-10-28T00:00:00Z", None, None), "dates"),
        ];
        for (i, (a, b, what)) in pairs.iter().enumerate() {
            assert_eq!(on.key(a), on.key(b), "{what} with every step on");
            let mut off = on;
            match i {
                0 => off.trim = false,
                1 => off.boolean_case = false,
                2 => off.iri_percent_decoding = false,
                3 => off.numbers_as_decimals = false,
                _ => off.date_part = false,
            }
            assert_ne!(off.key(a), off.key(b), "{what} off");
        }
    }

    #[test]
    fn literal_type_respected_on_request() {
        let a = literal("Berlin", None, Some("en"));
        let b = literal("Berlin", None, Some("de"));
        assert_eq!(Normalisation::default().key(&a), Normalisation::default().key(&b));
        let strict = Normalisation { respect_literal_type: true, ..Normalisation::default() };
        assert_ne!(strict.key(&a), strict.key(&b));
        assert_ne!(
            strict.key(&AnswerValue::plain("1")),
            strict.key(&literal("1", Some(&format!("{XSD}string")), None))
        );
    }

    #[test]
    fn iris_never_equal_literals() {
        let n = Normalisation::default();
        assert_ne!(n.key(&AnswerValue::Iri("http://x.org/a".into())), n.key(&AnswerValue::plain("http://x.org/a")));
    }

    #[test]
    fn date_parts() {
        assert_eq!(date_part("1886-10-28T00:00:00Z"), Some("1886-10-28"));
        assert_eq!(date_part("-0044-03-15"), Some("-0044-03-15"));
        assert_eq!(date_part("1886-10-28+02:00"), Some("1886-10-28"));
        assert_eq!(date_part("1886"), None);
        assert_eq!(date_part("1886-10-281"), None);
    }

    #[test]
    fn invalid_utf8_escapes_stay_encoded() {
        assert_eq!(decode_iri("http://x.org/%ff%41%"), "http://x.org/%FFA%");
    }
}
