//! A campaign manifest: `title`, `[[task]]` tables (a name, a family's task fields, an optional
//! `compare = {…}`) and `[[compare]]` tables (meta-evaluations of published score tables).
//!
//! Each task's fields are read by [`Task::from_toml`] and each `[[compare]]` table by the
//! `kgeval compare` manifest reader, on a copy of the manifest where every line but the
//! table's own is blank: their errors point into the manifest (`FILE:LINE:COL`).

use std::path::{Path, PathBuf};

use serde::Deserialize as _;

use crate::compare::CompareTask;
use crate::{Error, Task};

/// A campaign as its manifest describes it: tasks and comparisons, paths resolved against
/// the manifest's folder, checked (names, `against`, inputs present) before anything runs.
///
/// ```toml
/// title = "OAEI 2018 conference"
///
/// [[task]]
/// name = "conference"
/// family = "align"
/// compare = { metrics = ["f1"], test = "t" }
/// [[task.pair]]
/// name = "cmt-conference"
/// reference = "cmt-conference.rdf"
/// [task.pair.systems]
/// AML = "AML.rdf"
/// LogMap = "LogMap.rdf"
///
/// [[compare]]
/// name = "S-vs-SC"
/// inputs = "FB-Test-S/evaluation.csv"
/// against = "FB-Test-S-C/evaluation.csv"
/// ```
#[derive(Debug, Clone)]
pub struct Campaign {
    /// The `title`, else the manifest's file stem.
    pub title: String,
    /// The manifest file.
    pub manifest: PathBuf,
    /// The `[[task]]` tables, in manifest order.
    pub tasks: Vec<CampaignTask>,
    /// The `[[compare]]` tables, in manifest order.
    pub comparisons: Vec<CampaignComparison>,
}

/// One `[[task]]` of a campaign.
#[derive(Debug, Clone)]
pub struct CampaignTask {
    /// Its `name`: letters, digits, `.`, `_`, `-`; unique in the campaign (also its CSV's name).
    pub name: String,
    /// The family's task, paths resolved against the manifest's folder.
    pub task: Task,
    /// Its `compare = {…}`, if any.
    pub compare: Option<TaskCompare>,
}

/// A task's `compare = {…}`: `kgeval compare`'s options (`metrics`, `test`, `correction`,
/// `alpha`, `iterations`, `seed`, `intervals`, `tau`, `rbo_p`, `missing`) applied to the task's
/// own per-item table, or with `against = "TASK"` the agreement of the two tasks' orderings.
#[derive(Debug, Clone)]
pub struct TaskCompare {
    /// The options (its inputs are unused: the task's table is compared).
    pub task: CompareTask,
    /// The task whose system ordering this task's is compared with.
    pub against: Option<String>,
}

/// One `[[compare]]` of a campaign: a `kgeval compare` task on files (published score tables).
#[derive(Debug, Clone)]
pub struct CampaignComparison {
    /// Its `name`, unique among tasks and comparisons.
    pub name: String,
    /// The comparison, paths resolved against the manifest's folder.
    pub task: CompareTask,
}

/// Keys of a task's `compare` that name inputs: a task's comparison reads none.
const INPUT_KEYS: [&str; 13] = [
    "inputs",
    "input",
    "qrels",
    "runs",
    "run",
    "kgc",
    "ranks",
    "subsets",
    "sensitivity",
    "input_format",
    "ratios",
    "repeats",
    "pvalues",
];

/// A header line's table path (`task`, `task.pair`) and whether it is an array (`[[…]]`).
fn header(line: &str) -> Option<(String, bool)> {
    let trimmed = line.trim();
    let (inner, array) = if let Some(rest) = trimmed.strip_prefix("[[") {
        (rest.split("]]").next()?, true)
    } else if let Some(rest) = trimmed.strip_prefix('[') {
        (rest.split(']').next()?, false)
    } else {
        return None;
    };
    let path: String = inner.split('.').map(|p| p.trim().trim_matches('"')).collect::<Vec<_>>().join(".");
    Some((path, array))
}

/// The key a `key = value` line sets (before any table header), if any.
fn line_key(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    let end = trimmed.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))?;
    trimmed[end..].trim_start().starts_with('=').then_some(&trimmed[..end])
}

/// One `[[task]]` or `[[compare]]` table: its kind, its first and past-the-end lines.
#[derive(Debug, Clone, Copy)]
struct Segment {
    task: bool,
    start: usize,
    end: usize,
}

