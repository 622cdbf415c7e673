//! Manifests read through the TOML library, once: `toml_edit` keeps the place of every key and
//! value, so a table is deserialised on its own (a campaign's `[[task]]`, a task's `compare`)
//! and its errors still point into the file, whatever TOML form wrote it (quoted, literal and
//! dotted keys, inline tables and arrays of tables, multi-line strings, CRLF line ends).
//!
//! Public so that a front end reading a section of its own (`kgeval serve`'s `[serve]`) gives
//! the same located errors as the rest of the manifest.

use serde::de::{DeserializeOwned, IntoDeserializer as _};
use toml_edit::{ImDocument, InlineTable, Item, TableLike, Value};

use crate::{Error, Family, Task};

/// A parsed TOML manifest: its text, its file's name for messages, and the document.
pub struct TomlManifest<'a> {
    text: &'a str,
    file: &'a str,
    document: ImDocument<&'a str>,
}

/// One table of a manifest (`[[task]]`, `task = [{ … }]`, `[task.compare]`, `compare = { … }`)
/// and the place that stands for it when a key is missing.
#[derive(Clone, Copy)]
pub struct ManifestTable<'d> {
    /// The table's keys and values.
    pub table: &'d dyn TableLike,
    /// Its header or its `{`.
    pub span: Option<usize>,
}

impl<'a> TomlManifest<'a> {
    /// Parses `text`, the content of `file`.
    ///
    /// # Errors
    /// [`Error::Invalid`] `FILE:LINE:COL: message` for TOML syntax.
    pub fn parse(text: &'a str, file: &'a str) -> Result<Self, Error> {
        let document = ImDocument::parse(text).map_err(|e| {
            let (line, column) = line_column(text, e.span().map(|s| s.start));
            Error::invalid(format!("{file}:{line}:{column}: {}", e.message().trim_end()))
        })?;
        Ok(TomlManifest { text, file, document })
    }

