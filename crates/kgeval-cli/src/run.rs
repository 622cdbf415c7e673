//! `kgeval run MANIFEST -o DIR`: a whole campaign → [`kgeval::campaign::Campaign`], run, and
//! its output directory written atomically.

use std::path::PathBuf;

use clap::Args;
use kgeval::campaign::one_line;
use kgeval::RenderOptions;

use crate::progress::CampaignBars;
use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval run testdata/campaigns/oaei2018.toml -o report
  kgeval run testdata/campaigns/diso.toml -o diso-report
  kgeval run testdata/campaigns/qald3.toml -o qald3-report --precision 3
  kgeval run testdata/campaigns/kgc-sparsity.toml -o kgc-report

A manifest has a `title`, [[task]] tables (a `name`, a `family`, the family's fields as in its
--manifest, optionally compare = { metrics = [...], test = \"t\", against = \"TASK\" }) and
[[compare]] tables (a `name` and kgeval compare's fields, on files). Paths are relative to the
manifest. DIR gets results.json, report.md, tables.tex (LaTeX), index.html (one self-contained
page with plots), one CSV per task and the marker .kgeval-run listing them; it is written at the
end, even when a task fails (its error is in the report; exit 2). DIR must be new, empty or a
previous output: only the files its marker lists are replaced.";

/// Arguments of `kgeval run`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The campaign manifest (TOML).
    manifest: PathBuf,
    /// The output folder: new, empty, or a previous `kgeval run` output (its files replaced at
    /// the end; nothing else in it is touched). A folder holding the manifest or an input is
    /// refused.
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Decimals in report.md (default 4).
    #[arg(long, value_parser = kgeval_report::parse_precision)]
    precision: Option<usize>,
}

pub(crate) fn run(args: &RunArgs) -> anyhow::Result<Outcome> {
    let defaults = RenderOptions::default();
    let options = RenderOptions {
        precision: args.precision.unwrap_or(defaults.precision),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        ..defaults
    };
    let outcome = kgeval::campaign::run_into(&args.manifest, &args.output, &options, &CampaignBars::new())?;
    let mut failed = 0;
    for task in &outcome.tasks {
        let errors = [task.evaluation.as_ref().err(), task.compare.as_ref().and_then(|c| c.as_ref().err())];
        for (error, what) in errors.iter().zip(["", " (compare)"]) {
            if let Some(e) = error {
                failed += 1;
                eprintln!("error: task {}{what}: {}", task.name, one_line(e));
            }
        }
    }
    for comparison in &outcome.comparisons {
        if let Err(e) = &comparison.compare {
            failed += 1;
            eprintln!("error: compare {}: {}", comparison.name, one_line(e));
        }
    }
    for task in &outcome.tasks {
        let mut warnings: Vec<&kgeval::Warning> = Vec::new();
        if let Ok(evaluation) = &task.evaluation {
            warnings.extend(&evaluation.warnings);
        }
        if let Some(Ok(compare)) = &task.compare {
            warnings.extend(&compare.warnings);
        }
        print_warning_count(&format!("task {}", task.name), &warnings, &args.output);
    }
    for comparison in &outcome.comparisons {
        if let Ok(compare) = &comparison.compare {
            print_warning_count(
                &format!("compare {}", comparison.name),
                &compare.warnings.iter().collect::<Vec<_>>(),
                &args.output,
            );
        }
    }
    println!("report: {}", args.output.join("report.md").display());
    if failed > 0 {
        anyhow::bail!(
            "{failed} of {} task(s) and comparison(s) failed; the others are in {}",
            outcome.tasks.len() + outcome.comparisons.len(),
            args.output.display()
        );
    }
    Ok(Outcome::Ok)
}

/// One stderr line per task with warnings: how many, by code (most frequent first), and where
/// they are listed (`report.md`, `results.json`).
fn print_warning_count(what: &str, warnings: &[&kgeval::Warning], output: &std::path::Path) {
    if warnings.is_empty() {
        return;
    }
    let mut codes: Vec<(&str, usize)> = Vec::new();
    for w in warnings {
        match codes.iter_mut().find(|(code, _)| *code == w.diagnostic.code) {
            Some((_, n)) => *n += 1,
            None => codes.push((w.diagnostic.code, 1)),
        }
    }
    codes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let by_code: Vec<String> = codes.iter().map(|(code, n)| format!("{n} {code}")).collect();
    eprintln!(
        "warning: {what}: {} warning(s) ({}); listed in {}",
        warnings.len(),
        by_code.join(", "),
        output.join("report.md").display()
    );
}
