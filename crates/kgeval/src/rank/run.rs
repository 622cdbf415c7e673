//! Running a [`RankTask`]: reading, validating, scoring, headlines and warnings.

use kgeval_formats::rank::{read_gold, read_pools, read_scored_pairs, read_submission, SubmissionReadOptions};
use kgeval_metrics::rank::{
    evaluate_biollm, evaluate_local, evaluate_ontoaligner, InputRole, LocalPair, ValidationError,
};
use kgeval_model::metric_names::metric_info;
use kgeval_model::rank::results::{
    BiollmEvaluation, OntoalignerEvaluation, RankConventions, RankResult, RankingProfile,
};
use kgeval_model::rank::{GoldKey, PoolSet, Submission};
use kgeval_model::{Diagnostic, Interner, ScoreTable};

use super::memory::{self, MemoryRankPair, RankSource};
use super::{RankTask, DEFAULT_BETA, DEFAULT_THRESHOLD};
use crate::evaluation::{canonical_table, system_warnings};
use crate::{Conventions, Error, Evaluation, Family, FamilyResult, Progress, ResultExt as _, Warning};

/// One pair's inputs, read, with the names its errors use.
struct LoadedPair {
    name: String,
    pools: Option<PoolSet>,
    pools_file: Option<String>,
    submission: Submission,
    submission_file: String,
    gold: GoldKey,
    gold_file: String,
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

