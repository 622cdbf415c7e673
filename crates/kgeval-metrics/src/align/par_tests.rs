//! The parallel judging path gives exactly the sequential one: every verdict, every counted
//! reference cell and its match, the counts, the curve and the labels, for every profile and
//! completeness mode, with and without a threshold, an exclusion and a cell filter, at one and
//! two threads; and the checks give the same warnings.

use kgeval_model::align::{AlignmentProfile, CompletenessMode};
use kgeval_model::{Alignment, Correspondence, Interner, Relation, TermId};

use super::judge::{judge, judge_from, CellFilter, Judgement};
use super::par::PAR_MIN;
use super::validate::validate_from;
use super::AlignmentOptions;

/// A small deterministic generator (64-bit LCG, Knuth's constants): test data only.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// A reference, a system above [`PAR_MIN`] cells and an exclusion, over shared entities:
/// reference cells of every relation (`%` with a `null` side, `?`), system cells that copy
/// them, reverse them, change their relation or target, repeat a pair under another relation,
/// and unrelated cells; confidences in steps of 0.01.
struct Case {
    iris: Interner,
    reference: Alignment,
    system: Alignment,
    exclusion: Alignment,
    sources: Vec<TermId>,
}

fn case() -> Case {
    let mut iris = Interner::new();
    let sources: Vec<TermId> = (0..6000).map(|i| iris.intern(&format!("http://a#s{i}"))).collect();
    let targets: Vec<TermId> = (0..6000).map(|i| iris.intern(&format!("http://b#t{i}"))).collect();
    let null = iris.intern("null");
    let mut rng = Lcg(8);
    let relations = [
        Relation::Equivalence,
        Relation::Equivalence,
        Relation::Equivalence,
        Relation::Subsumed,
        Relation::Subsumes,
        Relation::HasInstance,
        Relation::InstanceOf,
        Relation::Close,
        Relation::Related,
    ];
    let mut reference = Alignment::new();
    for k in 0..8000 {
        let (e1, e2) = (sources[k % 6000], targets[rng.below(6000)]);
        let cell = match rng.below(20) {
            0 => Correspondence::new(e1, null, Relation::Incompatible, 1.0),
            1 => Correspondence::new(null, e2, Relation::Incompatible, 1.0),
            2 => Correspondence::new(e1, e2, Relation::Incompatible, 1.0),
            3 => Correspondence::new(e1, e2, Relation::Unknown, 1.0),
            _ => Correspondence::new(e1, e2, relations[rng.below(relations.len())], 1.0),
        };
        reference.insert(cell);
    }
    let mut system = Alignment::new();
    let confidence = |rng: &mut Lcg| rng.below(101) as f64 / 100.0;
    while system.len() < PAR_MIN + 8000 {
        let r = reference.cells()[rng.below(reference.len())];
        let c = confidence(&mut rng);
        let cell = match rng.below(8) {
            0 | 1 => Correspondence { confidence: c, ..r },
            2 => Correspondence::new(r.entity2, r.entity1, r.relation.reversed(), c),
            3 => Correspondence::new(r.entity1, r.entity2, relations[rng.below(relations.len())], c),
            4 => Correspondence::new(r.entity1, targets[rng.below(6000)], Relation::Equivalence, c),
            5 => Correspondence::new(sources[rng.below(6000)], r.entity2, r.relation, c),
            6 => Correspondence::new(r.entity1, r.entity2, Relation::Unknown, c),
            _ => Correspondence::new(sources[rng.below(6000)], targets[rng.below(6000)], Relation::Equivalence, c),
        };
        system.insert(cell);
    }
    let exclusion: Alignment = (0..600).map(|_| system.cells()[rng.below(system.len())]).collect();
    Case { iris, reference, system, exclusion, sources }
}

/// Asserts that two judgements agree on everything they give.
fn assert_same(sequential: &Judgement<'_>, parallel: &Judgement<'_>, what: &str) {
    let (verdicts, counted, par) = sequential.parts();
    let (p_verdicts, p_counted, p_par) = parallel.parts();
    assert!(!par && p_par, "{what}: the two paths were taken");
    assert!(verdicts == p_verdicts, "{what}: verdicts differ");
    assert!(counted == p_counted, "{what}: counted reference cells differ");
    for cut in [None, Some(0.5), Some(0.99)] {
        assert_eq!(sequential.counts_at(cut), parallel.counts_at(cut), "{what}, cut {cut:?}");
    }
    assert!(sequential.curve() == parallel.curve(), "{what}: curves differ");
    assert!(sequential.labels() == parallel.labels(), "{what}: labels differ");
}

