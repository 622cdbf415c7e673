#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod align;
pub mod campaign;
pub mod compare;
mod error;
mod evaluation;
mod gate;
mod gold_names;
mod input_paths;
mod inputs;
pub mod kgc;
pub mod lexicon;
mod manifest;
pub mod pool;
mod progress;
pub mod qald;
pub mod rank;
/// Every family's values as one Arrow table, written as Parquet or Arrow IPC (feature `arrow`).
#[cfg(feature = "arrow")]
pub mod table_arrow;
pub mod toml_doc;
pub mod trec;
pub mod write;

use serde::Deserialize;

pub use error::{Concern, Error, ResultExt};
pub use evaluation::{Conventions, Evaluation, FamilyResult, Warning};
pub use gate::{Gate, GateFailure};
pub use gold_names::THE_GOLD;
pub use input_paths::same_file_as;
pub use inputs::{check_name, system_names, SystemInput, RESERVED_NAMES};
/// Arrow columns in and out (feature `arrow`): column roles and names, typed borrowed
/// columns, Parquet / IPC files, and `arrow-array` itself for front ends.
#[cfg(feature = "arrow")]
pub use kgeval_formats::arrow;
pub use kgeval_formats::input::{decompressed_limit, set_decompressed_limit, DEFAULT_DECOMPRESSED_LIMIT};
pub use kgeval_formats::{FormatError, Input, InputBytes, SyntaxError};
pub use kgeval_model::{Diagnostic, ScoreTable};
pub use kgeval_report::{csv_field, parse_precision, OutputFormat, RenderOptions, TrecTextLines, MAX_PRECISION};
pub use manifest::{family_from_toml, from_json, from_toml, read_family_toml, read_toml};
pub use progress::{NoProgress, Progress};

/// The evaluation families; each name is its CLI subcommand's and its module's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Ontology alignments against (partial) references (`kgeval align`).
    Align,
    /// Local rankings with NIL abstention (`kgeval rank`).
    Rank,
    /// TREC runs against qrels, trec_eval's measures (`kgeval trec`).
    Trec,
    /// Knowledge-graph completion (`kgeval kgc`).
    Kgc,
    /// Question answering over linked data (`kgeval qald`).
    Qald,
    /// lemon / OntoLex lexicons (`kgeval lexicon`).
    Lexicon,
}

impl Family {
    /// Every family, in CLI order.
    pub const ALL: [Family; 6] =
        [Family::Align, Family::Rank, Family::Trec, Family::Kgc, Family::Qald, Family::Lexicon];

    /// The subcommand name (`align`, `rank`, `trec`, `kgc`, `qald`, `lexicon`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Family::Align => "align",
            Family::Rank => "rank",
            Family::Trec => "trec",
            Family::Kgc => "kgc",
            Family::Qald => "qald",
            Family::Lexicon => "lexicon",
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One evaluation to run: plain data (inputs and options with their defaults), deserialisable
/// from a manifest row (`family = "lexicon"`, then the family's fields).
///
/// ```no_run
/// use kgeval::{NoProgress, Task};
/// let task = Task::from_toml(r#"
/// family = "lexicon"
/// gold = "testdata/lemon/matoll-foaf.ttl"
/// system = "testdata/lemon/matoll-foaf_2.ttl"
/// uris = "testdata/lemon/matoll-foaf-uris.txt"
/// "#, "task.toml")?;
/// let evaluation = task.run(&NoProgress)?;
/// println!("{}", evaluation.render(kgeval::OutputFormat::Text, &kgeval::RenderOptions::default()));
/// # Ok::<(), kgeval::Error>(())
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "family", rename_all = "lowercase")]
pub enum Task {
    /// `kgeval align`.
    Align(align::AlignTask),
    /// `kgeval kgc`.
    Kgc(Box<kgc::KgcTask>),
    /// `kgeval lexicon`.
    Lexicon(lexicon::LexiconTask),
    /// `kgeval rank`.
    Rank(rank::RankTask),
    /// `kgeval qald`.
    Qald(qald::QaldTask),
    /// `kgeval trec`.
    Trec(trec::TrecTask),
}

impl Task {
    /// Parses a manifest row: a `family = "…"` key, then the family's fields; errors point
    /// into the text (`FILE:LINE:COL: unknown field `mod`, expected one of …`).
    ///
    /// ```
    /// let task = kgeval::Task::from_toml("family = \"lexicon\"\ngold = \"g.ttl\"\nsystem = \"s.ttl\"\nuris = \"u.txt\"\n", "t.toml")?;
    /// assert_eq!(task.family(), kgeval::Family::Lexicon);
    /// let error = kgeval::Task::from_toml("family = \"lexicon\"\ngold = 3\n", "t.toml").unwrap_err();
    /// assert!(error.to_string().starts_with("t.toml:2:8: "), "{error}");
    /// # Ok::<(), kgeval::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] with the position of the first TOML or schema error; a missing or
    /// unknown family.
    pub fn from_toml(text: &str, file: &str) -> Result<Task, Error> {
        let manifest = toml_doc::TomlManifest::parse(text, file)?;
        manifest.task(manifest.root(), &[])
    }

    /// The task's family.
    #[must_use]
    pub fn family(&self) -> Family {
        match self {
            Task::Align(_) => Family::Align,
            Task::Kgc(_) => Family::Kgc,
            Task::Lexicon(_) => Family::Lexicon,
            Task::Rank(_) => Family::Rank,
            Task::Qald(_) => Family::Qald,
            Task::Trec(_) => Family::Trec,
        }
    }

    /// Runs the task: reads its inputs, evaluates, and returns the envelope.
    ///
    /// # Errors
    /// An input that cannot be read or is malformed, or options that do not fit.
    pub fn run(&self, progress: &dyn Progress) -> Result<Evaluation, Error> {
        match self {
            Task::Align(task) => task.run(progress),
            Task::Kgc(task) => task.run(progress),
            Task::Lexicon(task) => task.run(progress),
            Task::Rank(task) => task.run(progress),
            Task::Qald(task) => task.run(progress),
            Task::Trec(task) => task.run(progress),
        }
    }

    /// The same task with relative paths joined to `base` (a manifest's folder).
    #[must_use]
    pub fn resolved(&self, base: &std::path::Path) -> Task {
        match self {
            Task::Align(task) => Task::Align(task.resolved(base)),
            Task::Kgc(task) => Task::Kgc(Box::new(task.resolved(base))),
            Task::Lexicon(task) => Task::Lexicon(task.resolved(base)),
            Task::Rank(task) => Task::Rank(task.resolved(base)),
            Task::Qald(task) => Task::Qald(task.resolved(base)),
            Task::Trec(task) => Task::Trec(task.resolved(base)),
        }
    }
}

/// `docs/library.md`, whose Rust block runs as a doc test: the user docs stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/library.md")]
pub struct LibraryDocs;
