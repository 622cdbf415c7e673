//! The files of a campaign's output directory: `results.json`, one CSV per task and per
//! `[[compare]]`, `report.md`, each built from the families' own renderers.

use serde_json::{json, Map, Value};

use super::{CampaignOutcome, ComparisonOutcome, TaskOutcome};
use crate::compare::CompareEvaluation;
use crate::{Conventions, Error, Evaluation, OutputFormat, RenderOptions, Warning};

/// User text made inert in `report.md` (the one Markdown escape of `kgeval-report`).
fn md(text: &str) -> String {
    kgeval_report::escape_markdown(text)
}

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
        // A tie policy other than the tie-break's order is named (the default adds nothing).
        let ties =
            if options.ties.follows_tie_break() { String::new() } else { format!(", ties {}", options.ties.name()) };
        return format!(
            "kgeval trec: tie_break {}{ties}, query_set {}, relevance_level {}, max_docs {}",
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

/// For a folder `a/b`: `("a/b/../", "a/")`, `("a/b/../../", "")`, then `("a/b/../../../",
/// "../")`, … up to as many `..` as a manifest plausibly writes (8), shortest first; a folder
/// ending in `..` (whose parent is not lexical) gets none.
fn parent_rewrites(folder: &str) -> Vec<(String, String)> {
    const MAX_UP: usize = 8;
    let trimmed = folder.trim_end_matches('/');
    if trimmed.is_empty() || trimmed.rsplit('/').next().is_some_and(|last| last == ".." || last == ".") {
        return Vec::new();
    }
    let absolute = trimmed.starts_with('/');
    let mut parts: Vec<&str> = trimmed.split('/').filter(|p| !p.is_empty()).collect();
    let mut up = 0usize;
    let mut rewrites = Vec::new();
    for k in 1..=MAX_UP {
        match parts.last() {
            Some(&last) if last != ".." && last != "." => {
                parts.pop();
            }
            _ if absolute => break,
            _ => up += 1,
        }
        let from = format!("{trimmed}/{}", "../".repeat(k));
        let mut to = if absolute { "/".to_owned() } else { String::new() };
        to.push_str(&"../".repeat(up));
        for part in &parts {
            to.push_str(part);
            to.push('/');
        }
        rewrites.push((from, to));
    }
    rewrites
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
    ///
    /// Paths the manifest's relative paths became (`testdata/campaigns/../kgc/x`) are shown
    /// lexically normalised (`testdata/kgc/x`; symbolic links are not resolved).
    #[must_use]
    pub fn files(&self, options: &RenderOptions) -> Vec<(String, Vec<u8>)> {
        let shown = |text: String| self.display_paths(&text).into_bytes();
        let mut files = vec![
            ("results.json".to_owned(), shown(self.results_json(options))),
            ("report.md".to_owned(), shown(self.report_markdown(options))),
            ("tables.tex".to_owned(), shown(self.render_latex())),
            ("index.html".to_owned(), shown(self.render_html())),
        ];
        for task in &self.tasks {
            if let Ok(evaluation) = &task.evaluation {
                files.push((format!("{}.csv", task.name), shown(evaluation.render(OutputFormat::Csv, options))));
            }
        }
        for comparison in &self.comparisons {
            if let Ok(compare) = &comparison.compare {
                files.push((format!("{}.csv", comparison.name), shown(compare.render(OutputFormat::Csv, options))));
            }
        }
        files
    }

    /// `text` with every path joined to the manifest's folder shown lexically normalised:
    /// `FOLDER/../` (and `FOLDER/../../`, …) replaced by the folder's parent as written
    /// (`testdata/campaigns/../kgc/x` → `testdata/kgc/x`). Only the joins the manifest's
    /// folder made are rewritten; symbolic links are not resolved.
    #[must_use]
    pub fn display_paths(&self, text: &str) -> String {
        let folder = self.manifest.parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        let mut out = text.to_owned();
        for (from, to) in parent_rewrites(&folder).iter().rev() {
            if out.contains(from.as_str()) {
                out = out.replace(from.as_str(), to);
            }
        }
        out
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
        let mut out = format!("# {}\n\n", md(&self.title));
        let failed = self.tasks.iter().filter(|t| t.evaluation.is_err()).count()
            + self.comparisons.iter().filter(|c| c.compare.is_err()).count();
        let tested = self.tasks.iter().filter(|t| matches!(t.compare, Some(Ok(_)))).count();
        out.push_str(&format!(
            "Campaign {}: {} task(s) ({tested} with a meta-evaluation), {} `[[compare]]` section(s){}; kgeval {}. \
             Every number at full precision is in `results.json`; one CSV per task.\n",
            kgeval_report::markdown_code(&self.manifest.display().to_string()),
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
    out.push_str(&format!("\n## {} (`kgeval {}`)\n\n", md(&task.name), task.family));
    let evaluation = match &task.evaluation {
        Ok(evaluation) => evaluation,
        Err(e) => {
            out.push_str(&format!("**Failed:** {}\n", md(&one_line(e))));
            return;
        }
    };
    let systems: Vec<String> = evaluation.systems.iter().map(|s| md(s)).collect();
    out.push_str(&format!("Systems: {}.\n\n", systems.join(", ")));
    out.push_str(&format!("Conventions: {}\n\n", md(&conventions_text(evaluation))));
    let markdown = evaluation.render(OutputFormat::Markdown, options);
    out.push_str(&demoted(&split_comments(&markdown).1));
    match &task.ties {
        None => {}
        Some(Ok(report)) => {
            out.push_str("\n### Tied scores\n\n");
            out.push_str(&tie_summary(report));
        }
        Some(Err(e)) => out.push_str(&format!("\n### Tied scores\n\n**Failed:** {}\n", md(&one_line(e)))),
    }
    match &task.compare {
        None => {
            if let Some(note) = &task.compare_note {
                out.push_str(&format!("\n### Meta-evaluation\n\n{note}\n"));
            }
        }
        Some(Ok(compare)) => {
            out.push_str("\n### Meta-evaluation\n\n");
            out.push_str(&demoted(&compare.render(OutputFormat::Markdown, options)));
            warnings_markdown(out, &compare.warnings, "Meta-evaluation warnings");
        }
        Some(Err(e)) => out.push_str(&format!("\n### Meta-evaluation\n\n**Failed:** {}\n", md(&one_line(e)))),
    }
    warnings_markdown(out, &evaluation.warnings, "Warnings");
}

/// The tie section of a trec task: per run its counts and the summaries a tie order moves
/// visibly (by more than 0.001 between trec and expected), with their intervals.
fn tie_summary(report: &kgeval_model::trec::TieReport) -> String {
    use kgeval_model::trec::TIE_MOVE_THRESHOLD;
    let mut out = String::from(
        "Documents sharing a score are ordered by the tie-break (trec_eval: docno descending); \
         `expected` is the mean over every order of each tie group, the interval the worst and best \
         order (docs/ties.md).\n\n",
    );
    for run in &report.runs {
        let c = &run.counts;
        out.push_str(&format!(
            "- {}: {} of {} topics with ties; {} tie groups ({} documents), {} holding relevant and non-relevant \
             documents.",
            md(&run.run),
            c.topics_with_ties,
            c.topics,
            c.groups,
            c.tied_documents,
            c.mixed_groups
        ));
        let moved: Vec<String> = run
            .moved(TIE_MOVE_THRESHOLD)
            .map(|m| {
                format!(
                    "{} {:.4} (expected {:.4}, [{:.4}, {:.4}])",
                    md(&m.measure),
                    m.trec,
                    m.expected,
                    m.range.0,
                    m.range.1
                )
            })
            .collect();
        if moved.is_empty() {
            out.push_str(&format!(" No summary moves by more than {TIE_MOVE_THRESHOLD}.\n"));
        } else {
            out.push_str(&format!(" Moved by more than {TIE_MOVE_THRESHOLD}: {}.\n", moved.join("; ")));
        }
    }
    if !report.orderings.is_empty() {
        // Only the measures whose run ordering a tie order changes (tau-b below 1).
        let changed: Vec<String> = report
            .orderings
            .iter()
            .filter(|(_, tau)| *tau < 1.0)
            .map(|(m, tau)| format!("{} {tau:.4}", md(m)))
            .collect();
        if changed.is_empty() {
            out.push_str("\nThe runs are ordered alike under trec and expected on every measure.\n");
        } else {
            out.push_str(&format!(
                "\nKendall's tau-b between the run orderings under trec and expected, where they differ: {}.\n",
                changed.join(", ")
            ));
        }
    }
    out
}

fn comparison_markdown(out: &mut String, comparison: &ComparisonOutcome, options: &RenderOptions) {
    out.push_str(&format!("\n## {} (`kgeval compare`)\n\n", md(&comparison.name)));
    match &comparison.compare {
        Ok(compare) => {
            out.push_str(&demoted(&compare.render(OutputFormat::Markdown, options)));
            warnings_markdown(out, &compare.warnings, "Warnings");
        }
        Err(e) => out.push_str(&format!("**Failed:** {}\n", md(&one_line(e)))),
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
            out.push_str(&format!("- {} ({})\n", md(&w.diagnostic.to_string()), md(&w.scope)));
        }
        if of_scope.len() > MAX_WARNINGS_SHOWN {
            out.push_str(&format!(
                "- … {} more for {} (see results.json)\n",
                of_scope.len() - MAX_WARNINGS_SHOWN,
                md(scope)
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parent_rewrites;

    #[test]
    fn rewrites_of_a_folder_are_lexical() {
        let r = parent_rewrites("testdata/campaigns");
        assert_eq!(r[0], ("testdata/campaigns/../".to_owned(), "testdata/".to_owned()));
        assert_eq!(r[1], ("testdata/campaigns/../../".to_owned(), String::new()));
        assert_eq!(r[2], ("testdata/campaigns/../../../".to_owned(), "../".to_owned()));
        assert_eq!(parent_rewrites("/a")[0], ("/a/../".to_owned(), "/".to_owned()));
        assert_eq!(parent_rewrites("/a").len(), 1);
        assert!(parent_rewrites("").is_empty());
        assert!(parent_rewrites("x/..").is_empty());
    }
}
