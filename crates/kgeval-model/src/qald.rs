//! Question answering over linked data (QALD): questions, typed answers, and the result types of
//! `kgeval qald`.
//!
//! Every QALD dialect (XML of QALD-1..7, JSON of QALD-5..10, the QALD-7 "extended" JSON) is
//! read into [`QaldDataset`]; gold and submissions share the type.

use std::fmt;

use indexmap::IndexMap;

use crate::align::PrfScores;
use crate::{Diagnostic, Location, ScoreTable};

/// One answer value, typed as the file gave it. Lexical forms are kept exactly as written
/// (normalisation is a metric's business, switchable step by step).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AnswerValue {
    /// An IRI (`<uri>`, a SPARQL-results `uri` binding).
    Iri(String),
    /// A literal, with its datatype IRI and language tag when given.
    Literal {
        /// The lexical form.
        lexical: String,
        /// The datatype IRI, if any.
        datatype: Option<String>,
        /// The language tag, if any.
        language: Option<String>,
    },
    /// A number (`<number>`, a `number` binding), lexical form as written (`+100`, `1.9812`).
    Number(String),
    /// A date (`<date>`), lexical form as written.
    Date(String),
    /// A boolean (`<boolean>`, an ASK result), lexical form as written (`True`, `true`).
    Boolean(String),
}

impl AnswerValue {
    /// A plain literal without datatype or language.
    #[must_use]
    pub fn plain(lexical: impl Into<String>) -> Self {
        AnswerValue::Literal { lexical: lexical.into(), datatype: None, language: None }
    }

    /// The lexical form (IRI text for IRIs).
    #[must_use]
    pub fn lexical(&self) -> &str {
        match self {
            AnswerValue::Iri(s) | AnswerValue::Number(s) | AnswerValue::Date(s) | AnswerValue::Boolean(s) => s,
            AnswerValue::Literal { lexical, .. } => lexical,
        }
    }
}

impl fmt::Display for AnswerValue {
    /// `<iri>`, `"lexical"@lang`, `"lexical"^^<datatype>`, or the bare number, date or boolean.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnswerValue::Iri(iri) => write!(f, "<{iri}>"),
            AnswerValue::Literal { lexical, datatype, language } => {
                write!(f, "{lexical:?}")?;
                if let Some(language) = language {
                    write!(f, "@{language}")?;
                } else if let Some(datatype) = datatype {
                    write!(f, "^^<{datatype}>")?;
                }
                Ok(())
            }
            AnswerValue::Number(s) | AnswerValue::Date(s) | AnswerValue::Boolean(s) => f.write_str(s),
        }
    }
}

/// One answer: a value and its aliases (QALD-2 `<uri>` + `<string>` pairs keep the URI as the
/// answer and the label as an alias; an alias can match a label answer of a system).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Answer {
    /// The value compared.
    pub value: AnswerValue,
    /// Other spellings (labels) of the same answer.
    pub aliases: Vec<String>,
}

impl Answer {
    /// An answer without aliases.
    #[must_use]
    pub fn new(value: AnswerValue) -> Self {
        Self { value, aliases: Vec::new() }
    }
}

/// What a question gives as its query.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum QaldQuery {
    /// No query (or an empty one).
    #[default]
    None,
    /// A SPARQL query.
    Sparql(String),
    /// A pseudo-query (hybrid QA: not executable).
    Pseudo(String),
    /// The query is `OUT OF SCOPE`: the question cannot be answered over the dataset.
    OutOfScope,
}

/// A string in one language (a question string or its keywords).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalizedText {
    /// The language tag (`en`, `pt_BR`, … as written; empty when the file gives none).
    pub language: String,
    /// The text, trimmed.
    pub text: String,
}

/// One QALD question, gold or submitted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Question {
    /// The id, as a string (JSON files give ints or strings).
    pub id: String,
    /// The answer type as written (`resource`, `number`, `num`, `list`, …), if any.
    pub answertype: Option<String>,
    /// Whether operations beyond triple patterns are needed, if given.
    pub aggregation: Option<bool>,
    /// Whether only the DBpedia ontology is used (`onlydbo`, also `onlyesdbp`), if given.
    pub onlydbo: Option<bool>,
    /// Whether the question is hybrid (needs free text), if given.
    pub hybrid: Option<bool>,
    /// Question strings per language.
    pub strings: Vec<LocalizedText>,
    /// Keywords per language.
    pub keywords: Vec<LocalizedText>,
    /// The query.
    pub query: QaldQuery,
    /// The answers; `None` when the question gives no answers at all (then a SPARQL query can
    /// be executed), `Some(empty)` for an explicitly empty answer set.
    pub answers: Option<Vec<Answer>>,
    /// Where the question starts.
    pub location: Location,
}

