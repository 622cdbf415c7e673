//! One JSON object per line (pools, JSONL gold keys, JSONL submissions), read with serde_json
//! through seeds that intern IRIs as they are read and keep the key order of `scores`.

use std::collections::HashSet;
use std::fmt;

use kgeval_model::{Interner, TermId};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::text::{quoted, Line, Source};
use crate::FormatError;

/// Which object a line holds, and so which keys are read (others are ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineKind {
    /// `{"qid", "source", "type", "candidates"}`.
    Pool,
    /// `{"qid", "gold"}`.
    Gold,
    /// `{"qid", "ranking"}` or `{"qid", "scores"}`.
    Submission,
}

/// The keys of one line, each `None` when absent.
#[derive(Debug, Default)]
pub(crate) struct JsonLine {
    pub(crate) qid: Option<Box<str>>,
    pub(crate) source: Option<TermId>,
    pub(crate) entity_type: Option<Option<Box<str>>>,
    pub(crate) candidates: Option<Vec<TermId>>,
    pub(crate) ranking: Option<Vec<TermId>>,
    pub(crate) scores: Option<Vec<(TermId, f64)>>,
    pub(crate) gold: Option<TermId>,
}

/// Reads one line as a JSON object of `kind`.
pub(crate) fn parse_line(
    src: &Source<'_>,
    line: &Line<'_>,
    kind: LineKind,
    interner: &mut Interner,
    nil_iri: &str,
) -> Result<JsonLine, FormatError> {
    let mut deserializer = serde_json::Deserializer::from_str(line.text);
    let seed = LineSeed { kind, interner, nil_iri };
    seed.deserialize(&mut deserializer)
        .and_then(|parsed| deserializer.end().map(|()| parsed))
        .map_err(|e| json_error(src, line.offset, line.text, &e))
}

/// The error for a key that a line lacks.
pub(crate) fn missing_key(src: &Source<'_>, line: &Line<'_>, key: &str, expected: &str) -> FormatError {
    src.error(line.offset, format!("found an object without `{key}`, expected {expected}"))
}

/// The byte offset of `"key"` in a line (its start when absent), for errors about a key.
pub(crate) fn key_offset(line: &Line<'_>, key: &str) -> usize {
    let needle = format!("\"{key}\"");
    line.offset + line.text.find(&needle).unwrap_or(0)
}

/// Converts a serde_json error on `text` (which starts at byte `base` of the input) into a
/// located `found …, expected …` error.
pub(crate) fn json_error(src: &Source<'_>, base: usize, text: &str, error: &serde_json::Error) -> FormatError {
    let offset = base + offset_in(text, error.line(), error.column());
    src.error(offset, rephrase(error))
}

/// The byte offset of serde_json's 1-based line and (byte) column in `text`.
pub(crate) fn offset_in(text: &str, line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        memchr::memchr_iter(b'\n', text.as_bytes()).nth(line - 2).map_or(text.len(), |i| i + 1)
    };
    let mut offset = (line_start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// serde_json's message without its position, as `found …, expected …`.
fn rephrase(error: &serde_json::Error) -> String {
    let full = error.to_string();
    let message = match full.rfind(" at line ") {
        Some(cut) if error.line() > 0 => &full[..cut],
        _ => full.as_str(),
    };
    if message.starts_with("found ") {
        return message.to_owned();
    }
    for prefix in ["invalid type: ", "invalid value: ", "invalid length: "] {
        if let Some(rest) = message.strip_prefix(prefix) {
            // serde's names of JSON kinds, in JSON's words.
            let rest = [
                ("sequence", "an array"),
                ("map", "an object"),
                ("unit value", "null"),
                ("floating point", "the number"),
            ]
            .iter()
            .find_map(|(serde, json)| rest.strip_prefix(serde).map(|tail| format!("{json}{tail}")))
            .unwrap_or_else(|| rest.to_owned());
            return format!("found {rest}");
        }
    }
    if let Some(rest) = message.strip_prefix("missing field ") {
        return format!("found an object without {rest}, expected every required key");
    }
    if let Some(what) = message.strip_prefix("EOF while parsing ") {
        let inside = match what {
            "a list" => " inside an array",
            "an object" => " inside an object",
            "a string" => " inside a string",
            _ => "",
        };
        return format!("found the end of the line{inside}, expected the rest of the JSON value");
    }
    if message.starts_with("expected ") {
        return format!("found invalid JSON, {message}");
    }
    format!("found invalid JSON ({message}), expected one JSON object per line")
}

struct LineSeed<'i> {
    kind: LineKind,
    interner: &'i mut Interner,
    nil_iri: &'i str,
}

/// A key of a line object.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Qid,
    Source,
    Type,
    Candidates,
    Ranking,
    Scores,
    Gold,
    Other,
}

impl Key {
    fn name(self) -> &'static str {
        match self {
            Key::Qid => "qid",
            Key::Source => "source",
            Key::Type => "type",
            Key::Candidates => "candidates",
            Key::Ranking => "ranking",
            Key::Scores => "scores",
            Key::Gold => "gold",
            Key::Other => "?",
        }
    }
}

struct KeySeed(LineKind);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(match (self.0, key) {
            (_, "qid") => Key::Qid,
            (LineKind::Pool, "source") => Key::Source,
            (LineKind::Pool, "type") => Key::Type,
            (LineKind::Pool, "candidates") => Key::Candidates,
            (LineKind::Submission, "ranking") => Key::Ranking,
            (LineKind::Submission, "scores") => Key::Scores,
            (LineKind::Gold, "gold") => Key::Gold,
            _ => Key::Other,
        })
    }
}

