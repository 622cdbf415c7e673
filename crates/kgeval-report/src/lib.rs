#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

mod align;
pub mod campaign;
mod common;
mod compare;
mod kgc;
mod lexicon;
mod markdown;
mod number;
mod pool;
mod qald;
mod rank;
mod sensitivity;
mod table;
mod trec;
mod trec_ties;

pub use align::{alignment_json, render_alignment, render_labels_tsv};
pub use common::{csv_field, text_field};
pub use compare::{compare_json, render_compare};
pub use kgc::{kgc_json, render_kgc};
pub use lexicon::{lexicon_json, render_lexicon};
pub use markdown::{escape_markdown, markdown_code, markdown_comment};
pub use number::{format_fixed, format_java_double, parse_precision, MAX_PRECISION};
pub use pool::{annotation_template, render_depth_series, render_pool, render_pool_summary};
pub use qald::{qald_json, render_qald};
pub use rank::{ranking_json, render_biollm, render_ontoaligner, render_rank, render_ranking, RESERVED_PAIR_NAMES};
pub use sensitivity::{render_sensitivity, sensitivity_json};
pub use table::Table;
pub use trec::{ir_json, render_ir, trec_eval_text, TrecTextLines};
pub use trec_ties::{render_tie_report, tie_report_json};

/// The output formats every family renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OutputFormat {
    /// An aligned plain-text table with a header stating the conventions.
    #[default]
    Text,
    /// The stable JSON contract, full f64 precision.
    Json,
    /// CSV (for alignments: MELT `performance.csv` column names).
    Csv,
    /// A GitHub-flavoured Markdown table, ready for a paper draft or a README.
    Markdown,
}

impl OutputFormat {
    /// Every format.
    pub const ALL: [OutputFormat; 4] =
        [OutputFormat::Text, OutputFormat::Json, OutputFormat::Csv, OutputFormat::Markdown];

    /// The CLI name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            OutputFormat::Text => "text",
            OutputFormat::Json => "json",
            OutputFormat::Csv => "csv",
            OutputFormat::Markdown => "markdown",
        }
    }
}

/// Options shared by every renderer.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    /// Decimals printed in text and Markdown output (JSON and CSV keep full precision).
    pub precision: usize,
    /// The `kgeval_version` written in JSON.
    pub version: String,
    /// Include the per-item score table (`per_item`) in JSON.
    pub per_item: bool,
    /// The lines of trec_eval's text output (`kgeval trec -q`, `-n`); other families ignore it.
    pub trec_lines: TrecTextLines,
    /// Write CSV with tabs instead of commas (TSV); only `kgeval trec` offers it, other
    /// families ignore it.
    pub tab_separated: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            precision: 4,
            version: String::new(),
            per_item: false,
            trec_lines: TrecTextLines::default(),
            tab_separated: false,
        }
    }
}
