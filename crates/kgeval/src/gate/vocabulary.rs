//! The names a headline metric may have in some family: checked before any input is read, so
//! `--fail-under foo=0.5` is refused at once rather than after a long evaluation. The score
//! table still decides after the run (a name of another family is refused then, listing the
//! family's headlines); this check only refuses what no family has.

use kgeval_model::metric_names::canonical_metric_name;
use kgeval_model::trec::MeasureFamily;

/// Scopes a headline name may start with.
const SCOPES: [&str; 10] =
    ["micro_", "macro_", "secondary_", "local_", "head_", "tail_", "both_", "answer_mean_", "expected_", "weighted_"];

/// Headline names of the families other than trec (whose measures are trec_eval's), lower
/// case, without scope or cut-off.
const NAMES: &[&str] = &[
    "precision",
    "recall",
    "f1",
    "accuracy",
    "qald_f",
    "mrr",
    "mr",
    "amr",
    "gmr",
    "hmr",
    "recip_rank",
    "rank",
    "tp",
    "fp",
    "fn",
    "matched",
    "missing",
    "extra",
    "abstained",
    "gold_entries",
    "aurc",
    "hits",
    "hits_at",
    "ndcg",
    "p",
    "r",
    "map",
    "amri",
    "amrr",
    "ahits",
    "zmr",
    "zmrr",
    "zhits",
    "accuracy_raw",
    "rejection_rate",
    "abstention_precision",
    "abstention_recall",
    "abstention_f1",
    "false_abstention_rate",
    "coverage",
];

/// Whether some family's score table may have a headline named `metric` (any case, with a
/// scope prefix, an alias or a cut-off).
pub(crate) fn may_name_a_headline(metric: &str) -> bool {
    let lower = metric.trim().to_ascii_lowercase();
    let mut base = lower.as_str();
    while let Some(rest) = SCOPES.iter().find_map(|scope| base.strip_prefix(scope)) {
        base = rest;
    }
    let trec = |name: &str| MeasureFamily::ALL.iter().any(|f| f.name().eq_ignore_ascii_case(name));
    let known =
        |name: &str| NAMES.contains(&canonical_metric_name(name).as_ref()) || NAMES.contains(&name) || trec(name);
    if known(base) {
        return true;
    }
    // A cut-off or parameter: hits@10, ndcg@10, P.5, P_10, ndcg_cut_10, iprec_at_recall_0.10.
    let parameter = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit() || c == '.' || c == ',');
    if base.split_once(['@', '.']).is_some_and(|(stem, p)| parameter(p) && known(stem)) {
        return true;
    }
    base.rmatch_indices('_').any(|(at, _)| parameter(&base[at + 1..]) && known(&base[..at]))
}

#[cfg(test)]
mod tests {
    use super::may_name_a_headline;

    #[test]
    fn names_of_every_family_pass_and_nonsense_does_not() {
        for name in [
            "F1",
            "macro_f1",
            "secondary_f1",
            "mrr",
            "MRR",
            "hits@10",
            "Hits@1",
            "macro_hits@10",
            "micro_mr",
            "map",
            "P_10",
            "ndcg_cut_10",
            "ndcg@10",
            "mrr@10",
            "gm_map",
            "num_q",
            "iprec_at_recall_0.10",
            "Rprec",
            "bpref",
            "qald_f",
            "local_f1",
            "accuracy",
            "map_cut_20",
            "micro_amr",
            "hits_at_10",
            "recall@100",
            "P.5",
        ] {
            assert!(may_name_a_headline(name), "{name}");
        }
        for name in ["foo", "", "f1x", "macro_", "precisionn", "hits@", "@10", "foo_10", "map@x"] {
            assert!(!may_name_a_headline(name), "{name}");
        }
    }
}
