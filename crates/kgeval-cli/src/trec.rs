//! `kgeval trec`: flags → [`kgeval::trec::TrecTask`].

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use kgeval::trec::{TrecTask, TOPICS_EVALUATED};
use kgeval::{Input, RenderOptions, SystemInput, TrecTextLines};
use kgeval_model::trec::{TieBreak, Ties};

use crate::output::{print_warnings, render_and_check, FormatArg, OutputArgs};
use crate::progress::TerminalProgress;
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval trec testdata/trec_eval/test/qrels.test testdata/trec_eval/test/results.test
  kgeval trec -m all_trec -q testdata/trec_eval/test/qrels.test testdata/trec_eval/test/results.test
  kgeval trec -c -M100 -m map -m P.5,10 -m ndcg_cut.10 testdata/trec_eval/test/qrels.test \\
      full=testdata/trec_eval/test/results.test trunc=testdata/trec_eval/test/results.trunc
  kgeval trec -m ndcg@10 -m mrr@10 -m recall@100 --format json testdata/trec_eval/test/qrels.test \\
      testdata/trec_eval/test/results.test --fail-under ndcg_cut_10=0.3
  gzip -c testdata/trec_eval/test/results.test | kgeval trec -m map testdata/trec_eval/test/qrels.test -

Text output is trec_eval 10.0's, byte for byte, for every measure of its all_trec set and
their parameters; measure and alias names (ranx, ir_measures) print under trec_eval's
canonical name. With several runs,
each run's block starts with a `# run: NAME` line (NAME=PATH, else the file's stem).
Every summary value is a headline for --fail-under (`map`, `P_10`, `gm_map`, `num_q`…).
Runs and qrels may be Parquet or Arrow IPC tables (by extension: .parquet, .arrow, .feather,
.ipc; else by content: stdin, gzip, any name) with columns qid, docno, score / rel (or query_id, doc_id, score / relevance);
--format parquet|arrow -o FILE writes the rows run, qid, measure, value (summary: qid all).
--format tsv writes the CSV with tabs (trec only).";

