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
//! (the four children in any order, `measure` with or without `rdf:datatype`, any XML
//! whitespace between tags). It reads such a `<map>` straight from the bytes, without
//! tokens, attribute lists or allocation, and only when the general path would read it the
//! same way without an error: the `rdf` prefix bound to the RDF namespace, no `&`, no `<`
//! in values, IRIs absolute or no `xml:base` in scope, a finite measure, each child once.
//! Anything else (comments, other attributes, `rdf:about` on the cell, EDOAL, …) leaves the
//! `<map>` to the general path, which starts exactly where the fast path stopped.

use std::borrow::Cow;

use super::parser::{has_scheme, Parser};
use super::records::CellRecord;
use crate::align::measure::measure_value;
use crate::align::RDF_NS;

/// A canonical cell, read but not yet recorded.
struct Canonical<'a> {
    /// `<Cell` offset.
    at: usize,
    /// Entity IRIs with their offsets (document order decides which is recorded first).
    entity: [Option<(&'a str, usize)>; 2],
    /// Relation text and the offset of `</relation>`.
    relation: Option<(&'a str, usize)>,
    /// Trimmed measure text, its value and the offset of `</measure>`.
    measure: Option<(&'a str, f64, usize)>,
}

impl<'a> Parser<'a, '_> {
    /// Reads canonical `<map>` elements from `from` on (the parser is inside `Alignment`);
    /// returns where the first other content starts.
    pub(super) fn fast_maps(&mut self, mut from: usize, end: usize) -> usize {
        if self.namespace("rdf") != Some(RDF_NS) {
            return from;
        }
        let doc: &'a str = self.doc;
        let bytes = &doc.as_bytes()[..end];
        while let Some((cell, next)) = canonical_map(doc, bytes, skip_ws(bytes, from)) {
            if !self.bases.is_empty() && cell.entity.iter().flatten().any(|(iri, _)| !has_scheme(iri)) {
                break;
            }
            self.record(&cell);
            from = next;
        }
        from
    }

    /// Records a canonical cell as the general path would: IRIs in document order, the
    /// warnings of `measure` and `relation` in document order.
    fn record(&mut self, cell: &Canonical<'a>) {
        let line = self.line_of(cell.at);
        let mut entity = [0u32; 2];
        let [first, second] = match cell.entity {
            [Some(a), Some(b)] if b.1 < a.1 => [(1, b), (0, a)],
            [Some(a), Some(b)] => [(0, a), (1, b)],
            _ => return,
        };
        for (side, (iri, _)) in [first, second] {
            entity[side] = self.out.term(Cow::Borrowed(iri));
        }
        let mut relation = kgeval_model::Relation::Equivalence;
        let mut confidence = 1.0;
        let measure_first = match (cell.measure, cell.relation) {
            (Some((_, _, m)), Some((_, r))) => m < r,
            _ => true,
        };
        for step in if measure_first { [0, 1] } else { [1, 0] } {
            if step == 0 {
                if let Some((raw, value, at)) = cell.measure {
                    // Validated by `canonical_map`: only the out-of-range warning remains.
                    let _ = self.measure(raw, at);
                    confidence = value;
                }
            } else if let Some((raw, at)) = cell.relation {
                relation = self.relation(raw, at);
            }
        }
        self.out.cells.push(CellRecord { entity, relation, confidence, line, at: cell.at });
    }
}

/// Reads one canonical `<map>` at `i`; `None` when it is not one.
fn canonical_map<'a>(doc: &'a str, bytes: &[u8], i: usize) -> Option<(Canonical<'a>, usize)> {
    let mut i = expect(bytes, i, b"<map>")?;
    i = skip_ws(bytes, i);
    let at = i;
    i = expect(bytes, i, b"<Cell>")?;
    let mut cell = Canonical { at, entity: [None, None], relation: None, measure: None };
    loop {
        i = skip_ws(bytes, i);
        let rest = bytes.get(i..)?;
        if rest.starts_with(b"</Cell>") {
            i += 7;
            break;
        }
        if rest.starts_with(b"<entity1 ") || rest.starts_with(b"<entity2 ") {
            let side = usize::from(rest[7] == b'2');
            let j = expect(bytes, skip_ws(bytes, i + 9), b"rdf:resource=\"")?;
            let (iri, j) = value(doc, bytes, j)?;
            if cell.entity[side].is_some() || iri.trim().is_empty() {
                return None;
            }
            cell.entity[side] = Some((iri, j));
            i = expect(bytes, skip_ws(bytes, j + 1), b"/>")?;
        } else if rest.starts_with(b"<relation>") {
            let (text, close) = text(doc, bytes, i + 10)?;
            if cell.relation.is_some() {
                return None;
            }
            cell.relation = Some((text, close));
            i = expect(bytes, close, b"</relation>")?;
        } else if rest.starts_with(b"<measure") {
            let mut j = i + 8;
            if bytes.get(j) != Some(&b'>') {
                let k = skip_ws(bytes, j);
                if k == j {
                    return None;
                }
                let k = expect(bytes, k, b"rdf:datatype=\"")?;
                let (_, k) = value(doc, bytes, k)?;
                j = skip_ws(bytes, k + 1);
            }
            j = expect(bytes, j, b">")?;
            let (text, close) = text(doc, bytes, j)?;
            let raw = text.trim();
            let value = measure_value(raw)?;
            if cell.measure.is_some() {
                return None;
            }
            cell.measure = Some((raw, value, close));
            i = expect(bytes, close, b"</measure>")?;
        } else {
            return None;
        }
    }
    cell.entity[0]?;
    cell.entity[1]?;
    i = expect(bytes, skip_ws(bytes, i), b"</map>")?;
    Some((cell, i))
}

/// After `prefix` at `i`, or `None`.
fn expect(bytes: &[u8], i: usize, prefix: &[u8]) -> Option<usize> {
    bytes.get(i..)?.starts_with(prefix).then_some(i + prefix.len())
}

/// Skips XML whitespace.
fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        i += 1;
    }
    i
}

/// A `"`-quoted attribute value starting at `i` without `&` or `<`; returns it and the offset
/// of the closing quote.
fn value<'a>(doc: &'a str, bytes: &[u8], i: usize) -> Option<(&'a str, usize)> {
    let len = memchr::memchr(b'"', bytes.get(i..)?)?;
    let value = doc.get(i..i + len)?;
    (memchr::memchr2(b'&', b'<', value.as_bytes()).is_none()).then_some((value, i + len))
}

/// Element text from `i` up to the next `<`, without `&`; returns it and the offset of `<`.
fn text<'a>(doc: &'a str, bytes: &[u8], i: usize) -> Option<(&'a str, usize)> {
    let len = memchr::memchr2(b'<', b'&', bytes.get(i..)?)?;
    if bytes[i + len] != b'<' {
        return None;
    }
    Some((doc.get(i..i + len)?, i + len))
}
