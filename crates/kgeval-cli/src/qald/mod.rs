//! `kgeval qald`: question answering over linked data.

mod sparql;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context as _};
use clap::{Args, ValueEnum};
use kgeval_formats::qald::{read_label_map_file, read_qald_file, ReadQald};
use kgeval_metrics::qald::{evaluate_qald, unknown_questions, Normalisation, QaldOptions};
use kgeval_model::qald::{QaldDataset, QaldEvaluation, QaldQuery, QaldRule};
use kgeval_model::Diagnostic;
use kgeval_report::render_qald;

use crate::output::{named_path, print_warnings, write_output, OutputArgs};
use crate::Outcome;
use sparql::SparqlBackend;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval qald --gold testdata/qald/qald3/dbpedia-test-answers.xml --system answers.xml
  kgeval qald --gold gold.json --system A=a.json --system B=b.json --rule qald6 --format markdown
  kgeval qald --gold questions.xml --system queries.xml --data dump.ttl.gz --data more.nt
  kgeval qald --gold gold.xml --system sys.xml --endpoint http://localhost:7878/query --timeout 30
  kgeval qald --gold gold.xml --system labels.xml --labels iri-labels.tsv -o result.json --format json";

/// Arguments of `kgeval qald`.
#[derive(Debug, Args)]
#[allow(clippy::struct_excessive_bools)]
pub(crate) struct QaldArgs {
    /// The gold question set (any QALD XML or JSON dialect).
    #[arg(long, short = 'g')]
    gold: PathBuf,
    /// A submission, as PATH or NAME=PATH; repeat for several systems.
    #[arg(long, short = 's', required = true)]
    system: Vec<String>,
    /// What a non-empty gold answered with the empty set scores: qald3 (P 0, R 0), qald6 or
    /// gerbil (P 1, R 0).
    #[arg(long, value_enum, default_value_t = RuleArg::Qald3)]
    rule: RuleArg,
    /// The questions' language (failed-question texts, language breakdown).
    #[arg(long, default_value = "en")]
    lang: String,
    /// RDF files loaded into an embedded store to run queries given without answers
    /// (Turtle, N-Triples, N-Quads, TriG, RDF/XML; `.gz` allowed).
    #[arg(long, num_args = 1.., conflicts_with = "endpoint")]
    data: Vec<PathBuf>,
    /// A SPARQL 1.1 protocol endpoint to run queries given without answers.
    #[arg(long)]
    endpoint: Option<String>,
    /// Seconds before an endpoint request is abandoned.
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    /// Run every gold SPARQL query and use its results as the gold answers.
    #[arg(long)]
    gold_from_queries: bool,
    /// IRI → labels (TSV: IRI, then labels), so a label answer can match a URI gold.
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
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        bail!("--timeout: expected a positive number of seconds, found {}", args.timeout);
    }
    let ReadQald { dataset: mut gold, warnings: gold_warnings } = read(&args.gold, "gold")?;
    let gold_file = args.gold.display().to_string();
    if args.gold_from_queries && args.data.is_empty() && args.endpoint.is_none() {
        bail!("--gold-from-queries: expected --data or --endpoint to run the gold queries on");
    }
    let labels = match &args.labels {
        Some(path) => Some(read_label_map_file(path).context("reading the label map")?),
        None => None,
    };
    let mut submissions = Vec::with_capacity(args.system.len());
    for spec in &args.system {
        let (name, path) = named_path(spec);
        let ReadQald { dataset: system, warnings } = read(&path, "system")?;
        if let Some(q) = unknown_questions(&gold, &system).first() {
            bail!("{}: found question id {:?}, expected an id of the gold {gold_file}", q.location, q.id);
        }
        submissions.push((name, path, system, warnings));
    }
    let backend = if !args.data.is_empty() {
        Some(SparqlBackend::embedded(&args.data)?)
    } else {
        args.endpoint.as_deref().map(|url| SparqlBackend::endpoint(url, Duration::from_secs_f64(args.timeout)))
    };
    if let Some(backend) = &backend {
        execute(&mut gold, backend, args.gold_from_queries)?;
        for (_, _, system, _) in &mut submissions {
            execute(system, backend, false)?;
        }
    }

    let options = QaldOptions {
        rule: rule_of(args.rule),
        normalisation: Normalisation {
            trim: !args.no_trim,
            boolean_case: !args.no_boolean_case,
            iri_percent_decoding: !args.no_iri_decoding,
            numbers_as_decimals: !args.no_number_normalisation,
            date_part: !args.no_date_part,
            respect_literal_type: args.respect_literal_type,
        },
        language: args.lang.clone(),
        labels: labels.as_ref(),
    };
    let queries =
        backend.as_ref().map_or_else(|| "not executed (no --data or --endpoint)".to_owned(), SparqlBackend::describe);
    let evaluations: Vec<QaldEvaluation> = submissions
        .into_iter()
        .map(|(name, _, system, warnings)| {
            let mut evaluation = evaluate_qald(&gold, &system, &name, &options);
            evaluation.conventions.push(("queries".to_owned(), queries.clone()));
            let mut all: Vec<Diagnostic> = gold_warnings.iter().cloned().chain(warnings).collect();
            all.append(&mut evaluation.warnings);
            evaluation.warnings = all;
            evaluation
        })
        .collect();
    for evaluation in &evaluations {
        print_warnings(&format!("system {}", evaluation.system), &evaluation.warnings);
    }
    let rendered = render_qald(&evaluations, args.out.format.into(), &args.out.render_options());
    write_output(args.out.output.as_deref(), &rendered)?;
    Ok(Outcome::Ok)
}

fn read(path: &Path, role: &str) -> anyhow::Result<ReadQald> {
    tracing::info!(path = %path.display(), role, "reading QALD file");
    read_qald_file(path).with_context(|| format!("reading the {role}"))
}

/// Runs the SPARQL query of every question that gives one and no answers (or of every
/// question, with `all`), replacing its answers with the results.
fn execute(dataset: &mut QaldDataset, backend: &SparqlBackend, all: bool) -> anyhow::Result<()> {
    for question in &mut dataset.questions {
        let QaldQuery::Sparql(query) = &question.query else { continue };
        if question.answers.is_some() && !all {
            continue;
        }
        tracing::debug!(location = %question.location, "running the question's query");
        let answers =
            backend.answers(query).with_context(|| format!("{}: question {}", question.location, question.id))?;
        question.answers = Some(answers);
    }
    Ok(())
}

fn rule_of(rule: RuleArg) -> QaldRule {
    match rule {
        RuleArg::Qald3 => QaldRule::Qald3,
        RuleArg::Qald6 => QaldRule::Qald6,
        RuleArg::Gerbil => QaldRule::Gerbil,
    }
}
