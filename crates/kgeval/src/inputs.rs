//! System inputs named `NAME=PATH` or `PATH` (named by a unique file stem), the same in every
//! family.

use std::collections::HashMap;
use std::path::Path;

use kgeval_formats::Input;
use serde::Deserialize;

use crate::Error;

/// A system's input with an optional name (default: its file stem, made unique by
/// [`system_names`]).
///
/// Deserialises from `"NAME=PATH"`, `"PATH"` or a table `{ name = "…", path = "…" }`.
///
/// ```
/// use kgeval::SystemInput;
/// let a = SystemInput::parse("AML=runs/aml.rdf");
/// assert_eq!((a.name.as_deref(), a.input.name()), (Some("AML"), "runs/aml.rdf".to_owned()));
/// let b = SystemInput::parse("runs/logmap.rdf.gz");
/// assert_eq!(kgeval::system_names(&[a, b])?, ["AML", "logmap"]);
/// let twice = [SystemInput::parse("x/AML/run.tsv"), SystemInput::parse("x/LogMap/run.tsv")];
/// assert_eq!(kgeval::system_names(&twice)?, ["AML/run", "LogMap/run"]);
/// let named = [SystemInput::parse("A=x/run.tsv"), SystemInput::parse("A=y/run.tsv")];
/// assert!(kgeval::system_names(&named).unwrap_err().to_string().contains("two systems named \"A\""));
/// # Ok::<(), kgeval::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemInput {
    /// The name given, if any.
    pub name: Option<String>,
    /// The input.
    pub input: Input,
}

impl SystemInput {
    /// `NAME=PATH` or `PATH` (a `=` inside a path, after a `/`, is not a name); `-` is standard
    /// input.
    #[must_use]
    pub fn parse(spec: &str) -> Self {
        if let Some((name, path)) = spec.split_once('=') {
            if !name.is_empty() && !name.contains(['/', '\\']) {
                return SystemInput { name: Some(name.to_owned()), input: Input::path(path) };
            }
        }
        SystemInput { name: None, input: Input::path(spec) }
    }

    /// An input without a name.
    #[must_use]
    pub fn new(input: impl Into<Input>) -> Self {
        SystemInput { name: None, input: input.into() }
    }

    /// An input with a name.
    #[must_use]
    pub fn named(name: impl Into<String>, input: impl Into<Input>) -> Self {
        SystemInput { name: Some(name.into()), input: input.into() }
    }

    /// The same input with a relative path joined to `base`.
    #[must_use]
    pub fn resolved(&self, base: &Path) -> Self {
        SystemInput { name: self.name.clone(), input: self.input.resolved(base) }
    }
}

impl<'de> Deserialize<'de> for SystemInput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SystemInputVisitor)
    }
}

/// `"NAME=PATH"`, `"PATH"` or `{ name = "…", path = "…" }`, told apart by the value's type so
/// that a table's error names its key (an unknown one is refused, not read as a stem).
struct SystemInputVisitor;

impl<'de> serde::de::Visitor<'de> for SystemInputVisitor {
    type Value = SystemInput;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("\"PATH\", \"NAME=PATH\" or a table { name = \"…\", path = \"…\" }")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<SystemInput, E> {
        Ok(SystemInput::parse(text))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<SystemInput, A::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            name: Option<String>,
            #[serde(alias = "input")]
            path: Input,
        }
        let table = Table::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        if table.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
            return Err(serde::de::Error::custom("found name = \"\", expected a system name"));
        }
        Ok(SystemInput { name: table.name, input: table.path })
    }
}

/// The names of `systems`: the given name, else the input's stem (`aml.rdf.gz` → `aml`); when
/// default names collide, each colliding one grows to the shortest path suffix that tells it
/// apart (`AML/systemAlignment.rdf` and `LogMap/systemAlignment.rdf` → `AML/systemAlignment`,
/// `LogMap/systemAlignment`). Every family names its systems here.
///
/// # Errors
/// [`Error::Invalid`] when a name is given twice, or when two systems cannot be told apart by
/// a path suffix (the same file twice, or a default name equal to a given one); for an empty
/// name or a [reserved](RESERVED_NAMES) one.
pub fn system_names(systems: &[SystemInput]) -> Result<Vec<String>, Error> {
    let components: Vec<Vec<String>> = systems.iter().map(|s| default_name_components(&s.input)).collect();
    // How many trailing path components each default name uses (1: the stem alone).
    let mut depth = vec![1_usize; systems.len()];
    let name_at = |i: usize, depth: &[usize]| match &systems[i].name {
        Some(name) => name.clone(),
        None => {
            let parts = &components[i];
            parts[parts.len() - depth[i].min(parts.len())..].join("/")
        }
    };
    // Maps, not scans: a campaign may name thousands of runs.
    let mut given: HashMap<&str, usize> = HashMap::with_capacity(systems.len());
    for (i, system) in systems.iter().enumerate() {
        let Some(name) = &system.name else { continue };
        check_name("system", name)?;
        if let Some(&j) = given.get(name.as_str()) {
            return Err(Error::invalid(format!(
                "found two systems named {name:?} ({} and {}), expected unique names",
                systems[j].input, systems[i].input
            )));
        }
        given.insert(name, i);
    }
    loop {
        let names: Vec<String> = (0..systems.len()).map(|i| name_at(i, &depth)).collect();
        // Each name's first two holders.
        let mut holders: HashMap<&str, (usize, Option<usize>)> = HashMap::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            holders.entry(name).and_modify(|h| h.1 = h.1.or(Some(i))).or_insert((i, None));
        }
        let mut grew = false;
        let mut stuck = None;
        for i in 0..systems.len() {
            // The first other holder of the same name, as a scan from the start finds it.
            let (first, second) = holders[names[i].as_str()];
            let Some(j) = (if first == i { second } else { Some(first) }) else { continue };
            if systems[i].name.is_none() && depth[i] < components[i].len() {
                depth[i] += 1;
                grew = true;
            } else if stuck.is_none() {
                stuck = Some((i.min(j), i.max(j)));
            }
        }
        if grew {
            continue;
        }
        if let Some((j, i)) = stuck {
            return Err(Error::invalid(format!(
                "found two systems named {:?} ({} and {}), expected unique names: give NAME=PATH",
                names[i], systems[j].input, systems[i].input
            )));
        }
        for name in &names {
            check_name("system", name)?;
        }
        return Ok(names);
    }
}

