//! Which column of a table plays which role: one rule for every table reader. A role (query
//! id, document id, score or relevance, tag) is found at most once, by any of its names; a
//! second column for one role — the same name twice, or two of its names — is an error naming
//! both; a required role without a column is an error listing the columns found; a column
//! that plays no role and is not one kgeval knows to ignore is named in one warning.

use arrow_schema::Schema;
use kgeval_model::{Diagnostic, Location};

use super::error;
use crate::ids::id_problem;
use crate::FormatError;

/// Most column names a message lists; the rest are counted.
const MAX_NAMES_LISTED: usize = 10;

/// A role a column can play: its name in messages, the column names it goes by (in order of
/// preference for messages), and whether a table must have it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Role {
    /// The role in messages (`query id`).
    pub(super) role: &'static str,
    /// The names a column of this role may have.
    pub(super) names: &'static [&'static str],
    /// Whether the table must have the column.
    pub(super) required: bool,
}

/// The columns found: per role its (index, name), and the columns that play no role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Resolved {
    /// Per role (in the order given), the index and name of its column.
    pub(super) found: Vec<Option<(usize, String)>>,
    /// The names of the columns kgeval does not read.
    pub(super) unknown: Vec<String>,
}

/// A column name for a message: as it is when it is a plain name, else quoted and escaped
/// (a name may hold a line break or an escape sequence).
pub(super) fn shown(name: &str) -> String {
    if id_problem(name).is_none() {
        name.to_owned()
    } else {
        crate::echo(name)
    }
}

/// `names` for a message: at most [`MAX_NAMES_LISTED`], each [`shown`], then how many more.
pub(super) fn listed<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let count = names.len();
    let mut out: Vec<String> = names.take(MAX_NAMES_LISTED).map(shown).collect();
    if count > MAX_NAMES_LISTED {
        out.push(format!("… ({} more)", count - MAX_NAMES_LISTED));
    }
    out.join(", ")
}

/// Finds each role's column in `schema`; columns named in `ignored` play no role and raise
/// no warning. `what` names the input in errors.
pub(super) fn resolve(schema: &Schema, what: &str, roles: &[Role], ignored: &[&str]) -> Result<Resolved, FormatError> {
    let mut found: Vec<Option<(usize, String)>> = vec![None; roles.len()];
    let mut unknown = Vec::new();
    for (index, field) in schema.fields().iter().enumerate() {
        let name = field.name();
        let Some(role) = roles.iter().position(|role| role.names.contains(&name.as_str())) else {
            if !ignored.contains(&name.as_str()) {
                unknown.push(name.clone());
            }
            continue;
        };
        if let Some((_, first)) = &found[role] {
            return Err(error(
                what,
                format!(
                    "found columns {} and {}, both a {} column; keep one",
                    shown(first),
                    shown(name),
                    roles[role].role
                ),
            ));
        }
        found[role] = Some((index, name.clone()));
    }
    if let Some(missing) =
        roles.iter().zip(&found).find_map(|(role, at)| (role.required && at.is_none()).then_some(role))
    {
        let columns = schema.fields().iter().map(|f| f.name().as_str());
        return Err(error(
            what,
            format!(
                "found columns {}, expected a {} column named one of {}",
                if schema.fields().is_empty() { "none".to_owned() } else { listed(columns) },
                missing.role,
                missing.names.join(", ")
            ),
        ));
    }
    Ok(Resolved { found, unknown })
}

/// The warning for the columns kgeval does not read (none when there are none).
pub(super) fn unknown_columns_warning(unknown: &[String], what: &str) -> Vec<Diagnostic> {
    if unknown.is_empty() {
        return Vec::new();
    }
    let s = if unknown.len() == 1 { "" } else { "s" };
    let message = format!(
        "found {} column{s} kgeval does not read ({}); ignored",
        unknown.len(),
        listed(unknown.iter().map(String::as_str))
    );
    vec![Diagnostic::warning("unknown-column", message).at(Location { file: what.to_owned(), line: 0, column: 0 })]
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_schema::{DataType, Field};

    use super::*;

    const ROLES: [Role; 2] = [
        Role { role: "query id", names: &["qid", "query_id"], required: true },
        Role { role: "tag", names: &["tag"], required: false },
    ];

    fn schema(names: &[&str]) -> Schema {
        Schema::new(names.iter().map(|n| Arc::new(Field::new(*n, DataType::Utf8, false))).collect::<Vec<_>>())
    }

    #[test]
    fn one_column_per_role() {
        let ok = resolve(&schema(&["x", "query_id", "rank"]), "t", &ROLES, &["rank"]).expect("resolves");
        assert_eq!(ok.found, [Some((1, "query_id".to_owned())), None]);
        assert_eq!(ok.unknown, ["x"]);
        let twice = resolve(&schema(&["qid", "tag", "query_id"]), "t", &ROLES, &[]).unwrap_err();
        assert_eq!(twice.to_string(), "t: found columns qid and query_id, both a query id column; keep one");
        let same = resolve(&schema(&["qid", "tag", "tag"]), "t", &ROLES, &[]).unwrap_err();
        assert_eq!(same.to_string(), "t: found columns tag and tag, both a tag column; keep one");
        let missing = resolve(&schema(&["a\nb"]), "t", &ROLES, &[]).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "t: found columns \"a\\nb\", expected a query id column named one of qid, query_id"
        );
    }

    #[test]
    fn unknown_columns_make_one_warning() {
        let names: Vec<String> = (0..12).map(|i| format!("c{i}")).collect();
        let warning = &unknown_columns_warning(&names, "t")[0];
        assert_eq!(
            warning.message,
            "found 12 columns kgeval does not read (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, … (2 more)); ignored"
        );
        assert!(unknown_columns_warning(&[], "t").is_empty());
    }
}
