//! Submission validation the way the DISO organisers do it, with better errors: every problem
//! names the input, the line and the offending qids or IRIs.

use std::fmt;

use kgeval_model::rank::{GoldKey, Pool, PoolSet, Submission, SubmissionEntry, Submitted};
use kgeval_model::{Diagnostic, Interner, TermId};
use rustc_hash::{FxHashMap, FxHashSet};

use super::LocalOptions;

/// Which input of a pair a validation error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputRole {
    /// The candidate pools.
    Pools,
    /// The system's submission.
    Submission,
    /// The gold key.
    Gold,
}

impl fmt::Display for InputRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InputRole::Pools => "pools",
            InputRole::Submission => "submission",
            InputRole::Gold => "gold",
        })
    }
}

/// An input a submission cannot be scored against (the CLI prints it with the file name of
/// `role` and exits 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{role} of pair '{pair}', line {line}: {message}")]
pub struct ValidationError {
    /// Which input.
    pub role: InputRole,
    /// The pair.
    pub pair: String,
    /// The 1-based line in that input.
    pub line: u32,
    /// What is wrong, naming qids and IRIs.
    pub message: String,
    /// Whether the message tells something of the pools' or the gold key's content (an
    /// unknown or missing qid, a ranking that is not its pool, a problem of the pools or the
    /// gold key themselves) rather than of the submission alone (a qid it repeats).
    pub concerns_gold: bool,
}

/// One gold query joined with its pool and its submission entry.
#[derive(Debug, Clone)]
pub(crate) struct JoinedQuery<'a> {
    pub qid: &'a str,
    pub gold: TermId,
    pub entity_type: Option<&'a str>,
    pub pool: Option<&'a Pool>,
    pub entry: Option<&'a SubmissionEntry>,
    /// Pool candidates the ranking lacked, appended by repair mode (in pool order).
    pub repaired: Vec<TermId>,
}

/// The validated queries of one pair, in gold order, and the warnings raised.
pub(crate) struct Joined<'a> {
    pub queries: Vec<JoinedQuery<'a>>,
    pub warnings: Vec<Diagnostic>,
    pub missing: usize,
}

pub(crate) struct PairInputs<'a> {
    pub name: &'a str,
    pub pools: Option<&'a PoolSet>,
    pub submission: &'a Submission,
    pub gold: &'a GoldKey,
}

const LISTED: usize = 3;

fn list_iris(interner: &Interner, ids: &[TermId]) -> String {
    let mut out: Vec<String> = ids.iter().take(LISTED).map(|&t| format!("<{}>", interner.resolve(t))).collect();
    if ids.len() > LISTED {
        out.push(format!("… ({} in all)", ids.len()));
    }
    out.join(", ")
}

