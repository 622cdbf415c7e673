//! `kgeval rank`: flags → [`kgeval::rank::RankTask`] (local ranking with NIL abstention: DISO
//! Task 2, Bio-ML, DeepOnto, OntoAligner, Bio-LLM).

use std::path::{Path, PathBuf};

use clap::Args;
use kgeval::rank::{parse_tau_grid, RankPair, RankTask};
use kgeval::{Input, SystemInput};
use kgeval_model::rank::results::RankingProfile;
use kgeval_model::ranking::TiePolicy;

use crate::output::{finish, OutputArgs};
use crate::progress::TerminalProgress;
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval rank --pools testdata/ranking/diso-oaei/pools/uco-stix/pools.jsonl \\
      --gold testdata/ranking/diso-synthetic/uco-stix/gold.tsv \\
      --system lexical=testdata/ranking/diso-synthetic/uco-stix/lexical.jsonl
  kgeval rank --manifest testdata/ranking/diso-synthetic/task2.toml --format json --sweep-tau
  kgeval rank --profile bioml --gold testdata/ranking/oaei-bioml-eval-contract/equivalence-local-gold.tsv \\
      --system testdata/ranking/oaei-bioml-eval-contract/equivalence-local-submission.tsv --fail-under mrr=0.7
  kgeval rank --profile biollm --system testdata/ranking/bioml-biollm/biollm_result.tsv --threshold 0.65
  kgeval rank --profile ontoaligner --gold testdata/ranking/oaei-bioml-eval-contract/equivalence-local-gold.tsv \\
      --system testdata/ranking/oaei-bioml-eval-contract/equivalence-local-gold.tsv --k 1,2";

/// Arguments of `kgeval rank`.
#[derive(Debug, Args)]
pub(crate) struct RankArgs {
    /// The candidate pools (DISO `pools.jsonl`; `-` reads stdin, gzip accepted).
    #[arg(long, conflicts_with = "manifest")]
    pools: Option<PathBuf>,
    /// The gold key: TSV `qid<TAB>gold` or JSONL `{"qid", "gold"}` (OntoAligner: the references).
    /// Optional when the submission carries its gold (Bio-ML `SrcEntity, TgtEntity, TgtCandidates`).
    #[arg(long, conflicts_with = "manifest")]
    gold: Option<PathBuf>,
    /// The system's submission, as PATH or NAME=PATH (the system is named NAME, else the file
    /// stem): JSONL rankings or scores, TSV `qid IRI score`, or a Bio-ML TSV layout.
    #[arg(long, short = 's', value_name = "NAME=PATH|PATH", conflicts_with = "manifest")]
    #[arg(required_unless_present_any = ["manifest", "submission"])]
    system: Option<String>,
    /// The submission as a plain PATH (same as --system PATH).
    #[arg(long, conflicts_with_all = ["manifest", "system"])]
    submission: Option<PathBuf>,
    /// The system's name printed with the results (overrides NAME= and the manifest's `system`).
    #[arg(long)]
    name: Option<String>,
    /// The pair name (default: the pools' folder name, else the submission's file stem).
    #[arg(long, conflicts_with = "manifest")]
    pair: Option<String>,
    /// A manifest (TOML) with several `[[pair]]` tables: per-pair blocks and MACRO.
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// Conventions of a reference scorer: diso (default), bioml, deeponto, ontoaligner, biollm.
    #[arg(long, value_parser = parse_profile)]
    profile: Option<RankingProfile>,
    /// How equal scores are ordered (default: the profile's): stable, lexicographic, trec-eval
    /// (or trec, as `kgeval trec --ties` says it),
    /// optimistic, pessimistic, realistic (the mean rank of the tie), expected (the rank uniform
    /// over the tied places: reciprocal rank and hits are expectations), rounded-mean.
    #[arg(long, value_parser = parse_ties)]
    ties: Option<TiePolicy>,
    /// The confidence given to NIL in scored submissions (default: diso 0.5; 0.5 when sweeping).
    #[arg(long)]
    tau: Option<f64>,
    /// Cut-offs of Hits@k, comma-separated (default: the profile's).
    #[arg(long, value_delimiter = ',')]
    k: Vec<u32>,
    /// The NIL IRI (default: DISO's, <https://oaei.ontologymatching.org/2026/diso/NIL>).
    #[arg(long)]
    nil: Option<String>,
    /// The declared pool size (default: diso 50, else unchecked); 0 turns the check off.
    #[arg(long)]
    pool_size: Option<usize>,
    /// Score queries missing from the submission 0 instead of failing.
    #[arg(long)]
    allow_missing: bool,
    /// Append pool candidates missing from a ranking, in pool order, instead of failing.
    #[arg(long)]
    repair: bool,
    /// Sweep tau over 0, 0.05, …, 1 (or --tau-grid) and flag the oracle tau.
    #[arg(long)]
    sweep_tau: bool,
    /// The tau grid as START:STOP:STEP (implies --sweep-tau).
    #[arg(long, value_name = "START:STOP:STEP")]
    tau_grid: Option<String>,
    /// Bio-LLM answer threshold: a candidate is predicted when its answer is True and its score
    /// ≥ this (default 0).
    #[arg(long)]
    threshold: Option<f64>,
    /// Bio-ML 2026 BLOCK form: this many rows per query (default: runs of equal SrcEntity).
    #[arg(long)]
    block_size: Option<usize>,
    /// β of OntoAligner's F-score (default 1).
    #[arg(long)]
    beta: Option<f64>,
    #[command(flatten)]
    out: OutputArgs,
}

