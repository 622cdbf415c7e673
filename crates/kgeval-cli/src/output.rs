//! Writing results: stdout, or a file written atomically (temp file + rename).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use kgeval_model::Diagnostic;

use anyhow::Context as _;
use kgeval_report::{OutputFormat, RenderOptions};

/// Writes `content` to `path` atomically (never a half-written file), or to stdout.
pub(crate) fn write_output(path: Option<&Path>, content: &str) -> anyhow::Result<()> {
    match path {
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(content.as_bytes())?;
            stdout.flush()?;
            Ok(())
        }
        Some(path) => write_atomically(path, content.as_bytes()),
    }
}

/// Writes to a temporary file beside `path`, then renames it over `path`.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_all_atomically(&[(path, bytes)])
}

/// Writes several files all or nothing: every temporary file is written first (a failure
/// removes them all and leaves every target untouched), then each is renamed over its path.
pub(crate) fn write_all_atomically(files: &[(&Path, &[u8])]) -> anyhow::Result<()> {
    let mut written = Vec::with_capacity(files.len());
    for &(path, bytes) in files {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let mut tmp = tempfile::Builder::new()
            .prefix(".kgeval-tmp-")
            .tempfile_in(dir)
            .with_context(|| format!("{}: cannot create", path.display()))?;
        tmp.write_all(bytes).with_context(|| format!("{}: cannot write", path.display()))?;
        written.push((path, tmp));
    }
    for (path, tmp) in written {
        tmp.persist(path).map_err(|e| e.error).with_context(|| format!("{}: cannot write", path.display()))?;
    }
    Ok(())
}

/// `--format`, shared by every subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FormatArg {
    /// An aligned text table with a header stating the conventions.
    Text,
    /// JSON, full precision.
    Json,
    /// CSV.
    Csv,
    /// CSV with tabs (`kgeval trec` only).
    Tsv,
    /// A Markdown table.
    Markdown,
}

impl From<FormatArg> for OutputFormat {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Text => OutputFormat::Text,
            FormatArg::Json => OutputFormat::Json,
            FormatArg::Csv | FormatArg::Tsv => OutputFormat::Csv,
            FormatArg::Markdown => OutputFormat::Markdown,
        }
    }
}

/// At most this many warnings per context go to stderr; JSON lists them all.
const MAX_WARNINGS_SHOWN: usize = 20;

/// Prints an evaluation's warnings on stderr scope by scope (in first-seen order), each
/// followed by `(scope)`, at most [`MAX_WARNINGS_SHOWN`] per scope.
pub(crate) fn print_evaluation_warnings(evaluation: &kgeval::Evaluation) {
    print_scoped_warnings(&evaluation.warnings);
}

/// Prints scoped warnings on stderr, grouped by scope in first-seen order (each scope capped
/// as [`print_warnings`] caps).
pub(crate) fn print_scoped_warnings(warnings: &[kgeval::Warning]) {
    let mut scopes: Vec<&str> = Vec::new();
    for w in warnings {
        if !scopes.contains(&w.scope.as_str()) {
            scopes.push(&w.scope);
        }
    }
    for scope in scopes {
        let of_scope: Vec<Diagnostic> =
            warnings.iter().filter(|w| w.scope == scope).map(|w| w.diagnostic.clone()).collect();
        print_warnings(scope, &of_scope);
    }
}

/// Checks `--fail-under` gates against the evaluation's headlines and prints each miss on
/// stderr (`fail-under: system S: METRIC VALUE < BOUND`).
pub(crate) fn check_gates(evaluation: &kgeval::Evaluation, specs: &[String]) -> anyhow::Result<crate::Outcome> {
    let gates = specs.iter().map(|s| kgeval::Gate::parse(s)).collect::<Result<Vec<_>, _>>()?;
    let failures = evaluation.check_gates(&gates)?;
    for failure in &failures {
        eprintln!("fail-under: {failure}");
    }
    Ok(if failures.is_empty() { crate::Outcome::Ok } else { crate::Outcome::GateFailed })
}

/// Writes the evaluation's warnings, then its rendering, then checks the gates.
pub(crate) fn finish(evaluation: &kgeval::Evaluation, out: &OutputArgs) -> anyhow::Result<crate::Outcome> {
    finish_with(evaluation, out, &[])
}

