//! `rank`: local ranking with NIL abstention (DISO Task 2, Bio-ML, DeepOnto, OntoAligner,
//! Bio-LLM).
//!
//! A [`RankTask`] is one system over one or more pairs (pools, gold key, submission). It is
//! also the `task2.toml` manifest of `kgeval rank --manifest`:
//!
//! ```toml
//! profile = "diso"          # diso (default), bioml, deeponto, ontoaligner, biollm
//! system = "lexical"        # the system's NAME (default: the first submission's file stem)
//! [[pair]]
//! name = "uco-stix"         # default: the pools' folder name, else the submission's stem
//! pools = "uco-stix/pools.jsonl"
//! gold = "uco-stix/gold.tsv"
//! submission = "uco-stix/lexical.jsonl"
//! ```
//!
//! Every option of the command line may be given too (`ties`, `tau`, `ks`, `nil`,
//! `pool_size`, `allow_missing`, `repair`, `sweep_tau`, `tau_grid`, `threshold`,
//! `block_size`, `beta`); paths are relative to the manifest ([`RankTask::resolved`]).

mod memory;
mod run;

use std::path::Path;

use kgeval_formats::Input;
use kgeval_metrics::rank::{default_tau_grid, LocalOptions};
pub use kgeval_model::rank::results::{RankConventions, RankResult, RankingProfile};
pub use kgeval_model::ranking::TiePolicy;
use kgeval_report::RESERVED_PAIR_NAMES;
pub use memory::{MemoryBiomlRow, MemoryCandidates, MemoryGold, MemoryPool, MemoryQuery, MemoryRankPair, RankSource};
pub use run::RankGold;
use serde::Deserialize;

use crate::inputs::by_name;
use crate::{system_names, Error, SystemInput};

/// The τ given to NIL when sweeping τ without a `tau` (scored submissions).
pub const DEFAULT_SWEEP_TAU: f64 = 0.5;
/// Bio-LLM's default answer threshold (DeepOnto's).
pub const DEFAULT_THRESHOLD: f64 = 0.0;
/// OntoAligner's default β.
pub const DEFAULT_BETA: f64 = 1.0;

/// A `kgeval rank` evaluation: one system's submissions over one or more pairs, scored under
/// a profile's conventions.
///
/// As a manifest row: `family = "rank"`, optional `profile` and `system` (the system's NAME,
/// not a path: the submissions are the pairs' `submission`), one or more `[[pair]]` tables
/// (`name`, `pools`, `gold`, `submission`), and any option below.
///
/// ```
/// use kgeval::rank::{RankPair, RankTask, RankingProfile};
/// use kgeval::{Input, NoProgress};
/// let gold = Input::from_bytes("gold.tsv", &b"q1\thttp://t/a\nq2\thttp://t/b\n"[..]);
/// let run = Input::from_bytes("run.jsonl", &br#"{"qid": "q1", "ranking": ["http://t/x", "http://t/a"]}
/// {"qid": "q2", "ranking": ["http://t/b", "http://t/x"]}"#[..]);
/// let task = RankTask::new(RankingProfile::Bioml).pair(RankPair::new(run).gold(gold));
/// let evaluation = task.run(&NoProgress)?;
/// assert_eq!(evaluation.systems, ["run"]);
/// assert_eq!(evaluation.headline("run", "mrr"), Some(0.75));
/// assert_eq!(evaluation.headline("run", "hits@1"), Some(0.5));
/// # Ok::<(), kgeval::Error>(())
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankTask {
    /// The reference scorer whose conventions apply (default `diso`).
    #[serde(default, deserialize_with = "profile")]
    pub profile: RankingProfile,
    /// The system's name (a name, not a path; default: the stem of the first pair's
    /// submission).
    #[serde(default)]
    pub system: Option<String>,
    /// The pairs, in output order (`[[pair]]` tables; at least one in a manifest).
    #[serde(rename = "pair", alias = "pairs", deserialize_with = "non_empty")]
    pub pairs: Vec<RankPair>,
    /// How equal scores are ordered (default: the profile's).
    #[serde(default, deserialize_with = "ties")]
    pub ties: Option<TiePolicy>,
    /// The confidence given to NIL in scored submissions (default: diso 0.5, else none; 0.5
    /// when sweeping).
    #[serde(default)]
    pub tau: Option<f64>,
    /// The cut-offs of Hits@k (default: the profile's).
    #[serde(default, alias = "k")]
    pub ks: Option<Vec<u32>>,
    /// The NIL IRI (default: DISO's).
    #[serde(default, alias = "nil_iri")]
    pub nil: Option<String>,
    /// The declared pool size (default: diso 50, else unchecked); 0 turns the check off.
    #[serde(default)]
    pub pool_size: Option<usize>,
    /// Score queries missing from the submission 0 instead of failing.
    #[serde(default)]
    pub allow_missing: bool,
    /// Append pool candidates missing from a ranking, in pool order, instead of failing.
    #[serde(default)]
    pub repair: bool,
    /// Sweep τ over 0, 0.05, …, 1 (or `tau_grid`) and flag the oracle τ.
    #[serde(default)]
    pub sweep_tau: bool,
    /// The τ grid to sweep: `"START:STOP:STEP"` or a list of values (implies `sweep_tau`).
    #[serde(default, deserialize_with = "tau_grid")]
    pub tau_grid: Option<Vec<f64>>,
    /// Bio-LLM: a candidate is predicted when its answer is true and its score ≥ this
    /// (default [`DEFAULT_THRESHOLD`]).
    #[serde(default)]
    pub threshold: Option<f64>,
    /// Bio-ML 2026 BLOCK form: this many rows per query (default: runs of equal `SrcEntity`).
    #[serde(default)]
    pub block_size: Option<usize>,
    /// OntoAligner: β of the F-score (default [`DEFAULT_BETA`]).
    #[serde(default)]
    pub beta: Option<f64>,
}

