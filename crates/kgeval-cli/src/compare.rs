//! `kgeval compare`: flags → [`kgeval::compare::CompareTask`].

use std::path::PathBuf;

use clap::Args;
use kgeval::compare::CompareTask;
use kgeval::kgc::KgcTask;
use kgeval::{Input, RenderOptions, SystemInput};
use kgeval_formats_names::{parse_correction, parse_input_format, parse_missing, parse_tau, parse_test};

use crate::output::{print_scoped_warnings, write_output, FormatArg};
use crate::progress::TerminalProgress;
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval compare --qrels testdata/trec_eval/test/qrels.test --run full=testdata/trec_eval/test/results.test \\
      --run trunc=testdata/trec_eval/test/results.trunc -m map -m P.10 --missing zero
  kgeval compare --test tukey --iterations 1000 --missing drop all=testdata/trec_eval/test/out.test.aq \\
      top=testdata/trec_eval/test/out.test.aqcM -m map -m P_10 --format markdown
  kgeval compare testdata/kgc/kgc-sparsity/result/FB-Test-S/evaluation.csv \\
      --against testdata/kgc/kgc-sparsity/result/FB-Test-S-C/evaluation.csv -m micro_mrr -m macro_mrr
  kgeval compare testdata/kgc/kgc-sparsity/result/FB-Test-S/evaluation.csv \\
      --against testdata/kgc/kgc-sparsity/result/FB-Test-S-C/pooling_depth.csv.gz -m micro_mrr --format csv
  kgeval compare --sensitivity --ratios 0.2,0.5,0.8 --repeats 20 --qrels testdata/trec_eval/test/qrels.test \\
      --run full=testdata/trec_eval/test/results.test --run trunc=testdata/trec_eval/test/results.trunc -m map -m P.10 --missing zero
  kgeval compare --pvalues FB-Test-O=testdata/kgc/kgc-sparsity/result/FB-Test-O/discriminative_power.csv.gz \\
      -m micro_mrr -m macro_mrr

Inputs are told by content (--input-format overrides): kgeval JSON written with --per-item
(any family; one file per system or several systems per file), trec_eval -q output (one file
per run, NAME=PATH or the file stem), a long CSV system,item,metric,value, or a wide
system × metric CSV (kgc-sparsity evaluation.csv, pooling_depth.csv: ranking agreement with
--against only). --qrels with --run evaluates TREC runs in-process (measures as kgeval trec -m).
Defaults: paired t test, Holm correction, alpha 0.05, B = 1000 (bootstrap) or 10000 (fisher,
tukey), seed 42, Kendall tau-b, RBO p = 0.9, a missing value is an error. CSV output is the
p-value matrix (SystemA,SystemB,<metric>..., corrected p-values) or the agreement rows.
--sensitivity subsamples items (ChaCha8, seed --seed; subset k of ratio r on stream r*2^32+k),
recomputes each metric's mean and prints mean ± sd of Kendall tau(subset, full) per ratio; with
--kgc-test, --kgc-filter and --ranks it subsamples test triples, rebuilds the questions and
re-evaluates micro, macro, MAP@20 and nDCG@20 from the per-answer ranks. --pvalues reads published
p-value matrices (one row per system pair) and prints each metric's discriminative power: pairs
with p < alpha and p < 0.01, the area under the descending p-value curve, the median p.";

