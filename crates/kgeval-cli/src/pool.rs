//! `kgeval pool`: flags → [`kgeval::pool::PoolTask`] (`build`, `ingest`, `series`).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use kgeval::pool::{PoolAction, PoolOutcome, PoolResult, PoolTask};
use kgeval::{Input, SystemInput};

use crate::output::{print_scoped_warnings, write_all_atomically, write_output, FormatArg};
use crate::progress::TerminalProgress;
use crate::Outcome;

// Each subcommand's examples and description, as literals `concat!` can join: `kgeval pool
// --help` shows them all, `kgeval pool build --help` its own.
macro_rules! build_examples {
    () => {
        "  kgeval pool build --depth 2 --run A=testdata/trec_eval/test/results.test \\
      --run B=testdata/trec_eval/test/results.trunc --qrels testdata/trec_eval/test/qrels.test -o template.txt
  kgeval pool build --depth 3 --test testdata/kgc/mini/test.txt --filter testdata/kgc/mini/train.txt \\
      --queries testdata/kgc/mini/questions.txt --run mini=testdata/kgc/mini/run.txt \\
      --judgments testdata/kgc/mini/judgments.txt -o pooling_depth.txt --annotations annotations.txt
"
    };
}
macro_rules! build_text {
    () => {
        "build: the depth-d pool (default d = 10) of the runs: per question, the union of every run's
top d (trec_eval's order: score descending, docno descending), each item with the smallest
depth at which a run ranks it, minus what is already judged (--qrels for TREC runs,
--judgments for KGC runs). KGC runs (--queries maps qids to questions) are ranked after
removing each question's known answers (--test and --filter triples: the filtered ranking).
--trivial-filter marks head questions on 1-1 / 1-N relations and tail questions on 1-1 / N-1
relations negative (categories as `kgeval kgc` counts them, on the first --filter or
--categories-from). Output (-o, written atomically, nothing on failure):
  KGC:  head<TAB>relation<TAB>tail<TAB>depth     (kgc-sparsity pooling_depth.txt; every pooled
        triple once, the trivial-triple filter's too); --annotations FILE writes
        head<TAB>relation<TAB>tail<TAB>LABEL with LABEL empty (to fill with Y or N) or N (trivial)
  TREC: qid<TAB>0<TAB>docno<TAB><TAB>depth       (a qrels line with an empty relevance field,
        then the depth)
"
    };
}
macro_rules! ingest_examples {
    () => {
        "  kgeval pool ingest --judgments testdata/kgc/kgc-sparsity/data/FB-Test-S-C/annotations.txt.gz \\
      --pool-depths testdata/kgc/kgc-sparsity/data/FB-Test-S-C/supplementary/pooling_depth.txt.gz
"
    };
}
macro_rules! ingest_text {
    () => {
        "ingest: completed judgments (`s p o {Y,N}`) and the pool depths (`s p o depth`) → judged items
and positives per depth, and the running total.
"
    };
}
macro_rules! series_examples {
    () => {
        "  kgeval pool series --test testdata/kgc/mini/test.txt --filter testdata/kgc/mini/train.txt \\
      --queries testdata/kgc/mini/questions.txt --run mini=testdata/kgc/mini/run.txt \\
      --judgments testdata/kgc/mini/judgments.txt --pool-depths testdata/kgc/mini/pool_depths.txt -f csv
"
    };
}
macro_rules! series_text {
    () => {
        "series: every run (and --scores matrix) evaluated as `kgeval kgc` at depths 0..=D (default: the
largest pool depth): the test split of depth d is --test plus the pooled triples judged Y with
depth ≤ d; a run's IR qrels are the judgments up to depth d. Rank files are not accepted: their
ranks were filtered with one test split's answers. CSV is kgc-sparsity's pooling_depth.csv
(System,Depth,metrics…); text and JSON add Kendall's tau-b of each depth's system ordering
against depth 0 (or --against FILE)."
    };
}

/// `kgeval pool --help`: every subcommand's examples and description.
pub(crate) const EXAMPLES: &str = concat!(
    "Examples:\n",
    ingest_examples!(),
    build_examples!(),
    series_examples!(),
    "\n",
    build_text!(),
    ingest_text!(),
    series_text!()
);
/// `kgeval pool build --help`.
const BUILD_EXAMPLES: &str = concat!("Examples:\n", build_examples!(), "\n", build_text!());
/// `kgeval pool ingest --help`.
const INGEST_EXAMPLES: &str = concat!("Examples:\n", ingest_examples!(), "\n", ingest_text!());
/// `kgeval pool series --help`.
const SERIES_EXAMPLES: &str = concat!("Examples:\n", series_examples!(), "\n", series_text!());

/// Arguments of `kgeval pool`.
#[derive(Debug, Args)]
pub(crate) struct PoolArgs {
    #[command(subcommand)]
    action: PoolCommand,
}

#[derive(Debug, Subcommand)]
enum PoolCommand {
    /// Build the depth-d pool of several runs and write its judgment template.
    #[command(after_help = BUILD_EXAMPLES)]
    Build(BuildArgs),
    /// Count the positives completed judgments add per pool depth.
    #[command(after_help = INGEST_EXAMPLES)]
    Ingest(IngestArgs),
    /// Evaluate KGC runs at pool depths 0..=D (pooling_depth.csv) with Kendall's tau per depth.
    #[command(after_help = SERIES_EXAMPLES)]
    Series(SeriesArgs),
}

/// The output flags of `kgeval pool`.
#[derive(Debug, Args)]
struct PoolOutputArgs {
    /// Output format (build text: the template; layouts below).
    #[arg(long, short = 'f', value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Write the result to this file (atomically) instead of stdout.
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Decimals in text and Markdown output (default 4).
    #[arg(long, value_parser = kgeval_report::parse_precision)]
    precision: Option<usize>,
}

#[derive(Debug, Args)]
struct BuildArgs {
    /// A run, PATH or NAME=PATH (`qid Q0 docno rank score tag`; gzip accepted). Repeatable.
    #[arg(long = "run", required = true, value_name = "[NAME=]PATH")]
    runs: Vec<String>,
    /// The pool depth d: every run's top d per question (default 10).
    #[arg(long)]
    depth: Option<u32>,
    /// TREC qrels: documents already judged are not pooled again.
    #[arg(long, conflicts_with = "queries")]
    qrels: Option<PathBuf>,
    /// The questions of KGC runs (`qid<TAB>entity<TAB>relation`): the runs are KGC runs.
    #[arg(long, requires = "test")]
    queries: Option<PathBuf>,
    /// KGC: the test split (its answers are known, never pooled).
    #[arg(long)]
    test: Option<PathBuf>,
    /// KGC: a split whose triples are known answers (train, valid). Repeatable.
    #[arg(long)]
    filter: Vec<PathBuf>,
    /// KGC: judgments `s p o {Y,N}` already made; their triples are not pooled again.
    #[arg(long)]
    judgments: Option<PathBuf>,
    /// KGC: mark head questions on 1-1 / 1-N and tail questions on 1-1 / N-1 relations negative.
    #[arg(long)]
    trivial_filter: bool,
    /// KGC: triple files the relation categories are counted on (default: the first --filter).
    #[arg(long)]
    categories_from: Vec<PathBuf>,
    /// KGC: a side is "many" iff its average exceeds this (default 1.5).
    #[arg(long)]
    category_threshold: Option<f64>,
    /// KGC: also write the annotation template here (`s p o` + empty label, or N), atomically.
    #[arg(long, requires = "queries")]
    annotations: Option<PathBuf>,
    #[command(flatten)]
    out: PoolOutputArgs,
}

#[derive(Debug, Args)]
struct IngestArgs {
    /// Completed judgments `s p o {Y,N}` (blank = N with a warning).
    #[arg(long)]
    judgments: PathBuf,
    /// The pool depths `s p o depth` (`pool build` output, kgc-sparsity pooling_depth.txt).
    #[arg(long)]
    pool_depths: PathBuf,
    /// The largest depth reported (default: the largest of --pool-depths).
    #[arg(long)]
    max_depth: Option<u32>,
    #[command(flatten)]
    out: PoolOutputArgs,
}

#[derive(Debug, Args)]
struct SeriesArgs {
    /// The original test split.
    #[arg(long)]
    test: PathBuf,
    /// Filter splits (train, valid). Repeatable.
    #[arg(long)]
    filter: Vec<PathBuf>,
    /// The questions of the runs' qids (kgc-sparsity trec_queries.txt of the complete split).
    #[arg(long)]
    queries: PathBuf,
    /// A system's KGC run, PATH or NAME=PATH. Repeatable.
    #[arg(long = "run", required_unless_present = "scores", value_name = "[NAME=]PATH")]
    runs: Vec<String>,
    /// A system's dense score matrix `.npy` (a file), one row per line of --queries, one
    /// column per entity of --entities; PATH or NAME=PATH. Repeatable.
    #[arg(long = "scores", requires = "entities", value_name = "[NAME=]PATH")]
    scores: Vec<String>,
    /// The entity list (the columns of --scores).
    #[arg(long)]
    entities: Option<PathBuf>,
    /// Completed judgments `s p o {Y,N}`.
    #[arg(long)]
    judgments: PathBuf,
    /// The pool depths `s p o depth`.
    #[arg(long)]
    pool_depths: PathBuf,
    /// The deepest point D of the series (default: the largest of --pool-depths).
    #[arg(long)]
    max_depth: Option<u32>,
    /// A trec_eval measure of the IR list (repeatable; default `kgeval kgc`'s).
    #[arg(long = "ir-measure", short = 'm')]
    ir_measures: Vec<String>,
    /// The reference ordering of the Kendall table: a wide system × metric CSV (kgc-sparsity
    /// evaluation.csv; with a Depth column, depth d is compared with its depth d). Default:
    /// the series' own depth 0.
    #[arg(long)]
    against: Option<PathBuf>,
    #[command(flatten)]
    out: PoolOutputArgs,
}

fn path(p: &PathBuf) -> Input {
    Input::path(p)
}

pub(crate) fn run(args: &PoolArgs) -> anyhow::Result<Outcome> {
    let (task, out, annotations) = match &args.action {
        PoolCommand::Build(a) => {
            let mut task = PoolTask::new(PoolAction::Build);
            task.runs = a.runs.iter().map(|r| SystemInput::parse(r)).collect();
            task.depth = a.depth;
            task.qrels = a.qrels.as_ref().map(path);
            task.queries = a.queries.as_ref().map(path);
            task.test = a.test.as_ref().map(path);
            task.filters = a.filter.iter().map(path).collect();
            task.judgments = a.judgments.as_ref().map(path);
            task.trivial_filter = a.trivial_filter;
            task.categories_from = a.categories_from.iter().map(path).collect();
            if let Some(threshold) = a.category_threshold {
                task.category_threshold = threshold;
            }
            (task, &a.out, a.annotations.as_ref())
        }
        PoolCommand::Ingest(a) => {
            let mut task = PoolTask::new(PoolAction::Ingest);
            task.judgments = Some(path(&a.judgments));
            task.pool_depths = Some(path(&a.pool_depths));
            task.depth = a.max_depth;
            (task, &a.out, None)
        }
        PoolCommand::Series(a) => {
            let mut task = PoolTask::new(PoolAction::Series);
            task.test = Some(path(&a.test));
            task.filters = a.filter.iter().map(path).collect();
            task.queries = Some(path(&a.queries));
            task.runs = a.runs.iter().map(|r| SystemInput::parse(r)).collect();
            task.scores = a.scores.iter().map(|r| SystemInput::parse(r)).collect();
            task.entities = a.entities.as_ref().map(path);
            task.judgments = Some(path(&a.judgments));
            task.pool_depths = Some(path(&a.pool_depths));
            task.depth = a.max_depth;
            task.against = a.against.as_ref().map(path);
            if !a.ir_measures.is_empty() {
                task.ir_measures = Some(a.ir_measures.clone());
            }
            (task, &a.out, None)
        }
    };
    if out.format == FormatArg::Tsv {
        anyhow::bail!("--format tsv: found `kgeval pool`, expected `kgeval trec` (use --format csv)");
    }
    if out.format.is_arrow() {
        anyhow::bail!("--format parquet|arrow: found `kgeval pool`, expected `kgeval trec` (use --format csv)");
    }
    crate::output::refuse_input_as_output(
        &task.input_paths(),
        &[("-o", out.output.as_deref()), ("--annotations", annotations.map(PathBuf::as_path))],
    )?;
    let outcome = task.run(&TerminalProgress::new(4))?;
    finish(&outcome, out, annotations)
}

/// Warnings and the build note on stderr, then the files: everything is rendered before
/// anything is written.
fn finish(outcome: &PoolOutcome, out: &PoolOutputArgs, annotations: Option<&PathBuf>) -> anyhow::Result<Outcome> {
    print_scoped_warnings(&outcome.warnings);
    if let PoolResult::Build { built, .. } = &outcome.result {
        let c = &built.pool.counts;
        eprintln!(
            "note: pool of depth {} over {} run(s) and {} question(s): {} item(s) to judge, {} already judged, {} known answer(s) skipped, {} auto-negative",
            built.pool.depth,
            built.pool.runs.len(),
            built.pool.questions.len(),
            built.pool.items.len(),
            c.judged,
            c.known,
            c.auto_negative
        );
    }
    let defaults = kgeval::RenderOptions::default();
    let options = kgeval::RenderOptions {
        precision: out.precision.unwrap_or(defaults.precision),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        ..defaults
    };
    let rendered = outcome.render(out.format.into(), &options);
    let template = annotations.map(|p| (p, outcome.annotation_template().unwrap_or_default()));
    // The annotation template and -o are written together or not at all.
    let mut files: Vec<(&std::path::Path, &[u8])> = Vec::new();
    if let Some((p, text)) = &template {
        files.push((p.as_path(), text.as_bytes()));
    }
    if let Some(path) = out.output.as_deref() {
        files.push((path, rendered.as_bytes()));
    }
    write_all_atomically(&files)?;
    if out.output.is_none() {
        write_output(None, &rendered)?;
    }
    Ok(Outcome::Ok)
}
