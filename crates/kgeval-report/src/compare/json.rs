//! The JSON contract of `kgeval compare`.

use kgeval_model::meta::agreement::{Agreement, AgreementRow, GroupKey};
use kgeval_model::meta::compare::{CompareResult, MetricComparison, PublishedPower};
use kgeval_model::meta::significance::DiscriminativePower;
use kgeval_model::Diagnostic;
use serde_json::{json, Map, Value};

use super::test_title;
use crate::common::diagnostic_json;
use crate::RenderOptions;

/// `{"kgeval_version", "conventions", "systems", "metrics": [{"metric", "higher_is_better",
/// "items", "zero_filled", "dropped_items", "leaderboard": [{"letter", "system", "mean",
/// "interval", "beats", "marks", "tier"}], "pairs": [{"system_a", "system_b",
/// "mean_difference", "effect_size", "statistic", "p_value", "p_adjusted", "significant",
/// "wins", "ties", "losses"}], "power": {"alpha", "pairs", "significant",
/// "significant_at_0_01", "area", "median_p", "curve"}}], "agreement": null | {"left",
/// "right", "rbo_p", "rows": [{"group", "metric", "direction", "n_systems", "only_left",
/// "only_right", "tau_b", "tau_c", "tau_a", "p_value", "p_method", "tau_ap",
/// "tau_ap_symmetric", "rbo"}], "metrics_only_left", "metrics_only_right",
/// "groups_only_left", "groups_only_right"}, "warnings": [{"scope", "severity", "code",
/// "message", "location"}]}`, and with `--pvalues` `"published_power": [{"name", "source",
/// "systems", "metrics": [{"metric", "alpha", "pairs", "significant", "significant_at_0_01",
/// "area", "median_p", "curve"}]}]`, and with qrels, two runs or more and tied scores
/// `"tie_orderings": [{"measure", "tau_b"}]`; full precision, non-finite numbers as `null`.
#[must_use]
pub fn compare_json(result: &CompareResult, warnings: &[(&str, &Diagnostic)], options: &RenderOptions) -> Value {
    let c = &result.conventions;
    let conventions = json!({
        "test": c.test.name(),
        "test_title": test_title(c.test),
        "correction": if c.test.is_family_wise() { "none" } else { c.correction.name() },
        "alpha": c.alpha,
        "iterations": c.iterations,
        "seed": c.seed,
        "rng": "ChaCha8, seeded per iteration",
        "intervals": c.intervals,
        "tau": c.tau.name(),
        "rbo_p": c.rbo_p,
        "missing": c.missing,
        "input_format": c.input_format,
        "against_format": c.against_format,
    });
    let warnings: Vec<Value> = warnings
        .iter()
        .map(|(scope, d)| {
            let mut value = diagnostic_json(d);
            if let Value::Object(map) = &mut value {
                map.insert("scope".into(), json!(scope));
            }
            value
        })
        .collect();
    let mut root = json!({
        "kgeval_version": options.version,
        "conventions": conventions,
        "systems": result.systems,
        "metrics": result.metrics.iter().map(metric_json).collect::<Vec<_>>(),
        "agreement": result.agreement.as_ref().map(agreement_json),
        "sensitivity": result.sensitivity.as_ref().map(|s| crate::sensitivity_json(s, options)),
        "warnings": warnings,
    });
    // Only with --pvalues: every other comparison's JSON stays as it was.
    if let (false, Value::Object(map)) = (result.published_power.is_empty(), &mut root) {
        let sets: Vec<Value> = result.published_power.iter().map(published_json).collect();
        map.insert("published_power".into(), Value::Array(sets));
    }
    // Only with qrels, two runs or more and tied scores: other comparisons' JSON stays as it was.
    if let (false, Value::Object(map)) = (result.tie_orderings.is_empty(), &mut root) {
        let orderings: Vec<Value> =
            result.tie_orderings.iter().map(|(measure, tau)| json!({"measure": measure, "tau_b": tau})).collect();
        map.insert("tie_orderings".into(), Value::Array(orderings));
    }
    root
}