/// Arguments of `kgeval compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// Score tables, PATH or NAME=PATH (`-` reads stdin; gzip accepted).
    inputs: Vec<String>,
    /// Qrels to evaluate the --run files against (instead of score tables).
    #[arg(long)]
    qrels: Option<PathBuf>,
    /// A TREC run, NAME=PATH or PATH; repeat for each system (needs --qrels).
    #[arg(long = "run", value_name = "NAME=PATH")]
    runs: Vec<String>,
    /// With --qrels: how tied scores are valued, as `kgeval trec --ties` (trec, expected,
    /// optimistic, pessimistic); the per-topic tables compared are that policy's.
    #[arg(long, value_parser = parse_ties)]
    ties: Option<kgeval_model::trec::Ties>,
    /// A metric to compare (canonical name or alias; with --qrels a kgeval trec -m measure);
    /// repeatable. Default: the inputs' headline metrics (with --qrels: trec_eval's official
    /// set).
    #[arg(short = 'm', long = "metric")]
    metrics: Vec<String>,
    /// The paired test: t (default), wilcoxon, bootstrap, fisher, tukey.
    #[arg(long, value_parser = parse_test)]
    test: Option<kgeval::compare::SignificanceTest>,
    /// The multiplicity correction over a metric's pairs: holm (default), bonferroni, none.
    #[arg(long, value_parser = parse_correction)]
    correction: Option<kgeval::compare::Correction>,
    /// The significance level (default 0.05).
    #[arg(long)]
    alpha: Option<f64>,
    /// Iterations B of the randomised test and of the intervals (default 1000 for bootstrap,
    /// 10000 for fisher and tukey).
    #[arg(long, short = 'B')]
    iterations: Option<usize>,
    /// The seed of every random draw (default 42).
    #[arg(long)]
    seed: Option<u64>,
    /// Percentile bootstrap confidence intervals of every system's mean.
    #[arg(long)]
    intervals: bool,
    /// The Kendall tau variant shown: a, b (default), c.
    #[arg(long, value_parser = parse_tau)]
    tau: Option<kgeval::compare::TauVariant>,
    /// Rank-biased overlap's persistence p (default 0.9).
    #[arg(long)]
    rbo_p: Option<f64>,
    /// Another result set: compare the system orderings per metric (and group) instead of
    /// testing significance; PATH or NAME=PATH, repeatable.
    #[arg(long, value_name = "FILE")]
    against: Vec<String>,
    /// A system without a value for an item: error (default), zero, drop (the item).
    #[arg(long, value_parser = parse_missing)]
    missing: Option<kgeval::compare::MissingPolicy>,
    /// The format of every input: per-item-json, trec-eval, long-csv, wide-csv (default: told
    /// by content).
    #[arg(long, value_parser = parse_input_format)]
    input_format: Option<kgeval::compare::MetaInputFormat>,
    /// Data sensitivity instead of significance: Kendall's tau between the system ordering on
    /// random subsets of the items (KGC: of the test triples) and on all of them (the KGC-sparsity study, §5.1).
    #[arg(long)]
    sensitivity: bool,
    /// Subset ratios of --sensitivity, comma-separated (default 0.01,0.05,0.1,0.2,…,0.9,0.95).
    #[arg(long, value_delimiter = ',')]
    ratios: Option<Vec<f64>>,
    /// Random subsets per ratio (default 50).
    #[arg(long)]
    repeats: Option<usize>,
    /// --sensitivity on given subsets: a file with one subset of 0-based item indices per line.
    #[arg(long, value_name = "FILE")]
    subsets: Option<PathBuf>,
    /// KGC sensitivity: the test split whose triples are subsampled (with --ranks).
    #[arg(long, value_name = "FILE")]
    kgc_test: Option<PathBuf>,
    /// KGC sensitivity: a filter split (train, valid); repeatable.
    #[arg(long, value_name = "FILE")]
    kgc_filter: Vec<PathBuf>,
    /// KGC sensitivity: a system's per-answer ranks (`kgeval kgc --ranks` layout), NAME=PATH;
    /// repeat for each system.
    #[arg(long = "ranks", value_name = "NAME=PATH")]
    ranks: Vec<String>,
    /// A published p-value matrix (kgc-sparsity `discriminative_power.csv`: SystemA,SystemB,
    /// one column per metric), NAME=PATH or PATH; repeatable. Prints each metric's
    /// discriminative power at --alpha instead of running a test.
    #[arg(long = "pvalues", value_name = "NAME=PATH")]
    pvalues: Vec<String>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Write the result to this file (atomically) instead of stdout.
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Decimals in text and Markdown output (default 4).
    #[arg(long, value_parser = kgeval_report::parse_precision)]
    precision: Option<usize>,
}

mod kgeval_formats_names {
    //! `value_parser`s over the model's and the facade's `from_name`s (no parallel enum).
    use kgeval::compare::TauVariant;
    use kgeval::compare::{MetaInputFormat, MissingPolicy};
    use kgeval_model::meta::significance::{Correction, SignificanceTest};

    pub(super) fn parse_test(name: &str) -> Result<SignificanceTest, String> {
        SignificanceTest::from_name(name).ok_or_else(|| "expected t, wilcoxon, bootstrap, fisher or tukey".to_owned())
    }

    pub(super) fn parse_correction(name: &str) -> Result<Correction, String> {
        Correction::from_name(name).ok_or_else(|| "expected holm, bonferroni or none".to_owned())
    }

    pub(super) fn parse_tau(name: &str) -> Result<TauVariant, String> {
        TauVariant::from_name(name).ok_or_else(|| "expected a, b or c".to_owned())
    }

    pub(super) fn parse_missing(name: &str) -> Result<MissingPolicy, String> {
        MissingPolicy::from_name(name).ok_or_else(|| "expected error, zero or drop".to_owned())
    }

    pub(super) fn parse_input_format(name: &str) -> Result<MetaInputFormat, String> {
        MetaInputFormat::from_name(name)
            .ok_or_else(|| "expected per-item-json, trec-eval, long-csv or wide-csv".to_owned())
    }
}