/// One pair's inputs.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankPair {
    /// The pair name (default: the pools' folder name, else the submission's stem).
    #[serde(default)]
    pub name: Option<String>,
    /// The candidate pools (DISO `pools.jsonl`; required by the diso profile).
    #[serde(default)]
    pub pools: Option<Input>,
    /// The gold key (OntoAligner: the references); optional when the submission carries it.
    #[serde(default)]
    pub gold: Option<Input>,
    /// The system's submission.
    pub submission: Input,
}

impl RankPair {
    /// A pair of one submission, without pools or gold yet.
    #[must_use]
    pub fn new(submission: impl Into<Input>) -> Self {
        RankPair { name: None, pools: None, gold: None, submission: submission.into() }
    }

    /// With candidate pools.
    #[must_use]
    pub fn pools(mut self, pools: impl Into<Input>) -> Self {
        self.pools = Some(pools.into());
        self
    }

    /// With a gold key.
    #[must_use]
    pub fn gold(mut self, gold: impl Into<Input>) -> Self {
        self.gold = Some(gold.into());
        self
    }

    /// With a name.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The pair's name: the given one, else the pools' folder name, else the submission's
    /// stem.
    #[must_use]
    pub fn resolved_name(&self) -> String {
        MemoryRankPair::from(self).resolved_name()
    }

    fn resolved(&self, base: &Path) -> Self {
        RankPair {
            name: self.name.clone(),
            pools: self.pools.as_ref().map(|i| i.resolved(base)),
            gold: self.gold.as_ref().map(|i| i.resolved(base)),
            submission: self.submission.resolved(base),
        }
    }
}

impl RankTask {
    /// A task with the profile's defaults and no pair yet.
    #[must_use]
    pub fn new(profile: RankingProfile) -> Self {
        RankTask {
            profile,
            system: None,
            pairs: Vec::new(),
            ties: None,
            tau: None,
            ks: None,
            nil: None,
            pool_size: None,
            allow_missing: false,
            repair: false,
            sweep_tau: false,
            tau_grid: None,
            threshold: None,
            block_size: None,
            beta: None,
        }
    }

    /// Adds a pair.
    #[must_use]
    pub fn pair(mut self, pair: RankPair) -> Self {
        self.pairs.push(pair);
        self
    }

