//! Score tables already in memory as a comparison's inputs: a task's
//! [`Evaluation::table`](crate::Evaluation::table), or a table a front end built from values it
//! was handed (the Python package's dicts), instead of files.

use kgeval_model::ScoreTable;

use super::inputs::renamed;
use super::{CompareEvaluation, CompareTask, EVALUATION_FORMAT};
use crate::{Error, Progress};

/// One in-memory input of [`CompareTask::run_on_tables`]: a score table with its systems, or,
/// with `name`, its one system renamed (as `NAME=PATH` names a file's one system).
#[derive(Debug, Clone, Copy)]
pub struct NamedTable<'a> {
    /// The name of the table's one system (`None`: keep the table's names).
    pub name: Option<&'a str>,
    /// The per-item values (and headlines) of one or more systems.
    pub table: &'a ScoreTable,
    /// What the table is called in messages and as an agreement side's source.
    pub source: &'a str,
}

impl CompareTask {
    /// Compares the systems of score tables held in memory, as [`CompareTask::run`] compares
    /// files: the tables are merged (a system in two tables is an error), then every pair is
    /// tested per metric or, with `against` tables, the system orderings of the two sides are
    /// compared, or with `sensitivity` the data sensitivity of the ordering is computed. The
    /// task's own file inputs are not read; its options apply (`subsets` is read). The
    /// conventions name the input format [`EVALUATION_FORMAT`].
    ///
    /// # Errors
    /// No table; `name` given for a table of several systems; a system in two tables; then as
    /// [`CompareTask::run_on`].
    pub fn run_on_tables(
        &self,
        tables: &[NamedTable<'_>],
        against: &[NamedTable<'_>],
        progress: &dyn Progress,
    ) -> Result<CompareEvaluation, Error> {
        let left = merge(tables)?;
        let source = sources(tables);
        if self.sensitivity {
            if !against.is_empty() {
                return Err(Error::invalid("compare: --sensitivity and --against are two analyses; give one of them"));
            }
            let conventions = self.conventions(EVALUATION_FORMAT.to_owned());
            return self.sensitivity_of(left, &self.metrics, self.subset_source()?, conventions, Vec::new());
        }
        if against.is_empty() {
            return self.run_on(&left, &source, None, progress);
        }
        let right = merge(against)?;
        self.run_on(&left, &source, Some((&right, &sources(against))), progress)
    }
}

/// The tables' sources, comma-separated.
fn sources(tables: &[NamedTable<'_>]) -> String {
    tables.iter().map(|t| t.source).collect::<Vec<_>>().join(", ")
}

/// The tables merged into one, each named one renamed first.
fn merge(tables: &[NamedTable<'_>]) -> Result<ScoreTable, Error> {
    if tables.is_empty() {
        return Err(Error::invalid("compare: expected at least one input"));
    }
    let mut merged = ScoreTable::new();
    let mut origin: Vec<&str> = Vec::new();
    for input in tables {
        let own;
        let table = match input.name {
            None => input.table,
            Some(name) if input.table.systems().len() == 1 => {
                own = renamed(input.table, name);
                &own
            }
            Some(name) => {
                return Err(Error::invalid(format!(
                    "{}: found {} systems ({}), expected one to name {name:?} (pass it unnamed to keep their names)",
                    input.source,
                    input.table.systems().len(),
                    input.table.systems().collect::<Vec<_>>().join(", ")
                )))
            }
        };
        for system in table.systems() {
            if let Some(at) = merged.find_system(system) {
                return Err(Error::invalid(format!(
                    "{}: system {system:?} is also in {}, expected each system once (name them)",
                    input.source, origin[at.0 as usize]
                )));
            }
            origin.push(input.source);
        }
        merged.merge(table).map_err(|e| Error::invalid(format!("{}: {e}", input.source)))?;
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoProgress;

    fn table(system: &str, values: &[f64]) -> ScoreTable {
        let mut t = ScoreTable::new();
        let s = t.system(system);
        let m = t.metric("map");
        for (i, v) in values.iter().enumerate() {
            let item = t.item(&format!("q{i}"), &[]);
            t.set(s, item, m, *v);
        }
        t
    }

    #[test]
    fn tables_in_memory_are_renamed_merged_and_compared() {
        let (a, b) = (table("run", &[0.5, 0.25, 1.0]), table("run", &[0.25, 0.25, 0.5]));
        let named = |name, table| NamedTable { name: Some(name), table, source: "memory" };
        let task = CompareTask::new();
        let e = task.run_on_tables(&[named("A", &a), named("B", &b)], &[], &NoProgress).expect("compared");
        assert_eq!(e.systems(), ["A", "B"]);
        assert_eq!(e.result.conventions.input_format, EVALUATION_FORMAT);
        let pair = &e.result.metrics[0].significance.pairs[0];
        // Differences 0.25, 0, 0.5: mean 0.25, sd 0.25, t = 0.25 / (0.25 / sqrt 3) = sqrt 3.
        let t = pair.statistic.expect("t");
        assert!((t - 3f64.sqrt()).abs() < 1e-12, "{t}");
        let unnamed = NamedTable { name: None, table: &a, source: "x" };
        let e = task.run_on_tables(&[unnamed, unnamed], &[], &NoProgress).expect_err("twice");
        assert!(e.to_string().contains("system \"run\" is also in x"), "{e}");
        let both = e_merge(&a, &b);
        let e = task.run_on_tables(&[named("C", &both)], &[], &NoProgress).expect_err("two systems");
        assert!(e.to_string().contains("found 2 systems (A, B), expected one to name \"C\""), "{e}");
        assert!(task.run_on_tables(&[], &[], &NoProgress).is_err());
        // Sensitivity on the tables: a subset of all 3 items orders the systems as all of
        // them do (tau 1).
        let task = CompareTask { sensitivity: true, ratios: vec![1.0], repeats: 2, ..CompareTask::new() };
        let e = task.run_on_tables(&[named("A", &a), named("B", &b)], &[], &NoProgress).expect("sensitivity");
        let curve = &e.result.sensitivity.as_ref().expect("curve").points;
        assert_eq!((curve.len(), curve[0].size, curve[0].mean_tau[0]), (1, 3, 1.0));
        let e = task.run_on_tables(&[named("A", &a)], &[named("B", &b)], &NoProgress).expect_err("two analyses");
        assert!(e.to_string().contains("two analyses"), "{e}");
    }

    fn e_merge(a: &ScoreTable, b: &ScoreTable) -> ScoreTable {
        let named = |name, table| NamedTable { name: Some(name), table, source: "m" };
        merge(&[named("A", a), named("B", b)]).expect("merged")
    }
}
