//! Alignment scoring: MELT's completeness modes, the Alignment API, OAEI SEALS, OntoAligner and
//! DISO Task 1 conventions, aggregation, threshold search, type breakdown and input checks.
//!
//! Everything here is a pure function of model types ([`Alignment`], [`EntityTypes`],
//! [`Interner`]) returning result types from [`kgeval_model::align`]; nothing reads files.
//!
//! # Pipeline of one scoring
//! 1. **Exclusion**: system cells whose key is in the exclusion alignment are removed (by the
//!    full key `(entity1, entity2, relation)`, or by `(entity1, entity2)` when the profile ignores
//!    relations). Removed cells are *not counted anywhere*: not in `correspondences`, not in
//!    `ignored`, and they get no label.
//! 2. **Threshold**: only cells with `confidence ≥ t` are kept (same treatment as the exclusion).
//! 3. **Profile normalisation**: relation-insensitive profiles key both sides on
//!    `(entity1, entity2)` (the first occurrence of a merged key is kept, later ones are dropped
//!    like duplicates); `oaei-seals` turns a system cell around when only its reversed form
//!    `(entity2, entity1, relation.reversed())` is in the reference; `diso` keeps `=` cells only.
//! 4. **Completeness mode** (MELT `ConfusionMatrixMetric`), exactly as the specification's
//!    pseudocode, then P/R/F with the profile's zero-division and rounding conventions.

mod judge;
mod par;
#[cfg(test)]
mod par_tests;
mod residual;
mod scores;
mod track;
mod types;
mod validate;

pub use kgeval_model::align::{AlignmentProfile, CompletenessMode};
use kgeval_model::{Alignment, EntityTypes};

pub use residual::{baseline_string_matcher, residual_scores};
pub use scores::{aggregate, best_threshold, prf, score_pair, threshold_curve};
pub use track::{conventions, evaluate_pair, evaluate_track};
pub use types::type_breakdown;
pub use validate::validate;

#[cfg(doc)]
use kgeval_model::Interner;

/// How to score: profile, completeness mode, threshold, β and the optional outputs.
///
/// [`AlignmentOptions::for_profile`] gives each profile's documented defaults; the
/// [`Default`] is `for_profile(AlignmentProfile::Melt)`.
#[derive(Debug, Clone, PartialEq)]
pub struct AlignmentOptions {
    /// How complete the reference is assumed to be. Ignored by the `ontoaligner` profile, which
    /// has no notion of completeness (it compares plain lists).
    pub mode: CompletenessMode,
    /// The conventions bundle.
    pub profile: AlignmentProfile,
    /// Keep only system cells with `confidence ≥ threshold` (after the exclusion).
    pub threshold: Option<f64>,
    /// The β of the F-measure (1.0: F1).
    pub beta: f64,
    /// Whether the relation is part of a correspondence's identity; `None`: the profile's
    /// default (see [`AlignmentOptions::relation_sensitivity`]).
    pub relation_sensitive: Option<bool>,
    /// Whether [`score_pair`] / [`evaluate_pair`] return per-correspondence labels.
    pub collect_labels: bool,
    /// Whether [`evaluate_pair`] also computes the P/R/F-vs-threshold curve and the best
    /// threshold (MELT `ConfidenceFinder`).
    pub threshold_curve: bool,
    /// Macro F = harmonic mean of macro P and macro R (MELT before 3.5, its 2019 result files)
    /// instead of the mean of per-pair F (MELT ≥ 3.5).
    pub macro_harmonic_f1: bool,
    /// Macro averages divide by this many pairs (pairs without a system alignment count 0).
    /// A value below the number of pairs given is raised to it, so that macro scores stay in
    /// `[0, 1]`.
    pub expected_pairs: Option<usize>,
}

impl AlignmentOptions {
    /// The documented defaults of a profile:
    ///
    /// | profile       | mode       | relation-sensitive | why |
    /// |---------------|------------|--------------------|-----|
    /// | `melt`        | `complete` | yes | MELT `ConfusionMatrixMetric`'s default (`GoldStandardCompleteness.COMPLETE`) |
    /// | `alignapi`    | `complete` | no  | Alignment API `PRecEvaluator` compares `(entity1, entity2)` |
    /// | `oaei-seals`  | `complete` | yes | the SEALS client's evaluation (direction-insensitive) |
    /// | `ontoaligner` | `complete` (unused) | no | `evaluation_report` compares (source, target) lists |
    /// | `diso`        | `partial`  | yes (`=` only) | DISO Task 1's "partiality-corrected" scorer |
    ///
    /// Threshold none, β = 1, no labels, no curve, macro F = mean of per-pair F.
    #[must_use]
    pub fn for_profile(profile: AlignmentProfile) -> Self {
        let mode = match profile {
            AlignmentProfile::Diso => CompletenessMode::Partial,
            AlignmentProfile::Melt
            | AlignmentProfile::AlignApi
            | AlignmentProfile::OaeiSeals
            | AlignmentProfile::OntoAligner => CompletenessMode::Complete,
        };
        Self {
            mode,
            profile,
            threshold: None,
            beta: 1.0,
            relation_sensitive: None,
            collect_labels: false,
            threshold_curve: false,
            macro_harmonic_f1: false,
            expected_pairs: None,
        }
    }

    /// Whether relations take part in matching: the explicit option, else the profile's
    /// default (`alignapi` and `ontoaligner`: no; the others: yes). `ontoaligner` always
    /// compares `(source, target)` pairs whatever this says.
    #[must_use]
    pub fn relation_sensitivity(&self) -> bool {
        match self.profile {
            AlignmentProfile::OntoAligner => false,
            AlignmentProfile::AlignApi => self.relation_sensitive.unwrap_or(false),
            AlignmentProfile::Melt | AlignmentProfile::OaeiSeals | AlignmentProfile::Diso => {
                self.relation_sensitive.unwrap_or(true)
            }
        }
    }
}

impl Default for AlignmentOptions {
    /// `for_profile(AlignmentProfile::Melt)`: complete mode, relation-sensitive.
    fn default() -> Self {
        Self::for_profile(AlignmentProfile::Melt)
    }
}

/// One test case (ontology pair) to evaluate: the references, the system alignment, the
/// optional exclusion alignment and the optional ontologies' entity types.
///
/// All alignments and entity types must share the [`Interner`] passed to the scoring function.
#[derive(Debug, Clone, Copy)]
pub struct PairInput<'a> {
    /// The pair's name (e.g. `cmt-conference`).
    pub name: &'a str,
    /// The primary (repaired) reference.
    pub reference: &'a Alignment,
    /// The secondary (unrepaired) reference, scored for comparison.
    pub secondary: Option<&'a Alignment>,
    /// The system alignment.
    pub system: &'a Alignment,
    /// Cells removed from the system before scoring (training / input mappings).
    pub exclusion: Option<&'a Alignment>,
    /// The source ontology's entity types (for the type breakdown and the checks).
    pub onto1: Option<&'a EntityTypes>,
    /// The target ontology's entity types.
    pub onto2: Option<&'a EntityTypes>,
    /// The baseline of residual recall (MELT's trivial matches: [`baseline_string_matcher`]
    /// or a given alignment); `None`: no residual scores.
    pub baseline: Option<&'a Alignment>,
}
