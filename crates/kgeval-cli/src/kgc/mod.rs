//! `kgeval kgc`: flags → [`kgeval::kgc::KgcTask`].

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use kgeval::kgc::{KgcTask, RelationWeights};
use kgeval::{Input, SystemInput};
use kgeval_model::ranking::{NanPolicy, TiePolicy, Tolerance};

use crate::output::{finish, finish_with, write_atomically, OutputArgs};
use crate::progress::TerminalProgress;
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval kgc --test testdata/kgc/mini/test.txt --filter testdata/kgc/mini/train.txt \\
      --ranks testdata/kgc/mini/ranks.tsv
  kgeval kgc --test testdata/kgc/mini/test.txt --filter testdata/kgc/mini/train.txt \\
      --entities testdata/kgc/mini/entities.txt --scores TransE=testdata/kgc/mini/scores.npy \\
      --questions testdata/kgc/mini/questions.txt --ties rounded-mean --nan worst --format json
  kgeval kgc --test testdata/kgc/mini/test.txt --filter testdata/kgc/mini/train.txt \\
      --run testdata/kgc/mini/run.txt --queries testdata/kgc/mini/questions.txt \\
      --judgments testdata/kgc/mini/judgments.txt
  kgeval kgc --test testdata/kgc/mini/test.txt --filter testdata/kgc/mini/train.txt --write-questions -
  kgeval kgc --test testdata/kgc/fb15k-237/test.txt.gz --filter testdata/kgc/fb15k-237/train.txt.gz \\
      --filter testdata/kgc/fb15k-237/valid.txt.gz --ranks popularity=testdata/kgc/baseline/popularity-ranks.tsv.gz \\
      --relation-weights triples:testdata/kgc/kgc-sparsity/data/FB-Test-S/samples.txt --fail-under macro_mrr=0.3

Rank files (--ranks): `# filter: train valid test`, then a header
`head relation tail side rank [n_greater n_equal num_candidates]` (tab-separated), one line per
test triple and side. A system input (--ranks, --scores or --run) is PATH or NAME=PATH; its
name defaults to the file stem without `.gz`. Repeat them to evaluate several systems side by
side on the same splits (read once), e.g. --scores TransE=a.npy --scores RotatE=b.npy.";

/// Arguments of `kgeval kgc`.
#[derive(Debug, Args)]
pub(crate) struct KgcArgs {
    /// The evaluated split: `head<TAB>relation<TAB>tail` lines (gzip accepted; `-` reads stdin).
    #[arg(long)]
    test: PathBuf,
    /// A split whose triples are known answers (train, valid), removed from every ranking;
    /// repeat for several. The test split is added for micro metrics.
    #[arg(long)]
    filter: Vec<PathBuf>,
    /// The entity list, one per line (the columns of --scores). Default: every entity of the
    /// triple files.
    #[arg(long)]
    entities: Option<PathBuf>,
    /// Per-answer ranks (see below), as PATH or NAME=PATH (`-` reads stdin); repeat for
    /// several systems side by side.
    #[arg(long, value_name = "[NAME=]PATH")]
    ranks: Vec<String>,
    /// A dense score matrix `.npy` (float64, float32 or float16, each compared in its own
    /// precision; C or Fortran order; a file): one row per line of --questions, one column per
    /// entity of --entities. PATH or NAME=PATH; repeat for several systems side by side.
    #[arg(long, requires_all = ["questions", "entities"], value_name = "[NAME=]PATH")]
    scores: Vec<String>,
    /// The questions of the --scores rows: `qid<TAB>entity<TAB>relation` (kgc-sparsity
    /// `trec_queries.txt`; see --write-questions).
    #[arg(long, requires = "scores")]
    questions: Option<PathBuf>,
    /// A TREC top-k run over the aggregated questions (`qid Q0 entity rank score tag`; gzip
    /// accepted; `-` reads stdin), as PATH or NAME=PATH; ranked as trec_eval ranks (score
    /// descending, then docno descending); repeat for several systems side by side.
    #[arg(long, requires = "queries", value_name = "[NAME=]PATH")]
    run: Vec<String>,
    /// The questions of the --run qids: `qid<TAB>entity<TAB>relation`.
    #[arg(long, requires = "run")]
    queries: Option<PathBuf>,
    /// Write the test split's questions (kgc-sparsity ids and layout) to this file (`-`:
    /// stdout).
    #[arg(long)]
    write_questions: Option<PathBuf>,
    /// Deprecated: the system name; give NAME=PATH to --ranks, --scores or --run instead.
    #[arg(long, hide = true)]
    system: Option<String>,
    /// The rank inside a score tie: optimistic, pessimistic, realistic (the mean rank; PyKEEN's
    /// default; the default), expected (the rank uniform over the tied places: MRR and Hits@k
    /// are their expectations, not those of the mean rank) or rounded-mean (LibKGE).
    #[arg(long, value_parser = parse_ties)]
    ties: Option<TiePolicy>,
    /// Scores tie when |s − t| ≤ atol + rtol·|t| (LibKGE's isclose), given as `atol,rtol`.
    /// Default: exact ties, except 1e-5,1e-4 under rounded-mean.
    #[arg(long, value_parser = parse_tolerance)]
    tie_tolerance: Option<Tolerance>,
    /// NaN scores: error (the default), or worst (ranked below everything, not counted as
    /// candidates).
    #[arg(long, value_parser = parse_nan)]
    nan: Option<NanPolicy>,
    /// Cut-offs of Hits@k, comma-separated (default 1,3,10).
    #[arg(long, value_delimiter = ',')]
    k: Option<Vec<u32>>,
    /// Relation weights of the weighted micro metrics: `uniform`, `triples:FILE` (the number
    /// of triples per relation in FILE, e.g. another test set) or FILE (`relation<TAB>weight`).
    #[arg(long)]
    relation_weights: Option<String>,
    /// Triple files the relation categories are counted on (default: the first --filter).
    #[arg(long)]
    categories_from: Vec<PathBuf>,
    /// A side is "many" iff its average exceeds this (default 1.5).
    #[arg(long)]
    category_threshold: Option<f64>,
    /// "many" iff the average reaches the threshold (≥ instead of >).
    #[arg(long)]
    category_inclusive: bool,
    /// Judgments `s p o {Y,N}` as the qrels of the IR measures (judged negatives kept).
    #[arg(long)]
    judgments: Option<PathBuf>,
    /// Pool depths `s p o depth` (kgc-sparsity `pooling_depth.txt`): with --max-depth, only
    /// the judgments of pooled triples up to that depth count (the depth series of the KGC-sparsity study).
    #[arg(long, requires_all = ["judgments", "max_depth"])]
    pool_depths: Option<PathBuf>,
    /// The pool depth of the series point (judged triples outside the pool always count).
    #[arg(long, requires = "pool_depths")]
    max_depth: Option<u32>,
    /// trec_eval measures of the macro IR list, comma-separated (default
    /// map_cut.20,ndcg_cut.20).
    #[arg(long, value_delimiter = ',')]
    ir_measures: Option<Vec<String>>,
    #[command(flatten)]
    out: OutputArgs,
}

