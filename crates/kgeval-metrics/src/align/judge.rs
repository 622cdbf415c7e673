//! The judging engine: which system cell is TP, FP or ignored, and which reference cell is
//! missed, under one profile and completeness mode. Scores and curves are read off a
//! [`Judgement`].

use kgeval_model::align::{AlignmentProfile, CellLabel, CompletenessMode, ConfusionCounts, LabeledCell};
use kgeval_model::{Alignment, CellKey, Correspondence, Interner, Relation, TermId};
use std::collections::hash_map::Entry;

use rustc_hash::{FxHashMap, FxHashSet};

use super::AlignmentOptions;

/// A restriction of both sides to some cells (type breakdown).
pub(crate) type CellFilter<'f> = &'f dyn Fn(&Correspondence) -> bool;

/// Per-system-cell state bits.
const SKIPPED: u8 = 0;
const SCORED: u8 = 1;
const TP_BIT: u8 = 2;
const REMOVED_BIT: u8 = 4;
const CANDIDATE_BIT: u8 = 8;

/// The final label of a scored cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Skipped,
    Tp,
    Fp,
    Ignored,
}

/// The judgement of one system alignment against one reference.
#[derive(Debug)]
pub(crate) struct Judgement<'a> {
    system: &'a [Correspondence],
    verdicts: Vec<Verdict>,
    /// Reference cells that count as FN when missed, with the system cell matching them.
    reference: Vec<(Correspondence, Option<u32>)>,
    /// Predictions counted without a cell (OntoAligner: repeated list entries).
    extra_fp: u64,
    /// Reference entries counted without a cell (OntoAligner: repeated list entries).
    extra_fn: u64,
}

impl Judgement<'_> {
    /// The counts of the cells with `confidence ≥ cut` (all scored cells for `None`).
    pub(crate) fn counts_at(&self, cut: Option<f64>) -> ConfusionCounts {
        let kept = |c: &Correspondence| cut.is_none_or(|t| c.confidence >= t);
        let mut counts = ConfusionCounts::default();
        for (cell, verdict) in self.system.iter().zip(&self.verdicts) {
            if *verdict == Verdict::Skipped || !kept(cell) {
                continue;
            }
            match verdict {
                Verdict::Tp => counts.tp += 1,
                Verdict::Fp => counts.fp += 1,
                Verdict::Ignored => counts.ignored += 1,
                Verdict::Skipped => {}
            }
        }
        counts.fn_ = self.reference.iter().filter(|(_, m)| m.is_none_or(|i| !kept(&self.system[i as usize]))).count()
            as u64
            + self.extra_fn;
        counts.fp += self.extra_fp;
        counts.correspondences = counts.tp + counts.fp + counts.ignored;
        counts
    }

    /// Counts at every distinct confidence of the scored cells, ascending (NaN never passes a
    /// cut, so it is no cut either). One sort instead of one scoring per cut.
    pub(crate) fn curve(&self) -> Vec<(f64, ConfusionCounts)> {
        let mut by_verdict: [Vec<f64>; 3] = Default::default();
        for (cell, verdict) in self.system.iter().zip(&self.verdicts) {
            let slot = match verdict {
                Verdict::Tp => 0,
                Verdict::Fp => 1,
                Verdict::Ignored => 2,
                Verdict::Skipped => continue,
            };
            if !cell.confidence.is_nan() {
                by_verdict[slot].push(cell.confidence);
            }
        }
        let mut matched: Vec<f64> = Vec::new();
        let mut unmatched = self.extra_fn;
        for (_, m) in &self.reference {
            match m.map(|i| self.system[i as usize].confidence) {
                Some(c) if !c.is_nan() => matched.push(c),
                _ => unmatched += 1,
            }
        }
        for v in by_verdict.iter_mut().chain([&mut matched]) {
            v.sort_unstable_by(f64::total_cmp);
        }
        let mut cuts: Vec<f64> = by_verdict.iter().flatten().copied().collect();
        cuts.sort_unstable_by(f64::total_cmp);
        cuts.dedup();
        let at_least = |v: &[f64], c: f64| (v.len() - v.partition_point(|&x| x < c)) as u64;
        cuts.into_iter()
            .map(|c| {
                let tp = at_least(&by_verdict[0], c);
                let fp = at_least(&by_verdict[1], c) + self.extra_fp;
                let ignored = at_least(&by_verdict[2], c);
                let fn_ = unmatched + matched.partition_point(|&x| x < c) as u64;
                (c, ConfusionCounts { tp, fp, fn_, ignored, correspondences: tp + fp + ignored })
            })
            .collect()
    }

    /// TP / FP / ignored for every scored system cell in input order, then FN for every missed
    /// reference cell in reference order.
    pub(crate) fn labels(&self) -> Vec<LabeledCell> {
        let system = self.system.iter().zip(&self.verdicts).filter_map(|(cell, verdict)| {
            let label = match verdict {
                Verdict::Tp => CellLabel::TruePositive,
                Verdict::Fp => CellLabel::FalsePositive,
                Verdict::Ignored => CellLabel::Ignored,
                Verdict::Skipped => return None,
            };
            Some(LabeledCell { cell: *cell, label })
        });
        let missed = self
            .reference
            .iter()
            .filter(|(_, m)| m.is_none())
            .map(|(cell, _)| LabeledCell { cell: *cell, label: CellLabel::FalseNegative });
        system.chain(missed).collect()
    }
}

