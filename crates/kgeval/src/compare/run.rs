//! Running a [`CompareTask`]: read, pick the metrics, compare (or agree), collect warnings.

use kgeval_meta::{MetaError, MissingPolicy, PairedScores};
use kgeval_model::meta::agreement::{GroupKey, SystemMetricTable};
use kgeval_model::meta::compare::{CompareConventions, CompareResult, MetricComparison};
use kgeval_model::metric_names::{canonical_metric_name, Direction, Level};
use kgeval_model::trec::Ties;
use kgeval_model::{Diagnostic, MetricId, ScoreTable, SystemId};
use kgeval_report::{OutputFormat, RenderOptions};

use super::inputs::{evaluate_runs, read_side, Side};
use super::published::PVALUES_FORMAT;
use super::CompareTask;
use crate::{Error, Progress, Warning};

/// The code of the warning that says how many values `--missing zero|drop` filled or dropped.
pub const MISSING_VALUES: &str = "missing-values";
/// The code of the warning that names metrics left out by default because some system has
/// no value of them.
pub const PARTIAL_METRICS: &str = "partial-metrics";

/// The code of the warning on a paired test over fewer than [`MIN_TEST_ITEMS`] items.
pub const TOO_FEW_ITEMS: &str = "too-few-items";
/// The fewest items a paired significance test is worth running on: below 6, no exact
/// paired test (sign flips, signed ranks, randomisation) can reach a two-sided p under 0.05
/// (its smallest p is 2/2ⁿ, 0.0625 at n = 5), so a mark would say more than the data can.
/// The tests still run (as scipy and ranx do) and every output carries a warning.
pub const MIN_TEST_ITEMS: usize = 6;

/// The input format named in the conventions of [`CompareTask::run_on`]: a task's evaluation.
pub const EVALUATION_FORMAT: &str = "evaluation";

/// The two sides of a comparison as read: the left one and its source name, and the
/// `against` side with its name when the orderings are compared.
struct Sides {
    left: Side,
    left_source: String,
    against: Option<(Side, String)>,
}

/// What a [`CompareTask`] returns: the comparison, its warnings and the per-item table read.
#[derive(Debug, Clone)]
pub struct CompareEvaluation {
    /// Every warning of the readers and of the comparison, with its scope.
    pub warnings: Vec<Warning>,
    /// The per-item values compared (empty for wide tables).
    pub table: ScoreTable,
    /// The comparison.
    pub result: CompareResult,
}

impl CompareEvaluation {
    /// The systems compared, in input order.
    #[must_use]
    pub fn systems(&self) -> &[String] {
        &self.result.systems
    }

    /// Renders the comparison as `kgeval compare` prints it.
    #[must_use]
    pub fn render(&self, format: OutputFormat, options: &RenderOptions) -> String {
        let warnings: Vec<(&str, &Diagnostic)> =
            self.warnings.iter().map(|w| (w.scope.as_str(), &w.diagnostic)).collect();
        kgeval_report::render_compare(&self.result, &warnings, format, options)
    }
}

