//! The one guard every XML reader runs before its parser sees the bytes: external entities are
//! refused where they are declared, and entity expansion is bounded ("billion laughs").
//!
//! Bounds, the same on every XML path (alignment RDF/XML, ontologies, QALD XML, `qald --data`
//! RDF/XML):
//!
//! - an entity's replacement text, fully expanded, is at most [`MAX_ENTITY_SIZE`] bytes;
//! - entity references nest at most [`MAX_ENTITY_DEPTH`] deep;
//! - with [`check`], the references in the document together expand to at most
//!   [`MAX_ENTITY_SIZE`] plus the document's own length.
//!
//! Sizes are computed from the declarations without expanding anything, so the guard itself
//! runs in time and memory linear in the document. Syntax errors are left to the parser that
//! follows: the guard only looks at `<!ENTITY` declarations of the `<!DOCTYPE` in the prolog,
//! and refuses a `<!DOCTYPE` anywhere else (outside comments, CDATA sections and processing
//! instructions): quick-xml reports one in the middle of a document and oxrdfxml would expand
//! its entities, so the prolog's bounds would not hold (found by the `align` fuzz target).
//!
//! ```
//! use kgeval_formats::xml_guard;
//! let ok = b"<!DOCTYPE r [<!ENTITY x \"http://x#\">]><r a=\"&x;\"/>";
//! assert!(xml_guard::check(ok, "ok.xml").is_ok());
//! let xxe = b"<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>";
//! let e = xml_guard::check(xxe, "xxe.xml").unwrap_err().to_string();
//! assert!(e.starts_with("xxe.xml:1:14: found external entity &x;"), "{e}");
//! ```

use std::collections::HashMap;

use rayon::prelude::*;

use crate::FormatError;

/// Deepest nesting of entity references inside entity values.
pub const MAX_ENTITY_DEPTH: usize = 8;
/// Largest expansion of one entity, in bytes (1 MiB).
pub const MAX_ENTITY_SIZE: usize = 1 << 20;

/// Checks the DTD of `input` (external entities, each entity's expansion) and the total
/// expansion of the references in the document. For readers whose parser expands entities
/// itself (oxrdfxml).
///
/// # Errors
/// The first violation, at the declaration or reference that causes it.
pub fn check(input: &[u8], file: &str) -> Result<(), FormatError> {
    violation(input, true).map_or(Ok(()), |(at, message)| Err(FormatError::syntax_at_offset(file, input, at, message)))
}

/// Checks the DTD of `input` only (external entities, each entity's expansion): for readers
/// that charge the document's references against their own budget while parsing.
///
/// # Errors
/// The first violation, at the declaration that causes it.
pub fn check_declarations(input: &[u8], file: &str) -> Result<(), FormatError> {
    violation(input, false).map_or(Ok(()), |(at, message)| Err(FormatError::syntax_at_offset(file, input, at, message)))
}

/// [`check_declarations`] told where `<!DOCTYPE` occurs in `input` (every place, as
/// [`utf8_and_doctypes`] finds them): the search for a misplaced one after the prolog is
/// skipped when none occurs there. Same verdict, same error.
pub(crate) fn check_declarations_found(input: &[u8], file: &str, doctypes: &[usize]) -> Result<(), FormatError> {
    first_violation(input, false, Some(doctypes))
        .map_or(Ok(()), |(at, message)| Err(FormatError::syntax_at_offset(file, input, at, message)))
}

/// The size of the pieces [`utf8_and_doctypes`] reads on rayon's threads.
const SCAN_CHUNK: usize = 1 << 20;

