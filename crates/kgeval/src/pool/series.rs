//! `pool series`: every system evaluated by [`KgcTask`] at pool depths 0..=D, where the test
//! split of depth d is the original one plus the judged positives of pooled triples with depth
//! ≤ d (and the IR qrels are the judgments up to depth d), then Kendall's tau of each depth's
//! system ordering against depth 0.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use kgeval_formats::kgc::read_triples;
use kgeval_formats::meta::wide_csv::read_wide_csv;
use kgeval_formats::Input;
use kgeval_meta::pool::{depth_agreement, summarize_judgments};
use kgeval_model::kgc::{KgcVocabulary, Triple};
use kgeval_model::meta::pool::{DepthSeries, PoolSummary, SeriesRow};

use super::{read_labels, PoolTask};
use crate::kgc::KgcTask;
use crate::{system_names, Error, NoProgress, Progress, ResultExt, SystemInput, Warning};

pub(super) fn series(
    task: &PoolTask,
    warnings: &mut Vec<Warning>,
    progress: &dyn Progress,
) -> Result<DepthSeries, Error> {
    let test = task.required(&task.test, "test")?;
    let judged = task.required(&task.judgments, "judgments")?;
    let depths = task.required(&task.pool_depths, "pool-depths")?;
    let queries = task.required(&task.queries, "queries")?;
    if task.runs.is_empty() && task.scores.is_empty() {
        return Err(Error::invalid(
            "pool series: expected --run NAME=PATH (KGC runs over --queries) or --scores NAME=PATH, one per system",
        ));
    }
    if !task.scores.is_empty() && task.entities.is_none() {
        return Err(Error::invalid("pool series: --scores expects --entities FILE (the matrices' columns)"));
    }
    if task.qrels.is_some() || task.trivial_filter {
        return Err(Error::invalid("pool series: --qrels and --trivial-filter are for pool build"));
    }
    // Runs first, then score matrices; `true` marks a score matrix.
    let inputs: Vec<(SystemInput, bool)> =
        task.runs.iter().map(|r| (r.clone(), false)).chain(task.scores.iter().map(|s| (s.clone(), true))).collect();
    let systems = system_names(&inputs.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>())?;
    let labels = DepthLabels::read(test, judged, depths, task.depth, warnings)?;
    let (test_name, max, positives) = (labels.test_name.clone(), labels.max, labels.positives.clone());

    // Every evaluation reads the same filters, questions and labels: read (and decompress)
    // them once, hand the bytes over under their names.
    let in_memory = |input: &Input| -> Result<Input, Error> {
        let opened = input.open()?;
        Ok(Input::from_bytes(opened.name(), opened.bytes().to_vec()))
    };
    let filters = task.filters.iter().map(in_memory).collect::<Result<Vec<_>, _>>()?;
    let (queries, judged, depths) = (in_memory(queries)?, in_memory(judged)?, in_memory(depths)?);
    let mut metrics: Vec<String> = Vec::new();
    let mut values: Vec<Vec<HashMap<String, f64>>> = vec![Vec::new(); systems.len()];
    // A depth no pooled triple has changes neither the split nor the qrels: it repeats the
    // depth before. Evaluate 0, D and the depths present only (linear in the pool file).
    let evaluated = labels.evaluated_depths();
    progress.start("depth-series evaluations", evaluated.len() as u64 * systems.len() as u64);
    for depth in 0..=max {
        if evaluated.binary_search(&depth).is_err() {
            for per_depth in &mut values {
                let previous = per_depth.last().cloned().unwrap_or_default();
                per_depth.push(previous);
            }
            continue;
        }
        let text = labels.split(depth);
        let split =
            Input::Bytes { name: format!("{test_name} + positives of depth ≤ {depth}"), bytes: Arc::from(text) };
        for (index, ((input, dense), system)) in inputs.iter().zip(&systems).enumerate() {
            let mut kgc = KgcTask::new(split.clone());
            kgc.filters.clone_from(&filters);
            if *dense {
                // Ranks come from the scores; the IR list is derived from them (no judged
                // non-answers, so no qrels from the judgments).
                kgc.scores = vec![input.clone()];
                kgc.questions = Some(queries.clone());
                kgc.entities.clone_from(&task.entities);
            } else {
                kgc.run = vec![input.clone()];
                kgc.queries = Some(queries.clone());
                kgc.judgments = Some(judged.clone());
                kgc.pool_depths = Some(depths.clone());
                kgc.max_depth = Some(depth);
            }
            kgc.categories_from.clone_from(&task.categories_from);
            kgc.category_threshold = task.category_threshold;
            if let Some(measures) = &task.ir_measures {
                kgc.ir_measures.clone_from(measures);
            }
            let evaluation =
                kgc.run(&NoProgress).with_context(|| format!("evaluating system {system} at pool depth {depth}"))?;
            let mut row = HashMap::new();
            for (s, m, value) in evaluation.table.headlines() {
                if evaluation.table.system_name(s) != evaluation.systems[0] {
                    continue;
                }
                let name = evaluation.table.metric_name(m).to_owned();
                if !metrics.contains(&name) {
                    metrics.push(name.clone());
                }
                row.insert(name, value);
            }
            if depth == max {
                let scope = format!("system {system}, depth {depth}");
                warnings.extend(
                    evaluation.warnings.into_iter().map(|w| Warning { scope: scope.clone(), diagnostic: w.diagnostic }),
                );
            }
            values[index].push(row);
            progress.advance(1);
        }
    }
    progress.finish();
    let mut rows = Vec::with_capacity(systems.len() * (max as usize + 1));
    // `values` is indexed like `inputs`: runs, then score matrices.
    for (system, per_depth) in systems.iter().zip(&values) {
        for (depth, row) in per_depth.iter().enumerate() {
            rows.push(SeriesRow {
                system: system.clone(),
                depth: depth as u32,
                values: metrics.iter().map(|m| row.get(m).copied().unwrap_or(f64::NAN)).collect(),
            });
        }
    }
    let mut series = DepthSeries { systems, metrics, rows, positives, agreement: None };
    let reference = match &task.against {
        Some(input) => {
            let opened = input.open()?;
            Some(read_wide_csv(opened.bytes(), opened.name())?)
        }
        None => None,
    };
    series.agreement =
        depth_agreement(&series, reference.as_ref()).map_err(|e| Error::invalid(format!("pool series: {e}")))?;
    Ok(series)
}

