//! `kgeval kgc`: knowledge-graph completion, micro and macro from one input.

mod inputs;

use std::path::{Path, PathBuf};

use anyhow::bail;
use clap::Args;
use kgeval_formats::kgc::{
    read_entities_file, read_judgments_file, read_pool_depths_file, read_ranks_file, read_relation_weights_file,
    read_triples_file, write_queries,
};
use kgeval_metrics::kgc::{
    evaluate_kgc, judgment_qrels, judgments_up_to_depth, relation_categories, relation_counts, Categories, KgcData,
    KgcInput, KgcOptions,
};
use kgeval_metrics::ranking::RowOptions;
use kgeval_model::ir::{MeasureSet, Run};
use kgeval_model::kgc::{
    AnswerObservation, CategoryRule, FilterScope, KgcVocabulary, KnownAnswers, TestSet, TripleFile,
};
use kgeval_model::ranking::{NanPolicy, TiePolicy, Tolerance};
use kgeval_model::{Diagnostic, TermId};
use kgeval_report::render_kgc;

use crate::output::{print_warnings, stem, write_atomically, write_output, OutputArgs};
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval kgc --test test.txt --filter train.txt --filter valid.txt --ranks ranks.tsv
  kgeval kgc --test test.txt --filter train.txt --filter valid.txt --entities entities.txt \\
      --scores scores.npy --questions questions.txt --ties rounded-mean --format json
  kgeval kgc --test test.txt --filter train.txt --filter valid.txt --write-questions questions.txt
  kgeval kgc --test testdata/kgc/fb15k-237/test.txt.gz --filter testdata/kgc/fb15k-237/train.txt.gz \\
      --filter testdata/kgc/fb15k-237/valid.txt.gz --ranks ranks.tsv --relation-weights triples:samples.txt

Rank files (--ranks): `# filter: train valid test`, then a header
`head relation tail side rank [n_greater n_equal num_candidates]` (tab-separated), one line per
test triple and side.";

/// Arguments of `kgeval kgc`.
#[derive(Debug, Args)]
pub(crate) struct KgcArgs {
    /// The evaluated split: `head<TAB>relation<TAB>tail` lines (gzip accepted).
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
    /// Per-answer ranks (see below).
    #[arg(long, group = "input")]
    ranks: Option<PathBuf>,
    /// A dense score matrix `.npy` (float32 or float16, C order): one row per line of
    /// --questions, one column per entity of --entities.
    #[arg(long, group = "input", requires_all = ["questions", "entities"])]
    scores: Option<PathBuf>,
    /// The questions of the --scores rows: `qid<TAB>entity<TAB>relation` (kgc-sparsity
    /// `trec_queries.txt`; see --write-questions).
    #[arg(long, requires = "scores")]
    questions: Option<PathBuf>,
    /// A TREC top-k run over the aggregated questions (`qid Q0 entity rank score tag`; gzip
    /// accepted); ranked as trec_eval ranks (score descending, then docno descending).
    #[arg(long, group = "input", requires = "queries")]
    run: Option<PathBuf>,
    /// The questions of the --run qids: `qid<TAB>entity<TAB>relation`.
    #[arg(long, requires = "run")]
    queries: Option<PathBuf>,
    /// Write the test split's questions (kgc-sparsity ids and layout) to this file.
    #[arg(long)]
    write_questions: Option<PathBuf>,
    /// The system name (default: the input's file stem).
    #[arg(long)]
    system: Option<String>,
    /// The rank inside a score tie: optimistic, pessimistic, realistic (the mean; PyKEEN's
    /// default) or rounded-mean (LibKGE).
    #[arg(long, default_value = "realistic", value_parser = parse_ties)]
    ties: TiePolicy,
    /// Scores tie when |s − t| ≤ atol + rtol·|t| (LibKGE's isclose), given as `atol,rtol`.
    /// Default: exact ties, except 1e-5,1e-4 under rounded-mean.
    #[arg(long, value_parser = parse_tolerance)]
    tie_tolerance: Option<Tolerance>,
    /// NaN scores: error, or worst (ranked below everything, not counted as candidates).
    #[arg(long, default_value = "error", value_parser = parse_nan)]
    nan: NanPolicy,
    /// Cut-offs of Hits@k, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,3,10")]
    k: Vec<u32>,
    /// Relation weights of the weighted micro metrics: `uniform`, `triples:FILE` (the number
    /// of triples per relation in FILE, e.g. another test set) or FILE (`relation<TAB>weight`).
    #[arg(long)]
    relation_weights: Option<String>,
    /// Triple files the relation categories are counted on (default: the first --filter).
    #[arg(long)]
    categories_from: Vec<PathBuf>,
    /// A side is "many" iff its average exceeds this.
    #[arg(long, default_value_t = 1.5)]
    category_threshold: f64,
    /// "many" iff the average reaches the threshold (≥ instead of >).
    #[arg(long)]
    category_inclusive: bool,
    /// Judgments `s p o {Y,N}` as the qrels of the IR measures (judged negatives kept).
    #[arg(long)]
    judgments: Option<PathBuf>,
    /// Pool depths `s p o depth` (kgc-sparsity `pooling_depth.txt`): with --max-depth, only
    /// the judgments of pooled triples up to that depth count (the depth series of seed 004).
    #[arg(long, requires_all = ["judgments", "max_depth"])]
    pool_depths: Option<PathBuf>,
    /// The pool depth of the series point (judged triples outside the pool always count).
    #[arg(long, requires = "pool_depths")]
    max_depth: Option<u32>,
    /// trec_eval measures of the macro IR list (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "map_cut.20,ndcg_cut.20")]
    ir_measures: Vec<String>,
    #[command(flatten)]
    out: OutputArgs,
}

