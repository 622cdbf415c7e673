//! Writing results: stdout, or a file written atomically (temp file + rename).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

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

/// The prefix of every temporary file: `.kgeval-tmp-NAME-XXXXXX` beside the output `NAME`.
pub(crate) const TEMP_PREFIX: &str = ".kgeval-tmp-";

/// The temporary files that exist right now. The signal handler removes them (under the lock,
/// so no file is created, renamed or forgotten meanwhile) before the process exits.
static LIVE_TEMP_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live_temp_files() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE_TEMP_FILES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// On SIGINT, SIGTERM or SIGHUP: removes every temporary file of a write in progress and exits
/// with 130 (an output is either complete or untouched). SIGKILL cannot be caught: every
/// output is rendered in memory first, so a temporary file exists only while its bytes are
/// written and renamed.
pub(crate) fn remove_temp_files_on_signal() {
    // Without a handler (another one is installed) the default action still ends the run.
    let _ = ctrlc::set_handler(|| {
        let live = live_temp_files();
        for path in live.iter() {
            // A temporary output directory (`kgeval run`) goes with its files.
            let _ = std::fs::remove_file(path).or_else(|_| std::fs::remove_dir_all(path));
        }
        std::process::exit(130);
    });
}

/// Where writing `path` lands: the file a symbolic link points to (followed to the end, even
/// when it does not exist yet), so the link stays a link.
pub(crate) fn write_target(path: &Path) -> PathBuf {
    let mut target = path.to_path_buf();
    // The kernel's own limit on links followed (ELOOP).
    for _ in 0..40 {
        let Ok(link) = std::fs::read_link(&target) else { break };
        target = match target.parent() {
            Some(dir) if link.is_relative() => dir.join(link),
            _ => link,
        };
    }
    target
}

/// Creates the temporary file for `target` and registers it, under the registry's lock (a
/// signal never sees a file that is not registered). A new file is opened with mode 0666, so
/// it gets what the umask allows, like any new file; over an existing file it takes that
/// file's mode.
fn create_temp(target: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // The output's name, shortened so the temporary name stays within a file name's limit.
    let name: String = target.file_name().map(|n| n.to_string_lossy().chars().take(64).collect()).unwrap_or_default();
    let prefix = format!("{TEMP_PREFIX}{name}-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    #[cfg(unix)]
    let new_mode = {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::Permissions::from_mode(0o666)
    };
    #[cfg(unix)]
    builder.permissions(new_mode);
    let mut live = live_temp_files();
    let tmp = builder.tempfile_in(dir)?;
    live.push(tmp.path().to_path_buf());
    drop(live);
    if let Ok(existing) = std::fs::metadata(target) {
        tmp.as_file().set_permissions(existing.permissions())?;
    }
    Ok(tmp)
}

/// A test hook (not an option): `KGEVAL_TEST_HOLD_TEMP_MS=N` waits N ms once the temporary
/// files are written, before they are renamed, so a test can interrupt a write in progress.
pub(crate) fn hold_for_tests() {
    if let Some(ms) = std::env::var("KGEVAL_TEST_HOLD_TEMP_MS").ok().and_then(|v| v.parse::<u64>().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// Writes several files all or nothing: every temporary file is written first (a failure
/// removes them all and leaves every target untouched), then each is renamed over its path
/// (over the target of a symbolic link).
pub(crate) fn write_all_atomically(files: &[(&Path, &[u8])]) -> anyhow::Result<()> {
    let mut written = Vec::with_capacity(files.len());
    let result = (|| {
        for &(path, bytes) in files {
            let target = write_target(path);
            let mut tmp = create_temp(&target).with_context(|| format!("{}: cannot create", path.display()))?;
            written.push((path, target, tmp.path().to_path_buf()));
            tmp.write_all(bytes).with_context(|| format!("{}: cannot write", path.display()))?;
            // Kept on disk until renamed or removed below (a drop would race the registry).
            let (_, kept) =
                tmp.keep().map_err(|e| e.error).with_context(|| format!("{}: cannot write", path.display()))?;
            drop(kept);
        }
        hold_for_tests();
        // Renamed under the lock: an interruption waits until every output is complete.
        let mut live = live_temp_files();
        for (path, target, tmp) in &written {
            std::fs::rename(tmp, target).with_context(|| format!("{}: cannot write", path.display()))?;
            live.retain(|p| p != tmp);
        }
        Ok(())
    })();
    if result.is_err() {
        let mut live = live_temp_files();
        for (_, _, tmp) in &written {
            if live.contains(tmp) {
                let _ = std::fs::remove_file(tmp);
                live.retain(|p| p != tmp);
            }
        }
    }
    result
}

/// Creates a temporary file or folder with `create` and registers it, under the registry's
/// lock (a signal never sees one that is not registered).
pub(crate) fn register_temp(create: impl FnOnce() -> std::io::Result<PathBuf>) -> std::io::Result<PathBuf> {
    let mut live = live_temp_files();
    let path = create()?;
    live.push(path.clone());
    Ok(path)
}

/// Runs `finish` (a rename or a removal of the temporary `path`) under the registry's lock,
/// then forgets `path`: an interruption waits until it is done.
pub(crate) fn unregister_temp(path: &Path, finish: impl FnOnce() -> anyhow::Result<()>) -> anyhow::Result<()> {
    let mut live = live_temp_files();
    let result = finish();
    if result.is_ok() {
        live.retain(|p| p != path);
    }
    result
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
        for spec in &self.fail_under {
            kgeval::Gate::parse(spec)?;
        }
        Ok(())
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
