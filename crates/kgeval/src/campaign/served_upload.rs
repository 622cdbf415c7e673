//! What one upload of a served task is, family by family, and how it becomes the family's
//! task with the upload as its system.
//!
//! | family | one upload | parts |
//! |---|---|---|
//! | `trec` | a TREC run | one file |
//! | `qald` | a QALD answers file (XML or JSON) | one file |
//! | `lexicon` | a lemon lexicon | one file |
//! | `align` | an alignment per pair (any format `kgeval align` reads) | one per `[[task.pair]]`, named by the pair |
//! | `rank` | a local-ranking submission per pair (DISO JSONL, scored JSONL or TSV) | one per `[[task.pair]]`, named by the pair |
//! | `kgc` | a per-answer ranks file (`head relation tail side rank […]`, what `kgeval kgc --ranks` reads) | one file |
//!
//! A task of one pair takes one file (a raw body, or a form with one part named by the pair);
//! a task of several pairs takes one part per pair. The parts of such an upload are stored as
//! one byte string, [`encode_parts`] (so a stored upload is one file with one SHA-256, scored
//! again by [`super::ServedTask::score`] as it was the first time).

use std::path::Path;
use std::sync::Arc;

use toml_edit::{Array, Item, Table, Value};

use super::ServedTask;
use crate::toml_doc::{ManifestTable, TomlManifest};
use crate::{Error, Family, Input, SystemInput, Task};

/// The first line of stored parts ([`encode_parts`]).
const MAGIC: &[u8] = b"kgeval-parts 1\n";

/// The keys of a `[[task.pair]]` that name a system, per family (a served task's uploads are
/// its systems).
fn pair_system_keys(family: Family) -> &'static [&'static str] {
    match family {
        Family::Align => &["systems", "system", "track"],
        Family::Rank => &["submission"],
        _ => &[],
    }
}

