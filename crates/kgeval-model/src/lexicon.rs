//! lemon / OntoLex-Lemon lexicons (ontology lexicalization, QALD-3 Task 2) and the result types
//! of their evaluation.
//!
//! The reader (`kgeval-formats`) turns any lemon vocabulary variant into these values: IRIs stay
//! strings (a lexicon has a few hundred entries; nothing here is hot), role and part-of-speech
//! names are LexInfo local names, and semantic mappings are kept as the argument nodes the
//! senses name, so that the metrics can follow shared argument nodes.

use std::fmt;

use crate::align::{ConfusionCounts, PrfScores};
use crate::{Diagnostic, ScoreTable};

/// Whether a URI of the gold list is a class or a property (the two blocks of the QALD-3 list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UriKind {
    /// A class: scored on the frame only.
    Class,
    /// A property: frame, syntactic arguments and their mapping.
    Property,
}

impl UriKind {
    /// `class` or `property`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            UriKind::Class => "class",
            UriKind::Property => "property",
        }
    }
}

impl fmt::Display for UriKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One URI of a gold list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedUri {
    /// The class or property IRI.
    pub uri: String,
    /// Its block in the list.
    pub kind: UriKind,
}

/// The URIs to score, in list order (QALD-3: classes, a blank line, properties).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UriList {
    /// The URIs, classes first as listed.
    pub uris: Vec<ListedUri>,
}

impl UriList {
    /// The kind of `uri`, if listed.
    #[must_use]
    pub fn kind_of(&self, uri: &str) -> Option<UriKind> {
        self.uris.iter().find(|u| u.uri == uri).map(|u| u.kind)
    }
}

/// A syntactic argument of a frame: its role (a LexInfo local name such as `subject`,
/// `copulativeArg`, `prepositionalObject`; ISOcat data categories are translated) and the node
/// that the senses use to map it to the property's subject or object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntacticArgument {
    /// The role's local name.
    pub role: String,
    /// The argument node (an IRI, or `_:label` for a blank node).
    pub node: String,
    /// The written form of the argument's marker (preposition), when it has one.
    pub marker: Option<String>,
}

/// A subcategorization frame (`lemon:synBehavior`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Frame {
    /// The frame class IRI (`rdf:type` of the frame node), e.g. LexInfo `TransitiveFrame`.
    pub frame_type: Option<String>,
    /// The syntactic arguments, in document order.
    pub arguments: Vec<SyntacticArgument>,
}

/// A sense: the ontology references it lexicalizes and the argument nodes it maps to the
/// property's subject (`subjOfProp`) and object (`objOfProp`). Subsenses (`lemon:subsense`,
/// `synsem:submap`) are flattened into senses of their own with `subsense` set.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sense {
    /// The referenced class or property IRIs.
    pub references: Vec<String>,
    /// Nodes named by `subjOfProp`.
    pub subject_nodes: Vec<String>,
    /// Nodes named by `objOfProp`.
    pub object_nodes: Vec<String>,
    /// Whether this sense is a subsense of another sense of the entry.
    pub subsense: bool,
    /// The number of other triples on the sense node (`propertyDomain`, `subsense`, `rdf:type`,
    /// …): the original QALD-3 script counts each of them as an object argument.
    pub other_properties: usize,
}

/// A lexical entry as read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LexicalEntry {
    /// The entry node (IRI, or `_:label`).
    pub node: String,
    /// The canonical form's written representation, as written.
    pub written_rep: Option<String>,
    /// The part of speech: LexInfo local name (`noun`, `verb`, `adjective`, …).
    pub part_of_speech: Option<String>,
    /// The senses (subsenses flattened after their parent).
    pub senses: Vec<Sense>,
    /// The frames.
    pub frames: Vec<Frame>,
    /// The 1-based line where the entry's node first occurs (0 when unknown).
    pub line: u32,
}

impl LexicalEntry {
    /// Every reference of every sense, without repetition, in order.
    #[must_use]
    pub fn references(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for reference in self.senses.iter().flat_map(|s| &s.references) {
            if !out.contains(&reference.as_str()) {
                out.push(reference);
            }
        }
        out
    }
}

