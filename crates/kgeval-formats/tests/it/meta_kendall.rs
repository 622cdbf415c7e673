//! Seed 004's Kendall tables from the bundled kgc-sparsity result CSVs: every row of
//! `testdata/kgc/derived/expected_kendall.tsv` (tau-b, tau-c, tau-a within 1e-4; the values
//! were computed with scipy from the published tables, and the rows with a `paper_value` agree
//! with the paper's Fig. 3, Tables 3 and 4 and §4.2) through `read_wide_csv` and
//! `kgeval_meta::agreement::agreement`.

use std::path::{Path, PathBuf};

use kgeval_formats::meta::wide_csv::read_wide_csv;
use kgeval_formats::Input;
use kgeval_meta::agreement::{agreement, AgreementOptions};
use kgeval_model::meta::agreement::{Agreement, AgreementRow, SystemMetricTable};

fn result_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/kgc/kgc-sparsity/result")
}

fn wide(relative: &str) -> SystemMetricTable {
    let opened = Input::path(result_dir().join(relative)).open().unwrap_or_else(|e| panic!("{e}"));
    read_wide_csv(opened.bytes(), opened.name()).unwrap_or_else(|e| panic!("{e}"))
}

struct Expected {
    experiment: String,
    metric: String,
    taus: [f64; 3],
}

fn expected() -> Vec<Expected> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/kgc/derived/expected_kendall.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let number = |i: usize| fields[i].parse::<f64>().unwrap_or_else(|e| panic!("{line}: {e}"));
            Expected { experiment: fields[0].into(), metric: fields[1].into(), taus: [number(2), number(3), number(4)] }
        })
        .collect()
}

/// The row of `metric` in the group whose key prints as `group` ("all" when ungrouped).
fn row<'a>(result: &'a Agreement, group: &str, metric: &str) -> &'a AgreementRow {
    result
        .rows
        .iter()
        .find(|r| r.group.to_string() == group && r.metric == metric)
        .unwrap_or_else(|| panic!("no row {group} {metric} in {} vs {}", result.left, result.right))
}

#[test]
fn all_105_rows_of_expected_kendall() {
    let options = AgreementOptions::default();
    let s = wide("FB-Test-S/evaluation.csv");
    let sc = wide("FB-Test-S-C/evaluation.csv");
    let o = wide("FB-Test-O/evaluation.csv");
    let weighted = wide("FB-Test-S-C/lp_sample_rel_dist.csv");
    let depth = wide("FB-Test-S-C/pooling_depth.csv.gz");
    let (s_rel, sc_rel) = (wide("FB-Test-S/lp_per_rel_type.csv"), wide("FB-Test-S-C/lp_per_rel_type.csv"));
    let s_vs_sc = agreement(&s, &sc, &[], &options).unwrap();
    let o_vs_s = agreement(&o, &s, &[], &options).unwrap();
    let s_vs_weighted = agreement(&s, &weighted, &[], &options).unwrap();
    let s_vs_depth = agreement(&s, &depth, &[], &options).unwrap();
    let per_type = agreement(&s_rel, &sc_rel, &[], &options).unwrap();
    assert_eq!(depth.groups.len(), 11);
    assert_eq!(per_type.rows.len(), 8 * 12);
    assert!(per_type.groups_only_left.is_empty() && per_type.groups_only_right.is_empty());
    let mut checked = 0;
    for e in expected() {
        let found = match e.experiment.as_str() {
            "S_vs_SC" => row(&s_vs_sc, "all", &e.metric),
            "O_vs_S" => row(&o_vs_s, "all", &e.metric),
            "S_vs_SCweightedS" => row(&s_vs_weighted, "all", &e.metric),
            other => {
                if let Some(d) = other.strip_prefix("S_vs_SCdepth") {
                    row(&s_vs_depth, &format!("Depth={d}"), &e.metric)
                } else {
                    let rest = other.strip_prefix("S_vs_SC_").unwrap_or_else(|| panic!("experiment {other}"));
                    let (side, category) = rest.split_once('_').unwrap();
                    row(&per_type, &format!("QuestionType={side},RelationType={category}"), &e.metric)
                }
            }
        };
        assert_eq!(found.n_systems, 13, "{} {}", e.experiment, e.metric);
        assert!(found.only_left.is_empty() && found.only_right.is_empty());
        for (got, want, variant) in
            [(found.tau_b, e.taus[0], "b"), (found.tau_c, e.taus[1], "c"), (found.tau_a, e.taus[2], "a")]
        {
            assert!((got - want).abs() < 1e-4, "{} {} tau-{variant}: {got} expected {want}", e.experiment, e.metric);
        }
        checked += 1;
    }
    assert_eq!(checked, 105);
    // Seed 004's headlines: tau(S, S-C) on micro MRR −0.2308 (Fig. 3), tau(O, S) 0.7949, and
    // 0.359 at pool depth 2 (§4.2); 13 systems without ties → exact p-values.
    let headline = row(&s_vs_sc, "all", "micro_mrr");
    assert!((headline.tau_b - (-0.2308)).abs() < 5e-5);
    assert_eq!(headline.p_method.name(), "exact");
    // p-values from scipy 1.17.1 `kendalltau` on the same columns (exact: 13 systems, no tie).
    assert!((headline.p_value - 0.306_184_939_674_523).abs() < 1e-12);
    let o_s = row(&o_vs_s, "all", "micro_mrr");
    assert!((o_s.tau_b - 0.7949).abs() < 5e-5);
    assert!((o_s.p_value - 3.192_923_331_812_220_6e-5).abs() < 1e-15);
    assert!((row(&s_vs_depth, "Depth=2", "micro_mrr").tau_b - 0.359).abs() < 5e-4);
}
