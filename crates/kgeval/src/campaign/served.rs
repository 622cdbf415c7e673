//! A served campaign (`kgeval serve`): a `kgeval run` manifest whose tasks name no system —
//! each upload is one — plus, per task, a `primary` headline metric and the `phases` the task
//! is open in. The front end that serves it reads its own `[serve]` section (phases, limits,
//! baselines) from the same parsed manifest; what a task *is*, how an upload is scored and which
//! metric heads the leaderboard is decided here, so every front end scores an upload the same
//! way `kgeval trec`/`qald`/`lexicon` score the same file.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use kgeval_model::metric_names::Direction;
use kgeval_model::trec::Run;
use toml_edit::{Array, Value};

use super::manifest::Reader;
use crate::align::AlignGold;
use crate::gold_names::GoldNames;
use crate::kgc::KgcGold;
use crate::lexicon::LexiconGold;
use crate::qald::QaldGold;
use crate::rank::RankGold;
use crate::toml_doc::{ManifestTable, TomlManifest};
use crate::trec::TrecGold;
use crate::{Error, Evaluation, Family, Input, NoProgress, SystemInput, Task};

/// The families whose tasks can be served, with the keys that name their systems (which a
/// served task leaves out: its uploads are its systems).
const SERVED: [(Family, &[&str]); 6] = [
    (Family::Trec, &["runs", "run"]),
    (Family::Qald, &["systems", "system"]),
    (Family::Lexicon, &["systems", "system"]),
    (Family::Align, &["systems", "system"]),
    (Family::Rank, &["system"]),
    (Family::Kgc, &["ranks", "scores", "run"]),
];

/// The keys a served task has besides its family's.
const SERVED_KEYS: [&str; 3] = ["name", "primary", "phases"];

/// A campaign run as a service: its title and its tasks, paths resolved against the
/// campaign file's folder, every task's gold present.
///
/// ```toml
/// title = "Demo track"
/// [[task]]
/// name = "adhoc"
/// family = "trec"
/// qrels = "gold/qrels.txt"
/// measures = ["map", "P.10"]
/// primary = "map"
/// phases = ["training", "test"]
/// ```
#[derive(Debug, Clone)]
pub struct ServedCampaign {
    /// The `title`, else the campaign file's stem.
    pub title: String,
    /// The campaign file.
    pub manifest: PathBuf,
    /// The `[[task]]` tables, in file order.
    pub tasks: Vec<ServedTask>,
}

/// One task of a served campaign.
#[derive(Debug, Clone)]
pub struct ServedTask {
    /// Its `name` (letters, digits, `.`, `_`, `-`), unique in the campaign; it names the task
    /// in URLs.
    pub name: String,
    /// The family's task without systems, paths resolved.
    pub task: Task,
    /// The headline metric that ranks the leaderboard and picks a team's best submission.
    pub primary: String,
    /// `FILE:LINE:COL` of the `primary` value, for errors found once the gold is read.
    pub primary_at: String,
    /// The phases the task is open in, each with the `FILE:LINE:COL` naming it; `None`: all.
    pub phases: Option<Vec<(String, String)>>,
    /// The gold as read once (by [`ServedTask::read_gold`], or the first score), kept for
    /// every score (shared by clones).
    gold: Arc<OnceLock<Gold>>,
}

/// A served task's gold as its family reads it once — everything the family's task reads but
/// its systems — for every upload to be scored against: only the upload is read then. The
/// one shape of every served family: each family's task has `read_gold` and
/// `run_with_gold`.
#[derive(Debug)]
enum Gold {
    Trec(TrecGold),
    Qald(QaldGold),
    Lexicon(LexiconGold),
    Align(AlignGold),
    Rank(RankGold),
    Kgc(Box<KgcGold>),
}

