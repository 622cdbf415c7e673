//! `kgeval trec`: trec_eval-compatible evaluation of TREC runs against qrels.

use std::path::PathBuf;

use anyhow::{bail, Context as _};
use clap::{Args, ValueEnum};
use kgeval_formats::trec::{read_qrels, RunFile};
use kgeval_metrics::ir::{evaluate_run, record_run_into_table};
use kgeval_model::ir::{IrEvaluation, IrOptions, MeasureRequest, MeasureSet, QuerySet, TieBreak};
use kgeval_model::ScoreTable;
use kgeval_report::{render_ir, IrFormat, RenderOptions, TrecTextLines};

use crate::output::{print_warnings, write_output};
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval trec testdata/trec_eval/qrels.test testdata/trec_eval/results.test
  kgeval trec -m all_trec -q testdata/trec_eval/qrels.test testdata/trec_eval/results.test
  kgeval trec -c -M100 -m map -m P.5,10 -m ndcg_cut.10 qrels run1.gz run2.gz
  kgeval trec -m ndcg@10 -m mrr@10 -m recall@100 --format json qrels run > scores.json
  zcat run.gz | kgeval trec -m map qrels -

Text output is trec_eval's, byte for byte, for the measures both implement; measure and
alias names (ranx, ir_measures) print under trec_eval's canonical name.";

/// Arguments of `kgeval trec`.
#[derive(Debug, Args)]
pub(crate) struct TrecArgs {
    /// The qrels: `qid iter docno rel` per line.
    qrels: PathBuf,
    /// One or more runs: `qid Q0 docno rank score tag` per line; `-` reads stdin, `.gz` is
    /// decompressed.
    #[arg(required = true)]
    runs: Vec<String>,
    /// A measure, trec_eval style (`map`, `P.5,10`, `ndcg.1=3,2=9`, `official`, `all_trec`) or
    /// an alias (`ndcg@10`, `mrr@10`, `precision@10`, `AP`, `R@5`…). Repeatable; default
    /// `official`.
    #[arg(short = 'm', long = "measure")]
    measures: Vec<String>,
    /// Print per-topic lines too.
    #[arg(short = 'q', long = "per-topic")]
    per_topic: bool,
    /// No summary lines.
    #[arg(short = 'n', long = "no-summary")]
    no_summary: bool,
    /// Evaluate every qrels topic; topics the run lacks score 0 (trec_eval -c).
    #[arg(short = 'c', long)]
    complete: bool,
    /// Relevant iff the judgment is at least this level (trec_eval -l).
    #[arg(short = 'l', long = "level", default_value_t = 1, allow_negative_numbers = true)]
    level: i64,
    /// Apply -l to the ndcg measures too (trec_eval ignores it there).
    #[arg(long)]
    ndcg_level: bool,
    /// Only the first N documents of each topic count, after sorting (trec_eval -M).
    #[arg(short = 'M', long = "max-docs")]
    max_docs: Option<usize>,
    /// Order of equal scores.
    #[arg(long, value_enum, default_value_t = TieBreakArg::DocnoDesc)]
    tie_break: TieBreakArg,
    /// Output format: trec_eval text, or full-precision JSON / CSV / TSV with per-topic rows,
    /// or a Markdown summary table.
    #[arg(long, short = 'f', value_enum, default_value_t = TrecFormatArg::Text)]
    format: TrecFormatArg,
    /// Write the result to this file (atomically) instead of stdout.
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Decimals in Markdown output (text output is trec_eval's 4).
    #[arg(long, default_value_t = 4)]
    precision: usize,
    /// Include the per-item score table in JSON (`per_item`).
    #[arg(long)]
    per_item: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TieBreakArg {
    /// Docno descending (trec_eval).
    DocnoDesc,
    /// Docno ascending.
    DocnoAsc,
    /// The run's rank column.
    Rank,
    /// Input order (ranx).
    Input,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TrecFormatArg {
    Text,
    Json,
    Csv,
    Tsv,
    Markdown,
}

pub(crate) fn run(args: &TrecArgs) -> anyhow::Result<Outcome> {
    let requests =
        args.measures.iter().map(|m| MeasureRequest::parse(m)).collect::<Result<Vec<_>, _>>().context("in -m")?;
    let measures = MeasureSet::from_requests(&requests);
    let options = IrOptions {
        tie_break: match args.tie_break {
            TieBreakArg::DocnoDesc => TieBreak::DocnoDescending,
            TieBreakArg::DocnoAsc => TieBreak::DocnoAscending,
            TieBreakArg::Rank => TieBreak::Rank,
            TieBreakArg::Input => TieBreak::Input,
        },
        query_set: if args.complete { QuerySet::Complete } else { QuerySet::Intersection },
        relevance_level: args.level,
        ndcg_uses_level: args.ndcg_level,
        max_docs: args.max_docs,
    };
    if args.runs.iter().filter(|r| r.as_str() == "-").count() > 1 {
        bail!("stdin (-) can be read only once");
    }
    let qrels_name = args.qrels.display().to_string();
    // The qrels and the first run are read at the same time (both cores).
    let (qrels, first_run) = rayon::join(|| read_qrels(&qrels_name), || RunFile::open(&args.runs[0]));
    let (qrels, warnings) = qrels?;
    print_warnings(&format!("qrels {qrels_name}"), &warnings);
    let mut first_run = Some(first_run?);
    let format = match args.format {
        TrecFormatArg::Text => IrFormat::TrecEval,
        TrecFormatArg::Json => IrFormat::Json,
        TrecFormatArg::Csv => IrFormat::Csv,
        TrecFormatArg::Tsv => IrFormat::Tsv,
        TrecFormatArg::Markdown => IrFormat::Markdown,
    };
    let mut table = ScoreTable::new();
    let mut evaluation = IrEvaluation { qrels_source: qrels_name.clone(), options, measures, runs: Vec::new() };
    for path in &args.runs {
        let run = match first_run.take() {
            Some(run) => run,
            None => RunFile::open(path)?,
        };
        let mut result = evaluate_run(&qrels, &run, &evaluation.measures, &evaluation.options)?;
        if result.topics.is_empty() {
            bail!(
                "{path}: no topic in common with {qrels_name} ({} run topics, {} qrels topics; -c scores every qrels topic)",
                run_topic_count(&result),
                qrels.len()
            );
        }
        result.source.clone_from(path);
        if format == IrFormat::TrecEval {
            eprintln!(
                "note: {path}: {} topics evaluated ({}); {} qrels topics without run lines; {} run topics without qrels; {} topics with tied scores",
                result.topics.len(),
                evaluation.options.query_set.name(),
                result.qrels_topics_missing_from_run.len(),
                result.run_topics_missing_from_qrels.len(),
                result.topics_with_tied_scores,
            );
        }
        let system = table.system(path);
        record_run_into_table(&mut table, system, &result, &evaluation.measures);
        evaluation.runs.push(result);
    }
    let render = RenderOptions {
        precision: args.precision,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        per_item: args.per_item,
    };
    let lines = TrecTextLines { per_topic: args.per_topic, summary: !args.no_summary };
    write_output(args.output.as_deref(), &render_ir(&evaluation, format, lines, &render, &table))?;
    Ok(Outcome::Ok)
}

fn run_topic_count(result: &kgeval_model::ir::RunEvaluation) -> usize {
    result.run_topics_missing_from_qrels.len() + result.topics.len()
}