/// Arguments of `kgeval trec`.
#[derive(Debug, Args)]
pub(crate) struct TrecArgs {
    /// The qrels: `qid iter docno rel` per line (`-` reads stdin; gzip accepted).
    qrels: PathBuf,
    /// One or more runs, PATH or NAME=PATH: `qid Q0 docno rank score tag` per line; `-`
    /// reads stdin (once), gzip is decompressed.
    #[arg(required = true)]
    runs: Vec<String>,
    /// A measure, trec_eval style (`map`, `P.5,10`, `ndcg.1=3,2=9`, `utility.2,-1,0,0`,
    /// `relstring.20`, `rbp.p=0.95`, `official`, `set`, `all_trec`) or an alias (`ndcg@10`,
    /// `mrr@10`, `precision@10`, `AP`, `R@5`…). Repeatable; default `official`.
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
    /// Relevant iff the judgment is at least this level (trec_eval -l; default 1).
    #[arg(short = 'l', long = "level", allow_negative_numbers = true)]
    level: Option<i64>,
    /// Apply -l to the gain measures too (ndcg, ndcg_cut, ndcg_rel, Rndcg, dcg, G, rbp);
    /// trec_eval ignores it there.
    #[arg(long)]
    ndcg_level: bool,
    /// Only the first N documents of each topic count, after sorting (trec_eval -M).
    #[arg(short = 'M', long = "max-docs")]
    max_docs: Option<usize>,
    /// Order of equal scores (default docno-desc, trec_eval's).
    #[arg(long, value_enum)]
    tie_break: Option<TieBreakArg>,
    /// How measures are valued over tied scores: trec (the --tie-break order, trec_eval's
    /// bytes; default), expected (the exact mean over every order of each tie group),
    /// optimistic, pessimistic, or range (expected, with [pessimistic, optimistic] beside it).
    #[arg(long, value_enum)]
    ties: Option<TiesArg>,
    /// Print the tie report instead of the measures: tie groups and the cutoffs they straddle,
    /// each measure under trec and expected with its [pessimistic, optimistic] interval, and
    /// the topics a tie order moves (text, markdown, json or csv).
    #[arg(long)]
    tie_report: bool,
    /// Output format (text: trec_eval's; json/csv/tsv: full precision with per-topic rows;
    /// markdown: a summary table), -o FILE, --precision (text and Markdown), --per-item, --fail-under.
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TieBreakArg {
    /// Docno descending (trec_eval).
    DocnoDesc,
    /// Docno ascending.
    DocnoAsc,
    /// The run's rank column.
    Rank,
    /// Input order (a stable sort; ranx's sort is unstable and matches none of these).
    Input,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TiesArg {
    /// The --tie-break order (trec_eval's output, byte for byte).
    Trec,
    /// The exact expected value over uniformly random orders of each tie group.
    Expected,
    /// Relevant documents first in every tie group.
    Optimistic,
    /// Relevant documents last in every tie group.
    Pessimistic,
    /// Expected, with the pessimistic and optimistic values beside it.
    Range,
}

pub(crate) fn run(args: &TrecArgs) -> anyhow::Result<Outcome> {
    args.out.check_before_reading("trec")?;
    let mut task = TrecTask::new(Input::path(&args.qrels));
    task.runs = args.runs.iter().map(|r| SystemInput::parse(r)).collect();
    if !args.measures.is_empty() {
        task.measures.clone_from(&args.measures);
    }
    task.complete = args.complete;
    if let Some(level) = args.level {
        task.level = level;
    }
    task.ndcg_level = args.ndcg_level;
    task.max_docs = args.max_docs;
    if let Some(tie_break) = args.tie_break {
        task.tie_break = match tie_break {
            TieBreakArg::DocnoDesc => TieBreak::DocnoDescending,
            TieBreakArg::DocnoAsc => TieBreak::DocnoAscending,
            TieBreakArg::Rank => TieBreak::Rank,
            TieBreakArg::Input => TieBreak::Input,
        };
    }
    if let Some(ties) = args.ties {
        task.ties = match ties {
            TiesArg::Trec => Ties::Trec,
            TiesArg::Expected => Ties::Expected,
            TiesArg::Optimistic => Ties::Optimistic,
            TiesArg::Pessimistic => Ties::Pessimistic,
            TiesArg::Range => Ties::Range,
        };
    }
    crate::output::refuse_input_as_output(&task.input_paths(), &[("-o", args.out.output.as_deref())])?;
    if args.tie_report {
        if args.out.format.is_arrow() {
            anyhow::bail!("--tie-report: found a binary --format, expected text, markdown, json or csv");
        }
        if !args.out.fail_under.is_empty() || args.out.per_item {
            anyhow::bail!("--tie-report: found --fail-under or --per-item, which apply to the measures' output");
        }
        let reports = task.tie_report(&TerminalProgress::new(8))?;
        let format = args.out.format;
        let text = kgeval::trec::render_tie_report(&reports, format.into(), format == FormatArg::Tsv);
        crate::output::write_output(args.out.output.as_deref(), &text)?;
        return Ok(Outcome::Ok);
    }
    let evaluation = task.run(&TerminalProgress::new(8))?;
    // The topic counts are a note for text output (JSON and CSV carry them as fields).
    let text = args.out.format == FormatArg::Text;
    let mut scopes: Vec<&str> = Vec::new();
    for w in &evaluation.warnings {
        if !scopes.contains(&w.scope.as_str()) {
            scopes.push(&w.scope);
        }
    }
    for scope in scopes {
        let (notes, warnings): (Vec<_>, Vec<_>) =
            evaluation.warnings_of(scope).cloned().partition(|d| d.code == TOPICS_EVALUATED);
        print_warnings(scope, &warnings);
        for note in notes.iter().filter(|_| text) {
            let source = note.location.as_ref().map_or("", |l| l.file.as_str());
            eprintln!("note: {source}: {}", note.message);
        }
    }
    let options = RenderOptions {
        trec_lines: TrecTextLines { per_topic: args.per_topic, summary: !args.no_summary },
        ..args.out.render_options()
    };
    render_and_check(&evaluation, &args.out, &options)
}
