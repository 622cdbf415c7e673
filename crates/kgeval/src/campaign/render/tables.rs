//! A meta-evaluation's results as tables for the paper and the page: the systems × compared
//! metrics of a `[[compare]]` of per-item scores (means and significance letters), the
//! agreement of two system orderings (per metric, or per group of a grouped table) and the
//! data sensitivity curve.

use kgeval_model::meta::agreement::{Agreement, AgreementRow, GroupKey};
use kgeval_model::meta::compare::CompareResult;
use kgeval_model::meta::sensitivity::Sensitivity;
use kgeval_model::metric_names::Direction;
use kgeval_report::campaign::{metric_label, Column, PlainCell, PlainTable, ResultTable};

use super::plots::short_name;

/// The tables of a meta-evaluation: its agreement, then its sensitivity (a result table of
/// its significance tests is [`significance_table`]).
pub(super) fn compare_tables(result: &CompareResult) -> Vec<PlainTable> {
    let mut tables = Vec::new();
    if let Some(agreement) = &result.agreement {
        tables.extend(agreement_table(agreement));
        tables.extend(grouped_agreement_tables(agreement));
    }
    if let Some(sensitivity) = &result.sensitivity {
        tables.push(sensitivity_table(sensitivity));
    }
    tables
}

/// The systems × compared metrics of a comparison of per-item scores: each system's mean
/// and the letters of the systems it beats (the leaderboards' letters), or `None` when no
/// test ran.
pub(super) fn significance_table(result: &CompareResult, significance: String) -> Option<ResultTable> {
    if result.metrics.is_empty() {
        return None;
    }
    let systems = result.systems.clone();
    let letters = super::system_letters(&systems, Some(result));
    let mut values = vec![Vec::new(); systems.len()];
    let mut beats = vec![Vec::new(); systems.len()];
    let mut columns = Vec::new();
    for comparison in &result.metrics {
        let s = &comparison.significance;
        let direction = if s.higher_is_better { Direction::Higher } else { Direction::Lower };
        columns.push(Column { metric: s.metric.clone(), direction, tested: true });
        for (index, name) in systems.iter().enumerate() {
            let position = s.systems.iter().position(|n| n == name);
            values[index].push(position.and_then(|p| s.means.get(p).copied()));
            beats[index].push(super::beaten(s, &systems, index));
        }
    }
    Some(ResultTable { systems, letters, columns, values, beats, significance: Some(significance) })
}

/// Ungrouped agreement: one row per metric.
fn agreement_table(agreement: &Agreement) -> Option<PlainTable> {
    let rows: Vec<&AgreementRow> = agreement.rows.iter().filter(|r| r.group.is_empty()).collect();
    if rows.is_empty() {
        return None;
    }
    Some(PlainTable {
        caption: format!(
            "Agreement between the system orderings of {} and {}: Kendall's tau-b and tau-a with the p-value of \
             tau-b, tau-AP, and rank-biased overlap (p = {}).",
            short_name(&agreement.left),
            short_name(&agreement.right),
            agreement.rbo_p
        ),
        header: ["Metric", "Systems", "τ-b", "τ-a", "p", "τ-AP", "RBO"].map(str::to_owned).to_vec(),
        key_columns: 1,
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    PlainCell::Text(metric_label(&r.metric)),
                    PlainCell::Integer(r.n_systems as u64),
                    PlainCell::Number(r.tau_b),
                    PlainCell::Number(r.tau_a),
                    PlainCell::Number(r.p_value),
                    PlainCell::Number(r.tau_ap),
                    PlainCell::Number(r.rbo),
                ]
            })
            .collect(),
    })
}