    /// One pair whose submission is `system` (`NAME=PATH` or `PATH`): the system is named NAME,
    /// else the submission's stem.
    #[must_use]
    pub fn system_submission(mut self, system: SystemInput, pools: Option<Input>, gold: Option<Input>) -> Self {
        if system.name.is_some() {
            self.system.clone_from(&system.name);
        }
        self.pairs.push(RankPair { name: None, pools, gold, submission: system.input });
        self
    }

    /// The same task with relative paths joined to `base`.
    #[must_use]
    pub fn resolved(&self, base: &Path) -> Self {
        RankTask { pairs: self.pairs.iter().map(|p| p.resolved(base)).collect(), ..self.clone() }
    }

    /// The NIL IRI in force: `nil`, else the profile's ([`RankingProfile::nil`]).
    #[must_use]
    pub fn nil_iri(&self) -> &str {
        self.nil.as_deref().unwrap_or(self.profile.nil())
    }

    /// The system's name: `system`, else the stem of the first pair's submission.
    ///
    /// # Errors
    /// [`Error::Invalid`] when there is no pair.
    pub fn system_name(&self) -> Result<String, Error> {
        if let Some(name) = &self.system {
            return Ok(name.clone());
        }
        let first = self.pairs.first().ok_or_else(no_pair)?;
        let mut names = system_names(&[SystemInput::new(first.submission.clone())])?;
        Ok(names.remove(0))
    }

    /// The pairs' names, checked: none reserved by the JSON layout, none given twice.
    ///
    /// # Errors
    /// [`Error::Invalid`] for no pair, a reserved name or a name given twice.
    pub fn pair_names(&self) -> Result<Vec<String>, Error> {
        let pairs: Vec<MemoryRankPair> = self.pairs.iter().map(MemoryRankPair::from).collect();
        self.checked_pair_names(&pairs)
    }

    /// [`RankTask::pair_names`] of `pairs`.
    fn checked_pair_names(&self, pairs: &[MemoryRankPair]) -> Result<Vec<String>, Error> {
        if pairs.is_empty() {
            return Err(no_pair());
        }
        let names: Vec<String> = pairs.iter().map(MemoryRankPair::resolved_name).collect();
        for (i, name) in names.iter().enumerate() {
            crate::inputs::check_name("pair", name)?;
            if RESERVED_PAIR_NAMES.contains(&name.as_str()) {
                return Err(Error::invalid(format!(
                    "pair name {name:?} is reserved in the JSON layout; choose another (--pair)"
                )));
            }
            if names[..i].contains(name) {
                return Err(Error::invalid(format!("pair name {name:?} is given twice")));
            }
        }
        Ok(names)
    }

    /// The local-ranking options: the profile's defaults ([`LocalOptions::for_profile`]) with
    /// this task's choices; τ [`DEFAULT_SWEEP_TAU`] when sweeping without one.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a τ that is not finite.
    pub fn local_options(&self) -> Result<LocalOptions, Error> {
        let mut options = LocalOptions::for_profile(self.profile);
        if let Some(ties) = self.ties {
            options.ties = ties;
        }
        if let Some(ks) = self.ks.as_ref().filter(|ks| !ks.is_empty()) {
            options.ks.clone_from(ks);
        }
        if let Some(tau) = self.tau {
            if !tau.is_finite() {
                return Err(Error::invalid(format!("--tau: expected a finite number, found {tau}")));
            }
            options.tau = Some(tau);
        }
        self.nil_iri().clone_into(&mut options.nil_iri);
        if let Some(size) = self.pool_size {
            options.pool_size = (size > 0).then_some(size);
        }
        options.allow_missing = self.allow_missing;
        options.repair = self.repair;
        if let Some(grid) = &self.tau_grid {
            options.tau_grid = Some(grid.clone());
        } else if self.sweep_tau {
            options.tau_grid = Some(default_tau_grid());
        }
        if options.tau_grid.is_some() && options.tau.is_none() {
            options.tau = Some(DEFAULT_SWEEP_TAU);
        }
        Ok(options)
    }
}

fn no_pair() -> Error {
    Error::invalid("rank: expected at least one pair (a [[pair]] table or a submission), found none")
}

