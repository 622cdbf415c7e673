//! `kgeval align`: flags → [`kgeval::align::AlignTask`].

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use kgeval::align::AlignmentFormat;
use kgeval::align::{AlignPair, AlignTask};
use kgeval::{FamilyResult, Input, SystemInput};
use kgeval_model::align::{AlignmentProfile, CompletenessMode};

use crate::output::{finish, finish_with, OutputArgs};
use crate::progress::TerminalProgress;
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval align --reference testdata/alignment/alignapi/html/tutorial/tutorial1/results/refalign.rdf \\
      --system testdata/alignment/alignapi/html/tutorial/tutorial1/results/SMOA.rdf --profile alignapi
  kgeval align --reference testdata/diso/brick-smartenv/Rplus.rdf --system testdata/diso/brick-smartenv/Rapprox.rdf \\
      --system union=testdata/diso/brick-smartenv/unknown.rdf --completeness partial
  kgeval align --manifest testdata/tracks/oaei2018.toml --format markdown
  kgeval align --reference testdata/alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf \\
      --system testdata/alignment/melt/examples/analyzingMatcherSimilarity/results/conference_conference-v1/cmt-conference/AML/systemAlignment.rdf \\
      --best-threshold --write-labels labels.tsv --fail-under F1=0.5 -o out.json --format json";

/// Arguments of `kgeval align`.
#[derive(Debug, Args)]
pub(crate) struct AlignArgs {
    /// The (primary, repaired) reference alignment (`-` reads stdin; gzip accepted, as for
    /// every alignment and ontology).
    #[arg(long, short = 'r', required_unless_present = "manifest", conflicts_with = "manifest")]
    reference: Option<PathBuf>,
    /// A system alignment, as PATH (named by its file stem, which must be unique) or
    /// NAME=PATH; repeat for several systems.
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
    /// The baseline alignment of residual recall (R+; default: MELT's baseline string matcher
    /// on the ontologies' labels, when --onto1/--onto2 are given).
    #[arg(long, conflicts_with = "manifest")]
    baseline: Option<PathBuf>,
    /// The test-case name (default: the reference's file stem).
    #[arg(long, conflicts_with = "manifest")]
    name: Option<String>,
    /// A track manifest (TOML, an align task): many pairs and systems in one run; the flags
    /// below override its options.
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// How complete the reference is (default: the profile's: `complete`, `partial` for diso).
    #[arg(long, value_enum)]
    completeness: Option<CompletenessArg>,
    /// Conventions of a reference tool (default: melt).
    #[arg(long, value_enum)]
    profile: Option<ProfileArg>,
    /// Keep only system cells with confidence ≥ this value.
    #[arg(long)]
    threshold: Option<f64>,
    /// Search the best threshold (MELT ConfidenceFinder) and report the P/R/F curve.
    #[arg(long)]
    best_threshold: bool,
    /// β of the F-measure (default: 1).
    #[arg(long)]
    beta: Option<f64>,
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
    /// Write every TP / FP / FN / ignored correspondence to this TSV file (atomically).
    #[arg(long, value_name = "FILE")]
    write_labels: Option<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum CompletenessArg {
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

pub(crate) fn run(args: &AlignArgs) -> anyhow::Result<Outcome> {
    args.out.check_before_reading("align")?;
    let task = task(args)?;
    crate::output::refuse_input_as_output(
        &task.input_paths(),
        &[("-o", args.out.output.as_deref()), ("--write-labels", args.write_labels.as_deref())],
    )?;
    let evaluation = task.run(&TerminalProgress::new(8))?;
    let Some(path) = &args.write_labels else { return finish(&evaluation, &args.out) };
    let FamilyResult::Align(result) = &evaluation.result else { anyhow::bail!("align: no alignment result") };
    let labels = result.labels_tsv.as_deref().context("align: labels were not collected")?;
    // The labels and -o are written together or not at all.
    finish_with(&evaluation, &args.out, &[(path.as_path(), labels.as_bytes())])
}

/// The task the flags (or the manifest, with the flags overriding its options) describe.
fn task(args: &AlignArgs) -> anyhow::Result<AlignTask> {
    let mut task = match &args.manifest {
        Some(path) => {
            let task: AlignTask = kgeval::read_family_toml(path, kgeval::Family::Align)?;
            task.resolved(path.parent().unwrap_or(Path::new("")))
        }
        None => {
            let reference = args.reference.as_ref().context("--reference is required without --manifest")?;
            let mut pair = AlignPair::new(Input::path(reference));
            if let Some(name) = &args.name {
                pair.name.clone_from(name);
            }
            pair.secondary = args.secondary.as_ref().map(Input::path);
            pair.exclusion = args.exclude.as_ref().map(Input::path);
            pair.ontologies = args.onto1.as_ref().map(Input::path).zip(args.onto2.as_ref().map(Input::path));
            pair.baseline = args.baseline.as_ref().map(Input::path);
            pair.systems = args.system.iter().map(|s| SystemInput::parse(s)).collect();
            AlignTask::new(vec![pair])
        }
    };
    if let Some(p) = args.profile {
        task.profile = profile_of(p);
    }
    if let Some(m) = args.completeness {
        task.completeness = Some(completeness_of(m));
    }
    if args.threshold.is_some() {
        task.threshold = args.threshold;
    }
    if let Some(beta) = args.beta {
        task.beta = beta;
    }
    if args.expected_pairs.is_some() {
        task.expected_pairs = args.expected_pairs;
    }
    if let Some(f) = args.input_format {
        task.input_format = Some(format_of(f));
    }
    task.best_threshold |= args.best_threshold;
    task.macro_harmonic |= args.macro_harmonic;
    task.repair_xml |= args.repair_xml;
    task.skip_edoal |= args.skip_edoal;
    task.melt_relations |= args.melt_relations;
    task.collect_labels |= args.write_labels.is_some();
    Ok(task)
}

fn completeness_of(m: CompletenessArg) -> CompletenessMode {
    match m {
        CompletenessArg::Complete => CompletenessMode::Complete,
        CompletenessArg::Partial => CompletenessMode::Partial,
        CompletenessArg::PartialSource => CompletenessMode::PartialSource,
        CompletenessArg::PartialTarget => CompletenessMode::PartialTarget,
        CompletenessArg::PartialNone => CompletenessMode::PartialNone,
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