/// Where a position is reported: `FILE:LINE:COL` of byte offset `at` in `text`.
fn at(file: &str, text: &str, offset: usize) -> String {
    let (line, column) = kgeval_formats::line_column(text.as_bytes(), offset);
    format!("{file}:{line}:{column}")
}

impl Campaign {
    /// Reads a campaign manifest.
    ///
    /// # Errors
    /// [`Error::Format`] when the file cannot be read; as [`Campaign::from_toml`].
    pub fn read(path: &Path) -> Result<Campaign, Error> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| kgeval_formats::FormatError::io(&file, e))?;
        Campaign::from_toml(&text, path)
    }

    /// Parses `text`, the content of the manifest at `path` (relative input paths are joined
    /// to its folder), and checks it: every error names `FILE:LINE:COL` of the manifest.
    ///
    /// # Errors
    /// [`Error::Invalid`]: TOML syntax; an unknown key; a task without a name or family, or of
    /// an unknown family; a field its family does not know; a duplicate name; `against`
    /// naming no task, or a cycle of `against`; an input file that does not exist.
    pub fn from_toml(text: &str, path: &Path) -> Result<Campaign, Error> {
        let file = path.display().to_string();
        let base = path.parent().unwrap_or(Path::new(""));
        let table: toml::Table = crate::from_toml(text, &file)?;
        let lines: Vec<&str> = text.split('\n').collect();
        let offset_of_line = |i: usize| lines[..i].iter().map(|l| l.len() + 1).sum::<usize>();
        // Top-level keys first, then the tables.
        let mut segments: Vec<Segment> = Vec::new();
        let mut in_header = false;
        for (i, line) in lines.iter().enumerate() {
            if let Some((path, array)) = header(line) {
                in_header = true;
                let top = path.split('.').next().unwrap_or("");
                let column = line.len() - line.trim_start().len();
                let here = || at(&file, text, offset_of_line(i) + column);
                match (top, path.contains('.'), array) {
                    ("task" | "compare", false, true) => {
                        if let Some(last) = segments.last_mut() {
                            last.end = i;
                        }
                        segments.push(Segment { task: top == "task", start: i, end: lines.len() });
                    }
                    ("task", true, _) if segments.last().is_some_and(|s| s.task) => {}
                    ("compare", true, _) if segments.last().is_some_and(|s| !s.task) => {}
                    ("task" | "compare", false, false) => {
                        return Err(Error::invalid(format!(
                            "{}: found [{top}], expected [[{top}]] (one table per {top}, each with a name)",
                            here()
                        )));
                    }
                    _ => {
                        return Err(Error::invalid(format!(
                            "{}: found table [{path}], expected [[task]] or [[compare]]",
                            here()
                        )));
                    }
                }
            } else if !in_header {
                if let Some(key) = line_key(line) {
                    if !["title", "task", "compare"].contains(&key) {
                        let column = line.len() - line.trim_start().len();
                        return Err(Error::invalid(format!(
                            "{}: unknown key `{key}`, expected title, [[task]] or [[compare]]",
                            at(&file, text, offset_of_line(i) + column)
                        )));
                    }
                }
            }
        }
        let title = match table.get("title") {
            None => path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
            Some(toml::Value::String(title)) => title.clone(),
            Some(other) => {
                let offset = text.find("title").unwrap_or(0);
                return Err(Error::invalid(format!(
                    "{}: found title = {other}, expected a string",
                    at(&file, text, offset)
                )));
            }
        };
        if segments.is_empty() {
            return Err(Error::invalid(format!("{file}:1:1: found no [[task]] or [[compare]], expected at least one")));
        }
        let reader = Reader { file: &file, text, lines: &lines, base };
        let mut campaign = Campaign { title, manifest: path.to_path_buf(), tasks: Vec::new(), comparisons: Vec::new() };
        let mut names: Vec<String> = Vec::new();
        let mut against_at: Vec<Option<usize>> = Vec::new();
        for segment in &segments {
            let name = reader.name(segment, &names)?;
            names.push(name.clone());
            if segment.task {
                let (task, compare, against_offset) = reader.task(segment)?;
                campaign.tasks.push(CampaignTask { name, task, compare });
                against_at.push(against_offset);
            } else {
                campaign.comparisons.push(CampaignComparison { name, task: reader.comparison(segment)? });
            }
        }
        check_against(&campaign, &against_at, &file, text)?;
        Ok(campaign)
    }
}