/// A flag the comparison would not read (`--test` with `--against`, …) is refused, not ignored.
fn refuse_unread_flags(args: &CompareArgs, task: &CompareTask) -> anyhow::Result<()> {
    let given: Vec<&str> = [
        ("metrics", !args.metrics.is_empty()),
        ("test", args.test.is_some()),
        ("correction", args.correction.is_some()),
        ("alpha", args.alpha.is_some()),
        ("iterations", args.iterations.is_some()),
        ("seed", args.seed.is_some()),
        ("intervals", args.intervals),
        ("tau", args.tau.is_some()),
        ("rbo_p", args.rbo_p.is_some()),
        ("missing", args.missing.is_some()),
        ("input_format", args.input_format.is_some()),
        ("ratios", args.ratios.is_some()),
        ("repeats", args.repeats.is_some()),
    ]
    .into_iter()
    .filter_map(|(key, given)| given.then_some(key))
    .collect();
    let mode = task.mode();
    if let Some(key) = CompareTask::unread_option(mode, &given) {
        let flag = |key: &str| format!("--{}", key.replace('_', "-"));
        anyhow::bail!(
            "{}: found a flag that {} does not read, expected only {}",
            flag(key),
            mode.description(),
            mode.options().iter().map(|k| flag(k)).collect::<Vec<_>>().join(", ")
        );
    }
    Ok(())
}

pub(crate) fn run(args: &CompareArgs) -> anyhow::Result<Outcome> {
    anyhow::ensure!(
        args.format != FormatArg::Tsv,
        "--format tsv: found `kgeval compare`, expected `kgeval trec` (use --format csv)"
    );
    anyhow::ensure!(
        !args.format.is_arrow(),
        "--format parquet|arrow: found `kgeval compare`, expected `kgeval trec` (use --format csv)"
    );
    let mut task = CompareTask::new();
    task.inputs = args.inputs.iter().map(|s| SystemInput::parse(s)).collect();
    task.qrels = args.qrels.as_ref().map(Input::path);
    task.runs = args.runs.iter().map(|s| SystemInput::parse(s)).collect();
    if let Some(ties) = args.ties {
        task.ties = ties;
    }
    task.metrics.clone_from(&args.metrics);
    task.test = args.test.unwrap_or(task.test);
    task.correction = args.correction.unwrap_or(task.correction);
    task.alpha = args.alpha.unwrap_or(task.alpha);
    task.iterations = args.iterations.or(task.iterations);
    task.seed = args.seed.unwrap_or(task.seed);
    task.intervals = args.intervals;
    task.tau = args.tau.unwrap_or(task.tau);
    task.rbo_p = args.rbo_p.unwrap_or(task.rbo_p);
    task.against = args.against.iter().map(|s| SystemInput::parse(s)).collect();
    task.missing = args.missing.unwrap_or(task.missing);
    task.input_format = args.input_format.or(task.input_format);
    task.sensitivity = args.sensitivity;
    if let Some(ratios) = &args.ratios {
        task.ratios.clone_from(ratios);
    }
    task.repeats = args.repeats.unwrap_or(task.repeats);
    task.subsets = args.subsets.as_ref().map(Input::path);
    task.kgc = match &args.kgc_test {
        Some(test) => Some(Box::new(KgcTask {
            filters: args.kgc_filter.iter().map(Input::path).collect(),
            ..KgcTask::new(Input::path(test))
        })),
        None if !args.kgc_filter.is_empty() => anyhow::bail!("--kgc-filter needs --kgc-test"),
        None => None,
    };
    task.ranks = args.ranks.iter().map(|s| SystemInput::parse(s)).collect();
    task.pvalues = args.pvalues.iter().map(|s| SystemInput::parse(s)).collect();
    refuse_unread_flags(args, &task)?;
    crate::output::refuse_input_as_output(&task.input_paths(), &[("-o", args.output.as_deref())])?;
    let evaluation = task.run(&TerminalProgress::new(2))?;
    print_scoped_warnings(&evaluation.warnings);
    let defaults = RenderOptions::default();
    let options = RenderOptions {
        precision: args.precision.unwrap_or(defaults.precision),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        ..defaults
    };
    write_output(args.output.as_deref(), &evaluation.render(args.format.into(), &options))?;
    Ok(Outcome::Ok)
}

fn parse_ties(name: &str) -> Result<kgeval_model::trec::Ties, String> {
    kgeval_model::trec::Ties::from_name(name)
        .ok_or_else(|| "expected one of trec, expected, optimistic, pessimistic, range".to_owned())
}
