//! The fast path for the canonical cell layout that OAEI tools write:
//!
//! ```text
//! <map>
//!   <Cell>
//!     <entity1 rdf:resource="…"/>
//!     <entity2 rdf:resource="…"/>
//!     <relation>=</relation>
//!     <measure rdf:datatype="…">0.75</measure>
//!   </Cell>
//! </map>
//! ```
//!
//! (the four children in any order, `measure` with or without `rdf:datatype`, plain attributes
//! on `<Cell>` such as MELT's `cid='1'` or an `rdf:about`, attribute values in `"` or `'`, any
//! XML whitespace between tags and around `=`, `rdf:datatype` as an IRI, a CURIE such as
//! `xsd:float` or an entity reference such as `&xsd;float`). It reads such a `<map>` straight
//! from the bytes, without tokens or attribute lists, and only when the general path would read
//! it the same way without an error: the `rdf` prefix bound to the RDF namespace, no `<` in
//! values, IRIs absolute or no `xml:base` in scope, a finite measure, each child once.
//! References (`&amp;`, `&#38;`, entities of the internal DTD) in values and text are expanded
//! exactly as the general path expands them, through the same bounded expansion (the DTD's
//! declared entities, the document's expansion budget); a `<map>` the fast path gives up on is
//! charged nothing. Anything else (comments, other attributes, namespace declarations or
//! `xml:base` on the cell, EDOAL, a reference that does not resolve, …) leaves the `<map>` to
//! the general path, which starts exactly where the fast path stopped.

use std::borrow::Cow;

use super::parser::{has_scheme, Parser};
use super::records::CellRecord;
use crate::align::measure::{is_out_of_range, measure_value};
use crate::align::RDF_NS;

