#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod alignment;
pub mod ir;
pub mod kgc;
pub mod lexicon;
pub mod local;
pub mod qald;
pub mod ranking;