impl ServedCampaign {
    /// Reads the served campaign of a parsed manifest at `path`. Root keys other than
    /// `title` and `[[task]]` must be in `front_end_keys` (the serving front end's own
    /// sections, e.g. `serve`), which are left to it.
    ///
    /// # Errors
    /// [`Error::Invalid`] `FILE:LINE:COL: …` for an unknown key, a task without a name or
    /// family, a family that cannot be served, a key naming systems, a `primary` that no
    /// family has, a malformed `phases`, a schema error of the family's fields, a missing gold
    /// file.
    pub fn from_manifest(
        manifest: &TomlManifest<'_>,
        text: &str,
        path: &Path,
        front_end_keys: &[&str],
    ) -> Result<ServedCampaign, Error> {
        let root = manifest.root();
        for (key, _) in root.table.iter() {
            if key != "title" && key != "task" && !front_end_keys.contains(&key) {
                let sections: Vec<String> = front_end_keys.iter().map(|k| format!("[{k}]")).collect();
                return Err(manifest.error(
                    manifest.key_at(root, key),
                    &format!(
                        "found the key {}, expected title, [[task]] or {} in a served campaign",
                        kgeval_formats::echo(key),
                        sections.join(", ")
                    ),
                ));
            }
        }
        let title = match manifest.string(root, "title")? {
            Some(title) => title.to_owned(),
            None => path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        };
        let base = path.parent().unwrap_or(Path::new(""));
        let reader = Reader { manifest, text, base };
        let tables = manifest.tables(root, "task")?;
        if tables.is_empty() {
            return Err(manifest.error(None, "found no [[task]], expected at least one task to serve"));
        }
        let mut tasks = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for table in tables {
            let name = reader.name(table, "task", &names)?;
            names.push(name.clone());
            tasks.push(served_task(&reader, table, name)?);
        }
        Ok(ServedCampaign { title, manifest: path.to_path_buf(), tasks })
    }

    /// The task named `name`.
    #[must_use]
    pub fn task(&self, name: &str) -> Option<&ServedTask> {
        self.tasks.iter().find(|t| t.name == name)
    }
}

/// One `[[task]]` of a served campaign.
fn served_task(reader: &Reader<'_>, table: ManifestTable<'_>, name: String) -> Result<ServedTask, Error> {
    let m = reader.manifest;
    let family = m.family(table)?.ok_or_else(|| {
        m.error(
            table.span,
            &format!(
                "found a [[task]] without a family, expected family = one of {}",
                SERVED.map(|(f, _)| f.name()).join(", ")
            ),
        )
    })?;
    let Some((_, system_keys)) = SERVED.iter().find(|(f, _)| *f == family) else {
        return Err(m.error(
            m.value_at(table, "family"),
            &format!(
                "found family {family}, expected one that can be served: {}",
                SERVED.map(|(f, _)| f.name()).join(", ")
            ),
        ));
    };
    if let Some(key) = system_keys.iter().find(|k| table.table.contains_key(k)) {
        return Err(m.error(
            m.key_at(table, key),
            &format!("found `{key}` in a served task, expected none: each upload is one system"),
        ));
    }
    if table.table.contains_key("compare") {
        return Err(m.error(
            m.key_at(table, "compare"),
            "found `compare` in a served task, expected none: the leaderboard compares the submissions that count",
        ));
    }
    reader.refuse_empty_lists(table)?;
    let Some(primary) = m.string(table, "primary")? else {
        return Err(m.error(
            table.span,
            "found a served [[task]] without primary, expected primary = \"METRIC\" (the headline metric that ranks \
             the leaderboard)",
        ));
    };
    let primary_at = m.at(m.value_at(table, "primary"));
    if !crate::gate::may_name_a_headline(primary) {
        return Err(Error::invalid(format!(
            "{primary_at}: found primary = {}, expected a headline metric (map, P_10, ndcg_cut_10, f1, qald_f, …)",
            kgeval_formats::echo(primary)
        )));
    }
    let phases = phases(m, table)?;
    let edited = super::served_upload::with_placeholders(m, table, family)?;
    let mut task = match &edited {
        // Align and rank pairs hold a placeholder system, replaced by each upload.
        Some(copy) => m.task_with(ManifestTable { table: copy, span: table.span }, &SERVED_KEYS, &[])?,
        None => m.task_with(table, &SERVED_KEYS, &[(system_keys[0], Value::Array(Array::new()))])?,
    }
    .resolved(reader.base);
    if let Task::Trec(trec) = &mut task {
        // Every judged topic counts (trec_eval -c): averaged over the topics an upload holds,
        // a run of its one best topic would top the leaderboard.
        if table.table.get("complete").and_then(toml_edit::Item::as_bool) == Some(false) {
            return Err(m.error(
                m.value_at(table, "complete"),
                "found complete = false in a served trec task, expected every judged topic to count (a run of one \
                 good topic would otherwise top the leaderboard)",
            ));
        }
        trec.complete = true;
    }
    if let Task::Kgc(kgc) = &mut task {
        // The leaderboard's significance test reads every question's values.
        if table.table.get("per_item").and_then(toml_edit::Item::as_bool) == Some(false) {
            return Err(m.error(
                m.value_at(table, "per_item"),
                "found per_item = false in a served kgc task, expected per-question values (the leaderboard's \
                 significance test reads them)",
            ));
        }
        kgc.per_item = true;
    }
    if let Task::Rank(rank) = &task {
        rank.pair_names().map_err(|e| m.error(table.span, &e.to_string()))?;
    }
    reader.check_inputs(table, &task.input_paths())?;
    let served =
        ServedTask { name, task, primary: primary.to_owned(), primary_at, phases, gold: Arc::new(OnceLock::new()) };
    super::served_upload::check_pair_names(&served.pair_names()).map_err(|e| m.error(table.span, &e))?;
    Ok(served)
}