pub(crate) fn run(args: &RankArgs) -> anyhow::Result<Outcome> {
    args.out.check_before_reading("rank")?;
    let task = task(args)?;
    crate::output::refuse_input_as_output(&task.input_paths(), &[("-o", args.out.output.as_deref())])?;
    let evaluation = task.run(&TerminalProgress::new(8))?;
    finish(&evaluation, &args.out)
}

/// The task: the manifest (paths relative to it) or the flags' one pair, then the flags'
/// options over the manifest's.
fn task(args: &RankArgs) -> anyhow::Result<RankTask> {
    let mut task = if let Some(path) = &args.manifest {
        let task: RankTask = kgeval::read_family_toml(path, kgeval::Family::Rank)?;
        task.resolved(path.parent().unwrap_or(Path::new(".")))
    } else {
        let system = match (&args.system, &args.submission) {
            (Some(spec), _) => SystemInput::parse(spec),
            (None, Some(path)) => SystemInput::new(Input::path(path)),
            (None, None) => anyhow::bail!("--system (the submission) is required without --manifest"),
        };
        let mut task = RankTask::new(RankingProfile::default()).system_submission(
            system,
            args.pools.as_deref().map(Input::path),
            args.gold.as_deref().map(Input::path),
        );
        if let (Some(name), Some(pair)) = (&args.pair, task.pairs.first_mut()) {
            *pair = RankPair { name: Some(name.clone()), ..pair.clone() };
        }
        task
    };
    if let Some(profile) = args.profile {
        task.profile = profile;
    }
    if args.name.is_some() {
        task.system.clone_from(&args.name);
    }
    if args.ties.is_some() {
        task.ties = args.ties;
    }
    if args.tau.is_some() {
        task.tau = args.tau;
    }
    if !args.k.is_empty() {
        task.ks = Some(args.k.clone());
    }
    if args.nil.is_some() {
        task.nil.clone_from(&args.nil);
    }
    if args.pool_size.is_some() {
        task.pool_size = args.pool_size;
    }
    task.allow_missing |= args.allow_missing;
    task.repair |= args.repair;
    task.sweep_tau |= args.sweep_tau;
    if let Some(grid) = &args.tau_grid {
        task.tau_grid = Some(parse_tau_grid(grid)?);
    }
    if args.threshold.is_some() {
        task.threshold = args.threshold;
    }
    if args.block_size.is_some() {
        task.block_size = args.block_size;
    }
    if args.beta.is_some() {
        task.beta = args.beta;
    }
    Ok(task)
}

fn parse_profile(name: &str) -> Result<RankingProfile, String> {
    RankingProfile::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = RankingProfile::ALL.iter().map(|p| p.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}

fn parse_ties(name: &str) -> Result<TiePolicy, String> {
    TiePolicy::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = TiePolicy::ALL.iter().map(|p| p.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}
