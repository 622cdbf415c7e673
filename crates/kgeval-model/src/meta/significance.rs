//! Paired significance per system pair, discriminative power and leaderboard marks: the
//! result types of `kgeval_meta::{significance, power, leaderboard}`.
//!
//! Systems are referred to by their index in [`SignificanceResult::systems`] (table order);
//! a pair `(a, b)` always has `a < b`, and the pairs come in the order (0,1), (0,2), …,
//! (1,2), … — the upper triangle, row by row.

/// A paired significance test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SignificanceTest {
    /// Paired two-tailed Student t test on the per-item differences (`scipy.stats.ttest_rel`).
    #[default]
    PairedT,
    /// Wilcoxon signed-rank test (`scipy.stats.wilcoxon` defaults: zeros dropped, no
    /// continuity correction, exact / permutation / normal by scipy's `auto` rule).
    Wilcoxon,
    /// Sakai's paired bootstrap test (shift method: resample the centred differences),
    /// achieved significance level.
    Bootstrap,
    /// Fisher's randomisation test: random sign flips of the paired differences.
    Fisher,
    /// Randomised Tukey HSD (Carterette 2012): scores permuted across systems within each
    /// item; family-wise by construction.
    TukeyHsd,
}

impl SignificanceTest {
    /// Every test, in documentation order.
    pub const ALL: [Self; 5] = [Self::PairedT, Self::Wilcoxon, Self::Bootstrap, Self::Fisher, Self::TukeyHsd];

    /// The name used on the command line and in outputs: `t`, `wilcoxon`, `bootstrap`,
    /// `fisher`, `tukey`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::PairedT => "t",
            Self::Wilcoxon => "wilcoxon",
            Self::Bootstrap => "bootstrap",
            Self::Fisher => "fisher",
            Self::TukeyHsd => "tukey",
        }
    }

    /// Parses a name ([`SignificanceTest::name`], plus `student`, `ttest`, `paired-t`,
    /// `randomisation`, `randomization`, `permutation`, `tukey-hsd`, `hsd`), case-insensitive.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "t" | "student" | "ttest" | "t-test" | "paired-t" => Some(Self::PairedT),
            "wilcoxon" | "signed-rank" => Some(Self::Wilcoxon),
            "bootstrap" | "sakai" => Some(Self::Bootstrap),
            "fisher" | "randomisation" | "randomization" | "permutation" => Some(Self::Fisher),
            "tukey" | "tukey-hsd" | "hsd" => Some(Self::TukeyHsd),
            _ => None,
        }
    }

    /// Whether the test draws random numbers (needs iterations and a seed).
    #[must_use]
    pub const fn is_randomised(self) -> bool {
        matches!(self, Self::Bootstrap | Self::Fisher | Self::TukeyHsd)
    }

    /// Whether the p-values already control the family-wise error rate over all pairs
    /// (Tukey HSD), so that no multiplicity correction is applied on top.
    #[must_use]
    pub const fn is_family_wise(self) -> bool {
        matches!(self, Self::TukeyHsd)
    }
}

/// A multiplicity correction over the pairs of one metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Correction {
    /// Holm's step-down procedure (the default).
    #[default]
    Holm,
    /// Bonferroni: p × number of pairs, capped at 1.
    Bonferroni,
    /// No correction: adjusted p = p.
    None,
}

impl Correction {
    /// `holm`, `bonferroni` or `none`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Holm => "holm",
            Self::Bonferroni => "bonferroni",
            Self::None => "none",
        }
    }

    /// Parses `holm`, `bonferroni` or `none` (case-insensitive).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "holm" => Some(Self::Holm),
            "bonferroni" => Some(Self::Bonferroni),
            "none" => Some(Self::None),
            _ => None,
        }
    }
}

/// A percentile bootstrap confidence interval of one system's mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanInterval {
    /// The lower bound (the α/2 quantile of the bootstrap means).
    pub lower: f64,
    /// The upper bound (the 1 − α/2 quantile).
    pub upper: f64,
}

/// The comparison of systems `a` and `b` (`a < b`, indices into
/// [`SignificanceResult::systems`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PairComparison {
    /// The first system.
    pub a: usize,
    /// The second system.
    pub b: usize,
    /// mean(a) − mean(b), in the metric's own units (not oriented).
    pub mean_difference: f64,
    /// Cohen's d of the paired differences: mean(a − b) / sd(a − b) (ddof = 1); 0 when both
    /// are 0, ±∞ when only the sd is 0, NaN with one item.
    pub effect_size: f64,
    /// The test statistic where the test has one (t, Wilcoxon's min(R+, R−)), else `None`.
    pub statistic: Option<f64>,
    /// The two-sided p-value of the test.
    pub p_value: f64,
    /// The p-value after the correction (= `p_value` for no correction and for Tukey HSD).
    pub p_adjusted: f64,
    /// Items where `a` is better than `b` (oriented: for lower-is-better metrics, lower wins).
    pub wins: usize,
    /// Items where they are equal.
    pub ties: usize,
    /// Items where `b` is better.
    pub losses: usize,
}

impl PairComparison {
    /// Whether the difference is significant at `alpha` after correction
    /// (`p_adjusted < alpha`).
    #[must_use]
    pub fn is_significant(&self, alpha: f64) -> bool {
        self.p_adjusted < alpha
    }
}