impl CompareTask {
    /// Reads the inputs and compares every pair of systems on each metric, or (with
    /// `against`) compares the system orderings of the two result sets.
    ///
    /// # Errors
    /// An option out of range; no input, or both inputs and qrels; an unreadable or
    /// malformed input; an unknown metric (the message lists the available ones); items that
    /// differ between systems under `missing = error`; fewer than two systems or items; a
    /// NaN value; a wide table without `against`.
    pub fn run(&self, progress: &dyn Progress) -> Result<CompareEvaluation, Error> {
        self.check_options()?;
        if !self.pvalues.is_empty() {
            return self.run_published(self.conventions(PVALUES_FORMAT.to_owned()));
        }
        if self.sensitivity {
            return self.run_sensitivity(self.conventions(String::new()), progress);
        }
        if self.kgc.is_some() || !self.ranks.is_empty() || self.subsets.is_some() {
            return Err(Error::invalid("compare: KGC ranks and --subsets are inputs of --sensitivity"));
        }
        let mut warnings = Vec::new();
        let mut tie_orderings = Vec::new();
        let (side, input_format) = match &self.qrels {
            Some(qrels) => {
                if !self.inputs.is_empty() {
                    return Err(Error::invalid("compare: found score-table inputs and --qrels, expected one of them"));
                }
                if self.runs.is_empty() {
                    return Err(Error::invalid("compare: --qrels needs runs (--run NAME=PATH, at least two)"));
                }
                let evaluated = evaluate_runs(qrels, &self.runs, &self.metrics, self.ties, true, progress)?;
                warnings.extend(evaluated.warnings);
                tie_orderings = evaluated.tie_orderings;
                let table = evaluated.table;
                (Side::Items { table: Box::new(table), formats: Vec::new() }, "qrels+runs".to_owned())
            }
            None => {
                if !self.runs.is_empty() {
                    return Err(Error::invalid("compare: --run needs --qrels"));
                }
                if self.ties != Ties::Trec {
                    return Err(Error::invalid(format!(
                        "compare: found --ties {}, which values runs against --qrels; score tables carry their values",
                        self.ties
                    )));
                }
                let side = read_side(&self.inputs, self.input_format)?;
                let name = side.format_names();
                (side, name)
            }
        };
        let mut conventions = self.conventions(input_format);
        // With qrels, the measures were the trec task's: compare every per-topic one.
        let metrics: &[String] = if self.qrels.is_some() { &[] } else { &self.metrics };
        let left_source = match &self.qrels {
            Some(qrels) => qrels.name(),
            None => source_names(&self.inputs),
        };
        let against = if self.against.is_empty() {
            None
        } else {
            let against = read_side(&self.against, self.input_format)?;
            conventions.against_format = Some(against.format_names());
            Some((against, source_names(&self.against)))
        };
        let mut evaluation =
            self.evaluate(Sides { left: side, left_source, against }, conventions, metrics, warnings, progress)?;
        evaluation.result.tie_orderings = tie_orderings;
        Ok(evaluation)
    }

    /// Compares the systems of a table already evaluated (a campaign task's
    /// [`Evaluation::table`](crate::Evaluation::table), named `source`) on each metric, or, with
    /// `against` (another table and its name), compares the system orderings of the two. The
    /// task's own inputs are not read; its options (metrics, test, correction, …) apply.
    ///
    /// # Errors
    /// As [`CompareTask::run`] once the inputs are read.
    pub fn run_on(
        &self,
        table: &ScoreTable,
        source: &str,
        against: Option<(&ScoreTable, &str)>,
        progress: &dyn Progress,
    ) -> Result<CompareEvaluation, Error> {
        self.check_options()?;
        let items = |table: &ScoreTable| Side::Items { table: Box::new(table.clone()), formats: Vec::new() };
        let mut conventions = self.conventions(EVALUATION_FORMAT.to_owned());
        let against = against.map(|(table, name)| {
            conventions.against_format = Some(EVALUATION_FORMAT.to_owned());
            (items(table), name.to_owned())
        });
        let sides = Sides { left: items(table), left_source: source.to_owned(), against };
        self.evaluate(sides, conventions, &self.metrics, Vec::new(), progress)
    }

