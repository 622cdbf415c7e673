//! Pooling (seed 004 §3, TREC style): the depth-d pool of several runs, each pooled item with
//! the smallest depth that brings it in; what completed judgments add per depth.
//!
//! A **pool of depth d** is, per question, the union of the top-d items of every run, minus
//! the items already judged. An item's **depth** is the smallest 1-based position at which a
//! run ranks it. Positions are counted after the question's *known* items are removed (KGC:
//! its test answers and the answers of the filter triples, i.e. the filtered ranking), and
//! before the *judged* items are removed (a judged item still occupies its place, as in TREC:
//! judging more never changes the depth of the rest).
//!
//! The **trivial-triple filter** (seed 004 §3.1) marks whole KGC questions negative without
//! judging: head questions `(?, p, o)` on 1-1 and 1-N relations and tail questions
//! `(s, p, ?)` on 1-1 and N-1 relations, whose few answers the test split already has
//! ([`is_trivial_question`]).

use std::collections::{HashMap, HashSet};

use kgeval_model::kgc::{Judgment, PooledTriple, RelationCategory, Side, Triple};
use kgeval_model::meta::agreement::{Agreement, GroupKey, SystemGroup, SystemMetricTable};
use kgeval_model::meta::pool::{
    DepthPositives, DepthSeries, Pool, PoolCounts, PoolSummary, PooledItem, MAX_POOL_DEPTH,
};

use crate::agreement::{agreement, AgreementOptions};
use crate::MetaError;

/// One question's ranked lists, one per run (best first, already in the run's order: trec_eval's
/// score descending then docno descending), and what is removed.
#[derive(Debug, Clone, Default)]
pub struct PoolQuestion {
    /// The question id.
    pub id: String,
    /// One list per run, best first; an empty list where a run did not answer the question.
    pub lists: Vec<Vec<String>>,
    /// Items removed before positions are counted (KGC known answers).
    pub known: HashSet<String>,
    /// Items already judged: removed from the pool after positions are counted.
    pub judged: HashSet<String>,
    /// Whether the trivial-triple filter marks the question's items negative.
    pub trivial: bool,
}

/// Whether the trivial-triple filter marks a question negative: a head question on a 1-1 or
/// 1-N relation (at most one head per tail), a tail question on a 1-1 or N-1 relation (at most
/// one tail per head).
///
/// ```
/// use kgeval_meta::pool::is_trivial_question;
/// use kgeval_model::kgc::{RelationCategory as C, Side};
/// assert!(is_trivial_question(Side::Head, C::OneToMany));
/// assert!(!is_trivial_question(Side::Tail, C::OneToMany));
/// assert!(is_trivial_question(Side::Tail, C::ManyToOne));
/// assert!(!is_trivial_question(Side::Head, C::ManyToMany));
/// ```
#[must_use]
pub fn is_trivial_question(side: Side, category: RelationCategory) -> bool {
    use RelationCategory::{ManyToOne, OneToMany, OneToOne};
    matches!((side, category), (Side::Head, OneToOne | OneToMany) | (Side::Tail, OneToOne | ManyToOne))
}