/// Names no pair or system may take, in any case: they name the aggregate rows (`MICRO`,
/// `MACRO`) of the alignment, ranking and lexicon tables, and a pair or system so named would
/// print a second row under the same name.
pub const RESERVED_NAMES: [&str; 2] = ["MICRO", "MACRO"];

/// Checks a pair or system name (`kind`): not empty (nor only spaces), not
/// [reserved](RESERVED_NAMES) in any case.
///
/// # Errors
/// [`Error::Invalid`], one line naming what was found.
pub fn check_name(kind: &str, name: &str) -> Result<(), Error> {
    if name.trim().is_empty() {
        return Err(Error::invalid(format!("found an empty {kind} name, expected a name")));
    }
    if RESERVED_NAMES.iter().any(|r| r.eq_ignore_ascii_case(name.trim())) {
        return Err(Error::invalid(format!(
            "found {kind} name {}, expected a name other than MICRO or MACRO (any case): they name the aggregate rows",
            kgeval_formats::echo(name)
        )));
    }
    Ok(())
}

/// The parts of an input's default name, outermost first: its folders, then its stem
/// (`runs/AML/systemAlignment.rdf` → `runs`, `AML`, `systemAlignment`).
fn default_name_components(input: &Input) -> Vec<String> {
    let mut parts: Vec<String> = input
        .as_path()
        .and_then(Path::parent)
        .map(|parent| {
            parent
                .components()
                .filter_map(|c| match c {
                    std::path::Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    parts.push(input.stem());
    parts
}

/// Deserialises one value (`system = "a.ttl"`) or several (`systems = ["a.ttl", "B=b.ttl"]`)
/// into a list: systems, runs, filter files, data files, measures.
pub(crate) fn one_or_many<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    deserializer.deserialize_any(OneOrMany(std::marker::PhantomData))
}

/// One value or an array of them, told apart by the value's type (no buffering: the item's
/// own error, with its position, reaches the user).
struct OneOrMany<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for OneOrMany<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("one value or an array of values")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Vec<T>, A::Error> {
        Vec::<T>::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Vec<T>, A::Error> {
        Ok(vec![T::deserialize(serde::de::value::MapAccessDeserializer::new(map))?])
    }

    fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<Vec<T>, E> {
        Ok(vec![T::deserialize(serde::de::value::StrDeserializer::new(value))?])
    }

    fn visit_string<E: serde::de::Error>(self, value: String) -> Result<Vec<T>, E> {
        Ok(vec![T::deserialize(serde::de::value::StringDeserializer::new(value))?])
    }

    fn visit_bool<E: serde::de::Error>(self, value: bool) -> Result<Vec<T>, E> {
        Ok(vec![T::deserialize(serde::de::value::BoolDeserializer::new(value))?])
    }

    fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Vec<T>, E> {
        Ok(vec![T::deserialize(serde::de::value::I64Deserializer::new(value))?])
    }

    fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Vec<T>, E> {
        Ok(vec![T::deserialize(serde::de::value::U64Deserializer::new(value))?])
    }

    fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Vec<T>, E> {
        Ok(vec![T::deserialize(serde::de::value::F64Deserializer::new(value))?])
    }
}

/// Deserialises a value through its `from_name` (`mode = "qald3-script"`).
pub(crate) fn by_name<'de, D, T>(
    deserializer: D,
    from_name: fn(&str) -> Option<T>,
    expected: &'static str,
) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let name = String::deserialize(deserializer)?;
    from_name(&name)
        .ok_or_else(|| serde::de::Error::custom(format!("found {}, expected {expected}", kgeval_formats::echo(&name))))
}