/// `input` as text and where every `<!DOCTYPE` in it starts, in one pass over the bytes
/// instead of two (UTF-8 validation, then the guard's search): 1 MB pieces on rayon's
/// threads, each validated and searched while it is in cache. `None` when a piece is not
/// UTF-8; the caller then validates the whole input for the located error.
pub(crate) fn utf8_and_doctypes(input: &[u8]) -> Option<(&str, Vec<usize>)> {
    const NEEDLE: &[u8] = b"<!DOCTYPE";
    // Pieces start at a byte that is not a UTF-8 continuation byte, so that the pieces of a
    // valid document are valid (a piece of an invalid one may fail anywhere: `None` too).
    let mut cuts = vec![0];
    let mut at = SCAN_CHUNK;
    while at < input.len() {
        let cut = (at..input.len().min(at + 4)).find(|&b| input[b] & 0xC0 != 0x80).unwrap_or(at);
        cuts.push(cut);
        at += SCAN_CHUNK;
    }
    cuts.push(input.len());
    let finder = memchr::memmem::Finder::new(NEEDLE);
    let found = cuts
        .par_windows(2)
        .map(|cut| {
            let (start, end) = (cut[0], cut[1]);
            std::str::from_utf8(&input[start..end]).ok()?;
            // A `<!DOCTYPE` that starts in this piece may end in the next one.
            let window = &input[start..input.len().min(end + NEEDLE.len() - 1)];
            Some(finder.find_iter(window).map(|k| start + k).filter(|&k| k < end).collect::<Vec<_>>())
        })
        .collect::<Option<Vec<_>>>()?;
    // SAFETY: the pieces `cuts[i]..cuts[i + 1]` follow one another from 0 to `input.len()`
    // (each cut is in `at..at + 4` and the `at` are `SCAN_CHUNK` apart), and each piece was
    // checked to be UTF-8 above; UTF-8 strings one after the other are UTF-8.
    #[allow(unsafe_code)]
    let text = unsafe { std::str::from_utf8_unchecked(input) };
    Some((text, found.concat()))
}

/// The first violation in `input` (its byte offset and message); the references in the
/// document are added up too when `references`.
pub(crate) fn violation(input: &[u8], references: bool) -> Option<(usize, String)> {
    first_violation(input, references, None)
}

/// [`violation`], told (when `doctypes` is given) every place where `<!DOCTYPE` starts in
/// `input` instead of searching for them.
fn first_violation(input: &[u8], references: bool, doctypes: Option<&[usize]>) -> Option<(usize, String)> {
    let scanned = Dtd::scan(input).and_then(|dtd| {
        let prolog_end = dtd.as_ref().map_or(0, |dtd| dtd.end);
        misplaced_doctype(input, prolog_end, doctypes)?;
        match dtd {
            Some(dtd) if references => dtd.check_references(input),
            _ => Ok(()),
        }
    });
    scanned.err().map(|Violation(at, message)| (at, message))
}

/// The message for a `<!DOCTYPE` after the prolog (the same as the RDF/XML fast path's).
pub const MISPLACED_DOCTYPE_MESSAGE: &str = "found <!DOCTYPE> after the root element: expected it before";

