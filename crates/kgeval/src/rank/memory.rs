//! Pools, gold keys and submissions held in memory (candidate lists as DeepOnto users hold
//! them), read into the model types the file readers produce:
//! [`RankTask::run_in_memory`](super::RankTask::run_in_memory).

use std::collections::HashSet;

use kgeval_formats::rank::BIOML_UNMATCHED;
use kgeval_formats::Input;
use kgeval_model::rank::{GoldKey, Pool, PoolSet, ScoredPair, Submission, SubmissionEntry, Submitted};
use kgeval_model::Interner;

use super::RankPair;
use crate::{system_names, Error, SystemInput};

/// An input of [`RankTask::run_in_memory`](super::RankTask::run_in_memory): a file read as
/// [`RankTask::run`](super::RankTask::run) reads it, or items in memory.
#[derive(Debug, Clone, PartialEq)]
pub enum RankSource<T> {
    /// A file, standard input or bytes.
    Input(Input),
    /// Items in memory; `name` stands for the file name in errors (`submission:3: …`, the
    /// line being the item's 1-based position) and is the default system or pair name.
    Memory {
        /// The name errors use.
        name: String,
        /// The items in order.
        items: Vec<T>,
    },
}

impl<T> RankSource<T> {
    /// Items in memory named `name`.
    #[must_use]
    pub fn memory(name: impl Into<String>, items: Vec<T>) -> Self {
        RankSource::Memory { name: name.into(), items }
    }
}

/// One candidate pool (a DISO `pools.jsonl` line).
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryPool {
    /// The query id.
    pub qid: String,
    /// The source entity.
    pub source: String,
    /// The source's type (`CLS`, `OPROP`, `DPROP`), if known.
    pub entity_type: Option<String>,
    /// The candidates, each once (DISO: 49 targets and the NIL IRI).
    pub candidates: Vec<String>,
}

/// One gold answer: the query's expected target (the NIL IRI, or Bio-ML's `UnMatched`, for
/// none). Under the ontoaligner profile: a reference, `qid` its source.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryGold {
    /// The query id (ontoaligner: the source entity).
    pub qid: String,
    /// The gold target.
    pub gold: String,
}

/// What a system gives for one query.
#[derive(Debug, Clone, PartialEq)]
pub enum MemoryCandidates {
    /// Candidates best first.
    Ranking(Vec<String>),
    /// `(candidate, score)` in submission order, ranked by the tie policy (finite scores).
    Scores(Vec<(String, f64)>),
}

/// One query of a submission (DeepOnto: a source entity and its scored `TgtCandidates`).
/// Under the ontoaligner profile each scored candidate is a prediction `(qid, candidate,
/// score)`, `qid` being the source entity (an unscored one scores 0, as in OntoAligner).
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryQuery {
    /// The query id.
    pub qid: String,
    /// The ranking or the scores.
    pub candidates: MemoryCandidates,
    /// Bio-LLM answer flags, one per candidate.
    pub answers: Option<Vec<bool>>,
}

/// One pair of [`RankTask::run_in_memory`](super::RankTask::run_in_memory): a [`RankPair`]
/// whose inputs may be in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryRankPair {
    /// The pair's name (default: the pools' folder name, else the submission's stem or name).
    pub name: Option<String>,
    /// The candidate pools (required by the diso profile).
    pub pools: Option<RankSource<MemoryPool>>,
    /// The gold key (ontoaligner: the references).
    pub gold: Option<RankSource<MemoryGold>>,
    /// The system's submission.
    pub submission: RankSource<MemoryQuery>,
}

impl From<&RankPair> for MemoryRankPair {
    fn from(pair: &RankPair) -> Self {
        MemoryRankPair {
            name: pair.name.clone(),
            pools: pair.pools.clone().map(RankSource::Input),
            gold: pair.gold.clone().map(RankSource::Input),
            submission: RankSource::Input(pair.submission.clone()),
        }
    }
}

impl MemoryRankPair {
    /// The pair's name: the given one, else the pools' folder name, else the submission's stem
    /// (or its name in memory).
    #[must_use]
    pub fn resolved_name(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        let folder = match &self.pools {
            Some(RankSource::Input(input)) => {
                input.as_path().and_then(|p| p.parent()?.file_name()).map(|n| n.to_string_lossy().into_owned())
            }
            _ => None,
        };
        folder.unwrap_or_else(|| match &self.submission {
            RankSource::Input(input) => input.stem(),
            RankSource::Memory { name, .. } => name.clone(),
        })
    }

    /// The default system name: the submission's stem, or its name in memory.
    pub(super) fn default_system_name(&self) -> Result<String, Error> {
        match &self.submission {
            RankSource::Input(input) => Ok(system_names(&[SystemInput::new(input.clone())])?.remove(0)),
            RankSource::Memory { name, .. } => Ok(name.clone()),
        }
    }
}

