#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod align;
mod alignment;
mod diagnostic;
mod entity;
mod interner;
pub mod kgc;
pub mod lexicon;
pub mod meta;
pub mod metric_names;
pub mod qald;
pub mod rank;
pub mod ranking;
mod relation;
mod score_table;
pub mod trec;

pub use alignment::{Alignment, AlignmentHeader, CellKey, Correspondence, DuplicatePolicy, InsertOutcome};
pub use diagnostic::{Diagnostic, Location, Severity};
pub use entity::{DeclaredEntity, EntityKind, EntityTypes};
pub use interner::{Interner, TermBatch, TermHash, TermId};
pub use metric_names::{Aggregation, Direction, Level, MetricInfo};
pub use relation::Relation;
pub use score_table::{ItemId, ItemInfo, MergeConflict, MergeCounts, MetricId, ScoreTable, SystemId};