    /// The document's top-level table.
    pub fn root(&self) -> ManifestTable<'_> {
        ManifestTable { table: self.document.as_table(), span: None }
    }

    /// `FILE:LINE:COL` of byte offset `at` (the file's start when unknown).
    pub fn at(&self, at: Option<usize>) -> String {
        let (line, column) = line_column(self.text, at);
        format!("{}:{line}:{column}", self.file)
    }

    /// An error at byte offset `at`.
    pub fn error(&self, at: Option<usize>, message: &str) -> Error {
        Error::invalid(format!("{}: {message}", self.at(at)))
    }

    /// Where `key` of `table` is written (else the table's own place).
    pub fn key_at(&self, table: ManifestTable<'_>, key: &str) -> Option<usize> {
        table.table.key(key).and_then(toml_edit::Key::span).map(|s| s.start).or(table.span)
    }

    /// Where the value of `key` of `table` is written (else the key's, else the table's).
    pub fn value_at(&self, table: ManifestTable<'_>, key: &str) -> Option<usize> {
        table.table.get(key).and_then(Item::span).map(|s| s.start).or_else(|| self.key_at(table, key))
    }

    /// The string value of `key`, if present.
    ///
    /// # Errors
    /// [`Error::Invalid`] at the value when it is not a string.
    pub fn string<'d>(&self, table: ManifestTable<'d>, key: &str) -> Result<Option<&'d str>, Error> {
        match table.table.get(key) {
            None => Ok(None),
            Some(item) => item.as_str().map(Some).ok_or_else(|| {
                self.error(self.value_at(table, key), &format!("found {key} = {}, expected a string", type_name(item)))
            }),
        }
    }

    /// The tables `key` holds: `[[key]]` tables or an array of inline tables (`key = [{…}]`).
    ///
    /// # Errors
    /// [`Error::Invalid`] at the value for anything else (`[key]`, `key = "…"`, an array of
    /// something other than tables).
    pub fn tables<'d>(&self, parent: ManifestTable<'d>, key: &str) -> Result<Vec<ManifestTable<'d>>, Error> {
        let Some(item) = parent.table.get(key) else { return Ok(Vec::new()) };
        let expected = || {
            let found = match item {
                Item::Table(_) => format!("[{key}]"),
                _ => format!("{key} = {}", type_name(item)),
            };
            self.error(
                self.value_at(parent, key),
                &format!("found {found}, expected [[{key}]] (one table per {key}, each with a name)"),
            )
        };
        match item {
            Item::ArrayOfTables(tables) => Ok(tables
                .iter()
                .map(|t| ManifestTable { table: t as &dyn TableLike, span: t.span().map(|s| s.start) })
                .collect()),
            Item::Value(Value::Array(values)) => values
                .iter()
                .map(|v| match v {
                    Value::InlineTable(t) => {
                        Ok(ManifestTable { table: t as &dyn TableLike, span: t.span().map(|s| s.start) })
                    }
                    _ => Err(expected()),
                })
                .collect(),
            _ => Err(expected()),
        }
    }

    /// The sub-table `key` (`[parent.key]` or `key = { … }`), if present.
    ///
    /// # Errors
    /// [`Error::Invalid`] at the value when it is not a table.
    pub fn table<'d>(&self, parent: ManifestTable<'d>, key: &str) -> Result<Option<ManifestTable<'d>>, Error> {
        let Some(item) = parent.table.get(key) else { return Ok(None) };
        match item.as_table_like() {
            Some(table) => Ok(Some(ManifestTable { table, span: self.value_at(parent, key) })),
            None => Err(self.error(
                self.value_at(parent, key),
                &format!("found {key} = {}, expected a table {{ … }}", type_name(item)),
            )),
        }
    }

    /// Deserialises `T` from the table's keys but those in `skip`; every error points into
    /// the file (its key or value, else the table).
    ///
    /// # Errors
    /// [`Error::Invalid`] `FILE:LINE:COL: message` for the first schema error.
    pub fn deserialize<T: DeserializeOwned>(&self, table: ManifestTable<'_>, skip: &[&str]) -> Result<T, Error> {
        self.deserialize_with(table, skip, &[])
    }

    /// [`TomlManifest::deserialize`] with `extra` keys added to the table's (a served task's
    /// empty list of systems: its uploads are its systems).
    ///
    /// # Errors
    /// As [`TomlManifest::deserialize`].
    pub fn deserialize_with<T: DeserializeOwned>(
        &self,
        table: ManifestTable<'_>,
        skip: &[&str],
        extra: &[(&str, Value)],
    ) -> Result<T, Error> {
        let mut inline = InlineTable::new();
        for (key, value) in extra {
            inline.insert(*key, value.clone());
        }
        for (key, _) in table.table.iter() {
            if skip.contains(&key) {
                continue;
            }
            let Some((key, item)) = table.table.get_key_value(key) else { continue };
            if let Ok(value) = item.clone().into_value() {
                inline.insert_formatted(key, value);
            }
        }
        T::deserialize(Value::InlineTable(inline).into_deserializer()).map_err(|e| {
            let at = e.span().map(|s| s.start).or(table.span);
            self.error(at, e.message().trim_end())
        })
    }

    /// The family a table names in its `family` key, if any.
    ///
    /// # Errors
    /// [`Error::Invalid`] at the value when it is not a string or names no family.
    pub fn family(&self, table: ManifestTable<'_>) -> Result<Option<Family>, Error> {
        let Some(name) = self.string(table, "family")? else { return Ok(None) };
        Family::ALL.into_iter().find(|f| f.name() == name).map(Some).ok_or_else(|| {
            self.error(
                self.value_at(table, "family"),
                &format!(
                    "found family {}, expected one of {}",
                    kgeval_formats::echo(name),
                    Family::ALL.map(Family::name).join(", ")
                ),
            )
        })
    }

    /// A family's task from a table (its `family` key and the keys in `skip` aside).
    ///
    /// # Errors
    /// [`Error::Invalid`] for a missing or unknown family, or a schema error of its fields.
    pub fn task(&self, table: ManifestTable<'_>, skip: &[&str]) -> Result<Task, Error> {
        self.task_with(table, skip, &[])
    }

    /// [`TomlManifest::task`] with `extra` keys added to the table's.
    ///
    /// # Errors
    /// As [`TomlManifest::task`].
    pub fn task_with(&self, table: ManifestTable<'_>, skip: &[&str], extra: &[(&str, Value)]) -> Result<Task, Error> {
        let Some(family) = self.family(table)? else {
            return Err(self.error(
                table.span,
                &format!(
                    "found no `family` key, expected family = one of {}",
                    Family::ALL.map(Family::name).join(", ")
                ),
            ));
        };
        let mut keys = skip.to_vec();
        keys.push("family");
        Ok(match family {
            Family::Align => Task::Align(self.deserialize_with(table, &keys, extra)?),
            Family::Lexicon => Task::Lexicon(self.deserialize_with(table, &keys, extra)?),
            Family::Qald => Task::Qald(self.deserialize_with(table, &keys, extra)?),
            Family::Trec => Task::Trec(self.deserialize_with(table, &keys, extra)?),
            Family::Kgc => Task::Kgc(Box::new(self.deserialize_with(table, &keys, extra)?)),
            Family::Rank => Task::Rank(self.deserialize_with(table, &keys, extra)?),
        })
    }
}

/// 1-based line and column of byte offset `at` (1:1 when unknown).
fn line_column(text: &str, at: Option<usize>) -> (u32, u32) {
    at.map_or((1, 1), |at| kgeval_formats::line_column(text.as_bytes(), at.min(text.len())))
}

/// What an item is, for `found …` (never its content: a manifest line is not echoed).
fn type_name(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Table(_) => "a table",
        Item::ArrayOfTables(_) => "an array of tables",
        Item::Value(value) => match value {
            Value::String(_) => "a string",
            Value::Integer(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Boolean(_) => "a boolean",
            Value::Datetime(_) => "a date",
            Value::Array(_) => "an array",
            Value::InlineTable(_) => "a table",
        },
    }
}