/// Judges `system` against `reference` under `options`, both sides restricted by `filter`.
pub(crate) fn judge<'a>(
    reference: &Alignment,
    system: &'a Alignment,
    exclusion: Option<&Alignment>,
    options: &AlignmentOptions,
    interner: &Interner,
    filter: Option<CellFilter<'_>>,
) -> Judgement<'a> {
    let sensitive = options.relation_sensitivity();
    let equivalence_only = options.profile == AlignmentProfile::Diso;
    let keep =
        |c: &Correspondence| filter.is_none_or(|f| f(c)) && (!equivalence_only || c.relation == Relation::Equivalence);
    let state = initial_state(system, exclusion, options.threshold, sensitive, &keep);
    if options.profile == AlignmentProfile::OntoAligner {
        return judge_lists(reference, system, &state, filter.is_none(), &keep);
    }
    let references = normalized_reference(reference, sensitive, &keep);
    let reorient = options.profile == AlignmentProfile::OaeiSeals;
    let mut view = SystemView::build(system, state, sensitive, reorient, &references);
    let mut counted = Vec::with_capacity(references.len());
    let verdicts = match options.mode {
        CompletenessMode::Complete => {
            judge_complete(&mut view, &references, &mut counted);
            view.finish(|s| {
                if s & TP_BIT != 0 {
                    Verdict::Tp
                } else if s & REMOVED_BIT != 0 {
                    Verdict::Ignored
                } else {
                    Verdict::Fp
                }
            })
        }
        mode => {
            let sides = match mode {
                CompletenessMode::PartialSource => (true, false),
                CompletenessMode::PartialTarget => (false, true),
                CompletenessMode::PartialNone => (false, false),
                CompletenessMode::Partial | CompletenessMode::Complete => (true, true),
            };
            judge_partial(&mut view, &references, sides, interner, &mut counted);
            view.finish(|s| {
                if s & TP_BIT != 0 {
                    Verdict::Tp
                } else if s & CANDIDATE_BIT != 0 {
                    Verdict::Fp
                } else {
                    Verdict::Ignored
                }
            })
        }
    };
    Judgement { system: system.cells(), verdicts, reference: counted, extra_fp: 0, extra_fn: 0 }
}

/// `SCORED` for the cells that survive the filter, the exclusion and the threshold.
fn initial_state(
    system: &Alignment,
    exclusion: Option<&Alignment>,
    threshold: Option<f64>,
    sensitive: bool,
    keep: &dyn Fn(&Correspondence) -> bool,
) -> Vec<u8> {
    let excluded_pairs: Option<FxHashSet<(TermId, TermId)>> =
        exclusion.filter(|_| !sensitive).map(|x| x.iter().map(|c| (c.entity1, c.entity2)).collect());
    let excluded = |c: &Correspondence| match (&excluded_pairs, exclusion) {
        (Some(pairs), _) => pairs.contains(&(c.entity1, c.entity2)),
        (None, Some(x)) => x.contains(&c.key()),
        (None, None) => false,
    };
    system
        .iter()
        .map(|c| {
            let scored = threshold.is_none_or(|t| c.confidence >= t) && keep(c) && !excluded(c);
            if scored {
                SCORED
            } else {
                SKIPPED
            }
        })
        .collect()
}

