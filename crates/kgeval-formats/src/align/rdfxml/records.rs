//! What a parse of (a stretch of) a document yields before interning, and the merge that
//! interns it in document order: term ids, duplicate handling, warning order and line numbers
//! are the same however the document was cut.

use std::borrow::Cow;

use kgeval_model::{
    Alignment, Correspondence, Diagnostic, InsertOutcome, Interner, Location, Relation, TermHash, TermId,
};

use crate::align::tsv::column_of;
use crate::warnings::{Warnings, MAX_WARNINGS_PER_CODE};

/// A finished cell; entities are indices into [`Records::terms`].
#[derive(Debug, Clone, Copy)]
pub(super) struct CellRecord {
    pub(super) entity: [u32; 2],
    pub(super) relation: Relation,
    pub(super) confidence: f64,
    /// 1-based line of `<Cell`, counted from the start of the stretch.
    pub(super) line: u32,
    /// Byte offset of `<Cell` in the document.
    pub(super) at: usize,
}

/// Terms, cells and warnings of one stretch, in document order.
#[derive(Debug, Default, Clone)]
pub(super) struct Records<'a> {
    /// Every IRI the sequential reader would intern, in the order it would, with its hash
    /// (computed here, on the thread that parses the stretch).
    pub(super) terms: Vec<(Cow<'a, str>, TermHash)>,
    pub(super) cells: Vec<CellRecord>,
    /// Warnings kept (at most [`MAX_WARNINGS_PER_CODE`] per code), each with the number of
    /// cells finished before it.
    pub(super) warnings: Vec<(usize, Diagnostic)>,
    /// How many warnings of each code were seen.
    counts: Vec<(&'static str, usize)>,
    /// EDOAL cells skipped.
    pub(super) skipped: usize,
    /// How many of `cells` the fast path read (tests check that every real layout takes it).
    pub(super) fast: usize,
}

impl<'a> Records<'a> {
    /// Records an IRI; returns its index.
    pub(super) fn term(&mut self, iri: Cow<'a, str>) -> u32 {
        let hash = Interner::hash(&iri);
        self.terms.push((iri, hash));
        (self.terms.len() - 1) as u32
    }

    /// Counts a warning of `code`; whether it is still to be kept (then [`Records::warn`] it).
    pub(super) fn keeps(&mut self, code: &'static str) -> bool {
        let index = match self.counts.iter().position(|(c, _)| *c == code) {
            Some(index) => index,
            None => {
                self.counts.push((code, 0));
                self.counts.len() - 1
            }
        };
        self.counts[index].1 += 1;
        self.counts[index].1 <= MAX_WARNINGS_PER_CODE
    }

    /// Keeps a warning that [`Records::keeps`] allowed.
    pub(super) fn warn(&mut self, diagnostic: Diagnostic) {
        self.warnings.push((self.cells.len(), diagnostic));
    }
}

/// Room in `interner` and `alignment` for what a document of `len` bytes may hold (about a
/// cell per 300 bytes, two IRIs each: slightly more than the densest real layout), so that
/// neither is rebuilt while it fills.
pub(super) fn reserve_for(len: usize, interner: &mut Interner, alignment: &mut Alignment) {
    interner.reserve(len / 128, len / 4);
    alignment.reserve(len / 256);
}

/// Interns and inserts the records of one stretch, which starts after `shift` lines, after
/// those of the stretches before it (document order).
pub(super) fn merge(
    (records, shift): (Records<'_>, u32),
    doc: &str,
    file: &str,
    interner: &mut Interner,
    alignment: &mut Alignment,
    warnings: &mut Warnings,
) {
    let ids: Vec<TermId> = records.terms.iter().map(|(term, hash)| interner.intern_hashed(term, *hash)).collect();
    let mut pending = records.warnings.into_iter().peekable();
    for (index, cell) in records.cells.iter().enumerate() {
        while let Some((_, mut diagnostic)) = pending.next_if(|(before, _)| *before <= index) {
            shift_line(&mut diagnostic, shift);
            warnings.push(diagnostic.code, || diagnostic);
        }
        let correspondence = Correspondence {
            entity1: ids[cell.entity[0] as usize],
            entity2: ids[cell.entity[1] as usize],
            relation: cell.relation,
            confidence: cell.confidence,
            line: cell.line + shift,
        };
        if alignment.insert(correspondence) == InsertOutcome::Duplicate {
            warnings.push("duplicate-cell", || {
                let message = format!(
                    "duplicate cell ({}, {}, {}): the first occurrence is kept",
                    interner.resolve(correspondence.entity1),
                    interner.resolve(correspondence.entity2),
                    correspondence.relation
                );
                let location = Location {
                    file: file.to_owned(),
                    line: correspondence.line,
                    column: column_of(doc.as_bytes(), cell.at),
                };
                Diagnostic::warning("duplicate-cell", message).at(location)
            });
        }
    }
    for (_, mut diagnostic) in pending {
        shift_line(&mut diagnostic, shift);
        warnings.push(diagnostic.code, || diagnostic);
    }
    for (code, count) in records.counts {
        if count > MAX_WARNINGS_PER_CODE {
            warnings.add_unlisted(code, count - MAX_WARNINGS_PER_CODE);
        }
    }
    alignment.skipped_cells += records.skipped;
}

fn shift_line(diagnostic: &mut Diagnostic, shift: u32) {
    if let Some(location) = &mut diagnostic.location {
        location.line += shift;
    }
}
