//! Alignments: sets of correspondences keyed by `(entity1, entity2, relation)`.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::{Relation, TermId};

/// The number of maps the cell index is split into (by the entity pair), so that a batch is
/// inserted shard by shard in parallel ([`Alignment::insert_batch`]).
const INDEX_SHARDS: usize = 16;

/// Batches smaller than this are inserted one cell at a time (same result, less overhead).
const BATCH_MIN: usize = 4096;

/// The cells of a batch are filed by shard in chunks of this many, on every thread.
const BATCH_CHUNK: usize = 1 << 16;

/// The cell index: key → position, split into [`INDEX_SHARDS`] maps by the entity pair.
#[derive(Debug, Clone)]
struct CellIndex(Vec<FxHashMap<CellKey, u32>>);

impl Default for CellIndex {
    fn default() -> Self {
        Self(vec![FxHashMap::default(); INDEX_SHARDS])
    }
}

impl CellIndex {
    /// The shard of a key: the top bits of a multiplicative hash of the entity pair (other
    /// bits than the ones the maps' own hash uses for buckets and tags).
    fn shard(key: &CellKey) -> usize {
        let pair = (u64::from(key.0.index()) << 32) | u64::from(key.1.index());
        (pair.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60) as usize % INDEX_SHARDS
    }

    fn map(&self, key: &CellKey) -> &FxHashMap<CellKey, u32> {
        &self.0[Self::shard(key)]
    }

