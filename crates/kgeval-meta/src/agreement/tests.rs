use kgeval_model::meta::agreement::{GroupKey, SystemMetricTable};
use proptest::prelude::*;

use super::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn tau_ap_with_a_tie_is_the_mean_over_tie_orders() {
    // Reference a > b > c; compared: a and b tied on top, c last. Order (a, b, c): C(2) = 1,
    // C(3) = 2 → tau_AP = 2/2·(1 + 1) − 1 = 1; order (b, a, c): C(2) = 0 → 2/2·(0 + 1) − 1 = 0.
    // Expectation 1/2.
    assert!(close(tau_ap(&[3.0, 2.0, 1.0], &[1.0, 1.0, 0.0]).unwrap(), 0.5));
    // Reversed: −1; identical: 1; a tie in the reference counts 1/2: reference a = b > c,
    // compared a > b > c: C(2) = 1/2, C(3) = 2 → 2/2·(1/2 + 1) − 1 = 1/2.
    assert!(close(tau_ap(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]).unwrap(), -1.0));
    assert!(close(tau_ap(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]).unwrap(), 1.0));
    assert!(close(tau_ap(&[1.0, 1.0, 0.0], &[3.0, 2.0, 1.0]).unwrap(), 0.5));
    assert!(tau_ap(&[1.0], &[1.0]).unwrap().is_nan());
}

#[test]
fn tau_ap_weights_the_top() {
    // A swap at the top costs more than a swap at the bottom (tau is 2/3 for both).
    let reference = [4.0, 3.0, 2.0, 1.0];
    let top = tau_ap(&reference, &[3.0, 4.0, 2.0, 1.0]).unwrap();
    let bottom = tau_ap(&reference, &[4.0, 3.0, 1.0, 2.0]).unwrap();
    // Bottom swap: C(2) = 1, C(3) = 2, C(4) = 2 → 2/3·(1 + 1 + 2/3) − 1 = 7/9.
    assert!(close(top, 1.0 / 3.0) && close(bottom, 7.0 / 9.0));
}

#[test]
fn rbo_hand_worked() {
    // a b c d against b a c d, p = 0.5: X = 0, 2, 3, 4 →
    // 1·0.5⁴ + (0.5/0.5)·(0 + 0.25 + 0.125 + 0.0625) = 0.5.
    assert!(close(rbo(&[4.0, 3.0, 2.0, 1.0], &[3.0, 4.0, 2.0, 1.0], 0.5).unwrap(), 0.5));
    // Ties: left a = b, right a > b, p = 0.5: E[X_1] = 1/2 → 0.25 + (0.5·0.5 + 0.25) = 0.75,
    // the mean of 1 (order a, b) and 0.5 (order b, a).
    assert!(close(rbo(&[1.0, 1.0], &[2.0, 1.0], 0.5).unwrap(), 0.75));
    assert!(matches!(rbo(&[1.0], &[1.0], 1.0), Err(MetaError::InvalidOption(_))));
}

#[test]
fn row_orients_lower_is_better_and_lists_unshared_systems() {
    let left = names(&["a", "b", "c", "d", "x"]);
    let right = names(&["d", "c", "b", "a", "y"]);
    let (lv, rv) = ([1.0, 2.0, 3.0, 4.0, 9.0], [3.0, 4.0, 2.0, 1.0, 0.0]);
    let row = |direction| {
        agreement_row(
            &GroupKey::default(),
            "micro_mr",
            direction,
            SystemValues { systems: &left, values: &lv },
            SystemValues { systems: &right, values: &rv },
            0.9,
        )
        .unwrap()
    };
    let lower = row(Direction::Lower);
    assert_eq!((lower.n_systems, lower.only_left.clone(), lower.only_right.clone()), (4, names(&["x"]), names(&["y"])));
    // Shared a..d: left 1 2 3 4, right 1 2 4 3: one discordant pair of six → tau 4/6.
    assert!(close(lower.tau_b, 2.0 / 3.0) && close(lower.tau_a, 2.0 / 3.0) && close(lower.tau_c, 2.0 / 3.0));
    // MR: a is the best; the swap is at the bottom (c, d): X = 1, 2, 2, 4 →
    // 0.9⁴ + (0.1/0.9)(0.9 + 0.81 + 2/3·0.729 + 0.9⁴) = 0.973.
    assert!(close(lower.rbo, 0.973), "{}", lower.rbo);
    let higher = row(Direction::Higher);
    assert_eq!(higher.tau_b, lower.tau_b);
    // Larger-is-better reads d c b a against c d b a: X = 0, 2, 3, 4 → 0.9.
    assert!(close(higher.rbo, 0.9), "{}", higher.rbo);
    assert!(close(lower.tau_ap, 7.0 / 9.0) && close(higher.tau_ap, 1.0 / 3.0));
}

