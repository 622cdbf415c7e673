//! Alignments: sets of correspondences keyed by `(entity1, entity2, relation)`.

use rustc_hash::FxHashMap;

use crate::{Relation, TermId};

/// One correspondence (an Alignment-API `Cell`, a TSV row, an SSSOM mapping).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Correspondence {
    /// The source entity (`entity1`).
    pub entity1: TermId,
    /// The target entity (`entity2`).
    pub entity2: TermId,
    /// The relation between them.
    pub relation: Relation,
    /// The confidence (`measure`); 1.0 when the file gives none. Payload, not identity.
    pub confidence: f64,
    /// The 1-based line in the input where the correspondence starts; 0 when built in code.
    pub line: u32,
}

impl Correspondence {
    /// A correspondence built in code (no source line).
    #[must_use]
    pub const fn new(entity1: TermId, entity2: TermId, relation: Relation, confidence: f64) -> Self {
        Self { entity1, entity2, relation, confidence, line: 0 }
    }

    /// The identity of the correspondence.
    #[must_use]
    pub const fn key(&self) -> CellKey {
        (self.entity1, self.entity2, self.relation)
    }
}

/// The identity of a correspondence: exact entity ids and the relation.
pub type CellKey = (TermId, TermId, Relation);

/// What to do when a key is inserted a second time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DuplicatePolicy {
    /// Keep the first occurrence's confidence (MELT, the default).
    #[default]
    KeepFirst,
    /// Keep the highest confidence (OntoAligner).
    KeepMax,
}

/// What [`Alignment::insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InsertOutcome {
    /// The key was new.
    Inserted,
    /// The key was present; the input was counted as a duplicate.
    Duplicate,
}

/// Alignment metadata from the file header (all optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlignmentHeader {
    /// The source ontology IRI (`onto1`).
    pub onto1: Option<String>,
    /// The target ontology IRI (`onto2`).
    pub onto2: Option<String>,
    /// The Alignment-API `level` (`0`, `1`, `2EDOAL`).
    pub level: Option<String>,
    /// The Alignment-API `type` (`11`, `?*`, …).
    pub arity: Option<String>,
}

/// A set of correspondences keyed by `(entity1, entity2, relation)`, in insertion order.
///
/// ```
/// use kgeval_model::{Alignment, Correspondence, Interner, Relation};
/// let mut iris = Interner::new();
/// let (a, b) = (iris.intern("ex:a"), iris.intern("ex:b"));
/// let mut alignment = Alignment::new();
/// alignment.insert(Correspondence::new(a, b, Relation::Equivalence, 0.8));
/// alignment.insert(Correspondence::new(a, b, Relation::Equivalence, 0.9));
/// assert_eq!(alignment.len(), 1);
/// assert_eq!(alignment.duplicates(), 1);
/// assert_eq!(alignment.get(&(a, b, Relation::Equivalence)).unwrap().confidence, 0.8);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Alignment {
    cells: Vec<Correspondence>,
    index: FxHashMap<CellKey, u32>,
    policy: DuplicatePolicy,
    duplicate_lines: Vec<u32>,
    /// Header metadata.
    pub header: AlignmentHeader,
    /// Cells the reader skipped on purpose (EDOAL / level-2 cells), counted.
    pub skipped_cells: usize,
}

impl Alignment {
    /// An empty alignment keeping the first occurrence of a repeated key.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty alignment with the given duplicate policy.
    #[must_use]
    pub fn with_policy(policy: DuplicatePolicy) -> Self {
        Self { policy, ..Self::default() }
    }

    /// An empty alignment with room for `n` cells.
    #[must_use]
    pub fn with_capacity(n: usize) -> Self {
        Self {
            cells: Vec::with_capacity(n),
            index: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            ..Self::default()
        }
    }

    /// Makes room for `n` more cells (a reader that knows how many are coming).
    pub fn reserve(&mut self, n: usize) {
        self.cells.reserve(n);
        self.index.reserve(n);
    }

