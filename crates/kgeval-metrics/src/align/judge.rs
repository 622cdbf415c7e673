//! The judging engine: which system cell is TP, FP or ignored, and which reference cell is
//! missed, under one profile and completeness mode. Scores and curves are read off a
//! [`Judgement`].

use kgeval_model::align::{AlignmentProfile, CellLabel, CompletenessMode, ConfusionCounts, LabeledCell};
use kgeval_model::{Alignment, CellKey, Correspondence, Interner, Relation, TermId};
use rayon::prelude::*;
use std::collections::hash_map::Entry;

use rustc_hash::{FxHashMap, FxHashSet};

use super::par::{for_each_indexed, map_collect, tally, EntitySet, KeyIndex, PAR_MIN};
use super::AlignmentOptions;

/// A restriction of both sides to some cells (type breakdown).
pub(crate) type CellFilter<'f> = &'f (dyn Fn(&Correspondence) -> bool + Sync);

/// Per-system-cell state bits.
const SKIPPED: u8 = 0;
const SCORED: u8 = 1;
const TP_BIT: u8 = 2;
const REMOVED_BIT: u8 = 4;
const CANDIDATE_BIT: u8 = 8;

/// The final label of a scored cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Skipped,
    Tp,
    Fp,
    Ignored,
}

/// A reference cell that counts as FN when missed, with the system cell matching it.
pub(crate) type Counted = (Correspondence, Option<u32>);

/// The judgement of one system alignment against one reference.
#[derive(Debug)]
pub(crate) struct Judgement<'a> {
    system: &'a [Correspondence],
    verdicts: Vec<Verdict>,
    /// Reference cells that count as FN when missed, with the system cell matching them.
    reference: Vec<Counted>,
    /// Whether the counts and the curve are computed on rayon's threads.
    par: bool,
}

impl Judgement<'_> {
    /// The verdicts, the counted reference cells with their matches, and whether the
    /// judgement ran on rayon's threads.
    #[cfg(test)]
    pub(crate) fn parts(&self) -> (&[Verdict], &[Counted], bool) {
        (&self.verdicts, &self.reference, self.par)
    }

    /// The counts of the cells with `confidence ≥ cut` (all scored cells for `None`).
    pub(crate) fn counts_at(&self, cut: Option<f64>) -> ConfusionCounts {
        let kept = |c: &Correspondence| cut.is_none_or(|t| c.confidence >= t);
        let by_verdict = |i: usize| -> [u64; 3] {
            let (cell, verdict) = (&self.system[i], self.verdicts[i]);
            if verdict == Verdict::Skipped || !kept(cell) {
                return [0; 3];
            }
            match verdict {
                Verdict::Tp => [1, 0, 0],
                Verdict::Fp => [0, 1, 0],
                Verdict::Ignored => [0, 0, 1],
                Verdict::Skipped => [0; 3],
            }
        };
        let [tp, fp, ignored] = tally(self.par, self.system.len(), by_verdict);
        let missed = |j: usize| [u64::from(self.reference[j].1.is_none_or(|i| !kept(&self.system[i as usize])))];
        let [fn_] = tally(self.par, self.reference.len(), missed);
        ConfusionCounts { tp, fp, fn_, ignored, correspondences: tp + fp + ignored }
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
        let mut unmatched = 0;
        for (_, m) in &self.reference {
            match m.map(|i| self.system[i as usize].confidence) {
                Some(c) if !c.is_nan() => matched.push(c),
                _ => unmatched += 1,
            }
        }
        // `total_cmp` tells every two bit patterns apart: any sort gives the same order.
        let sort = |v: &mut Vec<f64>| {
            if self.par {
                v.par_sort_unstable_by(f64::total_cmp);
            } else {
                v.sort_unstable_by(f64::total_cmp);
            }
        };
        for v in by_verdict.iter_mut().chain([&mut matched]) {
            sort(v);
        }
        let mut cuts: Vec<f64> = by_verdict.iter().flatten().copied().collect();
        sort(&mut cuts);
        cuts.dedup();
        let at_least = |v: &[f64], c: f64| (v.len() - v.partition_point(|&x| x < c)) as u64;
        cuts.into_iter()
            .map(|c| {
                let tp = at_least(&by_verdict[0], c);
                let fp = at_least(&by_verdict[1], c);
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

/// Judges `system` against `reference` under `options`, both sides restricted by `filter`;
/// on rayon's threads when the system has at least [`PAR_MIN`] cells.
pub(crate) fn judge<'a>(
    reference: &Alignment,
    system: &'a Alignment,
    exclusion: Option<&Alignment>,
    options: &AlignmentOptions,
    interner: &Interner,
    filter: Option<CellFilter<'_>>,
) -> Judgement<'a> {
    judge_from(reference, system, exclusion, options, interner, filter, PAR_MIN)
}

/// [`judge`], on rayon's threads when the system has at least `par_min` cells (the same
/// judgement either way).
pub(crate) fn judge_from<'a>(
    reference: &Alignment,
    system: &'a Alignment,
    exclusion: Option<&Alignment>,
    options: &AlignmentOptions,
    interner: &Interner,
    filter: Option<CellFilter<'_>>,
    par_min: usize,
) -> Judgement<'a> {
    let par = system.len() >= par_min;
    let sensitive = options.relation_sensitivity();
    let equivalence_only = options.profile == AlignmentProfile::Diso;
    let keep =
        |c: &Correspondence| filter.is_none_or(|f| f(c)) && (!equivalence_only || c.relation == Relation::Equivalence);
    let state = initial_state(system, exclusion, options.threshold, sensitive, &keep, par);
    if options.profile == AlignmentProfile::OntoAligner {
        return judge_lists(reference, system, &state, &keep, par);
    }
    let references = normalized_reference(reference, sensitive, &keep);
    let reorient = options.profile == AlignmentProfile::OaeiSeals;
    let mut view = SystemView::build(system, state, sensitive, reorient, &references, par);
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
    Judgement { system: system.cells(), verdicts, reference: counted, par }
}