/// A canonical cell, read but not yet recorded.
struct Canonical<'a> {
    /// `<Cell` offset.
    at: usize,
    /// Entity IRIs with their offsets (document order decides which is recorded first).
    entity: [Option<(Cow<'a, str>, usize)>; 2],
    /// Relation text and the offset of `</relation>`.
    relation: Option<(Cow<'a, str>, usize)>,
    /// Trimmed measure text, its value and the offset of `</measure>`.
    measure: Option<(Cow<'a, str>, f64, usize)>,
}

impl<'a> Parser<'a, '_> {
    /// Reads canonical `<map>` elements from `from` on (the parser is inside `Alignment`);
    /// returns where the first other content starts.
    pub(super) fn fast_maps(&mut self, mut from: usize, end: usize) -> usize {
        if self.namespace("rdf") != Some(RDF_NS) {
            return from;
        }
        let bytes = &self.doc.as_bytes()[..end];
        loop {
            let budget = self.expansion_budget;
            let Some((cell, next)) = self.canonical_map(bytes, skip_ws(bytes, from)) else {
                // Whatever was expanded is expanded (and charged) again by the general path.
                self.expansion_budget = budget;
                break;
            };
            if !self.bases.is_empty() && cell.entity.iter().flatten().any(|(iri, _)| !has_scheme(iri)) {
                self.expansion_budget = budget;
                break;
            }
            self.record(cell);
            from = next;
        }
        from
    }

    /// Records a canonical cell as the general path would: IRIs in document order, the
    /// warnings of `measure` and `relation` in document order.
    fn record(&mut self, cell: Canonical<'a>) {
        let line = self.line_of(cell.at);
        let mut entity = [0u32; 2];
        let [Some(a), Some(b)] = cell.entity else { return };
        let [first, second] = if b.1 < a.1 { [(1, b), (0, a)] } else { [(0, a), (1, b)] };
        for (side, (iri, _)) in [first, second] {
            entity[side] = self.out.term(&iri);
        }
        let mut relation = kgeval_model::Relation::Equivalence;
        let mut confidence = 1.0;
        let measure_first = match (&cell.measure, &cell.relation) {
            (Some((_, _, m)), Some((_, r))) => m < r,
            _ => true,
        };
        for step in if measure_first { [0, 1] } else { [1, 0] } {
            if step == 0 {
                if let Some((raw, value, at)) = &cell.measure {
                    // Validated by `canonical_map`: only the out-of-range warning remains.
                    if is_out_of_range(*value) {
                        let _ = self.measure(raw, *at);
                    }
                    confidence = *value;
                }
            } else if let Some((raw, at)) = &cell.relation {
                relation = self.relation(raw, *at);
            }
        }
        self.out.cells.push(CellRecord { entity, relation, confidence, line, at: cell.at });
        self.out.fast += 1;
    }

    /// Reads one canonical `<map>` at `i`; `None` when it is not one.
    fn canonical_map(&mut self, bytes: &'a [u8], i: usize) -> Option<(Canonical<'a>, usize)> {
        let doc: &'a str = self.doc;
        let mut i = expect(bytes, i, b"<map>")?;
        i = skip_ws(bytes, i);
        let at = i;
        i = self.cell_start(doc, bytes, expect(bytes, i, b"<Cell")?)?;
        let mut cell = Canonical { at, entity: [None, None], relation: None, measure: None };
        loop {
            i = skip_ws(bytes, i);
            let rest = bytes.get(i..)?;
            if rest.starts_with(b"</Cell>") {
                i += 7;
                break;
            }
            if rest.starts_with(b"<entity1") || rest.starts_with(b"<entity2") {
                let side = usize::from(rest[7] == b'2');
                let j = attribute(bytes, i + 8, b"rdf:resource")?;
                let (raw, j, refs) = value(doc, bytes, j)?;
                let iri = self.expand(raw, j - raw.len(), refs)?;
                if cell.entity[side].is_some() || iri.trim().is_empty() {
                    return None;
                }
                cell.entity[side] = Some((iri, j));
                i = expect(bytes, skip_ws(bytes, j + 1), b"/>")?;
            } else if rest.starts_with(b"<relation>") {
                let (text, close, refs) = text(doc, bytes, i + 10)?;
                let text = self.expand(text, i + 10, refs)?;
                if cell.relation.is_some() {
                    return None;
                }
                cell.relation = Some((text, close));
                i = expect(bytes, close, b"</relation>")?;
            } else if rest.starts_with(b"<measure") {
                let mut j = i + 8;
                if bytes.get(j) != Some(&b'>') {
                    let k = attribute(bytes, j, b"rdf:datatype")?;
                    let (datatype, k, refs) = value(doc, bytes, k)?;
                    if refs && datatype != self.datatype_checked {
                        // Checked, not expanded (and not charged), as the general path does;
                        // the same value as the last cell's is not checked again.
                        self.validate_refs(datatype, k - datatype.len(), "attribute value").ok()?;
                        self.datatype_checked = datatype;
                    }
                    j = skip_ws(bytes, k + 1);
                }
                j = expect(bytes, j, b">")?;
                let (text, close, refs) = text(doc, bytes, j)?;
                let raw = match self.expand(text, j, refs)? {
                    Cow::Borrowed(text) => Cow::Borrowed(text.trim()),
                    Cow::Owned(text) => Cow::Owned(text.trim().to_owned()),
                };
                let value = measure_value(&raw)?;
                if cell.measure.is_some() {
                    return None;
                }
                cell.measure = Some((raw, value, close));
                i = expect(bytes, close, b"</measure>")?;
            } else {
                return None;
            }
        }
        cell.entity[0].as_ref()?;
        cell.entity[1].as_ref()?;
        i = expect(bytes, skip_ws(bytes, i), b"</map>")?;
        Some((cell, i))
    }

    /// The attributes of `<Cell` from `i` (just after the name) to `>`, which the general path
    /// checks and ignores: MELT's `cid='1'`, an `rdf:about`. Taken when the general path would
    /// take them without an error or an effect: unprefixed names other than `xmlns` or the
    /// `rdf:` prefix (bound, see [`Parser::fast_maps`]), each once, quoted values without `<`,
    /// their references checked (not expanded) as the general path checks them. Returns the
    /// offset after `>`; `None` for anything else (`xml:base`, a namespace declaration, …).
    fn cell_start(&mut self, doc: &'a str, bytes: &'a [u8], mut i: usize) -> Option<usize> {
        let mut names: [&[u8]; 4] = [b""; 4];
        for seen in 0..=names.len() {
            let j = skip_ws(bytes, i);
            if bytes.get(j) == Some(&b'>') {
                return Some(j + 1);
            }
            if j == i || seen == names.len() {
                return None;
            }
            let local = bytes.get(j..)?.strip_prefix(b"rdf:").map_or(j, |_| j + 4);
            let mut k = local;
            while bytes.get(k).is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')) {
                k += 1;
            }
            let name = &bytes[j..k];
            if k == local || !(bytes[local].is_ascii_alphabetic() || bytes[local] == b'_') {
                return None;
            }
            if name.eq_ignore_ascii_case(b"xmlns") || names[..seen].contains(&name) {
                return None;
            }
            names[seen] = name;
            let k = skip_ws(bytes, expect(bytes, skip_ws(bytes, k), b"=")?);
            let (raw, close, refs) = value(doc, bytes, k)?;
            if refs {
                self.validate_refs(raw, close - raw.len(), "attribute value").ok()?;
            }
            i = close + 1;
        }
        None
    }

    /// `raw` (at offset `at`) with its references expanded as the general path expands them;
    /// `None` when one does not resolve (the general path then reports it). `refs`: whether
    /// `raw` holds a `&` (the scan that found `raw` knows).
    fn expand(&mut self, raw: &'a str, at: usize, refs: bool) -> Option<Cow<'a, str>> {
        if !refs {
            return Some(Cow::Borrowed(raw));
        }
        let mut out = String::with_capacity(raw.len() + 32);
        self.unescape_into(raw, at, &mut out, "text").ok()?;
        Some(Cow::Owned(out))
    }
}

/// After whitespace, `name`, optional whitespace, `=` and optional whitespace at `i`: the
/// offset of the opening quote; `None` otherwise (the whitespace before `name` is required).
fn attribute(bytes: &[u8], i: usize, name: &[u8]) -> Option<usize> {
    let j = skip_ws(bytes, i);
    if j == i {
        return None;
    }
    let j = skip_ws(bytes, expect(bytes, j, name)?);
    Some(skip_ws(bytes, expect(bytes, j, b"=")?))
}

/// After `prefix` at `i`, or `None`.
fn expect(bytes: &[u8], i: usize, prefix: &[u8]) -> Option<usize> {
    bytes.get(i..)?.starts_with(prefix).then_some(i + prefix.len())
}

/// Skips XML whitespace. Indentation runs are a few to a dozen bytes (tabs or spaces after a
/// newline), so they are skipped eight bytes at a time: each byte compared with the four
/// whitespace bytes at once (exact per byte, no borrow between bytes), the first other byte
/// found from the mask's trailing zeros.
fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    /// The high bit of each byte of `x` that equals `byte`.
    fn equal(x: u64, byte: u8) -> u64 {
        let t = x ^ (u64::from(byte) * ONES);
        !(((t & LOW) + LOW) | t) & HIGH
    }
    if !matches!(bytes.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        return i;
    }
    while let Some(chunk) = bytes.get(i..i + 8).and_then(|chunk| <[u8; 8]>::try_from(chunk).ok()) {
        let x = u64::from_le_bytes(chunk);
        let other = !(equal(x, b' ') | equal(x, b'\t') | equal(x, b'\n') | equal(x, b'\r')) & HIGH;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        i += 1;
    }
    i
}

/// A `"`- or `'`-quoted attribute value whose opening quote is at `i`, without `<`; returns
/// it (references not expanded), the offset of the closing quote and whether it holds a `&`.
/// One scan finds the quote and sees `<` and `&` on the way (values are short: one search
/// instead of three).
fn value<'a>(doc: &'a str, bytes: &[u8], i: usize) -> Option<(&'a str, usize, bool)> {
    let quote = *bytes.get(i).filter(|&&q| q == b'"' || q == b'\'')?;
    let start = i + 1;
    let (mut from, mut refs) = (start, false);
    loop {
        let k = from + memchr::memchr3(quote, b'<', b'&', bytes.get(from..)?)?;
        match bytes[k] {
            b'&' => (from, refs) = (k + 1, true),
            b'<' => return None,
            _ => return Some((doc.get(start..k)?, k, refs)),
        }
    }
}

