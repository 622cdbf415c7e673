//! Scoring 1,000,000 system cells against a 100,000-cell reference, per profile and mode, and
//! the full threshold curve. Run with `cargo bench -p kgeval-metrics`.

use divan::Bencher;
use kgeval_metrics::align::{score_pair, threshold_curve, AlignmentOptions, AlignmentProfile, CompletenessMode};
use kgeval_model::{Alignment, Correspondence, Interner, Relation};

fn main() {
    divan::main();
}

/// Deterministic inputs: 50k system cells are in the reference, the rest are random pairs.
fn inputs() -> (Interner, Alignment, Alignment) {
    let mut iris = Interner::new();
    let sources: Vec<_> = (0..200_000).map(|i| iris.intern(&format!("http://a#{i}"))).collect();
    let targets: Vec<_> = (0..200_000).map(|i| iris.intern(&format!("http://b#{i}"))).collect();
    let mut system = Alignment::with_capacity(1_000_000);
    for i in 0..50_000 {
        system.insert(Correspondence::new(sources[i * 2], targets[i * 2], Relation::Equivalence, 0.99));
    }
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    while system.len() < 1_000_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let (s, t) = ((x % 200_000) as usize, ((x >> 20) % 200_000) as usize);
        let confidence = ((x >> 40) % 1000) as f64 / 1000.0;
        system.insert(Correspondence::new(sources[s], targets[t], Relation::Equivalence, confidence));
    }
    let reference: Alignment =
        (0..100_000).map(|i| Correspondence::new(sources[i * 2], targets[i * 2], Relation::Equivalence, 1.0)).collect();
    (iris, system, reference)
}

const CASES: [(AlignmentProfile, CompletenessMode); 4] = [
    (AlignmentProfile::Melt, CompletenessMode::Complete),
    (AlignmentProfile::Melt, CompletenessMode::Partial),
    (AlignmentProfile::AlignApi, CompletenessMode::Complete),
    (AlignmentProfile::OaeiSeals, CompletenessMode::Complete),
];

#[divan::bench(args = 0..CASES.len(), sample_count = 10)]
fn score_1m_against_100k(bencher: Bencher<'_, '_>, case: usize) {
    let (iris, system, reference) = inputs();
    let (profile, mode) = CASES[case];
    let options = AlignmentOptions { mode, ..AlignmentOptions::for_profile(profile) };
    bencher.bench_local(|| score_pair(&reference, &system, None, &options, &iris));
}

#[divan::bench(sample_count = 10)]
fn threshold_curve_1m(bencher: Bencher<'_, '_>) {
    let (iris, system, reference) = inputs();
    let options = AlignmentOptions::for_profile(AlignmentProfile::Melt);
    bencher.bench_local(|| threshold_curve(&reference, &system, None, &options, &iris));
}