/// `SCORED` for the cells that survive the filter, the exclusion and the threshold.
fn initial_state(
    system: &Alignment,
    exclusion: Option<&Alignment>,
    threshold: Option<f64>,
    sensitive: bool,
    keep: &(dyn Fn(&Correspondence) -> bool + Sync),
    par: bool,
) -> Vec<u8> {
    let excluded_pairs: Option<FxHashSet<(TermId, TermId)>> =
        exclusion.filter(|_| !sensitive).map(|x| x.iter().map(|c| (c.entity1, c.entity2)).collect());
    let excluded = |c: &Correspondence| match (&excluded_pairs, exclusion) {
        (Some(pairs), _) => pairs.contains(&(c.entity1, c.entity2)),
        (None, Some(x)) => x.contains(&c.key()),
        (None, None) => false,
    };
    map_collect(par, system.cells(), |c| {
        let scored = threshold.is_none_or(|t| c.confidence >= t) && keep(c) && !excluded(c);
        if scored {
            SCORED
        } else {
            SKIPPED
        }
    })
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
    index: Option<KeyIndex>,
    /// Whether lookups and passes over the cells run on rayon's threads.
    par: bool,
}

impl<'a> SystemView<'a> {
    fn build(
        system: &'a Alignment,
        mut state: Vec<u8>,
        sensitive: bool,
        reorient: bool,
        references: &[(Correspondence, CellKey)],
        par: bool,
    ) -> Self {
        if sensitive && !reorient {
            return Self { system, state, keys: None, index: None, par };
        }
        let reference_keys: FxHashSet<CellKey> =
            if reorient { references.iter().map(|(_, k)| *k).collect() } else { FxHashSet::default() };
        let keys = map_collect(par, system.cells(), |cell| {
            let key = if sensitive { cell.key() } else { (cell.entity1, cell.entity2, Relation::Equivalence) };
            if reorient && !reference_keys.contains(&key) {
                let reversed = (key.1, key.0, key.2.reversed());
                if reference_keys.contains(&reversed) {
                    return reversed;
                }
            }
            key
        });
        // A merged key: the first occurrence stays, the later ones are dropped like duplicates.
        let (index, merged) = KeyIndex::build(par, &keys, |i| state[i] != SKIPPED);
        for i in merged {
            state[i as usize] = SKIPPED;
        }
        Self { system, state, keys: Some(keys), index: Some(index), par }
    }