#[test]
fn row_errors() {
    let systems = names(&["a", "a"]);
    let ok = names(&["a", "b"]);
    let dup = agreement_row(
        &GroupKey::default(),
        "map",
        Direction::Higher,
        SystemValues { systems: &systems, values: &[1.0, 2.0] },
        SystemValues { systems: &ok, values: &[1.0, 2.0] },
        0.9,
    );
    assert!(matches!(dup, Err(MetaError::InvalidOption(_))));
    let nan = agreement_row(
        &GroupKey(vec![("Depth".into(), "2".into())]),
        "map",
        Direction::Higher,
        SystemValues { systems: &ok, values: &[1.0, f64::NAN] },
        SystemValues { systems: &ok, values: &[1.0, 2.0] },
        0.9,
    );
    assert!(
        matches!(nan, Err(MetaError::NonFinite { ref system, ref item, .. }) if system == "b" && item == "Depth=2")
    );
}

/// (system, micro_mrr, micro_mr) rows of one group.
type Rows<'a> = &'a [(&'a str, f64, f64)];

fn table(source: &str, groups: &[(&str, Rows<'_>)]) -> SystemMetricTable {
    let grouped = groups.iter().any(|(g, _)| !g.is_empty());
    let columns = if grouped { names(&["Depth"]) } else { Vec::new() };
    let mut table = SystemMetricTable::new(source, columns, &names(&["micro_mrr", "micro_mr"]));
    for (group, rows) in groups {
        let key =
            if group.is_empty() { GroupKey::default() } else { GroupKey(vec![("Depth".into(), (*group).into())]) };
        for (system, mrr, mr) in *rows {
            table.push_row(key.clone(), system, vec![*mrr, *mr]);
        }
    }
    table
}

#[test]
fn ungrouped_against_every_group_and_matched_groups() {
    let s = table("S", &[("", &[("a", 0.3, 100.0), ("b", 0.2, 200.0), ("c", 0.1, 300.0)])]);
    let series = table(
        "SC",
        &[
            ("0", &[("a", 0.3, 100.0), ("b", 0.2, 200.0), ("c", 0.1, 300.0)]),
            ("1", &[("a", 0.1, 300.0), ("b", 0.2, 200.0), ("c", 0.3, 100.0)]),
        ],
    );
    let result = agreement(&s, &series, &[], &AgreementOptions::default()).unwrap();
    let summary: Vec<(String, String, f64)> =
        result.rows.iter().map(|r| (r.group.to_string(), r.metric.clone(), r.tau_b)).collect();
    assert_eq!(
        summary,
        vec![
            ("Depth=0".into(), "micro_mrr".into(), 1.0),
            ("Depth=0".into(), "micro_mr".into(), 1.0),
            ("Depth=1".into(), "micro_mrr".into(), -1.0),
            ("Depth=1".into(), "micro_mr".into(), -1.0),
        ]
    );
    let only_mr = agreement(&series, &s, &names(&["micro_mr"]), &AgreementOptions::default()).unwrap();
    assert_eq!(only_mr.rows.len(), 2);
    let sub = table("SC2", &[("1", &[("a", 0.1, 300.0), ("b", 0.2, 200.0)]), ("7", &[("a", 0.1, 1.0)])]);
    let matched = agreement(&series, &sub, &[], &AgreementOptions::default()).unwrap();
    assert_eq!(matched.rows.len(), 2);
    assert_eq!(matched.rows[0].only_left, names(&["c"]));
    assert_eq!(matched.groups_only_left, vec![GroupKey(vec![("Depth".into(), "0".into())])]);
    assert_eq!(matched.groups_only_right, vec![GroupKey(vec![("Depth".into(), "7".into())])]);
    assert!(matches!(
        agreement(&s, &series, &names(&["ndcg"]), &AgreementOptions::default()),
        Err(MetaError::UnknownMetric { .. })
    ));
    assert!(agreement(&s, &series, &[], &AgreementOptions { rbo_p: 0.0 }).is_err());
}

proptest! {
    #[test]
    fn tau_ap_and_rbo_bounds(x in prop::collection::vec(0u8..5, 2..12), shift in 0usize..12) {
        let x: Vec<f64> = x.into_iter().map(f64::from).collect();
        let mut y = x.clone();
        y.rotate_left(shift % x.len());
        let t = tau_ap(&x, &y).unwrap();
        prop_assert!((-1.0 - 1e-12..=1.0 + 1e-12).contains(&t));
        let r = rbo(&x, &y, 0.9).unwrap();
        prop_assert!((-1e-12..=1.0 + 1e-12).contains(&r));
        let distinct: std::collections::HashSet<u64> = x.iter().map(|v| v.to_bits()).collect();
        if distinct.len() == x.len() {
            prop_assert!((tau_ap(&x, &x).unwrap() - 1.0).abs() < 1e-12);
            prop_assert!((rbo(&x, &x, 0.9).unwrap() - 1.0).abs() < 1e-12);
        }
    }
}
