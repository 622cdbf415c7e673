#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod alignment;
pub mod ontology;
mod error;

pub use error::{line_column, FormatError, SyntaxError};
