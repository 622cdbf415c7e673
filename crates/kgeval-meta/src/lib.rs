#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod agreement;
mod error;
pub mod kendall;
pub mod paired;
pub mod pool;

pub use error::MetaError;
pub use paired::{MissingCounts, MissingPolicy, PairedScores};
