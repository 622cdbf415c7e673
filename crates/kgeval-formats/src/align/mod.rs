//! Alignment readers: Alignment-API RDF/XML (streaming, quick-xml), the same vocabulary in
//! Turtle / N-Triples / non-canonical RDF/XML (oxttl / oxrdfxml), TSV/CSV and SSSOM TSV.

mod measure;
mod rdf_triples;
mod rdfxml;
#[doc(hidden)]
pub use rdfxml::read_rdfxml_cut;
mod sssom;
mod tsv;

use std::path::Path;

use kgeval_model::{Alignment, Diagnostic, DuplicatePolicy, Interner};

use crate::FormatError;

/// The alignment syntaxes kgeval reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AlignmentFormat {
    /// Alignment-API RDF/XML (the OAEI format), read by the streaming parser.
    RdfXml,
    /// The Alignment-API vocabulary in Turtle.
    Turtle,
    /// The Alignment-API vocabulary in N-Triples.
    NTriples,
    /// Tab-separated `source, target[, confidence[, relation]]` (MELT) or Bio-ML
    /// `SrcEntity, TgtEntity, Score`.
    Tsv,
    /// Comma-separated, same columns as [`AlignmentFormat::Tsv`].
    Csv,
    /// SSSOM TSV with its metadata block.
    Sssom,
}

impl AlignmentFormat {
    /// Every format.
    pub const ALL: [AlignmentFormat; 6] = [
        AlignmentFormat::RdfXml,
        AlignmentFormat::Turtle,
        AlignmentFormat::NTriples,
        AlignmentFormat::Tsv,
        AlignmentFormat::Csv,
        AlignmentFormat::Sssom,
    ];

    /// The CLI name (`rdfxml`, `turtle`, `ntriples`, `tsv`, `csv`, `sssom`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            AlignmentFormat::RdfXml => "rdfxml",
            AlignmentFormat::Turtle => "turtle",
            AlignmentFormat::NTriples => "ntriples",
            AlignmentFormat::Tsv => "tsv",
            AlignmentFormat::Csv => "csv",
            AlignmentFormat::Sssom => "sssom",
        }
    }

    /// Parses a CLI name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// How to read an alignment.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Force a format instead of detecting it.
    pub format: Option<AlignmentFormat>,
    /// Repair raw `&` inside XML attribute values (MELT's `AlignmentXmlRepair`); off by default.
    pub repair_xml: bool,
    /// Skip EDOAL / level-2 cells (counted in `Alignment::skipped_cells`) instead of failing.
    pub skip_edoal: bool,
    /// Read relation tokens exactly as MELT does: no trimming, an unknown token silently
    /// becomes `?`. Off by default (kgeval trims and warns).
    pub melt_relations: bool,
    /// What a repeated `(entity1, entity2, relation)` keeps.
    pub duplicate_policy: DuplicatePolicy,
    /// External SSSOM metadata (the content of a `.sssom.yml`), with its file name.
    pub sssom_metadata: Option<(String, Vec<u8>)>,
}

/// An alignment as read, with the warnings found on the way.
#[derive(Debug, Clone)]
pub struct ReadAlignment {
    /// The correspondences.
    pub alignment: Alignment,
    /// The syntax it was read as.
    pub format: AlignmentFormat,
    /// Warnings (duplicates, unknown relations, out-of-range measures, repairs, …), each with
    /// its location.
    pub warnings: Vec<Diagnostic>,
}

/// The alignment namespace without its trailing `#` (files use both spellings).
pub(crate) const ALIGN_NS: &str = "http://knowledgeweb.semanticweb.org/heterogeneity/alignment";
/// The RDF namespace.
pub(crate) const RDF_NS: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
/// The EDOAL namespace without its trailing `#`.
pub(crate) const EDOAL_NS: &str = "http://ns.inria.org/edoal/1.0/";

