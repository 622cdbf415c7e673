//! The files of a campaign's output directory: `results.json`, one CSV per task and per
//! `[[compare]]`, `report.md`, each built from the families' own renderers.

use serde_json::{json, Map, Value};

use super::{CampaignOutcome, ComparisonOutcome, TaskOutcome};
use crate::compare::CompareEvaluation;
use crate::{Conventions, Error, Evaluation, OutputFormat, RenderOptions, Warning};

/// At most this many warnings per scope in `report.md` (`results.json` lists them all).
const MAX_WARNINGS_SHOWN: usize = 20;

/// An error and its causes on one line (`context: cause`), a cause the previous text already
/// contains left out.
#[must_use]
pub fn one_line(error: &Error) -> String {
    let mut out = String::new();
    let mut cause: Option<&dyn std::error::Error> = Some(error);
    while let Some(e) = cause {
        let text = e.to_string().replace('\n', " ");
        if !out.contains(&text) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&text);
        }
        cause = e.source();
    }
    out
}

/// The conventions of an evaluation in one paragraph, as its Markdown rendering states them
/// (its leading `<!-- … -->` lines), for trec the tie-break, query set, level and depth.
#[must_use]
pub fn conventions_text(evaluation: &Evaluation) -> String {
    if let Conventions::Trec(options) = &evaluation.conventions {
        return format!(
            "kgeval trec: tie_break {}, query_set {}, relevance_level {}, max_docs {}",
            options.tie_break.name(),
            options.query_set.name(),
            options.relevance_level,
            options.max_docs.map_or_else(|| "all".to_owned(), |m| m.to_string())
        );
    }
    let markdown = evaluation.render(OutputFormat::Markdown, &RenderOptions::default());
    split_comments(&markdown).0.join("; ")
}

