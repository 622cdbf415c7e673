//! Local ranking with NIL abstention (OAEI DISO Task 2, Bio-ML, DeepOnto, OntoAligner,
//! Bio-LLM), on the shared [ranking core](crate::ranking).
//!
//! A pair is a set of pools (optional: Bio-ML files carry their own candidate lists), a
//! submission and a gold key. [`evaluate_local`] validates them like the organisers do, ranks
//! each gold query under the tie policy, and reports DISO's leaderboard breakdowns (overall,
//! matched, NIL, per type) per pair, MACRO over pairs and query-weighted micro, plus hard
//! abstention, trivial baselines, risk–coverage and an optional τ sweep.
//!
//! ```
//! use kgeval_metrics::rank::{evaluate_local, LocalOptions, LocalPair};
//! use kgeval_model::rank::{GoldEntry, GoldKey, Submission, SubmissionEntry, Submitted};
//! use kgeval_model::Interner;
//!
//! let mut interner = Interner::new();
//! let (a, b, x) = (interner.intern("A"), interner.intern("B"), interner.intern("X"));
//! let entry = |qid: &str, ranking: Vec<_>| SubmissionEntry {
//!     qid: qid.into(), submitted: Submitted::Ranking(ranking), answers: None, line: 1,
//! };
//! let submission = Submission { entries: vec![entry("1", vec![x, a]), entry("2", vec![b, x])] };
//! let gold = GoldKey { entries: vec![
//!     GoldEntry { qid: "1".into(), gold: a, line: 1 },
//!     GoldEntry { qid: "2".into(), gold: b, line: 2 },
//! ] };
//! let options = LocalOptions::for_profile(kgeval_model::rank::results::RankingProfile::Bioml);
//! let pair = LocalPair { name: "contract", pools: None, submission: &submission, gold: &gold };
//! let result = evaluate_local("system", &[pair], &interner, &options).unwrap();
//! assert_eq!(result.macro_summary.mrr, 0.75);
//! assert_eq!(result.macro_summary.hits_at(1), Some(0.5));
//! ```

mod abstention;
mod biollm;
mod ontoaligner;
mod query;
mod sweep;
mod validate;

use kgeval_model::rank::results::{
    PairRanking, RankBreakdown, RankConventions, RankingEvaluation, RankingProfile, TieCounts,
};
use kgeval_model::rank::{GoldKey, PoolSet, Submission, Submitted, DISO_NIL_IRI};
use kgeval_model::ranking::{TieBreak, TiePolicy};
use kgeval_model::{Diagnostic, Interner, ScoreTable};

pub use biollm::evaluate_biollm;
pub use ontoaligner::evaluate_ontoaligner;
pub use sweep::default_tau_grid;
pub use validate::{InputRole, ValidationError};

use self::query::{outcome, QueryOutcome};
use self::validate::{validate, JoinedQuery, PairInputs};
use crate::ranking::{macro_mean, record_into_table, summarize, summarize_by};

/// The conventions of a local-ranking evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalOptions {
    /// The profile the defaults came from (printed with the results).
    pub profile: RankingProfile,
    /// How equal scores are ordered in scored submissions.
    pub ties: TiePolicy,
    /// The cut-offs of Hits@k.
    pub ks: Vec<u32>,
    /// The confidence given to NIL in scored submissions (`None`: NIL is an ordinary candidate
    /// and must be scored like the others).
    pub tau: Option<f64>,
    /// The NIL IRI.
    pub nil_iri: String,
    /// The declared pool size (DISO: 50); pools of another size are an error.
    pub pool_size: Option<usize>,
    /// Whether every pool must hold the NIL IRI.
    pub require_nil: bool,
    /// Score queries missing from the submission 0 (with a warning) instead of failing.
    pub allow_missing: bool,
    /// Append pool candidates missing from a ranking in pool order (with a warning) instead of
    /// failing.
    pub repair: bool,
    /// A τ grid to sweep (scored submissions only).
    pub tau_grid: Option<Vec<f64>>,
}

