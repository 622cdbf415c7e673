//! Readers of meta-evaluation inputs: score tables written by other tools, p-value matrices.

pub mod wide_csv;