fn parse_ties(name: &str) -> Result<TiePolicy, String> {
    TiePolicy::from_name(name)
        .filter(|p| !p.is_order())
        .ok_or_else(|| "expected one of optimistic, pessimistic, realistic, rounded-mean".to_owned())
}

fn parse_tolerance(text: &str) -> Result<Tolerance, String> {
    Tolerance::parse(text).ok_or_else(|| "expected `atol,rtol`, two finite numbers ≥ 0".to_owned())
}

fn parse_nan(name: &str) -> Result<NanPolicy, String> {
    NanPolicy::from_name(name).ok_or_else(|| "expected error or worst".to_owned())
}

/// What the system gave, as observations.
struct Observed {
    observations: Vec<AnswerObservation>,
    scope: FilterScope,
    /// The filtered run (run input): the list of the IR measures.
    run: Option<Run>,
    path: PathBuf,
}

/// The triple files of one evaluation, read with one vocabulary.
struct Splits {
    vocabulary: KgcVocabulary,
    entity_source: String,
    test: TestSet,
    filters: Vec<TripleFile>,
}

pub(crate) fn run(args: &KgcArgs) -> anyhow::Result<Outcome> {
    if args.k.contains(&0) {
        bail!("--k: expected positive cut-offs, found 0");
    }
    if !(args.category_threshold.is_finite()) {
        bail!("--category-threshold: expected a finite number, found {}", args.category_threshold);
    }
    let mut splits = read_splits(args)?;
    if let Some(path) = &args.write_questions {
        write_atomically(path, write_queries(&splits.test.questions, &splits.vocabulary).as_bytes())?;
    }
    if args.ranks.is_none() && args.scores.is_none() && args.run.is_none() {
        if args.write_questions.is_some() {
            return Ok(Outcome::Ok);
        }
        bail!("expected an input: --ranks FILE, --scores FILE with --questions and --entities, or --run FILE with --queries");
    }
    let options = options(args, &mut splits)?;
    let judgments = match &args.judgments {
        Some(path) => {
            let mut read = read_judgments_file(path, &mut splits.vocabulary)?;
            if let (Some(depths), Some(depth)) = (&args.pool_depths, args.max_depth) {
                let pool = read_pool_depths_file(depths, &mut splits.vocabulary)?;
                read.judgments = judgments_up_to_depth(&read.judgments, &pool, depth);
            }
            Some((read, path.display().to_string()))
        }
        None => None,
    };
    let questions = &splits.test.questions;
    let filters = KnownAnswers::of_questions(questions, splits.filters.iter().flat_map(|f| &f.triples));
    let known = filters.with_answers_of(questions);
    let data = KgcData { vocabulary: &splits.vocabulary, test: &splits.test, filters: &filters, known: &known };

    let mut warnings: Vec<Diagnostic> = Vec::new();
    let mut conventions = vec![
        ("test".to_owned(), splits.test.file.name.clone()),
        ("filters".to_owned(), filter_names(&splits.filters)),
        ("entity list".to_owned(), splits.entity_source.clone()),
    ];
    let observed = if let Some(path) = &args.ranks {
        let read = read_ranks_file(path, &splits.test, &splits.vocabulary)?;
        warnings.extend(read.warnings);
        conventions
            .push(("input".to_owned(), format!("ranks {} (filter: {})", path.display(), read.scope_names.join(" "))));
        Observed { observations: read.observations, scope: read.scope, run: None, path: path.clone() }
    } else if let (Some(path), Some(questions)) = (&args.scores, &args.questions) {
        let tolerance = args.tie_tolerance.or((args.ties == TiePolicy::RoundedMean).then_some(Tolerance::LIBKGE));
        conventions.push(("input".to_owned(), format!("scores {} (rows: {})", path.display(), questions.display())));
        conventions.push((
            "score ties".to_owned(),
            tolerance
                .map_or_else(|| "exact".to_owned(), |t| format!("isclose: |s - t| <= {} + {} * |t|", t.atol, t.rtol)),
        ));
        conventions.push(("NaN scores".to_owned(), args.nan.name().to_owned()));
        let observations =
            inputs::score_observations(&data, path, questions, RowOptions { tolerance, nan: args.nan }, &mut warnings)?;
        Observed { observations, scope: FilterScope::Known, run: None, path: path.clone() }
    } else if let (Some(path), Some(queries)) = (&args.run, &args.queries) {
        conventions.push(("input".to_owned(), format!("run {} (questions: {})", path.display(), queries.display())));
        conventions.push(("run order".to_owned(), "trec_eval: score descending, then docno descending".to_owned()));
        let read = inputs::run_observations(&data, path, queries, &mut warnings)?;
        Observed {
            observations: read.observations,
            scope: FilterScope::Filters,
            run: Some(read.filtered),
            path: path.clone(),
        }
    } else {
        unreachable!("clap requires one input with its companion files")
    };

    let qrels = match (&judgments, &observed.run) {
        (Some(_), None) => {
            bail!("--judgments: expected --run (the IR list derived from ranks has no judged non-answers)")
        }
        (Some((read, file)), Some(_)) => {
            let qrels = judgment_qrels(&data, &read.judgments, file);
            warnings.extend(read.warnings.iter().cloned());
            warnings.extend(qrels.warnings);
            let depth = args.max_depth.map_or_else(String::new, |d| format!(", pooled triples up to depth {d}"));
            conventions.push(("judgments".to_owned(), format!("{file}{depth}")));
            Some(qrels.qrels)
        }
        (None, _) => None,
    };
    let input = KgcInput {
        observations: &observed.observations,
        scope: observed.scope,
        ir_run: observed.run.as_ref(),
        ir_qrels: qrels.as_ref(),
    };
    let system = args.system.clone().unwrap_or_else(|| system_name(&observed.path));
    let mut evaluation = evaluate_kgc(&data, &input, &options, &system)?;
    conventions.append(&mut evaluation.conventions);
    evaluation.conventions = conventions;
    warnings.append(&mut evaluation.warnings);
    evaluation.warnings = warnings;
    print_warnings(&format!("system {system}"), &evaluation.warnings);
    let rendered = render_kgc(&[evaluation], args.out.format.into(), &args.out.render_options());
    write_output(args.out.output.as_deref(), &rendered)?;
    Ok(Outcome::Ok)
}

