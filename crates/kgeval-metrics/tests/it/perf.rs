//! Size check: 1M system cells against 100k reference cells. Run in release:
//! `cargo test -p kgeval-metrics --release --test it -- --ignored --nocapture perf`.

use std::time::Instant;

use kgeval_metrics::alignment::{score_pair, threshold_curve, AlignmentOptions, AlignmentProfile, CompletenessMode};
use kgeval_model::{Alignment, Correspondence, Interner, Relation};

#[test]
#[ignore = "timing; run in release"]
fn perf_one_million_cells() {
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
        system.insert(Correspondence::new(
            sources[s],
            targets[t],
            Relation::Equivalence,
            ((x >> 40) % 1000) as f64 / 1000.0,
        ));
    }
    let reference: Alignment =
        (0..100_000).map(|i| Correspondence::new(sources[i * 2], targets[i * 2], Relation::Equivalence, 1.0)).collect();
    for profile in AlignmentProfile::ALL {
        for mode in [CompletenessMode::Complete, CompletenessMode::Partial] {
            let options = AlignmentOptions { mode, ..AlignmentOptions::for_profile(profile) };
            let start = Instant::now();
            let (s, _) = score_pair(&reference, &system, None, &options, &iris);
            let scored = start.elapsed();
            let start = Instant::now();
            let curve = threshold_curve(&reference, &system, None, &options, &iris);
            println!(
                "{profile} {mode}: score {scored:?}, curve of {} points {:?} (TP {} FP {})",
                curve.len(),
                start.elapsed(),
                s.counts.tp,
                s.counts.fp
            );
        }
    }
}
