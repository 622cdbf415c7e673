#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod alignment;
pub mod lexicon;
mod error;
pub mod ontology;

pub use error::{line_column, FormatError, SyntaxError};
