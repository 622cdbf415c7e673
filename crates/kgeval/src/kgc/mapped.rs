//! KGC the PyKEEN way, all in memory: mapped triples (integer ids of `(head, relation,
//! tail)`), entity and relation counts or labels, and one block of head-prediction and one of
//! tail-prediction scores per test triple — no file, no question list. Every rank type
//! (optimistic, pessimistic, realistic) is evaluated from one ranking, under PyKEEN's
//! metric names ([`MappedEvaluation::pykeen_flat`]).

use kgeval_metrics::kgc::{evaluate_kgc, KgcData, KgcInput, KgcOptions, ScorePlan};
use kgeval_metrics::ranking::RowOptions;
use kgeval_model::kgc::conventions::{KgcSources, SystemSource};
use kgeval_model::kgc::results::KgcEvaluation;
use kgeval_model::kgc::{
    AnswerObservation, FilterScope, KgcVocabulary, KnownAnswers, Side, TestSet, Triple, TripleFile,
};
use kgeval_model::ranking::{NanPolicy, TiePolicy, Tolerance};
use kgeval_model::{Interner, TermId};
use rayon::prelude::*;

use super::memory::ScoreRows;
use crate::{Error, Evaluation};

/// PyKEEN's default Hits@k cut-offs (`RankBasedEvaluator`): 1, 3, 5 and 10.
pub const PYKEEN_KS: [u32; 4] = [1, 3, 5, 10];

/// PyKEEN's rank types, in its order, with the tie policy each is.
pub const RANK_TYPES: [(&str, TiePolicy); 3] = [
    ("optimistic", TiePolicy::Optimistic),
    ("pessimistic", TiePolicy::Pessimistic),
    ("realistic", TiePolicy::Realistic),
];

/// PyKEEN's `RankBasedEvaluator` names of the metrics kgeval computes besides `hits_at_{k}`,
/// with kgeval's names (the `micro_` values: one rank per test triple and side, fully
/// filtered, as PyKEEN's). The adjusted and z-scored ones exist for realistic ranks only (as
/// in PyKEEN, whose expectation-based metrics support only that rank type); PyKEEN's
/// `adjusted_hits_at_k` and `z_hits_at_k` are taken at k = 10, its default.
pub const PYKEEN_METRICS: [(&str, &str); 9] = [
    ("arithmetic_mean_rank", "micro_mr"),
    ("inverse_harmonic_mean_rank", "micro_mrr"),
    ("adjusted_arithmetic_mean_rank", "micro_amr"),
    ("adjusted_arithmetic_mean_rank_index", "micro_amri"),
    ("z_arithmetic_mean_rank", "micro_zmr"),
    ("adjusted_inverse_harmonic_mean_rank", "micro_amrr"),
    ("z_inverse_harmonic_mean_rank", "micro_zmrr"),
    ("adjusted_hits_at_k", "micro_ahits@10"),
    ("z_hits_at_k", "micro_zhits@10"),
];

/// A block of integer rows in memory (row-major), named as the caller's argument for
/// messages: mapped triples (`columns` = 3).
#[derive(Debug, Clone, Copy)]
pub struct IdRows<'a> {
    /// The argument's name (`test`, `filters[0]`).
    pub name: &'a str,
    /// The values, row-major.
    pub ids: &'a [i64],
    /// The number of rows and columns.
    pub shape: (usize, usize),
}

/// An in-memory KGC evaluation's options: the entity and relation labels (ids are their
/// indices), Hits@k cut-offs, NaN policy, score tolerance and the model's name.
#[derive(Debug, Clone)]
pub struct MappedKgc {
    /// Entity labels, by id (the score columns).
    pub entities: Vec<String>,
    /// Relation labels, by id.
    pub relations: Vec<String>,
    /// Hits@k cut-offs (default [`PYKEEN_KS`]).
    pub k: Vec<u32>,
    /// NaN scores: an error (default) or ranked worst.
    pub nan: NanPolicy,
    /// Scores tie within this tolerance; `None` (default): exact ties, as PyKEEN.
    pub tie_tolerance: Option<Tolerance>,
    /// The model's name (default `model`).
    pub name: String,
}

/// The evaluation of one model under every rank type, from one ranking.
#[derive(Debug, Clone)]
pub struct MappedEvaluation {
    /// `(rank type, evaluation)` in [`RANK_TYPES`] order.
    pub evaluations: Vec<(&'static str, Evaluation)>,
}

impl MappedKgc {
    /// Options for `entities` entities and `relations` relations labelled by their ids
    /// (`"0"`, `"1"` …), with the defaults.
    #[must_use]
    pub fn with_counts(entities: usize, relations: usize) -> Self {
        let labels = |n: usize| (0..n).map(|i| i.to_string()).collect();
        Self::defaults(labels(entities), labels(relations))
    }

