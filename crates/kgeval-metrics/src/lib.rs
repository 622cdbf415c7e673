#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod align;
mod bytes;
pub mod exact;
pub mod kgc;
pub mod lexicon;
pub mod qald;
pub mod rank;
pub mod ranking;
pub mod trec;