/// A copy of a served `[[task]]` table whose pairs hold a placeholder system (standard input,
/// replaced by each upload), so the family's task deserialises without one; `None` for a
/// family without pairs.
///
/// # Errors
/// [`Error::Invalid`] at a pair's key naming a system (or an align pair's `track`: systems of
/// a track are renamed `track:system`, and the upload names its system).
pub(super) fn with_placeholders(
    m: &TomlManifest<'_>,
    table: ManifestTable<'_>,
    family: Family,
) -> Result<Option<Table>, Error> {
    let keys = pair_system_keys(family);
    if keys.is_empty() {
        return Ok(None);
    }
    let (placeholder_key, placeholder) = match family {
        Family::Align => ("systems", Value::Array(Array::from_iter(["-"]))),
        _ => ("submission", Value::from("-")),
    };
    let mut copy = Table::new();
    let mut has_pairs = false;
    for (name, _) in table.table.iter() {
        let Some((key, item)) = table.table.get_key_value(name) else { continue };
        let mut item = item.clone();
        if name == "pair" || name == "pairs" {
            has_pairs = true;
            for pair in m.tables(table, name)? {
                if let Some(found) = keys.iter().find(|k| pair.table.contains_key(k)) {
                    let why =
                        if *found == "track" { "the upload names its system" } else { "each upload is one system" };
                    return Err(m.error(
                        m.key_at(pair, found),
                        &format!("found `{found}` in a served task's pair, expected none: {why}"),
                    ));
                }
            }
            match &mut item {
                Item::ArrayOfTables(tables) => {
                    for pair in tables.iter_mut() {
                        pair.insert(placeholder_key, Item::Value(placeholder.clone()));
                    }
                }
                Item::Value(Value::Array(values)) => {
                    for value in values.iter_mut() {
                        if let Value::InlineTable(pair) = value {
                            pair.insert(placeholder_key, placeholder.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        copy.insert_formatted(key, item);
    }
    if !has_pairs && family == Family::Align {
        copy.insert(placeholder_key, Item::Value(placeholder));
    }
    Ok(Some(copy))
}

/// The names a form's fields have beside the parts named by pairs (the system's `name`, and
/// the pages' `file`, `token`, `task`, `system`): no pair of a served task may take one.
pub const FORM_FIELDS: [&str; 5] = ["name", "file", "token", "task", "system"];

/// Checks the pairs' names of a served task: each once, none a form field's
/// ([`FORM_FIELDS`]), no control character (a part's name is a line of the stored parts).
///
/// # Errors
/// One line naming the pair.
pub(super) fn check_pair_names(names: &[String]) -> Result<(), String> {
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(format!("found pair {} twice, expected each pair once", kgeval_formats::echo(name)));
        }
        if FORM_FIELDS.contains(&name.as_str()) || name.chars().any(char::is_control) {
            return Err(format!(
                "found pair {} in a served task, expected a name without control characters and other than {} \
                 (the upload form's fields)",
                kgeval_formats::echo(name),
                FORM_FIELDS.join(", ")
            ));
        }
    }
    Ok(())
}

impl ServedTask {
    /// The parts an upload has: the pairs' names of an `align` or `rank` task of two or more
    /// pairs, in the task's order; empty when an upload is one file.
    #[must_use]
    pub fn parts(&self) -> Vec<String> {
        let names = self.pair_names();
        if names.len() >= 2 {
            names
        } else {
            Vec::new()
        }
    }

    /// The pairs' names of an `align` or `rank` task (empty for other families).
    #[must_use]
    pub fn pair_names(&self) -> Vec<String> {
        match &self.task {
            Task::Align(task) => task.pairs.iter().map(|p| p.name.clone()).collect(),
            Task::Rank(task) => task.pairs.iter().map(crate::rank::RankPair::resolved_name).collect(),
            _ => Vec::new(),
        }
    }

    /// The bytes to store (and score) for an upload of named parts: a task of one pair takes
    /// one part named by the pair (its bytes are the file); a task of several pairs takes one
    /// part per pair, each once, stored as [`encode_parts`] in the task's pair order; other
    /// families take no named part.
    ///
    /// # Errors
    /// [`Error::Invalid`], one line naming the part: a part no pair of the task has, a pair
    /// given twice or not at all, a family whose upload is one file.
    pub fn bundle(&self, parts: &[(String, Arc<[u8]>)]) -> Result<Arc<[u8]>, Error> {
        let pairs = self.pair_names();
        let expected = || pairs.iter().map(|p| kgeval_formats::echo(p)).collect::<Vec<_>>().join(", ");
        if pairs.is_empty() {
            return Err(Error::invalid(format!(
                "found a form with parts {}, expected one file: a {} task takes no part per pair",
                parts.iter().map(|(n, _)| kgeval_formats::echo(n)).collect::<Vec<_>>().join(", "),
                self.task.family()
            )));
        }
        for (i, (name, _)) in parts.iter().enumerate() {
            if !pairs.contains(name) {
                return Err(Error::invalid(format!(
                    "found part {}, expected one part per pair of the task: {}",
                    kgeval_formats::echo(name),
                    expected()
                )));
            }
            if parts[..i].iter().any(|(n, _)| n == name) {
                return Err(Error::invalid(format!(
                    "found part {} twice, expected each pair once",
                    kgeval_formats::echo(name)
                )));
            }
        }
        let mut ordered = Vec::with_capacity(pairs.len());
        for pair in &pairs {
            let Some((_, bytes)) = parts.iter().find(|(n, _)| n == pair) else {
                return Err(Error::invalid(format!(
                    "found no part {}, expected one part per pair of the task: {}",
                    kgeval_formats::echo(pair),
                    expected()
                )));
            };
            ordered.push((pair.as_str(), &bytes[..]));
        }
        match ordered.as_slice() {
            [(_, only)] => Ok(Arc::from(*only)),
            _ => Ok(Arc::from(encode_parts(&ordered))),
        }
    }

    /// The task's gold and options with `systems` as its systems (each an upload as
    /// [`ServedTask::bundle`] stores it, or a file). An upload of a task of several pairs is
    /// split into its parts, each named by its pair (errors read `PAIR:LINE:COL: …`).
    ///
    /// # Errors
    /// [`Error::Invalid`] for a family that cannot be served, an upload of a multi-pair task
    /// that is not its parts, a `rank` task given more than one system (it scores one).
    pub fn with_systems(&self, systems: Vec<SystemInput>) -> Result<Task, Error> {
        Ok(match &self.task {
            Task::Trec(task) => Task::Trec(crate::trec::TrecTask { runs: systems, ..task.clone() }),
            Task::Qald(task) => Task::Qald(crate::qald::QaldTask { systems, ..task.clone() }),
            Task::Lexicon(task) => Task::Lexicon(crate::lexicon::LexiconTask { systems, ..task.clone() }),
            Task::Kgc(task) => Task::Kgc(Box::new(crate::kgc::KgcTask { ranks: systems, ..(**task).clone() })),
            Task::Align(task) => {
                let mut task = task.clone();
                task.pairs.iter_mut().for_each(|p| p.systems.clear());
                for system in systems {
                    let name = system.name.clone().unwrap_or_else(|| system.input.stem());
                    for (pair, input) in task.pairs.iter_mut().zip(self.split(&system.input)?) {
                        pair.systems.push(SystemInput::named(name.clone(), input));
                    }
                }
                Task::Align(task)
            }
            Task::Rank(task) => {
                let [system] = systems.as_slice() else {
                    return Err(Error::invalid(format!(
                        "found {} systems for a rank task, expected one: it scores one submission",
                        systems.len()
                    )));
                };
                let mut task = task.clone();
                task.system = Some(system.name.clone().unwrap_or_else(|| system.input.stem()));
                for (pair, input) in task.pairs.iter_mut().zip(self.split(&system.input)?) {
                    pair.submission = input;
                }
                Task::Rank(task)
            }
        })
    }

    /// One input per pair of an `align` or `rank` task: the input itself for one pair (named
    /// by the pair when it is bytes), its parts (decoded, named by their pairs) for several.
    fn split(&self, input: &Input) -> Result<Vec<Input>, Error> {
        let pairs = self.pair_names();
        if let [pair] = pairs.as_slice() {
            if let Input::Bytes { bytes, .. } = input {
                // Parts that do not fit the pair (a form with a misnamed part, stored as it came).
                if let Some(parts) = decode_parts(bytes) {
                    return Err(self.misfit(parts));
                }
            }
            // An upload's errors name its pair (`brick-smartenv:3:7: …`), as a part's do.
            return Ok(vec![match input {
                Input::Bytes { bytes, .. } => Input::from_bytes(pair.clone(), Arc::clone(bytes)),
                other => other.clone(),
            }]);
        }
        let opened = input.open()?;
        let parts = decode_parts(opened.bytes()).ok_or_else(|| {
            Error::invalid(format!(
                "{}: found one file, expected one part per pair (multipart/form-data with parts named {})",
                input.name(),
                pairs.join(", ")
            ))
        })?;
        if parts.iter().map(|(n, _)| n).ne(pairs.iter()) {
            return Err(self.misfit(parts));
        }
        Ok(parts.into_iter().map(|(name, bytes)| Input::from_bytes(name, bytes)).collect())
    }

    /// Why stored parts do not fit the task's pairs: [`ServedTask::bundle`]'s line (a part
    /// of no pair, a pair twice or missing), else their order.
    fn misfit(&self, parts: Vec<(String, Vec<u8>)>) -> Error {
        let names: Vec<String> = parts.iter().map(|(n, _)| n.clone()).collect();
        let named: Vec<(String, Arc<[u8]>)> = parts.into_iter().map(|(n, b)| (n, Arc::from(b))).collect();
        match self.bundle(&named) {
            Err(error) => error,
            Ok(_) => Error::invalid(format!(
                "found parts {}, expected them in the task's order: {}",
                names.join(", "),
                self.pair_names().join(", ")
            )),
        }
    }

    /// Reads the upload of a baseline given as one file per pair (`(pair, path)`), as
    /// [`ServedTask::bundle`] stores an upload.
    ///
    /// # Errors
    /// A file that cannot be read; the parts do not fit the task's pairs.
    pub fn bundle_files(&self, files: &[(String, &Path)]) -> Result<Arc<[u8]>, Error> {
        let mut parts = Vec::with_capacity(files.len());
        for (pair, path) in files {
            let bytes =
                std::fs::read(path).map_err(|e| Error::invalid(format!("{}: cannot read: {e}", path.display())))?;
            parts.push((pair.clone(), Arc::from(bytes)));
        }
        self.bundle(&parts)
    }
}

/// Several named files as one byte string: the line `kgeval-parts 1`, then per part a line
/// `NAME<TAB>LENGTH` and its bytes, each followed by a line break.
///
/// ```
/// use kgeval::campaign::{decode_parts, encode_parts};
/// let stored = encode_parts(&[("a-b", b"x\ny"), ("c", b"")]);
/// assert_eq!(stored, b"kgeval-parts 1\na-b\t3\nx\ny\nc\t0\n\n");
/// assert_eq!(decode_parts(&stored), Some(vec![("a-b".to_owned(), b"x\ny".to_vec()), ("c".to_owned(), Vec::new())]));
/// assert_eq!(decode_parts(b"a plain file"), None);
/// ```
#[must_use]
pub fn encode_parts(parts: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for (name, bytes) in parts {
        let name: String = name.chars().map(|c| if c == '\t' || c == '\n' { ' ' } else { c }).collect();
        out.extend_from_slice(format!("{name}\t{}\n", bytes.len()).as_bytes());
        out.extend_from_slice(bytes);
        out.push(b'\n');
    }
    out
}

/// The parts of [`encode_parts`]' bytes, in order; `None` for anything else.
#[must_use]
pub fn decode_parts(bytes: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut rest = bytes.strip_prefix(MAGIC)?;
    let mut parts = Vec::new();
    while !rest.is_empty() {
        let end = rest.iter().position(|&b| b == b'\n')?;
        let head = std::str::from_utf8(&rest[..end]).ok()?;
        let (name, length) = head.split_once('\t')?;
        let length: usize = length.parse().ok()?;
        let body = rest.get(end + 1..)?;
        let (content, after) = (body.get(..length)?, body.get(length..)?);
        rest = after.strip_prefix(b"\n")?;
        parts.push((name.to_owned(), content.to_vec()));
    }
    Some(parts)
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use crate::campaign::served::tests::{read, FILE};
    use crate::{Input, NoProgress};

    fn bytes(path: &str) -> Arc<[u8]> {
        Arc::from(std::fs::read(Path::new("../../testdata").join(path)).expect("bundled data"))
    }

    const RANK: &str = "[[task]]\nname = \"t2\"\nfamily = \"rank\"\nprimary = \"mrr\"\n\
        [[task.pair]]\nname = \"uco-stix\"\npools = \"../ranking/diso-oaei/pools/uco-stix/pools.jsonl\"\n\
        gold = \"../ranking/diso-synthetic/uco-stix/gold.tsv\"\n\
        [[task.pair]]\nname = \"stix-d3fend\"\npools = \"../ranking/diso-oaei/pools/stix-d3fend/pools.jsonl\"\n\
        gold = \"../ranking/diso-synthetic/stix-d3fend/gold.tsv\"\n";

    #[test]
    fn a_rank_upload_is_one_part_per_pair_and_scores_as_kgeval_rank() {
        let campaign = read(RANK).expect("a campaign");
        let task = &campaign.tasks[0];
        assert_eq!(task.parts(), ["uco-stix", "stix-d3fend"]);
        let lexical = |pair: &str| bytes(&format!("ranking/diso-synthetic/{pair}/lexical.jsonl"));
        // Parts in any order are stored in the task's order.
        let stored = task
            .bundle(&[("stix-d3fend".into(), lexical("stix-d3fend")), ("uco-stix".into(), lexical("uco-stix"))])
            .expect("both pairs");
        let evaluation = task.score("team", Input::from_bytes("upload", stored)).expect("scored");
        let dir = Path::new("../../testdata/ranking/diso-synthetic");
        let cli = crate::read_family_toml::<crate::rank::RankTask>(&dir.join("task2.toml"), crate::Family::Rank)
            .expect("the manifest")
            .resolved(dir)
            .run(&NoProgress)
            .expect("kgeval rank");
        let system = &cli.systems[0];
        for metric in ["mrr", "hits@1", "hits@10"] {
            assert_eq!(evaluation.headline("team", metric), cli.headline(system, metric), "{metric}");
        }
        assert!(evaluation.headline("team", "mrr").is_some());
        // A malformed part is located in it, by its pair's name.
        let bad = task
            .bundle(&[
                ("uco-stix".into(), lexical("uco-stix")),
                ("stix-d3fend".into(), Arc::from(&b"{\"qid\": 0,\n"[..])),
            ])
            .expect("both pairs");
        let error = task.score("team", Input::from_bytes("upload", bad)).expect_err("malformed");
        let mut causes = std::iter::successors(Some(&error as &dyn std::error::Error), |e| e.source());
        assert!(causes.any(|e| e.to_string().starts_with("stix-d3fend:1:")), "{error:?}");
        // One file, an unknown part, a missing pair: refused, naming the parts.
        let one = task.score("team", Input::from_bytes("upload", lexical("uco-stix"))).expect_err("one file");
        assert!(one.to_string().starts_with("upload: found one file, expected one part per pair"), "{one}");
        let unknown = task.bundle(&[("uco".into(), lexical("uco-stix"))]).expect_err("unknown").to_string();
        assert!(unknown.starts_with("found part \"uco\", expected one part per pair of the task"), "{unknown}");
        let missing = task.bundle(&[("uco-stix".into(), lexical("uco-stix"))]).expect_err("missing").to_string();
        assert!(missing.starts_with("found no part \"stix-d3fend\""), "{missing}");
    }

    #[test]
    fn an_align_upload_scores_as_kgeval_align() {
        let text = "[[task]]\nname = \"t1\"\nfamily = \"align\"\nprofile = \"diso\"\nprimary = \"f1\"\n\
                    [[task.pair]]\nname = \"brick-smartenv\"\nreference = \"../diso/brick-smartenv/Rplus.rdf\"\n";
        let campaign = read(text).expect("a campaign");
        let task = &campaign.tasks[0];
        assert!(task.parts().is_empty(), "one pair: one file");
        let rapprox = bytes("diso/brick-smartenv/Rapprox.rdf");
        let stored = task.bundle(&[("brick-smartenv".into(), Arc::clone(&rapprox))]).expect("the pair");
        assert_eq!(stored, rapprox, "a one-pair upload is stored as its file");
        let evaluation = task.score("team", Input::from_bytes("upload", stored)).expect("scored");
        let pair = crate::align::AlignPair::new("../../testdata/diso/brick-smartenv/Rplus.rdf")
            .system("team=../../testdata/diso/brick-smartenv/Rapprox.rdf");
        let cli = crate::align::AlignTask::new(vec![crate::align::AlignPair { name: "brick-smartenv".into(), ..pair }])
            .profile(crate::align::AlignmentProfile::Diso)
            .run(&NoProgress)
            .expect("kgeval align");
        for metric in ["precision", "recall", "f1"] {
            assert_eq!(evaluation.headline("team", metric), cli.headline("team", metric), "{metric}");
        }
        let primary = task.primary_value(&evaluation, "team").expect("f1");
        assert_eq!(Some(primary.value), cli.headline("team", "f1"));
        // A pair naming its system, or a track, is refused where it is written.
        let error = |extra: &str| read(&format!("{text}{extra}")).expect_err("refused").to_string();
        let system = error("system = \"a.rdf\"\n");
        assert!(system.starts_with(&format!("{FILE}:9:1: found `system` in a served task's pair")), "{system}");
        let named = read(&text.replace("name = \"brick-smartenv\"", "name = \"name\"")).expect_err("a form field");
        assert!(named.to_string().contains("found pair \"name\" in a served task"), "{named}");
        let track = error("track = \"diso\"\n");
        assert!(track.starts_with(&format!("{FILE}:9:1: found `track`")), "{track}");
    }

    #[test]
    fn a_kgc_upload_is_a_ranks_file() {
        let text = "[[task]]\nname = \"lp\"\nfamily = \"kgc\"\ntest = \"../kgc/mini/test.txt\"\n\
                    filters = [\"../kgc/mini/train.txt\"]\nprimary = \"micro_mrr\"\n";
        let campaign = read(text).expect("a campaign");
        let task = &campaign.tasks[0];
        let evaluation = task.score("team", Input::from_bytes("upload", bytes("kgc/mini/ranks.tsv"))).expect("scored");
        let cli = crate::kgc::KgcTask::new("../../testdata/kgc/mini/test.txt")
            .filter("../../testdata/kgc/mini/train.txt")
            .ranks("team=../../testdata/kgc/mini/ranks.tsv")
            .run(&NoProgress)
            .expect("kgeval kgc");
        assert_eq!(evaluation.headline("team", "micro_mrr"), cli.headline("team", "micro_mrr"));
        assert!(!crate::campaign::item_values(&evaluation, "team").is_empty(), "per-question values");
        let error = read(&format!("{text}ranks = \"x.tsv\"\n")).expect_err("refused").to_string();
        assert!(error.starts_with(&format!("{FILE}:7:1: found `ranks` in a served task")), "{error}");
    }
}
