#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod agreement;
mod error;
pub mod kendall;
pub mod paired;
pub mod pool;
pub mod sensitivity;

pub use error::MetaError;
pub use paired::{MissingCounts, MissingPolicy, PairedScores};
