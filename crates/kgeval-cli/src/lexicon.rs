//! `kgeval lexicon`: ontology lexicalization scoring (QALD-3 Task 2).

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use kgeval_formats::lexicon::{read_lexicon_file, read_uri_list_file, LexiconReadOptions};
use kgeval_metrics::lexicon::evaluate_lexicon;
use kgeval_model::lexicon::LexiconMode;
use kgeval_report::render_lexicon;

use crate::output::{print_warnings, stem, write_output, OutputArgs};
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
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModeArg {
    Paper,
    #[value(name = "qald3-script")]
    Qald3Script,
}

pub(crate) fn run(args: &LexiconArgs) -> anyhow::Result<Outcome> {
    let options = LexiconReadOptions { base_iri: args.base_iri.clone() };
    let (uris, mut warnings) = read_uri_list_file(&args.uris).context("reading the URI list")?;
    let gold = read_lexicon_file(&args.gold, &options).context("reading the gold lexicon")?;
    let system = read_lexicon_file(&args.system, &options).context("reading the system lexicon")?;
    let mode = match args.mode {
        ModeArg::Paper => LexiconMode::Paper,
        ModeArg::Qald3Script => LexiconMode::Qald3Script,
    };
    let name = args.name.clone().unwrap_or_else(|| stem(&args.system));
    let mut evaluation = evaluate_lexicon(&gold.lexicon, &system.lexicon, &uris, mode, &name);
    warnings.extend(gold.warnings);
    warnings.extend(system.warnings);
    warnings.append(&mut evaluation.warnings);
    print_warnings(&format!("system {name}"), &warnings);
    evaluation.warnings = warnings;
    let render = args.out.render_options();
    write_output(args.out.output.as_deref(), &render_lexicon(&evaluation, args.out.format.into(), &render))?;
    Ok(Outcome::Ok)
}