/// Reads the tables of one manifest.
struct Reader<'a> {
    file: &'a str,
    text: &'a str,
    lines: &'a [&'a str],
    base: &'a Path,
}

impl Reader<'_> {
    fn offset_of_line(&self, i: usize) -> usize {
        self.lines[..i].iter().map(|l| l.len() + 1).sum::<usize>().min(self.text.len())
    }

    /// `FILE:LINE:COL` of the first non-blank character of line `i`.
    fn line_at(&self, i: usize) -> String {
        let line = self.lines[i];
        at(self.file, self.text, self.offset_of_line(i) + line.len() - line.trim_start().len())
    }

    /// The line of `key = …` at the table's own level (before its first sub-table).
    fn key_line(&self, segment: &Segment, key: &str) -> Option<usize> {
        (segment.start + 1..segment.end)
            .take_while(|&i| header(self.lines[i]).is_none())
            .find(|&i| line_key(self.lines[i]) == Some(key))
    }

    /// `FILE:LINE:COL` of the value of `key` in the table (else of its header).
    fn value_at(&self, segment: &Segment, key: &str) -> String {
        match self.key_line(segment, key) {
            Some(i) => {
                let line = self.lines[i];
                let eq = line.find('=').unwrap_or(0);
                let value = eq + 1 + (line[eq + 1..].len() - line[eq + 1..].trim_start().len());
                at(self.file, self.text, self.offset_of_line(i) + value)
            }
            None => self.line_at(segment.start),
        }
    }

    /// The manifest with every line blank but the table's own, its header blank, its
    /// sub-table headers re-rooted (`[[task.pair]]` → `[[pair]]`) and the lines of `drop`
    /// (keys at its own level, and sub-tables named so) blank: same lines, same columns.
    fn masked(&self, segment: &Segment, drop: &[&str]) -> String {
        let root = if segment.task { "task." } else { "compare." };
        let mut out = String::with_capacity(self.text.len());
        let mut dropping = false;
        let mut own_level = true;
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            if i <= segment.start || i >= segment.end {
                continue;
            }
            if let Some((path, _)) = header(line) {
                own_level = false;
                let sub = path.strip_prefix(root).unwrap_or(&path);
                dropping = drop.contains(&sub.split('.').next().unwrap_or(""));
                if !dropping {
                    out.push_str(&line.replacen(root, "", 1));
                }
                continue;
            }
            let dropped_key = own_level && line_key(line).is_some_and(|k| drop.contains(&k));
            if !dropping && !dropped_key {
                out.push_str(line);
            }
        }
        out
    }

    /// The table's `name`: present, a string of letters, digits, `.`, `_`, `-`, new.
    fn name(&self, segment: &Segment, seen: &[String]) -> Result<String, Error> {
        let kind = if segment.task { "task" } else { "compare" };
        let Some(i) = self.key_line(segment, "name") else {
            return Err(Error::invalid(format!(
                "{}: found a [[{kind}]] without a name, expected name = \"…\"",
                self.line_at(segment.start)
            )));
        };
        let value: toml::Table = crate::from_toml(self.lines[i], self.file)
            .map_err(|_| Error::invalid(format!("{}: expected name = \"…\"", self.value_at(segment, "name"))))?;
        let where_ = self.value_at(segment, "name");
        let name = match value.get("name") {
            Some(toml::Value::String(name)) => name.clone(),
            _ => {
                return Err(Error::invalid(format!(
                    "{where_}: found a name that is not a string, expected name = \"…\""
                )))
            }
        };
        let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !valid {
            return Err(Error::invalid(format!(
                "{where_}: found name {name:?}, expected letters, digits, '.', '_' or '-' (it names the task's CSV file)"
            )));
        }
        if seen.contains(&name) {
            return Err(Error::invalid(format!(
                "{where_}: duplicate task name {name:?}, expected each [[task]] and [[compare]] name once"
            )));
        }
        Ok(name)
    }

    /// A `[[task]]`: the family's task, its `compare`, and the offset of its `against` value.
    fn task(&self, segment: &Segment) -> Result<(Task, Option<TaskCompare>, Option<usize>), Error> {
        if self.key_line(segment, "family").is_none() {
            return Err(Error::invalid(format!(
                "{}: found a [[task]] without a family, expected family = one of {}",
                self.line_at(segment.start),
                crate::Family::ALL.map(crate::Family::name).join(", ")
            )));
        }
        let masked = self.masked(segment, &["name", "compare"]);
        let task = Task::from_toml(&masked, self.file)?.resolved(self.base);
        self.check_inputs(segment, &task.input_paths())?;
        let own = self.masked(segment, &[]);
        let table: toml::Table = crate::from_toml(&own, self.file)?;
        let Some(compare) = table.get("compare") else { return Ok((task, None, None)) };
        let compare_at = self.value_at(segment, "compare");
        let toml::Value::Table(compare) = compare else {
            return Err(Error::invalid(format!("{compare_at}: found compare = {compare}, expected a table {{ … }}")));
        };
        // The text of the compare table alone (inline, or its [task.compare] lines).
        let region = self.compare_region(segment);
        let locate = |needle: &str| -> String {
            let (start, end) = region;
            match self.text[start..end].find(needle) {
                Some(i) => at(self.file, self.text, start + i),
                None => compare_at.clone(),
            }
        };
        let mut options = compare.clone();
        let against = match options.remove("against") {
            None => None,
            Some(toml::Value::String(name)) => {
                Some((name, region.0 + self.text[region.0..region.1].find("against").unwrap_or(0)))
            }
            Some(other) => {
                return Err(Error::invalid(format!(
                    "{}: found against = {other}, expected the name of another task",
                    locate("against")
                )))
            }
        };
        if let Some(key) = INPUT_KEYS.iter().find(|k| options.contains_key(**k)) {
            return Err(Error::invalid(format!(
                "{}: found `{key}` in a task's compare, expected none: it compares the task's own systems \
                 (a [[compare]] table reads files)",
                locate(key)
            )));
        }
        let compare_task = CompareTask::deserialize(toml::Value::Table(options)).map_err(|e| {
            let message = e.message().trim_end().to_owned();
            let between = |prefix: &str, end: char| {
                let rest = &message[message.find(prefix)? + prefix.len()..];
                Some(rest[..rest.find(end)?].to_owned())
            };
            let named = between("found \"", '"')
                .or_else(|| between("unknown variant `", '`'))
                .map(|value| format!("\"{value}\""))
                .or_else(|| between("unknown field `", '`'))
                .unwrap_or_else(|| "compare".to_owned());
            Error::invalid(format!("{}: {message}", locate(&named)))
        })?;
        let against_offset = against.as_ref().map(|(_, offset)| *offset);
        Ok((task, Some(TaskCompare { task: compare_task, against: against.map(|(n, _)| n) }), against_offset))
    }

    /// The byte range of a task's compare: its `compare = {…}` line, or its `[task.compare]`
    /// table's lines.
    fn compare_region(&self, segment: &Segment) -> (usize, usize) {
        if let Some(i) = self.key_line(segment, "compare") {
            return (self.offset_of_line(i), self.offset_of_line(i) + self.lines[i].len());
        }
        let start = (segment.start + 1..segment.end)
            .find(|&i| header(self.lines[i]).is_some_and(|(p, _)| p == "task.compare"))
            .unwrap_or(segment.start);
        let end = (start + 1..segment.end).find(|&i| header(self.lines[i]).is_some()).unwrap_or(segment.end);
        (self.offset_of_line(start), self.offset_of_line(end))
    }

    /// A `[[compare]]`: `kgeval compare`'s task, paths resolved.
    fn comparison(&self, segment: &Segment) -> Result<CompareTask, Error> {
        let masked = self.masked(segment, &["name"]);
        let task: CompareTask = crate::from_toml(&masked, self.file)?;
        let task = task.resolved(self.base);
        self.check_inputs(segment, &task.input_paths())?;
        Ok(task)
    }

    /// Every input of a table exists, else `FILE:LINE:COL` of where the table names it.
    fn check_inputs(&self, segment: &Segment, paths: &[PathBuf]) -> Result<(), Error> {
        for path in paths {
            if path.exists() {
                continue;
            }
            let written = path.strip_prefix(self.base).unwrap_or(path).to_string_lossy().into_owned();
            let (start, end) = (self.offset_of_line(segment.start), self.offset_of_line(segment.end));
            let where_ = match self.text[start..end].find(&written) {
                Some(i) => at(self.file, self.text, start + i),
                None => self.line_at(segment.start),
            };
            return Err(Error::invalid(format!(
                "{where_}: found no file {}, expected an existing input (paths are relative to the manifest)",
                path.display()
            )));
        }
        Ok(())
    }
}

