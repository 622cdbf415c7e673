//! Start tags: attributes (parsed by us, borrowed, with positions), namespace bindings,
//! `xml:base`, and what each element means in the Alignment-API vocabulary.

use std::borrow::Cow;

use super::parser::{has_scheme, Binding, Ctx, Field, Mode, Parser, RawAttr};
use super::repair::{is_name_char, is_name_start};
use crate::align::{ALIGN_NS, EDOAL_NS, RDF_NS};
use crate::FormatError;

impl<'a> Parser<'a, '_> {
    /// Parses the attributes of a start tag into `self.attrs`.
    fn parse_attrs(&mut self, raw: &'a str, at: usize, element: &str) -> Result<(), FormatError> {
        self.attrs.clear();
        let bytes = raw.as_bytes();
        let mut i = 0;
        loop {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= bytes.len() {
                return Ok(());
            }
            if i == 0 {
                return Err(self.err(at, format!("found {:?} right after <{element}: expected whitespace", &raw[..1])));
            }
            let name_start = i;
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'=' {
                i += 1;
            }
            let qname = &raw[name_start..i];
            if qname.is_empty() || !is_name_start(qname.as_bytes()[0]) || !qname.bytes().all(is_name_char) {
                let found: String = raw[name_start..].chars().take(20).collect();
                return Err(self.err(
                    at + name_start,
                    format!("found {found:?} in <{element}>: expected an attribute name=\"value\""),
                ));
            }
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if bytes.get(i) != Some(&b'=') {
                return Err(self
                    .err(at + i, format!("attribute '{qname}' of <{element}> has no value: expected {qname}=\"…\"")));
            }
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let Some(&quote @ (b'"' | b'\'')) = bytes.get(i) else {
                let found: String = raw[i..].chars().take(20).collect();
                return Err(self.err(
                    at + i,
                    format!("value of attribute '{qname}' is not quoted (found {found:?}): expected {qname}=\"…\""),
                ));
            };
            let value_start = i + 1;
            let Some(len) = memchr::memchr(quote, &bytes[value_start..]) else {
                return Err(self.err(
                    at + i,
                    format!("unterminated value of attribute '{qname}': expected a closing {}", quote as char),
                ));
            };
            let value = &raw[value_start..value_start + len];
            if let Some(lt) = memchr::memchr(b'<', value.as_bytes()) {
                return Err(self.err(
                    at + value_start + lt,
                    format!("found '<' in the value of attribute '{qname}': expected it escaped as &lt;"),
                ));
            }
            i = value_start + len + 1;
            if self.attrs.iter().any(|a| a.qname == qname) {
                return Err(self.err(
                    at + name_start,
                    format!("duplicate attribute '{qname}' in <{element}>: expected each attribute once"),
                ));
            }
            let (prefix, local) = qname.split_once(':').unwrap_or(("", qname));
            self.attrs.push(RawAttr { prefix, local, qname, value, value_at: at + value_start });
        }
    }

    /// The namespace bound to `prefix` (empty prefix: the default namespace).
    pub(super) fn namespace(&self, prefix: &str) -> Option<&str> {
        if prefix == "xml" {
            return Some("http://www.w3.org/XML/1998/namespace");
        }
        match self.bindings.iter().rev().find(|b| b.prefix == prefix) {
            Some(b) => Some(&b.uri),
            None if prefix.is_empty() => Some(""),
            None => None,
        }
    }

    fn element_namespace(&self, name: &str, at: usize) -> Result<&str, FormatError> {
        let prefix = name.split_once(':').map_or("", |(p, _)| p);
        self.namespace(prefix).ok_or_else(|| {
            self.err(at, format!("namespace prefix '{prefix}' of <{name}> is not declared: expected an xmlns:{prefix}"))
        })
    }

    /// The value of the `rdf:` attribute `local` of the current element, expanded.
    fn rdf_attr(&mut self, local: &str) -> Result<Option<(Cow<'a, str>, usize)>, FormatError> {
        let Some(attr) = self
            .attrs
            .iter()
            .copied()
            .find(|a| a.local == local && !a.prefix.is_empty() && self.namespace(a.prefix) == Some(RDF_NS))
        else {
            return Ok(None);
        };
        if memchr::memchr(b'&', attr.value.as_bytes()).is_none() {
            return Ok(Some((Cow::Borrowed(attr.value), attr.value_at)));
        }
        let mut value = String::new();
        self.unescape_into(attr.value, attr.value_at, &mut value, "attribute value")?;
        Ok(Some((Cow::Owned(value), attr.value_at)))
    }

    /// Records the IRI of an `rdf:resource` / `rdf:about` value, resolved against `xml:base`.
    fn term_iri(&mut self, attr: &str) -> Result<Option<u32>, FormatError> {
        let Some((value, at)) = self.rdf_attr(attr)? else { return Ok(None) };
        Ok(Some(self.term_value(&value, at)?))
    }

    fn term_value(&mut self, value: &str, at: usize) -> Result<u32, FormatError> {
        if value.trim().is_empty() {
            return Err(self.err(at, "found an empty IRI: expected an entity IRI"));
        }
        if !has_scheme(value) {
            if let Some((_, base)) = self.bases.last() {
                if let Ok(base) = oxiri::Iri::parse(base.as_str()) {
                    if let Ok(resolved) = base.resolve(value) {
                        return Ok(self.out.term(resolved.as_str()));
                    }
                }
            }
        }
        Ok(self.out.term(value))
    }

    pub(super) fn start(
        &mut self,
        name: &'a str,
        at: usize,
        raw_attrs: &'a str,
        attrs_at: usize,
    ) -> Result<(), FormatError> {
        self.parse_attrs(raw_attrs, attrs_at, name)?;
        let depth = self.stack.len();
        // Namespace declarations and xml:base apply to the element itself.
        for i in 0..self.attrs.len() {
            let a = self.attrs[i];
            if a.qname == "xmlns" || a.prefix == "xmlns" {
                let prefix = if a.qname == "xmlns" { "" } else { a.local };
                let mut uri = String::new();
                self.unescape_into(a.value, a.value_at, &mut uri, "attribute value")?;
                let uri = if uri == a.value { Cow::Borrowed(a.value) } else { Cow::Owned(uri) };
                self.bindings.push(Binding { depth, prefix, uri });
            } else if a.qname == "xml:base" {
                let mut base = String::new();
                self.unescape_into(a.value, a.value_at, &mut base, "attribute value")?;
                let base = match self.bases.last().and_then(|(_, b)| oxiri::Iri::parse(b.as_str()).ok()) {
                    Some(parent) => parent.resolve(&base).map_or(base, |iri| iri.into_inner()),
                    None => base,
                };
                self.bases.push((depth, base));
            } else if memchr::memchr(b'&', a.value.as_bytes()).is_some() {
                self.validate_refs(a.value, a.value_at, "attribute value")?;
            }
        }
        // Namespace well-formedness: every prefix in use must be bound (cheap: a short scan).
        if name.contains(':') {
            self.element_namespace(name, at)?;
        }
        for a in &self.attrs {
            if !a.prefix.is_empty() && a.prefix != "xmlns" && self.namespace(a.prefix).is_none() {
                return Err(self.err(
                    a.value_at.saturating_sub(a.qname.len() + 2),
                    format!(
                        "namespace prefix '{}' of attribute '{}' is not declared: expected an xmlns:{}",
                        a.prefix, a.qname, a.prefix
                    ),
                ));
            }
        }
        let local = name.rsplit_once(':').map_or(name, |(_, l)| l);
        let parent = self.stack.last().copied();
        let ctx = match parent {
            None => {
                if self.root_done {
                    return Err(self
                        .err(at, format!("found <{name}> after the root element: expected the end of the document")));
                }
                self.root_seen = true;
                let ns = self.element_namespace(name, at)?;
                if local == "RDF" && ns == RDF_NS {
                    Ctx::Rdf
                } else if local == "Alignment" && is_align_ns(ns) {
                    self.alignments += 1;
                    Ctx::Alignment
                } else {
                    return Err(self.err(
                        at,
                        format!(
                            "found root element <{name}> (namespace {ns:?}): expected <rdf:RDF> or an Alignment element in namespace {ALIGN_NS}#"
                        ),
                    ));
                }
            }
            Some(Ctx::Rdf) => {
                let ns = self.element_namespace(name, at)?;
                if local == "Alignment" && is_align_ns(ns) {
                    self.alignments += 1;
                    Ctx::Alignment
                } else if local == "Alignment" || local == "Cell" {
                    return Err(self.err(
                        at,
                        format!("expected an Alignment element in namespace {ALIGN_NS}#, found <{name}> in namespace {ns:?}"),
                    ));
                } else {
                    if self.first_other.is_none() {
                        self.first_other = Some((at, format!("<{name}> in namespace {ns:?}")));
                    }
                    Ctx::Skip
                }
            }
            Some(Ctx::Alignment) => match local {
                "map" => Ctx::Map,
                "Cell" => {
                    return Err(self.err(at, "found <Cell> directly inside <Alignment>: expected it inside <map>"));
                }
                "level" => Ctx::Field(Field::Level),
                "type" => Ctx::Field(Field::Type),
                "onto1" | "onto2" => {
                    let side = usize::from(local == "onto2");
                    if let Some((iri, _)) = self.rdf_attr("resource")? {
                        self.set_onto(side, iri.into_owned());
                    }
                    Ctx::Field(Field::Onto(side))
                }
                "uri1" | "uri2" => Ctx::Field(Field::Uri(usize::from(local == "uri2"))),
                _ => Ctx::Skip,
            },
            Some(Ctx::Map) => {
                if local == "Cell" {
                    self.start_cell(at);
                    Ctx::Cell
                } else {
                    return Err(self.err(
                        at,
                        format!("found <{name}> inside <map>: expected <Cell> (for other RDF/XML shapes read the file as RDF triples)"),
                    ));
                }
            }
            Some(Ctx::Cell) => match local {
                "entity1" | "entity2" => {
                    let side = usize::from(local == "entity2");
                    if let Some(id) = self.term_iri("resource")? {
                        self.cell.entity[side].get_or_insert(id);
                    }
                    self.text.clear();
                    Ctx::Entity(side)
                }
                "measure" => {
                    self.text.clear();
                    Ctx::Measure
                }
                "relation" => {
                    self.text.clear();
                    Ctx::Relation
                }
                "Cell" => return Err(self.err(at, "found <Cell> inside <Cell>: expected </Cell> first")),
                _ => Ctx::Skip,
            },
            Some(Ctx::Entity(side)) => {
                let ns = self.element_namespace(name, at)?;
                if is_edoal_ns(ns) {
                    self.cell.edoal.get_or_insert_with(|| format!("<{name}>"));
                } else {
                    match self.term_iri("about")? {
                        Some(id) => {
                            self.cell.entity[side].get_or_insert(id);
                        }
                        None => {
                            self.cell.edoal.get_or_insert_with(|| format!("<{name}> without rdf:about"));
                        }
                    }
                }
                Ctx::EntityInner(side, true)
            }
            Some(Ctx::EntityInner(side, _)) => {
                let ns = self.element_namespace(name, at)?;
                if is_edoal_ns(ns) {
                    self.cell.edoal.get_or_insert_with(|| format!("<{name}>"));
                }
                Ctx::EntityInner(side, false)
            }
            Some(Ctx::Field(Field::Onto(side))) => {
                if let Some((iri, _)) = self.rdf_attr("about")? {
                    self.set_onto(side, iri.into_owned());
                }
                Ctx::Field(Field::OntoInner(side))
            }
            Some(Ctx::Field(Field::OntoInner(side))) => Ctx::Field(Field::OntoInner(side)),
            Some(Ctx::Measure | Ctx::Relation | Ctx::Field(_) | Ctx::Skip) => Ctx::Skip,
        };
        if let Ctx::Field(field) = ctx {
            if matches!(self.mode, Mode::Part { header: false, .. }) {
                // The header belongs to the prolog; a stretch of the body must not change it.
                return Err(self.give_up());
            }
            if !matches!(field, Field::OntoInner(_)) {
                // Text left over from a cell must not leak into a header field.
                self.text.clear();
            }
        }
        self.stack.push(ctx);
        self.starts.push((at, name));
        Ok(())
    }
}

fn is_align_ns(ns: &str) -> bool {
    ns.strip_prefix(ALIGN_NS).is_some_and(|rest| rest.is_empty() || rest == "#")
}

fn is_edoal_ns(ns: &str) -> bool {
    ns.strip_prefix(EDOAL_NS).is_some_and(|rest| rest.is_empty() || rest == "#")
}