impl LocalOptions {
    /// The defaults of a profile.
    #[must_use]
    pub fn for_profile(profile: RankingProfile) -> Self {
        let diso = profile == RankingProfile::Diso;
        LocalOptions {
            profile,
            ties: profile.tie_policy(),
            ks: profile.ks(),
            tau: diso.then_some(0.5),
            nil_iri: DISO_NIL_IRI.to_owned(),
            pool_size: diso.then_some(50),
            require_nil: diso,
            allow_missing: false,
            repair: false,
            tau_grid: None,
        }
    }
}

impl LocalOptions {
    /// The conventions these options put in force, as the results print them.
    #[must_use]
    pub fn conventions(&self) -> RankConventions {
        RankConventions {
            ties: self.ties,
            ks: self.ks.clone(),
            nil_iri: self.nil_iri.clone(),
            tau_rule: tau_rule(self.ties).to_owned(),
            ..RankConventions::for_profile(self.profile)
        }
    }
}

impl Default for LocalOptions {
    fn default() -> Self {
        Self::for_profile(RankingProfile::Diso)
    }
}

/// One pair's inputs.
#[derive(Debug, Clone, Copy)]
pub struct LocalPair<'a> {
    /// The pair name (`uco-stix`).
    pub name: &'a str,
    /// The candidate pools; `None` when the submission carries its own candidate lists.
    pub pools: Option<&'a PoolSet>,
    /// The system's submission.
    pub submission: &'a Submission,
    /// The gold key.
    pub gold: &'a GoldKey,
}

/// The words printed for what a candidate scoring exactly τ does.
#[must_use]
pub fn tau_rule(ties: TiePolicy) -> &'static str {
    match ties {
        TiePolicy::STABLE => {
            "NIL (confidence tau) comes after every scored candidate: a candidate scoring exactly tau ranks above NIL"
        }
        TiePolicy::LEXICOGRAPHIC => {
            "a candidate scoring exactly tau ties with NIL (scores rounded to 12 dp); the smaller IRI ranks first"
        }
        TiePolicy::TREC_EVAL => "a candidate scoring exactly tau ties with NIL; the larger IRI ranks first (trec_eval)",
        TiePolicy::Order(TieBreak::DocnoAscending) => {
            "a candidate scoring exactly tau ties with NIL; the smaller IRI ranks first"
        }
        TiePolicy::Order(TieBreak::Rank) => {
            "NIL (confidence tau) comes after every scored candidate: a candidate scoring exactly tau ranks above NIL"
        }
        TiePolicy::Optimistic => "a candidate scoring exactly tau ties with NIL; each is ranked first among the tie",
        TiePolicy::Pessimistic => "a candidate scoring exactly tau ties with NIL; each is ranked last among the tie",
        TiePolicy::Realistic => "a candidate scoring exactly tau ties with NIL; each gets the mean rank of the tie",
        TiePolicy::Expected => {
            "a candidate scoring exactly tau ties with NIL; each is uniform over the tied places (metrics are expectations)"
        }
        TiePolicy::RoundedMean => {
            "a candidate scoring exactly tau ties with NIL; each gets the mean rank of the tie rounded up (LibKGE)"
        }
    }
}

