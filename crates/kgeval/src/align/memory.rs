//! Alignments held in memory (OntoAligner's lists of `{"source", "target", "score"}` dicts),
//! scored by the pipeline files go through: [`AlignTask::run_in_memory`](super::AlignTask::run_in_memory).

use kgeval_formats::Input;
use kgeval_model::{Alignment, Correspondence, Diagnostic, Interner, Relation};

use super::AlignPair;
use crate::{Error, SystemInput};

/// One correspondence given in memory: an OntoAligner prediction (`source`, `target`,
/// `score`) or reference (`source`, `target`, `relation`).
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryCell {
    /// The source entity (`entity1`), as given (not trimmed).
    pub source: String,
    /// The target entity (`entity2`).
    pub target: String,
    /// The relation as a token (`=`, `<`, `skos:exactMatch`, …); `None`: `=`, as a file
    /// without a relation column reads.
    pub relation: Option<String>,
    /// The confidence; `None`: 1.0, as a file without a measure reads. Must be finite.
    pub confidence: Option<f64>,
}

impl MemoryCell {
    /// An equivalence between `source` and `target` with confidence `score`.
    #[must_use]
    pub fn new(source: impl Into<String>, target: impl Into<String>, score: Option<f64>) -> Self {
        MemoryCell { source: source.into(), target: target.into(), relation: None, confidence: score }
    }
}

/// An alignment given to [`AlignTask::run_in_memory`](super::AlignTask::run_in_memory): an
/// input read as [`AlignTask::run`](super::AlignTask::run) reads it, or cells in memory.
#[derive(Debug, Clone, PartialEq)]
pub enum AlignmentSource {
    /// A file, standard input or bytes, read with the task's reading options.
    Input(Input),
    /// Correspondences in memory; `name` names them in errors and warnings (`reference`,
    /// `system AML`) and is the default system name.
    Cells {
        /// The name errors use; a system given as cells is named by it unless named.
        name: String,
        /// The correspondences in order (a repeated one counts as a duplicate, as in a file).
        cells: Vec<MemoryCell>,
    },
}

impl AlignmentSource {
    /// Cells in memory named `name`.
    #[must_use]
    pub fn cells(name: impl Into<String>, cells: Vec<MemoryCell>) -> Self {
        AlignmentSource::Cells { name: name.into(), cells }
    }

    /// The input, when it is one.
    pub(super) fn input(&self) -> Option<&Input> {
        match self {
            AlignmentSource::Input(input) => Some(input),
            AlignmentSource::Cells { .. } => None,
        }
    }
}

impl From<Input> for AlignmentSource {
    fn from(input: Input) -> Self {
        AlignmentSource::Input(input)
    }
}

impl std::fmt::Display for AlignmentSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AlignmentSource::Input(input) => input.fmt(f),
            AlignmentSource::Cells { name, .. } => f.write_str(name),
        }
    }
}

/// A system of a [`MemoryPair`]: its name (`None`: the input's stem, or the cells' name) and
/// its alignment.
#[derive(Debug, Clone, PartialEq)]
pub struct MemorySystem {
    /// The system's name; `None`: named as [`crate::system_names`] names a path, cells by
    /// their name.
    pub name: Option<String>,
    /// The system's alignment.
    pub alignment: AlignmentSource,
}

/// One test case of [`AlignTask::run_in_memory`](super::AlignTask::run_in_memory): an
/// [`AlignPair`] whose alignments may be cells in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryPair {
    /// The test case's name.
    pub name: String,
    /// The track it belongs to: its systems are named `track:system`.
    pub track: Option<String>,
    /// The primary reference.
    pub reference: AlignmentSource,
    /// A secondary (unrepaired) reference.
    pub secondary: Option<AlignmentSource>,
    /// Cells removed from every system before scoring.
    pub exclusion: Option<AlignmentSource>,
    /// The source and target ontologies (files), for the type breakdown and residual recall.
    pub ontologies: Option<(Input, Input)>,
    /// The baseline alignment of residual recall.
    pub baseline: Option<AlignmentSource>,
    /// The systems, in order.
    pub systems: Vec<MemorySystem>,
}

