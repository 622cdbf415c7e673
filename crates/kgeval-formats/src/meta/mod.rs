//! Readers of meta-evaluation inputs: score tables written by other tools, p-value matrices.

mod csv;
pub mod detect;
pub mod long_csv;
pub mod pvalues;
pub mod subsets;
pub mod trec_eval_q;
pub mod wide_csv;