/// The depth-`depth` pool of `questions` (see the module documentation); `runs` names the
/// runs (one per list of every question).
///
/// ```
/// use kgeval_meta::pool::{build_pool, PoolQuestion};
/// let list = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
/// let q = PoolQuestion {
///     id: "q1".into(),
///     lists: vec![list(&["a", "b", "c"]), list(&["c", "d", "a"])],
///     judged: ["b".to_string()].into(),
///     ..Default::default()
/// };
/// let pool = build_pool(&[q], &["A".into(), "B".into()], 2)?;
/// let items: Vec<(&str, u32)> = pool.items.iter().map(|i| (i.item.as_str(), i.depth)).collect();
/// assert_eq!(items, [("a", 1), ("c", 1), ("d", 2)]);
/// assert_eq!(pool.counts.judged, 1);
/// # Ok::<(), kgeval_meta::MetaError>(())
/// ```
///
/// # Errors
/// [`MetaError::InvalidOption`] for depth 0 or past [`MAX_POOL_DEPTH`], no run, or a question
/// whose number of lists differs from the number of runs.
pub fn build_pool(questions: &[PoolQuestion], runs: &[String], depth: u32) -> Result<Pool, MetaError> {
    if depth == 0 {
        return Err(MetaError::InvalidOption("pool depth: expected a positive depth, found 0".to_owned()));
    }
    if depth > MAX_POOL_DEPTH {
        return Err(MetaError::InvalidOption(format!(
            "pool depth: found {depth}, expected a pool depth from 1 to {MAX_POOL_DEPTH}"
        )));
    }
    if runs.is_empty() {
        return Err(MetaError::InvalidOption("pool: expected at least one run, found none".to_owned()));
    }
    let mut pool = Pool {
        depth,
        runs: runs.to_vec(),
        questions: Vec::with_capacity(questions.len()),
        counts: PoolCounts { per_depth: vec![0; depth as usize], ..PoolCounts::default() },
        ..Pool::default()
    };
    for (index, question) in questions.iter().enumerate() {
        if question.lists.len() != runs.len() {
            return Err(MetaError::InvalidOption(format!(
                "pool: question {} has {} ranked lists, expected one per run ({})",
                question.id,
                question.lists.len(),
                runs.len()
            )));
        }
        pool.questions.push(question.id.clone());
        // item → (smallest depth, runs ranking it within the depth)
        let mut found: HashMap<&str, (u32, u32)> = HashMap::new();
        let mut known_seen: HashSet<&str> = HashSet::new();
        for list in &question.lists {
            let mut position = 0u32;
            let mut in_this_run: HashSet<&str> = HashSet::new();
            for item in list {
                if question.known.contains(item) {
                    known_seen.insert(item);
                    continue;
                }
                if !in_this_run.insert(item) {
                    continue; // a repeat within one list keeps its first place
                }
                position += 1;
                if position > depth {
                    break;
                }
                let entry = found.entry(item).or_insert((position, 0));
                entry.0 = entry.0.min(position);
                entry.1 += 1;
            }
        }
        pool.counts.known += known_seen.len();
        pool.counts.candidates += found.len();
        let mut items: Vec<PooledItem> = found
            .into_iter()
            .filter(|(item, _)| !question.judged.contains(*item))
            .map(|(item, (depth, runs))| PooledItem { question: index as u32, item: item.to_owned(), depth, runs })
            .collect();
        items.sort_by(|a, b| (a.depth, &a.item).cmp(&(b.depth, &b.item)));
        if question.trivial {
            pool.counts.auto_negative += items.len();
            pool.auto_negative.extend(items);
        } else {
            for item in &items {
                pool.counts.per_depth[item.depth as usize - 1] += 1;
            }
            pool.items.extend(items);
        }
    }
    pool.counts.judged = pool.counts.candidates - pool.items.len() - pool.auto_negative.len();
    Ok(pool)
}

/// What completed judgments add per pool depth, for depths 1..=`max_depth`: judged pooled
/// triples and positives (`Y`) whose smallest pool depth is d, and the running total. The first
/// judgment of a triple wins (as the KGC qrels do); a triple pooled twice keeps its smallest
/// depth; judged triples outside the pool are the original labels (depth 0).
///
/// ```
/// use kgeval_meta::pool::summarize_judgments;
/// use kgeval_model::kgc::{Judgment, PooledTriple, Triple};
/// use kgeval_model::Interner;
/// let mut n = Interner::new();
/// let (r, x) = (n.intern("r"), n.intern("x"));
/// let [a, b, c, d] = ["a", "b", "c", "d"].map(|h| Triple { head: n.intern(h), relation: r, tail: x });
/// let judged = [(a, true), (b, true), (c, false)].map(|(triple, relevant)| Judgment { triple, relevant, line: 1 });
/// let pool = [(b, 2), (c, 1), (d, 1)].map(|(triple, depth)| PooledTriple { triple, depth, line: 1 });
/// let summary = summarize_judgments(&judged, &pool, 2)?;
/// assert_eq!(summary.depths.iter().map(|d| d.positives).collect::<Vec<_>>(), [0, 1]);
/// assert_eq!((summary.outside_pool_positives, summary.unjudged), (1, 1));
/// # Ok::<(), kgeval_meta::MetaError>(())
/// ```
///
/// # Errors
/// [`MetaError::InvalidOption`] for `max_depth` past [`MAX_POOL_DEPTH`] (it sizes the rows).
pub fn summarize_judgments(
    judgments: &[Judgment],
    pool: &[PooledTriple],
    max_depth: u32,
) -> Result<PoolSummary, MetaError> {
    if max_depth > MAX_POOL_DEPTH {
        return Err(MetaError::InvalidOption(format!(
            "pool summary: found {max_depth}, expected a pool depth from 0 to {MAX_POOL_DEPTH}"
        )));
    }
    let mut first: HashMap<Triple, bool> = HashMap::with_capacity(judgments.len());
    for j in judgments {
        first.entry(j.triple).or_insert(j.relevant);
    }
    let mut depth_of: HashMap<Triple, u32> = HashMap::with_capacity(pool.len());
    for p in pool {
        let d = depth_of.entry(p.triple).or_insert(p.depth);
        *d = (*d).min(p.depth);
    }
    let mut summary = PoolSummary {
        judged: first.len(),
        positives: first.values().filter(|r| **r).count(),
        pooled: depth_of.len(),
        depths: (1..=max_depth).map(|depth| DepthPositives { depth, ..DepthPositives::default() }).collect(),
        ..PoolSummary::default()
    };
    for (triple, relevant) in &first {
        match depth_of.get(triple) {
            None | Some(0) => {
                summary.outside_pool += 1;
                summary.outside_pool_positives += usize::from(*relevant);
            }
            Some(&d) if d <= max_depth => {
                let row = &mut summary.depths[d as usize - 1];
                row.judged += 1;
                row.positives += usize::from(*relevant);
            }
            Some(_) => {}
        }
    }
    summary.unjudged = depth_of.keys().filter(|t| !first.contains_key(t)).count();
    let mut total = 0;
    for row in &mut summary.depths {
        total += row.positives;
        row.cumulative = total;
    }
    Ok(summary)
}