impl MemoryPair {
    /// A test case named `name` with this reference and no system yet.
    #[must_use]
    pub fn new(name: impl Into<String>, reference: AlignmentSource) -> Self {
        MemoryPair {
            name: name.into(),
            track: None,
            reference,
            secondary: None,
            exclusion: None,
            ontologies: None,
            baseline: None,
            systems: Vec::new(),
        }
    }

    /// A test case named after its reference (a file's stem, as [`AlignPair::new`] names it;
    /// cells by their name), with no system yet.
    #[must_use]
    pub fn named_after_reference(reference: AlignmentSource) -> Self {
        let name = match &reference {
            AlignmentSource::Input(input) => input.stem(),
            AlignmentSource::Cells { name, .. } => name.clone(),
        };
        MemoryPair::new(name, reference)
    }

    /// Adds a system.
    #[must_use]
    pub fn system(mut self, name: Option<String>, alignment: AlignmentSource) -> Self {
        self.systems.push(MemorySystem { name, alignment });
        self
    }

    /// The systems as [`SystemInput`]s for [`crate::system_names`] (cells as a path named
    /// after them, with their name given).
    pub(super) fn system_inputs(&self) -> Vec<SystemInput> {
        self.systems
            .iter()
            .map(|s| match &s.alignment {
                AlignmentSource::Input(input) => SystemInput { name: s.name.clone(), input: input.clone() },
                AlignmentSource::Cells { name, .. } => {
                    SystemInput::named(s.name.clone().unwrap_or_else(|| name.clone()), Input::path(name))
                }
            })
            .collect()
    }

    /// Every input of the pair that is one (for the standard-input count).
    pub(super) fn inputs(&self) -> impl Iterator<Item = &Input> + '_ {
        [Some(&self.reference), self.secondary.as_ref(), self.exclusion.as_ref(), self.baseline.as_ref()]
            .into_iter()
            .flatten()
            .filter_map(AlignmentSource::input)
            .chain(self.ontologies.iter().flat_map(|(a, b)| [a, b]))
            .chain(self.systems.iter().filter_map(|s| s.alignment.input()))
    }
}

impl From<&AlignPair> for MemoryPair {
    fn from(pair: &AlignPair) -> Self {
        let source = |input: &Option<Input>| input.clone().map(AlignmentSource::Input);
        MemoryPair {
            name: pair.name.clone(),
            track: pair.track.clone(),
            reference: AlignmentSource::Input(pair.reference.clone()),
            secondary: source(&pair.secondary),
            exclusion: source(&pair.exclusion),
            ontologies: pair.ontologies.clone(),
            baseline: source(&pair.baseline),
            systems: pair
                .systems
                .iter()
                .map(|s| MemorySystem { name: s.name.clone(), alignment: AlignmentSource::Input(s.input.clone()) })
                .collect(),
        }
    }
}

