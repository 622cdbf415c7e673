//! Reading `kgeval compare`'s score tables: per-item JSON, trec_eval `-q`, long CSV (items),
//! wide CSV (system × metric, ranking agreement only), or qrels plus runs evaluated here.

use kgeval_formats::meta::detect::{detect, MetaInputFormat};
use kgeval_formats::meta::long_csv::read_long_csv;
use kgeval_formats::meta::trec_eval_q::read_trec_eval_q;
use kgeval_formats::per_item::read_per_item;
use kgeval_formats::{Input, InputBytes};
use kgeval_model::ScoreTable;

use crate::{Error, ResultExt as _, SystemInput};

/// One side of a comparison as read.
#[derive(Debug)]
pub(crate) enum Side {
    /// Per-item values (every input merged into one table), and the formats read.
    Items { table: Box<ScoreTable>, formats: Vec<MetaInputFormat> },
    /// One wide system × metric CSV, still unread (the agreement reader takes the bytes).
    Wide(InputBytes),
}

impl Side {
    /// The formats read, comma-separated (for the conventions).
    pub(crate) fn format_names(&self) -> String {
        match self {
            Side::Items { formats, .. } => formats.iter().map(|f| f.name()).collect::<Vec<_>>().join(", "),
            Side::Wide(_) => MetaInputFormat::WideCsv.name().to_owned(),
        }
    }
}

/// Reads the inputs of one side, each of the format `format` or, when `None`, the format its
/// content shows; item tables are merged (a system in two inputs is an error).
///
/// # Errors
/// No input; `-` twice; an input that cannot be read, is empty, has an unknown format or is
/// malformed; a wide CSV beside other inputs; `NAME=` on a file holding several systems; a
/// system found in two inputs.
pub(crate) fn read_side(inputs: &[SystemInput], format: Option<MetaInputFormat>) -> Result<Side, Error> {
    if inputs.is_empty() {
        return Err(Error::invalid("compare: expected at least one input (or --qrels with --run)"));
    }
    if inputs.iter().filter(|s| s.input == Input::Stdin).count() > 1 {
        return Err(Error::invalid("stdin (-) can be read only once"));
    }
    let mut table = ScoreTable::new();
    let mut formats = Vec::new();
    let mut origin: Vec<String> = Vec::new();
    for system in inputs {
        let opened = system.input.open()?;
        let name = opened.name().to_owned();
        if opened.bytes().iter().all(u8::is_ascii_whitespace) {
            return Err(Error::invalid(format!("{name}: found an empty file, expected a score table")));
        }
        let Some(found) = format.or_else(|| detect(opened.bytes())) else {
            return Err(Error::invalid(format!(
                "{name}: found no known score-table format (per-item JSON, trec_eval -q output, long CSV \
                 system,item,metric,value, wide system × metric CSV), expected one; give --input-format"
            )));
        };
        if found == MetaInputFormat::WideCsv {
            if inputs.len() > 1 {
                return Err(Error::invalid(format!(
                    "{name}: a wide system × metric CSV must be the only input of its side (found {} inputs)",
                    inputs.len()
                )));
            }
            return Ok(Side::Wide(opened));
        }
        let one = read_one(&opened, found, system.name.as_deref())?;
        for s in one.systems() {
            if let Some(at) = table.find_system(s) {
                return Err(Error::invalid(format!(
                    "{name}: system {s:?} is also in {}, expected each system in one input (name them NAME=PATH)",
                    origin[at.0 as usize]
                )));
            }
            origin.push(name.clone());
        }
        table.merge(&one).map_err(|e| Error::invalid(format!("{name}: {e}")))?;
        if !formats.contains(&found) {
            formats.push(found);
        }
    }
    Ok(Side::Items { table: Box::new(table), formats })
}