/// A task's `phases = ["…", …]`: names, at least one, each once.
fn phases(m: &TomlManifest<'_>, table: ManifestTable<'_>) -> Result<Option<Vec<(String, String)>>, Error> {
    let Some(item) = table.table.get("phases") else { return Ok(None) };
    let at = m.value_at(table, "phases");
    let Some(array) = item.as_array() else {
        return Err(m.error(at, "found phases that is not a list, expected phases = [\"NAME\", …]"));
    };
    if array.is_empty() {
        return Err(m.error(at, "found phases = [], expected at least one phase (leave the key out for all)"));
    }
    let mut names: Vec<(String, String)> = Vec::new();
    for value in array {
        let place = m.at(value.span().map(|s| s.start).or(at));
        let Some(name) = value.as_str() else {
            return Err(Error::invalid(format!("{place}: found a phase that is not a string, expected a phase name")));
        };
        if names.iter().any(|(n, _)| n == name) {
            return Err(Error::invalid(format!(
                "{place}: found phase {} twice, expected each phase once",
                kgeval_formats::echo(name)
            )));
        }
        names.push((name.to_owned(), place));
    }
    Ok(Some(names))
}

impl ServedTask {
    /// Whether the task is open in `phase`.
    #[must_use]
    pub fn open_in(&self, phase: &str) -> bool {
        self.phases.as_ref().is_none_or(|p| p.iter().any(|(n, _)| n == phase))
    }

    /// Scores one upload as the system `system`: the task's gold and options, the upload as
    /// its one system — what `kgeval FAMILY` gives on the same file. Gzip is decompressed.
    /// The gold is read once ([`ServedTask::read_gold`], else by the first score) and kept:
    /// every score, of this task and its clones, reads only the upload.
    ///
    /// What the scoring says names the gold [`THE_GOLD`](crate::THE_GOLD) (`the gold`, `the
    /// gold's URI list`, `the gold's pools of pair P`, `the gold's test split`, a QALD
    /// endpoint `the task's endpoint`), never an organiser's path: the gold is kept under
    /// those names.
    ///
    /// # Errors
    /// As the family's task: a malformed upload is [`Error::Format`] (`NAME:LINE:COL: …`, the
    /// name the input was given), an upload that does not fit the gold [`Error::Unfit`] (or a
    /// reader's error that concerns it: [`Error::concern`] tells the two apart); an upload (or
    /// a part) with no content, or with no item of its own, is [`Error::Format`] at
    /// `NAME:1:1`. A gold that cannot be read (when [`ServedTask::read_gold`] did not read it
    /// first) is an [`Error::Invalid`] that says so without naming its files (logged with
    /// them).
    pub fn score(&self, system: &str, upload: Input) -> Result<Evaluation, Error> {
        self.score_until(system, upload, None)
    }

