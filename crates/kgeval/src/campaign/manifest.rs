//! A campaign manifest: `title`, `[[task]]` tables (a name, a family's task fields, an optional
//! `compare = {…}`) and `[[compare]]` tables (meta-evaluations of published score tables).
//!
//! The manifest is parsed once by the TOML library (`toml_edit`, which keeps every key's and
//! value's place); each table is deserialised on its own with `deny_unknown_fields`, so every
//! error points into the manifest (`FILE:LINE:COL`) whatever TOML form wrote it. Every option a
//! table names is read or refused, and every range is checked here, before anything runs.

use std::path::{Path, PathBuf};

use crate::compare::{CompareMode, CompareTask};
use crate::toml_doc::{ManifestTable, TomlManifest};
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

/// Keys of a task's `compare` that name inputs (or, `ties`, how runs are evaluated: the
/// task's own `ties` decides): a task's comparison reads none.
const INPUT_KEYS: [&str; 14] = [
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
    "ties",
];

/// The longest task or comparison name: it names a CSV file (`NAME.csv`).
pub const MAX_NAME_LENGTH: usize = 100;

/// Keys whose empty list would silently mean "the defaults": refused instead.
const LIST_KEYS: [&str; 4] = ["metrics", "metric", "measures", "measure"];

impl Campaign {
    /// Reads a campaign manifest.
    ///
    /// # Errors
    /// [`Error::Format`] when the file cannot be read; as [`Campaign::from_toml`].
    pub fn read(path: &Path) -> Result<Campaign, Error> {
        let text = kgeval_formats::input::read_text_file(path)?;
        Campaign::from_toml(&text, path)
    }

    /// Parses `text`, the content of the manifest at `path` (relative input paths are joined
    /// to its folder), and checks it: every error names `FILE:LINE:COL` of the manifest.
    ///
    /// # Errors
    /// [`Error::Invalid`]: TOML syntax; an unknown key; a task without a name or family, or of
    /// an unknown family; a field its family does not know; an option the comparison would not
    /// read or out of its range; a duplicate or unusable name; `against` naming no task, or a
    /// cycle of `against`; an input file that does not exist.
    pub fn from_toml(text: &str, path: &Path) -> Result<Campaign, Error> {
        let file = path.display().to_string();
        let base = path.parent().unwrap_or(Path::new(""));
        let manifest = TomlManifest::parse(text, &file)?;
        let root = manifest.root();
        for (key, _) in root.table.iter() {
            if !["title", "task", "compare"].contains(&key) {
                return Err(manifest.error(
                    manifest.key_at(root, key),
                    &format!("found the key {}, expected title, [[task]] or [[compare]]", kgeval_formats::echo(key)),
                ));
            }
        }
        let title = match manifest.string(root, "title")? {
            Some(title) => title.to_owned(),
            None => path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        };
        let task_tables = manifest.tables(root, "task")?;
        let compare_tables = manifest.tables(root, "compare")?;
        if task_tables.is_empty() && compare_tables.is_empty() {
            return Err(manifest.error(None, "found no [[task]] or [[compare]], expected at least one"));
        }
        let reader = Reader { manifest: &manifest, text, base };
        let mut campaign = Campaign { title, manifest: path.to_path_buf(), tasks: Vec::new(), comparisons: Vec::new() };
        let mut names: Vec<String> = Vec::new();
        let mut against_at: Vec<Option<usize>> = Vec::new();
        for table in task_tables {
            let name = reader.name(table, "task", &names)?;
            names.push(name.clone());
            let (task, compare, against) = reader.task(table)?;
            campaign.tasks.push(CampaignTask { name, task, compare });
            against_at.push(against);
        }
        for table in compare_tables {
            let name = reader.name(table, "compare", &names)?;
            names.push(name.clone());
            campaign.comparisons.push(CampaignComparison { name, task: reader.comparison(table)? });
        }
        check_against(&campaign, &against_at, &manifest)?;
        Ok(campaign)
    }
}

/// Reads the tables of one manifest.
pub(super) struct Reader<'a> {
    pub(super) manifest: &'a TomlManifest<'a>,
    pub(super) text: &'a str,
    pub(super) base: &'a Path,
}