    /// The comparison of sides already read.
    fn evaluate(
        &self,
        sides: Sides,
        conventions: CompareConventions,
        metrics: &[String],
        mut warnings: Vec<Warning>,
        progress: &dyn Progress,
    ) -> Result<CompareEvaluation, Error> {
        let Sides { left: side, left_source, against } = sides;
        if let Some((against, right_source)) = against {
            let (metrics, repeats) = merge_repeated(metrics.to_vec());
            warnings.extend(repeats);
            let metrics = metrics.as_slice();
            let left = wide_table(&side, &left_source, metrics, self.missing, &mut warnings)?;
            let right = wide_table(&against, &right_source, metrics, self.missing, &mut warnings)?;
            let agreement = super::agree::agree(&left, &right, metrics, self)?;
            let systems = left.groups.first().map(|g| g.systems.clone()).unwrap_or_default();
            let table = match side {
                Side::Items { table, .. } => *table,
                Side::Wide(_) => ScoreTable::new(),
            };
            return Ok(CompareEvaluation {
                warnings,
                table,
                result: CompareResult {
                    conventions,
                    systems,
                    metrics: Vec::new(),
                    agreement: Some(agreement),
                    sensitivity: None,
                    published_power: Vec::new(),
                    tie_orderings: Vec::new(),
                },
            });
        }
        let table = match side {
            Side::Items { table, .. } => *table,
            Side::Wide(opened) => {
                return Err(Error::invalid(format!(
                    "{}: a wide system × metric table has no per-item values, so no significance test can run; \
                     give --against FILE to compare system orderings, or per-item scores (--per-item JSON, \
                     trec_eval -q output, a long CSV)",
                    opened.name()
                )))
            }
        };
        let (names, metric_warnings) = select_metrics(&table, metrics)?;
        warnings.extend(metric_warnings);
        let mut comparisons = Vec::with_capacity(names.len());
        progress.start("metrics", names.len() as u64);
        for name in &names {
            let scores = PairedScores::from_table(&table, name, self.missing).map_err(|e| meta_error(&e))?;
            if let Some(warning) = missing_warning(&scores, self.missing) {
                warnings.push(warning);
            }
            warnings.extend(too_few_items_warning(&scores, self.test));
            comparisons.push(self.compare_metric(&scores)?);
            progress.advance(1);
        }
        progress.finish();
        let systems: Vec<String> = table.systems().map(str::to_owned).collect();
        Ok(CompareEvaluation {
            warnings,
            table,
            result: CompareResult {
                conventions,
                systems,
                metrics: comparisons,
                agreement: None,
                sensitivity: None,
                published_power: Vec::new(),
                tie_orderings: Vec::new(),
            },
        })
    }

    /// The conventions in force, the input format named.
    pub(super) fn conventions(&self, input_format: String) -> CompareConventions {
        CompareConventions {
            test: self.test,
            correction: self.correction,
            alpha: self.alpha,
            iterations: self.iterations(),
            seed: self.seed,
            intervals: self.intervals,
            tau: self.tau,
            rbo_p: self.rbo_p,
            missing: self.missing.name().to_owned(),
            input_format,
            against_format: None,
        }
    }

    fn check_options(&self) -> Result<(), Error> {
        self.check_ranges().map_err(|e| Error::invalid(format!("--{}: {}", e.key.replace('_', "-"), e.message)))
    }

    /// One metric: the test over every pair, the leaderboard and the discriminative power.
    fn compare_metric(&self, scores: &PairedScores) -> Result<MetricComparison, Error> {
        let options = kgeval_meta::SignificanceOptions {
            test: self.test,
            correction: self.correction,
            alpha: self.alpha,
            iterations: self.iterations,
            interval_iterations: self.intervals.then(|| self.iterations()),
            seed: self.seed,
        };
        let significance = kgeval_meta::compare_systems(scores, &options).map_err(|e| meta_error(&e))?;
        let leaderboard = kgeval_meta::leaderboard(&significance);
        let power = kgeval_meta::power::power_of(&significance, true).map_err(|e| meta_error(&e))?;
        Ok(MetricComparison {
            significance,
            leaderboard,
            power,
            zero_filled: scores.missing.zero_filled,
            dropped_items: scores.missing.dropped_items,
        })
    }
}

/// The inputs' names, comma-separated (an agreement side's source).
fn source_names(inputs: &[crate::SystemInput]) -> String {
    inputs.iter().map(|s| s.input.name()).collect::<Vec<_>>().join(", ")
}

/// A meta-evaluation error as the facade's (bad input: exit 2).
fn meta_error(error: &MetaError) -> Error {
    Error::invalid(error.to_string())
}

/// The warning on a test over fewer than [`MIN_TEST_ITEMS`] items, if it is one.
fn too_few_items_warning(
    scores: &PairedScores,
    test: kgeval_model::meta::significance::SignificanceTest,
) -> Option<Warning> {
    let n = scores.n_items();
    if n >= MIN_TEST_ITEMS || scores.systems.len() < 2 {
        return None;
    }
    let smallest = 2.0 / 2f64.powi(i32::try_from(n).unwrap_or(i32::MAX));
    Some(Warning {
        scope: format!("metric {}", scores.metric),
        diagnostic: Diagnostic::warning(
            TOO_FEW_ITEMS,
            format!(
                "a {} on {n} item(s) is not a test: with fewer than {MIN_TEST_ITEMS} items no exact paired test \
                 can reach p < 0.05 (the smallest two-sided p of a sign-flip test on {n} item(s) is {smallest}); \
                 read the means, not the significance marks",
                super::test_name(test)
            ),
        ),
    })
}

