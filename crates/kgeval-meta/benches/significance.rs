//! Significance tests on generated per-item scores (ChaCha8, fixed seed).
//!
//! `cargo bench -p kgeval-meta --bench significance`. `tukey_hsd` runs the shape
//! (13 systems × 40,000 items) at B = 100, so one sample is 1 % of the B = 10,000 workload
//! that `cargo xtask bench meta` times whole; `paired_t_all_pairs` and `fisher_one_pair` show
//! the closed-form and pairwise randomised costs. `compare_path_1000x100` is what `kgeval
//! compare` does per metric (every pair's t test, the leaderboard with marks and tiers, the
//! discriminative power) for 1,000 systems × 100 items: 499,500 pairs, which must stay
//! quadratic in the systems (issue 31: the leaderboard's pair lookups were linear scans).

use kgeval_meta::power::power_of;
use kgeval_meta::randomised::{fisher_randomisation, tukey_hsd};
use kgeval_meta::{compare_systems, leaderboard, PairedScores, SignificanceOptions};
use kgeval_model::metric_names::Direction;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() {
    divan::main();
}

fn scores(systems: usize, items: usize) -> PairedScores {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut values = Vec::with_capacity(systems * items);
    for _ in 0..items {
        let difficulty: f64 = rng.gen();
        for s in 0..systems {
            let v = 0.6 * difficulty + 0.001 * s as f64 + 0.3 * (rng.gen::<f64>() - 0.5);
            values.push(v.clamp(0.0, 1.0));
        }
    }
    PairedScores::new(
        "score",
        Direction::Higher,
        (0..systems).map(|s| format!("s{s}")).collect(),
        (0..items).map(|i| format!("q{i}")).collect(),
        values,
    )
    .expect("finite scores")
}

#[divan::bench(sample_count = 5)]
fn tukey_hsd_13x40000_b100(bencher: divan::Bencher<'_, '_>) {
    let s = scores(13, 40_000);
    bencher.bench(|| tukey_hsd(divan::black_box(&s), 100, 42));
}

#[divan::bench(sample_count = 10)]
fn paired_t_all_pairs_13x1000(bencher: divan::Bencher<'_, '_>) {
    let s = scores(13, 1_000);
    bencher.bench(|| compare_systems(divan::black_box(&s), &SignificanceOptions::default()));
}

#[divan::bench(sample_count = 10)]
fn fisher_one_pair_1000_items_b1000(bencher: divan::Bencher<'_, '_>) {
    let s = scores(2, 1_000);
    let d: Vec<f64> = s.values.chunks_exact(2).map(|r| r[0] - r[1]).collect();
    bencher.bench(|| fisher_randomisation(divan::black_box(&d), 1_000, 42));
}

#[divan::bench(sample_count = 3)]
fn compare_path_1000x100(bencher: divan::Bencher<'_, '_>) {
    let s = scores(1_000, 100);
    bencher.bench(|| {
        let result = compare_systems(divan::black_box(&s), &SignificanceOptions::default()).expect("valid options");
        let board = leaderboard(&result);
        let power = power_of(&result, true).expect("p-values");
        (board.rows.len(), power.significant)
    });
}
