//! Integration tests of kgeval-formats on real and malformed files (one test binary).

#[cfg(feature = "arrow")]
mod arrow;
mod echo_cap;
mod kgc;
mod lexicon;
mod meta_kendall;
mod npy;
mod qald;
mod ranking;
mod rdf;
mod trec;
mod tsv_sssom;
