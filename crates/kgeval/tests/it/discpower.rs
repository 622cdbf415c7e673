//! Discriminative power from kgc-sparsity's published p-value matrices
//! (`discriminative_power.csv.gz`), against `testdata/kgc/derived/expected_discpower.tsv`:
//! counts exactly, area and median to the printed precision (6 significant digits).

use kgeval_formats::meta::pvalues::read_pvalue_matrix;
use kgeval_formats::Input;
use kgeval_meta::discriminative_power;

use crate::root;

/// `value` printed with 6 significant digits equals `printed` (as Python's `%.6g` would
/// print it, to within half a unit of the last printed digit).
fn matches_printed(value: f64, printed: &str) -> bool {
    let expected: f64 = printed.parse().expect("number");
    let digits = printed.trim_start_matches('-').split(['e', 'E']).next().unwrap_or("").replace('.', "");
    let significant = digits.trim_start_matches('0').len().max(1) as i32;
    let magnitude = expected.abs().log10().floor() as i32;
    let half_unit = 0.5 * 10f64.powi(magnitude - significant + 1);
    (value - expected).abs() <= half_unit * (1.0 + 1e-9)
}

#[test]
fn every_published_row() {
    let expected = std::fs::read_to_string(root().join("testdata/kgc/derived/expected_discpower.tsv")).expect("tsv");
    let mut rows = 0;
    for line in expected.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let [dataset, metric, pairs, at_05, at_01, area, median] = f[..] else { panic!("bad row {line}") };
        let path = root().join(format!("testdata/kgc/kgc-sparsity/result/{dataset}/discriminative_power.csv.gz"));
        let input = Input::path(&path).open().expect("open");
        let matrix = read_pvalue_matrix(input.bytes(), &path.to_string_lossy()).expect("matrix");
        assert_eq!(matrix.systems.len(), 13, "{dataset}");
        let p = matrix.metric(metric).unwrap_or_else(|| panic!("{dataset}: no metric {metric}"));
        let power = discriminative_power(metric, p, 0.05).expect("power");
        assert_eq!(power.pairs.to_string(), pairs, "{dataset} {metric}");
        assert_eq!(power.significant.to_string(), at_05, "{dataset} {metric}");
        assert_eq!(power.significant_at_01.to_string(), at_01, "{dataset} {metric}");
        assert!(matches_printed(power.area, area), "{dataset} {metric}: area {} vs {area}", power.area);
        assert!(matches_printed(power.median_p, median), "{dataset} {metric}: median {} vs {median}", power.median_p);
        assert_eq!(power.curve.len(), 78);
        assert!(power.curve.windows(2).all(|w| w[0] >= w[1]));
        rows += 1;
    }
    assert_eq!(rows, 30);
}

#[test]
fn printed_precision_helper() {
    assert!(matches_printed(3.970_614_9, "3.97061"));
    assert!(!matches_printed(3.970_63, "3.97061"));
    assert!(matches_printed(3.231_224e-11, "3.23122e-11"));
    assert!(!matches_printed(3.2313e-11, "3.23122e-11"));
}