/// The labels of a depth series: the original split's text and the judged positives each
/// pool depth adds.
pub(super) struct DepthLabels {
    /// The test split as named.
    pub(super) test_name: String,
    /// Its text, ending with a newline.
    test_text: Vec<u8>,
    /// `head<TAB>relation<TAB>tail\n` of every pooled triple whose first judgment is Y and
    /// that the split lacks, with its smallest depth; judgment-file order.
    added: Vec<(u32, String)>,
    /// The deepest point D.
    pub(super) max: u32,
    /// The distinct depths 1..=D of the pool file's triples, ascending.
    present: Vec<u32>,
    /// Positives per depth.
    pub(super) positives: PoolSummary,
}

impl DepthLabels {
    pub(super) fn read(
        test: &Input,
        judged: &Input,
        depths: &Input,
        max_depth: Option<u32>,
        warnings: &mut Vec<Warning>,
    ) -> Result<Self, Error> {
        let opened = test.open()?;
        let test_name = opened.name().to_owned();
        let mut test_text = opened.bytes().to_vec();
        let mut vocabulary = KgcVocabulary::open();
        let test_file = read_triples(&test_text, &test_name, &mut vocabulary)?;
        let (judgments, pool) = read_labels(judged, depths, &mut vocabulary, warnings)?;
        let deepest = pool.iter().map(|p| p.depth).max().unwrap_or(0);
        if deepest == 0 {
            return Err(Error::invalid(format!(
                "{}: found no pooled triple of depth 1 or more, expected at least one (a series compares depths 0..=D)",
                depths.name()
            )));
        }
        let max = max_depth.unwrap_or(deepest);
        let positives =
            summarize_judgments(&judgments, &pool, max).map_err(|e| Error::invalid(format!("pool series: {e}")))?;
        let mut present: Vec<u32> = pool.iter().map(|p| p.depth).filter(|&d| d >= 1 && d <= max).collect();
        present.sort_unstable();
        present.dedup();
        let mut depth_of: HashMap<Triple, u32> = HashMap::new();
        for p in &pool {
            let d = depth_of.entry(p.triple).or_insert(p.depth);
            *d = (*d).min(p.depth);
        }
        let in_test: HashSet<Triple> = test_file.triples.iter().copied().collect();
        let mut first: HashSet<Triple> = HashSet::new();
        let mut added: Vec<(u32, String)> = Vec::new();
        for j in &judgments {
            if !first.insert(j.triple) || !j.relevant || in_test.contains(&j.triple) {
                continue;
            }
            if let Some(&d) = depth_of.get(&j.triple).filter(|&&d| d >= 1 && d <= max) {
                let t = j.triple;
                let (h, r, o) = (
                    vocabulary.entities.resolve(t.head),
                    vocabulary.relations.resolve(t.relation),
                    vocabulary.entities.resolve(t.tail),
                );
                added.push((d, format!("{h}\t{r}\t{o}\n")));
            }
        }
        if !test_text.is_empty() && !test_text.ends_with(b"\n") {
            test_text.push(b'\n');
        }
        Ok(DepthLabels { test_name, test_text, added, max, present, positives })
    }

    /// The depths a series evaluates, ascending: 0, every depth of the pool file up to D, and
    /// D; any other depth evaluates like the one before it.
    pub(super) fn evaluated_depths(&self) -> Vec<u32> {
        let mut depths = Vec::with_capacity(self.present.len() + 2);
        depths.push(0);
        depths.extend(self.present.iter().copied());
        depths.push(self.max);
        depths.dedup();
        depths
    }

    /// The test split of depth `depth`: the original text, then the positives up to it.
    pub(super) fn split(&self, depth: u32) -> Vec<u8> {
        let mut text = self.test_text.clone();
        for (_, line) in self.added.iter().filter(|(d, _)| *d <= depth) {
            text.extend_from_slice(line.as_bytes());
        }
        text
    }
}
