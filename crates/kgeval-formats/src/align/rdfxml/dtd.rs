//! The internal DTD subset: `<!ENTITY>` declarations, bounded entity expansion (depth and
//! size), character references and unescaping of text and attribute values. External
//! entities are never opened. The document has passed [`crate::xml_guard`] before (external
//! entities refused, every entity's size bounded); the bounds and messages here are the
//! guard's, and the document's expansion budget is charged as references are expanded.

use super::repair::{is_name_char, reference_len};
use super::Parser;
use crate::FormatError;

use crate::xml_guard::{external_entity_message, too_deep_message, too_large_message};
pub(super) use crate::xml_guard::{MAX_ENTITY_DEPTH, MAX_ENTITY_SIZE};

/// An entity declared in the internal DTD subset.
#[derive(Clone)]
pub(super) enum EntityDef<'a> {
    /// Replacement text as written (may contain references).
    Internal(&'a str),
    /// `SYSTEM` / `PUBLIC`: never read; referencing it is an error.
    External(String),
}

impl<'a> Parser<'a, '_> {
    /// Parses the internal subset of a `<!DOCTYPE …>` for `<!ENTITY>` declarations.
    pub(super) fn doctype(&mut self, content: &'a str, at: usize) -> Result<(), FormatError> {
        let bytes = content.as_bytes();
        // Skip the root name and an optional external id up to `[`.
        let mut i = 0;
        let mut quote = None;
        while i < bytes.len() {
            match (quote, bytes[i]) {
                (None, b'[') => break,
                (None, q @ (b'"' | b'\'')) => quote = Some(q),
                (Some(q), b) if b == q => quote = None,
                _ => {}
            }
            i += 1;
        }
        if i >= bytes.len() {
            return Ok(()); // No internal subset; an external DTD is never read.
        }
        i += 1;
        loop {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let rest = &content[i..];
            if rest.is_empty() || rest.starts_with(']') {
                return Ok(());
            }
            if rest.starts_with("<!--") {
                let end =
                    rest.find("-->").ok_or_else(|| self.err(at + i, "unclosed comment in the DTD: expected -->"))?;
                i += end + 3;
            } else if rest.starts_with("<?") {
                let end = rest
                    .find("?>")
                    .ok_or_else(|| self.err(at + i, "unclosed processing instruction in the DTD: expected ?>"))?;
                i += end + 2;
            } else if rest.starts_with('%') {
                let end = rest.find(';').ok_or_else(|| {
                    self.err(at + i, "unterminated parameter-entity reference in the DTD: expected ';'")
                })?;
                i += end + 1;
            } else if let Some(decl) = rest.strip_prefix("<!ENTITY") {
                i += 8 + self.entity_decl(decl, at + i + 8)?;
            } else if rest.starts_with("<!") {
                i += self.skip_decl(rest, at + i)?;
            } else {
                let found: String = rest.chars().take(20).collect();
                return Err(self.err(at + i, format!("found {found:?} in the DTD: expected a declaration <!…>")));
            }
        }
    }

    /// Skips a markup declaration, honouring quotes; returns its length.
    pub(super) fn skip_decl(&self, rest: &str, at: usize) -> Result<usize, FormatError> {
        let mut quote = None;
        for (i, b) in rest.bytes().enumerate() {
            match (quote, b) {
                (None, b'>') => return Ok(i + 1),
                (None, q @ (b'"' | b'\'')) => quote = Some(q),
                (Some(q), b) if b == q => quote = None,
                _ => {}
            }
        }
        Err(self.err(at, "unterminated declaration in the DTD: expected '>'"))
    }

    /// Parses `S [% S] Name S (EntityValue | ExternalID [NDATA]) S? >`; returns the length.
    pub(super) fn entity_decl(&mut self, decl: &'a str, at: usize) -> Result<usize, FormatError> {
        let bytes = decl.as_bytes();
        let mut i = 0;
        let skip_ws = |i: &mut usize| {
            while *i < bytes.len() && bytes[*i].is_ascii_whitespace() {
                *i += 1;
            }
        };
        skip_ws(&mut i);
        let parameter = bytes.get(i) == Some(&b'%');
        if parameter {
            i += 1;
            skip_ws(&mut i);
        }
        let name_start = i;
        while i < bytes.len() && is_name_char(bytes[i]) {
            i += 1;
        }
        let name = &decl[name_start..i];
        if name.is_empty() {
            return Err(self.err(at + i, "found <!ENTITY without a name: expected <!ENTITY name \"value\">"));
        }
        skip_ws(&mut i);
        let def = match bytes.get(i) {
            Some(&q @ (b'"' | b'\'')) => {
                let len = memchr::memchr(q, &bytes[i + 1..]).ok_or_else(|| {
                    self.err(at + i, format!("unterminated value of entity '{name}': expected a closing {}", q as char))
                })?;
                let value = &decl[i + 1..i + 1 + len];
                i += len + 2;
                EntityDef::Internal(value)
            }
            _ if decl[i..].starts_with("SYSTEM") || decl[i..].starts_with("PUBLIC") => {
                let keyword_at = i;
                let len = self.skip_decl(&decl[i..], at + i)?;
                let external = decl[keyword_at..keyword_at + len - 1].trim().to_owned();
                i += len - 1;
                EntityDef::External(external)
            }
            _ => {
                let found: String = decl[i..].chars().take(20).collect();
                return Err(self.err(
                    at + i,
                    format!("found {found:?} in the declaration of entity '{name}': expected a quoted value"),
                ));
            }
        };
        let len = self.skip_decl(&decl[i..], at + i)?;
        if !decl[i..i + len - 1].trim().is_empty() && !matches!(def, EntityDef::External(_)) {
            let found = decl[i..i + len - 1].trim().to_owned();
            return Err(self.err(at + i, format!("found {found:?} after the value of entity '{name}': expected '>'")));
        }
        if !parameter {
            // The first declaration binds (XML 1.0 §4.2).
            self.entities.entry(name).or_insert(def);
        }
        Ok(i + len)
    }

    /// The size of the replacement text of entity `name`, fully expanded, checking the bounds.
    pub(super) fn entity_size(&mut self, name: &'a str, depth: usize, at: usize) -> Result<usize, FormatError> {
        if let Some(&size) = self.entity_sizes.get(name) {
            return Ok(size);
        }
        if depth >= MAX_ENTITY_DEPTH {
            return Err(self.err(at, too_deep_message(name)));
        }
        let raw = match self.entities.get(name) {
            Some(EntityDef::Internal(raw)) => *raw,
            Some(EntityDef::External(decl)) => {
                return Err(self.err(at, external_entity_message(&format!("&{name};"), decl)));
            }
            None => {
                if let Some(predefined) = quick_xml::escape::resolve_xml_entity(name) {
                    return Ok(predefined.len());
                }
                return Err(
                    self.err(at, format!("found undefined entity &{name};: expected a declared entity or '&amp;'"))
                );
            }
        };
        let mut size = 0usize;
        let bytes = raw.as_bytes();
        let mut last = 0;
        for amp in memchr::memchr_iter(b'&', bytes) {
            if amp < last {
                continue;
            }
            size += amp - last;
            let len = reference_len(&bytes[amp..]).ok_or_else(|| {
                self.err(
                    at,
                    format!("found a raw '&' in the value of entity '{name}': expected a reference like &amp;"),
                )
            })?;
            let inner = &raw[amp + 1..amp + len - 1];
            size += if inner.starts_with('#') { 4 } else { self.entity_size(inner, depth + 1, at)? };
            last = amp + len;
            if size > MAX_ENTITY_SIZE {
                break;
            }
        }
        size += bytes.len().saturating_sub(last);
        if size > MAX_ENTITY_SIZE {
            return Err(self.err(at, too_large_message(name)));
        }
        self.entity_sizes.insert(name, size);
        Ok(size)
    }

    /// Checks every reference in `raw` without expanding it.
    pub(super) fn validate_refs(&mut self, raw: &'a str, at: usize, what: &str) -> Result<(), FormatError> {
        let bytes = raw.as_bytes();
        for amp in memchr::memchr_iter(b'&', bytes) {
            let Some(len) = reference_len(&bytes[amp..]) else {
                return Err(self.raw_ampersand(raw, amp, at, what));
            };
            let inner = &raw[amp + 1..amp + len - 1];
            if let Some(num) = inner.strip_prefix('#') {
                self.char_ref(num, at + amp)?;
            } else {
                self.entity_size(inner, 0, at + amp)?;
            }
        }
        Ok(())
    }

    pub(super) fn raw_ampersand(&self, raw: &str, amp: usize, at: usize, what: &str) -> FormatError {
        let found: String = raw[amp..].chars().take(16).collect();
        self.err(
            at + amp,
            format!(
                "raw '&' in {what} (found {found:?}): expected an entity reference such as &amp; (or use --repair-xml)"
            ),
        )
    }

    pub(super) fn char_ref(&self, num: &str, at: usize) -> Result<char, FormatError> {
        let code = match num.strip_prefix('x') {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => num.parse::<u32>().ok(),
        };
        code.and_then(char::from_u32).filter(|&c| c != '\0').ok_or_else(|| {
            self.err(
                at,
                format!("found character reference &#{num}; that is not a character: expected a valid code point"),
            )
        })
    }

    /// Appends `raw` to `out` with every reference expanded.
    pub(super) fn unescape_into(
        &mut self,
        raw: &'a str,
        at: usize,
        out: &mut String,
        what: &str,
    ) -> Result<(), FormatError> {
        let bytes = raw.as_bytes();
        if memchr::memchr(b'&', bytes).is_none() {
            out.push_str(raw);
            return Ok(());
        }
        let mut last = 0;
        for amp in memchr::memchr_iter(b'&', bytes) {
            out.push_str(&raw[last..amp]);
            let Some(len) = reference_len(&bytes[amp..]) else {
                return Err(self.raw_ampersand(raw, amp, at, what));
            };
            let inner = &raw[amp + 1..amp + len - 1];
            if let Some(num) = inner.strip_prefix('#') {
                out.push(self.char_ref(num, at + amp)?);
            } else {
                self.expand_entity(inner, at + amp, out, 0)?;
            }
            last = amp + len;
        }
        out.push_str(&raw[last..]);
        Ok(())
    }

    pub(super) fn expand_entity(
        &mut self,
        name: &'a str,
        at: usize,
        out: &mut String,
        depth: usize,
    ) -> Result<(), FormatError> {
        let size = self.entity_size(name, depth, at)?;
        if size > self.expansion_budget {
            return Err(self.err(
                at,
                format!(
                    "entity expansion limit exceeded: expanding &{name}; passes the document's budget of expanded text"
                ),
            ));
        }
        self.expansion_budget -= size;
        let raw = match self.entities.get(name) {
            Some(EntityDef::Internal(raw)) => *raw,
            _ => {
                // Predefined (checked by entity_size).
                out.push_str(quick_xml::escape::resolve_xml_entity(name).unwrap_or_default());
                return Ok(());
            }
        };
        let bytes = raw.as_bytes();
        let mut last = 0;
        for amp in memchr::memchr_iter(b'&', bytes) {
            out.push_str(&raw[last..amp]);
            let Some(len) = reference_len(&bytes[amp..]) else {
                return Err(self.raw_ampersand(raw, amp, at, "entity value"));
            };
            let inner = &raw[amp + 1..amp + len - 1];
            if let Some(num) = inner.strip_prefix('#') {
                out.push(self.char_ref(num, at)?);
            } else {
                // Sizes were checked above; nested expansions do not charge the budget again.
                self.expansion_budget += self.entity_size(inner, depth + 1, at)?;
                self.expand_entity(inner, at, out, depth + 1)?;
            }
            last = amp + len;
        }
        out.push_str(&raw[last..]);
        Ok(())
    }
}