pub(crate) fn validate<'a>(
    inputs: &PairInputs<'a>,
    interner: &Interner,
    nil: Option<TermId>,
    options: &LocalOptions,
) -> Result<Joined<'a>, ValidationError> {
    let error = |role, line, message: String| ValidationError {
        role,
        pair: inputs.name.to_owned(),
        line,
        message,
        concerns_gold: true,
    };
    let mut warnings = Vec::new();
    if let Some(pools) = inputs.pools {
        check_pools(pools, nil, options).map_err(|(line, m)| error(InputRole::Pools, line, m))?;
        warn_identical_pools(pools, &mut warnings);
    }

    let mut gold_lines: FxHashMap<&str, u32> = FxHashMap::default();
    for entry in &inputs.gold.entries {
        if let Some(first) = gold_lines.insert(&entry.qid, entry.line) {
            let m = format!("duplicate qid {} (first at line {first})", entry.qid);
            return Err(error(InputRole::Gold, entry.line, m));
        }
        if let Some(pools) = inputs.pools {
            if pools.get(&entry.qid).is_none() {
                return Err(error(InputRole::Gold, entry.line, format!("qid {} has no pool", entry.qid)));
            }
        }
    }

    let mut entries: FxHashMap<&str, &SubmissionEntry> = FxHashMap::default();
    for entry in &inputs.submission.entries {
        if let Some(first) = entries.insert(&entry.qid, entry) {
            let m = format!("duplicate qid {} (first at line {})", entry.qid, first.line);
            return Err(ValidationError { concerns_gold: false, ..error(InputRole::Submission, entry.line, m) });
        }
        let known = match inputs.pools {
            Some(pools) => pools.get(&entry.qid).is_some(),
            None => gold_lines.contains_key(entry.qid.as_ref()),
        };
        if !known {
            if inputs.pools.is_some() {
                return Err(error(
                    InputRole::Submission,
                    entry.line,
                    format!("unknown qid {}: no pool of the gold has it", entry.qid),
                ));
            }
            warnings.push(Diagnostic::warning("unknown-qid", format!("qid {} has no gold; ignored", entry.qid)));
        }
    }

    // Coverage: a gold key of another pair scores a fraction of the queries (or none).
    let (covered, total, what) = match inputs.pools {
        Some(pools) => (gold_lines.len(), pools.pools().len(), "pools"),
        None => {
            let n = inputs.submission.entries.len();
            (entries.keys().filter(|q| gold_lines.contains_key(*q)).count(), n, "submission queries")
        }
    };
    if total > 0 && covered == 0 {
        let m =
            format!("the gold key covers none of the {total} {what}, expected the gold key of pair {}", inputs.name);
        return Err(error(InputRole::Gold, 1, m));
    }
    if covered < total {
        // First, so that the cap on printed warnings never hides it behind the per-query ones.
        warnings.insert(
            0,
            Diagnostic::warning(
                "coverage-gold",
                format!(
                "the gold key covers {covered} of {total} {what}: {} queries unscored (a gold key of another pair?)",
                total - covered
            ),
            ),
        );
    }

    // Missing queries: every pool must be answered (organisers' rule), else every gold query.
    let expected: Vec<(&str, u32)> = match inputs.pools {
        Some(pools) => pools.pools().iter().map(|p| (p.qid.as_ref(), p.line)).collect(),
        None => inputs.gold.entries.iter().map(|e| (e.qid.as_ref(), e.line)).collect(),
    };
    let missing: Vec<&str> = expected.iter().filter(|(q, _)| !entries.contains_key(q)).map(|(q, _)| *q).collect();
    let missing_gold = inputs.gold.entries.iter().filter(|e| !entries.contains_key(e.qid.as_ref())).count();
    if !missing.is_empty() {
        let listed: Vec<&str> = missing.iter().take(10).copied().collect();
        let more = if missing.len() > 10 { format!(" … ({} in all)", missing.len()) } else { String::new() };
        let m = format!("{} qid(s) missing from the submission: {}{more}", missing.len(), listed.join(", "));
        if !options.allow_missing {
            let line = inputs.submission.entries.last().map_or(1, |e| e.line);
            return Err(error(
                InputRole::Submission,
                line,
                format!("{m}, expected every query answered (a task that allows missing queries scores them 0)"),
            ));
        }
        warnings.push(Diagnostic::warning("missing-qid", format!("{m}; scored 0")));
    }

    let mut queries = Vec::with_capacity(inputs.gold.entries.len());
    for gold in &inputs.gold.entries {
        let pool = inputs.pools.and_then(|p| p.get(&gold.qid));
        let entry = entries.get(gold.qid.as_ref()).copied();
        let mut repaired = Vec::new();
        if let (Some(pool), Some(entry)) = (pool, entry) {
            repaired = check_permutation(pool, entry, interner, nil, options)
                .map_err(|m| error(InputRole::Submission, entry.line, format!("qid {}: {m}", entry.qid)))?;
            if !repaired.is_empty() {
                warnings.push(Diagnostic::warning(
                    "repaired",
                    format!(
                        "qid {} (line {}): {} missing candidate(s) appended in pool order",
                        entry.qid,
                        entry.line,
                        repaired.len()
                    ),
                ));
            }
        }
        if let Some(pool) = pool {
            if !pool.candidates.contains(&gold.gold) {
                warnings.push(Diagnostic::warning(
                    "gold-not-in-pool",
                    format!("qid {} (gold line {}): the gold is not in the pool; scored 0", gold.qid, gold.line),
                ));
            }
        }
        queries.push(JoinedQuery {
            qid: &gold.qid,
            gold: gold.gold,
            entity_type: pool.and_then(|p| p.entity_type.as_deref()),
            pool,
            entry,
            repaired,
        });
    }
    warn_sibling_golds(&queries, nil, &mut warnings);
    Ok(Joined { queries, warnings, missing: missing_gold })
}

