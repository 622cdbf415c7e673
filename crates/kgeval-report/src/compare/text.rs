//! Text and Markdown: per metric the leaderboard, the pairs and the discriminative power; or
//! the agreement table.

use std::fmt::Write as _;

use kgeval_model::meta::agreement::{Agreement, AgreementRow, TauVariant};
use kgeval_model::meta::compare::{CompareResult, MetricComparison, PublishedPower};
use kgeval_model::meta::significance::Correction;

use super::{conventions_line, superscript};
use crate::number::format_fixed;
use crate::{RenderOptions, Table};

/// The whole comparison as aligned text or Markdown.
pub(super) fn render(result: &CompareResult, options: &RenderOptions, markdown: bool) -> String {
    let mut out = String::new();
    if markdown {
        let _ = writeln!(out, "_kgeval compare: {}_", conventions_line(result));
    } else {
        let _ = writeln!(out, "# kgeval compare: {}", conventions_line(result));
    }
    for comparison in &result.metrics {
        out.push('\n');
        metric_block(&mut out, comparison, options, markdown);
    }
    if let Some(agreement) = &result.agreement {
        out.push('\n');
        agreement_block(&mut out, agreement, result.conventions.tau, options, markdown);
    }
    for set in &result.published_power {
        out.push('\n');
        published_block(&mut out, set, result.conventions.alpha, options, markdown);
    }
    if !result.tie_orderings.is_empty() {
        out.push('\n');
        tie_orderings_block(&mut out, &result.tie_orderings, options, markdown);
    }
    out
}

/// Per measure, Kendall's tau-b between the runs' orderings under `--ties trec` and under
/// `expected` (docs/ties.md).
fn tie_orderings_block(out: &mut String, orderings: &[(String, f64)], options: &RenderOptions, markdown: bool) {
    heading(out, "run orderings under --ties trec and expected (Kendall tau-b; 1: no pair of runs swaps)", markdown);
    let mut rows = Table::new(&["measure", "tau_b"], &[false, true]);
    for (measure, tau) in orderings {
        rows.row(vec![measure.clone(), number(*tau, options)]);
    }
    table(out, &rows, markdown);
}

/// One published p-value matrix: per metric its pairs, how many are significant at α and at
/// 0.01, the area under the descending p-value curve and the median p.
fn published_block(out: &mut String, set: &PublishedPower, alpha: f64, options: &RenderOptions, markdown: bool) {
    let pairs = set.power.first().map_or(0, |p| p.pairs);
    heading(
        out,
        &format!("discriminative power of {} ({} systems, {pairs} pairs; {})", set.name, set.systems.len(), set.source),
        markdown,
    );
    let at_alpha = format!("p < {alpha}");
    let mut rows = Table::new(
        &["metric", "pairs", &at_alpha, "p < 0.01", "area", "median_p"],
        &[false, true, true, true, true, true],
    );
    for power in &set.power {
        rows.row(vec![
            power.metric.clone(),
            power.pairs.to_string(),
            power.significant.to_string(),
            power.significant_at_01.to_string(),
            number(power.area, options),
            p_value(power.median_p, options),
        ]);
    }
    table(out, &rows, markdown);
}

/// A heading naming sets and systems: their names escaped (no name can add a line, an escape
/// sequence or, in Markdown, markup).
fn heading(out: &mut String, text: &str, markdown: bool) {
    if markdown {
        let _ = writeln!(out, "## {}\n", crate::escape_markdown(text));
    } else {
        let _ = writeln!(out, "## {}", crate::text_field(text));
    }
}

fn table(out: &mut String, table: &Table, markdown: bool) {
    if markdown {
        out.push_str(&table.to_markdown());
        out.push('\n');
    } else {
        out.push_str(&table.to_text());
    }
}

/// Magnitudes from which a number is written in scientific notation (a mean of 1e308 in
/// fixed notation is 309 digits).
const SCIENTIFIC_FROM: f64 = 1e15;

/// A number at the precision asked for (scientific from 1e15 on); `-` when undefined (not
/// finite: no inf or NaN is printed).
fn number(value: f64, options: &RenderOptions) -> String {
    if !value.is_finite() {
        "-".to_owned()
    } else if value.abs() >= SCIENTIFIC_FROM {
        format!("{value:.*e}", options.precision)
    } else {
        format_fixed(value, options.precision)
    }
}

/// A p-value: fixed decimals, or scientific notation when it would print as zero.
fn p_value(value: f64, options: &RenderOptions) -> String {
    if value > 0.0 && value < 0.5 * 10f64.powi(-(options.precision as i32)) {
        format!("{value:.1e}")
    } else {
        number(value, options)
    }
}

