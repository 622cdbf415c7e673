//! Kendall tau on 10^6-long vectors (Knight's O(n log n)): the bound is 0.5 s.
//!
//! `cargo bench -p kgeval-meta --bench kendall`. Data: ChaCha8 with a fixed seed; `continuous`
//! has no ties, `tied` draws both vectors from 100 levels (every pair class present).

use kgeval_meta::kendall::kendall_tau;
use kgeval_model::meta::agreement::TauVariant;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() {
    divan::main();
}

const N: usize = 1_000_000;

fn vectors(levels: Option<u32>) -> (Vec<f64>, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let draw = |rng: &mut ChaCha8Rng| match levels {
        Some(levels) => f64::from(rng.gen_range(0..levels)),
        None => rng.gen::<f64>(),
    };
    let x: Vec<f64> = (0..N).map(|_| draw(&mut rng)).collect();
    // y correlated with x: half the items copy x, half are fresh draws.
    let y: Vec<f64> = x.iter().map(|&v| if rng.gen::<bool>() { v } else { draw(&mut rng) }).collect();
    (x, y)
}

#[divan::bench(sample_count = 5)]
fn continuous(bencher: divan::Bencher<'_, '_>) {
    let (x, y) = vectors(None);
    bencher.bench(|| kendall_tau(divan::black_box(&x), divan::black_box(&y), TauVariant::B));
}

#[divan::bench(sample_count = 5)]
fn tied(bencher: divan::Bencher<'_, '_>) {
    let (x, y) = vectors(Some(100));
    bencher.bench(|| kendall_tau(divan::black_box(&x), divan::black_box(&y), TauVariant::B));
}