impl<'de> DeserializeSeed<'de> for LineSeed<'_> {
    type Value = JsonLine;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<JsonLine, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LineSeed<'_> {
    type Value = JsonLine;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonLine, A::Error> {
        let mut line = JsonLine::default();
        while let Some(key) = map.next_key_seed(KeySeed(self.kind))? {
            let repeated = match key {
                Key::Qid => line.qid.replace(map.next_value_seed(QidSeed)?).is_some(),
                Key::Source => line
                    .source
                    .replace(map.next_value_seed(TermSeed { interner: self.interner, key: "source" })?)
                    .is_some(),
                Key::Type => line.entity_type.replace(map.next_value_seed(TypeSeed)?).is_some(),
                Key::Candidates => {
                    let seed = TermListSeed { interner: self.interner, key: "candidates", distinct: true };
                    line.candidates.replace(map.next_value_seed(seed)?).is_some()
                }
                Key::Ranking => {
                    let seed = TermListSeed { interner: self.interner, key: "ranking", distinct: false };
                    line.ranking.replace(map.next_value_seed(seed)?).is_some()
                }
                Key::Scores => {
                    line.scores.replace(map.next_value_seed(ScoresSeed { interner: self.interner })?).is_some()
                }
                Key::Gold => {
                    let gold = map.next_value_seed(TermSeed { interner: self.interner, key: "gold" })?;
                    let gold = if self.interner.resolve(gold) == super::BIOML_UNMATCHED {
                        self.interner.intern(self.nil_iri)
                    } else {
                        gold
                    };
                    line.gold.replace(gold).is_some()
                }
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                    false
                }
            };
            if repeated {
                return Err(de::Error::custom(format!(
                    "found `{}` twice in one object, expected each key once",
                    key.name()
                )));
            }
        }
        Ok(line)
    }
}

/// A qid: an integer (kept as its decimal text) or a non-empty string.
struct QidSeed;

impl<'de> DeserializeSeed<'de> for QidSeed {
    type Value = Box<str>;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Box<str>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for QidSeed {
    type Value = Box<str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`qid` to be an integer or a string")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Box<str>, E> {
        Ok(v.to_string().into())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Box<str>, E> {
        Ok(v.to_string().into())
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Box<str>, E> {
        if v.trim().is_empty() {
            return Err(E::custom("found an empty `qid`, expected an integer or a non-empty string"));
        }
        Ok(v.into())
    }
}

/// A string, interned.
struct TermSeed<'i> {
    interner: &'i mut Interner,
    key: &'static str,
}

impl<'de> DeserializeSeed<'de> for TermSeed<'_> {
    type Value = TermId;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<TermId, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for TermSeed<'_> {
    type Value = TermId;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` to be a string (an IRI)", self.key)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<TermId, E> {
        if v.trim().is_empty() {
            return Err(E::custom(format!("found an empty string in `{}`, expected an IRI", self.key)));
        }
        Ok(self.interner.intern(v))
    }
}

/// `type`: a string or null.
struct TypeSeed;

impl<'de> DeserializeSeed<'de> for TypeSeed {
    type Value = Option<Box<str>>;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for TypeSeed {
    type Value = Option<Box<str>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`type` to be a string (CLS, OPROP, DPROP) or null")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.into()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// An array of strings, interned; with `distinct`, a repeated string is an error.
struct TermListSeed<'i> {
    interner: &'i mut Interner,
    key: &'static str,
    distinct: bool,
}

impl<'de> DeserializeSeed<'de> for TermListSeed<'_> {
    type Value = Vec<TermId>;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Vec<TermId>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TermListSeed<'_> {
    type Value = Vec<TermId>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` to be an array of IRI strings", self.key)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<TermId>, A::Error> {
        let mut terms = Vec::with_capacity(seq.size_hint().unwrap_or(64));
        let mut seen = HashSet::new();
        while let Some(term) = seq.next_element_seed(TermSeed { interner: self.interner, key: self.key })? {
            if self.distinct && !seen.insert(term) {
                let first = terms.iter().position(|&t| t == term).map_or(0, |i| i + 1);
                return Err(de::Error::custom(format!(
                    "found {} again in `{}` (item {} repeats item {first}), expected distinct candidates",
                    quoted(self.interner.resolve(term)),
                    self.key,
                    terms.len() + 1
                )));
            }
            terms.push(term);
        }
        Ok(terms)
    }
}

/// `scores`: an object IRI → number, in key order; a repeated IRI is an error.
struct ScoresSeed<'i> {
    interner: &'i mut Interner,
}

impl<'de> DeserializeSeed<'de> for ScoresSeed<'_> {
    type Value = Vec<(TermId, f64)>;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ScoresSeed<'_> {
    type Value = Vec<(TermId, f64)>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`scores` to be an object of IRI: number")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut scores: Vec<(TermId, f64)> = Vec::with_capacity(map.size_hint().unwrap_or(64));
        let mut seen = HashSet::new();
        while let Some(term) = map.next_key_seed(TermSeed { interner: self.interner, key: "scores" })? {
            let score = map.next_value_seed(ScoreSeed)?;
            if !seen.insert(term) {
                return Err(de::Error::custom(format!(
                    "found {} twice in `scores`, expected each candidate once",
                    quoted(self.interner.resolve(term))
                )));
            }
            scores.push((term, score));
        }
        Ok(scores)
    }
}

/// A score: any JSON number.
struct ScoreSeed;

impl<'de> DeserializeSeed<'de> for ScoreSeed {
    type Value = f64;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<f64, D::Error> {
        deserializer.deserialize_f64(self)
    }
}

impl Visitor<'_> for ScoreSeed {
    type Value = f64;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a score (a number)")
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        Ok(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }
}