/// The reference cells kept by `keep`, with their matching key: relation-insensitive keys use
/// `=` for every relation but `?` and `%`, which keep their meaning. Deduplicated on that key.
fn normalized_reference(
    reference: &Alignment,
    sensitive: bool,
    keep: &dyn Fn(&Correspondence) -> bool,
) -> Vec<(Correspondence, CellKey)> {
    let kept = reference.iter().filter(|c| keep(c));
    if sensitive {
        return kept.map(|c| (*c, c.key())).collect();
    }
    let mut seen = FxHashSet::default();
    kept.filter_map(|c| {
        let key = match c.relation {
            Relation::Unknown | Relation::Incompatible => c.key(),
            _ => (c.entity1, c.entity2, Relation::Equivalence),
        };
        seen.insert(key).then_some((*c, key))
    })
    .collect()
}

/// The system cells with their matching keys and a key index.
struct SystemView<'a> {
    system: &'a Alignment,
    state: Vec<u8>,
    /// Matching keys when they differ from the cells' own keys.
    keys: Option<Vec<CellKey>>,
    /// Matching key → cell index, when `keys` is set.
    map: Option<FxHashMap<CellKey, u32>>,
}

impl<'a> SystemView<'a> {
    fn build(
        system: &'a Alignment,
        mut state: Vec<u8>,
        sensitive: bool,
        reorient: bool,
        references: &[(Correspondence, CellKey)],
    ) -> Self {
        if sensitive && !reorient {
            return Self { system, state, keys: None, map: None };
        }
        let reference_keys: FxHashSet<CellKey> =
            if reorient { references.iter().map(|(_, k)| *k).collect() } else { FxHashSet::default() };
        let mut keys = Vec::with_capacity(system.len());
        let mut map = FxHashMap::with_capacity_and_hasher(system.len(), Default::default());
        for (i, cell) in system.iter().enumerate() {
            let mut key = if sensitive { cell.key() } else { (cell.entity1, cell.entity2, Relation::Equivalence) };
            if reorient && !reference_keys.contains(&key) {
                let reversed = (key.1, key.0, key.2.reversed());
                if reference_keys.contains(&reversed) {
                    key = reversed;
                }
            }
            keys.push(key);
            if state[i] != SKIPPED {
                match map.entry(key) {
                    Entry::Vacant(slot) => {
                        slot.insert(i as u32);
                    }
                    // A merged key: the first occurrence stays, this one is dropped like a duplicate.
                    Entry::Occupied(_) => state[i] = SKIPPED,
                }
            }
        }
        Self { system, state, keys: Some(keys), map: Some(map) }
    }

    /// The scored cell matching `key`.
    fn lookup(&self, key: &CellKey) -> Option<u32> {
        match &self.map {
            Some(map) => map.get(key).copied(),
            None => {
                let i = self.system.position(key)?;
                (self.state[i] != SKIPPED).then_some(i as u32)
            }
        }
    }

    /// The matching key of cell `i`.
    fn key(&self, i: usize) -> CellKey {
        self.keys.as_ref().map_or_else(|| self.system.cells()[i].key(), |keys| keys[i])
    }

    fn finish(&self, verdict: impl Fn(u8) -> Verdict) -> Vec<Verdict> {
        self.state.iter().map(|&s| if s == SKIPPED { Verdict::Skipped } else { verdict(s) }).collect()
    }
}

/// MELT's complete reference: every scored cell is FP unless matched or covered by a `?` cell.
fn judge_complete(
    view: &mut SystemView<'_>,
    references: &[(Correspondence, CellKey)],
    counted: &mut Vec<(Correspondence, Option<u32>)>,
) {
    for (cell, key) in references {
        if key.2 == Relation::Unknown {
            for relation in Relation::ALL {
                if let Some(i) = view.lookup(&(key.0, key.1, relation)) {
                    view.state[i as usize] |= REMOVED_BIT;
                }
            }
            continue;
        }
        let found = view.lookup(key);
        if let Some(i) = found {
            view.state[i as usize] |= TP_BIT;
        }
        counted.push((*cell, found));
    }
}

