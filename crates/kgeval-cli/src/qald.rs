//! `kgeval qald`: flags → [`kgeval::qald::QaldTask`].

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use kgeval::qald::Normalisation;
use kgeval::qald::QaldTask;
use kgeval::{Input, SystemInput};
use kgeval_model::qald::QaldRule;

use crate::output::{finish, OutputArgs};
use crate::progress::TerminalProgress;
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval qald --gold testdata/qald/qald3/dbpedia-test-answers.xml --system testdata/qald/qald3/dbpedia-test-answers.xml
  kgeval qald --gold testdata/qald/sparql/gold.xml --system testdata/qald/sparql/system.json \\
      --data testdata/qald/sparql/data.ttl testdata/qald/sparql/extra.rdf
  kgeval qald --gold testdata/qald/sparql/gold.xml --system A=testdata/qald/sparql/system-labels.xml \\
      --system B=testdata/qald/sparql/system.json --rule qald6 --format markdown
  kgeval qald --gold testdata/qald/sparql/gold-queries.xml --gold-from-queries --system testdata/qald/sparql/system.json \\
      --data testdata/qald/sparql/data.ttl testdata/qald/sparql/extra.rdf --fail-under f1=0.9
  kgeval qald --gold testdata/qald/sparql/gold.xml --system testdata/qald/sparql/system.json \\
      --endpoint http://localhost:7878/query --timeout 30
  kgeval qald --gold testdata/qald/sparql/gold.xml --system testdata/qald/sparql/system-labels.xml \\
      --labels testdata/qald/sparql/labels.tsv -o result.json --format json";

/// Arguments of `kgeval qald`.
#[derive(Debug, Args)]
#[allow(clippy::struct_excessive_bools)]
pub(crate) struct QaldArgs {
    /// The gold question set (any QALD XML or JSON dialect; `-` reads stdin, gzip accepted).
    #[arg(long, short = 'g')]
    gold: PathBuf,
    /// A submission, as PATH or NAME=PATH (`-` reads stdin, gzip accepted); repeat for several
    /// systems.
    #[arg(long, short = 's', required = true)]
    system: Vec<String>,
    /// What a non-empty gold answered with the empty set scores: qald3 (P 0, R 0; the
    /// default), qald6 or gerbil (P 1, R 0).
    #[arg(long, value_enum)]
    rule: Option<RuleArg>,
    /// The questions' language (failed-question texts, language breakdown) [default: en].
    #[arg(long)]
    lang: Option<String>,
    /// RDF files loaded into an embedded store to run queries given without answers
    /// (Turtle, N-Triples, N-Quads, TriG, RDF/XML; `.gz` allowed).
    #[arg(long, num_args = 1.., conflicts_with = "endpoint")]
    data: Vec<PathBuf>,
    /// A SPARQL 1.1 protocol endpoint to run queries given without answers.
    #[arg(long)]
    endpoint: Option<String>,
    /// Seconds one query may run, on the endpoint or the embedded store; past it the query
    /// is an error [default: 60].
    #[arg(long)]
    timeout: Option<f64>,
    /// The most rows one query may give; past it the query is an error [default: 100000].
    #[arg(long)]
    max_rows: Option<u64>,
    /// Run every gold SPARQL query and use its results as the gold answers.
    #[arg(long)]
    gold_from_queries: bool,
    /// IRI → labels (TSV: IRI, then labels), so a label answer can match a URI gold (an input;
    /// gzip accepted).
    #[arg(long)]
    labels: Option<PathBuf>,
    /// Do not trim answers.
    #[arg(long)]
    no_trim: bool,
    /// Compare booleans case-sensitively.
    #[arg(long)]
    no_boolean_case: bool,
    /// Do not decode percent-encoded IRIs.
    #[arg(long)]
    no_iri_decoding: bool,
    /// Compare numbers on their lexical form.
    #[arg(long)]
    no_number_normalisation: bool,
    /// Compare dates and dateTimes on their lexical form.
    #[arg(long)]
    no_date_part: bool,
    /// Also compare literals on datatype and language tag.
    #[arg(long)]
    respect_literal_type: bool,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum RuleArg {
    Qald3,
    Qald6,
    #[value(alias = "gerbil-qald")]
    Gerbil,
}

pub(crate) fn run(args: &QaldArgs) -> anyhow::Result<Outcome> {
    args.out.check_before_reading("qald")?;
    let mut task = QaldTask::new(Input::path(&args.gold));
    task.systems = args.system.iter().map(|s| SystemInput::parse(s)).collect();
    if let Some(rule) = args.rule {
        task.rule = match rule {
            RuleArg::Qald3 => QaldRule::Qald3,
            RuleArg::Qald6 => QaldRule::Qald6,
            RuleArg::Gerbil => QaldRule::Gerbil,
        };
    }
    if let Some(lang) = &args.lang {
        task.language.clone_from(lang);
    }
    task.data = args.data.iter().map(Input::path).collect();
    task.endpoint.clone_from(&args.endpoint);
    if let Some(timeout) = args.timeout {
        task.timeout = timeout;
    }
    if let Some(max_rows) = args.max_rows {
        task.max_rows = max_rows;
    }
    task.gold_from_queries = args.gold_from_queries;
    task.labels = args.labels.as_ref().map(Input::path);
    // The flags switch steps away from the facade's defaults.
    let defaults = Normalisation::default();
    task.normalisation = Normalisation {
        trim: defaults.trim && !args.no_trim,
        boolean_case: defaults.boolean_case && !args.no_boolean_case,
        iri_percent_decoding: defaults.iri_percent_decoding && !args.no_iri_decoding,
        numbers_as_decimals: defaults.numbers_as_decimals && !args.no_number_normalisation,
        date_part: defaults.date_part && !args.no_date_part,
        respect_literal_type: defaults.respect_literal_type || args.respect_literal_type,
    };
    crate::output::refuse_input_as_output(&task.input_paths(), &[("-o", args.out.output.as_deref())])?;
    let evaluation = task.run(&TerminalProgress::new(50))?;
    finish(&evaluation, &args.out)
}