impl Question {
    /// The question string in `language`, or else the first non-empty one.
    #[must_use]
    pub fn text(&self, language: &str) -> Option<&str> {
        let non_empty = |t: &&LocalizedText| !t.text.is_empty();
        self.strings
            .iter()
            .filter(non_empty)
            .find(|t| t.language == language)
            .or_else(|| self.strings.iter().find(non_empty))
            .map(|t| t.text.as_str())
    }

    /// The answers, or the empty set when none are given.
    #[must_use]
    pub fn answer_slice(&self) -> &[Answer] {
        self.answers.as_deref().unwrap_or_default()
    }
}

/// A QALD file: the dataset id and its questions in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QaldDataset {
    /// `<dataset id>` / `dataset.id`, if given.
    pub id: Option<String>,
    /// The questions in file order (ids unique).
    pub questions: Vec<Question>,
}

/// A label map (IRI → labels), so that a label answer can match a URI gold offline.
pub type LabelMap = IndexMap<String, Vec<String>>;

/// What to do when the gold answer set is non-empty and the system's is empty: the one case
/// on which the QALD scorers disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum QaldRule {
    /// QALD-3 script, GERBIL plain macro: P = 0, R = 0, F = 0.
    #[default]
    Qald3,
    /// QALD-6 script: P = 1, R = 0, F = 0.
    Qald6,
    /// GERBIL "Macro F1 QALD": P = 1, R = 0, F = 0 (as QALD-6).
    Gerbil,
}

impl QaldRule {
    /// Every preset.
    pub const ALL: [QaldRule; 3] = [QaldRule::Qald3, QaldRule::Qald6, QaldRule::Gerbil];

    /// The preset's name (`qald3`, `qald6`, `gerbil`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            QaldRule::Qald3 => "qald3",
            QaldRule::Qald6 => "qald6",
            QaldRule::Gerbil => "gerbil",
        }
    }

    /// The preset named `name` (`gerbil-qald` is an alias of `gerbil`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "qald3" => Some(QaldRule::Qald3),
            "qald6" => Some(QaldRule::Qald6),
            "gerbil" | "gerbil-qald" => Some(QaldRule::Gerbil),
            _ => None,
        }
    }

    /// Precision given to a non-empty gold answered with the empty set.
    #[must_use]
    pub const fn empty_answer_precision(self) -> f64 {
        match self {
            QaldRule::Qald3 => 0.0,
            QaldRule::Qald6 | QaldRule::Gerbil => 1.0,
        }
    }
}

impl fmt::Display for QaldRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where the answers of questions given as SPARQL queries came from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum QueryExecution {
    /// Queries were not run (no data files, no endpoint): a query without answers scores as
    /// the empty set.
    #[default]
    NotExecuted,
    /// An embedded in-memory store loaded from RDF files.
    EmbeddedStore {
        /// The triples (quads) loaded.
        triples: usize,
    },
    /// A SPARQL 1.1 protocol endpoint.
    Endpoint {
        /// The endpoint URL.
        url: String,
    },
}

impl fmt::Display for QueryExecution {
    /// `not executed (no --data or --endpoint)`, `embedded store (19 triples)` or
    /// `endpoint URL`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryExecution::NotExecuted => f.write_str("not executed (no --data or --endpoint)"),
            QueryExecution::EmbeddedStore { triples } => write!(f, "embedded store ({triples} triples)"),
            QueryExecution::Endpoint { url } => write!(f, "endpoint {url}"),
        }
    }
}

/// `trim on, boolean-case on, …`: normalisation steps with their state, for result headers.
#[must_use]
pub fn describe_normalisation(steps: &[(&str, bool)]) -> String {
    let steps: Vec<String> =
        steps.iter().map(|(name, on)| format!("{name} {}", if *on { "on" } else { "off" })).collect();
    steps.join(", ")
}

/// The conventions of a QALD evaluation, as the engine and the facade decided them; the
/// report prints [`QaldConventions::entries`] in the text header and JSON `conventions`.
///
/// ```
/// use kgeval_model::qald::{QaldConventions, QaldRule, QueryExecution};
/// let c = QaldConventions {
///     rule: QaldRule::Qald6,
///     normalisation: vec![("trim", true), ("respect-literal-type", false)],
///     language: "en".into(),
///     label_map: Some(3),
///     queries: QueryExecution::EmbeddedStore { triples: 19 },
/// };
/// let entries = c.entries();
/// assert_eq!(entries[0], ("rule", "qald6".to_owned()));
/// assert!(entries.contains(&("normalisation", "trim on, respect-literal-type off".to_owned())));
/// assert!(entries.contains(&("label_map", "3 IRIs".to_owned())));
/// assert_eq!(entries.last(), Some(&("queries", "embedded store (19 triples)".to_owned())));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QaldConventions {
    /// The rule preset.
    pub rule: QaldRule,
    /// The normalisation steps in the order they apply, each on or off.
    pub normalisation: Vec<(&'static str, bool)>,
    /// The questions' language.
    pub language: String,
    /// The number of IRIs of the label map, if one was given.
    pub label_map: Option<usize>,
    /// Where the answers of query-only questions came from.
    pub queries: QueryExecution,
}

