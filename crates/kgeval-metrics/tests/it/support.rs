//! Building alignments from strings in code.

use kgeval_metrics::align::{score_pair, AlignmentOptions, AlignmentProfile, CompletenessMode};
use kgeval_model::align::PairScores;
use kgeval_model::{Alignment, Correspondence, Interner, Relation};

/// An interner plus helpers to build alignments from `(entity1, entity2, relation[, confidence])`.
#[derive(Default)]
pub struct Fixture {
    pub iris: Interner,
}

impl Fixture {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cell(&mut self, e1: &str, e2: &str, relation: &str, confidence: f64) -> Correspondence {
        let relation = Relation::parse(relation).unwrap_or_else(|| panic!("relation {relation}"));
        Correspondence::new(self.iris.intern(e1), self.iris.intern(e2), relation, confidence)
    }

    /// Cells with confidence 1.
    pub fn al(&mut self, cells: &[(&str, &str, &str)]) -> Alignment {
        cells.iter().map(|&(a, b, r)| self.cell(a, b, r, 1.0)).collect()
    }

    /// Cells with confidences.
    pub fn alc(&mut self, cells: &[(&str, &str, &str, f64)]) -> Alignment {
        cells.iter().map(|&(a, b, r, c)| self.cell(a, b, r, c)).collect()
    }

    pub fn name(&self, cell: &Correspondence) -> (String, String, &'static str) {
        (self.iris.resolve(cell.entity1).to_owned(), self.iris.resolve(cell.entity2).to_owned(), cell.relation.symbol())
    }
}

pub fn options(profile: AlignmentProfile, mode: CompletenessMode) -> AlignmentOptions {
    AlignmentOptions { mode, ..AlignmentOptions::for_profile(profile) }
}

pub fn melt(mode: CompletenessMode) -> AlignmentOptions {
    options(AlignmentProfile::Melt, mode)
}

pub fn score(fx: &Fixture, reference: &Alignment, system: &Alignment, options: &AlignmentOptions) -> PairScores {
    score_pair(reference, system, None, options, &fx.iris).0
}

/// `(tp, fp, fn, ignored, correspondences)`.
pub fn counts(s: &PairScores) -> (u64, u64, u64, u64, u64) {
    let c = s.counts;
    (c.tp, c.fp, c.fn_, c.ignored, c.correspondences)
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}