/// Every `against` names another task, and no task's comparison waits for itself.
fn check_against(campaign: &Campaign, offsets: &[Option<usize>], file: &str, text: &str) -> Result<(), Error> {
    let index_of = |name: &str| campaign.tasks.iter().position(|t| t.name == name);
    for (i, task) in campaign.tasks.iter().enumerate() {
        let Some(against) = task.compare.as_ref().and_then(|c| c.against.as_deref()) else { continue };
        let where_ = at(file, text, offsets[i].unwrap_or(0));
        if index_of(against).is_none() {
            return Err(Error::invalid(format!(
                "{where_}: found against = {against:?}, expected the name of a [[task]] ({})",
                campaign.tasks.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
        // Follow the chain from this task: back to it is a cycle.
        let mut chain = vec![task.name.as_str()];
        let mut next = Some(against);
        while let Some(name) = next {
            chain.push(name);
            if name == task.name {
                return Err(Error::invalid(format!(
                    "{where_}: found a cycle of against: {}, expected each task compared with one that does not wait for it",
                    chain.join(" → ")
                )));
            }
            let Some(j) = index_of(name) else { break };
            if chain[..chain.len() - 1].contains(&name) {
                break;
            }
            next = campaign.tasks[j].compare.as_ref().and_then(|c| c.against.as_deref());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::Campaign;
    use crate::compare::SignificanceTest;

    /// A manifest "in" `testdata/campaigns/` (tests run in `crates/kgeval`).
    const FILE: &str = "../../testdata/campaigns/t.toml";

    const TREC: &str = "family = \"trec\"\nqrels = \"../trec_eval/test/qrels.test\"\n\
                        runs = [\"full=../trec_eval/test/results.test\", \"trunc=../trec_eval/test/results.trunc\"]\n";

    fn error(text: &str) -> String {
        Campaign::from_toml(text, Path::new(FILE)).expect_err("an error").to_string()
    }

    #[test]
    fn compare_inline_or_as_a_sub_table() {
        let text = format!(
            "title = \"T\"\n[[task]]\nname = \"a\"\n{TREC}compare = {{ metrics = [\"map\"], test = \"wilcoxon\" }}\n\n\
             [[task]]\nname = \"b\"\n{TREC}[task.compare]\nagainst = \"a\"\nmetrics = [\"map\", \"P_10\"]\n"
        );
        let campaign = Campaign::from_toml(&text, Path::new(FILE)).expect("a campaign");
        assert_eq!(campaign.title, "T");
        let [a, b] = &campaign.tasks[..] else { panic!("two tasks") };
        let a_compare = a.compare.as_ref().expect("compare");
        assert_eq!(
            (a_compare.task.metrics.as_slice(), a_compare.task.test),
            (&["map".to_owned()][..], SignificanceTest::Wilcoxon)
        );
        assert_eq!(a_compare.against, None);
        let b_compare = b.compare.as_ref().expect("compare");
        assert_eq!(b_compare.against.as_deref(), Some("a"));
        assert_eq!(b_compare.task.metrics, ["map", "P_10"]);
        // Paths are the manifest's folder joined with the written ones.
        assert!(a.task.input_paths()[0].ends_with("testdata/campaigns/../trec_eval/test/qrels.test"));
    }

    #[test]
    fn errors_point_into_the_manifest() {
        let text = format!("[[task]]\nname = \"a\"\n{TREC}level = 1\nlevle = 2\n");
        assert!(error(&text).starts_with(&format!("{FILE}:7:1: unknown field `levle`")), "{}", error(&text));
        let text = format!("[[task]]\nname = \"a\"\n{TREC}[task.compare]\nmetrics = [\"map\"]\ntset = \"t\"\n");
        assert!(error(&text).starts_with(&format!("{FILE}:8:1: unknown field `tset`")), "{}", error(&text));
        let text = format!("[[task]]\nname = \"a\"\n{TREC}compare = {{ against = \"b\" }}\n[[task]]\nname = \"b\"\n{TREC}compare = {{ against = \"a\" }}\n");
        assert_eq!(
            error(&text),
            format!("{FILE}:6:13: found a cycle of against: a → b → a, expected each task compared with one that does not wait for it")
        );
    }
}
