//! Alignment readers: Alignment-API RDF/XML (streaming, quick-xml), the same vocabulary in
//! Turtle / N-Triples / non-canonical RDF/XML (oxttl / oxrdfxml), TSV/CSV and SSSOM TSV.

mod rdf_triples;
mod rdfxml;
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