/// A lexicon: its entries in `lemon:entry` order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lexicon {
    /// The entries.
    pub entries: Vec<LexicalEntry>,
}

/// Which conventions score a lexicon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LexiconMode {
    /// The published QALD-3 Task 2 formulas (spec `lexicon.md`).
    #[default]
    Paper,
    /// The original QALD-3 evaluation script's behaviour, quirks included (docs/lexicon.md).
    Qald3Script,
}

impl LexiconMode {
    /// `paper` or `qald3-script`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            LexiconMode::Paper => "paper",
            LexiconMode::Qald3Script => "qald3-script",
        }
    }

    /// The mode named `name` (`paper`, `qald3-script`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        [LexiconMode::Paper, LexiconMode::Qald3Script].into_iter().find(|m| m.name() == name)
    }
}

impl fmt::Display for LexiconMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Paper mode: argument roles judged as subjects.
pub const SUBJECT_ROLES: [&str; 4] = ["subject", "copulativeArg", "copulativeSubject", "attributiveArg"];
/// Paper mode: argument roles judged as objects.
pub const OBJECT_ROLES: [&str; 5] =
    ["directObject", "indirectObject", "prepositionalObject", "prepositionalAdjunct", "possessiveAdjunct"];
/// `qald3-script` mode (S1): every average is a sum divided by this constant
/// (`Laenge_Goldstandard = 40`), whatever the number of URIs.
pub const SCRIPT_DENOMINATOR: f64 = 40.0;

/// The conventions of a lexicon evaluation, decided by the engine and rendered by the report
/// (text header, JSON `conventions`).
///
/// ```
/// use kgeval_model::lexicon::{LexiconConventions, LexiconMode};
/// let c = LexiconConventions { mode: LexiconMode::Paper, listed_uris: 40 };
/// let entries = c.entries();
/// assert_eq!(entries[0], ("mode", "paper".to_owned()));
/// assert!(entries.iter().any(|(k, v)| *k == "average" && v.contains("the 40 listed URIs")));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LexiconConventions {
    /// Paper formulas or the original script.
    pub mode: LexiconMode,
    /// The number of URIs in the gold list (the paper mode's denominator).
    pub listed_uris: usize,
}

impl LexiconConventions {
    /// Every convention in force as `(key, text)`, in output order.
    #[must_use]
    pub fn entries(&self) -> Vec<(&'static str, String)> {
        let listed = self.listed_uris;
        match self.mode {
            LexiconMode::Paper => vec![
                ("mode", "paper".into()),
                ("entry_key", "(lemma lower-cased with whitespace collapsed, LexInfo POS, reference)".into()),
                ("zero_division", "no entry on either side: P = R = F = A = 1; one side empty: 0".into()),
                (
                    "accuracy",
                    "properties: (frameEq + role overlap / |gold args| + correct mappings / |args|) / 3; classes: frameEq; several frames: mean over submitted frames of the best gold frame".into(),
                ),
                (
                    "mapping_classes",
                    format!("subject: {}; object: {}; other roles by name", SUBJECT_ROLES.join(", "), OBJECT_ROLES.join(", ")),
                ),
                ("average", format!("mean over the {listed} listed URIs (unmentioned URIs count 0)")),
                ("micro", "pooled matched / submitted / gold entries over the listed URIs".into()),
            ],
            LexiconMode::Qald3Script => vec![
                ("mode", "qald3-script".into()),
                ("entry_key", "(canonical form lower-cased with spaces removed, POS, any shared reference)".into()),
                ("zero_division", "0 when nothing matches; P, R, F rounded to 5 decimals".into()),
                (
                    "accuracy",
                    "properties: (frame point + mapping-fingerprint point + role point) / 3, integer division; classes: frame point, not divided".into(),
                ),
                ("average", format!("sum over the URIs the system mentions / {SCRIPT_DENOMINATOR}")),
                ("micro", "pooled script counts over the listed URIs".into()),
            ],
        }
    }
}

