//! The manifest form of an [`AlignTask`]: a track file (`[[pair]]` tables) or one pair at the
//! top level; `mode` is the old name of `completeness`.

use kgeval_formats::align::AlignmentFormat;
use kgeval_formats::Input;
use kgeval_model::align::{AlignmentProfile, CompletenessMode};
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::{AlignPair, AlignTask};
use crate::inputs::by_name;
use crate::SystemInput;

/// The fields of a manifest, before the checks of [`AlignTask::try_from`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AlignTaskSpec {
    #[serde(default, rename = "pair", alias = "pairs")]
    pairs: Vec<PairSpec>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    reference: Option<Input>,
    #[serde(default)]
    secondary: Option<Input>,
    #[serde(default, alias = "exclude")]
    exclusion: Option<Input>,
    #[serde(default)]
    onto1: Option<Input>,
    #[serde(default)]
    onto2: Option<Input>,
    #[serde(default)]
    baseline: Option<Input>,
    #[serde(default, alias = "system", deserialize_with = "systems")]
    systems: Vec<SystemInput>,
    #[serde(default, deserialize_with = "profile")]
    profile: Option<AlignmentProfile>,
    #[serde(default, alias = "mode", deserialize_with = "completeness")]
    completeness: Option<CompletenessMode>,
    #[serde(default)]
    threshold: Option<f64>,
    #[serde(default)]
    beta: Option<f64>,
    #[serde(default)]
    best_threshold: bool,
    #[serde(default)]
    macro_harmonic: bool,
    #[serde(default)]
    expected_pairs: Option<usize>,
    #[serde(default, deserialize_with = "input_format")]
    input_format: Option<AlignmentFormat>,
    #[serde(default)]
    repair_xml: bool,
    #[serde(default)]
    skip_edoal: bool,
    #[serde(default)]
    melt_relations: bool,
    #[serde(default)]
    collect_labels: bool,
}

/// One `[[pair]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PairSpec {
    name: String,
    #[serde(default)]
    track: Option<String>,
    reference: Input,
    #[serde(default)]
    secondary: Option<Input>,
    #[serde(default, alias = "exclude")]
    exclusion: Option<Input>,
    #[serde(default)]
    onto1: Option<Input>,
    #[serde(default)]
    onto2: Option<Input>,
    #[serde(default)]
    baseline: Option<Input>,
    #[serde(default, alias = "system", deserialize_with = "systems")]
    systems: Vec<SystemInput>,
}

/// The optional inputs of a pair.
struct PairRest {
    secondary: Option<Input>,
    exclusion: Option<Input>,
    onto1: Option<Input>,
    onto2: Option<Input>,
    baseline: Option<Input>,
    systems: Vec<SystemInput>,
}

impl PairRest {
    fn into_pair(self, name: Option<String>, track: Option<String>, reference: Input) -> Result<AlignPair, String> {
        let mut pair = AlignPair::new(reference);
        if let Some(name) = name {
            pair.name = name;
        }
        if self.systems.is_empty() {
            return Err(format!(
                "pair {:?} names no system (give `system = \"PATH\"`, `systems = [\"NAME=PATH\", …]` or a [pair.systems] table)",
                pair.name
            ));
        }
        pair.ontologies = match (self.onto1, self.onto2) {
            (Some(a), Some(b)) => Some((a, b)),
            (None, None) => None,
            _ => return Err(format!("pair {:?}: expected onto1 and onto2 together, found one", pair.name)),
        };
        pair.track = track;
        pair.secondary = self.secondary;
        pair.exclusion = self.exclusion;
        pair.baseline = self.baseline;
        pair.systems = self.systems;
        Ok(pair)
    }
}

impl TryFrom<AlignTaskSpec> for AlignTask {
    type Error = String;

    fn try_from(spec: AlignTaskSpec) -> Result<Self, String> {
        let top = PairRest {
            secondary: spec.secondary,
            exclusion: spec.exclusion,
            onto1: spec.onto1,
            onto2: spec.onto2,
            baseline: spec.baseline,
            systems: spec.systems,
        };
        let top_given = spec.name.is_some()
            || top.secondary.is_some()
            || top.exclusion.is_some()
            || top.onto1.is_some()
            || top.onto2.is_some()
            || top.baseline.is_some()
            || !top.systems.is_empty();
        let pairs = match (spec.reference, spec.pairs.is_empty()) {
            (Some(_), false) => {
                return Err("found a top-level reference and [[pair]] tables, expected one or the other".to_owned());
            }
            (Some(reference), true) => vec![top.into_pair(spec.name, None, reference)?],
            (None, true) => {
                return Err("expected a reference (one pair) or at least one [[pair]] table, found neither".to_owned());
            }
            (None, false) if top_given => {
                return Err("found pair fields (system, secondary, …) at the top level beside [[pair]] tables, expected them inside each [[pair]]".to_owned());
            }
            (None, false) => spec
                .pairs
                .into_iter()
                .map(|p| {
                    let rest = PairRest {
                        secondary: p.secondary,
                        exclusion: p.exclusion,
                        onto1: p.onto1,
                        onto2: p.onto2,
                        baseline: p.baseline,
                        systems: p.systems,
                    };
                    rest.into_pair(Some(p.name), p.track, p.reference)
                })
                .collect::<Result<_, _>>()?,
        };
        let mut task = AlignTask::new(pairs);
        task.profile = spec.profile.unwrap_or_default();
        task.completeness = spec.completeness;
        task.threshold = spec.threshold;
        task.beta = spec.beta.unwrap_or(1.0);
        task.best_threshold = spec.best_threshold;
        task.macro_harmonic = spec.macro_harmonic;
        task.expected_pairs = spec.expected_pairs;
        task.input_format = spec.input_format;
        task.repair_xml = spec.repair_xml;
        task.skip_edoal = spec.skip_edoal;
        task.melt_relations = spec.melt_relations;
        task.collect_labels = spec.collect_labels;
        Ok(task)
    }
}

fn profile<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<AlignmentProfile>, D::Error> {
    by_name(deserializer, AlignmentProfile::from_name, "melt, alignapi, oaei-seals, ontoaligner or diso").map(Some)
}

fn completeness<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<CompletenessMode>, D::Error> {
    by_name(
        deserializer,
        CompletenessMode::from_name,
        "complete, partial, partial-source, partial-target or partial-none",
    )
    .map(Some)
}

fn input_format<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<AlignmentFormat>, D::Error> {
    by_name(deserializer, AlignmentFormat::from_name, "rdfxml, turtle, ntriples, tsv, csv or sssom").map(Some)
}

/// `"PATH"` or `"NAME=PATH"`, a list of those (or of `{name, path}` tables), or a table of
/// `NAME = "PATH"` in file order.
fn systems<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<SystemInput>, D::Error> {
    struct Systems;
    impl<'de> Visitor<'de> for Systems {
        type Value = Vec<SystemInput>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a system as \"PATH\" or \"NAME=PATH\", a list of them, or a table of NAME = \"PATH\"")
        }

        fn visit_str<E: serde::de::Error>(self, spec: &str) -> Result<Self::Value, E> {
            Ok(vec![SystemInput::parse(spec)])
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(system) = seq.next_element::<SystemInput>()? {
                out.push(system);
            }
            Ok(out)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((name, input)) = map.next_entry::<String, Input>()? {
                out.push(SystemInput::named(name, input));
            }
            Ok(out)
        }
    }
    deserializer.deserialize_any(Systems)
}