/// Validates and scores one system over one or more pairs.
///
/// # Errors
/// A [`ValidationError`] when an input cannot be scored: pools of the wrong size or without
/// NIL, duplicate or unknown qids, missing qids (unless `allow_missing`), a ranking that is not
/// a permutation of its pool (unless `repair` can fix it), or a τ sweep over rankings without
/// scores.
pub fn evaluate_local(
    system: &str,
    pairs: &[LocalPair<'_>],
    interner: &Interner,
    options: &LocalOptions,
) -> Result<RankingEvaluation, ValidationError> {
    let nil = interner.get(&options.nil_iri);
    let mut evaluation = RankingEvaluation {
        system: system.to_owned(),
        conventions: options.conventions(),
        ..RankingEvaluation::default()
    };
    let mut table = ScoreTable::new();
    let system_id = table.system(system);
    let mut joined_pairs = Vec::with_capacity(pairs.len());
    let mut all_outcomes = Vec::new();
    for pair in pairs {
        let inputs = PairInputs { name: pair.name, pools: pair.pools, submission: pair.submission, gold: pair.gold };
        let joined = validate(&inputs, interner, nil, options)?;
        let outcomes: Vec<QueryOutcome> =
            joined.queries.iter().map(|q| outcome(q, nil, options.tau, options.ties, interner)).collect();
        for (query, o) in joined.queries.iter().zip(&outcomes) {
            let item_name = if pairs.len() == 1 && pair.name.is_empty() {
                query.qid.to_owned()
            } else {
                format!("{}/{}", pair.name, query.qid)
            };
            let gold_kind = if o.nil_query { "NIL" } else { "matched" };
            let mut groups = vec![("pair", pair.name), ("gold", gold_kind)];
            if let Some(t) = query.entity_type {
                groups.push(("type", t));
            }
            let item = table.item(&item_name, &groups);
            record_into_table(&mut table, system_id, item, &o.record, &options.ks);
            let abstained = table.metric("abstained");
            table.set(system_id, item, abstained, f64::from(u8::from(o.abstained)));
        }
        let scored = pair.submission.entries.iter().any(|e| matches!(e.submitted, Submitted::Scores(_)));
        let pair_result = pair_ranking(pair.name, &joined.queries, &outcomes, joined.missing, scored, options);
        evaluation.warnings.extend(joined.warnings.into_iter().map(|w| in_pair(w, pair.name, pairs.len())));
        evaluation.pairs.push(pair_result);
        all_outcomes.extend(outcomes.iter().copied());
        joined_pairs.push(joined.queries);
    }
    evaluation.macro_summary = macro_mean(evaluation.pairs.iter().map(|p| &p.breakdown.overall));
    evaluation.micro_summary = summarize(all_outcomes.iter().map(|o| &o.record), &options.ks);
    evaluation.abstention = abstention::abstention(&all_outcomes);
    if let Some(grid) = &options.tau_grid {
        let scored_everywhere =
            pairs.iter().all(|p| p.submission.entries.iter().all(|e| matches!(e.submitted, Submitted::Scores(_))));
        if !scored_everywhere {
            let line = pairs
                .iter()
                .flat_map(|p| &p.submission.entries)
                .find(|e| !matches!(e.submitted, Submitted::Scores(_)))
                .map_or(1, |e| e.line);
            return Err(ValidationError {
                role: InputRole::Submission,
                pair: pairs.first().map_or_else(String::new, |p| p.name.to_owned()),
                line,
                message: "a tau sweep needs scores for every query; this entry is a ranking".to_owned(),
                concerns_gold: false,
            });
        }
        evaluation.sweep = Some(sweep::sweep(&joined_pairs, grid, nil, interner, options));
    }
    evaluation.score_table = table;
    Ok(evaluation)
}

fn in_pair(mut warning: Diagnostic, pair: &str, pairs: usize) -> Diagnostic {
    if pairs > 1 {
        warning.message = format!("{pair}: {}", warning.message);
    }
    warning
}

fn pair_ranking(
    name: &str,
    queries: &[JoinedQuery<'_>],
    outcomes: &[QueryOutcome],
    missing: usize,
    scored: bool,
    options: &LocalOptions,
) -> PairRanking {
    let ks = &options.ks;
    let records = || outcomes.iter().map(|o| &o.record);
    let of_kind = |nil: bool| summarize(outcomes.iter().filter(|o| o.nil_query == nil).map(|o| &o.record), ks);
    let per_type =
        summarize_by(queries.iter().zip(outcomes).filter_map(|(q, o)| q.entity_type.map(|t| (t, &o.record))), ks);
    let nil_queries: Vec<bool> = outcomes.iter().map(|o| o.nil_query).collect();
    PairRanking {
        pair: name.to_owned(),
        tau: if scored { options.tau } else { None },
        n: outcomes.len(),
        breakdown: RankBreakdown {
            overall: summarize(records(), ks),
            matched: of_kind(false),
            nil: of_kind(true),
            per_type: per_type.into_iter().map(|(t, s)| (t.to_owned(), s)).collect(),
        },
        abstention: abstention::abstention(outcomes),
        ties: TieCounts {
            gold_tied: outcomes.iter().filter(|o| o.record.tied).count(),
            nil_tied: outcomes.iter().filter(|o| o.nil_tied).count(),
        },
        missing_queries: missing,
        repaired_queries: queries.iter().filter(|q| !q.repaired.is_empty()).count(),
        baselines: abstention::baselines(&nil_queries, ks),
        risk_coverage: abstention::risk_coverage(outcomes),
    }
}