fn parse_ties(name: &str) -> Result<TiePolicy, String> {
    KgcTask::tie_policy(name)
        .ok_or_else(|| "expected one of optimistic, pessimistic, realistic, expected, rounded-mean".to_owned())
}

fn parse_tolerance(text: &str) -> Result<Tolerance, String> {
    Tolerance::parse(text).ok_or_else(|| "expected `atol,rtol`, two finite numbers ≥ 0".to_owned())
}

fn parse_nan(name: &str) -> Result<NanPolicy, String> {
    NanPolicy::from_name(name).ok_or_else(|| "expected error or worst".to_owned())
}

fn task(args: &KgcArgs) -> anyhow::Result<KgcTask> {
    let given = args.ranks.len() + args.scores.len() + args.run.len();
    if args.system.is_some() && given > 1 {
        anyhow::bail!("--system: found {given} system inputs, expected one (give NAME=PATH to each instead)");
    }
    let system = |specs: &[String]| -> Vec<SystemInput> {
        specs
            .iter()
            .map(|spec| {
                let mut input = SystemInput::parse(spec);
                if let Some(name) = &args.system {
                    input.name = Some(name.clone());
                }
                input
            })
            .collect()
    };
    let input = |path: &Option<PathBuf>| path.as_ref().map(Input::path);
    let mut task = KgcTask::new(Input::path(&args.test));
    task.filters = args.filter.iter().map(Input::path).collect();
    task.entities = input(&args.entities);
    task.ranks = system(&args.ranks);
    task.scores = system(&args.scores);
    task.questions = input(&args.questions);
    task.run = system(&args.run);
    task.queries = input(&args.queries);
    if let Some(ties) = args.ties {
        task.ties = ties;
    }
    task.tie_tolerance = args.tie_tolerance;
    if let Some(nan) = args.nan {
        task.nan = nan;
    }
    if let Some(k) = &args.k {
        task.k.clone_from(k);
    }
    task.relation_weights = args.relation_weights.as_deref().map(RelationWeights::parse);
    task.categories_from = args.categories_from.iter().map(Input::path).collect();
    if let Some(threshold) = args.category_threshold {
        task.category_threshold = threshold;
    }
    task.category_inclusive = args.category_inclusive;
    task.judgments = input(&args.judgments);
    task.pool_depths = input(&args.pool_depths);
    task.max_depth = args.max_depth;
    if let Some(measures) = &args.ir_measures {
        task.ir_measures.clone_from(measures);
    }
    task.per_item = args.out.per_item;
    Ok(task)
}

pub(crate) fn run(args: &KgcArgs) -> anyhow::Result<Outcome> {
    args.out.check_before_reading("kgc")?;
    let task = task(args)?;
    crate::output::refuse_input_as_output(
        &task.input_paths(),
        &[("-o", args.out.output.as_deref()), ("--write-questions", args.write_questions.as_deref())],
    )?;
    // The question list is written only when everything else succeeded (nothing written on
    // failure), from the same read of the splits as the evaluation.
    let Some(path) = &args.write_questions else {
        return finish(&task.run(&TerminalProgress::new(64))?, &args.out);
    };
    if !task.has_system() {
        return write_questions(path, &task.questions_text()?).map(|()| Outcome::Ok);
    }
    let (evaluation, questions) = task.run_with_questions(&TerminalProgress::new(64))?;
    if path.as_os_str() == "-" {
        write_questions(path, &questions)?;
        return finish(&evaluation, &args.out);
    }
    // The question list and -o are written together or not at all.
    finish_with(&evaluation, &args.out, &[(path.as_path(), questions.as_bytes())])
}

/// `--write-questions`: to stdout for `-`, else atomically to the file.
fn write_questions(path: &Path, text: &str) -> anyhow::Result<()> {
    if path.as_os_str() == "-" {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(text.as_bytes())?;
        stdout.flush()?;
        return Ok(());
    }
    write_atomically(path, text.as_bytes())
}
