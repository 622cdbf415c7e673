//! Agreement between two orderings of the same systems: Kendall tau (a, b, c, with scipy's
//! p-value), tau_AP and rank-biased overlap, per metric and group of two wide tables.
//!
//! Orientation: the metric's [`Direction`] decides which end of an ordering is the top (MR:
//! lower is better). Kendall tau is invariant under it (both sides flip together); tau_AP
//! and RBO weight the top and are computed on the oriented values. [`Direction::Neither`] is
//! treated as larger-is-better.
//!
//! - **tau_AP** (Yilmaz, Aslam & Robertson, SIGIR 2008): with the reference ordering as the
//!   truth and the compared ordering listing systems at positions 1..n,
//!   tau_AP = 2/(n−1) · Σ_{i=2..n} C(i)/(i−1) − 1, C(i) = systems above position i that the
//!   reference also ranks above the system at i. Ties (not in the paper): the value is the
//!   expectation over uniformly random orders of the tied systems of the compared list, and a
//!   pair tied in the reference counts 1/2 as correct. [`AgreementRow::tau_ap`] takes the LEFT
//!   table as the reference; [`AgreementRow::tau_ap_symmetric`] averages both directions.
//! - **RBO_ext** (Webber, Moffat & Zobel, TOIS 2010, eq. 32) for two lists of the same k
//!   systems: RBO_ext = (X_k/k)·p^k + (1−p)/p · Σ_{d=1..k} (X_d/d)·p^d, X_d = the overlap of
//!   the top-d prefixes; p = 0.9 by default. Ties: the expectation over uniformly random
//!   orders of tied systems in each list (RBO_ext is linear in X_d, and a system of a tie
//!   group holding positions s+1..s+g is in the top d with probability clamp((d−s)/g, 0, 1)).
//!
//! Both are O(n²) in the number of systems (orderings of systems, not of items).
//!
//! ```
//! use kgeval_meta::agreement::{rbo, tau_ap};
//! // Reference a > b > c > d; compared b > a > c > d: C(2) = 0, C(3) = 2, C(4) = 3 →
//! // tau_AP = 2/3 · (0 + 1 + 1) − 1 = 1/3.
//! let reference = [4.0, 3.0, 2.0, 1.0];
//! let compared = [3.0, 4.0, 2.0, 1.0];
//! assert!((tau_ap(&reference, &compared).unwrap() - 1.0 / 3.0).abs() < 1e-15);
//! assert_eq!(rbo(&reference, &reference, 0.9).unwrap(), 1.0);
//! ```

use std::collections::{HashMap, HashSet};

use kgeval_model::meta::agreement::{
    Agreement, AgreementRow, GroupKey, PValueMethod, SystemGroup, SystemMetricTable, TauVariant,
};
use kgeval_model::metric_names::Direction;

use crate::kendall::kendall_counts;
use crate::MetaError;

/// The options of [`agreement`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AgreementOptions {
    /// RBO's persistence p in (0, 1) (default 0.9: the top 10 carry ≈ 86 % of the weight).
    pub rbo_p: f64,
}

impl Default for AgreementOptions {
    fn default() -> Self {
        AgreementOptions { rbo_p: 0.9 }
    }
}

/// tau_AP of `compared` against `reference` (values oriented larger-is-better, one per
/// system, same order): see the module documentation. NaN for fewer than two systems.
///
/// # Errors
/// [`MetaError::InvalidOption`] when the lengths differ or a value is NaN.
pub fn tau_ap(reference: &[f64], compared: &[f64]) -> Result<f64, MetaError> {
    check(reference, compared, "tau_AP")?;
    let n = reference.len();
    if n < 2 {
        return Ok(f64::NAN);
    }
    // correct(j, i): 1 when the reference ranks j above i, 1/2 when tied there.
    let correct = |j: usize, i: usize| {
        if reference[j] > reference[i] {
            1.0
        } else if reference[j] == reference[i] {
            0.5
        } else {
            0.0
        }
    };
    let mut sum = 0.0;
    for i in 0..n {
        let (mut above, mut tied, mut c, mut q) = (0usize, 0usize, 0.0, 0.0);
        for j in (0..n).filter(|&j| j != i) {
            if compared[j] > compared[i] {
                above += 1;
                c += correct(j, i);
            } else if compared[j] == compared[i] {
                tied += 1;
                q += correct(j, i);
            }
        }
        // i is at position above + k + 1 with k = 0..=tied equally likely; k tied systems
        // above it contribute k·q/tied correct pairs in expectation.
        let q = if tied > 0 { q / tied as f64 } else { 0.0 };
        let mut expected = 0.0;
        for k in 0..=tied {
            let before = above + k;
            if before > 0 {
                expected += (c + k as f64 * q) / before as f64;
            }
        }
        sum += expected / (tied + 1) as f64;
    }
    Ok(2.0 / (n - 1) as f64 * sum - 1.0)
}

