//! The conventions of one KGC evaluation, typed: what was read (the sources, filled by the
//! facade) and what the engine decided (tie policy, scopes, IR list, weights, categories).
//! `kgeval-report` renders [`KgcConventions::entries`].

use super::{CategoryRule, FilterScope};
use crate::ranking::{NanPolicy, TiePolicy, Tolerance};

/// The system's input, as named by the user.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum SystemSource {
    /// Not described (an evaluation run on observations directly).
    #[default]
    Unknown,
    /// A rank file and the filter scope its `# filter:` line names.
    Ranks {
        /// The file.
        file: String,
        /// The `# filter:` names (`train valid test`).
        filter: Vec<String>,
    },
    /// A dense score matrix with its row questions.
    Scores {
        /// The `.npy` file.
        file: String,
        /// The question list of the rows.
        rows: String,
        /// Scores tie within this tolerance; `None`: exact ties.
        tolerance: Option<Tolerance>,
        /// What a NaN score is.
        nan: NanPolicy,
    },
    /// A TREC run with its question list.
    Run {
        /// The run file.
        file: String,
        /// The question list of the run's qids.
        questions: String,
    },
}

/// Judgments used as the qrels of the IR measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgmentsSource {
    /// The judgments file.
    pub file: String,
    /// Only the judgments of pooled triples up to this depth (`--max-depth`).
    pub max_depth: Option<u32>,
}

/// The files of one evaluation, as named by the user.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KgcSources {
    /// The evaluated split.
    pub test: String,
    /// The filter files (train, valid).
    pub filters: Vec<String>,
    /// The entity list and its entity count; `None`: the entities of the triple files.
    pub entity_list: Option<(String, usize)>,
    /// The system's input.
    pub system: SystemSource,
    /// Judgments as qrels, when given.
    pub judgments: Option<JudgmentsSource>,
}

/// Where the relation weights of the weighted micro metrics come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelationWeightSource {
    /// Weight 1 for every relation of the test split.
    Uniform,
    /// The number of triples per relation in a triple file.
    Triples(String),
    /// A `relation<TAB>weight` file.
    File(String),
}

/// Every convention of one KGC evaluation.
///
/// ```
/// use kgeval_model::kgc::conventions::{KgcConventions, KgcSources, SystemSource};
/// let conventions = KgcConventions {
///     sources: KgcSources {
///         test: "test.txt".into(),
///         system: SystemSource::Run { file: "run.txt".into(), questions: "questions.txt".into() },
///         ..KgcSources::default()
///     },
///     ..KgcConventions::default()
/// };
/// let entries = conventions.entries();
/// assert_eq!(entries[0], ("test", "test.txt".to_owned()));
/// assert_eq!(entries[1], ("filters", "none".to_owned()));
/// assert!(entries.iter().any(|(k, _)| *k == "run_order"));
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KgcConventions {
    /// The files read.
    pub sources: KgcSources,
    /// The rank inside a score tie.
    pub tie_policy: TiePolicy,
    /// Entities (candidates before filtering).
    pub entities: usize,
    /// (test triple, side) pairs of the micro metrics.
    pub micro_pairs: usize,
    /// Aggregated questions of the macro metrics.
    pub macro_questions: usize,
    /// The scope the system's ranks were observed in.
    pub observed_scope: FilterScope,
    /// The macro IR list is the system's own run (else derived from the ranks).
    pub ir_list_from_run: bool,
    /// The IR measures' qrels are judgments (else the test answers).
    pub ir_qrels_from_judgments: bool,
    /// The weights of the weighted micro metrics, when given.
    pub relation_weights: Option<RelationWeightSource>,
    /// The relation category rule, when categories were counted.
    pub relation_categories: Option<CategoryRule>,
}

impl KgcConventions {
    /// Every convention in force as `(key, text)`, in output order; keys are snake_case
    /// (`entity_list`, `score_ties`, `nan_scores`, `run_order`, `tie_policy` …).
    #[must_use]
    pub fn entries(&self) -> Vec<(&'static str, String)> {
        let s = &self.sources;
        let filters = if s.filters.is_empty() { "none".to_owned() } else { s.filters.join(", ") };
        let entity_list = match &s.entity_list {
            Some((file, count)) => format!("{file} ({count} entities)"),
            None => "the entities of the triple files".to_owned(),
        };
        let mut entries = vec![("test", s.test.clone()), ("filters", filters), ("entity_list", entity_list)];
        match &s.system {
            SystemSource::Unknown => {}
            SystemSource::Ranks { file, filter } => {
                entries.push(("input", format!("ranks {file} (filter: {})", filter.join(" "))));
            }
            SystemSource::Scores { file, rows, tolerance, nan } => {
                entries.push(("input", format!("scores {file} (rows: {rows})")));
                let ties = tolerance.map_or_else(
                    || "exact".to_owned(),
                    |t| format!("isclose: |s - t| <= {} + {} * |t|", t.atol, t.rtol),
                );
                entries.push(("score_ties", ties));
                entries.push(("nan_scores", nan.name().to_owned()));
            }
            SystemSource::Run { file, questions } => {
                entries.push(("input", format!("run {file} (questions: {questions})")));
                entries.push(("run_order", "trec_eval: score descending, then docno descending".to_owned()));
            }
        }
        if let Some(j) = &s.judgments {
            let depth = j.max_depth.map_or_else(String::new, |d| format!(", pooled triples up to depth {d}"));
            entries.push(("judgments", format!("{}{depth}", j.file)));
        }
        entries.push(("tie_policy", self.tie_policy.name().to_owned()));
        entries.push(("entities", self.entities.to_string()));
        entries.push(("micro_pairs", self.micro_pairs.to_string()));
        entries.push(("macro_questions", self.macro_questions.to_string()));
        entries.push((
            "observed_ranks",
            match self.observed_scope {
                FilterScope::Known => "fully filtered",
                FilterScope::Filters => "filtered by the filter files only; moved to fully filtered",
            }
            .to_owned(),
        ));
        entries.push((
            "macro_ir_list",
            if self.ir_list_from_run {
                "the system's run without the filter files' answers (trec_eval order)"
            } else {
                "answers sorted by fully filtered rank r, the j-th at ceil(r) + j"
            }
            .to_owned(),
        ));
        if self.ir_qrels_from_judgments {
            entries.push(("ir_qrels", "judgments (judged negatives kept)".to_owned()));
        }
        if let Some(weights) = &self.relation_weights {
            entries.push((
                "relation_weights",
                match weights {
                    RelationWeightSource::Uniform => "uniform over the test relations".to_owned(),
                    RelationWeightSource::Triples(file) => format!("triples per relation in {file}"),
                    RelationWeightSource::File(file) => format!("file {file}"),
                },
            ));
        }
        if let Some(rule) = &self.relation_categories {
            entries.push(("relation_categories", rule.describe()));
        }
        entries
    }
}