fn check_pools(pools: &PoolSet, nil: Option<TermId>, options: &LocalOptions) -> Result<(), (u32, String)> {
    for pool in pools.pools() {
        if let Some(size) = options.pool_size {
            if pool.candidates.len() != size {
                let m = format!("qid {}: pool has {} candidates, expected {size}", pool.qid, pool.candidates.len());
                return Err((pool.line, m));
            }
        }
        if options.require_nil && nil.is_none_or(|nil| !pool.candidates.contains(&nil)) {
            return Err((pool.line, format!("qid {}: the NIL IRI <{}> is not in the pool", pool.qid, options.nil_iri)));
        }
    }
    Ok(())
}

fn warn_identical_pools(pools: &PoolSet, warnings: &mut Vec<Diagnostic>) {
    let mut seen: FxHashMap<&[TermId], &Pool> = FxHashMap::default();
    for pool in pools.pools() {
        match seen.get(pool.candidates.as_slice()) {
            Some(first) => warnings.push(Diagnostic::warning(
                "identical-pools",
                format!(
                    "qids {} (line {}) and {} (line {}) have identical pools",
                    first.qid, first.line, pool.qid, pool.line
                ),
            )),
            None => {
                seen.insert(&pool.candidates, pool);
            }
        }
    }
}

/// Warns when a query's pool holds the gold of another query with the same source (ranking that
/// sibling gold first is not wrong, yet scores as a miss).
fn warn_sibling_golds(queries: &[JoinedQuery<'_>], nil: Option<TermId>, warnings: &mut Vec<Diagnostic>) {
    let mut by_source: FxHashMap<TermId, Vec<usize>> = FxHashMap::default();
    for (i, q) in queries.iter().enumerate() {
        if let Some(pool) = q.pool {
            by_source.entry(pool.source).or_default().push(i);
        }
    }
    let mut groups: Vec<&Vec<usize>> = by_source.values().filter(|g| g.len() > 1).collect();
    groups.sort_unstable();
    for group in groups {
        for &i in group {
            let query = &queries[i];
            let Some(pool) = query.pool else { continue };
            let siblings: Vec<&str> = group
                .iter()
                .filter(|&&j| j != i)
                .map(|&j| &queries[j])
                .filter(|s| s.gold != query.gold && Some(s.gold) != nil && pool.candidates.contains(&s.gold))
                .map(|s| s.qid)
                .collect();
            if !siblings.is_empty() {
                warnings.push(Diagnostic::warning(
                    "sibling-gold",
                    format!(
                        "qid {} (pool line {}): the pool holds the gold of sibling qid(s) {} (same source)",
                        query.qid,
                        pool.line,
                        siblings.join(", ")
                    ),
                ));
            }
        }
    }
}

/// Checks that a submission entry ranks exactly the pool; returns the candidates repair mode
/// appended.
fn check_permutation(
    pool: &Pool,
    entry: &SubmissionEntry,
    interner: &Interner,
    nil: Option<TermId>,
    options: &LocalOptions,
) -> Result<Vec<TermId>, String> {
    let in_pool: FxHashSet<TermId> = pool.candidates.iter().copied().collect();
    let mut seen = FxHashSet::default();
    let mut extra = Vec::new();
    let mut repeated = Vec::new();
    for candidate in entry.submitted.candidates() {
        if !in_pool.contains(&candidate) {
            extra.push(candidate);
        } else if !seen.insert(candidate) {
            repeated.push(candidate);
        }
    }
    // A scored submission may leave NIL out: NIL then gets τ.
    let nil_optional = matches!(entry.submitted, Submitted::Scores(_));
    let missing: Vec<TermId> =
        pool.candidates.iter().copied().filter(|c| !(seen.contains(c) || (nil_optional && Some(*c) == nil))).collect();
    if extra.is_empty() && repeated.is_empty() && missing.is_empty() {
        return Ok(Vec::new());
    }
    if extra.is_empty() && repeated.is_empty() && options.repair {
        return Ok(missing);
    }
    let what = if nil_optional { "scores" } else { "ranking" };
    let mut parts = Vec::new();
    if !extra.is_empty() {
        parts.push(format!("{} not in the pool: {}", extra.len(), list_iris(interner, &extra)));
    }
    if !repeated.is_empty() {
        parts.push(format!("{} repeated: {}", repeated.len(), list_iris(interner, &repeated)));
    }
    if !missing.is_empty() {
        let hint = if extra.is_empty() && repeated.is_empty() { " (--repair appends them)" } else { "" };
        parts.push(format!("{} missing: {}{hint}", missing.len(), list_iris(interner, &missing)));
    }
    Err(format!("{what} is not a permutation of the pool: {}", parts.join("; ")))
}