/// Extrapolated rank-biased overlap of the two orderings of the same systems (values oriented
/// larger-is-better, one per system, same order) with persistence `p`: see the module
/// documentation. NaN for no system.
///
/// # Errors
/// [`MetaError::InvalidOption`] when the lengths differ, a value is NaN or `p` is not in (0, 1).
pub fn rbo(left: &[f64], right: &[f64], p: f64) -> Result<f64, MetaError> {
    check(left, right, "RBO")?;
    if !(p > 0.0 && p < 1.0) {
        return Err(MetaError::InvalidOption(format!("RBO persistence p = {p}: expected a value in (0, 1)")));
    }
    let k = left.len();
    if k == 0 {
        return Ok(f64::NAN);
    }
    let (left_pos, right_pos) = (tie_positions(left), tie_positions(right));
    let mut sum = 0.0;
    let mut weight = 1.0;
    let mut overlap = 0.0;
    for d in 1..=k {
        weight *= p;
        overlap = left_pos.iter().zip(&right_pos).map(|(l, r)| in_top(*l, d) * in_top(*r, d)).sum::<f64>();
        sum += overlap / d as f64 * weight;
    }
    Ok(overlap / k as f64 * weight + (1.0 - p) / p * sum)
}

/// Per system: (systems strictly above, size of its tie group).
fn tie_positions(values: &[f64]) -> Vec<(usize, usize)> {
    values
        .iter()
        .map(|v| {
            let above = values.iter().filter(|w| *w > v).count();
            let group = values.iter().filter(|w| *w == v).count();
            (above, group)
        })
        .collect()
}

/// The probability that a system of a tie group of `size` after `above` systems is in the
/// top `d` under a random order of the group.
fn in_top((above, size): (usize, usize), d: usize) -> f64 {
    (d.saturating_sub(above) as f64 / size as f64).min(1.0)
}

fn check(a: &[f64], b: &[f64], what: &str) -> Result<(), MetaError> {
    if a.len() != b.len() {
        return Err(MetaError::InvalidOption(format!(
            "{what}: orderings of different lengths ({} and {})",
            a.len(),
            b.len()
        )));
    }
    if a.iter().chain(b).any(|v| v.is_nan()) {
        return Err(MetaError::InvalidOption(format!("{what}: a value is NaN; NaN cannot be ranked")));
    }
    Ok(())
}

/// One side of a comparison: systems and their values on one metric, in the same order.
#[derive(Debug, Clone, Copy)]
pub struct SystemValues<'a> {
    /// System names (unique).
    pub systems: &'a [String],
    /// One value per system.
    pub values: &'a [f64],
}