/// Refuses a `<!DOCTYPE` after `from` that is markup (not inside a comment, a CDATA section or a
/// processing instruction). The common case, no such bytes at all, is one SIMD search, or none
/// when the places of every `<!DOCTYPE` are given (`doctypes`).
fn misplaced_doctype(input: &[u8], from: usize, doctypes: Option<&[usize]>) -> Result<(), Violation> {
    let found = match doctypes {
        Some(doctypes) => doctypes.iter().any(|&at| at >= from),
        None => memchr::memmem::find(&input[from..], b"<!DOCTYPE").is_some(),
    };
    if !found {
        return Ok(());
    }
    // A doctype was found somewhere: walk the markup to tell declarations from content.
    let mut i = from;
    while let Some(lt) = memchr::memchr(b'<', &input[i..]) {
        let at = i + lt;
        let rest = &input[at..];
        let skip = |open: usize, close: &[u8]| {
            memchr::memmem::find(&rest[open..], close).map_or(input.len(), |end| at + open + end + close.len())
        };
        i = if rest.starts_with(b"<!--") {
            skip(4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            skip(9, b"]]>")
        } else if rest.starts_with(b"<?") {
            skip(2, b"?>")
        } else if rest.starts_with(b"<!DOCTYPE") {
            // The prolog's DOCTYPE ends at `from`, so this one is in the document.
            return Err(Violation(at, MISPLACED_DOCTYPE_MESSAGE.to_owned()));
        } else {
            at + 1
        };
    }
    Ok(())
}

/// The message for a reference to, or a declaration of, an external entity (`reference` as
/// written: `&name;`, or `%name;` for a parameter entity).
#[must_use]
pub fn external_entity_message(reference: &str, declaration: &str) -> String {
    format!(
        "found external entity {reference} ({}): expected internal entities only (external entities are never read)",
        crate::shorten(declaration, crate::MAX_ECHO)
    )
}

/// The message for an entity expanding beyond [`MAX_ENTITY_SIZE`].
#[must_use]
pub fn too_large_message(name: &str) -> String {
    format!(
        "entity expansion limit exceeded: found &{name}; expanding to more than {MAX_ENTITY_SIZE} bytes, expected at most {MAX_ENTITY_SIZE} bytes per entity"
    )
}

/// The message for references nested deeper than [`MAX_ENTITY_DEPTH`].
#[must_use]
pub fn too_deep_message(name: &str) -> String {
    format!(
        "entity expansion limit exceeded: found &{name}; nested deeper than {MAX_ENTITY_DEPTH} references, expected at most {MAX_ENTITY_DEPTH} levels"
    )
}

/// A violation: the byte offset and the message.
struct Violation(usize, String);

/// The general entities declared in the internal subset, with their expanded sizes.
struct Dtd<'a> {
    /// Byte offset where the DOCTYPE ends (the document's content follows).
    end: usize,
    /// Expanded size of every internal general entity.
    sizes: HashMap<&'a [u8], usize>,
}

impl<'a> Dtd<'a> {
    /// Reads the `<!ENTITY` declarations of the prolog's `<!DOCTYPE`; `None` without one.
    fn scan(input: &'a [u8]) -> Result<Option<Self>, Violation> {
        let Some(start) = doctype_start(input) else { return Ok(None) };
        let end = doctype_end(input, start);
        let region = &input[start..end];
        let mut values: Vec<(&'a [u8], &'a [u8], usize)> = Vec::new();
        let finder = memchr::memmem::Finder::new(b"<!ENTITY");
        for found in finder.find_iter(region) {
            let at = start + found;
            let mut i = at + 8;
            let skip_ws = |i: &mut usize| {
                while *i < end && input[*i].is_ascii_whitespace() {
                    *i += 1;
                }
            };
            skip_ws(&mut i);
            let parameter = input.get(i) == Some(&b'%');
            if parameter {
                i += 1;
                skip_ws(&mut i);
            }
            let name_start = i;
            while i < end && !input[i].is_ascii_whitespace() && !matches!(input[i], b'"' | b'\'' | b'>') {
                i += 1;
            }
            let name = &input[name_start..i];
            skip_ws(&mut i);
            let rest = &input[i..end];
            if rest.starts_with(b"SYSTEM") || rest.starts_with(b"PUBLIC") {
                let close = memchr::memchr(b'>', rest).unwrap_or(rest.len());
                let declaration = String::from_utf8_lossy(rest[..close].trim_ascii());
                let name = String::from_utf8_lossy(name);
                let reference = if parameter { format!("%{name};") } else { format!("&{name};") };
                return Err(Violation(at, external_entity_message(&reference, &declaration)));
            }
            let Some(&quote @ (b'"' | b'\'')) = rest.first() else { continue };
            let value = &rest[1..];
            let value = &value[..memchr::memchr(quote, value).unwrap_or(value.len())];
            if !parameter && !values.iter().any(|(n, _, _)| *n == name) {
                values.push((name, value, at));
            }
        }
        let mut dtd = Dtd { end, sizes: HashMap::with_capacity(values.len()) };
        let raw: HashMap<&[u8], &[u8]> = values.iter().map(|&(n, v, _)| (n, v)).collect();
        for &(name, _, at) in &values {
            dtd.size(name, &raw, 0, at)?;
        }
        Ok(Some(dtd))
    }