/// [`finish`], writing `extra` files (`--write-labels`, `--write-questions`) together with
/// `-o`: all of them or none.
pub(crate) fn finish_with(
    evaluation: &kgeval::Evaluation,
    out: &OutputArgs,
    extra: &[(&Path, &[u8])],
) -> anyhow::Result<crate::Outcome> {
    print_evaluation_warnings(evaluation);
    render_and_check_with(evaluation, out, &out.render_options(), extra)
}

/// Writes the evaluation's rendering with `options`, then checks the gates (the warnings are
/// the caller's).
pub(crate) fn render_and_check(
    evaluation: &kgeval::Evaluation,
    out: &OutputArgs,
    options: &RenderOptions,
) -> anyhow::Result<crate::Outcome> {
    render_and_check_with(evaluation, out, options, &[])
}

/// [`render_and_check`], writing `extra` files together with `-o` (all or none).
fn render_and_check_with(
    evaluation: &kgeval::Evaluation,
    out: &OutputArgs,
    options: &RenderOptions,
    extra: &[(&Path, &[u8])],
) -> anyhow::Result<crate::Outcome> {
    if out.format == FormatArg::Tsv && evaluation.family != kgeval::Family::Trec {
        anyhow::bail!("--format tsv: found `kgeval {}`, expected `kgeval trec` (use --format csv)", evaluation.family);
    }
    let gates = out.fail_under.iter().map(|s| kgeval::Gate::parse(s)).collect::<Result<Vec<_>, _>>()?;
    // Unknown gate metrics and, under --strict, coverage warnings are errors before anything
    // is written.
    evaluation.check_gates(&gates)?;
    if out.strict {
        evaluation.check_strict()?;
    }
    let rendered = evaluation.render(out.format.into(), options);
    let mut files = extra.to_vec();
    if let Some(path) = out.output.as_deref() {
        files.push((path, rendered.as_bytes()));
    }
    write_all_atomically(&files)?;
    if out.output.is_none() {
        write_output(None, &rendered)?;
    }
    check_gates(evaluation, &out.fail_under)
}

/// Prints warnings on stderr, each followed by `(context)`, at most [`MAX_WARNINGS_SHOWN`].
pub(crate) fn print_warnings(context: &str, warnings: &[Diagnostic]) {
    for w in warnings.iter().take(MAX_WARNINGS_SHOWN) {
        eprintln!("{w} ({context})");
    }
    if warnings.len() > MAX_WARNINGS_SHOWN {
        eprintln!("warning: {} more warnings for {context} (see --format json)", warnings.len() - MAX_WARNINGS_SHOWN);
    }
}

/// The output flags every subcommand shares.
#[derive(Debug, clap::Args)]
pub(crate) struct OutputArgs {
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = FormatArg::Text)]
    pub(crate) format: FormatArg,
    /// Write the result to this file (atomically) instead of stdout.
    #[arg(long, short = 'o')]
    pub(crate) output: Option<PathBuf>,
    /// Decimals in text and Markdown output (default 4).
    #[arg(long)]
    pub(crate) precision: Option<usize>,
    /// Include the per-item score table in JSON (`per_item`).
    #[arg(long)]
    pub(crate) per_item: bool,
    /// Exit 1 when a headline metric of some system is worse than VALUE: METRIC=VALUE, with
    /// METRIC a headline of the family's score table (case-insensitive: `f1`, `F1`, `mrr`,
    /// `map`, `macro_mrr`; for lower-is-better metrics such as `macro_mr`, worse means above).
    /// Repeatable.
    #[arg(long, value_name = "METRIC=VALUE")]
    pub(crate) fail_under: Vec<String>,
    /// Exit 2 (writing nothing) when an input covers only part of another: a gold key of
    /// another pair, a system sharing no entity with its reference, a URI list matching few
    /// gold entries (every coverage warning becomes an error).
    #[arg(long)]
    pub(crate) strict: bool,
}

impl OutputArgs {
    /// The renderer options these flags ask for.
    pub(crate) fn render_options(&self) -> RenderOptions {
        let defaults = RenderOptions::default();
        RenderOptions {
            precision: self.precision.unwrap_or(defaults.precision),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            per_item: self.per_item,
            tab_separated: self.format == FormatArg::Tsv,
            ..defaults
        }
    }
}
