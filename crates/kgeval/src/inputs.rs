//! System inputs named `NAME=PATH` or `PATH` (named by a unique file stem), the same in every
//! family.

use std::path::Path;

use kgeval_formats::Input;
use serde::Deserialize;

use crate::Error;

/// A system's input with an optional name (default: its file stem, which must be unique).
///
/// Deserialises from `"NAME=PATH"`, `"PATH"` or a table `{ name = "…", path = "…" }`.
///
/// ```
/// use kgeval::SystemInput;
/// let a = SystemInput::parse("AML=runs/aml.rdf");
/// assert_eq!((a.name.as_deref(), a.input.name()), (Some("AML"), "runs/aml.rdf".to_owned()));
/// let b = SystemInput::parse("runs/logmap.rdf.gz");
/// assert_eq!(kgeval::system_names(&[a, b])?, ["AML", "logmap"]);
/// let twice = [SystemInput::parse("x/run.tsv"), SystemInput::parse("y/run.tsv")];
/// assert!(kgeval::system_names(&twice).unwrap_err().to_string().contains("NAME=PATH"));
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
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Spec {
            Text(String),
            Table {
                name: Option<String>,
                #[serde(alias = "path")]
                input: Input,
            },
        }
        Ok(match Spec::deserialize(deserializer)? {
            Spec::Text(text) => SystemInput::parse(&text),
            Spec::Table { name, input } => SystemInput { name, input },
        })
    }
}

/// The names of `systems`: the given name, else the input's stem (`aml.rdf.gz` → `aml`).
///
/// # Errors
/// [`Error::Invalid`] when two systems end up with the same name.
pub fn system_names(systems: &[SystemInput]) -> Result<Vec<String>, Error> {
    let names: Vec<String> = systems.iter().map(|s| s.name.clone().unwrap_or_else(|| s.input.stem())).collect();
    for (i, name) in names.iter().enumerate() {
        if let Some(j) = names[..i].iter().position(|n| n == name) {
            return Err(Error::invalid(format!(
                "found two systems named {name:?} ({} and {}), expected unique names: give NAME=PATH",
                systems[j].input, systems[i].input
            )));
        }
    }
    Ok(names)
}

/// Deserialises one value (`system = "a.ttl"`) or several (`systems = ["a.ttl", "B=b.ttl"]`)
/// into a list: systems, runs, filter files, data files, measures.
pub(crate) fn one_or_many<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany<T> {
        One(T),
        Many(Vec<T>),
    }
    Ok(match OneOrMany::deserialize(deserializer)? {
        OneOrMany::One(one) => vec![one],
        OneOrMany::Many(many) => many,
    })
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