/// MELT's partial reference: a cell is judged only when a reference cell makes it wrong.
fn judge_partial(
    view: &mut SystemView<'_>,
    references: &[(Correspondence, CellKey)],
    (source_complete, target_complete): (bool, bool),
    interner: &Interner,
    counted: &mut Vec<(Correspondence, Option<u32>)>,
) {
    let is_null = |id: TermId| {
        let s = interner.resolve(id).trim();
        s.is_empty() || s.eq_ignore_ascii_case("null")
    };
    let mut by_source: FxHashSet<(TermId, Relation)> = FxHashSet::default();
    let mut by_target: FxHashSet<(TermId, Relation)> = FxHashSet::default();
    for (cell, key) in references {
        match key.2 {
            Relation::Unknown => {}
            Relation::Incompatible => {
                if is_null(key.1) {
                    by_source.insert((key.0, Relation::Equivalence));
                } else if is_null(key.0) {
                    by_target.insert((key.1, Relation::Equivalence));
                } else if let Some(i) = view.lookup(&(key.0, key.1, Relation::Equivalence)) {
                    view.state[i as usize] |= CANDIDATE_BIT;
                }
            }
            relation => {
                let found = view.lookup(key);
                if let Some(i) = found {
                    view.state[i as usize] |= TP_BIT;
                }
                counted.push((*cell, found));
                if source_complete {
                    by_source.insert((key.0, relation));
                }
                if target_complete {
                    by_target.insert((key.1, relation));
                }
            }
        }
    }
    if by_source.is_empty() && by_target.is_empty() {
        return;
    }
    for i in 0..view.state.len() {
        if view.state[i] == SKIPPED {
            continue;
        }
        let (e1, e2, relation) = view.key(i);
        if by_source.contains(&(e1, relation)) || by_target.contains(&(e2, relation)) {
            view.state[i] |= CANDIDATE_BIT;
        }
    }
}

/// OntoAligner's list comparison on `(source, target)` pairs: the first scored cell of a pair
/// is TP when the pair is in the reference, every other cell is FP; repeated entries of the
/// input lists (the alignments' dropped duplicates) count as predictions / references too
/// (unless a filter restricts the cells: a duplicate's type is unknown).
fn judge_lists<'a>(
    reference: &Alignment,
    system: &'a Alignment,
    state: &[u8],
    count_duplicates: bool,
    keep: &dyn Fn(&Correspondence) -> bool,
) -> Judgement<'a> {
    let mut reference_pairs: FxHashMap<(TermId, TermId), usize> = FxHashMap::default();
    let mut counted: Vec<(Correspondence, Option<u32>)> = Vec::new();
    let mut reference_len = 0u64;
    for cell in reference.iter().filter(|c| keep(c)) {
        reference_len += 1;
        reference_pairs.entry((cell.entity1, cell.entity2)).or_insert_with(|| {
            counted.push((*cell, None));
            counted.len() - 1
        });
    }
    let mut seen: FxHashSet<(TermId, TermId)> = FxHashSet::default();
    let verdicts = system
        .iter()
        .zip(state)
        .enumerate()
        .map(|(i, (cell, &s))| {
            if s == SKIPPED {
                return Verdict::Skipped;
            }
            let pair = (cell.entity1, cell.entity2);
            if !seen.insert(pair) {
                return Verdict::Fp;
            }
            match reference_pairs.get(&pair) {
                Some(&r) => {
                    counted[r].1 = Some(i as u32);
                    Verdict::Tp
                }
                None => Verdict::Fp,
            }
        })
        .collect();
    let (extra_fp, extra_fn) =
        if count_duplicates { (system.duplicates() as u64, reference.duplicates() as u64) } else { (0, 0) };
    let extra_fn = extra_fn + reference_len - counted.len() as u64;
    Judgement { system: system.cells(), verdicts, reference: counted, extra_fp, extra_fn }
}

#[cfg(test)]
mod tests {
    use kgeval_model::{Alignment, Correspondence, Interner, Relation};

    use super::*;

    /// The specification's worked example: R = {(a,b,=)}, S = {(a,b,=), (a,c,=), (d,b,=), (d,e,=)}.
    #[test]
    fn worked_example() {
        let mut iris = Interner::new();
        let mut eq = |a: &str, b: &str| Correspondence::new(iris.intern(a), iris.intern(b), Relation::Equivalence, 1.0);
        let reference: Alignment = [eq("a", "b")].into_iter().collect();
        let system: Alignment = [eq("a", "b"), eq("a", "c"), eq("d", "b"), eq("d", "e")].into_iter().collect();
        for (mode, tp, fp, ignored) in [
            (CompletenessMode::Complete, 1, 3, 0),
            (CompletenessMode::Partial, 1, 2, 1),
            (CompletenessMode::PartialSource, 1, 1, 2),
            (CompletenessMode::PartialTarget, 1, 1, 2),
            (CompletenessMode::PartialNone, 1, 0, 3),
        ] {
            let options = AlignmentOptions { mode, ..AlignmentOptions::default() };
            let counts = judge(&reference, &system, None, &options, &iris, None).counts_at(None);
            let expected = ConfusionCounts { tp, fp, fn_: 0, ignored, correspondences: 4 };
            assert_eq!(counts, expected, "{mode}");
        }
    }
}
