//! What a parse of (a stretch of) a document yields before interning, and the merge that
//! interns it in document order: term ids, duplicate handling, warning order and line numbers
//! are the same however the document was cut.

use kgeval_model::{
    Alignment, Correspondence, Diagnostic, InsertOutcome, Interner, Location, Relation, TermBatch, TermId,
};
use rayon::prelude::*;

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
pub(super) struct Records {
    /// Every IRI the sequential reader would intern, in the order it would, with its hash
    /// (computed here, on the thread that parses the stretch), copied by interner shard
    /// while it is still in cache.
    pub(super) terms: TermBatch,
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

impl Records {
    /// Records an IRI; returns its index.
    pub(super) fn term(&mut self, iri: &str) -> u32 {
        self.terms.push(iri, Interner::hash(iri)) as u32
    }

    /// Makes room for the terms and cells of `bytes` bytes of a document (the densest real
    /// layout has about a cell, two IRIs of a third of its bytes, per 280 bytes), so that the
    /// lists are not copied as they grow.
    pub(super) fn reserve(&mut self, bytes: usize) {
        self.terms.reserve(bytes / 128, bytes / 3);
        self.cells.reserve(bytes / 256);
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
    stretch: (Records, u32),
    doc: &str,
    file: &str,
    interner: &mut Interner,
    alignment: &mut Alignment,
    warnings: &mut Warnings,
) {
    merge_all(vec![stretch], doc, file, interner, alignment, warnings);
}

/// Interns the IRIs of all `stretches` at once ([`Interner::intern_batch`]) and inserts all
/// their cells at once ([`Alignment::insert_batch`]), both on every thread and in document
/// order, then passes on their warnings and duplicates stretch after stretch; each stretch
/// starts after its number of lines.
pub(super) fn merge_all(
    mut stretches: Vec<(Records, u32)>,
    doc: &str,
    file: &str,
    interner: &mut Interner,
    alignment: &mut Alignment,
    warnings: &mut Warnings,
) {
    let parts: Vec<TermBatch> = stretches.iter_mut().map(|(records, _)| std::mem::take(&mut records.terms)).collect();
    let ids = interner.intern_batch(parts);
    // The cells of every stretch, one after the other, built on every thread: cell `g` is
    // the `g - firsts[s]`-th of the last stretch `s` that starts at or before it.
    let mut firsts = Vec::with_capacity(stretches.len());
    let mut total = 0;
    for (records, _) in &stretches {
        firsts.push(total);
        total += records.cells.len();
    }
    let cells: Vec<Correspondence> = (0..total)
        .into_par_iter()
        .map(|g| {
            let s = firsts.partition_point(|&first| first <= g) - 1;
            let ((records, shift), ids) = (&stretches[s], &ids[s]);
            let cell = &records.cells[g - firsts[s]];
            Correspondence {
                entity1: ids[cell.entity[0] as usize],
                entity2: ids[cell.entity[1] as usize],
                relation: cell.relation,
                confidence: cell.confidence,
                line: cell.line + shift,
            }
        })
        .collect();
    // The cells' buffer becomes the alignment's (when it was empty).
    let outcomes = alignment.insert_batch(cells);
    let mut done = 0;
    for (stretch, ids) in stretches.into_iter().zip(&ids) {
        let n = stretch.0.cells.len();
        let range = done..done + n;
        done += n;
        alignment.skipped_cells += report(stretch, ids, &outcomes[range], doc, file, interner, warnings);
    }
    // Large buffers are unmapped on a worker while the caller goes on.
    if total >= BACKGROUND_DROP {
        rayon::spawn(move || drop((outcomes, ids)));
    }
}

/// From this many cells on, [`merge_all`] frees its buffers on a worker thread.
const BACKGROUND_DROP: usize = 1 << 16;

/// Passes on the warnings of one stretch (whose terms got the ids `ids`), with a
/// `duplicate-cell` warning at each cell that repeated one before it, in document order;
/// counts its skipped cells.
fn report(
    (records, shift): (Records, u32),
    ids: &[TermId],
    outcomes: &[InsertOutcome],
    doc: &str,
    file: &str,
    interner: &Interner,
    warnings: &mut Warnings,
) -> usize {
    // A stretch with neither warnings nor duplicates (the common case) has nothing to pass on
    // cell by cell.
    let quiet = records.warnings.is_empty() && !outcomes.contains(&InsertOutcome::Duplicate);
    let mut pending = records.warnings.into_iter().peekable();
    let per_cell = if quiet { &records.cells[..0] } else { &records.cells[..] };
    for (index, (cell, outcome)) in per_cell.iter().zip(outcomes).enumerate() {
        while let Some((_, mut diagnostic)) = pending.next_if(|(before, _)| *before <= index) {
            shift_line(&mut diagnostic, shift);
            warnings.push(diagnostic.code, || diagnostic);
        }
        if *outcome == InsertOutcome::Duplicate {
            warnings.push("duplicate-cell", || {
                let message = format!(
                    "duplicate cell ({}, {}, {}): the first occurrence is kept",
                    interner.resolve(ids[cell.entity[0] as usize]),
                    interner.resolve(ids[cell.entity[1] as usize]),
                    cell.relation
                );
                let location = Location {
                    file: file.to_owned(),
                    line: cell.line + shift,
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
    records.skipped
}

fn shift_line(diagnostic: &mut Diagnostic, shift: u32) {
    if let Some(location) = &mut diagnostic.location {
        location.line += shift;
    }
}