/// The warning saying what `--missing zero|drop` did to one metric, if anything.
fn missing_warning(scores: &PairedScores, policy: MissingPolicy) -> Option<Warning> {
    let message = match policy {
        MissingPolicy::Zero if scores.missing.zero_filled > 0 => format!(
            "{} missing value(s) counted as 0 (--missing zero); {} items compared",
            scores.missing.zero_filled,
            scores.n_items()
        ),
        MissingPolicy::Drop if scores.missing.dropped_items > 0 => format!(
            "{} item(s) dropped because some system has no value for them (--missing drop); {} items compared",
            scores.missing.dropped_items,
            scores.n_items()
        ),
        _ => return None,
    };
    Some(Warning {
        scope: format!("metric {}", scores.metric),
        diagnostic: Diagnostic::warning(MISSING_VALUES, message),
    })
}

/// Finds `name` among the table's metrics: canonical name, alias, or any case.
pub(super) fn find_metric<'a>(available: &[&'a str], name: &str) -> Option<&'a str> {
    let canonical = canonical_metric_name(name);
    let find = |matches: &dyn Fn(&str) -> bool| available.iter().copied().find(|m| matches(m));
    find(&|m| m == canonical)
        .or_else(|| find(&|m| m.eq_ignore_ascii_case(&canonical)))
        .or_else(|| find(&|m| m.eq_ignore_ascii_case(name)))
}