/// One input's table in format `format`; `name` (from `NAME=PATH`) names its one system.
fn read_one(opened: &InputBytes, format: MetaInputFormat, name: Option<&str>) -> Result<ScoreTable, Error> {
    let file = opened.name();
    if name.is_some_and(|name| name.trim().is_empty()) {
        return Err(Error::invalid(format!(
            "{file}: found an empty system name (NAME=PATH), expected a name or PATH alone (named by its stem)"
        )));
    }
    let table = match format {
        MetaInputFormat::PerItemJson => read_per_item(opened.bytes(), file)?,
        MetaInputFormat::LongCsv => read_long_csv(opened.bytes(), file)?,
        MetaInputFormat::TrecEval => {
            let stem = Input::path(file).stem();
            return Ok(read_trec_eval_q(opened.bytes(), file, name.unwrap_or(&stem))?);
        }
        MetaInputFormat::WideCsv => {
            return Err(Error::invalid(format!("{file}: a wide CSV has no per-item values")));
        }
    };
    match name {
        None => Ok(table),
        Some(name) if table.systems().len() == 1 => Ok(renamed(&table, name)),
        Some(name) => Err(Error::invalid(format!(
            "{file}: found {} systems ({}), expected one to name {name:?} (drop NAME= to keep their names)",
            table.systems().len(),
            table.systems().collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// `table` (one system) with its system named `name`: items, metric infos, values and
/// headlines as they are.
pub(super) fn renamed(table: &ScoreTable, name: &str) -> ScoreTable {
    let mut out = ScoreTable::new();
    let system = out.system(name);
    let metrics: Vec<_> = table
        .metrics()
        .enumerate()
        .map(|(m, metric)| out.metric_with_info(metric, table.metric_info(kgeval_model::MetricId(m as u32))))
        .collect();
    let items: Vec<_> = table
        .items()
        .map(|info| {
            let groups: Vec<(&str, &str)> = info.groups.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            out.item(&info.name, &groups)
        })
        .collect();
    for (_, item, metric, value) in table.rows() {
        out.set(system, items[item.0 as usize], metrics[metric.0 as usize], value);
    }
    for (_, metric, value) in table.headlines() {
        out.set_headline(system, metrics[metric.0 as usize], value);
    }
    out
}

/// The qrels and runs evaluated in-process by [`crate::trec::TrecTask`] (`measures` as
/// `kgeval trec -m` takes them; empty: trec_eval's `official` set). With `tie_orderings`, also
/// [`crate::trec::TrecTask::tie_orderings`] (else empty).
pub(crate) fn evaluate_runs(
    qrels: &Input,
    runs: &[SystemInput],
    measures: &[String],
    ties: kgeval_model::trec::Ties,
    tie_orderings: bool,
    progress: &dyn crate::Progress,
) -> Result<EvaluatedRuns, Error> {
    let mut task = crate::trec::TrecTask::new(qrels.clone());
    task.runs = runs.to_vec();
    task.ties = ties;
    for measure in measures {
        task = task.measure(measure);
    }
    let evaluation = task.run(progress).context("evaluating the runs against the qrels")?;
    let orderings = match (&evaluation.result, tie_orderings) {
        (crate::evaluation::FamilyResult::Trec(result), true) => {
            task.tie_orderings(&result.runs, progress).context("ordering the runs under trec and expected")?
        }
        _ => Vec::new(),
    };
    let warnings =
        evaluation.warnings.into_iter().filter(|w| w.diagnostic.code != crate::trec::TOPICS_EVALUATED).collect();
    Ok(EvaluatedRuns { table: evaluation.table, warnings, tie_orderings: orderings })
}

/// What [`evaluate_runs`] gives.
pub(crate) struct EvaluatedRuns {
    /// The per-topic values of every run.
    pub(crate) table: ScoreTable,
    /// The evaluation's warnings (without the topic count).
    pub(crate) warnings: Vec<crate::Warning>,
    /// Per measure, Kendall's tau-b between the orderings under `trec` and `expected`.
    pub(crate) tie_orderings: Vec<(String, f64)>,
}

/// A wide system × metric CSV (kgc-sparsity `evaluation.csv`, `pooling_depth.csv`).
pub(crate) fn read_wide(opened: &InputBytes) -> Result<kgeval_model::meta::agreement::SystemMetricTable, Error> {
    Ok(kgeval_formats::meta::wide_csv::read_wide_csv(opened.bytes(), opened.name())?)
}