/// The file stem, without `.gz` first (`ranks.tsv.gz` → `ranks`).
fn system_name(path: &Path) -> String {
    match path.extension() {
        Some(ext) if ext == "gz" => stem(Path::new(path.file_stem().unwrap_or_default())),
        _ => stem(path),
    }
}

fn filter_names(filters: &[TripleFile]) -> String {
    if filters.is_empty() {
        return "none".to_owned();
    }
    filters.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ")
}

fn read_splits(args: &KgcArgs) -> anyhow::Result<Splits> {
    let (mut vocabulary, entity_source) = match &args.entities {
        Some(path) => {
            let vocabulary = read_entities_file(path)?;
            let source = format!("{} ({} entities)", path.display(), vocabulary.entity_count());
            (vocabulary, source)
        }
        None => (KgcVocabulary::open(), "the entities of the triple files".to_owned()),
    };
    let test = read_triples_file(&args.test, &mut vocabulary)?;
    if test.triples.is_empty() {
        bail!("{}: found no triple, expected `head<TAB>relation<TAB>tail` lines", args.test.display());
    }
    let filters = args.filter.iter().map(|p| read_triples_file(p, &mut vocabulary)).collect::<Result<Vec<_>, _>>()?;
    Ok(Splits { vocabulary, entity_source, test: TestSet::new(test), filters })
}

