#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

mod error;
pub mod paired;
pub mod pool;

pub use error::MetaError;
pub use paired::{MissingCounts, MissingPolicy, PairedScores};
