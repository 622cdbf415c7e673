//! Writing results: stdout, or a file written atomically (temp file + rename).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use kgeval_model::Diagnostic;

use kgeval_report::{OutputFormat, RenderOptions};

use kgeval::write::write_target;

/// On SIGINT, SIGTERM or SIGHUP: removes every temporary file of a write in progress
/// ([`kgeval::write::exit_removing_temp_files`]) and exits with 130 (an output is either
/// complete or untouched). SIGKILL cannot be caught: every output is rendered in memory
/// first, so a temporary file exists only while its bytes are written and renamed.
pub(crate) fn remove_temp_files_on_signal() {
    // Without a handler (another one is installed) the default action still ends the run.
    let _ = ctrlc::set_handler(|| {
        kgeval::write::exit_removing_temp_files(130);
    });
}

/// Writes to a temporary file beside `path`, then renames it over `path`
/// ([`kgeval::write::write_atomically`]).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    Ok(kgeval::write::write_atomically(path, bytes)?)
}

/// Writes several files all or nothing ([`kgeval::write::write_all_atomically`]).
pub(crate) fn write_all_atomically(files: &[(&Path, &[u8])]) -> anyhow::Result<()> {
    Ok(kgeval::write::write_all_atomically(files)?)
}

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

/// Refuses an output (`-o`, `--write-labels`, …: `flag` and the path) that is one of the
/// run's inputs (`inputs`: the task's [`kgeval::Task::input_paths`]), through links too, and
/// two outputs of one command that are the same file (one would be lost).
pub(crate) fn refuse_input_as_output(inputs: &[PathBuf], outputs: &[(&str, Option<&Path>)]) -> anyhow::Result<()> {
    let given: Vec<(&str, &Path)> = outputs.iter().filter_map(|&(flag, output)| Some((flag, output?))).collect();
    for (i, &(flag, output)) in given.iter().enumerate() {
        if let Some(&(other_flag, other)) = given[..i].iter().find(|(_, other)| same_place(other, output)) {
            anyhow::bail!(
                "{flag} {}: found the same file as {other_flag} {}, expected a file of its own for each output",
                output.display(),
                other.display()
            );
        }
    }
    for &(flag, output) in &given {
        if let Some(input) = kgeval::same_file_as(inputs, output) {
            anyhow::bail!(
                "{flag} {}: found an input of this run ({}), expected a file that is not read",
                output.display(),
                input.display()
            );
        }
    }
    Ok(())
}

/// Whether two output paths name one file: the same file when both exist, else the same
/// place once links and `..` of their folders are resolved.
fn same_place(a: &Path, b: &Path) -> bool {
    if kgeval::same_file_as(&[a.to_path_buf()], b).is_some() {
        return true;
    }
    let place = |p: &Path| -> Option<PathBuf> {
        let target = write_target(p);
        let parent = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        Some(parent.canonicalize().ok()?.join(target.file_name()?))
    };
    match (place(a), place(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
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
    /// CSV with tabs (`kgeval trec` only: hidden from the other subcommands' help).
    #[value(hide = true)]
    Tsv,
    /// A Markdown table.
    Markdown,
    /// Parquet (with -o): trec's rows `run, qid, measure, value` (summary under qid `all`); the
    /// other families' per-item table `system, item, metric, value` (headlines under item `all`).
    #[cfg(feature = "arrow")]
    Parquet,
    /// An Arrow IPC file (with -o): the rows of --format parquet.
    #[cfg(feature = "arrow")]
    Arrow,
}

impl FormatArg {
    /// The Arrow file this format writes (`None`: a text format).
    #[cfg(feature = "arrow")]
    fn arrow_kind(self) -> Option<kgeval::arrow::ArrowFileKind> {
        match self {
            FormatArg::Parquet => Some(kgeval::arrow::ArrowFileKind::Parquet),
            FormatArg::Arrow => Some(kgeval::arrow::ArrowFileKind::Ipc),
            _ => None,
        }
    }

    /// Whether this format writes a binary Arrow file.
    pub(crate) fn is_arrow(self) -> bool {
        #[cfg(feature = "arrow")]
        return self.arrow_kind().is_some();
        #[cfg(not(feature = "arrow"))]
        false
    }
}

impl From<FormatArg> for OutputFormat {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Text => OutputFormat::Text,
            FormatArg::Json => OutputFormat::Json,
            FormatArg::Csv | FormatArg::Tsv => OutputFormat::Csv,
            FormatArg::Markdown => OutputFormat::Markdown,
            // Binary files are written before any rendering (`render_and_check_with`).
            #[cfg(feature = "arrow")]
            FormatArg::Parquet | FormatArg::Arrow => OutputFormat::Csv,
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
    #[cfg(feature = "arrow")]
    if let (Some(kind), Some(path)) = (out.format.arrow_kind(), out.output.as_deref()) {
        let bytes = kgeval::table_arrow::evaluation_file(evaluation, kind, &path.display().to_string())?;
        let mut files = extra.to_vec();
        files.push((path, &bytes));
        write_all_atomically(&files)?;
        return check_gates(evaluation, &out.fail_under);
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
    #[arg(long, value_parser = kgeval_report::parse_precision)]
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
    /// Refuses what can be refused before any input is read: `--format tsv` outside `kgeval
    /// trec` (`subcommand` names the caller) and a `--fail-under` that is not METRIC=VALUE.
    pub(crate) fn check_before_reading(&self, subcommand: &str) -> anyhow::Result<()> {
        if self.format == FormatArg::Tsv && subcommand != "trec" {
            anyhow::bail!("--format tsv: found `kgeval {subcommand}`, expected `kgeval trec` (use --format csv)");
        }
        if self.format.is_arrow() {
            let name = self.format_name();
            if self.output.is_none() {
                anyhow::bail!(
                    "--format {name}: found no -o, expected -o FILE (a binary file is not written to a terminal)"
                );
            }
        }
        for spec in &self.fail_under {
            kgeval::Gate::parse(spec)?;
        }
        Ok(())
    }

    /// `--format`'s value as typed.
    fn format_name(&self) -> &'static str {
        match self.format {
            FormatArg::Text => "text",
            FormatArg::Json => "json",
            FormatArg::Csv => "csv",
            FormatArg::Tsv => "tsv",
            FormatArg::Markdown => "markdown",
            #[cfg(feature = "arrow")]
            FormatArg::Parquet => "parquet",
            #[cfg(feature = "arrow")]
            FormatArg::Arrow => "arrow",
        }
    }

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
