//! Data sensitivity (seed 004 §5.1): how stable is the system ordering of a metric when only
//! part of the test items is kept?

/// The subsets a sensitivity analysis draws.
#[derive(Debug, Clone, PartialEq)]
pub enum SubsetSource {
    /// Random subsets: for every ratio, `repeats` subsets of `round(ratio × n)` items (at least
    /// 2), drawn without replacement by a ChaCha8 generator seeded from `(seed, ratio index,
    /// repeat)` (see `kgeval_meta::sensitivity::subsample`).
    Random {
        /// Fractions of the items kept, each in (0, 1].
        ratios: Vec<f64>,
        /// Subsets per ratio.
        repeats: usize,
        /// The seed.
        seed: u64,
    },
    /// Subsets given as 0-based item indices (an index file: one subset per line); subsets of
    /// the same size form one point of the curve.
    Given(Vec<Vec<usize>>),
}

impl SubsetSource {
    /// Seed 004's design: 1, 5, 10, 20, 30, …, 90, 95 % of the items, 50 repeats, seed 42.
    #[must_use]
    pub fn seed_004() -> Self {
        let mut ratios = vec![0.01, 0.05];
        ratios.extend((1..=9).map(|tenth| f64::from(tenth) / 10.0));
        ratios.push(0.95);
        Self::Random { ratios, repeats: 50, seed: 42 }
    }
}

/// One point of the curve: every subset of one size.
#[derive(Debug, Clone, PartialEq)]
pub struct SensitivityPoint {
    /// The ratio asked for (random subsets) or `size / n` (given subsets).
    pub ratio: f64,
    /// Items per subset.
    pub size: usize,
    /// Subsets drawn.
    pub subsets: usize,
    /// Per metric (in [`Sensitivity::metrics`] order): the mean of tau(subset ordering, full
    /// ordering) over the subsets whose tau is defined.
    pub mean_tau: Vec<f64>,
    /// Per metric: the sample standard deviation (ddof = 1) of those taus (0 for one subset).
    pub sd_tau: Vec<f64>,
    /// Per metric: subsets whose tau is undefined (every system tied on the subset), left out
    /// of the mean.
    pub undefined: Vec<usize>,
}

/// Data sensitivity of several metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct Sensitivity {
    /// The metrics, in input order.
    pub metrics: Vec<String>,
    /// The systems ordered.
    pub systems: Vec<String>,
    /// The number of items of the full set (KGC: test triples).
    pub items: usize,
    /// What an item is (`items`, `test triples`).
    pub unit: String,
    /// The Kendall variant used (`tau-b`).
    pub variant: String,
    /// How the subsets were drawn.
    pub source: SubsetSource,
    /// One point per ratio (random) or per subset size (given), ascending.
    pub points: Vec<SensitivityPoint>,
}
