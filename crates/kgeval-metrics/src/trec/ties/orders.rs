//! Values over explicit orders of the tie groups: the best and worst order of each group, and
//! the mean over every arrangement (or over seeded random ones) for the measures without a
//! closed form.

use kgeval_model::trec::{Measure, MeasureFamily};

use super::super::gain::{self, Gains};
use super::TiedRanking;

/// Arrangements × list length × measures up to which every arrangement is scored.
const ENUMERATION_WORK: f64 = 4e6;
/// Random orders scored otherwise.
const SAMPLES: usize = 2_000;

/// SplitMix64: a small seeded generator, so estimates are the same on every machine.
pub(super) struct SplitMix64(pub(super) u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform on 0..bound (bound ≥ 1), by rejection.
    pub(super) fn below(&mut self, bound: usize) -> usize {
        let bound = bound as u64;
        let zone = u64::MAX - u64::MAX % bound;
        loop {
            let x = self.next();
            if x < zone {
                return (x % bound) as usize;
            }
        }
    }
}

/// The next arrangement of `labels` in lexicographic order; false (and sorted again) after
/// the last.
pub(super) fn next_permutation(labels: &mut [i64]) -> bool {
    let Some(i) = labels.windows(2).rposition(|w| w[0] < w[1]) else {
        labels.reverse();
        return false;
    };
    let j = labels.iter().rposition(|&l| l > labels[i]).unwrap_or(i + 1);
    labels.swap(i, j);
    labels[i + 1..].reverse();
    true
}

/// The number of distinct arrangements of `labels` (a multinomial coefficient), as f64.
fn arrangements(labels: &[i64]) -> f64 {
    let mut sorted = labels.to_vec();
    sorted.sort_unstable();
    let mut count = 1.0;
    let mut run = 0usize;
    for (i, &label) in sorted.iter().enumerate() {
        run = if i > 0 && sorted[i - 1] == label { run + 1 } else { 1 };
        count *= (i + 1) as f64 / run as f64;
    }
    count
}

impl TiedRanking {
    /// Writes each group's first `len` labels of `orders` into `scratch`.
    fn write(&self, orders: &[Vec<i64>], scratch: &mut [i64]) {
        for (g, labels) in self.groups.iter().zip(orders) {
            scratch[g.start..g.start + g.len].copy_from_slice(&labels[..g.len]);
        }
    }

    /// The mean of each of `measures` over the orders of the groups, with the standard error
    /// when it is estimated from random orders (seeded by the labels, never by names).
    pub(super) fn over_orders(&self, measures: &[&Measure]) -> Vec<(f64, Option<f64>)> {
        if self.groups.is_empty() {
            return measures.iter().map(|m| (self.relevance.value(m), None)).collect();
        }
        let mut orders: Vec<Vec<i64>> = self.groups.iter().map(|g| self.labels(g).collect()).collect();
        let total: f64 = orders.iter().map(|labels| arrangements(labels)).product();
        let mut scratch = self.relevance.clone();
        let work = total * (scratch.ranked.len() + 1) as f64 * measures.len() as f64;
        let mut sums = vec![0.0; measures.len()];
        if work <= ENUMERATION_WORK {
            orders.iter_mut().for_each(|labels| labels.sort_unstable());
            let mut count = 0usize;
            loop {
                self.write(&orders, &mut scratch.ranked);
                for (sum, measure) in sums.iter_mut().zip(measures) {
                    *sum += scratch.value(measure);
                }
                count += 1;
                // The odometer: advance the first group that has a next arrangement.
                if !orders.iter_mut().any(|labels| next_permutation(labels)) {
                    break;
                }
            }
            return sums.into_iter().map(|sum| (sum / count as f64, None)).collect();
        }
        // Seeded by what no renaming changes: the labels with each group's sorted; sampling
        // starts from the sorted groups too.
        orders.iter_mut().for_each(|labels| labels.sort_unstable());
        self.write(&orders, &mut scratch.ranked);
        let seed = scratch
            .ranked
            .iter()
            .chain(orders.iter().flatten())
            .fold(0xCBF2_9CE4_8422_2325u64, |h, &l| (h ^ l as u64).wrapping_mul(0x0100_0000_01B3));
        let mut rng = SplitMix64(seed ^ self.groups.len() as u64);
        let mut squares = vec![0.0; measures.len()];
        for _ in 0..SAMPLES {
            for labels in &mut orders {
                for i in (1..labels.len()).rev() {
                    labels.swap(i, rng.below(i + 1));
                }
            }
            self.write(&orders, &mut scratch.ranked);
            for ((sum, square), measure) in sums.iter_mut().zip(&mut squares).zip(measures) {
                let value = scratch.value(measure);
                *sum += value;
                *square += value * value;
            }
        }
        let n = SAMPLES as f64;
        sums.into_iter()
            .zip(squares)
            .map(|(sum, square)| {
                let mean = sum / n;
                let variance = ((square - sum * mean) / (n - 1.0)).max(0.0);
                (mean, Some((variance / n).sqrt()))
            })
            .collect()
    }

    /// The value of `measure` with every group ordered best first (`best`) or worst first:
    /// by the measure's gain for the gain measures, else relevant documents first, and (for
    /// bpref and infAP, which skip unjudged documents) judged non-relevant ones last.
    pub(super) fn extreme(&self, measure: &Measure, best: bool) -> f64 {
        let t = &self.relevance;
        let level = t.relevance_level;
        let skips_unjudged =
            matches!(measure.family, MeasureFamily::Bpref | MeasureFamily::GmBpref | MeasureFamily::InfAp);
        // Relevant, then judged non-relevant, then unjudged (bpref, infAP: the last two swapped).
        let class = |l: i64| match (l >= level && l >= 0, l >= 0, skips_unjudged) {
            (true, _, _) => 2.0,
            (false, true, false) | (false, false, true) => 1.0,
            _ => 0.0,
        };
        let gain: Box<dyn Fn(i64) -> f64> = match measure.family {
            MeasureFamily::Ndcg
            | MeasureFamily::Dcg
            | MeasureFamily::IdealDcg
            | MeasureFamily::G
            | MeasureFamily::NdcgRel
            | MeasureFamily::Rndcg => {
                let gains = Gains::new(t, &measure.gains);
                Box::new(move |l| gains.gain(l))
            }
            MeasureFamily::Rbp => {
                let gains = gain::rbp_gains(t, &measure.gains);
                Box::new(move |l| gains.gain(l))
            }
            MeasureFamily::NdcgCut => Box::new(|l| t.cut_gain(l, |v| v as f64)),
            MeasureFamily::NdcgExpCut => {
                let exponential = t.exponential_gain();
                Box::new(move |l| t.cut_gain(l, &exponential))
            }
            _ => Box::new(|_| 0.0),
        };
        let key = |l: i64| (gain(l), class(l), l);
        let mut scratch = t.clone();
        for g in &self.groups {
            let mut labels: Vec<i64> = self.labels(g).collect();
            labels.sort_by(|&a, &b| {
                let order = key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal);
                if best {
                    order.reverse()
                } else {
                    order
                }
            });
            scratch.ranked[g.start..g.start + g.len].copy_from_slice(&labels[..g.len]);
        }
        scratch.value(measure)
    }
}
