//! `kgeval rank`: local ranking with NIL abstention (DISO Task 2, Bio-ML, DeepOnto,
//! OntoAligner, Bio-LLM).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use clap::Args;
use kgeval_formats::ranking::{
    read_gold_file, read_pools_file, read_scored_pairs_file, read_submission_file, SubmissionReadOptions,
};
use kgeval_metrics::local::{
    default_tau_grid, evaluate_biollm, evaluate_local, evaluate_ontoaligner, InputRole, LocalOptions, LocalPair,
    ValidationError,
};
use kgeval_model::ranking::results::{RankingEvaluation, RankingProfile};
use kgeval_model::ranking::{GoldKey, PoolSet, Submission, TiePolicy};
use kgeval_model::Interner;
use kgeval_report::{render_biollm, render_ontoaligner, render_ranking, RenderOptions, RESERVED_PAIR_NAMES};
use serde::Deserialize;

use crate::output::{print_warnings, stem, write_output, OutputArgs};
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval rank --pools pools.jsonl --gold gold.tsv --submission run.jsonl --pair uco-stix
  kgeval rank --manifest task2.toml --format json --sweep-tau
  kgeval rank --profile bioml --gold gold.tsv --submission ranked.tsv
  kgeval rank --profile biollm --submission biollm_result.tsv --threshold 0.65
  kgeval rank --profile ontoaligner --gold references.tsv --submission predictions.tsv --k 1,2";

/// Arguments of `kgeval rank`.
#[derive(Debug, Args)]
pub(crate) struct RankArgs {
    /// The candidate pools (DISO `pools.jsonl`).
    #[arg(long, conflicts_with = "manifest")]
    pools: Option<PathBuf>,
    /// The gold key: TSV `qid<TAB>gold` or JSONL `{"qid", "gold"}` (OntoAligner: the references).
    /// Optional when the submission carries its gold (Bio-ML `SrcEntity, TgtEntity, TgtCandidates`).
    #[arg(long, conflicts_with = "manifest")]
    gold: Option<PathBuf>,
    /// The submission: JSONL rankings or scores, TSV `qid IRI score`, or a Bio-ML TSV layout.
    #[arg(long, required_unless_present = "manifest", conflicts_with = "manifest")]
    submission: Option<PathBuf>,
    /// The pair name (default: the pools' folder name, else the submission's file stem).
    #[arg(long, conflicts_with = "manifest")]
    pair: Option<String>,
    /// A manifest (TOML) with several `[[pair]]` tables: per-pair blocks and MACRO.
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// The system name printed with the results.
    #[arg(long)]
    system: Option<String>,
    /// Conventions of a reference scorer: diso, bioml, deeponto, ontoaligner, biollm.
    #[arg(long, value_parser = parse_profile)]
    profile: Option<RankingProfile>,
    /// How equal scores are ordered (default: the profile's): stable, lexicographic, trec-eval,
    /// optimistic, pessimistic, expected, rounded-mean.
    #[arg(long, value_parser = parse_ties)]
    ties: Option<TiePolicy>,
    /// The confidence given to NIL in scored submissions (diso default 0.5).
    #[arg(long)]
    tau: Option<f64>,
    /// Cut-offs of Hits@k, comma-separated (default: the profile's).
    #[arg(long, value_delimiter = ',')]
    k: Vec<u32>,
    /// The NIL IRI.
    #[arg(long, default_value = kgeval_model::ranking::DISO_NIL_IRI)]
    nil: String,
    /// The declared pool size (diso: 50); 0 turns the check off.
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
    /// Bio-LLM answer threshold: a candidate is predicted when its answer is True and its score ≥ this.
    #[arg(long, default_value_t = 0.0)]
    threshold: f64,
    /// Bio-ML 2026 BLOCK form: this many rows per query (default: runs of equal SrcEntity).
    #[arg(long)]
    block_size: Option<usize>,
    /// β of OntoAligner's F-score.
    #[arg(long, default_value_t = 1.0)]
    beta: f64,
    #[command(flatten)]
    out: OutputArgs,
}