    fn reserve(&mut self, n: usize) {
        let per_shard = n / INDEX_SHARDS + n / (INDEX_SHARDS * 16) + 16;
        if n >= BATCH_MIN {
            self.0.par_iter_mut().for_each(|map| map.reserve(per_shard));
        } else {
            for map in &mut self.0 {
                map.reserve(per_shard);
            }
        }
    }
}

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
    index: CellIndex,
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
        let mut index = CellIndex::default();
        index.reserve(n);
        Self { cells: Vec::with_capacity(n), index, ..Self::default() }
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
        let key = cell.key();
        match self.index.0[CellIndex::shard(&key)].entry(key) {
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

    /// Inserts `cells` in order and says what happened to each: the same cells, positions,
    /// duplicates and confidences as [`Alignment::insert`] of each in turn gives. The cells
    /// are filed by shard in chunks on rayon's threads, and the lookups run shard by shard
    /// (each shard sees its cells in order, so a new key's first cell is known); a count of
    /// those first cells in document order gives each new cell its position, and the new
    /// cells are stored (into an empty alignment, `cells`' buffer itself is kept); duplicates
    /// are resolved in order. The result does not depend on the thread count.
    ///
    /// # Panics
    /// If the alignment would hold more than `u32::MAX` cells.
    pub fn insert_batch(&mut self, cells: Vec<Correspondence>) -> Vec<InsertOutcome> {
        if cells.len() < BATCH_MIN {
            return cells.into_iter().map(|cell| self.insert(cell)).collect();
        }
        let before = u32::try_from(self.cells.len()).expect("more than u32::MAX cells");
        u32::try_from(cells.len()).ok().and_then(|n| before.checked_add(n)).expect("more than u32::MAX cells");
        // Each chunk's keys filed by shard, with their cells, on every thread: a shard's
        // places are its lists of every chunk one after the other.
        let chunks: Vec<[Vec<(CellKey, u32)>; INDEX_SHARDS]> = cells
            .par_chunks(BATCH_CHUNK)
            .enumerate()
            .map(|(c, chunk)| {
                let mut lists: [Vec<(CellKey, u32)>; INDEX_SHARDS] =
                    std::array::from_fn(|_| Vec::with_capacity(chunk.len() / INDEX_SHARDS + chunk.len() / 64 + 16));
                for (i, cell) in chunk.iter().enumerate() {
                    let key = cell.key();
                    lists[CellIndex::shard(&key)].push((key, (c * BATCH_CHUNK + i) as u32));
                }
                lists
            })
            .collect();
        // Where each chunk starts in each shard's places.
        let mut offsets: Vec<[usize; INDEX_SHARDS]> = Vec::with_capacity(chunks.len());
        let mut next = [0; INDEX_SHARDS];
        for lists in &chunks {
            offsets.push(next);
            for (shard, list) in lists.iter().enumerate() {
                next[shard] += list.len();
            }
        }
        // Per shard, at each place: the position of a key stored before (< before), or
        // `before + g0` for a key first seen at place `g0`.
        let codes: Vec<Vec<u32>> = self
            .index
            .0
            .par_iter_mut()
            .enumerate()
            .map(|(shard, map)| {
                let mut codes = Vec::with_capacity(next[shard]);
                for lists in &chunks {
                    for &(key, _) in &lists[shard] {
                        let code = match map.entry(key) {
                            std::collections::hash_map::Entry::Occupied(found) => *found.get(),
                            std::collections::hash_map::Entry::Vacant(slot) => {
                                let code = before + codes.len() as u32;
                                slot.insert(code);
                                code
                            }
                        };
                        codes.push(code);
                    }
                }
                codes
            })
            .collect();
        // A cell is new where its key was first seen at its own place.
        let mut outcomes = vec![InsertOutcome::Inserted; cells.len()];
        outcomes.par_chunks_mut(BATCH_CHUNK).zip(cells.par_chunks(BATCH_CHUNK)).zip(&offsets).for_each(
            |((outcomes, chunk), offsets)| {
                let mut place = *offsets;
                for (outcome, cell) in outcomes.iter_mut().zip(chunk) {
                    let shard = CellIndex::shard(&cell.key());
                    if codes[shard][place[shard]] != before + place[shard] as u32 {
                        *outcome = InsertOutcome::Duplicate;
                    }
                    place[shard] += 1;
                }
            },
        );
        // The new cells in order: each one's position is `before` + the new cells before it.
        let mut rank = Vec::with_capacity(cells.len());
        let mut new = 0;
        for outcome in &outcomes {
            rank.push(before + new);
            new += u32::from(*outcome == InsertOutcome::Inserted);
        }
        let duplicates: Vec<Correspondence> = if new as usize == cells.len() {
            Vec::new()
        } else {
            cells.iter().zip(&outcomes).filter(|(_, o)| **o == InsertOutcome::Duplicate).map(|(c, _)| *c).collect()
        };
        self.store(cells, &outcomes, new as usize);
        // The index gets the positions in place of the codes: the rank of the cell at `g0`.
        self.index.0.par_iter_mut().enumerate().for_each(|(shard, map)| {
            let ranks: Vec<u32> =
                chunks.iter().flat_map(|lists| lists[shard].iter().map(|&(_, k)| rank[k as usize])).collect();
            for position in map.values_mut() {
                if *position >= before {
                    *position = ranks[(*position - before) as usize];
                }
            }
        });
        drop(chunks);
        // Duplicates in order: each one meets the cell its key kept.
        for cell in &duplicates {
            let key = cell.key();
            let position = self.index.map(&key)[&key];
            let kept = &mut self.cells[position as usize];
            if self.policy == DuplicatePolicy::KeepMax && cell.confidence > kept.confidence {
                kept.confidence = cell.confidence;
            }
            self.duplicate_lines.push(cell.line);
        }
        outcomes
    }

    /// Stores the `new` cells of `cells` that `outcomes` says are new, in order. Into an
    /// empty alignment the batch's buffer itself becomes the list of cells (the new cells moved
    /// to its front, if there are duplicates), so that a large read does not copy its cells.
    fn store(&mut self, mut cells: Vec<Correspondence>, outcomes: &[InsertOutcome], new: usize) {
        let is_new = |k: usize| outcomes[k] == InsertOutcome::Inserted;
        if self.cells.is_empty() {
            if new < cells.len() {
                let mut k = 0;
                cells.retain(|_| {
                    k += 1;
                    is_new(k - 1)
                });
            }
            self.cells = cells;
        } else {
            self.cells.par_extend(cells.par_iter().enumerate().filter(|&(k, _)| is_new(k)).map(|(_, c)| *c));
        }
    }

    /// The stored correspondence with this key.
    #[must_use]
    pub fn get(&self, key: &CellKey) -> Option<&Correspondence> {
        self.index.map(key).get(key).map(|&i| &self.cells[i as usize])
    }

    /// The position (insertion index) of the key.
    #[must_use]
    pub fn position(&self, key: &CellKey) -> Option<usize> {
        self.index.map(key).get(key).map(|&i| i as usize)
    }

    /// Whether the key is present.
    #[must_use]
    pub fn contains(&self, key: &CellKey) -> bool {
        self.index.map(key).contains_key(key)
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

    /// A batch leaves the alignment exactly as inserting its cells one by one does, at one
    /// thread and at two, under both policies: cells stored before the batch, repeats of them
    /// and repeats inside the batch (the later, higher confidence wins only under KeepMax),
    /// enough cells to take the sharded path, in several chunks (new keys and repeats of
    /// earlier chunks' keys in each); into an empty alignment too (which keeps the batch's
    /// buffer).
    #[test]
    fn a_batch_inserts_as_one_by_one_at_any_thread_count() {
        let mut iris = Interner::new();
        let ids: Vec<TermId> = (0..1000).map(|i| iris.intern(&format!("e{i}"))).collect();
        let relations = [Relation::Equivalence, Relation::Subsumed];
        let cell = |i: usize| Correspondence {
            entity1: ids[(i * 31) % 97],
            entity2: ids[100 + (i * 17) % 797],
            relation: relations[i % 2],
            confidence: (i % 10) as f64 / 10.0,
            line: i as u32,
        };
        let stored: Vec<Correspondence> = (0..3000).map(|i| cell(i * 5)).collect();
        // The keys repeat from cell 154,618 on (97 × 797 × 2), in the third chunk.
        let batch: Vec<Correspondence> = (0..200_000).map(cell).collect();
        assert!(batch.len() > 3 * BATCH_CHUNK);
        for (policy, old) in [DuplicatePolicy::KeepFirst, DuplicatePolicy::KeepMax]
            .into_iter()
            .flat_map(|policy| [(policy, &stored[..0]), (policy, &stored[..])])
        {
            let mut one_by_one = Alignment::with_policy(policy);
            for c in old {
                one_by_one.insert(*c);
            }
            let expected: Vec<InsertOutcome> = batch.iter().map(|c| one_by_one.insert(*c)).collect();
            assert!(expected.contains(&InsertOutcome::Inserted) && expected.contains(&InsertOutcome::Duplicate));
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
                let mut batched = Alignment::with_capacity(10);
                batched.set_policy(policy);
                for c in old {
                    batched.insert(*c);
                }
                let outcomes = pool.install(|| batched.insert_batch(batch.clone()));
                assert_eq!(outcomes, expected, "{policy:?}, {} stored, {threads} threads", old.len());
                assert_eq!(batched.cells(), one_by_one.cells());
                assert_eq!(batched.duplicate_lines(), one_by_one.duplicate_lines());
                for c in batch.iter().step_by(97) {
                    assert_eq!(batched.position(&c.key()), one_by_one.position(&c.key()));
                }
                assert_eq!(batched.insert(cell(0)), InsertOutcome::Duplicate);
                let fresh = Correspondence::new(ids[399], ids[0], Relation::Equivalence, 1.0);
                assert_eq!(batched.insert(fresh), InsertOutcome::Inserted);
                assert_eq!(batched.position(&fresh.key()), Some(one_by_one.len()));
            }
        }
    }
}