    /// [`ServedTask::score`] finished by `deadline`: a QALD task's queries are cancelled when
    /// it comes (each query also under the task's `timeout`), so a scorer under a time limit
    /// does not outlive it. Other families read and score the upload in time proportional to
    /// its size, and take no deadline.
    ///
    /// # Errors
    /// As [`ServedTask::score`]; a QALD query still running at `deadline` is an
    /// [`Error::Invalid`] at its question.
    pub fn score_until(&self, system: &str, upload: Input, deadline: Option<Instant>) -> Result<Evaluation, Error> {
        let upload = super::served_checks::refuse_empty(upload)?;
        let name = upload.name();
        let task = self.with_systems(vec![SystemInput::named(system, upload.clone())])?;
        let progress = &NoProgress;
        let gold = self.gold().map_err(|e| {
            tracing::error!(task = %self.name, "the gold cannot be read: {}", crate::campaign::one_line(&e));
            Error::invalid(format!(
                "task {}: {} cannot be read; the organisers have the log",
                self.name,
                crate::THE_GOLD
            ))
        })?;
        let evaluation = match (&task, gold) {
            (Task::Trec(task), Gold::Trec(gold)) => task.run_with_gold(gold, progress),
            (Task::Qald(task), Gold::Qald(gold)) => task.run_with_gold_until(gold, progress, deadline),
            (Task::Lexicon(task), Gold::Lexicon(gold)) => task.run_with_gold(gold, progress),
            (Task::Align(task), Gold::Align(gold)) => task.run_with_gold(gold, progress),
            (Task::Rank(task), Gold::Rank(gold)) => task.run_with_gold(gold, progress),
            (Task::Kgc(task), Gold::Kgc(gold)) => task.run_with_gold(gold, progress),
            _ => Err(Error::invalid(format!("task {}: its gold was read for another family", self.name))),
        }
        .map_err(|e| super::served_format::name_the_format(self.task.family(), &upload, e))?;
        super::served_checks::refuse_no_item(&evaluation, &name)?;
        Ok(evaluation)
    }

    /// Reads the task's gold now (a server: at its start), unless it was read already; later
    /// scores use it as read then, even if the files change or go. The gold is kept under
    /// the names of [`ServedTask::score`]; this call's errors name the files (for the
    /// organiser).
    ///
    /// # Errors
    /// A gold file that cannot be read or is malformed.
    pub fn read_gold(&self) -> Result<(), Error> {
        self.gold().map(drop)
    }

    /// The gold kept for scoring, read now if it was not yet.
    fn gold(&self) -> Result<&Gold, Error> {
        if let Some(gold) = self.gold.get() {
            return Ok(gold);
        }
        // Kept under the names its teams may see; an alignment's gold keeps no name.
        let names = GoldNames::Hidden;
        let gold = match &self.task {
            Task::Trec(task) => Gold::Trec(task.read_gold_named(names)?),
            Task::Qald(task) => Gold::Qald(task.read_gold_named(names)?),
            Task::Lexicon(task) => Gold::Lexicon(task.read_gold_named(names)?),
            Task::Align(task) => Gold::Align(task.read_gold()?),
            Task::Rank(task) => Gold::Rank(task.read_gold_named(names)?),
            Task::Kgc(task) => Gold::Kgc(Box::new(task.read_gold_named(names)?)),
        };
        // Two first scores at once may both read it; the first one kept is used by all.
        Ok(self.gold.get_or_init(|| gold))
    }

    /// What a person reads for each item of the task's per-item values, where the gold has it:
    /// a QALD question's text (English where given), by question id. Empty for other families.
    ///
    /// # Errors
    /// The gold cannot be read.
    pub fn item_labels(&self) -> Result<Vec<(String, String)>, Error> {
        Ok(match self.gold()? {
            Gold::Qald(gold) => gold.question_texts(),
            _ => Vec::new(),
        })
    }

    /// The primary metric's canonical name, as scores and leaderboards name it: the campaign's
    /// alias resolved (`mrr` and `rr` are `recip_rank`, `hits_at_10` is `hits@10`).
    #[must_use]
    pub fn primary_name(&self) -> String {
        kgeval_model::metric_names::canonical_metric_name(&self.primary).into_owned()
    }