/// A `task2.toml` manifest; paths are relative to the file.
///
/// ```toml
/// profile = "diso"          # optional; --profile overrides
/// system = "lexical"        # optional; --system overrides
/// [[pair]]
/// name = "uco-stix"
/// pools = "uco-stix/pools.jsonl"
/// gold = "uco-stix/gold.tsv"
/// submission = "uco-stix/lexical.jsonl"
/// ```
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RankManifest {
    profile: Option<String>,
    system: Option<String>,
    #[serde(rename = "pair", default)]
    pairs: Vec<PairPlan>,
}

/// One pair's input paths.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct PairPlan {
    name: String,
    pools: Option<PathBuf>,
    gold: Option<PathBuf>,
    submission: PathBuf,
}

/// One pair's inputs, read.
struct LoadedPair {
    plan: PairPlan,
    pools: Option<PoolSet>,
    submission: Submission,
    gold: GoldKey,
}

pub(crate) fn run(args: &RankArgs) -> anyhow::Result<Outcome> {
    let (plans, manifest_profile, manifest_system) = plan(args)?;
    let profile = match (args.profile, manifest_profile.as_deref()) {
        (Some(p), _) => p,
        (None, Some(name)) => {
            RankingProfile::from_name(name).with_context(|| format!("manifest: unknown profile {name:?}"))?
        }
        (None, None) => RankingProfile::Diso,
    };
    let system = args
        .system
        .clone()
        .or(manifest_system)
        .unwrap_or_else(|| plans.first().map_or_else(|| "system".to_owned(), |p| stem(&p.submission)));
    let render = args.out.render_options();
    let mut interner = Interner::new();
    match profile {
        RankingProfile::Ontoaligner => return run_ontoaligner(args, &plans, &system, &render, &mut interner),
        RankingProfile::Biollm => return run_biollm(args, &plans, &system, &render, &mut interner),
        _ => {}
    }

    let options = local_options(args, profile)?;
    let gates = parse_gates(&args.out.fail_under)?;
    let read_options = SubmissionReadOptions { nil_iri: options.nil_iri.clone(), block_size: args.block_size };
    let mut loaded = Vec::with_capacity(plans.len());
    for plan in plans {
        loaded.push(load_pair(plan, profile, &read_options, &mut interner)?);
    }
    let pairs: Vec<LocalPair<'_>> = loaded
        .iter()
        .map(|l| LocalPair { name: &l.plan.name, pools: l.pools.as_ref(), submission: &l.submission, gold: &l.gold })
        .collect();
    let evaluation = evaluate_local(&system, &pairs, &interner, &options)
        .map_err(|e| located(&e, &loaded).unwrap_or_else(|| e.into()))?;
    print_warnings(&format!("system {system}"), &evaluation.warnings);
    write_output(args.out.output.as_deref(), &render_ranking(&evaluation, args.out.format.into(), &render))?;
    Ok(check_gates(&gates, &evaluation))
}

/// The options from the profile and the flags.
fn local_options(args: &RankArgs, profile: RankingProfile) -> anyhow::Result<LocalOptions> {
    let mut options = LocalOptions::for_profile(profile);
    if let Some(t) = args.ties {
        options.ties = t;
    }
    if !args.k.is_empty() {
        options.ks.clone_from(&args.k);
    }
    if let Some(tau) = args.tau {
        if !tau.is_finite() {
            bail!("--tau: expected a finite number, found {tau}");
        }
        options.tau = Some(tau);
    }
    options.nil_iri.clone_from(&args.nil);
    if let Some(size) = args.pool_size {
        options.pool_size = (size > 0).then_some(size);
    }
    options.allow_missing = args.allow_missing;
    options.repair = args.repair;
    if let Some(grid) = &args.tau_grid {
        options.tau_grid = Some(parse_grid(grid)?);
    } else if args.sweep_tau {
        options.tau_grid = Some(default_tau_grid());
    }
    if options.tau_grid.is_some() && options.tau.is_none() {
        options.tau = Some(0.5);
    }
    Ok(options)
}