/// The group column of a depth series as a wide table (kgc-sparsity `pooling_depth.csv`).
pub const DEPTH_COLUMN: &str = "Depth";

/// A depth series as a wide system × metric table grouped by `Depth` (the
/// `pooling_depth.csv` layout), the input of [`agreement`]; with `only_depth`, the rows of
/// that depth alone, ungrouped (the reference ordering).
#[must_use]
pub fn series_table(series: &DepthSeries, source: &str, only_depth: Option<u32>) -> SystemMetricTable {
    let groups = if only_depth.is_some() { Vec::new() } else { vec![DEPTH_COLUMN.to_owned()] };
    let mut table = SystemMetricTable::new(source, groups, &series.metrics);
    // The group of each depth, by a map: `push_row` looks groups up one by one, quadratic in
    // the number of depths (10,001 depths took seconds).
    let mut group_of: HashMap<u32, usize> = HashMap::new();
    for row in series.rows.iter().filter(|r| only_depth.is_none_or(|d| d == r.depth)) {
        let index = *group_of.entry(row.depth).or_insert_with(|| {
            let key = match only_depth {
                Some(_) => GroupKey::default(),
                None => GroupKey(vec![(DEPTH_COLUMN.to_owned(), row.depth.to_string())]),
            };
            table.groups.push(SystemGroup { key, ..SystemGroup::default() });
            table.groups.len() - 1
        });
        let group = &mut table.groups[index];
        group.systems.push(row.system.clone());
        group.values.extend_from_slice(&row.values);
    }
    table
}

