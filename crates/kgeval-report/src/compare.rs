//! `kgeval compare`: the leaderboard with significance marks and tiers, the pairs (effect
//! sizes, p-values, win/tie/loss), discriminative power, the p-value matrix, and the ranking
//! agreement table; text, JSON, CSV and Markdown.
//!
//! Text and Markdown show one block per metric: the leaderboard (best first; each mean
//! followed by the superscript letters of the systems it significantly beats at α after the
//! correction, ranx style; the tier: 1 = not distinguishable from the best), then the pairs,
//! then the discriminative power. CSV is the p-value matrix in kgc-sparsity's
//! `discriminative_power.csv` layout (`SystemA,SystemB,<metric>…`, both orders, corrected
//! p-values), or with `--against` the agreement rows. JSON holds everything at full precision
//! (a non-finite value, such as the effect size of a constant non-zero difference, is `null`).

mod csv;
mod json;
mod text;

use kgeval_model::meta::compare::CompareResult;
use kgeval_model::meta::significance::{Correction, SignificanceTest};
use kgeval_model::Diagnostic;

use crate::common::pretty;
use crate::{OutputFormat, RenderOptions};

pub use json::compare_json;

/// Renders a comparison with its warnings (`(scope, warning)`, in order).
#[must_use]
pub fn render_compare(
    result: &CompareResult,
    warnings: &[(&str, &Diagnostic)],
    format: OutputFormat,
    options: &RenderOptions,
) -> String {
    if let (Some(sensitivity), false) = (&result.sensitivity, format == OutputFormat::Json) {
        return crate::render_sensitivity(sensitivity, format, options);
    }
    match format {
        OutputFormat::Text => text::render(result, options, false),
        OutputFormat::Markdown => text::render(result, options, true),
        OutputFormat::Json => pretty(&compare_json(result, warnings, options)),
        OutputFormat::Csv => csv::render(result),
    }
}

/// The test's long name (`paired t test`, `randomised Tukey HSD`).
pub(crate) fn test_title(test: SignificanceTest) -> &'static str {
    match test {
        SignificanceTest::PairedT => "paired t test",
        SignificanceTest::Wilcoxon => "Wilcoxon signed-rank test",
        SignificanceTest::Bootstrap => "paired bootstrap test (Sakai, shift method)",
        SignificanceTest::Fisher => "Fisher randomisation test",
        SignificanceTest::TukeyHsd => "randomised Tukey HSD",
    }
}

/// The conventions in one line, the header of text and Markdown output.
pub(crate) fn conventions_line(result: &CompareResult) -> String {
    let c = &result.conventions;
    if !result.published_power.is_empty() {
        return format!(
            "discriminative power of published p-values (taken as published, no test run), α = {}; input {}",
            c.alpha, c.input_format
        );
    }
    if result.agreement.is_some() {
        return format!(
            "ranking agreement: Kendall tau-{} (p: exact for small n without ties, else asymptotic, as scipy), \
             tau_AP (left ordering as reference), RBO_ext p = {}; input {} against {}",
            c.tau.name(),
            c.rbo_p,
            c.input_format,
            c.against_format.as_deref().unwrap_or("-"),
        );
    }
    let correction = if c.test.is_family_wise() {
        "family-wise (no further correction)".to_owned()
    } else {
        match c.correction {
            Correction::Holm => "Holm correction",
            Correction::Bonferroni => "Bonferroni correction",
            Correction::None => "no correction",
        }
        .to_owned()
    };
    let draws = if c.iterations > 0 {
        format!(", B = {}, seed {} (ChaCha8, seeded per iteration)", c.iterations, c.seed)
    } else {
        format!(", B = 0 (no random draws), seed {}", c.seed)
    };
    let intervals = if c.intervals { ", percentile bootstrap intervals of the means" } else { "" };
    format!(
        "{}, {correction}, α = {}{draws}{intervals}; missing values: {}; input {}",
        test_title(c.test),
        c.alpha,
        c.missing,
        c.input_format
    )
}

/// A letter as a Unicode superscript (ranx's marks); letters without one stay as they are.
pub(crate) fn superscript(letters: &str) -> String {
    letters
        .chars()
        .map(|c| match c {
            'a' => 'ᵃ',
            'b' => 'ᵇ',
            'c' => 'ᶜ',
            'd' => 'ᵈ',
            'e' => 'ᵉ',
            'f' => 'ᶠ',
            'g' => 'ᵍ',
            'h' => 'ʰ',
            'i' => 'ⁱ',
            'j' => 'ʲ',
            'k' => 'ᵏ',
            'l' => 'ˡ',
            'm' => 'ᵐ',
            'n' => 'ⁿ',
            'o' => 'ᵒ',
            'p' => 'ᵖ',
            'r' => 'ʳ',
            's' => 'ˢ',
            't' => 'ᵗ',
            'u' => 'ᵘ',
            'v' => 'ᵛ',
            'w' => 'ʷ',
            'x' => 'ˣ',
            'y' => 'ʸ',
            'z' => 'ᶻ',
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn superscripts_as_ranx_prints_them() {
        assert_eq!(superscript("abc"), "ᵃᵇᶜ");
        assert_eq!(superscript("xyz"), "ˣʸᶻ");
        // Unicode has no superscript q: it stays a plain letter.
        assert_eq!(superscript("aq"), "ᵃq");
    }
}