    /// The expanded size of entity `name` (memoised), checking the bounds.
    fn size(
        &mut self,
        name: &'a [u8],
        raw: &HashMap<&'a [u8], &'a [u8]>,
        depth: usize,
        at: usize,
    ) -> Result<usize, Violation> {
        if let Some(&size) = self.sizes.get(name) {
            return Ok(size);
        }
        let Some(&value) = raw.get(name) else {
            // Predefined, or undefined (the parser reports it).
            return Ok(1);
        };
        if depth >= MAX_ENTITY_DEPTH {
            return Err(Violation(at, too_deep_message(&String::from_utf8_lossy(name))));
        }
        let mut size = 0usize;
        let mut last = 0;
        for amp in memchr::memchr_iter(b'&', value) {
            if amp < last {
                continue;
            }
            size += amp - last;
            let Some(len) = memchr::memchr(b';', &value[amp..]) else {
                last = amp;
                break;
            };
            let inner = &value[amp + 1..amp + len];
            size += if inner.starts_with(b"#") { 4 } else { self.size(inner, raw, depth + 1, at)? };
            last = amp + len + 1;
            if size > MAX_ENTITY_SIZE {
                break;
            }
        }
        size += value.len().saturating_sub(last);
        if size > MAX_ENTITY_SIZE {
            return Err(Violation(at, too_large_message(&String::from_utf8_lossy(name))));
        }
        self.sizes.insert(name, size);
        Ok(size)
    }