/// Every pair of systems compared on one metric.
#[derive(Debug, Clone, PartialEq)]
pub struct SignificanceResult {
    /// The metric.
    pub metric: String,
    /// Whether larger values of the metric are better (false for MR and other
    /// lower-is-better metrics); wins and leaderboard order follow it.
    pub higher_is_better: bool,
    /// The test.
    pub test: SignificanceTest,
    /// The correction applied (reported as [`Correction::None`] for Tukey HSD, which is
    /// family-wise already).
    pub correction: Correction,
    /// The significance level used by marks and counts.
    pub alpha: f64,
    /// Iterations B of the randomised test; 0 for t and Wilcoxon.
    pub iterations: usize,
    /// Bootstrap iterations of the intervals; 0 when there are none.
    pub interval_iterations: usize,
    /// The seed of every random draw.
    pub seed: u64,
    /// The number of items the systems were compared on.
    pub n_items: usize,
    /// System names, table order.
    pub systems: Vec<String>,
    /// Each system's mean over the items.
    pub means: Vec<f64>,
    /// Each system's percentile bootstrap interval of the mean; empty when not asked for.
    pub intervals: Vec<MeanInterval>,
    /// All n(n−1)/2 pairs, a < b, row by row.
    pub pairs: Vec<PairComparison>,
}

impl SignificanceResult {
    /// The comparison of systems `i` and `j` in either order.
    ///
    /// Constant time when [`SignificanceResult::pairs`] is in its documented order (the
    /// upper triangle row by row: pair (a, b) at `a(2k − a − 1)/2 + b − a − 1`); a linear
    /// scan otherwise (pairs put together in another order by hand).
    #[must_use]
    pub fn pair(&self, i: usize, j: usize) -> Option<&PairComparison> {
        let (a, b) = if i < j { (i, j) } else { (j, i) };
        let k = self.systems.len();
        if a < b && b < k {
            let index = a * (2 * k - a - 1) / 2 + (b - a - 1);
            if let Some(p) = self.pairs.get(index).filter(|p| p.a == a && p.b == b) {
                return Some(p);
            }
        }
        self.pairs.iter().find(|p| p.a == a && p.b == b)
    }
}

/// Discriminative power of one metric: how many system pairs its test separates.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscriminativePower {
    /// The metric.
    pub metric: String,
    /// The significance level.
    pub alpha: f64,
    /// Number of pairs (p-values).
    pub pairs: usize,
    /// Pairs with p < α.
    pub significant: usize,
    /// Pairs with p < 0.01.
    pub significant_at_01: usize,
    /// Area under the p-value curve sorted in descending order: the plain sum of the p-values
    /// (unit spacing between pairs); smaller means more discriminative.
    pub area: f64,
    /// The median p-value (mean of the two middle values for an even count).
    pub median_p: f64,
    /// The curve: the p-values sorted in descending order (x = pair index).
    pub curve: Vec<f64>,
}

/// A p-value matrix as published next to a set of systems (kgc-sparsity's
/// `discriminative_power.csv`): for each metric, one p-value per unordered system pair.
#[derive(Debug, Clone, PartialEq)]
pub struct PValueMatrix {
    /// System names, in order of first appearance.
    pub systems: Vec<String>,
    /// The metrics (column headings after `SystemA,SystemB`).
    pub metrics: Vec<String>,
    /// The unordered pairs (a < b indices into `systems`), in order of first appearance.
    pub pairs: Vec<(usize, usize)>,
    /// `p_values[metric][pair]`.
    pub p_values: Vec<Vec<f64>>,
}

impl PValueMatrix {
    /// The p-values of one metric, one per pair, or `None` for an unknown metric.
    #[must_use]
    pub fn metric(&self, name: &str) -> Option<&[f64]> {
        self.metrics.iter().position(|m| m == name).map(|i| self.p_values[i].as_slice())
    }
}

/// One row of a leaderboard with significance marks.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderboardRow {
    /// Index into [`SignificanceResult::systems`].
    pub system: usize,
    /// The system's name.
    pub name: String,
    /// Its mark letter, from its input position: `a` for the first system of
    /// [`SignificanceResult::systems`], `b` for the second, … (`aa`, `ab`, … after `z`).
    pub letter: String,
    /// Its mean.
    pub mean: f64,
    /// Leaderboard positions (row indices) of the systems it significantly beats at α after
    /// correction; their letters are its superscripts.
    pub beats: Vec<usize>,
    /// Its tier (1 = not distinguishable from the best).
    pub tier: usize,
}

/// Systems in leaderboard order (best mean first) with significance marks and tiers.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaderboard {
    /// The metric.
    pub metric: String,
    /// The significance level of the marks.
    pub alpha: f64,
    /// The rows, best first.
    pub rows: Vec<LeaderboardRow>,
}

impl LeaderboardRow {
    /// The superscript text: the letters of the beaten systems in input (letter) order (e.g.
    /// `cde`); empty when it beats none.
    #[must_use]
    pub fn marks(&self, rows: &[LeaderboardRow]) -> String {
        let mut beaten: Vec<&LeaderboardRow> = self.beats.iter().filter_map(|&i| rows.get(i)).collect();
        beaten.sort_by_key(|row| row.system);
        beaten.into_iter().map(|row| row.letter.as_str()).collect()
    }
}
