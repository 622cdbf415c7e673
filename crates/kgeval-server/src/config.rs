//! The campaign file of `kgeval serve`: the facade's served campaign (tasks, primary metrics,
//! the phases each task is open in) plus the `[serve]` section read here — phases with their
//! dates, feedback, leaderboard visibility, counting rule and limits; baselines; the upload
//! size and scoring time limits. Every error is one `FILE:LINE:COL: …` line.

use std::path::{Path, PathBuf};

use kgeval::campaign::ServedCampaign;
use kgeval::toml_doc::{ManifestTable, TomlManifest};
use serde::Deserialize;

use crate::{clock, Error};

pub mod connections;
pub mod registration;
mod status;
pub mod workers;

pub use connections::Connections;
pub use registration::Registration;
pub use workers::{default_memory_limit, machine_memory, MAX_WORKERS, MIN_MEMORY_LIMIT};

/// The default largest upload: 64 MiB.
pub const DEFAULT_MAX_UPLOAD: u64 = 64 << 20;

/// The default scoring time limit, in seconds.
pub const DEFAULT_TIME_LIMIT: f64 = 60.0;

/// The default number of authenticated requests a team may make in a minute.
pub const DEFAULT_REQUESTS_PER_MINUTE: u32 = 600;

/// A campaign as `kgeval serve` runs it.
#[derive(Debug, Clone)]
pub struct Campaign {
    /// The tasks (the facade decides what they are and how an upload is scored).
    pub served: ServedCampaign,
    /// The phases, in time order, not overlapping.
    pub phases: Vec<Phase>,
    /// The organisers' baselines.
    pub baselines: Vec<Baseline>,
    /// The largest upload accepted, in bytes (compressed as sent).
    pub max_upload: u64,
    /// The longest one scoring may take, in seconds.
    pub time_limit: f64,
    /// The authenticated requests a team may make in a minute (a burst of as many, then one
    /// every `60 / N` seconds).
    pub requests_per_minute: u32,
    /// How many worker processes score uploads (default: one per core).
    pub workers: usize,
    /// The memory one scoring may take, in bytes, past what its worker holds after reading
    /// the gold (default: [`default_memory_limit`]).
    pub memory_limit: u64,
    /// The connection limits (header time, body rate, open connections).
    pub connections: Connections,
    /// How teams join: added by the organisers, or registered with an invite code.
    pub registration: Registration,
}

/// What a team sees of its own submission in a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Feedback {
    /// Headline scores and per-item values.
    Items,
    /// Headline scores.
    Summary,
    /// Only that it was received (a blind test phase).
    None,
}

/// Who sees a phase's leaderboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// Everyone.
    Public,
    /// The organisers only.
    Hidden,
    /// Everyone from this instant (Unix seconds) on; the organisers before.
    After(i64),
}

/// Which submission of a team counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Counts {
    /// The best by the primary metric (the earliest of equal ones).
    Best,
    /// The last scored.
    Last,
}

/// Upload limits per team, task and phase; invalid and failed uploads are not counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limit {
    /// Uploads per UTC day.
    pub per_day: Option<u32>,
    /// Uploads in the whole phase.
    pub total: Option<u32>,
}

/// One `[[serve.phase]]`.
#[derive(Debug, Clone)]
pub struct Phase {
    /// Its name (letters, digits, `.`, `_`, `-`).
    pub name: String,
    /// Open from this instant (Unix seconds, inclusive).
    pub from: i64,
    /// Open until this instant (exclusive).
    pub until: i64,
    /// What a team sees of its own submissions.
    pub feedback: Feedback,
    /// Who sees the leaderboard.
    pub leaderboard: Visibility,
    /// Which submission of a team counts.
    pub counts: Counts,
    /// The upload limits.
    pub limit: Limit,
}

impl Phase {
    /// Whether everyone may see the leaderboard at `now`.
    #[must_use]
    pub fn public_at(&self, now: i64) -> bool {
        match self.leaderboard {
            Visibility::Public => true,
            Visibility::Hidden => false,
            Visibility::After(at) => now >= at,
        }
    }
}

/// One `[[serve.baseline]]`: an organiser's upload, scored at start and shown on the task's
/// leaderboards, marked: `file = "PATH"`, or for a task of several pairs `files = { PAIR =
/// "PATH", … }` (one file per pair, as a team uploads one part per pair).
#[derive(Debug, Clone)]
pub struct Baseline {
    /// The task.
    pub task: String,
    /// The system's name on the leaderboard.
    pub name: String,
    /// The files, resolved against the campaign file's folder: `("", file)`, or `(pair,
    /// file)` per pair.
    pub files: Vec<(String, PathBuf)>,
}

