//! Running a [`RankTask`]: reading, validating, scoring, headlines and warnings.

use std::borrow::Cow;

use kgeval_formats::rank::{read_gold, read_pools, read_scored_pairs, read_submission, SubmissionReadOptions};
use kgeval_metrics::rank::{
    evaluate_biollm, evaluate_local, evaluate_ontoaligner, InputRole, LocalPair, ValidationError,
};
use kgeval_model::metric_names::metric_info;
use kgeval_model::rank::results::{
    BiollmEvaluation, OntoalignerEvaluation, RankConventions, RankResult, RankingProfile,
};
use kgeval_model::rank::{GoldKey, PoolSet, Submission};
use kgeval_model::{Diagnostic, Interner, ScoreTable, TermId};

use super::memory::{self, MemoryGold, MemoryRankPair, RankSource};
use super::{RankTask, DEFAULT_BETA, DEFAULT_THRESHOLD};
use crate::evaluation::{canonical_table, system_warnings};
use crate::gold_names::GoldNames;
use crate::{Conventions, Error, Evaluation, Family, FamilyResult, Progress, ResultExt as _, Warning};

/// One pair's inputs, read (the pools and gold kept from a [`RankGold`], or read now), with
/// the names its errors use.
struct LoadedPair<'g> {
    name: String,
    pools: Option<Cow<'g, PoolSet>>,
    pools_file: Option<String>,
    submission: Submission,
    submission_file: String,
    gold: Cow<'g, GoldKey>,
    gold_file: String,
}

/// What a [`RankTask`] reads besides its submissions ([`RankTask::read_gold`]): each pair's
/// pools and gold key (an OntoAligner task: its references), with the terms they hold and
/// the readers' warnings; each scoring reads its submission into a copy of the terms.
#[derive(Clone)]
pub struct RankGold {
    pairs: Vec<GoldPair>,
    interner: Interner,
    warnings: Vec<Warning>,
}

/// One pair's kept gold.
#[derive(Clone)]
struct GoldPair {
    name: String,
    pools: Option<(PoolSet, String)>,
    gold: Option<(GoldKey, String)>,
    references: Option<References>,
}

/// OntoAligner references: (source, target) pairs.
type References = Vec<(TermId, TermId)>;

impl std::fmt::Debug for RankGold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.pairs.iter().map(|p| p.name.as_str()).collect();
        f.debug_struct("RankGold").field("pairs", &names).finish_non_exhaustive()
    }
}

impl RankTask {
    /// Reads the inputs, validates them like the organisers do and scores the system.
    ///
    /// # Errors
    /// An input that cannot be read or is malformed (`FILE:LINE:COL: …`); a validation
    /// failure (`FILE:LINE: …`: pools of the wrong size or without NIL, unknown, duplicate or
    /// missing qids, a ranking that is not a permutation of its pool, …); no pair, a reserved
    /// or repeated pair name; options that do not fit the profile.
    pub fn run(&self, progress: &dyn Progress) -> Result<Evaluation, Error> {
        let pairs: Vec<MemoryRankPair> = self.pairs.iter().map(MemoryRankPair::from).collect();
        self.run_pairs(&pairs, progress)
    }

