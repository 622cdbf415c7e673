//! `kgeval lexicon`: flags → [`kgeval::lexicon::LexiconTask`].

use std::path::PathBuf;

use clap::Args;
use kgeval::lexicon::LexiconTask;
use kgeval::{Input, SystemInput};
use kgeval_model::lexicon::LexiconMode;

use crate::output::{finish, OutputArgs};
use crate::progress::TerminalProgress;
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval lexicon --gold testdata/lemon/qald3-dbpedia_train_lexicon_en.ttl \\
      --system testdata/lemon/qald3-dbpedia-test-lexicon-en.ttl --uris testdata/lemon/qald3-dbpedia_train_classes_properties.txt
  kgeval lexicon --gold testdata/lemon/matoll-foaf.ttl --system testdata/lemon/matoll-foaf_2.ttl \\
      --system foaf3=testdata/lemon/matoll-foaf_3.ttl --uris testdata/lemon/matoll-foaf-uris.txt --format markdown
  kgeval lexicon --gold testdata/lemon/matoll-foaf.ttl --system testdata/lemon/matoll-foaf_2.ttl \\
      --uris testdata/lemon/matoll-foaf-uris.txt --mode qald3-script --format json";

/// Arguments of `kgeval lexicon`.
#[derive(Debug, Args)]
pub(crate) struct LexiconArgs {
    /// The gold lemon / OntoLex lexicon (Turtle; `-` reads stdin, gzip accepted).
    #[arg(long, short = 'g')]
    gold: PathBuf,
    /// A submitted lexicon (Turtle), as PATH or NAME=PATH; repeat for several systems.
    #[arg(long, short = 's', required = true)]
    system: Vec<String>,
    /// The URIs to score: classes, a blank line, properties (QALD-3 format).
    #[arg(long, short = 'u')]
    uris: PathBuf,
    /// `paper` (default): the published formulas; `qald3-script`: the original script with its
    /// quirks.
    #[arg(long, value_parser = parse_mode)]
    mode: Option<LexiconMode>,
    /// Base IRI for relative IRIs in both lexicons.
    #[arg(long)]
    base_iri: Option<String>,
    /// The system's name in the output (one system; same as NAME=PATH).
    #[arg(long)]
    name: Option<String>,
    #[command(flatten)]
    out: OutputArgs,
}

fn parse_mode(name: &str) -> Result<LexiconMode, String> {
    LexiconMode::from_name(name).ok_or_else(|| "expected paper or qald3-script".to_owned())
}

pub(crate) fn run(args: &LexiconArgs) -> anyhow::Result<Outcome> {
    args.out.check_before_reading("lexicon")?;
    let mut systems: Vec<SystemInput> = args.system.iter().map(|s| SystemInput::parse(s)).collect();
    if let Some(name) = &args.name {
        anyhow::ensure!(systems.len() == 1, "--name: expected one --system, found {}; use NAME=PATH", systems.len());
        systems[0].name = Some(name.clone());
    }
    let mut task = LexiconTask::new(Input::path(&args.gold), Input::path(&args.uris));
    task.systems = systems;
    task.mode = args.mode.unwrap_or(task.mode);
    task.base_iri.clone_from(&args.base_iri);
    crate::output::refuse_input_as_output(&task.input_paths(), &[("-o", args.out.output.as_deref())])?;
    let evaluation = task.run(&TerminalProgress::new(8))?;
    finish(&evaluation, &args.out)
}