/// A line number for the item at `index` (its 1-based position).
fn line(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

fn empty(name: &str, what: &str) -> Error {
    Error::invalid(format!("{name}: found an empty list, expected at least one {what}"))
}

/// Pools in memory, checked as the reader checks a file: no qid twice, no candidate twice in
/// a pool, at least one pool.
pub(super) fn pools(name: &str, items: &[MemoryPool], interner: &mut Interner) -> Result<PoolSet, Error> {
    if items.is_empty() {
        return Err(empty(name, "pool"));
    }
    let mut pools = PoolSet::new();
    for (index, item) in items.iter().enumerate() {
        let mut seen = HashSet::with_capacity(item.candidates.len());
        if let Some(repeated) = item.candidates.iter().find(|c| !seen.insert(c.as_str())) {
            return Err(Error::invalid(format!(
                "{name}:{}: found candidate {repeated:?} twice in the pool of qid {:?}, expected each candidate once",
                line(index),
                item.qid
            )));
        }
        let pool = Pool {
            qid: item.qid.as_str().into(),
            source: interner.intern(&item.source),
            entity_type: item.entity_type.as_deref().map(Into::into),
            candidates: item.candidates.iter().map(|c| interner.intern(c)).collect(),
            line: line(index),
        };
        if let Err(first) = pools.insert(pool) {
            return Err(Error::invalid(format!(
                "{name}:{}: found qid {:?} again (first at {}), expected each qid once",
                line(index),
                item.qid,
                first.line
            )));
        }
    }
    Ok(pools)
}

/// A gold key in memory (`UnMatched` read as the NIL IRI, as in Bio-ML files).
pub(super) fn gold(name: &str, items: &[MemoryGold], interner: &mut Interner, nil_iri: &str) -> Result<GoldKey, Error> {
    if items.is_empty() {
        return Err(empty(name, "gold answer"));
    }
    let mut key = GoldKey::new();
    for (index, item) in items.iter().enumerate() {
        let target = if item.gold == BIOML_UNMATCHED { nil_iri } else { item.gold.as_str() };
        key.push(&item.qid, interner.intern(target), line(index));
    }
    Ok(key)
}

/// A submission in memory: at least one query, finite scores, answers aligned with the
/// candidates.
pub(super) fn submission(name: &str, items: &[MemoryQuery], interner: &mut Interner) -> Result<Submission, Error> {
    if items.is_empty() {
        return Err(empty(name, "query"));
    }
    let mut entries = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let submitted = match &item.candidates {
            MemoryCandidates::Ranking(ranking) => {
                Submitted::Ranking(ranking.iter().map(|c| interner.intern(c)).collect())
            }
            MemoryCandidates::Scores(scores) => {
                if let Some((candidate, score)) = scores.iter().find(|(_, s)| !s.is_finite()) {
                    return Err(Error::invalid(format!(
                        "{name}:{}: qid {:?}: found score {score} for {candidate:?}, expected a finite number",
                        line(index),
                        item.qid
                    )));
                }
                Submitted::Scores(scores.iter().map(|(c, s)| (interner.intern(c), *s)).collect())
            }
        };
        if let Some(answers) = &item.answers {
            if answers.len() != submitted.len() {
                return Err(Error::invalid(format!(
                    "{name}:{}: qid {:?}: found {} answers for {} candidates, expected one per candidate",
                    line(index),
                    item.qid,
                    answers.len(),
                    submitted.len()
                )));
            }
        }
        entries.push(SubmissionEntry {
            qid: item.qid.as_str().into(),
            submitted,
            answers: item.answers.clone(),
            line: line(index),
        });
    }
    Ok(Submission { entries })
}

/// OntoAligner predictions from a submission in memory: `(qid, candidate, score)` in order.
pub(super) fn scored_pairs(
    name: &str,
    items: &[MemoryQuery],
    interner: &mut Interner,
) -> Result<Vec<ScoredPair>, Error> {
    let submission = submission(name, items, interner)?;
    let mut out = Vec::new();
    for entry in &submission.entries {
        let source = interner.intern(&entry.qid);
        match &entry.submitted {
            Submitted::Ranking(ranking) => {
                out.extend(ranking.iter().map(|&target| ScoredPair { source, target, score: 0.0 }));
            }
            Submitted::Scores(scores) => {
                out.extend(scores.iter().map(|&(target, score)| ScoredPair { source, target, score }));
            }
        }
    }
    Ok(out)
}

/// A Bio-ML / DeepOnto candidates row as a DeepOnto user holds it: `SrcEntity`, `TgtEntity`
/// (the gold; `UnMatched` for none) and `TgtCandidates`.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryBiomlRow {
    /// `SrcEntity`.
    pub source: String,
    /// `TgtEntity`: the gold target, `UnMatched` (the NIL IRI) for none.
    pub target: String,
    /// `TgtCandidates`: IRIs best first, or `(IRI, score)` pairs.
    pub candidates: MemoryCandidates,
    /// Bio-LLM answer flags, one per candidate.
    pub answers: Option<Vec<bool>>,
}

impl MemoryRankPair {
    /// A pair whose submission and gold key are Bio-ML rows named `name` (a pair without
    /// pools); each row is a query named after its source, a repeated source's query
    /// `SOURCE#2`, `SOURCE#3`, … as the Bio-ML file reader names them.
    #[must_use]
    pub fn from_bioml_rows(name: &str, rows: Vec<MemoryBiomlRow>) -> Self {
        let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
        let mut queries = Vec::with_capacity(rows.len());
        let mut gold = Vec::with_capacity(rows.len());
        for row in rows {
            let count = seen.entry(row.source.clone()).or_insert(0);
            *count += 1;
            let qid = if *count == 1 { row.source } else { format!("{}#{count}", row.source) };
            gold.push(MemoryGold { qid: qid.clone(), gold: row.target });
            queries.push(MemoryQuery { qid, candidates: row.candidates, answers: row.answers });
        }
        MemoryRankPair {
            name: None,
            pools: None,
            gold: Some(RankSource::memory(name, gold)),
            submission: RankSource::memory(name, queries),
        }
    }
}