impl Baseline {
    /// The baseline as an upload of `task` (read now): its one file, or its files bundled as
    /// the facade stores the parts of an upload.
    ///
    /// # Errors
    /// A file that cannot be read; files that do not fit the task's pairs.
    pub fn upload(&self, task: &kgeval::campaign::ServedTask) -> Result<kgeval::Input, Error> {
        let (name, bytes) = self.bytes(task)?;
        Ok(kgeval::Input::from_bytes(name, bytes))
    }

    /// The baseline's name in error lines (its file, or `baseline NAME` for several) and its
    /// bytes as an upload of `task` (read now).
    ///
    /// # Errors
    /// A file that cannot be read; files that do not fit the task's pairs.
    pub fn bytes(&self, task: &kgeval::campaign::ServedTask) -> Result<(String, Vec<u8>), Error> {
        let name = format!("baseline {}", self.name);
        if let [(pair, file)] = self.files.as_slice() {
            if pair.is_empty() {
                let bytes = std::fs::read(file)
                    .map_err(|e| Error::Campaign(format!("{}: cannot read the baseline: {e}", file.display())))?;
                return Ok((file.display().to_string(), bytes));
            }
        }
        let files: Vec<(String, &Path)> = self.files.iter().map(|(p, f)| (p.clone(), f.as_path())).collect();
        let bytes = task.bundle_files(&files).map_err(|e| Error::Campaign(format!("{name}: {e}")))?;
        Ok((name, bytes.to_vec()))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PhaseRow {
    name: String,
    #[serde(default)]
    feedback: Option<String>,
    #[serde(default)]
    leaderboard: Option<String>,
    #[serde(default)]
    counts: Option<String>,
    #[serde(default)]
    limit: Limit,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineRow {
    task: String,
    name: String,
    #[serde(default)]
    file: Option<PathBuf>,
    #[serde(default)]
    files: std::collections::BTreeMap<String, PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServeRow {
    #[serde(default)]
    max_upload: Option<u64>,
    #[serde(default)]
    time_limit: Option<f64>,
    #[serde(default)]
    requests_per_minute: Option<u32>,
    #[serde(default)]
    workers: Option<usize>,
    #[serde(default)]
    memory_limit: Option<u64>,
    // The connection limits, read in `connections`.
    #[serde(default)]
    header_timeout: Option<f64>,
    #[serde(default)]
    min_body_rate: Option<u64>,
    #[serde(default)]
    body_rate_window: Option<f64>,
    #[serde(default)]
    max_connections: Option<u32>,
    #[serde(default)]
    max_connections_per_client: Option<u32>,
    // Self-registration, read in `registration`.
    #[serde(default)]
    registration: Option<String>,
    #[serde(default)]
    invite_code: Option<String>,
}

impl Campaign {
    /// Reads and checks a campaign file.
    ///
    /// # Errors
    /// [`Error::Campaign`] `FILE:LINE:COL: …` for the first problem.
    pub fn read(path: &Path) -> Result<Campaign, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Campaign(format!("{}: cannot read the campaign file: {e}", path.display())))?;
        Campaign::from_toml(&text, path)
    }

    /// Parses `text`, the campaign file at `path`.
    ///
    /// # Errors
    /// [`Error::Campaign`] `FILE:LINE:COL: …` for the first problem.
    pub fn from_toml(text: &str, path: &Path) -> Result<Campaign, Error> {
        let file = path.display().to_string();
        let m = TomlManifest::parse(text, &file)?;
        let served = ServedCampaign::from_manifest(&m, text, path, &["serve"])?;
        let Some(serve) = m.table(m.root(), "serve")? else {
            return Err(Error::Campaign(m.at(None) + ": found no [serve] section, expected [[serve.phase]] tables"));
        };
        let row: ServeRow = m.deserialize(serve, &["phase", "baseline"])?;
        let phase_tables = m.tables(serve, "phase")?;
        if phase_tables.is_empty() {
            return Err(Error::Campaign(
                m.at(serve.span) + ": found no [[serve.phase]], expected at least one phase (name, from, until)",
            ));
        }
        let mut phases: Vec<Phase> = Vec::new();
        for table in phase_tables {
            let phase = read_phase(&m, table)?;
            if phases.iter().any(|p| p.name == phase.name) {
                return Err(at(
                    &m,
                    table,
                    "name",
                    &format!("found phase {:?} twice, expected each name once", phase.name),
                ));
            }
            if let Some(previous) = phases.last().filter(|p| phase.from < p.until) {
                return Err(at(
                    &m,
                    table,
                    "from",
                    &format!(
                        "found phase {:?} starting before phase {:?} ends ({}), expected phases in time order, not overlapping",
                        phase.name,
                        previous.name,
                        clock::format(previous.until)
                    ),
                ));
            }
            phases.push(phase);
        }
        for task in &served.tasks {
            for (name, place) in task.phases.iter().flatten() {
                if !phases.iter().any(|p| &p.name == name) {
                    let known: Vec<&str> = phases.iter().map(|p| p.name.as_str()).collect();
                    return Err(Error::Campaign(format!(
                        "{place}: found phase {name:?}, expected one of the [[serve.phase]] names: {}",
                        known.join(", ")
                    )));
                }
            }
        }
        let base = path.parent().unwrap_or(Path::new(""));
        let mut baselines = Vec::new();
        for table in m.tables(serve, "baseline")? {
            let row: BaselineRow = m.deserialize(table, &[])?;
            if served.task(&row.task).is_none() {
                return Err(at(
                    &m,
                    table,
                    "task",
                    &format!("found task {:?}, expected the name of a [[task]]", row.task),
                ));
            }
            kgeval::check_name("baseline", &row.name).map_err(|e| at(&m, table, "name", &e.to_string()))?;
            if baselines.iter().any(|b: &Baseline| b.task == row.task && b.name == row.name) {
                return Err(at(
                    &m,
                    table,
                    "name",
                    &format!("found baseline {:?} twice for task {:?}", row.name, row.task),
                ));
            }
            let given: Vec<(String, PathBuf)> = match (&row.file, row.files.is_empty()) {
                (Some(file), true) => vec![(String::new(), file.clone())],
                (None, false) => row.files.iter().map(|(pair, file)| (pair.clone(), file.clone())).collect(),
                _ => return Err(at(
                    &m,
                    table,
                    "file",
                    "expected file = \"PATH\" or files = { PAIR = \"PATH\", … } (one file per pair), one of the two",
                )),
            };
            let mut files = Vec::with_capacity(given.len());
            for (pair, file) in given {
                let file = base.join(file);
                if !file.is_file() {
                    let key = if pair.is_empty() { "file" } else { "files" };
                    return Err(at(
                        &m,
                        table,
                        key,
                        &format!(
                            "found no file {}, expected a baseline file (paths are relative to the campaign)",
                            file.display()
                        ),
                    ));
                }
                files.push((pair, file));
            }
            baselines.push(Baseline { task: row.task, name: row.name, files });
        }
        let time_limit = row.time_limit.unwrap_or(DEFAULT_TIME_LIMIT);
        if !(time_limit.is_finite() && time_limit > 0.0 && time_limit <= 86_400.0) {
            return Err(at(
                &m,
                serve,
                "time_limit",
                "found a time limit that is not a positive number of seconds up to a day",
            ));
        }
        let max_upload = row.max_upload.unwrap_or(DEFAULT_MAX_UPLOAD);
        if max_upload == 0 {
            return Err(at(&m, serve, "max_upload", "found max_upload = 0, expected a positive number of bytes"));
        }
        let requests_per_minute = row.requests_per_minute.unwrap_or(DEFAULT_REQUESTS_PER_MINUTE);
        if requests_per_minute == 0 {
            return Err(at(
                &m,
                serve,
                "requests_per_minute",
                "found requests_per_minute = 0, expected a positive number of requests",
            ));
        }
        let (workers, memory_limit) = workers::read(&m, serve, &row)?;
        let connections = connections::read(&m, serve, &row)?;
        let registration = registration::read(&m, serve, &row)?;
        Ok(Campaign {
            served,
            phases,
            baselines,
            max_upload,
            time_limit,
            requests_per_minute,
            workers,
            memory_limit,
            connections,
            registration,
        })
    }

    /// The phase open at `now`, if any.
    #[must_use]
    pub fn phase_at(&self, now: i64) -> Option<&Phase> {
        self.phases.iter().find(|p| p.from <= now && now < p.until)
    }

    /// The phase named `name`.
    #[must_use]
    pub fn phase(&self, name: &str) -> Option<&Phase> {
        self.phases.iter().find(|p| p.name == name)
    }

    /// The phase a leaderboard shows by default at `now`: the open one, else the last that
    /// started.
    #[must_use]
    pub fn current_or_last(&self, now: i64) -> Option<&Phase> {
        self.phase_at(now).or_else(|| self.phases.iter().rev().find(|p| p.from <= now))
    }
}

/// An error at `key` of `table`.
fn at(m: &TomlManifest<'_>, table: ManifestTable<'_>, key: &str, message: &str) -> Error {
    Error::Campaign(format!("{}: {message}", m.at(m.value_at(table, key))))
}

/// One `[[serve.phase]]`.
fn read_phase(m: &TomlManifest<'_>, table: ManifestTable<'_>) -> Result<Phase, Error> {
    let row: PhaseRow = m.deserialize(table, &["from", "until"])?;
    kgeval::check_name("phase", &row.name).map_err(|e| at(m, table, "name", &e.to_string()))?;
    let valid = row.name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !valid {
        return Err(at(
            m,
            table,
            "name",
            "found a phase name with other characters, expected letters, digits, '.', '_' or '-'",
        ));
    }
    let instant = |key: &str| -> Result<i64, Error> {
        let Some(item) = table.table.get(key) else {
            return Err(Error::Campaign(format!(
                "{}: found a phase without {key}, expected {key} = \"2026-11-01T00:00:00Z\"",
                m.at(table.span)
            )));
        };
        let text = item.as_str().map(str::to_owned).or_else(|| item.as_datetime().map(ToString::to_string));
        text.as_deref().and_then(clock::parse).ok_or_else(|| {
            at(
                m,
                table,
                key,
                &format!("found {key} that is not a date, expected \"2026-11-01T00:00:00Z\" (UTC, or with an offset)"),
            )
        })
    };
    let (from, until) = (instant("from")?, instant("until")?);
    if until <= from {
        return Err(at(m, table, "until", "found until at or before from, expected a phase that lasts"));
    }
    let feedback = match row.feedback.as_deref() {
        None | Some("summary") => Feedback::Summary,
        Some("items") => Feedback::Items,
        Some("none") => Feedback::None,
        Some(other) => {
            return Err(at(
                m,
                table,
                "feedback",
                &format!("found feedback = {other:?}, expected items, summary or none"),
            ))
        }
    };
    let leaderboard = match row.leaderboard.as_deref() {
        None | Some("public") => Visibility::Public,
        Some("hidden") => Visibility::Hidden,
        Some(other) => match other.strip_prefix("after ").and_then(clock::parse) {
            Some(at) => Visibility::After(at),
            None => {
                return Err(at(
                    m,
                    table,
                    "leaderboard",
                    &format!(
                        "found leaderboard = {other:?}, expected public, hidden or \"after 2026-12-20T00:00:00Z\""
                    ),
                ))
            }
        },
    };
    if feedback == Feedback::None && row.leaderboard.is_none() {
        // A blind phase whose leaderboard shows every score to everyone is a contradiction
        // unless the organisers say so.
        return Err(at(
            m,
            table,
            "feedback",
            &format!(
                "found feedback = \"none\" in phase {:?}, whose leaderboard is public by default, expected \
                 leaderboard = \"hidden\" or \"after DATE\" (or leaderboard = \"public\" said explicitly)",
                row.name
            ),
        ));
    }
    let counts = match row.counts.as_deref() {
        None | Some("best") => Counts::Best,
        Some("last") => Counts::Last,
        Some(other) => return Err(at(m, table, "counts", &format!("found counts = {other:?}, expected best or last"))),
    };
    Ok(Phase { name: row.name, from, until, feedback, leaderboard, counts, limit: row.limit })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{Campaign, Counts, Feedback, Visibility};

    const FILE: &str = "../../testdata/campaigns/s.toml";
    const TASK: &str =
        "[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"../trec_eval/test/qrels.test\"\nprimary = \"map\"\n";

    fn read(serve: &str) -> Result<Campaign, crate::Error> {
        Campaign::from_toml(&format!("{TASK}{serve}"), Path::new(FILE))
    }

    #[test]
    fn phases_limits_and_baselines() {
        let campaign = read(
            "[[serve.phase]]\nname = \"training\"\nfrom = \"2026-11-01T00:00:00Z\"\nuntil = 2026-12-01T00:00:00Z\nfeedback = \"items\"\n\
             limit = { per_day = 10, total = 100 }\n\
             [[serve.phase]]\nname = \"test\"\nfrom = \"2026-12-01T00:00:00Z\"\nuntil = \"2026-12-15T00:00:00Z\"\nfeedback = \"none\"\n\
             leaderboard = \"after 2026-12-20T00:00:00Z\"\ncounts = \"last\"\n\
             [[serve.baseline]]\ntask = \"adhoc\"\nname = \"BM25\"\nfile = \"../trec_eval/test/results.test\"\n",
        )
        .expect("a campaign");
        let [training, test] = &campaign.phases[..] else { panic!("two phases") };
        assert_eq!(
            (training.feedback, training.counts, training.limit.per_day, training.limit.total),
            (Feedback::Items, Counts::Best, Some(10), Some(100))
        );
        assert_eq!((test.feedback, test.counts), (Feedback::None, Counts::Last));
        let after = crate::clock::parse("2026-12-20T00:00:00Z").expect("a date");
        assert_eq!(test.leaderboard, Visibility::After(after));
        assert!(!test.public_at(after - 1) && test.public_at(after));
        assert_eq!(campaign.phase_at(training.until).map(|p| p.name.as_str()), Some("test"));
        assert_eq!(campaign.current_or_last(test.until + 5).map(|p| p.name.as_str()), Some("test"));
        assert_eq!(campaign.baselines[0].name, "BM25");
    }

    #[test]
    fn errors_are_located() {
        let phase =
            "[[serve.phase]]\nname = \"t\"\nfrom = \"2026-11-01T00:00:00Z\"\nuntil = \"2026-12-01T00:00:00Z\"\n";
        let error = |serve: &str| read(serve).expect_err("an error").to_string();
        assert!(error(&format!("{phase}feedback = \"all\"\n"))
            .starts_with(&format!("{FILE}:10:12: found feedback = \"all\"")));
        assert!(error(&format!("{phase}limit = {{ per_dya = 3 }}\n"))
            .starts_with(&format!("{FILE}:10:11: unknown field `per_dya`")));
        assert!(error("[[serve.phase]]\nname = \"t\"\nfrom = \"soon\"\nuntil = \"2026-12-01T00:00:00Z\"\n")
            .starts_with(&format!("{FILE}:8:8: found from that is not a date")));
        assert!(error(&format!(
            "{phase}[[serve.phase]]\nname = \"u\"\nfrom = \"2026-11-30T00:00:00Z\"\nuntil = \"2026-12-31T00:00:00Z\"\n"
        ))
        .starts_with(&format!("{FILE}:12:8: found phase \"u\" starting before")));
        assert!(error(&format!("{phase}[[serve.baseline]]\ntask = \"adhoc2\"\nname = \"b\"\nfile = \"x\"\n"))
            .starts_with(&format!("{FILE}:11:8: found task \"adhoc2\"")));
        let text = format!("{TASK}phases = [\"training\"]\n{phase}");
        let message = Campaign::from_toml(&text, Path::new(FILE)).expect_err("unknown phase").to_string();
        assert!(
            message.starts_with(&format!(
                "{FILE}:6:11: found phase \"training\", expected one of the [[serve.phase]] names: t"
            )),
            "{message}"
        );
        assert!(error("").starts_with(&format!("{FILE}:1:1: found no [serve] section")));
    }

    #[test]
    fn a_blind_phase_with_a_public_leaderboard_must_say_so() {
        let phase =
            "[[serve.phase]]\nname = \"t\"\nfrom = \"2026-11-01T00:00:00Z\"\nuntil = \"2026-12-01T00:00:00Z\"\n";
        let message = read(&format!("{phase}feedback = \"none\"\n")).expect_err("a contradiction").to_string();
        assert!(
            message.starts_with(&format!("{FILE}:10:12: found feedback = \"none\" in phase \"t\", whose leaderboard")),
            "{message}"
        );
        for visibility in ["public", "hidden", "after 2026-12-20T00:00:00Z"] {
            let campaign = read(&format!("{phase}feedback = \"none\"\nleaderboard = \"{visibility}\"\n"))
                .unwrap_or_else(|e| panic!("{visibility}: {e}"));
            assert_eq!(campaign.phases[0].feedback, Feedback::None);
        }
    }

    #[test]
    fn a_time_limit_is_at_most_a_day() {
        let phase =
            "[[serve.phase]]\nname = \"t\"\nfrom = \"2026-11-01T00:00:00Z\"\nuntil = \"2026-12-01T00:00:00Z\"\n";
        let message = read(&format!("[serve]\ntime_limit = 1e300\n{phase}")).expect_err("too long").to_string();
        assert!(message.starts_with(&format!("{FILE}:7:14: found a time limit that is not a positive")), "{message}");
        assert!(read(&format!("[serve]\ntime_limit = 86400\n{phase}")).is_ok());
    }
}
