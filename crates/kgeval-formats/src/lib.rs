#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

mod error;

pub use error::{line_column, FormatError, SyntaxError};