    /// The primary metric's name in `evaluation`'s table, its value for `system`, and
    /// whether higher is better.
    ///
    /// # Errors
    /// [`Error::Invalid`] at the `primary` value when the table has no such headline
    /// (listing those it has).
    pub fn primary_value(&self, evaluation: &Evaluation, system: &str) -> Result<PrimaryValue, Error> {
        let table = &evaluation.table;
        let found = crate::gate::resolve_headline(table, &self.primary).and_then(|name| {
            let metric = table.find_metric(name)?;
            let value = table.headline(table.find_system(system)?, metric)?;
            Some(PrimaryValue {
                metric: name.to_owned(),
                value,
                higher_is_better: table.metric_info(metric).direction != Direction::Lower,
            })
        });
        found.ok_or_else(|| {
            let available: Vec<String> = headlines(evaluation, system).into_iter().map(|(m, _)| m).collect();
            Error::invalid(format!(
                "{}: found primary = {}, expected one of the task's headline metrics: {}",
                self.primary_at,
                kgeval_formats::echo(&self.primary),
                available.join(", ")
            ))
        })
    }

    /// Checks `primary` against the task's gold before any upload (reading the gold, if it
    /// was not yet): a trec task evaluates a one-document probe run (its first judged
    /// document) and resolves the primary in that table; other families are checked on their
    /// first scored file (a baseline).
    ///
    /// # Errors
    /// The gold cannot be read, or the primary names no headline of the task.
    pub fn check_primary(&self) -> Result<(), Error> {
        let (Task::Trec(task), Gold::Trec(gold)) = (&self.task, self.gold()?) else { return Ok(()) };
        let qrels = gold.qrels();
        let Some((qid, docno)) = qrels.topics().find_map(|(q, t)| t.iter().next().map(|(d, _)| (q, d))) else {
            return Err(Error::invalid(format!("{}: the qrels judge no document", task.qrels)));
        };
        let mut run = Run::default();
        run.push(qid, docno, 1.0);
        let evaluation = task.run_in_memory(qrels, &task.qrels.name(), &[("probe".to_owned(), run)])?;
        self.primary_value(&evaluation, "probe").map(|_| ())
    }
}

/// The primary metric of one scored system.
#[derive(Debug, Clone, PartialEq)]
pub struct PrimaryValue {
    /// Its name in the score table.
    pub metric: String,
    /// The system's headline value.
    pub value: f64,
    /// Whether a larger value ranks higher.
    pub higher_is_better: bool,
}

/// Every headline (metric, value) of `system`, in the table's metric order.
#[must_use]
pub fn headlines(evaluation: &Evaluation, system: &str) -> Vec<(String, f64)> {
    let table = &evaluation.table;
    let Some(id) = table.find_system(system) else { return Vec::new() };
    table
        .metrics()
        .filter_map(|name| {
            let metric = table.find_metric(name)?;
            table.headline(id, metric).map(|v| (name.to_owned(), v))
        })
        .collect()
}