/// Reads an alignment from bytes, detecting the format unless `options.format` forces one.
///
/// `file` is only used in error messages and diagnostics. Every IRI goes through `interner`,
/// so the reference and the system alignments of one evaluation must share it.
///
/// ```
/// use kgeval_formats::align::{read_alignment, AlignmentFormat, ReadOptions};
/// use kgeval_model::Interner;
/// let rdf = br#"<?xml version="1.0"?>
/// <rdf:RDF xmlns="http://knowledgeweb.semanticweb.org/heterogeneity/alignment"
///          xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
///   <Alignment><map><Cell>
///     <entity1 rdf:resource="http://a#x"/><entity2 rdf:resource="http://b#y"/>
///     <relation>=</relation><measure>0.5</measure>
///   </Cell></map></Alignment>
/// </rdf:RDF>"#;
/// let mut interner = Interner::new();
/// let read = read_alignment(rdf, "example.rdf", &ReadOptions::default(), &mut interner).unwrap();
/// assert_eq!(read.format, AlignmentFormat::RdfXml);
/// assert_eq!(read.alignment.len(), 1);
/// assert_eq!(read.alignment.cells()[0].confidence, 0.5);
/// ```
///
/// # Errors
/// A [`FormatError::Syntax`] with line and column when the input is malformed.
pub fn read_alignment(
    input: &[u8],
    file: &str,
    options: &ReadOptions,
    interner: &mut Interner,
) -> Result<ReadAlignment, FormatError> {
    let format = options.format.unwrap_or_else(|| detect_format(input, file));
    match format {
        AlignmentFormat::RdfXml => rdfxml::read(input, file, options, interner),
        AlignmentFormat::Turtle | AlignmentFormat::NTriples => {
            rdf_triples::read(input, file, format, options, interner)
        }
        AlignmentFormat::Tsv => tsv::read(input, file, options, interner, b'\t'),
        AlignmentFormat::Csv => tsv::read(input, file, options, interner, b','),
        AlignmentFormat::Sssom => sssom::read(input, file, options, interner),
    }
}

/// Reads the Alignment-API vocabulary as RDF triples (oxrdfxml for RDF/XML, oxttl for Turtle
/// and N-Triples) and builds the cells from them.
///
/// This is the path for non-canonical RDF/XML that the streaming reader does not follow
/// (cells as `rdf:Description`, typed nodes, property attributes); for canonical Alignment-API
/// files both paths give the same cells. `format` must be [`AlignmentFormat::RdfXml`],
/// [`AlignmentFormat::Turtle`] or [`AlignmentFormat::NTriples`].
///
/// ```
/// use kgeval_formats::align::{read_alignment_via_triples, AlignmentFormat, ReadOptions};
/// use kgeval_model::Interner;
/// let ttl = b"@prefix align: <http://knowledgeweb.semanticweb.org/heterogeneity/alignment#> .
/// [] align:entity1 <http://a#x> ; align:entity2 <http://b#y> ; align:measure 0.75 .";
/// let mut interner = Interner::new();
/// let read = read_alignment_via_triples(ttl, "a.ttl", AlignmentFormat::Turtle, &ReadOptions::default(), &mut interner)
///     .unwrap();
/// assert_eq!(read.alignment.len(), 1);
/// assert_eq!(read.alignment.cells()[0].confidence, 0.75);
/// ```
///
/// # Errors
/// A [`FormatError::Syntax`] when the RDF is malformed, a cell lacks an entity, or `format`
/// is not an RDF syntax.
pub fn read_alignment_via_triples(
    input: &[u8],
    file: &str,
    format: AlignmentFormat,
    options: &ReadOptions,
    interner: &mut Interner,
) -> Result<ReadAlignment, FormatError> {
    rdf_triples::read(input, file, format, options, interner)
}

/// Reads an alignment file: memory-maps large files, reads small ones, detects the format
/// (unless forced) and, for SSSOM without `options.sssom_metadata`, picks up a sibling
/// `<stem>.sssom.yml` or `<stem>.yml` metadata file.
///
/// Errors name the file as `path.display()` shows it.
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be read, [`FormatError::Syntax`] when it is
/// malformed.
pub fn read_alignment_file(
    path: &Path,
    options: &ReadOptions,
    interner: &mut Interner,
) -> Result<ReadAlignment, FormatError> {
    let content = crate::input::Input::path(path).open()?;
    let (input, file) = (content.bytes(), content.name());
    let format = options.format.unwrap_or_else(|| detect_format(input, file));
    let mut options = ReadOptions { format: Some(format), ..options.clone() };
    if format == AlignmentFormat::Sssom && options.sssom_metadata.is_none() {
        options.sssom_metadata = sibling_sssom_metadata(path)?;
    }
    let read = read_alignment(input, file, &options, interner);
    // Unmapping a large file takes a while: on a worker thread, while the caller goes on.
    if input.len() >= BACKGROUND_UNMAP {
        rayon::spawn(move || drop(content));
    }
    read
}

