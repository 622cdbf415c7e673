#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

mod alignment;
mod diagnostic;
mod entity;
mod interner;
pub mod ir;
pub mod kgc;
pub mod lexicon;
pub mod metric_names;
pub mod qald;
pub mod ranking;
mod relation;
pub mod results;
mod score_table;

pub use alignment::{Alignment, AlignmentHeader, CellKey, Correspondence, DuplicatePolicy, InsertOutcome};
pub use diagnostic::{Diagnostic, Location, Severity};
pub use entity::{EntityKind, EntityTypes};
pub use interner::{Interner, TermId};
pub use metric_names::{Aggregation, Direction, Level, MetricInfo};
pub use relation::Relation;
pub use score_table::{ItemId, ItemInfo, MergeConflict, MergeCounts, MetricId, ScoreTable, SystemId};