impl Reader<'_> {
    /// The table's `name`: present, a string of letters, digits, `.`, `_`, `-` (it names a
    /// file), at most [`MAX_NAME_LENGTH`] characters, new (also ignoring case: two files
    /// differing only in case are one file on some systems).
    pub(super) fn name(&self, table: ManifestTable<'_>, kind: &str, seen: &[String]) -> Result<String, Error> {
        let m = self.manifest;
        let Some(name) = m.string(table, "name")? else {
            return Err(m.error(table.span, &format!("found a [[{kind}]] without a name, expected name = \"…\"")));
        };
        let at = m.value_at(table, "name");
        let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !valid {
            return Err(m.error(
                at,
                &format!(
                    "found name {}, expected letters, digits, '.', '_' or '-' (it names the task's CSV file)",
                    kgeval_formats::echo(name)
                ),
            ));
        }
        if name.len() > MAX_NAME_LENGTH {
            return Err(
                m.error(at, &format!("found a name of {} characters, expected at most {MAX_NAME_LENGTH}", name.len()))
            );
        }
        if let Some(other) = seen.iter().find(|s| s.eq_ignore_ascii_case(name)) {
            let case = if other == name { String::new() } else { format!(" (as {other:?}, but for case)") };
            return Err(m.error(
                at,
                &format!("duplicate task name {name:?}{case}, expected each [[task]] and [[compare]] name once"),
            ));
        }
        Ok(name.to_owned())
    }

    /// An empty `metrics = []` (or `measures`) would fall back to the defaults: refused.
    pub(super) fn refuse_empty_lists(&self, table: ManifestTable<'_>) -> Result<(), Error> {
        for key in LIST_KEYS {
            if table.table.get(key).and_then(toml_edit::Item::as_array).is_some_and(toml_edit::Array::is_empty) {
                return Err(self.manifest.error(
                    self.manifest.value_at(table, key),
                    &format!("found {key} = [], expected at least one (leave the key out for the defaults)"),
                ));
            }
        }
        Ok(())
    }

    /// A `[[task]]`: the family's task, its `compare`, and the place of its `against` value.
    fn task(&self, table: ManifestTable<'_>) -> Result<(Task, Option<TaskCompare>, Option<usize>), Error> {
        let m = self.manifest;
        if table.table.get("family").is_none() {
            return Err(m.error(
                table.span,
                &format!(
                    "found a [[task]] without a family, expected family = one of {}",
                    crate::Family::ALL.map(crate::Family::name).join(", ")
                ),
            ));
        }
        self.refuse_empty_lists(table)?;
        let task = m.task(table, &["name", "compare"])?.resolved(self.base);
        self.check_inputs(table, &task.input_paths())?;
        let Some(compare) = m.table(table, "compare")? else { return Ok((task, None, None)) };
        let against_at = m.value_at(compare, "against");
        let against = m.string(compare, "against")?.map(str::to_owned);
        let given: Vec<&str> = compare.table.iter().map(|(key, _)| key).filter(|k| *k != "against").collect();
        if let Some(key) = given.iter().find(|k| INPUT_KEYS.contains(k)) {
            return Err(m.error(
                m.key_at(compare, key),
                &format!(
                    "found `{key}` in a task's compare, expected none: it compares the task's own systems \
                     (a [[compare]] table reads files)"
                ),
            ));
        }
        self.refuse_empty_lists(compare)?;
        let options: CompareTask = m.deserialize(compare, &["against"])?;
        let mode = if against.is_some() { CompareMode::Agreement } else { CompareMode::Significance };
        self.check_options(compare, &options, mode, &given)?;
        let against_at = against.as_ref().and(against_at);
        Ok((task, Some(TaskCompare { task: options, against }), against_at))
    }

    /// Every option given is read by the comparison's mode, and within its range.
    fn check_options(
        &self,
        table: ManifestTable<'_>,
        task: &CompareTask,
        mode: CompareMode,
        given: &[&str],
    ) -> Result<(), Error> {
        let m = self.manifest;
        if let Some(key) = CompareTask::unread_option(mode, given) {
            return Err(m.error(
                m.key_at(table, key),
                &format!(
                    "found `{key}`, which {} does not read, expected only {}",
                    mode.description(),
                    mode.options().join(", ")
                ),
            ));
        }
        task.check_ranges().map_err(|e| m.error(m.value_at(table, e.key), &format!("{}: {}", e.key, e.message)))
    }

    /// A `[[compare]]`: `kgeval compare`'s task, paths resolved.
    fn comparison(&self, table: ManifestTable<'_>) -> Result<CompareTask, Error> {
        self.refuse_empty_lists(table)?;
        let task: CompareTask = self.manifest.deserialize(table, &["name"])?;
        let given: Vec<&str> = table.table.iter().map(|(key, _)| key).collect();
        self.check_options(table, &task, task.mode(), &given)?;
        let task = task.resolved(self.base);
        self.check_inputs(table, &task.input_paths())?;
        Ok(task)
    }

    /// Every input of a table exists, else `FILE:LINE:COL` of where the table names it.
    pub(super) fn check_inputs(&self, table: ManifestTable<'_>, paths: &[PathBuf]) -> Result<(), Error> {
        for path in paths {
            if path.is_file() || path.as_os_str() == "-" {
                continue;
            }
            let written = path.strip_prefix(self.base).unwrap_or(path).to_string_lossy().into_owned();
            // The first place the table (or a later one) writes it, else the table's.
            let from = table.span.unwrap_or(0);
            let at = self.text.get(from..).and_then(|rest| rest.find(&written)).map(|i| from + i).or(table.span);
            let found = if path.exists() { "found no regular file" } else { "found no file" };
            return Err(self.manifest.error(
                at,
                &format!("{found} {}, expected an existing input (paths are relative to the manifest)", path.display()),
            ));
        }
        Ok(())
    }
}

/// Every `against` names another task, and no task's comparison waits for itself.
fn check_against(campaign: &Campaign, places: &[Option<usize>], manifest: &TomlManifest<'_>) -> Result<(), Error> {
    let index_of = |name: &str| campaign.tasks.iter().position(|t| t.name == name);
    for (i, task) in campaign.tasks.iter().enumerate() {
        let Some(against) = task.compare.as_ref().and_then(|c| c.against.as_deref()) else { continue };
        let where_ = manifest.at(places[i]);
        if index_of(against).is_none() {
            return Err(Error::invalid(format!(
                "{where_}: found against = {}, expected the name of a [[task]] ({})",
                kgeval_formats::echo(against),
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
            format!("{FILE}:6:23: found a cycle of against: a → b → a, expected each task compared with one that does not wait for it")
        );
    }
}