/// From this size on, [`read_alignment_file`] unmaps the file on a worker thread.
const BACKGROUND_UNMAP: usize = 8 << 20;

/// `<stem>.sssom.yml` or `<stem>.yml` next to an SSSOM TSV file, read.
fn sibling_sssom_metadata(path: &Path) -> Result<Option<(String, Vec<u8>)>, FormatError> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return Ok(None) };
    let lower = name.to_ascii_lowercase();
    let stem_len = [".sssom.tsv", ".sssom.csv", ".tsv", ".csv", ".txt"]
        .iter()
        .find(|ext| lower.ends_with(*ext))
        .map_or_else(|| name.rfind('.').unwrap_or(name.len()), |ext| name.len() - ext.len());
    let stem = &name[..stem_len];
    for candidate in [format!("{stem}.sssom.yml"), format!("{stem}.sssom.yaml"), format!("{stem}.yml")] {
        let sibling = path.with_file_name(&candidate);
        if sibling.is_file() {
            let shown = sibling.display().to_string();
            let bytes = std::fs::read(&sibling).map_err(|e| FormatError::io(&shown, e))?;
            return Ok(Some((shown, bytes)));
        }
    }
    Ok(None)
}

/// Guesses the syntax of an alignment: by content first, then by the file extension.
///
/// Content rules, in order: an XML start (`<?xml`, `<!`, `<rdf:RDF`, `<Alignment`, any
/// `<name`) → RDF/XML; `#` metadata lines with `curie_map:` / `mapping_set_id` or a header row
/// with `subject_id` → SSSOM; `@prefix` / `PREFIX` / `@base` → Turtle; lines of
/// `<iri> <iri> <iri|"literal"|_:b> .` → N-Triples (Turtle when the file is named `.ttl`);
/// other `<iri>` / `_:` starts → Turtle; a tab in the first line → TSV; a comma → CSV. Then
/// extensions: `.rdf .xml .owl` → RDF/XML, `.ttl`, `.nt`, `.sssom.tsv`, `.tsv`, `.csv`.
/// TSV when nothing matches.
///
/// ```
/// use kgeval_formats::align::{detect_format, AlignmentFormat};
/// assert_eq!(detect_format(b"<?xml version='1.0'?><rdf:RDF/>", "x"), AlignmentFormat::RdfXml);
/// assert_eq!(detect_format(b"<http://a> <http://b> <http://c> .\n", "x"), AlignmentFormat::NTriples);
/// assert_eq!(detect_format(b"@prefix a: <http://a#> .", "x"), AlignmentFormat::Turtle);
/// assert_eq!(detect_format(b"# curie_map:\n#   a: http://a#\nsubject_id\tpredicate_id\n", "x"), AlignmentFormat::Sssom);
/// assert_eq!(detect_format(b"a\tb\t0.5\n", "x"), AlignmentFormat::Tsv);
/// assert_eq!(detect_format(b"a,b,0.5\n", "x"), AlignmentFormat::Csv);
/// assert_eq!(detect_format(b"", "ref.rdf"), AlignmentFormat::RdfXml);
/// ```
#[must_use]
pub fn detect_format(input: &[u8], file: &str) -> AlignmentFormat {
    let by_extension = format_by_extension(file);
    let head = &input[..input.len().min(64 * 1024)];
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let text = String::from_utf8_lossy(head);
    // SSSOM metadata block or header row.
    for line in text.lines().take(200) {
        let trimmed = line.trim_start();
        if let Some(comment) = trimmed.strip_prefix('#') {
            let comment = comment.trim_start();
            if comment.starts_with("curie_map:") || comment.starts_with("mapping_set_id") {
                return AlignmentFormat::Sssom;
            }
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        if line.split(['\t', ',']).any(|col| col.trim().trim_matches('"') == "subject_id") {
            return AlignmentFormat::Sssom;
        }
        break;
    }
    // The first significant line (skipping blank and `#` comment lines).
    let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or("");
    if let Some(rest) = first.strip_prefix('<') {
        if rest.starts_with('?') || rest.starts_with('!') {
            return AlignmentFormat::RdfXml;
        }
        let token_end = rest.find(|c: char| c.is_whitespace() || c == '>').unwrap_or(rest.len());
        let token = &rest[..token_end];
        let iri_like = token.contains("://") || token.contains('#') || token.starts_with("urn:");
        if !iri_like {
            return AlignmentFormat::RdfXml;
        }
        if looks_like_ntriples(first) {
            return if by_extension == Some(AlignmentFormat::Turtle) {
                AlignmentFormat::Turtle
            } else {
                AlignmentFormat::NTriples
            };
        }
        return AlignmentFormat::Turtle;
    }
    let lower = first.get(..7).unwrap_or(first).to_ascii_lowercase();
    if lower.starts_with("@prefix")
        || lower.starts_with("@base")
        || lower.starts_with("prefix")
        || lower.starts_with("base ")
    {
        return AlignmentFormat::Turtle;
    }
    if first.starts_with("_:") {
        return if looks_like_ntriples(first) && by_extension != Some(AlignmentFormat::Turtle) {
            AlignmentFormat::NTriples
        } else {
            AlignmentFormat::Turtle
        };
    }
    if let Some(format) = by_extension {
        if matches!(
            format,
            AlignmentFormat::Sssom | AlignmentFormat::RdfXml | AlignmentFormat::Turtle | AlignmentFormat::NTriples
        ) {
            return format;
        }
    }
    let first_line = text.lines().next().unwrap_or("");
    if first_line.contains('\t') {
        return AlignmentFormat::Tsv;
    }
    if first_line.contains(',') {
        return AlignmentFormat::Csv;
    }
    by_extension.unwrap_or(AlignmentFormat::Tsv)
}

/// The format a file name suggests.
fn format_by_extension(file: &str) -> Option<AlignmentFormat> {
    let lower = file.to_ascii_lowercase();
    let ext = |e: &str| lower.ends_with(e);
    Some(if ext(".sssom.tsv") || ext(".sssom.csv") {
        AlignmentFormat::Sssom
    } else if ext(".rdf") || ext(".xml") || ext(".owl") {
        AlignmentFormat::RdfXml
    } else if ext(".ttl") {
        AlignmentFormat::Turtle
    } else if ext(".nt") {
        AlignmentFormat::NTriples
    } else if ext(".tsv") || ext(".txt") {
        AlignmentFormat::Tsv
    } else if ext(".csv") {
        AlignmentFormat::Csv
    } else {
        return None;
    })
}

/// Whether a line has the shape `<iri>|_:b <iri> <iri>|"literal"|_:b .`.
fn looks_like_ntriples(line: &str) -> bool {
    fn term(s: &str) -> Option<&str> {
        let s = s.trim_start();
        if let Some(rest) = s.strip_prefix('<') {
            let end = rest.find('>')?;
            Some(&rest[end + 1..])
        } else if let Some(rest) = s.strip_prefix("_:") {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            Some(&rest[end..])
        } else {
            None
        }
    }
    let Some(rest) = term(line) else { return false };
    if !rest.starts_with(char::is_whitespace) {
        return false;
    }
    let Some(rest) = term(rest).filter(|_| rest.trim_start().starts_with('<')) else { return false };
    let rest = rest.trim_start();
    let rest = if let Some(lit) = rest.strip_prefix('"') {
        // Skip the literal (with escapes) and an optional language tag or datatype.
        let mut escaped = false;
        let Some(end) = lit.char_indices().find_map(|(i, c)| {
            let hit = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            hit.then_some(i)
        }) else {
            return false;
        };
        let after = &lit[end + 1..];
        if let Some(dt) = after.strip_prefix("^^") {
            match term(dt) {
                Some(r) => r,
                None => return false,
            }
        } else if let Some(lang) = after.strip_prefix('@') {
            lang.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '-')
        } else {
            after
        }
    } else {
        match term(rest) {
            Some(r) => r,
            None => return false,
        }
    };
    let rest = rest.trim();
    rest == "." || rest.starts_with(". #") || rest.starts_with(".#")
}