    fn run_pairs(&self, pairs: &[MemoryRankPair], progress: &dyn Progress) -> Result<Evaluation, Error> {
        let names = self.checked_pair_names(pairs)?;
        let system = match &self.system {
            Some(name) => name.clone(),
            None => pairs.first().ok_or_else(super::no_pair)?.default_system_name()?,
        };
        let mut warnings = Vec::new();
        let result = match self.profile {
            RankingProfile::Ontoaligner => self.run_ontoaligner(pairs, system)?,
            RankingProfile::Biollm => self.run_biollm(pairs, system, &names, &mut warnings)?,
            _ => self.run_local(pairs, &system, &names, progress, &mut warnings)?,
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
        progress: &dyn Progress,
        warnings: &mut Vec<Warning>,
    ) -> Result<RankResult, Error> {
        let options = self.local_options()?;
        let read_options = self.read_options();
        let mut interner = Interner::new();
        let mut loaded = Vec::with_capacity(pairs.len());
        progress.start("pairs", pairs.len() as u64);
        for (pair, name) in pairs.iter().zip(names) {
            loaded.push(self.load_pair(pair, name, &read_options, &mut interner, warnings)?);
            progress.advance(1);
        }
        progress.finish();
        let pairs: Vec<LocalPair<'_>> = loaded
            .iter()
            .map(|l| LocalPair { name: &l.name, pools: l.pools.as_ref(), submission: &l.submission, gold: &l.gold })
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
        warnings: &mut Vec<Warning>,
    ) -> Result<RankResult, Error> {
        let ([pair], [name]) = (pairs, names) else {
            return Err(Error::invalid("the biollm profile scores one submission file; the manifest lists several"));
        };
        let threshold = self.threshold.unwrap_or(DEFAULT_THRESHOLD);
        if !threshold.is_finite() {
            return Err(Error::invalid(format!("--threshold: expected a finite number, found {threshold}")));
        }
        let mut interner = Interner::new();
        let loaded = self.load_pair(pair, name, &self.read_options(), &mut interner, warnings)?;
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

    fn run_ontoaligner(&self, pairs: &[MemoryRankPair], system: String) -> Result<RankResult, Error> {
        let [pair] = pairs else {
            return Err(Error::invalid(
                "the ontoaligner profile scores one prediction file; the manifest lists several",
            ));
        };
        let gold = pair
            .gold
            .as_ref()
            .ok_or_else(|| Error::invalid("the ontoaligner profile needs --gold (the references)"))?;
        let mut interner = Interner::new();
        let predictions = match &pair.submission {
            RankSource::Input(input) => {
                let opened = input.open().context("reading predictions")?;
                read_scored_pairs(opened.bytes(), opened.name(), &mut interner).context("reading predictions")?
            }
            RankSource::Memory { name, items } => memory::scored_pairs(name, items, &mut interner)?,
        };
        let references: Vec<_> = match gold {
            RankSource::Input(input) => {
                let opened = input.open().context("reading references")?;
                read_scored_pairs(opened.bytes(), opened.name(), &mut interner)
                    .context("reading references")?
                    .into_iter()
                    .map(|p| (p.source, p.target))
                    .collect()
            }
            RankSource::Memory { name, items } => {
                if items.is_empty() {
                    return Err(Error::invalid(format!(
                        "{name}: found an empty list, expected at least one reference"
                    )));
                }
                items.iter().map(|g| (interner.intern(&g.qid), interner.intern(&g.gold))).collect()
            }
        };
        let ks = self.ks.clone().filter(|ks| !ks.is_empty()).unwrap_or_else(|| RankingProfile::Ontoaligner.ks());
        let beta = self.beta.unwrap_or(DEFAULT_BETA);
        let scores = evaluate_ontoaligner(&predictions, &references, &ks, beta);
        let conventions = RankConventions { ks, beta, ..RankConventions::for_profile(RankingProfile::Ontoaligner) };
        Ok(RankResult::Ontoaligner(OntoalignerEvaluation { system, conventions, scores }))
    }

    /// Reads pair `index`: pools (required by diso), submission, gold (else the submission's
    /// own); the readers' warnings go to `warnings` under `pair NAME`.
    fn load_pair(
        &self,
        pair: &MemoryRankPair,
        name: &str,
        options: &SubmissionReadOptions,
        interner: &mut Interner,
        warnings: &mut Vec<Warning>,
    ) -> Result<LoadedPair, Error> {
        let scope = format!("pair {name}");
        let mut warn = |list: Vec<Diagnostic>| {
            warnings.extend(list.into_iter().map(|diagnostic| Warning { scope: scope.clone(), diagnostic }));
        };
        let (pools, pools_file) = match &pair.pools {
            Some(RankSource::Memory { name, items }) => {
                (Some(memory::pools(name, items, interner)?), Some(name.clone()))
            }
            Some(RankSource::Input(input)) => {
                let opened = input.open().context("reading pools")?;
                let read = read_pools(opened.bytes(), opened.name(), interner).context("reading pools")?;
                warn(read.warnings);
                (Some(read.pools), Some(opened.name().to_owned()))
            }
            None if self.profile == RankingProfile::Diso => {
                return Err(Error::invalid(format!(
                    "pair {name:?}: the diso profile needs --pools (or `pools` in the manifest)"
                )));
            }
            None => (None, None),
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
        let (gold, gold_file) = match (&pair.gold, carried) {
            (Some(RankSource::Memory { name, items }), _) => {
                (memory::gold(name, items, interner, &options.nil_iri)?, name.clone())
            }
            (Some(RankSource::Input(input)), _) => {
                let opened = input.open().context("reading gold")?;
                let gold =
                    read_gold(opened.bytes(), opened.name(), interner, &options.nil_iri).context("reading gold")?;
                warn(gold.warnings);
                (gold.gold, opened.name().to_owned())
            }
            (None, Some(gold)) => (gold, submission_file.clone()),
            (None, None) => {
                return Err(Error::invalid(format!(
                    "pair {name:?}: no gold key: give --gold (the submission {submission_file} carries none)"
                )))
            }
        };
        Ok(LoadedPair { name: name.to_owned(), pools, pools_file, submission, submission_file, gold, gold_file })
    }
}

/// A validation error as `FILE:LINE: message`, naming the input of its role.
fn located(e: &ValidationError, loaded: &[LoadedPair]) -> Error {
    let file = loaded.iter().find(|l| l.name == e.pair).and_then(|pair| match e.role {
        InputRole::Pools => pair.pools_file.clone(),
        InputRole::Submission => Some(pair.submission_file.clone()),
        InputRole::Gold => Some(pair.gold_file.clone()),
    });
    match file {
        Some(file) => Error::invalid(format!("{file}:{}: {}", e.line, e.message)),
        None => Error::invalid(e.to_string()),
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
