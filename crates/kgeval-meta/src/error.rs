//! The one error type of meta-evaluation: inputs that cannot be compared.

/// Why a meta-evaluation cannot run on the given table.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MetaError {
    /// The metric is not in the table (`available` lists the table's metrics).
    #[error("unknown metric `{metric}`: the input has {available}")]
    UnknownMetric {
        /// The metric asked for.
        metric: String,
        /// The metrics the table holds, comma-separated.
        available: String,
    },
    /// Systems do not score the same items and the missing-item policy is `error`.
    #[error(
        "{missing} missing value(s) for metric `{metric}`: system `{system}` has no value for item `{item}` \
         (first of them); items must be the same for every system (--missing zero|drop to proceed)"
    )]
    MissingItems {
        /// The metric.
        metric: String,
        /// The first system lacking an item.
        system: String,
        /// The first item it lacks.
        item: String,
        /// How many (system, item) cells are missing in all.
        missing: usize,
    },
    /// Too few systems or items for the analysis.
    #[error("{what}: need at least {needed}, found {found}")]
    TooFew {
        /// What is counted (`systems`, `items of metric map`, …).
        what: String,
        /// The minimum.
        needed: usize,
        /// What the input has.
        found: usize,
    },
    /// A value is NaN or infinite.
    #[error("metric `{metric}`: system `{system}`, item `{item}` has the non-finite value {value}")]
    NonFinite {
        /// The metric.
        metric: String,
        /// The system.
        system: String,
        /// The item.
        item: String,
        /// The value.
        value: f64,
    },
    /// An option is out of range (B = 0, α outside (0, 1), a ratio above 1, …).
    #[error("{0}")]
    InvalidOption(String),
}
