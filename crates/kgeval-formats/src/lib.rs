#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod align;
mod error;
pub mod input;
pub mod kgc;
pub mod lexicon;
mod lines;
pub mod ontology;
pub mod per_item;
pub mod qald;
pub mod rank;
pub mod trec;
mod warnings;

pub use error::{line_column, FormatError, SyntaxError};
pub use input::{Input, InputBytes};