    /// [`RankTask::run`] on `pairs` instead of the task's own (which are not read): each input
    /// a file or items in memory (pools, gold answers, queries with their ranking or scored
    /// candidates, as DeepOnto users hold them), validated and scored as files are. Errors name
    /// an item as `NAME:N: …`, N its 1-based position in its list.
    ///
    /// ```
    /// use kgeval::rank::{MemoryCandidates, MemoryGold, MemoryQuery, MemoryRankPair, RankSource, RankTask, RankingProfile};
    /// let query = |qid: &str, ranking: &[&str]| MemoryQuery {
    ///     qid: qid.to_owned(),
    ///     candidates: MemoryCandidates::Ranking(ranking.iter().map(|c| c.to_string()).collect()),
    ///     answers: None,
    /// };
    /// let gold = |qid: &str, gold: &str| MemoryGold { qid: qid.to_owned(), gold: gold.to_owned() };
    /// let pair = MemoryRankPair {
    ///     name: None,
    ///     pools: None,
    ///     gold: Some(RankSource::memory("gold", vec![gold("q1", "t:a"), gold("q2", "t:b")])),
    ///     submission: RankSource::memory("run", vec![query("q1", &["t:x", "t:a"]), query("q2", &["t:b", "t:x"])]),
    /// };
    /// let evaluation = RankTask::new(RankingProfile::Bioml).run_in_memory(&[pair], &kgeval::NoProgress)?;
    /// assert_eq!(evaluation.headline("run", "mrr"), Some(0.75));
    /// # Ok::<(), kgeval::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`RankTask::run`]; and an empty list, a pool repeating a qid or a candidate, a
    /// score that is not finite, answer flags not one per candidate.
    pub fn run_in_memory(&self, pairs: &[MemoryRankPair], progress: &dyn Progress) -> Result<Evaluation, Error> {
        self.run_pairs(pairs, progress)
    }

    /// Reads what [`RankTask::run`] reads besides the submissions — each pair's pools and
    /// gold key (an OntoAligner task: its references) — for [`RankTask::run_with_gold`].
    ///
    /// # Errors
    /// An input that cannot be read or is malformed; no pair, a reserved or repeated pair
    /// name; a diso pair without pools; an OntoAligner task without references.
    pub fn read_gold(&self) -> Result<RankGold, Error> {
        self.read_gold_named(GoldNames::Files)
    }

    /// [`RankTask::read_gold`], each pair's pools and gold key named `gold_names` (hidden: `the
    /// gold's pools of pair P`, `the gold's key of pair P`) in what scoring against them says.
    pub(crate) fn read_gold_named(&self, gold_names: GoldNames) -> Result<RankGold, Error> {
        let pairs: Vec<MemoryRankPair> = self.pairs.iter().map(MemoryRankPair::from).collect();
        let names = self.checked_pair_names(&pairs)?;
        let (mut interner, mut warnings) = (Interner::new(), Vec::new());
        let mut kept = Vec::with_capacity(pairs.len());
        for (pair, name) in pairs.iter().zip(names) {
            if self.profile == RankingProfile::Ontoaligner {
                let references = Some(references(pair, &mut interner)?);
                kept.push(GoldPair { name, pools: None, gold: None, references });
                continue;
            }
            let pools = self
                .load_pools(pair, &name, &mut interner, &mut warnings)?
                .map(|(pools, file)| (pools, gold_names.name_of(&file, &format!("pools of pair {name}"))));
            let gold = match &pair.gold {
                Some(source) => {
                    let (key, file) = self.load_gold_key(source, &name, &mut interner, &mut warnings)?;
                    Some((key, gold_names.name_of(&file, &format!("key of pair {name}"))))
                }
                None => None,
            };
            kept.push(GoldPair { name, pools, gold, references: None });
        }
        Ok(RankGold { pairs: kept, interner, warnings })
    }