/// The metrics to compare: the ones asked for (each must be in the table), else the table's
/// headline metrics that have per-item values and a direction, else every metric with
/// per-item values and a direction (counts such as `num_ret` are left out); by default only
/// metrics every system has values of (the others are named in a warning).
pub(super) fn select_metrics(table: &ScoreTable, asked: &[String]) -> Result<(Vec<String>, Vec<Warning>), Error> {
    let n_metrics = table.metrics().len();
    let n_systems = table.systems().len();
    let mut seen = vec![false; n_metrics * n_systems];
    for (system, _, metric, _) in table.rows() {
        seen[metric.0 as usize * n_systems + system.0 as usize] = true;
    }
    let with_items: Vec<&str> = table
        .metrics()
        .enumerate()
        .filter(|(m, _)| seen[m * n_systems..(m + 1) * n_systems].contains(&true))
        .map(|(_, name)| name)
        .collect();
    if with_items.is_empty() {
        return Err(Error::invalid(
            "compare: found no per-item values, expected one value per (system, item, metric) \
             (kgeval --per-item JSON, trec_eval -q output, a long CSV)",
        ));
    }
    if !asked.is_empty() {
        let names: Vec<String> = asked
            .iter()
            .map(|name| {
                find_metric(&with_items, name).map(str::to_owned).ok_or_else(|| {
                    Error::invalid(format!(
                        "unknown metric `{name}`: the input has per-item values of {}",
                        with_items.join(", ")
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        let (names, repeats) = merge_repeated(names);
        return Ok((names, repeats.into_iter().collect()));
    }
    let headline_metrics: Vec<&str> = table.headlines().iter().map(|(_, id, _)| table.metric_name(*id)).collect();
    let mut partial = Vec::new();
    let mut directed = Vec::new();
    for (m, name) in table.metrics().enumerate() {
        let info = table.metric_info(kgeval_model::MetricId(m as u32));
        if info.direction == Direction::Neither || info.level != Level::Item || !with_items.contains(&name) {
            continue;
        }
        if seen[m * n_systems..(m + 1) * n_systems].contains(&false) {
            partial.push(name);
        } else {
            directed.push(name);
        }
    }
    let headlines: Vec<&str> = directed.iter().copied().filter(|m| headline_metrics.contains(m)).collect();
    let chosen = if headlines.is_empty() { directed } else { headlines };
    if chosen.is_empty() {
        return Err(Error::invalid(format!(
            "compare: found no score every system has (per-item values of {}), expected one; name one with --metric",
            with_items.join(", ")
        )));
    }
    let mut warnings = Vec::new();
    if !partial.is_empty() {
        warnings.push(Warning {
            scope: "inputs".to_owned(),
            diagnostic: Diagnostic::warning(
                PARTIAL_METRICS,
                format!("metrics some systems have no value of, not compared: {}", partial.join(", ")),
            ),
        });
    }
    Ok((chosen.into_iter().map(str::to_owned).collect(), warnings))
}

/// The code of the warning that counts repeated metric names dropped.
pub const REPEATED_METRIC: &str = "repeated-metric";

/// `names` with repeats dropped (first place kept; names are compared after resolution, or by
/// canonical name in any case where they are not resolved yet), and a warning counting the
/// repeats: `-m map -m map -m MAP` compares `map` once.
pub(super) fn merge_repeated(names: Vec<String>) -> (Vec<String>, Option<Warning>) {
    let key = |name: &str| canonical_metric_name(name).to_ascii_lowercase();
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    let mut kept = Vec::with_capacity(names.len());
    let mut repeated: Vec<String> = Vec::new();
    let mut dropped = 0usize;
    for name in names {
        if seen.insert(key(&name)) {
            kept.push(name);
        } else {
            dropped += 1;
            if !repeated.iter().any(|r| key(r) == key(&name)) {
                repeated.push(name);
            }
        }
    }
    let warning = (dropped > 0).then(|| Warning {
        scope: "inputs".to_owned(),
        diagnostic: Diagnostic::warning(
            REPEATED_METRIC,
            format!(
                "found {dropped} repeat(s) of metrics already named ({}), expected each metric once; dropped",
                kgeval_formats::shorten(&repeated.join(", "), kgeval_formats::MAX_ECHO)
            ),
        ),
    });
    (kept, warning)
}

/// One side as a wide system × metric table: read from a wide CSV, or from an item table:
/// each system's headline when every system has one, else its mean over the items joined
/// under the missing-value policy. Default metrics: those every system has.
fn wide_table(
    side: &Side,
    source: &str,
    metrics: &[String],
    missing: MissingPolicy,
    warnings: &mut Vec<Warning>,
) -> Result<SystemMetricTable, Error> {
    let table = match side {
        Side::Wide(opened) => return super::inputs::read_wide(opened),
        Side::Items { table, .. } => table,
    };
    let n_systems = table.systems().len();
    let systems: Vec<SystemId> = (0..n_systems as u32).map(SystemId).collect();
    let headlines =
        |metric: MetricId| -> Option<Vec<f64>> { systems.iter().map(|&s| table.headline(s, metric)).collect() };
    let available: Vec<&str> = table.metrics().collect();
    let names: Vec<&str> = if metrics.is_empty() {
        let mut has = vec![false; available.len() * n_systems];
        for (system, _, metric, _) in table.rows() {
            has[metric.0 as usize * n_systems + system.0 as usize] = true;
        }
        (0..available.len())
            .filter(|&m| {
                headlines(MetricId(m as u32)).is_some() || !has[m * n_systems..(m + 1) * n_systems].contains(&false)
            })
            .map(|m| available[m])
            .collect()
    } else {
        metrics
            .iter()
            .map(|name| {
                find_metric(&available, name).ok_or_else(|| {
                    Error::invalid(format!("unknown metric `{name}`: {source} has {}", available.join(", ")))
                })
            })
            .collect::<Result<_, _>>()?
    };
    let mut columns = Vec::with_capacity(names.len());
    for name in &names {
        let Some(metric) = table.find_metric(name) else { continue };
        let column = match headlines(metric) {
            Some(values) => values,
            None => {
                let scores = PairedScores::from_table_id(table, metric, missing).map_err(|e| meta_error(&e))?;
                warnings.extend(missing_warning(&scores, missing));
                scores.means()
            }
        };
        columns.push(column);
    }
    let owned: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    let mut wide = SystemMetricTable::new(source, Vec::new(), &owned);
    for (index, system) in table.systems().enumerate() {
        wide.push_row(GroupKey::default(), system, columns.iter().map(|c| c[index]).collect());
    }
    Ok(wide)
}
