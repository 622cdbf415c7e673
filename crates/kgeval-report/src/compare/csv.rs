//! CSV: the p-value matrix (kgc-sparsity `discriminative_power.csv` layout), the agreement
//! rows, or the discriminative power of published p-value matrices.

use std::collections::HashMap;
use std::fmt::Write as _;

use kgeval_model::meta::agreement::Agreement;
use kgeval_model::meta::compare::CompareResult;

use crate::common::csv_field;

/// The agreement rows with `--against`, the discriminative power rows with `--pvalues`, else
/// the p-value matrix.
pub(super) fn render(result: &CompareResult) -> String {
    match &result.agreement {
        Some(agreement) => agreement_csv(agreement),
        None if !result.published_power.is_empty() => published_csv(result),
        None => p_value_matrix(result),
    }
}

/// `name,metric,pairs,significant,significant_at_0_01,area,median_p`: one row per published
/// matrix and metric, at full precision.
fn published_csv(result: &CompareResult) -> String {
    let mut out = String::from("name,metric,pairs,significant,significant_at_0_01,area,median_p\n");
    for set in &result.published_power {
        for power in &set.power {
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{}",
                csv_field(&set.name),
                csv_field(&power.metric),
                power.pairs,
                power.significant,
                power.significant_at_01,
                power.area,
                power.median_p
            );
        }
    }
    out
}

/// `SystemA,SystemB,<metric>…`: one row per ordered pair (both orders, in system order),
/// the corrected p-value of each metric at full precision.
fn p_value_matrix(result: &CompareResult) -> String {
    let mut out = String::from("SystemA,SystemB");
    for comparison in &result.metrics {
        let _ = write!(out, ",{}", csv_field(&comparison.significance.metric));
    }
    out.push('\n');
    let systems = &result.systems;
    // Each metric's index of every system (a metric may compare fewer systems, in its order).
    let indices: Vec<Vec<Option<usize>>> = result
        .metrics
        .iter()
        .map(|comparison| {
            let own: HashMap<&str, usize> =
                comparison.significance.systems.iter().enumerate().map(|(i, name)| (name.as_str(), i)).collect();
            systems.iter().map(|name| own.get(name.as_str()).copied()).collect()
        })
        .collect();
    for (i, a) in systems.iter().enumerate() {
        for (j, b) in systems.iter().enumerate() {
            if i == j {
                continue;
            }
            let _ = write!(out, "{},{}", csv_field(a), csv_field(b));
            for (comparison, index) in result.metrics.iter().zip(&indices) {
                let s = &comparison.significance;
                let p = match (index[i], index[j]) {
                    (Some(x), Some(y)) => s.pair(x, y).map(|p| p.p_adjusted),
                    _ => None,
                };
                let _ = write!(out, ",{}", p.map_or_else(String::new, |p| p.to_string()));
            }
            out.push('\n');
        }
    }
    out
}

fn agreement_csv(agreement: &Agreement) -> String {
    let mut out = String::from(
        "group,metric,n_systems,tau_b,tau_c,tau_a,p_value,p_method,tau_ap,tau_ap_symmetric,rbo,only_left,only_right\n",
    );
    for row in &agreement.rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&row.group.to_string()),
            csv_field(&row.metric),
            row.n_systems,
            row.tau_b,
            row.tau_c,
            row.tau_a,
            row.p_value,
            row.p_method.name(),
            row.tau_ap,
            row.tau_ap_symmetric,
            row.rbo,
            csv_field(&row.only_left.join(" ")),
            csv_field(&row.only_right.join(" ")),
        );
    }
    out
}