    /// [`RankTask::run`] against what [`RankTask::read_gold`] read (of a task with the same
    /// pairs and options): only the submissions are read. The scores and errors are those of
    /// `run` (term ids and the warnings' order aside: the gold is read first).
    ///
    /// # Errors
    /// As [`RankTask::run`], but for reading the pools and gold; pairs other than the gold's.
    pub fn run_with_gold(&self, gold: &RankGold, progress: &dyn Progress) -> Result<Evaluation, Error> {
        let pairs: Vec<MemoryRankPair> = self.pairs.iter().map(MemoryRankPair::from).collect();
        let names = self.checked_pair_names(&pairs)?;
        if names.iter().ne(gold.pairs.iter().map(|p| &p.name)) {
            return Err(Error::invalid(format!(
                "found pairs {}, expected those the gold was read for: {}",
                names.join(", "),
                gold.pairs.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
        self.run_kept(&pairs, Some(gold), progress)
    }

    fn run_pairs(&self, pairs: &[MemoryRankPair], progress: &dyn Progress) -> Result<Evaluation, Error> {
        self.run_kept(pairs, None, progress)
    }

    fn run_kept(
        &self,
        pairs: &[MemoryRankPair],
        kept: Option<&RankGold>,
        progress: &dyn Progress,
    ) -> Result<Evaluation, Error> {
        let names = self.checked_pair_names(pairs)?;
        let system = match &self.system {
            Some(name) => name.clone(),
            None => pairs.first().ok_or_else(super::no_pair)?.default_system_name()?,
        };
        let mut warnings = kept.map(|k| k.warnings.clone()).unwrap_or_default();
        let result = match self.profile {
            RankingProfile::Ontoaligner => self.run_ontoaligner(pairs, system, kept)?,
            RankingProfile::Biollm => self.run_biollm(pairs, system, &names, kept, &mut warnings)?,
            _ => self.run_local(pairs, &system, &names, kept, progress, &mut warnings)?,
        };
        let conventions = result.conventions().clone();
        let system = result.system().to_owned();
        let table = headline_table(&result)?;
        Ok(Evaluation {
            family: Family::Rank,
            systems: vec![system],
            conventions: Conventions::Rank(conventions),
            warnings,
            table,
            result: FamilyResult::Rank(result),
        })
    }

    fn read_options(&self) -> SubmissionReadOptions {
        SubmissionReadOptions { nil_iri: self.nil_iri().to_owned(), block_size: self.block_size }
    }

    fn run_local(
        &self,
        pairs: &[MemoryRankPair],
        system: &str,
        names: &[String],
        kept: Option<&RankGold>,
        progress: &dyn Progress,
        warnings: &mut Vec<Warning>,
    ) -> Result<RankResult, Error> {
        let options = self.local_options()?;
        let read_options = self.read_options();
        let mut interner = kept.map_or_else(Interner::new, |k| k.interner.clone());
        let mut loaded = Vec::with_capacity(pairs.len());
        progress.start("pairs", pairs.len() as u64);
        for (i, (pair, name)) in pairs.iter().zip(names).enumerate() {
            let gold = kept.and_then(|k| k.pairs.get(i));
            loaded.push(self.load_pair(pair, name, &read_options, &mut interner, gold, warnings)?);
            progress.advance(1);
        }
        progress.finish();
        let pairs: Vec<LocalPair<'_>> = loaded
            .iter()
            .map(|l| LocalPair { name: &l.name, pools: l.pools.as_deref(), submission: &l.submission, gold: &l.gold })
            .collect();
        let evaluation = evaluate_local(system, &pairs, &interner, &options).map_err(|e| located(&e, &loaded))?;
        warnings.extend(system_warnings([(system, evaluation.warnings.as_slice())]));
        Ok(RankResult::Local(Box::new(evaluation)))
    }

    fn run_biollm(
        &self,
        pairs: &[MemoryRankPair],
        system: String,
        names: &[String],
        kept: Option<&RankGold>,
        warnings: &mut Vec<Warning>,
    ) -> Result<RankResult, Error> {
        let ([pair], [name]) = (pairs, names) else {
            return Err(Error::invalid("the biollm profile scores one submission file; the manifest lists several"));
        };
        let threshold = self.threshold.unwrap_or(DEFAULT_THRESHOLD);
        if !threshold.is_finite() {
            return Err(Error::invalid(format!("--threshold: expected a finite number, found {threshold}")));
        }
        let mut interner = kept.map_or_else(Interner::new, |k| k.interner.clone());
        let gold = kept.and_then(|k| k.pairs.first());
        let loaded = self.load_pair(pair, name, &self.read_options(), &mut interner, gold, warnings)?;
        let scores = evaluate_biollm(&loaded.submission, &loaded.gold, interner.get(self.nil_iri()), threshold);
        if scores.unmatched == 0 {
            warnings.push(Warning {
                scope: format!("system {system}"),
                diagnostic: Diagnostic::warning(
                    "no-unmatched-row",
                    "no UnMatched row: the rejection rate is undefined (DeepOnto divides by zero here)",
                ),
            });
        }
        let conventions = RankConventions {
            threshold,
            nil_iri: self.nil_iri().to_owned(),
            ..RankConventions::for_profile(RankingProfile::Biollm)
        };
        Ok(RankResult::Biollm(BiollmEvaluation { system, conventions, scores }))
    }

    fn run_ontoaligner(
        &self,
        pairs: &[MemoryRankPair],
        system: String,
        kept: Option<&RankGold>,
    ) -> Result<RankResult, Error> {
        let [pair] = pairs else {
            return Err(Error::invalid(
                "the ontoaligner profile scores one prediction file; the manifest lists several",
            ));
        };
        let kept = kept.and_then(|k| Some((k.pairs.first()?.references.as_ref()?, &k.interner)));
        if kept.is_none() && pair.gold.is_none() {
            return Err(no_references());
        }
        let mut interner = kept.map_or_else(Interner::new, |(_, interner)| interner.clone());
        let predictions = match &pair.submission {
            RankSource::Input(input) => {
                let opened = input.open().context("reading predictions")?;
                read_scored_pairs(opened.bytes(), opened.name(), &mut interner).context("reading predictions")?
            }
            RankSource::Memory { name, items } => memory::scored_pairs(name, items, &mut interner)?,
        };
        let read;
        let references = match kept {
            Some((references, _)) => references,
            None => {
                read = references(pair, &mut interner)?;
                &read
            }
        };
        let ks = self.ks.clone().filter(|ks| !ks.is_empty()).unwrap_or_else(|| RankingProfile::Ontoaligner.ks());
        let beta = self.beta.unwrap_or(DEFAULT_BETA);
        let scores = evaluate_ontoaligner(&predictions, references, &ks, beta);
        let conventions = RankConventions { ks, beta, ..RankConventions::for_profile(RankingProfile::Ontoaligner) };
        Ok(RankResult::Ontoaligner(OntoalignerEvaluation { system, conventions, scores }))
    }

    /// Reads pair `index`: pools (required by diso), submission, gold (else the submission's
    /// own); the readers' warnings go to `warnings` under `pair NAME`.
    /// `kept` (the pair's [`RankGold`]): its pools and gold are used instead of `pair`'s.
    fn load_pair<'g>(
        &self,
        pair: &MemoryRankPair,
        name: &str,
        options: &SubmissionReadOptions,
        interner: &mut Interner,
        kept: Option<&'g GoldPair>,
        warnings: &mut Vec<Warning>,
    ) -> Result<LoadedPair<'g>, Error> {
        let (pools, pools_file) = match kept {
            Some(kept) => match &kept.pools {
                Some((pools, file)) => (Some(Cow::Borrowed(pools)), Some(file.clone())),
                None => (None, None),
            },
            None => match self.load_pools(pair, name, interner, warnings)? {
                Some((pools, file)) => (Some(Cow::Owned(pools)), Some(file)),
                None => (None, None),
            },
        };
        let scope = format!("pair {name}");
        let mut warn = |list: Vec<Diagnostic>| {
            warnings.extend(list.into_iter().map(|diagnostic| Warning { scope: scope.clone(), diagnostic }));
        };
        let (submission, submission_file, carried) = match &pair.submission {
            RankSource::Memory { name, items } => (memory::submission(name, items, interner)?, name.clone(), None),
            RankSource::Input(input) => {
                let opened = input.open().context("reading submission")?;
                let read =
                    read_submission(opened.bytes(), opened.name(), interner, options).context("reading submission")?;
                warn(read.warnings);
                (read.submission, opened.name().to_owned(), read.gold)
            }
        };
        let given = match kept {
            Some(kept) => kept.gold.as_ref().map(|(gold, file)| (Cow::Borrowed(gold), file.clone())),
            None => match &pair.gold {
                Some(source) => {
                    let (gold, file) = self.load_gold_key(source, name, interner, warnings)?;
                    Some((Cow::Owned(gold), file))
                }
                None => None,
            },
        };
        let (gold, gold_file) = match (given, carried) {
            (Some(given), _) => given,
            (None, Some(gold)) => (Cow::Owned(gold), submission_file.clone()),
            (None, None) => {
                return Err(Error::invalid(format!(
                    "pair {name:?}: no gold key: give --gold (the submission {submission_file} carries none)"
                )))
            }
        };
        Ok(LoadedPair { name: name.to_owned(), pools, pools_file, submission, submission_file, gold, gold_file })
    }

    /// A pair's pools (required by diso) and the name its errors use; the reader's warnings go
    /// to `warnings` under `pair NAME`.
    fn load_pools(
        &self,
        pair: &MemoryRankPair,
        name: &str,
        interner: &mut Interner,
        warnings: &mut Vec<Warning>,
    ) -> Result<Option<(PoolSet, String)>, Error> {
        Ok(match &pair.pools {
            Some(RankSource::Memory { name, items }) => Some((memory::pools(name, items, interner)?, name.clone())),
            Some(RankSource::Input(input)) => {
                let opened = input.open().context("reading pools")?;
                let read = read_pools(opened.bytes(), opened.name(), interner).context("reading pools")?;
                scoped(warnings, name, read.warnings);
                Some((read.pools, opened.name().to_owned()))
            }
            None if self.profile == RankingProfile::Diso => {
                return Err(Error::invalid(format!(
                    "pair {name:?}: the diso profile needs --pools (or `pools` in the manifest)"
                )));
            }
            None => None,
        })
    }

    /// A pair's gold key and the name its errors use; the reader's warnings go to `warnings`
    /// under `pair NAME`.
    fn load_gold_key(
        &self,
        source: &RankSource<MemoryGold>,
        name: &str,
        interner: &mut Interner,
        warnings: &mut Vec<Warning>,
    ) -> Result<(GoldKey, String), Error> {
        let nil = self.nil_iri();
        Ok(match source {
            RankSource::Memory { name, items } => (memory::gold(name, items, interner, nil)?, name.clone()),
            RankSource::Input(input) => {
                let opened = input.open().context("reading gold")?;
                let gold = read_gold(opened.bytes(), opened.name(), interner, nil).context("reading gold")?;
                scoped(warnings, name, gold.warnings);
                (gold.gold, opened.name().to_owned())
            }
        })
    }
}

/// Adds `list` to `warnings` under `pair NAME`.
fn scoped(warnings: &mut Vec<Warning>, name: &str, list: Vec<Diagnostic>) {
    let scope = format!("pair {name}");
    warnings.extend(list.into_iter().map(|diagnostic| Warning { scope: scope.clone(), diagnostic }));
}

fn no_references() -> Error {
    Error::invalid("the ontoaligner profile needs --gold (the references)")
}

/// An OntoAligner pair's references (its `gold`).
fn references(pair: &MemoryRankPair, interner: &mut Interner) -> Result<References, Error> {
    match pair.gold.as_ref().ok_or_else(no_references)? {
        RankSource::Input(input) => {
            let opened = input.open().context("reading references")?;
            Ok(read_scored_pairs(opened.bytes(), opened.name(), interner)
                .context("reading references")?
                .into_iter()
                .map(|p| (p.source, p.target))
                .collect())
        }
        RankSource::Memory { name, items } => {
            if items.is_empty() {
                return Err(Error::invalid(format!("{name}: found an empty list, expected at least one reference")));
            }
            Ok(items.iter().map(|g| (interner.intern(&g.qid), interner.intern(&g.gold))).collect())
        }
    }
}

/// A validation error as `FILE:LINE: message`, naming the input of its role.
fn located(e: &ValidationError, loaded: &[LoadedPair<'_>]) -> Error {
    let file = loaded.iter().find(|l| l.name == e.pair).and_then(|pair| match e.role {
        InputRole::Pools => pair.pools_file.clone(),
        InputRole::Submission => Some(pair.submission_file.clone()),
        InputRole::Gold => Some(pair.gold_file.clone()),
    });
    let message = match file {
        Some(file) => format!("{file}:{}: {}", e.line, e.message),
        None => e.to_string(),
    };
    if e.concerns_gold {
        Error::unfit(message)
    } else {
        Error::invalid(message)
    }
}

/// The canonical score table with the headlines `--fail-under` gates: local profiles MACRO
/// `recip_rank` (`mrr`) and `hits@K`, query-weighted `micro_mrr` and `micro_hits@K`; Bio-LLM
/// `precision`, `recall`, `f1`, `hits@1`, `recip_rank` and `rejection_rate` (when defined);
/// OntoAligner `precision`, `recall`, `f_score` (fractions, not ×100), `hits@K` and
/// `recip_rank`.
fn headline_table(result: &RankResult) -> Result<ScoreTable, Error> {
    let mut table = match result {
        RankResult::Local(e) => canonical_table([&e.score_table])?,
        _ => ScoreTable::new(),
    };
    let system = table.system(result.system());
    let mut set = |name: &str, value: f64, aggregate: bool| {
        let info = if aggregate { metric_info(name).aggregate() } else { metric_info(name) };
        let metric = table.metric_with_info(name, info);
        table.set_headline(system, metric, value);
    };
    match result {
        RankResult::Local(e) => {
            let macro_summary = &e.macro_summary;
            set("recip_rank", macro_summary.mrr, false);
            for &(k, v) in &macro_summary.hits {
                set(&format!("hits@{k}"), v, false);
            }
            let micro = &e.micro_summary;
            set("micro_mrr", micro.mrr, true);
            for &(k, v) in &micro.hits {
                set(&format!("micro_hits@{k}"), v, true);
            }
        }
        RankResult::Biollm(e) => {
            let s = &e.scores;
            for (name, value) in [
                ("precision", s.precision),
                ("recall", s.recall),
                ("f1", s.f1),
                ("hits@1", s.hits_at_1),
                ("recip_rank", s.mrr),
            ] {
                set(name, value, true);
            }
            if let Some(rate) = s.rejection_rate {
                set("rejection_rate", rate, true);
            }
        }
        RankResult::Ontoaligner(e) => {
            let s = &e.scores;
            for (name, value) in
                [("precision", s.precision), ("recall", s.recall), ("f_score", s.f_score), ("recip_rank", s.mrr)]
            {
                set(name, value, true);
            }
            for &(k, v) in &s.hits {
                set(&format!("hits@{k}"), v, true);
            }
        }
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::super::{RankPair, RankTask, RankingProfile};
    use crate::NoProgress;

    /// `run_with_gold` on the gold read once gives `run`'s headlines, for every kind of
    /// profile: local (diso: pools and gold key), biollm (the gold carried in the submission),
    /// ontoaligner (references).
    #[test]
    fn the_gold_read_once_scores_as_run() {
        let data = "../../testdata/ranking";
        let diso = RankTask::new(RankingProfile::Diso).pair(
            RankPair::new(format!("{data}/diso-synthetic/uco-stix/lexical.jsonl"))
                .pools(format!("{data}/diso-oaei/pools/uco-stix/pools.jsonl"))
                .gold(format!("{data}/diso-synthetic/uco-stix/gold.tsv")),
        );
        let biollm =
            RankTask::new(RankingProfile::Biollm).pair(RankPair::new(format!("{data}/bioml-biollm/biollm_result.tsv")));
        let references = format!("{data}/deeponto-assets/example_reference_mappings.tsv");
        let ontoaligner =
            RankTask::new(RankingProfile::Ontoaligner).pair(RankPair::new(references.clone()).gold(references));
        for task in [diso, biollm, ontoaligner] {
            let run = task.run(&NoProgress).expect("run");
            let gold = task.read_gold().expect("the gold");
            let once = task.run_with_gold(&gold, &NoProgress).expect("run with the gold");
            let headlines = crate::campaign::headlines(&run, &run.systems[0]);
            assert!(!headlines.is_empty(), "{:?}", task.profile);
            assert_eq!(crate::campaign::headlines(&once, &once.systems[0]), headlines, "{:?}", task.profile);
            // Twice on the same gold: the same.
            let again = task.run_with_gold(&gold, &NoProgress).expect("again");
            assert_eq!(crate::campaign::headlines(&again, &again.systems[0]), headlines, "{:?}", task.profile);
        }
        let unread = RankTask::new(RankingProfile::Ontoaligner).pair(RankPair::new("x.tsv"));
        assert!(unread.read_gold().expect_err("no references").to_string().contains("needs --gold"));
    }
}