fn options(args: &KgcArgs, splits: &mut Splits) -> anyhow::Result<KgcOptions> {
    let requests = args
        .ir_measures
        .iter()
        .filter(|m| !m.is_empty())
        .map(|m| kgeval_model::ir::MeasureRequest::parse(m))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("--ir-measures: {e}"))?;
    let ir_measures = if requests.is_empty() { MeasureSet::default() } else { MeasureSet::from_requests(&requests) };
    let categories = categories(args, splits)?;
    let weights = match args.relation_weights.as_deref() {
        None => None,
        Some("uniform") => {
            let mut relations: Vec<TermId> = splits.test.file.triples.iter().map(|t| t.relation).collect();
            relations.sort_unstable();
            relations.dedup();
            Some((relations.into_iter().map(|r| (r, 1.0)).collect(), "uniform over the test relations".to_owned()))
        }
        Some(spec) => {
            if let Some(path) = spec.strip_prefix("triples:") {
                let file = read_triples_file(Path::new(path), &mut splits.vocabulary)?;
                Some((relation_counts(&file.triples), format!("triples per relation in {path}")))
            } else {
                let weights = read_relation_weights_file(Path::new(spec), &mut splits.vocabulary)?;
                Some((weights, format!("file {spec}")))
            }
        }
    };
    Ok(KgcOptions {
        ties: args.ties,
        ks: args.k.clone(),
        ir_measures,
        weights,
        categories,
        per_item: args.out.per_item,
    })
}

fn categories(args: &KgcArgs, splits: &mut Splits) -> anyhow::Result<Option<Categories>> {
    let mut triples = Vec::new();
    let mut names = Vec::new();
    if args.categories_from.is_empty() {
        let Some(first) = splits.filters.first() else { return Ok(None) };
        triples.extend_from_slice(&first.triples);
        names.push(first.name.clone());
    }
    for path in &args.categories_from {
        let file = read_triples_file(path, &mut splits.vocabulary)?;
        triples.extend(file.triples);
        names.push(file.name);
    }
    let rule = CategoryRule {
        threshold: args.category_threshold,
        inclusive: args.category_inclusive,
        source: names.join(" + "),
    };
    Ok(Some(Categories { relations: relation_categories(&triples, &rule), rule }))
}