impl QaldConventions {
    /// Every convention in force as `(key, text)`, in output order.
    #[must_use]
    pub fn entries(&self) -> Vec<(&'static str, String)> {
        let empty = match self.rule {
            QaldRule::Qald3 => "gold non-empty, system empty: P 0, R 0, F 0",
            QaldRule::Qald6 | QaldRule::Gerbil => "gold non-empty, system empty: P 1, R 0, F 0",
        };
        vec![
            ("rule", self.rule.name().to_owned()),
            ("empty_answer", empty.to_owned()),
            ("out_of_scope", "gold empty: system empty 1/1/1, else 0/0/0".to_owned()),
            ("not_processed", "a gold question missing from the submission scores 0".to_owned()),
            ("aggregation", "global over all gold questions; local over processed ones".to_owned()),
            ("normalisation", describe_normalisation(&self.normalisation)),
            ("language", self.language.clone()),
            ("label_map", self.label_map.map_or_else(|| "none".to_owned(), |n| format!("{n} IRIs"))),
            ("queries", self.queries.to_string()),
        ]
    }
}

/// How the system treated one gold question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QuestionStatus {
    /// The submission gives a non-empty answer set.
    Answered,
    /// The submission has the question with an empty answer set.
    Empty,
    /// The question is missing from the submission.
    NotProcessed,
}

impl QuestionStatus {
    /// `answered`, `empty`, `not-processed`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            QuestionStatus::Answered => "answered",
            QuestionStatus::Empty => "empty",
            QuestionStatus::NotProcessed => "not-processed",
        }
    }
}

/// The score of one gold question.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionScore {
    /// The question id.
    pub id: String,
    /// Answered, empty or not processed.
    pub status: QuestionStatus,
    /// Whether the gold answer set is empty (out of scope).
    pub out_of_scope: bool,
    /// Precision, recall, F-measure under the rule used.
    pub scores: PrfScores,
    /// System answers in the gold set (after normalisation).
    pub true_positives: u64,
    /// System answers not in the gold set.
    pub false_positives: u64,
    /// Gold answers the system missed.
    pub false_negatives: u64,
}

/// Aggregates over a set of questions.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct QaldAggregate {
    /// Questions averaged over.
    pub questions: usize,
    /// Mean of per-question precision.
    pub macro_precision: f64,
    /// Mean of per-question recall.
    pub macro_recall: f64,
    /// Harmonic mean of macro P and macro R (QALD-3, GERBIL "Macro F1 QALD"); hm(0, 0) = 0.
    pub qald_f: f64,
    /// Mean of per-question F.
    pub mean_f: f64,
    /// Micro P/R/F from summed counts.
    pub micro: PrfScores,
    /// Summed true positives.
    pub true_positives: u64,
    /// Summed false positives.
    pub false_positives: u64,
    /// Summed false negatives.
    pub false_negatives: u64,
    /// Questions present in the submission.
    pub processed: usize,
    /// Questions with F = 1.
    pub right: usize,
    /// Questions with 0 < F < 1.
    pub partial: usize,
    /// Gold questions with an empty answer set.
    pub out_of_scope: usize,
}

/// A question the system did not get fully right, with both answer sets side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedQuestion {
    /// The question id.
    pub id: String,
    /// The question string (in the requested language when available).
    pub text: String,
    /// Precision, recall, F.
    pub scores: PrfScores,
    /// Gold answers as written.
    pub gold: Vec<String>,
    /// System answers as written (empty when not processed).
    pub system: Vec<String>,
    /// Whether the question is missing from the submission.
    pub not_processed: bool,
}

/// A breakdown: one grouping key (`answertype`, `aggregation`, `onlydbo`, `language`) and
/// the aggregate of each of its values, in first-seen order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QaldBreakdown {
    /// The grouping key.
    pub key: String,
    /// `(value, aggregate over the gold questions with that value)`.
    pub groups: Vec<(String, QaldAggregate)>,
}

/// The evaluation of one submission against one gold file.
#[derive(Debug, Clone, Default)]
pub struct QaldEvaluation {
    /// The system's name.
    pub system: String,
    /// The rule preset used.
    pub rule: QaldRule,
    /// Conventions used (rule, normalisation steps, language, queries …), printed in every
    /// output.
    pub conventions: QaldConventions,
    /// Per gold question, in gold order.
    pub questions: Vec<QuestionScore>,
    /// Over all gold questions.
    pub global: QaldAggregate,
    /// Over the questions present in the submission only.
    pub local: QaldAggregate,
    /// Breakdowns by answertype, aggregation, onlydbo and language (global).
    pub breakdowns: Vec<QaldBreakdown>,
    /// Questions with F < 1.
    pub failed: Vec<FailedQuestion>,
    /// Per-question precision, recall, f1 (items carry their grouping keys).
    pub score_table: ScoreTable,
    /// Reader and scoring warnings.
    pub warnings: Vec<Diagnostic>,
}