/// Ranking agreement of every depth's system ordering with `reference` (default: the series'
/// own depth 0), per metric: Kendall tau-b (and a, c, the p-value, tau_AP, RBO) through
/// [`agreement`], one row per (depth, metric). Metrics with a missing value (NaN) at some depth
/// are left out (and, with a reference, metrics it lacks); `None` when none is left, and with
/// fewer than two systems (one system has no ordering to compare: tau is undefined).
///
/// # Errors
/// The errors of [`agreement`] (a reference sharing no system group, a duplicate system).
pub fn depth_agreement(
    series: &DepthSeries,
    reference: Option<&SystemMetricTable>,
) -> Result<Option<Agreement>, MetaError> {
    let complete = |m: usize| series.rows.iter().all(|r| r.values.get(m).is_some_and(|v| !v.is_nan()));
    let own;
    let reference = match reference {
        Some(table) => table,
        None => {
            own = series_table(series, "depth 0", Some(0));
            &own
        }
    };
    let metrics: Vec<String> = (0..series.metrics.len())
        .filter(|&m| complete(m))
        .map(|m| series.metrics[m].clone())
        .filter(|name| reference.find_metric(name).is_some())
        .collect();
    if metrics.is_empty() || series.rows.is_empty() || series.systems.len() < 2 {
        return Ok(None);
    }
    let table = series_table(series, "depth series", None);
    agreement(reference, &table, &metrics, &AgreementOptions::default()).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kgeval_model::Interner;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn set(items: &[&str]) -> HashSet<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn runs(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("R{i}")).collect()
    }

    fn pooled(pool: &Pool) -> Vec<(u32, &str, u32, u32)> {
        pool.items.iter().map(|i| (i.question, i.item.as_str(), i.depth, i.runs)).collect()
    }

    /// Two runs, worked by hand. Depth 3.
    /// q1: A = x y z w, B = z x v.  Union of top-3: x (A1, B2 → 1, 2 runs), y (A2 → 2, 1),
    ///     z (A3, B1 → 1, 2), v (B3 → 3, 1). w is A's 4th: out.
    /// q2: A = p, B = (nothing): p at depth 1.
    #[test]
    fn two_runs_min_depth_and_run_counts() {
        let q1 = PoolQuestion {
            id: "q1".into(),
            lists: vec![list(&["x", "y", "z", "w"]), list(&["z", "x", "v"])],
            ..Default::default()
        };
        let q2 = PoolQuestion { id: "q2".into(), lists: vec![list(&["p"]), Vec::new()], ..Default::default() };
        let pool = build_pool(&[q1, q2], &runs(2), 3).unwrap();
        assert_eq!(pooled(&pool), [(0, "x", 1, 2), (0, "z", 1, 2), (0, "y", 2, 1), (0, "v", 3, 1), (1, "p", 1, 1)]);
        assert_eq!(pool.questions, ["q1", "q2"]);
        assert_eq!(pool.counts.per_depth, [3, 1, 1]);
        assert_eq!((pool.counts.candidates, pool.counts.judged, pool.counts.known), (5, 0, 0));
    }

    /// A judged item is removed but keeps its place: with y judged, v stays at depth 3 (not 2).
    #[test]
    fn judged_items_removed_after_positions() {
        let q = PoolQuestion {
            id: "q".into(),
            lists: vec![list(&["x", "y", "v"])],
            judged: set(&["y"]),
            ..Default::default()
        };
        let pool = build_pool(&[q], &runs(1), 3).unwrap();
        assert_eq!(pooled(&pool), [(0, "x", 1, 1), (0, "v", 3, 1)]);
        assert_eq!((pool.counts.candidates, pool.counts.judged), (3, 1));
    }

    /// Known answers are removed before positions: the filtered ranking. A = k x y with k
    /// known: x is at depth 1, y at depth 2, and depth 2 reaches y.
    #[test]
    fn known_answers_removed_before_positions() {
        let q = PoolQuestion {
            id: "q".into(),
            lists: vec![list(&["k", "x", "y", "z"])],
            known: set(&["k"]),
            ..Default::default()
        };
        let pool = build_pool(&[q], &runs(1), 2).unwrap();
        assert_eq!(pooled(&pool), [(0, "x", 1, 1), (0, "y", 2, 1)]);
        assert_eq!(pool.counts.known, 1);
    }

    /// Ties: the lists come already in trec_eval order; equal depths from two runs sort by
    /// item. A repeated item within one list keeps its first place and does not take a slot.
    #[test]
    fn ties_and_repeats() {
        let q = PoolQuestion {
            id: "q".into(),
            lists: vec![list(&["b", "b", "a"]), list(&["a", "c"])],
            ..Default::default()
        };
        let pool = build_pool(&[q], &runs(2), 2).unwrap();
        assert_eq!(pooled(&pool), [(0, "a", 1, 2), (0, "b", 1, 1), (0, "c", 2, 1)]);
    }

    #[test]
    fn trivial_questions_are_auto_negative() {
        let q = PoolQuestion { id: "q".into(), lists: vec![list(&["x", "y"])], trivial: true, ..Default::default() };
        let pool = build_pool(&[q], &runs(1), 1).unwrap();
        assert!(pool.items.is_empty());
        assert_eq!(pool.auto_negative.len(), 1);
        assert_eq!((pool.counts.auto_negative, pool.counts.per_depth.as_slice()), (1, &[0][..]));
    }

    #[test]
    fn trivial_rule_every_case() {
        use RelationCategory::*;
        let head: Vec<bool> = RelationCategory::ALL.iter().map(|c| is_trivial_question(Side::Head, *c)).collect();
        let tail: Vec<bool> = RelationCategory::ALL.iter().map(|c| is_trivial_question(Side::Tail, *c)).collect();
        assert_eq!(RelationCategory::ALL, [OneToOne, OneToMany, ManyToOne, ManyToMany]);
        assert_eq!(head, [true, true, false, false]);
        assert_eq!(tail, [true, false, true, false]);
    }

    #[test]
    fn bad_options() {
        let q = PoolQuestion { id: "q".into(), lists: vec![list(&["x"])], ..Default::default() };
        let e = build_pool(std::slice::from_ref(&q), &runs(1), 0).unwrap_err();
        assert!(e.to_string().contains("found 0"), "{e}");
        let e = build_pool(std::slice::from_ref(&q), &runs(2), 1).unwrap_err();
        assert!(e.to_string().contains("question q has 1 ranked lists"), "{e}");
        assert!(build_pool(&[q], &[], 1).is_err());
    }

    /// A depth past the maximum is refused before anything is sized by it (depth 4294967295
    /// once asked for a 34 GB per-depth table); the maximum itself is fine.
    #[test]
    fn depths_past_the_maximum_are_refused() {
        use kgeval_model::meta::pool::MAX_POOL_DEPTH;
        let q = PoolQuestion { id: "q".into(), lists: vec![list(&["x"])], ..Default::default() };
        let e = build_pool(std::slice::from_ref(&q), &runs(1), u32::MAX).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("pool depth: found 4294967295, expected a pool depth from 1 to {MAX_POOL_DEPTH}")
        );
        let pool = build_pool(std::slice::from_ref(&q), &runs(1), MAX_POOL_DEPTH).unwrap();
        assert_eq!(pool.counts.per_depth.len(), MAX_POOL_DEPTH as usize);
        let e = summarize_judgments(&[], &[], u32::MAX).unwrap_err();
        assert!(e.to_string().contains("found 4294967295, expected a pool depth from 0 to"), "{e}");
        assert_eq!(summarize_judgments(&[], &[], MAX_POOL_DEPTH).unwrap().depths.len(), MAX_POOL_DEPTH as usize);
    }

    /// Positives per depth, worked by hand: pool b@2 (Y), c@1 (N), d@1 (unjudged), e@1 and
    /// e@3 (Y, smallest depth 1); a judged Y outside the pool; b judged twice (first wins).
    #[test]
    fn summary_by_hand() {
        let mut n = Interner::new();
        let (r, x) = (n.intern("r"), n.intern("x"));
        let [a, b, c, d, e] = ["a", "b", "c", "d", "e"].map(|h| Triple { head: n.intern(h), relation: r, tail: x });
        let judged: Vec<Judgment> = [(a, true), (b, true), (c, false), (e, true), (b, false)]
            .iter()
            .map(|&(triple, relevant)| Judgment { triple, relevant, line: 1 })
            .collect();
        let pool: Vec<PooledTriple> = [(b, 2), (c, 1), (d, 1), (e, 3), (e, 1)]
            .iter()
            .map(|&(triple, depth)| PooledTriple { triple, depth, line: 1 })
            .collect();
        let s = summarize_judgments(&judged, &pool, 3).unwrap();
        let rows: Vec<(u32, usize, usize, usize)> =
            s.depths.iter().map(|d| (d.depth, d.judged, d.positives, d.cumulative)).collect();
        assert_eq!(rows, [(1, 2, 1, 1), (2, 1, 1, 2), (3, 0, 0, 2)]);
        assert_eq!(
            (s.judged, s.positives, s.outside_pool, s.outside_pool_positives, s.pooled, s.unjudged),
            (4, 3, 1, 1, 4, 1)
        );
        // A smaller max depth leaves deeper items out of the rows.
        let s = summarize_judgments(&judged, &pool, 1).unwrap();
        assert_eq!(s.depths.len(), 1);
        assert_eq!(s.depths[0].positives, 1);
    }

    /// The series table and the agreement with depth 0, by hand: three systems, two depths.
    /// Depth 0: 0.3, 0.2, 0.1; depth 1: 0.3, 0.3, 0.1 (S1 and S2 tied): P = 2, Q = 0, U = 1,
    /// tau-b = 2/√6. A metric with a missing value is left out.
    #[test]
    fn depth_agreement_by_hand() {
        use kgeval_model::meta::pool::SeriesRow;
        let rows = [("S1", 0, 0.3), ("S1", 1, 0.3), ("S2", 0, 0.2), ("S2", 1, 0.3), ("S3", 0, 0.1), ("S3", 1, 0.1)]
            .iter()
            .map(|&(system, depth, v)| SeriesRow { system: system.into(), depth, values: vec![v, f64::NAN] })
            .collect();
        let series = DepthSeries {
            systems: vec!["S1".into(), "S2".into(), "S3".into()],
            metrics: vec!["micro_mrr".into(), "map_cut_20".into()],
            rows,
            ..DepthSeries::default()
        };
        let table = series_table(&series, "s", None);
        assert_eq!(table.groups.len(), 2);
        assert_eq!(table.groups[1].key.get("Depth"), Some("1"));
        assert_eq!(table.groups[1].column(0), [0.3, 0.3, 0.1]);
        let agreement = depth_agreement(&series, None).unwrap().expect("an agreement");
        assert_eq!(agreement.left, "depth 0");
        let taus: Vec<(String, f64)> =
            agreement.rows.iter().map(|r| (format!("{}:{}", r.group, r.metric), r.tau_b)).collect();
        assert_eq!(taus.len(), 2);
        assert_eq!(taus[0], ("Depth=0:micro_mrr".to_owned(), 1.0));
        assert_eq!(taus[1].0, "Depth=1:micro_mrr");
        assert!((taus[1].1 - 2.0 / 6f64.sqrt()).abs() < 1e-15);
        // One system: no ordering to compare, no agreement (not a table of undefined taus).
        let mut one = series.clone();
        one.systems.truncate(1);
        one.rows.retain(|r| r.system == "S1");
        assert_eq!(depth_agreement(&one, None).unwrap(), None);
        // Only NaN columns: no agreement.
        let mut none = series;
        none.metrics.truncate(0);
        none.rows.iter_mut().for_each(|r| r.values.clear());
        assert_eq!(depth_agreement(&none, None).unwrap(), None);
    }

    /// The spec, transcribed naively: an item's depth is its smallest 1-based position over
    /// the runs among the distinct non-known items; it is pooled iff that is ≤ d and it is not
    /// judged. Also: the pool of depth d is the pool of depth d + 1 restricted to depth ≤ d.
    fn naive(q: &PoolQuestion, depth: u32) -> Vec<(String, u32, u32)> {
        let mut best: std::collections::BTreeMap<String, (u32, u32)> = std::collections::BTreeMap::new();
        for list in &q.lists {
            let mut seen: Vec<&String> = Vec::new();
            for item in list.iter().filter(|i| !q.known.contains(*i)) {
                if seen.contains(&item) {
                    continue;
                }
                seen.push(item);
                let position = seen.len() as u32;
                if position <= depth {
                    let e = best.entry(item.clone()).or_insert((position, 0));
                    e.0 = e.0.min(position);
                    e.1 += 1;
                }
            }
        }
        let mut out: Vec<(String, u32, u32)> =
            best.into_iter().filter(|(i, _)| !q.judged.contains(i)).map(|(i, (d, r))| (i, d, r)).collect();
        out.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
        out
    }

    proptest::proptest! {
        #[test]
        fn matches_the_naive_transcription(
            lists in proptest::collection::vec(proptest::collection::vec(0u8..8, 0..10), 1..4),
            known in proptest::collection::vec(0u8..8, 0..3),
            judged in proptest::collection::vec(0u8..8, 0..3),
            depth in 1u32..6,
        ) {
            let name = |i: &u8| format!("e{i}");
            let q = PoolQuestion {
                id: "q".into(),
                lists: lists.iter().map(|l| l.iter().map(name).collect()).collect(),
                known: known.iter().map(name).collect(),
                judged: judged.iter().map(name).collect(),
                trivial: false,
            };
            let runs = runs(q.lists.len());
            let pool = build_pool(std::slice::from_ref(&q), &runs, depth).unwrap();
            let got: Vec<(String, u32, u32)> = pool.items.iter().map(|i| (i.item.clone(), i.depth, i.runs)).collect();
            proptest::prop_assert_eq!(&got, &naive(&q, depth));
            proptest::prop_assert_eq!(pool.counts.per_depth.iter().sum::<usize>(), got.len());
            let deeper = build_pool(std::slice::from_ref(&q), &runs, depth + 1).unwrap();
            let restricted: Vec<(String, u32)> =
                deeper.items.iter().filter(|i| i.depth <= depth).map(|i| (i.item.clone(), i.depth)).collect();
            let shallow: Vec<(String, u32)> = got.iter().map(|(i, d, _)| (i.clone(), *d)).collect();
            proptest::prop_assert_eq!(restricted, shallow);
        }
    }
}