    /// Adds up the expansions of the references after the DOCTYPE against the document's
    /// budget ([`MAX_ENTITY_SIZE`] plus the document's length).
    fn check_references(&self, input: &[u8]) -> Result<(), Violation> {
        if self.sizes.is_empty() {
            return Ok(());
        }
        let budget = MAX_ENTITY_SIZE + input.len();
        let body = &input[self.end..];
        let mut total = 0usize;
        for amp in memchr::memchr_iter(b'&', body) {
            let rest = &body[amp + 1..];
            let len = rest.iter().take(256).position(|&b| b == b';');
            let Some(size) = len.and_then(|len| self.sizes.get(&rest[..len])) else { continue };
            total += size;
            if total > budget {
                return Err(Violation(
                    self.end + amp,
                    format!(
                        "entity expansion limit exceeded: found entity references expanding to more than {budget} bytes in total, expected at most the document's length plus {MAX_ENTITY_SIZE} bytes"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Where `<!DOCTYPE` starts, if the prolog (BOM, white space, XML declaration, comments,
/// processing instructions) is followed by one.
fn doctype_start(input: &[u8]) -> Option<usize> {
    let mut i = if input.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
    loop {
        while i < input.len() && input[i].is_ascii_whitespace() {
            i += 1;
        }
        let rest = &input[i..];
        if rest.starts_with(b"<!DOCTYPE") {
            return Some(i);
        } else if rest.starts_with(b"<?") {
            i += memchr::memmem::find(rest, b"?>")? + 2;
        } else if rest.starts_with(b"<!--") {
            i += memchr::memmem::find(rest, b"-->")? + 3;
        } else {
            return None;
        }
    }
}

/// Where the DOCTYPE starting at `start` ends: after its closing `>` outside quotes and the
/// internal subset, or the end of the input.
fn doctype_end(input: &[u8], start: usize) -> usize {
    let mut quote = None;
    let mut depth = 0usize;
    for (i, &b) in input.iter().enumerate().skip(start + 9) {
        match (quote, b) {
            (Some(q), b) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'[') => depth += 1,
            (None, b']') => depth = depth.saturating_sub(1),
            (None, b'>') if depth == 0 => return i + 1,
            _ => {}
        }
    }
    input.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document of a little over three pieces with multi-byte characters and `<!DOCTYPE`
    /// across the pieces' boundaries.
    fn pieces_document() -> Vec<u8> {
        let mut doc = vec![b'x'; 3 * SCAN_CHUNK + 100];
        for (k, ch) in [(1, "é"), (2, "→"), (3, "𝄞")] {
            let at = k * SCAN_CHUNK - ch.len() + 1;
            doc[at..at + ch.len()].copy_from_slice(ch.as_bytes());
        }
        for at in [2 * SCAN_CHUNK - 4, 3 * SCAN_CHUNK + 10, 17] {
            doc[at..at + 9].copy_from_slice(b"<!DOCTYPE");
        }
        doc
    }

    /// The one-pass scan finds what UTF-8 validation and a search of the whole input find: the
    /// text, and every `<!DOCTYPE` (also one cut by a piece's end).
    #[test]
    fn one_pass_finds_what_two_passes_find() {
        let doc = pieces_document();
        let expected: Vec<usize> = memchr::memmem::find_iter(&doc, b"<!DOCTYPE").collect();
        assert_eq!(expected, [17, 2 * SCAN_CHUNK - 4, 3 * SCAN_CHUNK + 10]);
        let (text, found) = utf8_and_doctypes(&doc).expect("UTF-8");
        assert_eq!(Some(text), std::str::from_utf8(&doc).ok());
        assert_eq!(found, expected);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            assert_eq!(pool.install(|| utf8_and_doctypes(&doc)).map(|(_, found)| found), Some(expected.clone()));
        }
    }

    /// Bytes that are not UTF-8 anywhere (inside a piece, at a piece's start, a character cut
    /// short at the end) make the one-pass scan give up, as `from_utf8` of the whole does.
    #[test]
    fn one_pass_gives_up_where_utf8_fails() {
        let doc = pieces_document();
        let mut bad = doc.clone();
        bad[2 * SCAN_CHUNK + 5] = 0xFF;
        assert!(utf8_and_doctypes(&bad).is_none());
        let mut continuations = doc.clone();
        continuations[SCAN_CHUNK - 2..SCAN_CHUNK + 5].fill(0x80);
        assert!(std::str::from_utf8(&continuations).is_err());
        assert!(utf8_and_doctypes(&continuations).is_none());
        let mut cut_short = doc;
        cut_short.push(0xE2);
        assert!(utf8_and_doctypes(&cut_short).is_none());
    }

    /// Told where `<!DOCTYPE` occurs, the declaration check gives the verdict and the error of
    /// the check that searches for itself.
    #[test]
    fn declarations_found_judge_like_declarations() {
        let body = "<r>".to_owned() + &"<a/>".repeat(SCAN_CHUNK / 4) + "</r>";
        let cases = [
            body.clone(),
            format!("<!DOCTYPE r [<!ENTITY e \"x\">]>{body}"),
            format!("<!DOCTYPE r [<!ENTITY e \"x\">]>{body}<!DOCTYPE again>"),
            format!("{body}<!-- <!DOCTYPE in a comment -->"),
            format!("<!DOCTYPE r SYSTEM \"http://example.org/x.dtd\">{body}"),
        ];
        for doc in &cases {
            let (_, found) = utf8_and_doctypes(doc.as_bytes()).expect("UTF-8");
            let one = check_declarations_found(doc.as_bytes(), "f", &found).map_err(|e| e.to_string());
            let two = check_declarations(doc.as_bytes(), "f").map_err(|e| e.to_string());
            assert_eq!(one, two, "{}", &doc[..40.min(doc.len())]);
        }
        let misplaced = check_declarations_found(cases[2].as_bytes(), "f", &[0, cases[2].len() - 16]);
        assert!(misplaced.is_err_and(|e| e.to_string().contains(MISPLACED_DOCTYPE_MESSAGE)));
    }

    fn laughs(levels: usize) -> String {
        let mut dtd = String::from("<!DOCTYPE r [\n<!ENTITY l0 \"lol\">\n");
        for i in 1..levels {
            let p = format!("&l{};", i - 1).repeat(10);
            dtd.push_str(&format!("<!ENTITY l{i} \"{p}\">\n"));
        }
        dtd + "]>\n<r/>"
    }

    #[test]
    fn billion_laughs_is_refused_at_the_first_entity_over_the_bound() {
        assert!(check(laughs(6).as_bytes(), "f").is_ok()); // l5 = 300,000 bytes
        let e = check(laughs(10).as_bytes(), "f").unwrap_err().to_string();
        assert_eq!(
            e,
            "f:8:1: entity expansion limit exceeded: found &l6; expanding to more than 1048576 bytes, expected at most 1048576 bytes per entity"
        );
    }

    #[test]
    fn deep_nesting_and_cycles_are_refused() {
        let mut dtd = String::from("<!DOCTYPE r [<!ENTITY e0 \"x\">");
        for i in 1..=9 {
            dtd.push_str(&format!("<!ENTITY e{i} \"&e{};\">", i - 1));
        }
        let xml = dtd + "]><r/>";
        // Declared in order, each size is memoised: depth stays 1.
        assert!(check(xml.as_bytes(), "f").is_ok());
        let cycle = "<!DOCTYPE r [<!ENTITY a \"&b;\"><!ENTITY b \"&a;\">]><r/>";
        let e = check(cycle.as_bytes(), "f").unwrap_err().to_string();
        assert!(e.contains("nested deeper than 8 references"), "{e}");
    }

    #[test]
    fn many_references_to_a_large_entity_exceed_the_document_budget() {
        let big = "x".repeat(600_000);
        let xml = format!("<!DOCTYPE r [<!ENTITY b \"{big}\">]><r>&b;&b;&b;</r>");
        let e = check(xml.as_bytes(), "f").unwrap_err().to_string();
        assert!(e.contains("in total"), "{e}");
        assert!(check_declarations(xml.as_bytes(), "f").is_ok());
    }

    #[test]
    fn external_entities_are_refused_where_declared() {
        let xml = b"<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE r [\n <!ENTITY % p PUBLIC \"-//x\" \"http://evil/x.dtd\">\n]><r/>";
        let e = check(xml, "f").unwrap_err().to_string();
        assert_eq!(
            e,
            "f:4:2: found external entity %p; (PUBLIC \"-//x\" \"http://evil/x.dtd\"): expected internal entities only (external entities are never read)"
        );
        // Only the prolog's DOCTYPE counts; text later in the document is not a declaration.
        assert!(check(b"<r><![CDATA[<!DOCTYPE r [<!ENTITY x SYSTEM \"f\">]>]]></r>", "f").is_ok());
        assert!(check(b"<r><!-- <!DOCTYPE r [<!ENTITY x SYSTEM \"f\">]> --><?p <!DOCTYPE ?></r>", "f").is_ok());
    }

    #[test]
    fn a_doctype_inside_the_document_is_refused() {
        // Found by the `align` fuzz target: quick-xml reports a DOCTYPE in element content and
        // oxrdfxml expanded its billion laughs (2 GB) although the prolog had no DTD.
        let laughs = laughs(10);
        let dtd = laughs.trim_end_matches("<r/>");
        let xml = format!("<?xml version=\"1.0\"?>\n<r><p>A{dtd}&l9;</p></r>");
        let e = check(xml.as_bytes(), "f").unwrap_err().to_string();
        assert_eq!(e, "f:2:8: found <!DOCTYPE> after the root element: expected it before");
        // Also after a valid prolog DOCTYPE, and with `check_declarations`.
        let twice = format!("<!DOCTYPE r []>\n<r>{dtd}</r>");
        let e = check_declarations(twice.as_bytes(), "f").unwrap_err().to_string();
        assert_eq!(e, "f:2:4: found <!DOCTYPE> after the root element: expected it before");
        assert!(check(b"<!DOCTYPE r []><r/>", "f").is_ok());
    }
}
