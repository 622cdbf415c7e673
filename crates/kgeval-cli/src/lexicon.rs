//! `kgeval lexicon`: ontology lexicalization scoring (QALD-3 Task 2).

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use kgeval_formats::lexicon::{read_lexicon_file, read_uri_list_file, LexiconReadOptions};
use kgeval_metrics::lexicon::evaluate_lexicon;
use kgeval_model::lexicon::LexiconMode;
use kgeval_report::{render_lexicon, OutputFormat, RenderOptions};

use crate::output::write_output;
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval lexicon --gold testdata/lemon/qald3-dbpedia_train_lexicon_en.ttl \\
      --system my-lexicon.ttl --uris testdata/lemon/qald3-dbpedia_train_classes_properties.txt
  kgeval lexicon --gold gold.ttl --system sys.ttl --uris uris.txt --mode qald3-script --format json -o out.json
  kgeval lexicon --gold testdata/lemon/matoll-foaf.ttl --system testdata/lemon/matoll-foaf_2.ttl \\
      --uris testdata/lemon/matoll-foaf-uris.txt --format markdown";

/// Arguments of `kgeval lexicon`.
#[derive(Debug, Args)]
pub(crate) struct LexiconArgs {
    /// The gold lemon / OntoLex lexicon (Turtle).
    #[arg(long, short = 'g')]
    gold: PathBuf,
    /// The submitted lexicon (Turtle).
    #[arg(long, short = 's')]
    system: PathBuf,
    /// The URIs to score: classes, a blank line, properties (QALD-3 format).
    #[arg(long, short = 'u')]
    uris: PathBuf,
    /// `paper`: the published formulas; `qald3-script`: the original script with its quirks.
    #[arg(long, value_enum, default_value_t = ModeArg::Paper)]
    mode: ModeArg,
    /// Base IRI for relative IRIs in both lexicons.
    #[arg(long)]
    base_iri: Option<String>,
    /// The system's name in the output (default: the file stem).
    #[arg(long)]
    name: Option<String>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Write the result to this file (atomically) instead of stdout.
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Decimals in text and Markdown output.
    #[arg(long, default_value_t = 4)]
    precision: usize,
    /// Include the per-item score table in JSON (`per_item`).
    #[arg(long)]
    per_item: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModeArg {
    Paper,
    #[value(name = "qald3-script")]
    Qald3Script,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FormatArg {
    Text,
    Json,
    Csv,
    Markdown,
}

/// At most this many warnings per file go to stderr; JSON lists them all.
const MAX_WARNINGS_SHOWN: usize = 20;

pub(crate) fn run(args: &LexiconArgs) -> anyhow::Result<Outcome> {
    let options = LexiconReadOptions { base_iri: args.base_iri.clone() };
    let (uris, mut warnings) = read_uri_list_file(&args.uris).context("reading the URI list")?;
    let gold = read_lexicon_file(&args.gold, &options).context("reading the gold lexicon")?;
    let system = read_lexicon_file(&args.system, &options).context("reading the system lexicon")?;
    let mode = match args.mode {
        ModeArg::Paper => LexiconMode::Paper,
        ModeArg::Qald3Script => LexiconMode::Qald3Script,
    };
    let name = args.name.clone().unwrap_or_else(|| {
        args.system.file_stem().map_or_else(|| args.system.display().to_string(), |s| s.to_string_lossy().into_owned())
    });
    let mut evaluation = evaluate_lexicon(&gold.lexicon, &system.lexicon, &uris, mode, &name);
    warnings.extend(gold.warnings);
    warnings.extend(system.warnings);
    warnings.append(&mut evaluation.warnings);
    for w in warnings.iter().take(MAX_WARNINGS_SHOWN) {
        eprintln!("{w}");
    }
    if warnings.len() > MAX_WARNINGS_SHOWN {
        eprintln!("warning: {} more warnings (see --format json)", warnings.len() - MAX_WARNINGS_SHOWN);
    }
    evaluation.warnings = warnings;
    let format = match args.format {
        FormatArg::Text => OutputFormat::Text,
        FormatArg::Json => OutputFormat::Json,
        FormatArg::Csv => OutputFormat::Csv,
        FormatArg::Markdown => OutputFormat::Markdown,
    };
    let render = RenderOptions {
        precision: args.precision,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        per_item: args.per_item,
    };
    write_output(args.output.as_deref(), &render_lexicon(&evaluation, format, &render))?;
    Ok(Outcome::Ok)
}