fn power_json(power: &DiscriminativePower) -> Value {
    let mut fields = Map::new();
    fields.insert("metric".to_owned(), json!(power.metric));
    fields.extend(power_fields(power));
    Value::Object(fields)
}

/// A discriminative power's figures, without its metric, in the order the JSON shows them.
fn power_fields(power: &DiscriminativePower) -> Map<String, Value> {
    [
        ("alpha", json!(power.alpha)),
        ("pairs", json!(power.pairs)),
        ("significant", json!(power.significant)),
        ("significant_at_0_01", json!(power.significant_at_01)),
        ("area", json!(power.area)),
        ("median_p", json!(power.median_p)),
        ("curve", json!(power.curve)),
    ]
    .into_iter()
    .map(|(key, value)| (key.to_owned(), value))
    .collect()
}

fn published_json(set: &PublishedPower) -> Value {
    json!({
        "name": set.name,
        "source": set.source,
        "systems": set.systems,
        "metrics": set.power.iter().map(power_json).collect::<Vec<_>>(),
    })
}

fn metric_json(comparison: &MetricComparison) -> Value {
    let s = &comparison.significance;
    let board = &comparison.leaderboard;
    let leaderboard: Vec<Value> = board
        .rows
        .iter()
        .map(|row| {
            let interval = s.intervals.get(row.system).map(|i| json!([i.lower, i.upper]));
            let beats: Vec<&str> =
                row.beats.iter().filter_map(|&i| board.rows.get(i)).map(|r| r.name.as_str()).collect();
            json!({
                "letter": row.letter,
                "system": row.name,
                "mean": row.mean,
                "interval": interval,
                "beats": beats,
                "marks": row.marks(&board.rows),
                "tier": row.tier,
            })
        })
        .collect();
    let pairs: Vec<Value> = s
        .pairs
        .iter()
        .map(|p| {
            json!({
                "system_a": s.systems[p.a],
                "system_b": s.systems[p.b],
                "mean_difference": p.mean_difference,
                "effect_size": p.effect_size,
                "statistic": p.statistic,
                "p_value": p.p_value,
                "p_adjusted": p.p_adjusted,
                "significant": p.is_significant(s.alpha),
                "wins": p.wins,
                "ties": p.ties,
                "losses": p.losses,
            })
        })
        .collect();
    let power = &comparison.power;
    json!({
        "metric": s.metric,
        "higher_is_better": s.higher_is_better,
        "items": s.n_items,
        "zero_filled": comparison.zero_filled,
        "dropped_items": comparison.dropped_items,
        "means": s.systems.iter().zip(&s.means).map(|(n, m)| (n.clone(), json!(m))).collect::<Map<_, _>>(),
        "leaderboard": leaderboard,
        "pairs": pairs,
        "power": power_fields(power),
    })
}

fn group_json(key: &GroupKey) -> Value {
    Value::Object(key.0.iter().map(|(k, v)| (k.clone(), json!(v))).collect())
}

fn row_json(row: &AgreementRow) -> Value {
    json!({
        "group": group_json(&row.group),
        "metric": row.metric,
        "direction": row.direction.name(),
        "n_systems": row.n_systems,
        "only_left": row.only_left,
        "only_right": row.only_right,
        "tau_b": row.tau_b,
        "tau_c": row.tau_c,
        "tau_a": row.tau_a,
        "p_value": row.p_value,
        "p_method": row.p_method.name(),
        "tau_ap": row.tau_ap,
        "tau_ap_symmetric": row.tau_ap_symmetric,
        "rbo": row.rbo,
    })
}

fn agreement_json(agreement: &Agreement) -> Value {
    json!({
        "left": agreement.left,
        "right": agreement.right,
        "rbo_p": agreement.rbo_p,
        "rows": agreement.rows.iter().map(row_json).collect::<Vec<_>>(),
        "metrics_only_left": agreement.metrics_only_left,
        "metrics_only_right": agreement.metrics_only_right,
        "groups_only_left": agreement.groups_only_left.iter().map(group_json).collect::<Vec<_>>(),
        "groups_only_right": agreement.groups_only_right.iter().map(group_json).collect::<Vec<_>>(),
    })
}