/// The pairs to score, from the flags or a manifest, with the manifest's profile and system.
fn plan(args: &RankArgs) -> anyhow::Result<(Vec<PairPlan>, Option<String>, Option<String>)> {
    let (plans, profile, system) = if let Some(path) = &args.manifest {
        let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
        let manifest: RankManifest = toml::from_str(&text).map_err(|e| {
            let (line, column) = e.span().map_or((1, 1), |span| crate::manifest::line_column(&text, span.start));
            anyhow::anyhow!("{}:{line}:{column}: {}", path.display(), e.message())
        })?;
        if manifest.pairs.is_empty() {
            bail!("{}:1:1: expected at least one [[pair]] table, found none", path.display());
        }
        let base = path.parent().unwrap_or(Path::new("."));
        let plans = manifest
            .pairs
            .into_iter()
            .map(|p| PairPlan {
                pools: p.pools.map(|x| base.join(x)),
                gold: p.gold.map(|x| base.join(x)),
                submission: base.join(p.submission),
                name: p.name,
            })
            .collect();
        (plans, manifest.profile, manifest.system)
    } else {
        let submission = args.submission.clone().context("--submission is required without --manifest")?;
        let name = args.pair.clone().unwrap_or_else(|| {
            args.pools
                .as_deref()
                .and_then(|p| p.parent()?.file_name())
                .map_or_else(|| stem(&submission), |n| n.to_string_lossy().into_owned())
        });
        (vec![PairPlan { name, pools: args.pools.clone(), gold: args.gold.clone(), submission }], None, None)
    };
    let mut seen = std::collections::HashSet::new();
    for p in &plans {
        if RESERVED_PAIR_NAMES.contains(&p.name.as_str()) {
            bail!("pair name {:?} is reserved in the JSON layout; choose another (--pair)", p.name);
        }
        if !seen.insert(p.name.clone()) {
            bail!("pair name {:?} is given twice", p.name);
        }
    }
    Ok((plans, profile, system))
}

fn load_pair(
    plan: PairPlan,
    profile: RankingProfile,
    options: &SubmissionReadOptions,
    interner: &mut Interner,
) -> anyhow::Result<LoadedPair> {
    let pools = match &plan.pools {
        Some(path) => {
            let read = read_pools_file(path, interner).context("reading pools")?;
            print_warnings(&format!("pair {}", plan.name), &read.warnings);
            Some(read.pools)
        }
        None if profile == RankingProfile::Diso => {
            bail!("pair {:?}: the diso profile needs --pools (or `pools` in the manifest)", plan.name)
        }
        None => None,
    };
    let read = read_submission_file(&plan.submission, interner, options).context("reading submission")?;
    print_warnings(&format!("pair {}", plan.name), &read.warnings);
    let gold = match (&plan.gold, read.gold) {
        (Some(path), _) => {
            let gold = read_gold_file(path, interner, &options.nil_iri).context("reading gold")?;
            print_warnings(&format!("pair {}", plan.name), &gold.warnings);
            gold.gold
        }
        (None, Some(gold)) => gold,
        (None, None) => bail!(
            "pair {:?}: no gold key: give --gold (the submission {} carries none)",
            plan.name,
            plan.submission.display()
        ),
    };
    Ok(LoadedPair { plan, pools, submission: read.submission, gold })
}

/// A validation error as `FILE:LINE: message`, naming the input file of its role.
fn located(e: &ValidationError, loaded: &[LoadedPair]) -> Option<anyhow::Error> {
    let pair = loaded.iter().find(|l| l.plan.name == e.pair)?;
    let path = match e.role {
        InputRole::Pools => pair.plan.pools.as_ref()?,
        InputRole::Submission => &pair.plan.submission,
        InputRole::Gold => pair.plan.gold.as_ref().unwrap_or(&pair.plan.submission),
    };
    Some(anyhow::anyhow!("{}:{}: {}", path.display(), e.line, e.message))
}