/// Element text from `i` up to the next `<` (references not expanded); returns it, the
/// offset of `<` and whether the text holds a `&`.
fn text<'a>(doc: &'a str, bytes: &[u8], i: usize) -> Option<(&'a str, usize, bool)> {
    let (mut from, mut refs) = (i, false);
    loop {
        let k = from + memchr::memchr2(b'<', b'&', bytes.get(from..)?)?;
        if bytes[k] == b'<' {
            return Some((doc.get(i..k)?, k, refs));
        }
        (from, refs) = (k + 1, true);
    }
}

#[cfg(test)]
mod tests {
    /// The eight-byte skip stops where a byte-by-byte skip stops: at every offset of runs of
    /// every whitespace byte, before every kind of byte (bytes next to whitespace in value,
    /// high bytes, the end of the input).
    #[test]
    fn skip_ws_stops_where_a_byte_loop_stops() {
        let byte_loop = |bytes: &[u8], mut i: usize| {
            while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
                i += 1;
            }
            i
        };
        let ws = [b' ', b'\t', b'\r', b'\n'];
        let others = [b'<', b'a', 0x08, 0x0b, 0x0c, 0x1f, 0x21, 0x29, 0x89, 0x8a, 0xa0, 0xff, 0x00];
        for len in 0..20 {
            for (k, &stop) in others.iter().enumerate() {
                let mut bytes: Vec<u8> = (0..len).map(|j| ws[(j * 7 + k) % 4]).collect();
                bytes.push(stop);
                bytes.extend_from_slice(b"  x");
                for start in 0..bytes.len() {
                    assert_eq!(super::skip_ws(&bytes, start), byte_loop(&bytes, start), "{bytes:?} from {start}");
                }
                bytes.truncate(len);
                for start in 0..=bytes.len() + 1 {
                    assert_eq!(super::skip_ws(&bytes, start), byte_loop(&bytes, start), "{bytes:?} from {start}");
                }
            }
        }
    }
}