/// The cells as an alignment, as a file reader builds one: relation `=` and confidence 1.0
/// when absent, a repeated `(source, target, relation)` kept once and counted (a
/// `duplicate-cell` warning), a confidence outside [0, 1] kept with a `measure-out-of-range`
/// warning. A cell's `line` is its 1-based position in the list.
///
/// # Errors
/// [`Error::Invalid`] naming the cell (`reference[3]`) for an empty entity, an unknown relation
/// or a confidence that is not finite.
pub(super) fn alignment_of(
    name: &str,
    cells: &[MemoryCell],
    interner: &mut Interner,
) -> Result<(Alignment, Vec<Diagnostic>), Error> {
    let mut alignment = Alignment::with_capacity(cells.len());
    let mut warnings = Vec::new();
    for (index, cell) in cells.iter().enumerate() {
        let at = || format!("{name}[{index}]");
        for (what, entity) in [("source", &cell.source), ("target", &cell.target)] {
            if entity.trim().is_empty() {
                return Err(Error::invalid(format!("{}: found an empty {what}, expected an entity IRI", at())));
            }
        }
        let relation = match cell.relation.as_deref() {
            None => Relation::Equivalence,
            Some(token) => Relation::parse(token.trim()).ok_or_else(|| {
                Error::invalid(format!(
                    "{}: found relation {token:?}, expected =, <, >, %, ? or a relation name (equivalence, skos:exactMatch, …)",
                    at()
                ))
            })?,
        };
        let confidence = cell.confidence.unwrap_or(1.0);
        if !confidence.is_finite() {
            return Err(Error::invalid(format!("{}: found score {confidence}, expected a finite number", at())));
        }
        if !(0.0..=1.0).contains(&confidence) {
            warnings.push(Diagnostic::warning(
                "measure-out-of-range",
                format!("{}: confidence {confidence} is outside [0, 1]; kept as is", at()),
            ));
        }
        let line = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let correspondence = Correspondence {
            entity1: interner.intern(&cell.source),
            entity2: interner.intern(&cell.target),
            relation,
            confidence,
            line,
        };
        if let Some(first) = alignment.get(&correspondence.key()) {
            warnings.push(Diagnostic::warning(
                "duplicate-cell",
                format!(
                    "{}: {} {relation} {} repeats {name}[{}]; the first occurrence is kept",
                    at(),
                    cell.source,
                    cell.target,
                    first.line.saturating_sub(1)
                ),
            ));
        }
        alignment.insert(correspondence);
    }
    Ok((alignment, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_as_a_file_reads_them() {
        let mut interner = Interner::new();
        let cells = vec![
            MemoryCell::new("a", "b", Some(0.5)),
            MemoryCell { relation: Some("skos:broadMatch".to_owned()), ..MemoryCell::new("a", "c", None) },
            MemoryCell::new("a", "b", Some(0.9)),
            MemoryCell::new("d", "e", Some(1.5)),
        ];
        let (alignment, warnings) = alignment_of("system", &cells, &mut interner).expect("valid");
        assert_eq!(alignment.len(), 3);
        assert_eq!(alignment.duplicates(), 1);
        let cells = alignment.cells();
        assert_eq!((cells[0].confidence, cells[0].relation, cells[0].line), (0.5, Relation::Equivalence, 1));
        assert_eq!((cells[1].confidence, cells[1].relation), (1.0, Relation::Subsumed));
        let codes: Vec<&str> = warnings.iter().map(|w| w.code).collect();
        assert_eq!(codes, ["duplicate-cell", "measure-out-of-range"]);
        assert!(warnings[0].message.starts_with("system[2]: a = b repeats system[0]"), "{}", warnings[0].message);
    }

    #[test]
    fn bad_cells_name_their_place() {
        let mut interner = Interner::new();
        let message = |cells: Vec<MemoryCell>| {
            alignment_of("reference", &cells, &mut Interner::new()).expect_err("invalid").to_string()
        };
        assert_eq!(
            message(vec![MemoryCell::new("a", "b", None), MemoryCell::new("a", " ", None)]),
            "reference[1]: found an empty target, expected an entity IRI"
        );
        assert_eq!(
            message(vec![MemoryCell::new("a", "b", Some(f64::NAN))]),
            "reference[0]: found score NaN, expected a finite number"
        );
        let bad = MemoryCell { relation: Some("sameish".to_owned()), ..MemoryCell::new("a", "b", None) };
        assert!(message(vec![bad]).starts_with("reference[0]: found relation \"sameish\", expected ="));
        assert!(alignment_of("x", &[], &mut interner).expect("empty is read").0.is_empty());
    }
}