/// Every per-item (item, metric, value) of `system`, in the table's order.
#[must_use]
pub fn item_values(evaluation: &Evaluation, system: &str) -> Vec<(String, String, f64)> {
    let table = &evaluation.table;
    let Some(id) = table.find_system(system) else { return Vec::new() };
    table
        .rows()
        .into_iter()
        .filter(|(s, _, _, _)| *s == id)
        .map(|(_, item, metric, value)| {
            (table.item_info(item).name.clone(), table.metric_name(metric).to_owned(), value)
        })
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use std::path::Path;

    use super::ServedCampaign;
    use crate::toml_doc::TomlManifest;
    use crate::Input;

    /// The campaign file the tests' campaigns are read as (its folder: the bundled campaigns').
    pub(in crate::campaign) const FILE: &str = "../../testdata/campaigns/s.toml";

    /// A served campaign from `text`, as the file [`FILE`].
    pub(in crate::campaign) fn read(text: &str) -> Result<ServedCampaign, crate::Error> {
        let manifest = TomlManifest::parse(text, FILE)?;
        ServedCampaign::from_manifest(&manifest, text, Path::new(FILE), &["serve"])
    }

    const TREC: &str = "[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"../trec_eval/test/qrels.test\"\n";

    #[test]
    fn a_trec_task_scores_an_upload_as_kgeval_trec() {
        let text = format!("title = \"Demo\"\n{TREC}measures = [\"map\", \"P.10\"]\nprimary = \"map\"\n[serve]\n");
        let campaign = read(&text).expect("a campaign");
        let task = campaign.task("adhoc").expect("the task");
        task.check_primary().expect("map is a headline");
        assert!(task.open_in("anything"));
        let bytes = std::fs::read("../../testdata/trec_eval/test/results.test").expect("the run");
        let evaluation = task.score("team", Input::from_bytes("upload", bytes)).expect("scored");
        let primary = task.primary_value(&evaluation, "team").expect("map");
        let cli = crate::trec::TrecTask::new("../../testdata/trec_eval/test/qrels.test")
            .run_file("team=../../testdata/trec_eval/test/results.test")
            .measure("map")
            .run(&crate::NoProgress)
            .expect("kgeval trec");
        assert_eq!(Some(primary.value), cli.headline("team", "map"));
        assert!(primary.higher_is_better);
        let error = task.score("team", Input::from_bytes("upload", b"301 Q0 doc\n".to_vec())).expect_err("malformed");
        assert!(error.to_string().starts_with("upload:1:"), "{error}");
    }

    #[test]
    fn the_primary_is_named_as_scores_name_it() {
        let text = format!("title = \"Demo\"\n{TREC}measures = [\"recip_rank\"]\nprimary = \"mrr\"\n[serve]\n");
        let campaign = read(&text).expect("a campaign");
        let task = campaign.task("adhoc").expect("the task");
        assert_eq!((task.primary.as_str(), task.primary_name()), ("mrr", "recip_rank".to_owned()));
        let bytes = std::fs::read("../../testdata/trec_eval/test/results.test").expect("the run");
        let evaluation = task.score("team", Input::from_bytes("upload", bytes)).expect("scored");
        assert_eq!(task.primary_value(&evaluation, "team").expect("mrr").metric, task.primary_name());
    }

    #[test]
    fn a_trec_task_reads_its_qrels_once() {
        let dir = tempfile::tempdir().expect("a folder");
        let qrels = dir.path().join("qrels");
        std::fs::copy("../../testdata/trec_eval/test/qrels.test", &qrels).expect("the qrels copied");
        let file = dir.path().join("c.toml");
        let text = "[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"qrels\"\nmeasures = [\"map\"]\nprimary = \"map\"\n";
        let name = file.to_string_lossy().into_owned();
        let manifest = TomlManifest::parse(text, &name).expect("parsed");
        let campaign = ServedCampaign::from_manifest(&manifest, text, &file, &[]).expect("a campaign");
        let task = campaign.task("adhoc").expect("the task").clone();
        task.check_primary().expect("map is a headline");
        let run = std::fs::read("../../testdata/trec_eval/test/results.test").expect("the run");
        let map = |task: &super::ServedTask| {
            let evaluation = task.score("team", Input::from_bytes("upload", run.clone())).expect("scored");
            task.primary_value(&evaluation, "team").expect("map").value
        };
        let first = map(&task);
        // Gone from the disk: the kept qrels still score, the same, in the campaign's own task too.
        std::fs::remove_file(&qrels).expect("removed");
        assert_eq!(map(&task), first);
        assert_eq!(map(&campaign.tasks[0]), first);
    }

    #[test]
    fn errors_point_into_the_campaign_file() {
        let error = |text: &str| read(text).expect_err("an error").to_string();
        assert_eq!(
            error(&format!("{TREC}primary = \"mapp\"\n")),
            format!("{FILE}:5:11: found primary = \"mapp\", expected a headline metric (map, P_10, ndcg_cut_10, f1, qald_f, …)")
        );
        assert!(error(&format!("{TREC}primary = \"map\"\nruns = [\"a.txt\"]\n"))
            .starts_with(&format!("{FILE}:6:1: found `runs`")));
        assert!(error(&format!("{TREC}primary = \"map\"\nphases = [\"a\", \"a\"]\n"))
            .starts_with(&format!("{FILE}:6:16: found phase \"a\" twice")));
        assert!(
            error(&format!("{TREC}\n")).starts_with(&format!("{FILE}:1:1: found a served [[task]] without primary"))
        );
        assert!(error(&format!("{TREC}primary = \"map\"\n[other]\n"))
            .starts_with(&format!("{FILE}:6:2: found the key \"other\"")));
        let text = format!("{TREC}primary = \"recall\"\n");
        let campaign = read(&text).expect("recall may name a headline");
        let message = campaign.tasks[0].check_primary().expect_err("not a trec headline").to_string();
        assert!(message.starts_with(&format!("{FILE}:5:11: found primary = \"recall\", expected one of")), "{message}");
    }
}
