//! `track.toml`: many test cases (and systems) scored in one run.
//!
//! ```toml
//! # paths are relative to this file
//! profile = "melt"        # optional; --profile overrides
//! mode = "complete"       # optional; --mode overrides
//!
//! [[pair]]
//! name = "cmt-conference"
//! track = "conference"    # optional: systems are aggregated per track, named `track:system`
//! reference = "cmt-conference/reference.rdf"
//! secondary = "cmt-conference/reference-unrepaired.rdf"   # optional
//! exclusion = "cmt-conference/train.rdf"                 # optional
//! onto1 = "cmt.owl"                                       # optional, with onto2
//! onto2 = "conference.owl"
//! system = "AML/cmt-conference.rdf"      # one system …
//! [pair.systems]                          # … or several, by name
//! AML = "cmt-conference/AML/systemAlignment.rdf"
//! ```

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use indexmap_lite::OrderedMap;
use serde::Deserialize;

/// The manifest file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    pub(crate) profile: Option<String>,
    pub(crate) mode: Option<String>,
    #[serde(rename = "pair", default)]
    pub(crate) pairs: Vec<ManifestPair>,
}

/// One test case.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ManifestPair {
    pub(crate) name: String,
    pub(crate) track: Option<String>,
    pub(crate) reference: PathBuf,
    pub(crate) secondary: Option<PathBuf>,
    pub(crate) exclusion: Option<PathBuf>,
    pub(crate) onto1: Option<PathBuf>,
    pub(crate) onto2: Option<PathBuf>,
    pub(crate) system: Option<PathBuf>,
    #[serde(default)]
    pub(crate) systems: OrderedMap,
}

impl ManifestPair {
    /// The `(system name, path)` pairs of this test case, in file order.
    /// A system's name is prefixed with the pair's track (`conference:AML`) when it has one.
    pub(crate) fn systems(&self) -> Vec<(String, PathBuf)> {
        let mut out: Vec<(String, PathBuf)> = self.systems.0.clone();
        if let Some(path) = &self.system {
            out.insert(0, ("system".to_owned(), path.clone()));
        }
        if let Some(track) = &self.track {
            for (name, _) in &mut out {
                *name = format!("{track}:{name}");
            }
        }
        out
    }
}

/// Reads and checks a manifest; paths come back resolved against its folder.
pub(crate) fn read_manifest(path: &Path) -> anyhow::Result<Manifest> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let mut manifest: Manifest = toml::from_str(&text).map_err(|e| {
        let (line, column) = e.span().map_or((1, 1), |span| line_column(&text, span.start));
        anyhow::anyhow!("{}:{line}:{column}: {}", path.display(), e.message())
    })?;
    if manifest.pairs.is_empty() {
        bail!("{}:1:1: expected at least one [[pair]] table, found none", path.display());
    }
    let base = path.parent().unwrap_or(Path::new("."));
    for pair in &mut manifest.pairs {
        if pair.system.is_none() && pair.systems.0.is_empty() {
            bail!(
                "{}: pair {:?} names no system (give `system = …` or a [pair.systems] table)",
                path.display(),
                pair.name
            );
        }
        for p in [&mut pair.reference]
            .into_iter()
            .chain(pair.secondary.as_mut())
            .chain(pair.exclusion.as_mut())
            .chain(pair.onto1.as_mut())
            .chain(pair.onto2.as_mut())
            .chain(pair.system.as_mut())
            .chain(pair.systems.0.iter_mut().map(|(_, p)| p))
        {
            *p = base.join(&*p);
        }
    }
    Ok(manifest)
}

pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// A TOML table kept in file order.
mod indexmap_lite {
    use std::path::PathBuf;

    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

    /// `name = "path"` entries in file order.
    #[derive(Debug, Default, Clone)]
    pub(crate) struct OrderedMap(pub(crate) Vec<(String, PathBuf)>);

    impl<'de> Deserialize<'de> for OrderedMap {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = OrderedMap;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a table of system names to alignment paths")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedMap, A::Error> {
                    let mut out = Vec::new();
                    while let Some((k, v)) = map.next_entry::<String, PathBuf>()? {
                        out.push((k, v));
                    }
                    Ok(OrderedMap(out))
                }
            }
            deserializer.deserialize_map(V)
        }
    }
}