/// Every name [`TiePolicy::from_name`] accepts: the policies (in [`TiePolicy::ALL`]'s
/// order), then the other names of an order — `trec` (for `trec-eval`) and the tie-breaks
/// not already named.
///
/// ```
/// let names = kgeval::rank::tie_policy_names();
/// assert_eq!(names[..2], ["stable", "lexicographic"]);
/// assert!(names.contains(&"expected") && names.contains(&"trec"));
/// ```
#[must_use]
pub fn tie_policy_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = TiePolicy::ALL.iter().map(|p| p.name()).collect();
    let orders = std::iter::once("trec").chain(kgeval_model::ranking::TieBreak::ALL.iter().map(|t| t.name()));
    for name in orders {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The tie policy named `name` ([`TiePolicy::from_name`]), or the message `found NAME,
/// expected …` listing every name accepted ([`tie_policy_names`]).
///
/// ```
/// use kgeval::rank::{parse_tie_policy, TiePolicy};
/// assert_eq!(parse_tie_policy("expected"), Ok(TiePolicy::Expected));
/// assert!(parse_tie_policy("random").unwrap_err().starts_with(r#"found "random", expected stable, "#));
/// ```
///
/// # Errors
/// A name no policy has.
pub fn parse_tie_policy(name: &str) -> Result<TiePolicy, String> {
    TiePolicy::from_name(name).ok_or_else(|| {
        let names = tie_policy_names();
        let (last, rest) = names.split_last().map_or(("", &[][..]), |(last, rest)| (*last, rest));
        format!("found {}, expected {} or {last}", kgeval_formats::echo(name), rest.join(", "))
    })
}

/// Parses a τ grid `START:STOP:STEP` (at most 100000 points).
///
/// ```
/// assert_eq!(kgeval::rank::parse_tau_grid("0:1:0.5")?, [0.0, 0.5, 1.0]);
/// assert!(kgeval::rank::parse_tau_grid("1:0:0.1").is_err());
/// # Ok::<(), kgeval::Error>(())
/// ```
///
/// # Errors
/// [`Error::Invalid`] when it is not three finite numbers with START ≤ STOP and 0 < STEP.
pub fn parse_tau_grid(spec: &str) -> Result<Vec<f64>, Error> {
    let number = |s: &str| -> Result<f64, Error> {
        s.trim()
            .parse::<f64>()
            .map_err(|_| Error::invalid(format!("--tau-grid: expected a number, found {s:?}")))
            .and_then(|v| {
                if v.is_finite() {
                    Ok(v)
                } else {
                    Err(Error::invalid(format!("--tau-grid: expected a finite number, found {s:?}")))
                }
            })
    };
    let parts: Vec<&str> = spec.split(':').collect();
    let [start, stop, step] = parts.as_slice() else {
        return Err(Error::invalid(format!("--tau-grid: expected START:STOP:STEP, found {spec:?}")));
    };
    let (start, stop, step) = (number(start)?, number(stop)?, number(step)?);
    if step <= 0.0 || stop < start || (stop - start) / step > 100_000.0 {
        return Err(Error::invalid(format!(
            "--tau-grid: expected START ≤ STOP and 0 < STEP with at most 100000 points, found {spec:?}"
        )));
    }
    let n = ((stop - start) / step + 1e-9).floor() as usize;
    Ok((0..=n).map(|i| start + i as f64 * step).collect())
}

fn non_empty<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<RankPair>, D::Error> {
    let pairs = Vec::<RankPair>::deserialize(deserializer)?;
    if pairs.is_empty() {
        return Err(serde::de::Error::custom("expected at least one [[pair]] table, found none"));
    }
    Ok(pairs)
}

fn profile<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<RankingProfile, D::Error> {
    by_name(deserializer, RankingProfile::from_name, "diso, bioml, deeponto, ontoaligner or biollm")
}

fn ties<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<TiePolicy>, D::Error> {
    let name = String::deserialize(deserializer)?;
    parse_tie_policy(&name).map(Some).map_err(serde::de::Error::custom)
}

fn tau_grid<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Vec<f64>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Grid {
        Spec(String),
        Values(Vec<f64>),
    }
    match Grid::deserialize(deserializer)? {
        Grid::Spec(spec) => parse_tau_grid(&spec).map(Some).map_err(serde::de::Error::custom),
        Grid::Values(values) => Ok(Some(values)),
    }
}
