//! `align`: OAEI alignments against (partial) references, one or many test cases (a track).

mod gold;
mod memory;
mod run;
mod spec;

use std::path::Path;

use kgeval_formats::Input;
use serde::Deserialize;

pub use gold::AlignGold;
pub use kgeval_formats::align::AlignmentFormat;
pub use kgeval_model::align::{AlignConventions, AlignmentProfile, CompletenessMode, TrackEvaluation};
pub use memory::{AlignmentSource, MemoryCell, MemoryPair, MemorySystem};

use crate::SystemInput;

/// An alignment evaluation: test cases (ontology pairs), each with its reference and the
/// systems' alignments, and the scoring conventions.
///
/// As a manifest (a track file, or a task row with `family = "align"`): optional `profile`
/// (`melt`, default; `alignapi`, `oaei-seals`, `ontoaligner`, `diso`), `completeness` (alias
/// `mode`; default: the profile's), `threshold`, `beta`, `best_threshold`, `macro_harmonic`,
/// `expected_pairs`, `input_format`, `repair_xml`, `skip_edoal`, `melt_relations`,
/// `collect_labels`; then either `[[pair]]` tables (`name`, optional `track`, `reference`,
/// `secondary`, `exclusion`, `onto1` + `onto2`, `baseline`, and `system = "PATH"` / `systems = ["NAME=PATH",
/// …]` / a `[pair.systems]` table of `NAME = "PATH"`) or the fields of one pair at the top level
/// (`reference`, `system`…, optional `name`, default: the reference's stem). Residual recall
/// (R+) is computed against `baseline`, else MELT's baseline string matcher over the
/// ontologies, else not at all. Systems of pairs
/// with a `track` are named `track:system`; a system's results are aggregated over the pairs it
/// has.
///
/// ```
/// use kgeval::align::AlignTask;
/// let task: AlignTask = kgeval::from_toml(r#"
/// completeness = "partial"
/// reference = "ref.rdf"
/// systems = ["AML=aml.rdf", "logmap.rdf.gz"]
/// "#, "task.toml")?;
/// assert_eq!((task.pairs[0].name.as_str(), task.pairs[0].systems.len()), ("ref", 2));
/// assert_eq!(task.beta, 1.0);
/// # Ok::<(), kgeval::Error>(())
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "spec::AlignTaskSpec")]
pub struct AlignTask {
    /// The test cases, in order.
    pub pairs: Vec<AlignPair>,
    /// The conventions bundle (default `melt`).
    pub profile: AlignmentProfile,
    /// How complete the references are; `None`: the profile's default (`complete`, `partial`
    /// for `diso`).
    pub completeness: Option<CompletenessMode>,
    /// Keep only system cells with `confidence >= threshold` (must be finite).
    pub threshold: Option<f64>,
    /// The β of the F-measure (default 1).
    pub beta: f64,
    /// Search the best threshold (MELT `ConfidenceFinder`) and report the P/R/F curve.
    pub best_threshold: bool,
    /// Macro F = harmonic mean of macro P and R (MELT's 2019 files).
    pub macro_harmonic: bool,
    /// Divide macro averages by this many pairs (missing pairs count 0).
    pub expected_pairs: Option<usize>,
    /// Force the alignments' syntax instead of detecting it.
    pub input_format: Option<AlignmentFormat>,
    /// Repair raw `&` in XML attributes (MELT's `AlignmentXmlRepair`).
    pub repair_xml: bool,
    /// Skip EDOAL / level-2 cells (counted) instead of failing.
    pub skip_edoal: bool,
    /// Read relations exactly as MELT does (no trimming; unknown tokens become `?`).
    pub melt_relations: bool,
    /// Judge every correspondence (TP / FP / FN / ignored) and return them as TSV in
    /// [`AlignResult::labels_tsv`].
    pub collect_labels: bool,
}