/// The agreement row of one metric and group: joins the two sides by system name (systems on
/// one side only are listed in the row, not compared), orients by `direction`, and computes
/// tau a/b/c with the p-value, tau_AP and RBO_ext (persistence `rbo_p`). With fewer than two
/// shared systems or a constant side, tau, p and tau_AP are NaN (as scipy); `kgeval compare
/// --against` refuses fewer than two shared systems, a pool depth series keeps the NaN row.
///
/// # Errors
/// [`MetaError::NonFinite`] for a NaN value (naming the system and the group);
/// [`MetaError::InvalidOption`] for a duplicate system, mismatched lengths or a bad `rbo_p`.
pub fn agreement_row(
    group: &GroupKey,
    metric: &str,
    direction: Direction,
    left: SystemValues<'_>,
    right: SystemValues<'_>,
    rbo_p: f64,
) -> Result<AgreementRow, MetaError> {
    for side in [left, right] {
        if side.systems.len() != side.values.len() {
            return Err(MetaError::InvalidOption(format!(
                "metric `{metric}`: {} systems but {} values",
                side.systems.len(),
                side.values.len()
            )));
        }
        let mut seen = HashSet::with_capacity(side.systems.len());
        for (i, system) in side.systems.iter().enumerate() {
            if !seen.insert(system.as_str()) {
                return Err(MetaError::InvalidOption(format!(
                    "metric `{metric}`, group {group}: system `{system}` twice"
                )));
            }
            if side.values[i].is_nan() {
                return Err(MetaError::NonFinite {
                    metric: metric.to_owned(),
                    system: system.clone(),
                    item: group.to_string(),
                    value: side.values[i],
                });
            }
        }
    }
    let sign = if direction == Direction::Lower { -1.0 } else { 1.0 };
    let (mut x, mut y, mut only_left) = (Vec::new(), Vec::new(), Vec::new());
    let right_index: HashMap<&str, usize> = right.systems.iter().enumerate().map(|(i, s)| (s.as_str(), i)).collect();
    for (system, &value) in left.systems.iter().zip(left.values) {
        match right_index.get(system.as_str()) {
            Some(&at) => {
                x.push(sign * value);
                y.push(sign * right.values[at]);
            }
            None => only_left.push(system.clone()),
        }
    }
    let left_names: HashSet<&str> = left.systems.iter().map(String::as_str).collect();
    let only_right: Vec<String> = right.systems.iter().filter(|s| !left_names.contains(s.as_str())).cloned().collect();
    let counts = kendall_counts(&x, &y)?;
    let (p_value, p_method) = counts.p_value();
    let degenerate = p_method == PValueMethod::Undefined;
    let (tau_ap_lr, tau_ap_rl) = if degenerate { (f64::NAN, f64::NAN) } else { (tau_ap(&x, &y)?, tau_ap(&y, &x)?) };
    Ok(AgreementRow {
        group: group.clone(),
        metric: metric.to_owned(),
        direction,
        n_systems: x.len(),
        only_left,
        only_right,
        tau_b: counts.tau(TauVariant::B),
        tau_c: counts.tau(TauVariant::C),
        tau_a: counts.tau(TauVariant::A),
        p_value,
        p_method,
        tau_ap: tau_ap_lr,
        tau_ap_symmetric: (tau_ap_lr + tau_ap_rl) / 2.0,
        rbo: rbo(&x, &y, rbo_p)?,
    })
}

/// Ranking agreement of two wide tables over `metrics` (canonical names, headings or aliases;
/// empty: every metric both tables have, in the left table's order) and every group.
///
/// Groups: two ungrouped tables give one row per metric; an ungrouped table against a grouped
/// one (S `evaluation.csv` against S-C `pooling_depth.csv`) is compared with every group (the
/// depth series); two grouped tables are matched by key, and groups without a counterpart are
/// listed in [`Agreement::groups_only_left`] / [`Agreement::groups_only_right`].
///
/// # Errors
/// [`MetaError::UnknownMetric`] for a requested metric one table lacks;
/// [`MetaError::InvalidOption`] when no metric or no group is shared or `rbo_p` is not in
/// (0, 1); the errors of [`agreement_row`].
pub fn agreement(
    left: &SystemMetricTable,
    right: &SystemMetricTable,
    metrics: &[String],
    options: &AgreementOptions,
) -> Result<Agreement, MetaError> {
    if !(options.rbo_p > 0.0 && options.rbo_p < 1.0) {
        return Err(MetaError::InvalidOption(format!(
            "RBO persistence p = {}: expected a value in (0, 1)",
            options.rbo_p
        )));
    }
    let pairs = metric_pairs(left, right, metrics)?;
    let mut result = Agreement {
        left: left.source.clone(),
        right: right.source.clone(),
        rbo_p: options.rbo_p,
        rows: Vec::new(),
        metrics_only_left: Vec::new(),
        metrics_only_right: Vec::new(),
        groups_only_left: Vec::new(),
        groups_only_right: Vec::new(),
    };
    if metrics.is_empty() {
        result.metrics_only_left =
            left.metrics.iter().filter(|m| right.find_metric(&m.name).is_none()).map(|m| m.name.clone()).collect();
        result.metrics_only_right =
            right.metrics.iter().filter(|m| left.find_metric(&m.name).is_none()).map(|m| m.name.clone()).collect();
    }
    let groups = group_pairs(left, right, &mut result)?;
    for (key, left_group, right_group) in groups {
        for &(l, r) in &pairs {
            let column = &left.metrics[l];
            let (left_values, right_values) = (left_group.column(l), right_group.column(r));
            result.rows.push(agreement_row(
                &key,
                &column.name,
                column.info.direction,
                SystemValues { systems: &left_group.systems, values: &left_values },
                SystemValues { systems: &right_group.systems, values: &right_values },
                options.rbo_p,
            )?);
        }
    }
    Ok(result)
}

