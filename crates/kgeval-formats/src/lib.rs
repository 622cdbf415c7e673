#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod align;
#[cfg(feature = "arrow")]
pub mod arrow;
mod error;
pub mod ids;
pub mod input;
pub mod kgc;
pub mod lexicon;
mod lines;
pub mod meta;
pub mod ontology;
pub mod per_item;
pub mod qald;
pub mod rank;
pub mod trec;
mod warnings;
pub mod xml_guard;

pub use error::{echo, echo_cell, line_column, shorten, FormatError, SyntaxError, MAX_CELL_ECHO, MAX_ECHO};
pub use input::{Input, InputBytes};

/// What a reader returns when its input may carry quirks worth a warning: the model value and
/// the warnings (located `Diagnostic`s), in input order. Every reader has one shape:
/// `read_x(bytes, file name, context…) -> Result<…, FormatError>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Read<T> {
    /// What was read.
    pub value: T,
    /// The quirks found on the way (blank lines, out-of-range values, repaired input…).
    pub warnings: Vec<kgeval_model::Diagnostic>,
}