/// The leading `<!-- … -->` lines of a Markdown rendering (their text) and the rest.
fn split_comments(markdown: &str) -> (Vec<&str>, String) {
    let mut comments = Vec::new();
    let mut rest = String::new();
    let mut leading = true;
    for line in markdown.lines() {
        if leading {
            if let Some(text) = line.strip_prefix("<!-- ").and_then(|l| l.strip_suffix(" -->")) {
                comments.push(text);
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            leading = false;
        }
        rest.push_str(line);
        rest.push('\n');
    }
    (comments, rest)
}

/// A Markdown rendering under a `###` heading: its headings two levels down.
fn demoted(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    for line in markdown.lines() {
        if line.starts_with('#') {
            out.push_str("##");
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

impl CampaignOutcome {
    /// The output directory's files, `(file name, bytes)`, in the order they are listed:
    /// `results.json`, `report.md`, then `NAME.csv` per task that succeeded and per
    /// `[[compare]]` that succeeded.
    #[must_use]
    pub fn files(&self, options: &RenderOptions) -> Vec<(String, Vec<u8>)> {
        let mut files = vec![
            ("results.json".to_owned(), self.results_json(options).into_bytes()),
            ("report.md".to_owned(), self.report_markdown(options).into_bytes()),
            ("tables.tex".to_owned(), self.render_latex().into_bytes()),
            ("index.html".to_owned(), self.render_html().into_bytes()),
        ];
        for task in &self.tasks {
            if let Ok(evaluation) = &task.evaluation {
                files.push((format!("{}.csv", task.name), evaluation.render(OutputFormat::Csv, options).into_bytes()));
            }
        }
        for comparison in &self.comparisons {
            if let Ok(compare) = &comparison.compare {
                files.push((
                    format!("{}.csv", comparison.name),
                    compare.render(OutputFormat::Csv, options).into_bytes(),
                ));
            }
        }
        files
    }

    /// `results.json`: `{"kgeval_version", "title", "manifest", "tasks": [{"name", "family",
    /// "result" (the family's `--format json --per-item` output; without `--per-item` when the
    /// task filled no per-item table, as a KGC task without `per_item = true`), "error", "compare",
    /// "compare_error"}], "comparisons": [{"name", "result" (`kgeval compare --format json`),
    /// "error"}]}`; a part that did not run is `null`.
    #[must_use]
    pub fn results_json(&self, options: &RenderOptions) -> String {
        let options = RenderOptions { per_item: true, ..options.clone() };
        let without_items = RenderOptions { per_item: false, ..options.clone() };
        let parse = |text: String| serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text));
        let compare_json = |c: &CompareEvaluation| parse(c.render(OutputFormat::Json, &options));
        let tasks: Vec<Value> = self
            .tasks
            .iter()
            .map(|task| {
                let mut m = Map::new();
                m.insert("name".into(), json!(task.name));
                m.insert("family".into(), json!(task.family.name()));
                let (result, error) = match &task.evaluation {
                    Ok(e) => {
                        let options = if e.table.is_empty() { &without_items } else { &options };
                        (parse(e.render(OutputFormat::Json, options)), Value::Null)
                    }
                    Err(e) => (Value::Null, json!(one_line(e))),
                };
                m.insert("result".into(), result);
                m.insert("error".into(), error);
                let (compare, compare_error) = match &task.compare {
                    None => (Value::Null, Value::Null),
                    Some(Ok(c)) => (compare_json(c), Value::Null),
                    Some(Err(e)) => (Value::Null, json!(one_line(e))),
                };
                m.insert("compare".into(), compare);
                m.insert("compare_error".into(), compare_error);
                Value::Object(m)
            })
            .collect();
        let comparisons: Vec<Value> = self
            .comparisons
            .iter()
            .map(|c| {
                let (result, error) = match &c.compare {
                    Ok(compare) => (compare_json(compare), Value::Null),
                    Err(e) => (Value::Null, json!(one_line(e))),
                };
                json!({"name": c.name, "result": result, "error": error})
            })
            .collect();
        let root = json!({
            "kgeval_version": options.version,
            "title": self.title,
            "manifest": self.manifest.display().to_string(),
            "tasks": tasks,
            "comparisons": comparisons,
        });
        let mut text = serde_json::to_string_pretty(&root).unwrap_or_default();
        text.push('\n');
        text
    }

    /// `report.md`: the title, then per task a heading, its conventions, the family's
    /// Markdown table, its comparison and its warnings (with their locations); then every
    /// `[[compare]]`. A failed task shows its error.
    #[must_use]
    pub fn report_markdown(&self, options: &RenderOptions) -> String {
        let mut out = format!("# {}\n\n", self.title);
        let failed = self.tasks.iter().filter(|t| t.evaluation.is_err()).count()
            + self.comparisons.iter().filter(|c| c.compare.is_err()).count();
        out.push_str(&format!(
            "Campaign `{}`: {} task(s), {} comparison(s){}; kgeval {}. Every number at full precision is in \
             `results.json`; one CSV per task.\n",
            self.manifest.display(),
            self.tasks.len(),
            self.comparisons.len(),
            if failed == 0 { String::new() } else { format!(", {failed} failed") },
            options.version
        ));
        for task in &self.tasks {
            task_markdown(&mut out, task, options);
        }
        for comparison in &self.comparisons {
            comparison_markdown(&mut out, comparison, options);
        }
        out
    }
}

fn task_markdown(out: &mut String, task: &TaskOutcome, options: &RenderOptions) {
    out.push_str(&format!("\n## {} (`kgeval {}`)\n\n", task.name, task.family));
    let evaluation = match &task.evaluation {
        Ok(evaluation) => evaluation,
        Err(e) => {
            out.push_str(&format!("**Failed:** {}\n", one_line(e)));
            return;
        }
    };
    out.push_str(&format!("Systems: {}.\n\n", evaluation.systems.join(", ")));
    out.push_str(&format!("Conventions: {}\n\n", conventions_text(evaluation)));
    let markdown = evaluation.render(OutputFormat::Markdown, options);
    out.push_str(&demoted(&split_comments(&markdown).1));
    match &task.compare {
        None => {}
        Some(Ok(compare)) => {
            out.push_str("\n### Meta-evaluation\n\n");
            out.push_str(&demoted(&compare.render(OutputFormat::Markdown, options)));
            warnings_markdown(out, &compare.warnings, "Meta-evaluation warnings");
        }
        Some(Err(e)) => out.push_str(&format!("\n### Meta-evaluation\n\n**Failed:** {}\n", one_line(e))),
    }
    warnings_markdown(out, &evaluation.warnings, "Warnings");
}

fn comparison_markdown(out: &mut String, comparison: &ComparisonOutcome, options: &RenderOptions) {
    out.push_str(&format!("\n## {} (`kgeval compare`)\n\n", comparison.name));
    match &comparison.compare {
        Ok(compare) => {
            out.push_str(&demoted(&compare.render(OutputFormat::Markdown, options)));
            warnings_markdown(out, &compare.warnings, "Warnings");
        }
        Err(e) => out.push_str(&format!("**Failed:** {}\n", one_line(e))),
    }
}

/// The warnings as a list, scope by scope in first-seen order, at most
/// [`MAX_WARNINGS_SHOWN`] per scope.
fn warnings_markdown(out: &mut String, warnings: &[Warning], heading: &str) {
    if warnings.is_empty() {
        return;
    }
    out.push_str(&format!("\n### {heading}\n\n"));
    let mut scopes: Vec<&str> = Vec::new();
    for w in warnings {
        if !scopes.contains(&w.scope.as_str()) {
            scopes.push(&w.scope);
        }
    }
    for scope in scopes {
        let of_scope: Vec<&Warning> = warnings.iter().filter(|w| w.scope == scope).collect();
        for w in of_scope.iter().take(MAX_WARNINGS_SHOWN) {
            out.push_str(&format!("- {} ({})\n", w.diagnostic, w.scope));
        }
        if of_scope.len() > MAX_WARNINGS_SHOWN {
            out.push_str(&format!("- … {} more for {scope} (see results.json)\n", of_scope.len() - MAX_WARNINGS_SHOWN));
        }
    }
}
