#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod agreement;
pub mod distributions;
mod error;
pub mod kendall;
pub mod leaderboard;
pub mod paired;
pub mod pool;
pub mod power;
pub mod randomised;
pub mod sensitivity;
pub mod significance;

pub use error::MetaError;
pub use leaderboard::leaderboard;
pub use paired::{MissingCounts, MissingPolicy, PairedScores};
pub use power::{discriminative_power, pvalue_matrix};
pub use significance::{compare_systems, SignificanceOptions};