    /// The scored cell matching `key`.
    fn lookup(&self, key: &CellKey) -> Option<u32> {
        match &self.index {
            Some(index) => index.get(key),
            None => {
                let i = self.system.position(key)?;
                (self.state[i] != SKIPPED).then_some(i as u32)
            }
        }
    }

    /// The scored cell matching each reference key whose relation is neither `?` nor `%`
    /// (`None` for those), looked up on rayon's threads for a large system.
    fn lookup_all(&self, references: &[(Correspondence, CellKey)]) -> Vec<Option<u32>> {
        map_collect(self.par, references, |(_, key)| match key.2 {
            Relation::Unknown | Relation::Incompatible => None,
            _ => self.lookup(key),
        })
    }

    /// The matching key of cell `i`.
    fn key(&self, i: usize) -> CellKey {
        self.keys.as_ref().map_or_else(|| self.system.cells()[i].key(), |keys| keys[i])
    }

    fn finish(&self, verdict: impl Fn(u8) -> Verdict + Sync + Send) -> Vec<Verdict> {
        map_collect(self.par, &self.state, |&s| if s == SKIPPED { Verdict::Skipped } else { verdict(s) })
    }
}

/// MELT's complete reference: every scored cell is FP unless matched or covered by a `?` cell.
fn judge_complete(view: &mut SystemView<'_>, references: &[(Correspondence, CellKey)], counted: &mut Vec<Counted>) {
    let found = view.lookup_all(references);
    for ((cell, key), found) in references.iter().zip(found) {
        if key.2 == Relation::Unknown {
            for relation in Relation::ALL {
                if let Some(i) = view.lookup(&(key.0, key.1, relation)) {
                    view.state[i as usize] |= REMOVED_BIT;
                }
            }
            continue;
        }
        // `%` is an ordinary cell here.
        let found = if key.2 == Relation::Incompatible { view.lookup(key) } else { found };
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
    counted: &mut Vec<Counted>,
) {
    let is_null = |id: TermId| {
        let s = interner.resolve(id).trim();
        s.is_empty() || s.eq_ignore_ascii_case("null")
    };
    let found = view.lookup_all(references);
    let mut by_source = EntitySet::new(view.par);
    let mut by_target = EntitySet::new(view.par);
    for ((cell, key), found) in references.iter().zip(found) {
        match key.2 {
            Relation::Unknown => {}
            Relation::Incompatible => {
                if is_null(key.1) {
                    by_source.insert(key.0, Relation::Equivalence);
                } else if is_null(key.0) {
                    by_target.insert(key.1, Relation::Equivalence);
                } else if let Some(i) = view.lookup(&(key.0, key.1, Relation::Equivalence)) {
                    view.state[i as usize] |= CANDIDATE_BIT;
                }
            }
            relation => {
                if let Some(i) = found {
                    view.state[i as usize] |= TP_BIT;
                }
                counted.push((*cell, found));
                if source_complete {
                    by_source.insert(key.0, relation);
                }
                if target_complete {
                    by_target.insert(key.1, relation);
                }
            }
        }
    }
    if by_source.is_empty() && by_target.is_empty() {
        return;
    }
    // The state is taken out so that the keys can be read while it is written.
    let mut state = std::mem::take(&mut view.state);
    let keys: &SystemView<'_> = view;
    for_each_indexed(keys.par, &mut state, |i, s| {
        if *s == SKIPPED {
            return;
        }
        let (e1, e2, relation) = keys.key(i);
        if by_source.contains(e1, relation) || by_target.contains(e2, relation) {
            *s |= CANDIDATE_BIT;
        }
    });
    view.state = state;
}

/// OntoAligner's `evaluation_report` (v1.9.4, `calculate_intersection` on sets): both lists
/// are reduced to their unique `(source, target)` pairs. Each pair's cell with the highest
/// confidence (the first on ties) stands for it: TP when the pair is in the reference, FP
/// otherwise; the pair's other cells (another relation) are `ignored`, so that TP + FP is the
/// number of unique predicted pairs at any confidence cut. Repeated list entries (the
/// alignments' dropped duplicates) and reference cells repeating a pair count nothing.
fn judge_lists<'a>(
    reference: &Alignment,
    system: &'a Alignment,
    state: &[u8],
    keep: &dyn Fn(&Correspondence) -> bool,
    par: bool,
) -> Judgement<'a> {
    let mut reference_pairs: FxHashMap<(TermId, TermId), usize> = FxHashMap::default();
    let mut counted: Vec<Counted> = Vec::new();
    for cell in reference.iter().filter(|c| keep(c)) {
        reference_pairs.entry((cell.entity1, cell.entity2)).or_insert_with(|| {
            counted.push((*cell, None));
            counted.len() - 1
        });
    }
    let cells = system.cells();
    let mut representative: FxHashMap<(TermId, TermId), u32> = FxHashMap::default();
    for (i, (cell, &s)) in cells.iter().zip(state).enumerate() {
        if s == SKIPPED {
            continue;
        }
        match representative.entry((cell.entity1, cell.entity2)) {
            Entry::Vacant(slot) => {
                slot.insert(i as u32);
            }
            Entry::Occupied(mut slot) => {
                if cell.confidence > cells[*slot.get() as usize].confidence {
                    slot.insert(i as u32);
                }
            }
        }
    }
    let verdicts = cells
        .iter()
        .zip(state)
        .enumerate()
        .map(|(i, (cell, &s))| {
            if s == SKIPPED {
                return Verdict::Skipped;
            }
            let pair = (cell.entity1, cell.entity2);
            if representative.get(&pair) != Some(&(i as u32)) {
                return Verdict::Ignored;
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
    Judgement { system: cells, verdicts, reference: counted, par }
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

    /// OntoAligner v1.9.4 compares sets of (source, target) pairs: predictions (a,b) twice
    /// (relations = and >), (a,e) twice (a dropped duplicate); references (a,b) under two
    /// relations and (c,d). `evaluation_report` gives intersection 1, P = R = 1/2.
    #[test]
    fn ontoaligner_counts_unique_pairs() {
        let mut iris = Interner::new();
        let mut cell = |a: &str, b: &str, relation, confidence| {
            Correspondence::new(iris.intern(a), iris.intern(b), relation, confidence)
        };
        let reference: Alignment = [
            cell("a", "b", Relation::Equivalence, 1.0),
            cell("a", "b", Relation::Subsumed, 1.0),
            cell("c", "d", Relation::Equivalence, 1.0),
        ]
        .into_iter()
        .collect();
        let system: Alignment = [
            cell("a", "b", Relation::Equivalence, 0.4),
            cell("a", "b", Relation::Subsumes, 0.9),
            cell("a", "e", Relation::Equivalence, 0.5),
            cell("a", "e", Relation::Equivalence, 0.5),
        ]
        .into_iter()
        .collect();
        assert_eq!(system.duplicates(), 1);
        let options = AlignmentOptions::for_profile(AlignmentProfile::OntoAligner);
        let judgement = judge(&reference, &system, None, &options, &iris, None);
        let all = ConfusionCounts { tp: 1, fp: 1, fn_: 1, ignored: 1, correspondences: 3 };
        assert_eq!(judgement.counts_at(None), all);
        // At 0.6 the pair (a, b) is still predicted (its 0.9 cell stands for it), (a, e) not.
        let cut = ConfusionCounts { tp: 1, fp: 0, fn_: 1, ignored: 0, correspondences: 1 };
        assert_eq!(judgement.counts_at(Some(0.6)), cut);
        let curve = judgement.curve();
        assert_eq!(curve.iter().find(|(c, _)| *c == 0.9).map(|(_, counts)| *counts), Some(cut));
    }
}