    /// The duplicate policy in force.
    #[must_use]
    pub fn policy(&self) -> DuplicatePolicy {
        self.policy
    }

    /// Sets the duplicate policy for later inserts.
    pub fn set_policy(&mut self, policy: DuplicatePolicy) {
        self.policy = policy;
    }

    /// Adds a correspondence; a repeated key is counted and resolved by the policy.
    pub fn insert(&mut self, cell: Correspondence) -> InsertOutcome {
        let next = self.cells.len() as u32;
        match self.index.entry(cell.key()) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(next);
                self.cells.push(cell);
                InsertOutcome::Inserted
            }
            std::collections::hash_map::Entry::Occupied(slot) => {
                let kept = &mut self.cells[*slot.get() as usize];
                if self.policy == DuplicatePolicy::KeepMax && cell.confidence > kept.confidence {
                    kept.confidence = cell.confidence;
                }
                self.duplicate_lines.push(cell.line);
                InsertOutcome::Duplicate
            }
        }
    }

    /// The stored correspondence with this key.
    #[must_use]
    pub fn get(&self, key: &CellKey) -> Option<&Correspondence> {
        self.index.get(key).map(|&i| &self.cells[i as usize])
    }

    /// The position (insertion index) of the key.
    #[must_use]
    pub fn position(&self, key: &CellKey) -> Option<usize> {
        self.index.get(key).map(|&i| i as usize)
    }

    /// Whether the key is present.
    #[must_use]
    pub fn contains(&self, key: &CellKey) -> bool {
        self.index.contains_key(key)
    }

    /// The correspondences in insertion order.
    #[must_use]
    pub fn cells(&self) -> &[Correspondence] {
        &self.cells
    }

    /// Iterates the correspondences in insertion order.
    pub fn iter(&self) -> std::slice::Iter<'_, Correspondence> {
        self.cells.iter()
    }

    /// The number of distinct correspondences.
    #[must_use]
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether there is no correspondence.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// How many inserts repeated a key already present.
    #[must_use]
    pub fn duplicates(&self) -> usize {
        self.duplicate_lines.len()
    }

    /// The source lines of the dropped duplicates (0 where unknown), in input order.
    #[must_use]
    pub fn duplicate_lines(&self) -> &[u32] {
        &self.duplicate_lines
    }

    /// A new alignment with the cells that satisfy `keep`, same header and policy.
    #[must_use]
    pub fn filtered(&self, mut keep: impl FnMut(&Correspondence) -> bool) -> Alignment {
        let mut out = Alignment { header: self.header.clone(), policy: self.policy, ..Alignment::default() };
        for cell in self.cells.iter().filter(|c| keep(c)) {
            out.insert(*cell);
        }
        out
    }
}

impl<'a> IntoIterator for &'a Alignment {
    type Item = &'a Correspondence;
    type IntoIter = std::slice::Iter<'a, Correspondence>;
    fn into_iter(self) -> Self::IntoIter {
        self.cells.iter()
    }
}

impl FromIterator<Correspondence> for Alignment {
    fn from_iter<I: IntoIterator<Item = Correspondence>>(iter: I) -> Self {
        let mut out = Alignment::new();
        for cell in iter {
            out.insert(cell);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Interner;

    #[test]
    fn keep_max_policy() {
        let mut iris = Interner::new();
        let (a, b) = (iris.intern("a"), iris.intern("b"));
        let mut al = Alignment::with_policy(DuplicatePolicy::KeepMax);
        al.insert(Correspondence::new(a, b, Relation::Equivalence, 0.2));
        assert_eq!(al.insert(Correspondence::new(a, b, Relation::Equivalence, 0.7)), InsertOutcome::Duplicate);
        al.insert(Correspondence::new(a, b, Relation::Subsumed, 0.1));
        assert_eq!(al.len(), 2);
        assert_eq!(al.cells()[0].confidence, 0.7);
        assert_eq!(al.duplicates(), 1);
    }
}