    /// Options for labelled entities and relations (id = index), with the defaults; each
    /// label must be unique ([`evaluate`](Self::evaluate) checks).
    #[must_use]
    pub fn with_labels(entities: Vec<String>, relations: Vec<String>) -> Self {
        Self::defaults(entities, relations)
    }

    fn defaults(entities: Vec<String>, relations: Vec<String>) -> Self {
        MappedKgc {
            entities,
            relations,
            k: PYKEEN_KS.to_vec(),
            nan: NanPolicy::Error,
            tie_tolerance: None,
            name: "model".to_owned(),
        }
    }

    /// Evaluates one model: `head` and `tail` hold one row per test triple (its head and its
    /// tail prediction), one column per entity. Known answers of `filters` and the test
    /// triples (but the target) are removed from each ranking (PyKEEN's filtered setting).
    /// Test triples sharing a question (the same relation and tail for head prediction) are
    /// ranked in the first such triple's row.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the argument and its 0-based numpy index: a shape other
    /// than (n, 3) or (len(test), num_entities), an id out of range, a NaN score under the
    /// NaN policy `error`, k = 0, an empty test.
    pub fn evaluate(
        &self,
        test: IdRows<'_>,
        filters: &[IdRows<'_>],
        head: ScoreRows<'_>,
        tail: ScoreRows<'_>,
    ) -> Result<MappedEvaluation, Error> {
        if let Some(i) = self.k.iter().position(|&k| k == 0) {
            return Err(Error::invalid(format!("k[{i}]: found 0, expected positive cut-offs")));
        }
        let (entities, entity_ids) = interned("entity_labels", &self.entities)?;
        let (relations, relation_ids) = interned("relation_labels", &self.relations)?;
        let vocabulary = KgcVocabulary { entities, relations, closed_entities: true };
        let triples = |rows: IdRows<'_>| self.triples(rows, &entity_ids, &relation_ids);
        let test_file = triples(test)?;
        if test_file.triples.is_empty() {
            return Err(Error::invalid("test: found no triple, expected an (n, 3) array with n ≥ 1"));
        }
        let filter_files = filters.iter().map(|&f| triples(f)).collect::<Result<Vec<_>, _>>()?;
        let test_set = TestSet::new(test_file);
        let questions = &test_set.questions;
        let known_filters = KnownAnswers::of_questions(questions, filter_files.iter().flat_map(|f| &f.triples));
        let known = known_filters.with_answers_of(questions);
        let data = KgcData { vocabulary: &vocabulary, test: &test_set, filters: &known_filters, known: &known };
        let options = RowOptions { tolerance: self.tie_tolerance, nan: self.nan };
        let mut observations = self.observe(&data, Side::Head, "head_scores", head, options)?;
        observations.extend(self.observe(&data, Side::Tail, "tail_scores", tail, options)?);
        let sources = KgcSources {
            test: format!("{} (in memory, {} triples)", test.name, test.shape.0),
            filters: filters.iter().map(|f| format!("{} (in memory, {} triples)", f.name, f.shape.0)).collect(),
            entity_list: Some(("entity ids".to_owned(), self.entities.len())),
            system: SystemSource::Scores {
                file: "head_scores, tail_scores (in memory)".to_owned(),
                rows: "one row per test triple".to_owned(),
                tolerance: self.tie_tolerance,
                nan: self.nan,
            },
            judgments: None,
        };
        let input = KgcInput { observations: &observations, scope: FilterScope::Known, ir_run: None, ir_qrels: None };
        let evaluations = RANK_TYPES
            .iter()
            .map(|&(rank_type, ties)| {
                let options = KgcOptions { ties, ks: self.k.clone(), per_item: false, ..KgcOptions::default() };
                let mut evaluation: KgcEvaluation = evaluate_kgc(&data, &input, &options, &self.name)
                    .map_err(|e| Error::invalid(format!("{}: {e}", self.name)))?;
                evaluation.conventions.sources = sources.clone();
                Ok((rank_type, super::envelope(vec![evaluation])?))
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(MappedEvaluation { evaluations })
    }

    /// The triples of an `(n, 3)` id block, every id checked against the label counts.
    fn triples(&self, rows: IdRows<'_>, entities: &[TermId], relations: &[TermId]) -> Result<TripleFile, Error> {
        let (n, columns) = rows.shape;
        if columns != 3 || rows.ids.len() != n * columns {
            return Err(Error::invalid(format!(
                "{}: found shape ({n}, {columns}), expected (n, 3): one (head, relation, tail) id triple per row",
                rows.name
            )));
        }
        let id = |i: usize, j: usize, of: &[TermId], what: &str, count: &str| -> Result<TermId, Error> {
            let value = rows.ids[i * 3 + j];
            usize::try_from(value).ok().and_then(|v| of.get(v).copied()).ok_or_else(|| {
                let range = match of.len() {
                    0 => "none".to_owned(),
                    n => format!("0 to {}", n - 1),
                };
                Error::invalid(format!(
                    "{}[{i}, {j}]: found {what} id {value}, expected {range} ({count} = {})",
                    rows.name,
                    of.len()
                ))
            })
        };
        let mut file = TripleFile { name: rows.name.to_owned(), triples: Vec::with_capacity(n), lines: Vec::new() };
        for i in 0..n {
            let triple = Triple {
                head: id(i, 0, entities, "entity", "num_entities")?,
                relation: id(i, 1, relations, "relation", "num_relations")?,
                tail: id(i, 2, entities, "entity", "num_entities")?,
            };
            file.triples.push(triple);
            file.lines.push(u32::try_from(i + 1).unwrap_or(u32::MAX));
        }
        Ok(file)
    }

    /// The observations of one side's block: row `i` asks test triple `i`'s question.
    fn observe(
        &self,
        data: &KgcData<'_>,
        side: Side,
        what: &str,
        scores: ScoreRows<'_>,
        options: RowOptions,
    ) -> Result<Vec<AnswerObservation>, Error> {
        let triples = &data.test.file.triples;
        let expected = (triples.len(), self.entities.len());
        if (scores.rows(), scores.columns()) != expected {
            return Err(Error::invalid(format!(
                "{what}: found shape ({}, {}), expected ({}, {}): one row per test triple, one column per entity",
                scores.rows(),
                scores.columns(),
                expected.0,
                expected.1
            )));
        }
        let keys: Vec<_> = triples.iter().map(|&t| Some(side.question_of(t).0)).collect();
        let plan = ScorePlan::new(data, &keys);
        let ranked: Vec<_> = (0..keys.len())
            .into_par_iter()
            .map(|row| plan.observe(row, &scores.row(row), options).map_err(|nan| (row, nan.column)))
            .collect();
        let mut observations = Vec::with_capacity(triples.len());
        for result in ranked {
            match result {
                Ok(row) => observations.extend(row),
                Err((row, column)) => {
                    return Err(Error::invalid(format!(
                        "{what}[{row}, {column}]: found NaN, expected a number (or nan=\"worst\": NaN ranked below every score)"
                    )))
                }
            }
        }
        Ok(observations)
    }
}

/// The labels interned in order (id = index).
///
/// # Errors
/// [`Error::Invalid`] for a label given twice (`entity_labels[3]: found "x" again …`).
fn interned(what: &str, labels: &[String]) -> Result<(Interner, Vec<TermId>), Error> {
    let mut interner = Interner::new();
    let mut ids = Vec::with_capacity(labels.len());
    for (i, label) in labels.iter().enumerate() {
        if let Some(first) = interner.get(label) {
            return Err(Error::invalid(format!(
                "{what}[{i}]: found {} again (first at [{}]), expected unique labels",
                kgeval_formats::echo(label),
                first.index()
            )));
        }
        ids.push(interner.intern(label));
    }
    Ok((interner, ids))
}

impl MappedEvaluation {
    /// PyKEEN's flat `RankBasedMetricResults` keys and values (`both.realistic.hits_at_10`),
    /// sides `both`, `head`, `tail` and rank types `optimistic`, `pessimistic`,
    /// `realistic`: `hits_at_{k}` for every k, then [`PYKEEN_METRICS`] (adjusted and
    /// z-scored ones under `realistic` only).
    #[must_use]
    pub fn pykeen_flat(&self) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        for (rank_type, evaluation) in &self.evaluations {
            let crate::FamilyResult::Kgc(results) = &evaluation.result else { continue };
            let Some(result) = results.first() else { continue };
            for (side, values) in result.scope_values() {
                let value = |name: &str| values.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
                for k in &result.ks {
                    if let Some(v) = value(&format!("micro_hits@{k}")) {
                        out.push((format!("{side}.{rank_type}.hits_at_{k}"), v));
                    }
                }
                for (theirs, ours) in PYKEEN_METRICS {
                    let expectation_based = !matches!(theirs, "arithmetic_mean_rank" | "inverse_harmonic_mean_rank");
                    if expectation_based && *rank_type != "realistic" {
                        continue;
                    }
                    if let Some(v) = value(ours) {
                        out.push((format!("{side}.{rank_type}.{theirs}"), v));
                    }
                }
            }
        }
        out
    }

    /// The evaluation under one rank type (`optimistic`, `pessimistic`, `realistic`).
    #[must_use]
    pub fn rank_type(&self, name: &str) -> Option<&Evaluation> {
        self.evaluations.iter().find(|(n, _)| *n == name).map(|(_, e)| e)
    }
}