/// (left index, right index) of every metric compared.
fn metric_pairs(
    left: &SystemMetricTable,
    right: &SystemMetricTable,
    metrics: &[String],
) -> Result<Vec<(usize, usize)>, MetaError> {
    if metrics.is_empty() {
        let pairs: Vec<(usize, usize)> =
            (0..left.metrics.len()).filter_map(|l| right.find_metric(&left.metrics[l].name).map(|r| (l, r))).collect();
        if pairs.is_empty() {
            return Err(MetaError::InvalidOption(format!(
                "{} and {} have no metric in common",
                left.source, right.source
            )));
        }
        return Ok(pairs);
    }
    metrics
        .iter()
        .map(|metric| {
            let find = |table: &SystemMetricTable| {
                table.find_metric(metric).ok_or_else(|| MetaError::UnknownMetric {
                    metric: format!("{metric}` in `{}", table.source),
                    available: table.metrics.iter().map(|m| m.column.as_str()).collect::<Vec<_>>().join(", "),
                })
            };
            Ok((find(left)?, find(right)?))
        })
        .collect()
}

/// The groups compared: (key shown, left group, right group).
fn group_pairs<'a>(
    left: &'a SystemMetricTable,
    right: &'a SystemMetricTable,
    result: &mut Agreement,
) -> Result<Vec<(GroupKey, &'a SystemGroup, &'a SystemGroup)>, MetaError> {
    let ungrouped = |table: &SystemMetricTable| table.group_columns.is_empty();
    let first = |table: &'a SystemMetricTable| {
        table.groups.first().ok_or_else(|| MetaError::TooFew {
            what: format!("systems in {}", table.source),
            needed: 1,
            found: 0,
        })
    };
    let pairs: Vec<(GroupKey, &SystemGroup, &SystemGroup)> = match (ungrouped(left), ungrouped(right)) {
        (true, true) => vec![(GroupKey::default(), first(left)?, first(right)?)],
        (true, false) => {
            let l = first(left)?;
            right.groups.iter().map(|r| (r.key.clone(), l, r)).collect()
        }
        (false, true) => {
            let r = first(right)?;
            left.groups.iter().map(|l| (l.key.clone(), l, r)).collect()
        }
        (false, false) => {
            result.groups_only_left =
                left.groups.iter().filter(|l| right.group(&l.key).is_none()).map(|l| l.key.clone()).collect();
            result.groups_only_right =
                right.groups.iter().filter(|r| left.group(&r.key).is_none()).map(|r| r.key.clone()).collect();
            left.groups.iter().filter_map(|l| right.group(&l.key).map(|r| (l.key.clone(), l, r))).collect()
        }
    };
    if pairs.is_empty() {
        return Err(MetaError::InvalidOption(format!(
            "{} (groups by {}) and {} (groups by {}) have no group in common",
            left.source,
            left.group_columns.join(","),
            right.source,
            right.group_columns.join(",")
        )));
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests;