#[test]
fn the_parallel_judgement_is_the_sequential_one() {
    let Case { iris, reference, system, exclusion, .. } = case();
    assert!(system.len() >= PAR_MIN);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    let odd: CellFilter<'_> = &|c: &Correspondence| c.entity1.index() % 3 != 0;
    let modes = [
        CompletenessMode::Complete,
        CompletenessMode::Partial,
        CompletenessMode::PartialSource,
        CompletenessMode::PartialTarget,
        CompletenessMode::PartialNone,
    ];
    let profiles = [
        AlignmentProfile::Melt,
        AlignmentProfile::AlignApi,
        AlignmentProfile::OaeiSeals,
        AlignmentProfile::OntoAligner,
        AlignmentProfile::Diso,
    ];
    let mut seen_counts = Vec::new();
    for profile in profiles {
        for mode in modes {
            for (threshold, exclusion, filter, sensitive) in [
                (None, None, None, None),
                (Some(0.3), Some(&exclusion), Some(odd), None),
                (None, Some(&exclusion), None, Some(profile == AlignmentProfile::AlignApi)),
            ] {
                let options = AlignmentOptions {
                    mode,
                    threshold,
                    relation_sensitive: sensitive,
                    ..AlignmentOptions::for_profile(profile)
                };
                let what = format!("{profile} {mode} {threshold:?} exclusion {} {sensitive:?}", exclusion.is_some());
                let sequential = judge_from(&reference, &system, exclusion, &options, &iris, filter, usize::MAX);
                let parallel = pool.install(|| judge_from(&reference, &system, exclusion, &options, &iris, filter, 0));
                assert_same(&sequential, &parallel, &what);
                if filter.is_none() && exclusion.is_none() {
                    // The default threshold takes the parallel path for this size, on one thread too.
                    let default = one.install(|| judge(&reference, &system, exclusion, &options, &iris, filter));
                    assert_same(&sequential, &default, &format!("{what}, 1 thread"));
                }
                seen_counts.push(sequential.counts_at(None));
            }
        }
    }
    // The case is not degenerate: every kind of verdict and misses occur.
    assert!(seen_counts.iter().all(|c| c.tp > 100 && c.fn_ > 100), "{seen_counts:?}");
    assert!(seen_counts.iter().filter(|c| c.fp > 1000 && c.ignored > 1000).count() > 20, "{seen_counts:?}");
    let distinct: std::collections::HashSet<String> = seen_counts.iter().map(|c| format!("{c:?}")).collect();
    assert!(distinct.len() > 40, "{} distinct counts", distinct.len());
}

#[test]
fn the_parallel_checks_are_the_sequential_ones() {
    let Case { iris, reference, system, sources, .. } = case();
    // The reference turned around, and source–source cells (in no reference) to pass PAR_MIN.
    let swapped: Alignment = reference
        .iter()
        .map(|c| Correspondence::new(c.entity2, c.entity1, c.relation.reversed(), c.confidence))
        .chain((0..PAR_MIN).map(|i| {
            let (a, b) = (sources[i % 6000], sources[(i / 6000 + 1 + i) % 6000]);
            Correspondence::new(a, b, Relation::Unknown, 1.0)
        }))
        .collect();
    assert!(swapped.len() >= PAR_MIN);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
    for alignment in [&system, &swapped] {
        let sequential = validate_from(&reference, alignment, None, None, &iris, usize::MAX);
        let parallel = pool.install(|| validate_from(&reference, alignment, None, None, &iris, 0));
        assert_eq!(sequential, parallel);
        assert!(sequential.iter().any(|d| d.code == "unknown-relation"));
    }
    let swapped_warning = validate_from(&reference, &swapped, None, None, &iris, 0);
    assert!(swapped_warning.iter().any(|d| d.code == "swapped-sides"), "{swapped_warning:?}");
}
