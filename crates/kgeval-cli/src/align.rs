//! `kgeval align`: OAEI alignment scoring.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use clap::{Args, ValueEnum};
use kgeval_formats::alignment::{read_alignment_file, AlignmentFormat, ReadAlignment, ReadOptions};
use kgeval_formats::ontology::read_entity_types_file;
use kgeval_metrics::alignment::{evaluate_track, AlignmentOptions, PairInput};
use kgeval_model::results::{AlignmentProfile, CompletenessMode, TrackEvaluation};
use kgeval_model::{Alignment, Diagnostic, EntityTypes, Interner};
use kgeval_report::{render_alignment, render_labels_tsv};

use crate::manifest::read_manifest;
use crate::output::{named_path, print_warnings, progress_bar, stem, write_atomically, write_output, OutputArgs};
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval align --reference refalign.rdf --system SMOA.rdf --profile alignapi
  kgeval align --reference ref.rdf --system AML=aml.rdf --system LogMap=logmap.rdf --mode partial
  kgeval align --manifest testdata/tracks/oaei2018.toml --format markdown
  kgeval align --reference R.rdf --system S.rdf --best-threshold --labels labels.tsv -o out.json --format json";

/// Arguments of `kgeval align`.
#[derive(Debug, Args)]
pub(crate) struct AlignArgs {
    /// The (primary, repaired) reference alignment.
    #[arg(long, short = 'r', required_unless_present = "manifest", conflicts_with = "manifest")]
    reference: Option<PathBuf>,
    /// A system alignment, as PATH or NAME=PATH; repeat for several systems.
    #[arg(long, short = 's', required_unless_present = "manifest", conflicts_with = "manifest")]
    system: Vec<String>,
    /// A secondary (unrepaired) reference, scored in the same run.
    #[arg(long, conflicts_with = "manifest")]
    secondary: Option<PathBuf>,
    /// An exclusion alignment (training / input mappings) removed from the system first.
    #[arg(long, conflicts_with = "manifest")]
    exclude: Option<PathBuf>,
    /// The source ontology, for the type breakdown and entity checks.
    #[arg(long, requires = "onto2", conflicts_with = "manifest")]
    onto1: Option<PathBuf>,
    /// The target ontology.
    #[arg(long, requires = "onto1", conflicts_with = "manifest")]
    onto2: Option<PathBuf>,
    /// The test-case name (default: the reference's file stem).
    #[arg(long, conflicts_with = "manifest")]
    name: Option<String>,
    /// A track manifest (TOML): many pairs and systems in one run.
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// Reference completeness mode (default: the profile's).
    #[arg(long, value_enum)]
    mode: Option<ModeArg>,
    /// Conventions of a reference tool.
    #[arg(long, value_enum)]
    profile: Option<ProfileArg>,
    /// Keep only system cells with confidence ≥ this value.
    #[arg(long)]
    threshold: Option<f64>,
    /// Search the best threshold (MELT ConfidenceFinder) and report the P/R/F curve.
    #[arg(long)]
    best_threshold: bool,
    /// β of the F-measure.
    #[arg(long, default_value_t = 1.0)]
    beta: f64,
    /// Macro F1 as the harmonic mean of macro P and R (MELT 2019 files).
    #[arg(long)]
    macro_harmonic: bool,
    /// Divide macro averages by this many pairs (missing pairs count 0).
    #[arg(long)]
    expected_pairs: Option<usize>,
    /// Force the input syntax instead of detecting it.
    #[arg(long, value_enum)]
    input_format: Option<InputFormatArg>,
    /// Repair raw `&` in XML attributes (MELT's AlignmentXmlRepair).
    #[arg(long)]
    repair_xml: bool,
    /// Skip EDOAL / level-2 cells (counted) instead of failing.
    #[arg(long)]
    skip_edoal: bool,
    /// Read relations exactly as MELT does (no trimming; unknown tokens silently become `?`).
    #[arg(long)]
    melt_relations: bool,
    /// Write every TP / FP / FN / ignored correspondence to this TSV file.
    #[arg(long)]
    labels: Option<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModeArg {
    Complete,
    Partial,
    PartialSource,
    PartialTarget,
    PartialNone,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ProfileArg {
    Melt,
    Alignapi,
    OaeiSeals,
    Ontoaligner,
    Diso,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum InputFormatArg {
    Rdfxml,
    Turtle,
    Ntriples,
    Tsv,
    Csv,
    Sssom,
}

/// One test case to score, with every input path.
struct PairPlan {
    name: String,
    reference: PathBuf,
    secondary: Option<PathBuf>,
    exclusion: Option<PathBuf>,
    ontologies: Option<(PathBuf, PathBuf)>,
    systems: Vec<(String, PathBuf)>,
}

/// Alignments read once, shared by every system of a pair.
struct LoadedPair {
    name: String,
    reference: Alignment,
    secondary: Option<Alignment>,
    exclusion: Option<Alignment>,
    ontologies: Option<(EntityTypes, EntityTypes)>,
    systems: Vec<(String, Alignment, Vec<Diagnostic>)>,
    warnings: Vec<Diagnostic>,
}

pub(crate) fn run(args: &AlignArgs) -> anyhow::Result<Outcome> {
    let (plans, manifest_profile, manifest_mode) = plan(args)?;
    let profile = match args.profile {
        Some(p) => profile_of(p),
        None => match manifest_profile.as_deref() {
            Some(name) => {
                AlignmentProfile::from_name(name).with_context(|| format!("manifest: unknown profile {name:?}"))?
            }
            None => AlignmentProfile::Melt,
        },
    };
    let mut options = AlignmentOptions::for_profile(profile);
    match (args.mode, manifest_mode.as_deref()) {
        (Some(m), _) => options.mode = mode_of(m),
        (None, Some(name)) => {
            options.mode =
                CompletenessMode::from_name(name).with_context(|| format!("manifest: unknown mode {name:?}"))?;
        }
        (None, None) => {}
    }
    if let Some(t) = args.threshold {
        if !t.is_finite() {
            bail!("--threshold: expected a finite number, found {t}");
        }
    }
    options.threshold = args.threshold;
    options.beta = args.beta;
    options.collect_labels = args.labels.is_some();
    options.threshold_curve = args.best_threshold;
    options.macro_harmonic_f1 = args.macro_harmonic;
    options.expected_pairs = args.expected_pairs;
    let gates = parse_gates(&args.out.fail_under)?;

    let read_options = ReadOptions {
        format: args.input_format.map(format_of),
        repair_xml: args.repair_xml,
        skip_edoal: args.skip_edoal,
        melt_relations: args.melt_relations,
        ..ReadOptions::default()
    };
    let mut interner = Interner::new();
    let progress = progress_bar(plans.iter().map(|p| p.systems.len() as u64 + 1).sum(), 8, "reading {msg}");
    let mut loaded = Vec::with_capacity(plans.len());
    for plan in &plans {
        progress.set_message(plan.name.clone());
        loaded.push(load_pair(plan, &read_options, &mut interner)?);
        progress.inc(plan.systems.len() as u64 + 1);
    }
    progress.finish_and_clear();

    let tracks = score(&loaded, &options, &interner);
    for track in &tracks {
        for pair in &track.pairs {
            print_warnings(&format!("system {}, pair {}", track.system, pair.name), &pair.warnings);
        }
    }
    let render = args.out.render_options();
    let rendered = render_alignment(&tracks, args.out.format.into(), &render);
    if let Some(path) = &args.labels {
        write_atomically(path, render_labels_tsv(&tracks, &interner).as_bytes())?;
    }
    write_output(args.out.output.as_deref(), &rendered)?;
    Ok(check_gates(&gates, &tracks))
}

/// The pairs to score, from the flags or a manifest.
fn plan(args: &AlignArgs) -> anyhow::Result<(Vec<PairPlan>, Option<String>, Option<String>)> {
    if let Some(path) = &args.manifest {
        let manifest = read_manifest(path)?;
        let plans = manifest
            .pairs
            .iter()
            .map(|p| PairPlan {
                name: p.name.clone(),
                reference: p.reference.clone(),
                secondary: p.secondary.clone(),
                exclusion: p.exclusion.clone(),
                ontologies: p.onto1.clone().zip(p.onto2.clone()),
                systems: p.systems(),
            })
            .collect();
        return Ok((plans, manifest.profile, manifest.mode));
    }
    let reference = args.reference.clone().context("--reference is required without --manifest")?;
    let systems = args.system.iter().map(|s| named_path(s)).collect();
    let name = args.name.clone().unwrap_or_else(|| stem(&reference));
    let ontologies = args.onto1.clone().zip(args.onto2.clone());
    Ok((
        vec![PairPlan {
            name,
            reference,
            secondary: args.secondary.clone(),
            exclusion: args.exclude.clone(),
            ontologies,
            systems,
        }],
        None,
        None,
    ))
}

fn read(path: &Path, role: &str, options: &ReadOptions, interner: &mut Interner) -> anyhow::Result<ReadAlignment> {
    tracing::info!(path = %path.display(), role, "reading alignment");
    read_alignment_file(path, options, interner).with_context(|| format!("reading {role}"))
}

fn load_pair(plan: &PairPlan, options: &ReadOptions, interner: &mut Interner) -> anyhow::Result<LoadedPair> {
    let mut warnings = Vec::new();
    let mut take = |read: ReadAlignment| {
        warnings.extend(read.warnings);
        read.alignment
    };
    let reference = take(read(&plan.reference, "reference", options, interner)?);
    let secondary = match &plan.secondary {
        Some(p) => Some(take(read(p, "secondary reference", options, interner)?)),
        None => None,
    };
    let exclusion = match &plan.exclusion {
        Some(p) => Some(take(read(p, "exclusion", options, interner)?)),
        None => None,
    };
    let ontologies = match &plan.ontologies {
        Some((o1, o2)) => Some((
            read_entity_types_file(o1, interner).context("reading onto1")?,
            read_entity_types_file(o2, interner).context("reading onto2")?,
        )),
        None => None,
    };
    let mut systems = Vec::with_capacity(plan.systems.len());
    for (name, path) in &plan.systems {
        let read = read(path, "system", options, interner)?;
        systems.push((name.clone(), read.alignment, read.warnings));
    }
    Ok(LoadedPair { name: plan.name.clone(), reference, secondary, exclusion, ontologies, systems, warnings })
}

/// One [`TrackEvaluation`] per system name, over the pairs that system has, in first-seen order.
fn score(pairs: &[LoadedPair], options: &AlignmentOptions, interner: &Interner) -> Vec<TrackEvaluation> {
    let mut system_names: Vec<&str> = Vec::new();
    for pair in pairs {
        for (name, _, _) in &pair.systems {
            if !system_names.contains(&name.as_str()) {
                system_names.push(name);
            }
        }
    }
    system_names
        .into_iter()
        .map(|system| {
            let mut reader_warnings: Vec<Vec<Diagnostic>> = Vec::new();
            let inputs: Vec<PairInput<'_>> = pairs
                .iter()
                .filter_map(|pair| {
                    let (_, alignment, warnings) = pair.systems.iter().find(|(n, _, _)| n == system)?;
                    reader_warnings.push(pair.warnings.iter().chain(warnings).cloned().collect());
                    Some(PairInput {
                        name: &pair.name,
                        reference: &pair.reference,
                        secondary: pair.secondary.as_ref(),
                        system: alignment,
                        exclusion: pair.exclusion.as_ref(),
                        onto1: pair.ontologies.as_ref().map(|(o1, _)| o1),
                        onto2: pair.ontologies.as_ref().map(|(_, o2)| o2),
                    })
                })
                .collect();
            let mut track = evaluate_track(&inputs, options, interner, system);
            // Reader warnings first, then the scoring's own, pair by pair (same order as inputs).
            for (pair, mut found) in track.pairs.iter_mut().zip(reader_warnings) {
                found.append(&mut pair.warnings);
                pair.warnings = found;
            }
            track
        })
        .collect()
}

/// `--fail-under` gates.
#[derive(Debug, Clone, Copy)]
enum GateMetric {
    Precision,
    Recall,
    F1,
}

fn parse_gates(specs: &[String]) -> anyhow::Result<Vec<(GateMetric, f64)>> {
    specs
        .iter()
        .map(|spec| {
            let (metric, value) =
                spec.split_once('=').with_context(|| format!("--fail-under: expected METRIC=VALUE, found {spec:?}"))?;
            let metric = match metric.trim() {
                "precision" | "p" => GateMetric::Precision,
                "recall" | "r" => GateMetric::Recall,
                "f1" | "f" | "f-measure" => GateMetric::F1,
                other => bail!("--fail-under: expected precision, recall or f1, found {other:?}"),
            };
            let value: f64 =
                value.trim().parse().with_context(|| format!("--fail-under: expected a number, found {value:?}"))?;
            Ok((metric, value))
        })
        .collect()
}

fn check_gates(gates: &[(GateMetric, f64)], tracks: &[TrackEvaluation]) -> Outcome {
    let mut failed = false;
    for track in tracks {
        let micro = track.primary.micro.scores;
        for &(metric, bound) in gates {
            let (name, value) = match metric {
                GateMetric::Precision => ("precision", micro.precision),
                GateMetric::Recall => ("recall", micro.recall),
                GateMetric::F1 => ("f1", micro.f_measure),
            };
            if value < bound {
                eprintln!("fail-under: system {}: micro {name} {value} < {bound}", track.system);
                failed = true;
            }
        }
    }
    if failed {
        Outcome::GateFailed
    } else {
        Outcome::Ok
    }
}

fn mode_of(m: ModeArg) -> CompletenessMode {
    match m {
        ModeArg::Complete => CompletenessMode::Complete,
        ModeArg::Partial => CompletenessMode::Partial,
        ModeArg::PartialSource => CompletenessMode::PartialSource,
        ModeArg::PartialTarget => CompletenessMode::PartialTarget,
        ModeArg::PartialNone => CompletenessMode::PartialNone,
    }
}

fn profile_of(p: ProfileArg) -> AlignmentProfile {
    match p {
        ProfileArg::Melt => AlignmentProfile::Melt,
        ProfileArg::Alignapi => AlignmentProfile::AlignApi,
        ProfileArg::OaeiSeals => AlignmentProfile::OaeiSeals,
        ProfileArg::Ontoaligner => AlignmentProfile::OntoAligner,
        ProfileArg::Diso => AlignmentProfile::Diso,
    }
}

fn format_of(f: InputFormatArg) -> AlignmentFormat {
    match f {
        InputFormatArg::Rdfxml => AlignmentFormat::RdfXml,
        InputFormatArg::Turtle => AlignmentFormat::Turtle,
        InputFormatArg::Ntriples => AlignmentFormat::NTriples,
        InputFormatArg::Tsv => AlignmentFormat::Tsv,
        InputFormatArg::Csv => AlignmentFormat::Csv,
        InputFormatArg::Sssom => AlignmentFormat::Sssom,
    }
}