fn metric_block(out: &mut String, comparison: &MetricComparison, options: &RenderOptions, markdown: bool) {
    let significance = &comparison.significance;
    let direction = if significance.higher_is_better { "higher is better" } else { "lower is better" };
    heading(
        out,
        &format!(
            "{} ({direction}; {} items, {} systems)",
            significance.metric,
            significance.n_items,
            significance.systems.len()
        ),
        markdown,
    );
    let board = &comparison.leaderboard;
    let with_intervals = !significance.intervals.is_empty();
    let mut header = vec!["", "system", "mean", "tier"];
    if with_intervals {
        header.extend(["ci_low", "ci_high"]);
    }
    // The mean cell is the renderer's own Markdown: a number and `<sup>` letters.
    let mut leaderboard = Table::new(&header, &[false, false, true, true, true, true]).with_markup_column(2);
    for row in &board.rows {
        let marks = row.marks(&board.rows);
        let mean = if markdown {
            if marks.is_empty() {
                number(row.mean, options)
            } else {
                format!("{}<sup>{marks}</sup>", number(row.mean, options))
            }
        } else {
            format!("{}{}", number(row.mean, options), superscript(&marks))
        };
        let mut cells = vec![row.letter.clone(), row.name.clone(), mean, row.tier.to_string()];
        if let Some(interval) = significance.intervals.get(row.system) {
            cells.push(number(interval.lower, options));
            cells.push(number(interval.upper, options));
        }
        leaderboard.row(cells);
    }
    table(out, &leaderboard, markdown);
    if !markdown {
        out.push('\n');
    }
    // One p column when nothing corrects them (no correction, or Tukey HSD's family-wise p).
    let corrected = significance.correction != Correction::None;
    let mut header = vec!["system_a", "system_b", "difference", "cohens_d", "statistic", "p"];
    if corrected {
        header.push("p_adjusted");
    }
    header.extend(["sig", "w/t/l"]);
    let mut numeric = vec![false, false, true, true, true, true];
    if corrected {
        numeric.push(true);
    }
    numeric.extend([false, true]);
    let mut pairs = Table::new(&header, &numeric);
    for pair in &significance.pairs {
        let mut cells = vec![
            significance.systems[pair.a].clone(),
            significance.systems[pair.b].clone(),
            number(pair.mean_difference, options),
            number(pair.effect_size, options),
            pair.statistic.map_or_else(|| "-".to_owned(), |s| number(s, options)),
            p_value(pair.p_value, options),
        ];
        if corrected {
            cells.push(p_value(pair.p_adjusted, options));
        }
        cells.push(if pair.is_significant(significance.alpha) { "*" } else { "" }.to_owned());
        cells.push(format!("{}/{}/{}", pair.wins, pair.ties, pair.losses));
        pairs.row(cells);
    }
    if pairs.is_empty() {
        // One system: no pair to test, and no empty table.
        let _ = writeln!(out, "no pair to test: {} system(s)", significance.systems.len());
        if markdown {
            out.push('\n');
        }
    } else {
        table(out, &pairs, markdown);
    }
    if significance.pairs.iter().any(|pair| !pair.effect_size.is_finite()) {
        let _ = writeln!(
            out,
            "cohens_d -: the pair's differences do not vary (the same on every item), so d (and t) are undefined"
        );
        if markdown {
            out.push('\n');
        }
    }
    let power = &comparison.power;
    if !markdown {
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "discriminative power: {} of {} pairs significant at α = {} ({} at 0.01); area under the sorted p-value curve {}, median p {}",
        power.significant,
        power.pairs,
        power.alpha,
        power.significant_at_01,
        number(power.area, options),
        p_value(power.median_p, options),
    );
    if comparison.zero_filled > 0 || comparison.dropped_items > 0 {
        let _ = writeln!(
            out,
            "missing values: {} filled with 0, {} items dropped",
            comparison.zero_filled, comparison.dropped_items
        );
    }
}

fn tau_of(row: &AgreementRow, variant: TauVariant) -> f64 {
    match variant {
        TauVariant::A => row.tau_a,
        TauVariant::B => row.tau_b,
        TauVariant::C => row.tau_c,
    }
}

fn agreement_block(
    out: &mut String,
    agreement: &Agreement,
    variant: TauVariant,
    options: &RenderOptions,
    markdown: bool,
) {
    heading(out, &format!("ranking agreement: {} vs {}", agreement.left, agreement.right), markdown);
    let tau = format!("tau_{}", variant.name());
    let mut rows = Table::new(
        &["group", "metric", "systems", &tau, "p", "tau_ap", "rbo"],
        &[false, false, true, true, true, true, true],
    );
    for row in &agreement.rows {
        rows.row(vec![
            row.group.to_string(),
            row.metric.clone(),
            row.n_systems.to_string(),
            number(tau_of(row, variant), options),
            p_value(row.p_value, options),
            number(row.tau_ap, options),
            number(row.rbo, options),
        ]);
    }
    table(out, &rows, markdown);
    let mut notes = Vec::new();
    let mut seen = Vec::new();
    for row in &agreement.rows {
        for (side, systems) in [("left", &row.only_left), ("right", &row.only_right)] {
            if !systems.is_empty() && !seen.contains(&(side, systems)) {
                seen.push((side, systems));
                notes.push(format!("systems only on the {side} (not compared): {}", systems.join(", ")));
            }
        }
    }
    for (side, metrics) in [("left", &agreement.metrics_only_left), ("right", &agreement.metrics_only_right)] {
        if !metrics.is_empty() {
            notes.push(format!("metrics only on the {side} (not compared): {}", metrics.join(", ")));
        }
    }
    for (side, groups) in [("left", &agreement.groups_only_left), ("right", &agreement.groups_only_right)] {
        if !groups.is_empty() {
            let names: Vec<String> = groups.iter().map(ToString::to_string).collect();
            notes.push(format!("groups only on the {side} (not compared): {}", names.join("; ")));
        }
    }
    if !notes.is_empty() && markdown {
        out.push('\n');
    }
    for note in notes {
        let note = if markdown { crate::escape_markdown(&note) } else { crate::text_field(&note).into_owned() };
        let _ = writeln!(out, "{note}");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_heading_prints_a_hostile_name_on_its_line() {
        let hostile = "ranking agreement: a\n## forged\x1b[31m vs <b>b</b>";
        let mut text = String::new();
        super::heading(&mut text, hostile, false);
        assert_eq!(text, "## ranking agreement: a\\n## forged\\u{1b}[31m vs <b>b</b>\n");
        let mut markdown = String::new();
        super::heading(&mut markdown, hostile, true);
        assert_eq!(markdown.lines().count(), 2, "{markdown}");
        assert!(!markdown.contains('\x1b') && !markdown.contains("<b>"), "{markdown}");
    }
}