fn run_biollm(
    args: &RankArgs,
    plans: &[PairPlan],
    system: &str,
    render: &RenderOptions,
    interner: &mut Interner,
) -> anyhow::Result<Outcome> {
    let [plan] = plans else { bail!("the biollm profile scores one submission file; the manifest lists several") };
    if !args.threshold.is_finite() {
        bail!("--threshold: expected a finite number, found {}", args.threshold);
    }
    let options = SubmissionReadOptions { nil_iri: args.nil.clone(), block_size: args.block_size };
    let loaded = load_pair(plan.clone(), RankingProfile::Biollm, &options, interner)?;
    let nil = interner.get(&args.nil);
    let scores = evaluate_biollm(&loaded.submission, &loaded.gold, nil, args.threshold);
    if scores.unmatched == 0 {
        eprintln!("warning: no UnMatched row: the rejection rate is undefined (DeepOnto divides by zero here)");
    }
    write_output(args.out.output.as_deref(), &render_biollm(system, &scores, args.out.format.into(), render))?;
    Ok(Outcome::Ok)
}

fn run_ontoaligner(
    args: &RankArgs,
    plans: &[PairPlan],
    system: &str,
    render: &RenderOptions,
    interner: &mut Interner,
) -> anyhow::Result<Outcome> {
    let [plan] = plans else { bail!("the ontoaligner profile scores one prediction file; the manifest lists several") };
    let gold = plan.gold.as_ref().context("the ontoaligner profile needs --gold (the references)")?;
    let predictions = read_scored_pairs_file(&plan.submission, interner).context("reading predictions")?;
    let references: Vec<_> = read_scored_pairs_file(gold, interner)
        .context("reading references")?
        .into_iter()
        .map(|p| (p.source, p.target))
        .collect();
    let ks = if args.k.is_empty() { RankingProfile::Ontoaligner.ks() } else { args.k.clone() };
    let scores = evaluate_ontoaligner(&predictions, &references, &ks, args.beta);
    write_output(args.out.output.as_deref(), &render_ontoaligner(system, &scores, args.out.format.into(), render))?;
    Ok(Outcome::Ok)
}

fn parse_grid(spec: &str) -> anyhow::Result<Vec<f64>> {
    let parts: Vec<&str> = spec.split(':').collect();
    let number = |s: &str| -> anyhow::Result<f64> {
        let v: f64 = s.trim().parse().with_context(|| format!("--tau-grid: expected a number, found {s:?}"))?;
        if v.is_finite() {
            Ok(v)
        } else {
            bail!("--tau-grid: expected a finite number, found {s:?}")
        }
    };
    let [start, stop, step] = parts.as_slice() else {
        bail!("--tau-grid: expected START:STOP:STEP, found {spec:?}");
    };
    let (start, stop, step) = (number(start)?, number(stop)?, number(step)?);
    if step <= 0.0 || stop < start || (stop - start) / step > 100_000.0 {
        bail!("--tau-grid: expected START ≤ STOP and 0 < STEP with at most 100000 points, found {spec:?}");
    }
    let n = ((stop - start) / step + 1e-9).floor() as usize;
    Ok((0..=n).map(|i| start + i as f64 * step).collect())
}

/// `--fail-under` gates on MACRO values.
fn parse_gates(specs: &[String]) -> anyhow::Result<Vec<(String, f64)>> {
    specs
        .iter()
        .map(|spec| {
            let (metric, value) =
                spec.split_once('=').with_context(|| format!("--fail-under: expected METRIC=VALUE, found {spec:?}"))?;
            let metric = metric.trim().to_owned();
            if metric != "mrr" && metric.strip_prefix("hits_at_").and_then(|k| k.parse::<u32>().ok()).is_none() {
                bail!("--fail-under: expected mrr or hits_at_K, found {metric:?}");
            }
            let value: f64 =
                value.trim().parse().with_context(|| format!("--fail-under: expected a number, found {value:?}"))?;
            Ok((metric, value))
        })
        .collect()
}

fn check_gates(gates: &[(String, f64)], evaluation: &RankingEvaluation) -> Outcome {
    let mut failed = false;
    for (metric, bound) in gates {
        let value = match metric.strip_prefix("hits_at_").and_then(|k| k.parse::<u32>().ok()) {
            Some(k) => evaluation.macro_summary.hits_at(k).unwrap_or(0.0),
            None => evaluation.macro_summary.mrr,
        };
        if value < *bound {
            eprintln!("fail-under: system {}: MACRO {metric} {value} < {bound}", evaluation.system);
            failed = true;
        }
    }
    if failed {
        Outcome::GateFailed
    } else {
        Outcome::Ok
    }
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