/// The lexical accuracy of one matched (submitted, gold) entry pair.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EntryAccuracy {
    /// The matched lexicalization, shown as `lemma (pos)`.
    pub entry: String,
    /// frameEq: 1 when the frames agree, else 0.
    pub frame: f64,
    /// |args(sub) ∩ args(gold)| / |args(gold)| (`None` for classes). In `qald3-script` mode the
    /// script's role point (0 or 1).
    pub arguments: Option<f64>,
    /// Σ map(a) / |args(sub)| (`None` for classes). In `qald3-script` mode the script's
    /// mapping-fingerprint point.
    pub mapping: Option<f64>,
    /// The sum of the components (0..3 for properties, 0..1 for classes).
    pub raw: f64,
    /// The reported accuracy in [0, 1].
    pub accuracy: f64,
}

impl EntryAccuracy {
    /// A class entry: the frame component only, not divided.
    #[must_use]
    pub fn class(frame: f64) -> Self {
        Self { entry: String::new(), frame, arguments: None, mapping: None, raw: frame, accuracy: frame }
    }

    /// A property entry: the three components, their raw sum and the sum divided by 3.
    #[must_use]
    pub fn property(frame: f64, arguments: f64, mapping: f64) -> Self {
        let raw = frame + arguments + mapping;
        Self {
            entry: String::new(),
            frame,
            arguments: Some(arguments),
            mapping: Some(mapping),
            raw,
            accuracy: raw / 3.0,
        }
    }
}

/// The evaluation of one URI.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UriEvaluation {
    /// The class or property IRI.
    pub uri: String,
    /// Class or property (`None` for a URI the system mentions that the list does not have,
    /// scored only in `qald3-script` mode).
    pub kind: Option<UriKind>,
    /// Gold entries for this URI (`lemma (pos)`), in gold order.
    pub gold: Vec<String>,
    /// Submitted entries found in the gold.
    pub matched: Vec<String>,
    /// Gold entries the system missed.
    pub missing: Vec<String>,
    /// Submitted entries not in the gold.
    pub extra: Vec<String>,
    /// Lexical precision, recall, F.
    pub scores: PrfScores,
    /// A_lex: mean accuracy over the matched entries (0 when none).
    pub accuracy: f64,
    /// The mean raw accuracy sum over the matched entries.
    pub accuracy_raw: f64,
    /// The per-entry accuracy components.
    pub entries: Vec<EntryAccuracy>,
}

impl UriEvaluation {
    /// The mean of one accuracy component over the matched entries (`None` when no entry has it).
    #[must_use]
    pub fn mean_component(&self, component: impl Fn(&EntryAccuracy) -> Option<f64>) -> Option<f64> {
        let values: Vec<f64> = self.entries.iter().filter_map(component).collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    }
}

/// The whole evaluation of one submitted lexicon.
#[derive(Debug, Clone, Default)]
pub struct LexiconEvaluation {
    /// The system's name.
    pub system: String,
    /// The mode used.
    pub mode: LexiconMode,
    /// Every convention in force.
    pub conventions: LexiconConventions,
    /// One row per gold-list URI, in list order (then, in `qald3-script` mode, the unlisted
    /// URIs the system mentions).
    pub uris: Vec<UriEvaluation>,
    /// Averages of per-URI precision, recall and F (the paper's macro averages).
    pub average: PrfScores,
    /// Average of per-URI A_lex.
    pub average_accuracy: f64,
    /// Average of per-URI raw accuracy sums.
    pub average_accuracy_raw: f64,
    /// Micro entry-level scores over the listed URIs: pooled matched / submitted / gold counts.
    pub micro: PrfScores,
    /// The pooled counts behind `micro` (tp = matched, fp = extra, fn = missing).
    pub micro_counts: ConfusionCounts,
    /// Warnings of the readers and the scoring.
    pub warnings: Vec<Diagnostic>,
    /// Per-URI values (system × URI × metric), items grouped by `kind`.
    pub score_table: ScoreTable,
}