/// One test case: an ontology pair with its references and the systems' alignments.
#[derive(Debug, Clone, PartialEq)]
pub struct AlignPair {
    /// The test case's name (`cmt-conference`).
    pub name: String,
    /// The track it belongs to: its systems are named `track:system`.
    pub track: Option<String>,
    /// The primary (repaired) reference.
    pub reference: Input,
    /// A secondary (unrepaired) reference, scored in the same run.
    pub secondary: Option<Input>,
    /// Cells removed from every system before scoring (training / input mappings).
    pub exclusion: Option<Input>,
    /// The source and target ontologies, for the type breakdown, the entity checks and the
    /// baseline of residual recall (MELT's `BaselineStringMatcher` over their labels).
    pub ontologies: Option<(Input, Input)>,
    /// The baseline alignment of residual recall (R+), instead of the one computed from the
    /// ontologies.
    pub baseline: Option<Input>,
    /// The systems' alignments (`PATH` named by its unique stem, or `NAME=PATH`).
    pub systems: Vec<SystemInput>,
}

/// What an alignment evaluation gives besides the envelope's table: one track evaluation
/// per system and, when asked for, every judged correspondence as TSV.
#[derive(Debug, Clone)]
pub struct AlignResult {
    /// One evaluation per system, in first-seen order, over the pairs it has.
    pub tracks: Vec<TrackEvaluation>,
    /// `system, pair, label, entity1, entity2, relation, confidence, line` rows with a header,
    /// when [`AlignTask::collect_labels`] is set.
    pub labels_tsv: Option<String>,
}

impl AlignPair {
    /// A test case named after the reference's stem, without systems yet.
    #[must_use]
    pub fn new(reference: impl Into<Input>) -> Self {
        let reference = reference.into();
        AlignPair {
            name: reference.stem(),
            track: None,
            reference,
            secondary: None,
            exclusion: None,
            ontologies: None,
            baseline: None,
            systems: Vec::new(),
        }
    }

    /// Adds a system (`PATH` or `NAME=PATH`).
    #[must_use]
    pub fn system(mut self, spec: &str) -> Self {
        self.systems.push(SystemInput::parse(spec));
        self
    }

    /// The same pair with relative paths joined to `base`.
    #[must_use]
    pub fn resolved(&self, base: &Path) -> Self {
        AlignPair {
            name: self.name.clone(),
            track: self.track.clone(),
            reference: self.reference.resolved(base),
            secondary: self.secondary.as_ref().map(|i| i.resolved(base)),
            exclusion: self.exclusion.as_ref().map(|i| i.resolved(base)),
            ontologies: self.ontologies.as_ref().map(|(a, b)| (a.resolved(base), b.resolved(base))),
            baseline: self.baseline.as_ref().map(|i| i.resolved(base)),
            systems: self.systems.iter().map(|s| s.resolved(base)).collect(),
        }
    }
}

impl AlignTask {
    /// A task over `pairs` with the default options (profile `melt`, its completeness, no
    /// threshold, β = 1, no curve, no labels).
    #[must_use]
    pub fn new(pairs: Vec<AlignPair>) -> Self {
        AlignTask {
            pairs,
            profile: AlignmentProfile::Melt,
            completeness: None,
            threshold: None,
            beta: 1.0,
            best_threshold: false,
            macro_harmonic: false,
            expected_pairs: None,
            input_format: None,
            repair_xml: false,
            skip_edoal: false,
            melt_relations: false,
            collect_labels: false,
        }
    }

    /// Sets the profile.
    #[must_use]
    pub fn profile(mut self, profile: AlignmentProfile) -> Self {
        self.profile = profile;
        self
    }

    /// Sets the completeness mode.
    #[must_use]
    pub fn completeness(mut self, completeness: CompletenessMode) -> Self {
        self.completeness = Some(completeness);
        self
    }

    /// The same task with relative paths joined to `base`.
    #[must_use]
    pub fn resolved(&self, base: &Path) -> Self {
        AlignTask { pairs: self.pairs.iter().map(|p| p.resolved(base)).collect(), ..self.clone() }
    }
}
