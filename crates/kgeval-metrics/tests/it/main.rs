//! Integration tests of `kgeval-metrics`: hand-worked alignment cases, profiles, aggregation,
//! thresholds, type breakdown, checks, a naive implementation of the specification's
//! pseudocode, and property tests.

mod aggregate;
mod kgc;
mod lexicon;
mod local;
mod modes;
mod naive;
mod profiles;
mod props;
mod qald;
mod row;
mod support;
mod threshold;
mod track;
mod types;
mod validate;