/// Grouped agreement (a pooling-depth series): one table of tau-b, a row per group and a
/// column per metric.
fn grouped_agreement_tables(agreement: &Agreement) -> Option<PlainTable> {
    let grouped: Vec<&AgreementRow> = agreement.rows.iter().filter(|r| !r.group.is_empty()).collect();
    let first = grouped.first()?;
    let mut metrics: Vec<&str> = Vec::new();
    let mut groups: Vec<&GroupKey> = Vec::new();
    for row in &grouped {
        if !metrics.contains(&row.metric.as_str()) {
            metrics.push(&row.metric);
        }
        if !groups.contains(&&row.group) {
            groups.push(&row.group);
        }
    }
    let group_columns: Vec<String> = first.group.0.iter().map(|(column, _)| column.clone()).collect();
    let tau = |group: &GroupKey, metric: &str| {
        let row = grouped.iter().find(|r| &r.group == group && r.metric == metric);
        row.map_or_else(|| PlainCell::Text("--".to_owned()), |r| PlainCell::Number(r.tau_b))
    };
    let caption = format!(
        "Kendall's tau-b between the system ordering of {} and that of {} per {}, for each metric.",
        short_name(&agreement.left),
        short_name(&agreement.right),
        group_columns.join(", ")
    );
    // The longer list runs down the page: a row per group and a column per metric, or (more
    // metrics than groups) a row per metric and a column per group.
    if metrics.len() > groups.len() {
        // The columns are the groups' values (`0`, `1`, …); the caption names the key.
        let mut header = vec![format!("Metric \\ {}", group_columns.join(", "))];
        header.extend(groups.iter().map(|g| g.0.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>().join(", ")));
        let rows = metrics
            .iter()
            .map(|metric| {
                std::iter::once(PlainCell::Text(metric_label(metric)))
                    .chain(groups.iter().map(|group| tau(group, metric)))
                    .collect()
            })
            .collect();
        return Some(PlainTable { caption, header, key_columns: 1, rows });
    }
    let mut header = group_columns.clone();
    header.extend(metrics.iter().map(|m| metric_label(m)));
    let rows = groups
        .iter()
        .map(|group| {
            let mut cells: Vec<PlainCell> = group.0.iter().map(|(_, value)| PlainCell::Text(value.clone())).collect();
            cells.extend(metrics.iter().map(|metric| tau(group, metric)));
            cells
        })
        .collect();
    Some(PlainTable { caption, key_columns: group_columns.len(), header, rows })
}

/// Data sensitivity: a row per subset size, the mean and standard deviation of tau per metric.
fn sensitivity_table(sensitivity: &Sensitivity) -> PlainTable {
    let mut header = vec!["Ratio".to_owned(), sensitivity.unit.clone(), "Subsets".to_owned()];
    if let Some(first) = header.get_mut(1) {
        *first = capitalised(first);
    }
    for metric in &sensitivity.metrics {
        header.push(format!("{} mean τ", metric_label(metric)));
        header.push("sd".to_owned());
    }
    let rows = sensitivity
        .points
        .iter()
        .map(|point| {
            let mut cells = vec![
                PlainCell::Number(point.ratio),
                PlainCell::Integer(point.size as u64),
                PlainCell::Integer(point.subsets as u64),
            ];
            for (mean, sd) in point.mean_tau.iter().zip(&point.sd_tau) {
                cells.push(PlainCell::Number(*mean));
                cells.push(PlainCell::Number(*sd));
            }
            cells
        })
        .collect();
    PlainTable {
        caption: format!(
            "Data sensitivity: Kendall's {} between the ordering of {} systems on random subsets of the {} {} and on \
             all of them (mean and standard deviation over the subsets of each size).",
            sensitivity.variant,
            sensitivity.systems.len(),
            sensitivity.items,
            sensitivity.unit
        ),
        header,
        key_columns: 3,
        rows,
    }
}

/// `text` with its first letter in upper case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// A trec task's tie report on the page and in LaTeX: per run, the summaries whose interval
/// over tie orders shows at 4 decimals, under trec and expected with the interval; the counts
/// of every run as notes.
pub(super) fn tie_table(report: &kgeval_model::trec::TieReport) -> (Option<PlainTable>, Vec<String>) {
    let notes = report
        .runs
        .iter()
        .map(|run| {
            let c = &run.counts;
            format!(
                "Tied scores, {}: {} of {} topics with ties; {} tie groups ({} documents), {} holding relevant and \
                 non-relevant documents (docs/ties.md).",
                run.run, c.topics_with_ties, c.topics, c.groups, c.tied_documents, c.mixed_groups
            )
        })
        .collect();
    let rows: Vec<Vec<PlainCell>> = report
        .runs
        .iter()
        .flat_map(|run| {
            run.measures.iter().filter(|m| m.range.1 - m.range.0 >= 0.000_05).map(|m| {
                vec![
                    PlainCell::Text(run.run.clone()),
                    PlainCell::Text(metric_label(&m.measure)),
                    PlainCell::Number(m.trec),
                    PlainCell::Number(m.expected),
                    PlainCell::Number(m.range.0),
                    PlainCell::Number(m.range.1),
                ]
            })
        })
        .collect();
    let table = (!rows.is_empty()).then(|| PlainTable {
        caption: "Tied scores: each summary under the tie-break's order (trec) and its expectation over every \
                  order of the tie groups, with the worst and best order's values."
            .to_owned(),
        header: ["run", "measure", "trec", "expected", "pessimistic", "optimistic"].map(str::to_owned).to_vec(),
        key_columns: 2,
        rows,
    });
    (table, notes)
}
