//! Running QALD SPARQL queries: on an embedded in-memory oxigraph store loaded from RDF inputs
//! (Turtle, N-Triples, N-Quads, TriG, RDF/XML; gzip decompressed, as every input), or on a
//! SPARQL 1.1 protocol endpoint over HTTP (POST, form-encoded, JSON results, timeouts).
//!
//! Results become answers: an ASK gives one boolean; each SELECT row gives one answer, the
//! value of the first projected variable bound in the row, and the row's other bound values
//! as its aliases (QALD-2 gold queries select `?uri ?string` with the label in `?string`).

use std::path::Path;
use std::time::Duration;

use kgeval_formats::Input;
use kgeval_model::qald::{Answer, AnswerValue, QaldDataset, QaldQuery, QueryExecution};
use oxigraph::io::{RdfFormat, RdfParseError, RdfParser};
use oxigraph::model::{vocab::xsd, Term};
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsParser, ReaderQueryResultsParserOutput};
use oxigraph::sparql::{QueryResults, QuerySolution, SparqlEvaluator};
use oxigraph::store::{LoaderError, Store};

use crate::{Error, Progress, ResultExt as _};

/// Where queries run.
pub(crate) enum SparqlBackend {
    /// An in-memory store.
    Embedded(Store),
    /// A SPARQL 1.1 protocol endpoint.
    Endpoint { url: String, agent: ureq::Agent },
}

impl SparqlBackend {
    /// An in-memory store with every input of `data` loaded.
    pub(crate) fn embedded(data: &[Input]) -> Result<Self, Error> {
        let store = Store::new().map_err(|e| Error::invalid(format!("cannot create the in-memory store: {e}")))?;
        for input in data {
            load(&store, input)?;
        }
        Ok(SparqlBackend::Embedded(store))
    }

    /// An endpoint client with a connect and an overall timeout per request.
    pub(crate) fn endpoint(url: &str, timeout: Duration) -> Self {
        let agent = ureq::AgentBuilder::new().timeout_connect(timeout).timeout(timeout).build();
        SparqlBackend::Endpoint { url: url.to_owned(), agent }
    }

    /// Where the results came from, for the conventions.
    pub(crate) fn execution(&self) -> QueryExecution {
        match self {
            SparqlBackend::Embedded(store) => {
                QueryExecution::EmbeddedStore { triples: store.len().unwrap_or_default() }
            }
            SparqlBackend::Endpoint { url, .. } => QueryExecution::Endpoint { url: url.clone() },
        }
    }

    /// Runs the SPARQL query of every question that gives one and no answers (or of every
    /// question, with `all`), replacing its answers with the results.
    pub(crate) fn execute(&self, dataset: &mut QaldDataset, all: bool, progress: &dyn Progress) -> Result<(), Error> {
        for question in &mut dataset.questions {
            let QaldQuery::Sparql(query) = &question.query else { continue };
            if question.answers.is_some() && !all {
                continue;
            }
            tracing::debug!(location = %question.location, "running the question's query");
            let answers =
                self.answers(query).with_context(|| format!("{}: question {}", question.location, question.id))?;
            question.answers = Some(answers);
            progress.advance(1);
        }
        Ok(())
    }

    /// Runs `query`; errors are one line without the question's location (the caller adds it).
    fn answers(&self, query: &str) -> Result<Vec<Answer>, Error> {
        match self {
            SparqlBackend::Embedded(store) => {
                let mut prepared = SparqlEvaluator::new().parse_query(query).map_err(|e| {
                    Error::invalid(format!(
                        "the SPARQL query does not parse: {}",
                        syntax_message(query, &e.to_string())
                    ))
                })?;
                prepared.dataset_mut().set_default_graph_as_union();
                let failed =
                    |e: oxigraph::sparql::QueryEvaluationError| Error::invalid(format!("query evaluation failed: {e}"));
                match prepared.on_store(store).execute().map_err(failed)? {
                    QueryResults::Boolean(b) => Ok(vec![Answer::new(AnswerValue::Boolean(b.to_string()))]),
                    QueryResults::Solutions(solutions) => solutions
                        .map(|row| Ok(row_answer(&row.map_err(failed)?)))
                        .filter_map(Result::transpose)
                        .collect(),
                    QueryResults::Graph(_) => {
                        Err(Error::invalid("found a CONSTRUCT or DESCRIBE query, expected SELECT or ASK"))
                    }
                }
            }
            SparqlBackend::Endpoint { url, agent } => {
                let response = agent
                    .post(url)
                    .set("Accept", "application/sparql-results+json")
                    .send_form(&[("query", query)])
                    .map_err(|e| endpoint_error(url, e))?;
                let malformed =
                    |e: &dyn std::fmt::Display| Error::invalid(format!("{url}: malformed SPARQL JSON results: {e}"));
                let parsed = QueryResultsParser::from_format(QueryResultsFormat::Json)
                    .for_reader(response.into_reader())
                    .map_err(|e| malformed(&e))?;
                match parsed {
                    ReaderQueryResultsParserOutput::Boolean(b) => {
                        Ok(vec![Answer::new(AnswerValue::Boolean(b.to_string()))])
                    }
                    ReaderQueryResultsParserOutput::Solutions(solutions) => solutions
                        .map(|row| Ok(row_answer(&row.map_err(|e| malformed(&e))?)))
                        .filter_map(Result::transpose)
                        .collect(),
                }
            }
        }
    }
}

fn endpoint_error(url: &str, error: ureq::Error) -> Error {
    match error {
        ureq::Error::Status(code, response) => {
            let status = response.status_text().to_owned();
            let body = response.into_string().unwrap_or_default();
            let first = body.lines().find(|l| !l.trim().is_empty()).unwrap_or_default();
            let first: String = first.chars().take(200).collect();
            Error::invalid(format!("{url}: the endpoint answered HTTP {code} {status}: {first}"))
        }
        ureq::Error::Transport(t) => Error::invalid(format!("{url}: request failed: {t}")),
    }
}

/// The answer of one SELECT row (see the module documentation); `None` when nothing is bound.
fn row_answer(row: &QuerySolution) -> Option<Answer> {
    let mut bound = row.values().iter().flatten();
    let mut answer = Answer::new(term_value(bound.next()?));
    answer.aliases = bound.map(|t| term_value(t).lexical().to_owned()).collect();
    Some(answer)
}

fn term_value(term: &Term) -> AnswerValue {
    match term {
        Term::NamedNode(n) => AnswerValue::Iri(n.as_str().to_owned()),
        Term::BlankNode(b) => AnswerValue::plain(format!("_:{}", b.as_str())),
        Term::Literal(l) => AnswerValue::Literal {
            lexical: l.value().to_owned(),
            datatype: (l.language().is_none() && l.datatype() != xsd::STRING).then(|| l.datatype().as_str().to_owned()),
            language: l.language().map(str::to_owned),
        },
        #[allow(unreachable_patterns)]
        _ => AnswerValue::plain(term.to_string()),
    }
}

/// The RDF syntax of an input, from its name's extension (after an optional `.gz`).
fn format_of(file: &str) -> Result<RdfFormat, Error> {
    let name = Path::new(file).file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let stem = name.strip_suffix(".gz").unwrap_or(&name);
    let extension = stem.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    let format = match extension {
        "owl" | "xml" => Some(RdfFormat::RdfXml),
        other => RdfFormat::from_extension(other),
    };
    format.ok_or_else(|| {
        Error::invalid(format!(
            "{file}: found extension {extension:?}, expected .ttl, .nt, .nq, .trig, .rdf, .owl or .xml (optionally .gz)"
        ))
    })
}

/// Loads one RDF input (gzip decompressed), its syntax from the extension.
fn load(store: &Store, input: &Input) -> Result<(), Error> {
    let file = input.name();
    let format = format_of(&file)?;
    let opened = input.open()?;
    if format == RdfFormat::RdfXml {
        // oxrdfxml expands DTD entities itself: refuse external ones and bound the expansion first.
        kgeval_formats::xml_guard::check(opened.bytes(), &file)?;
    }
    tracing::info!(path = %file, ?format, "loading RDF");
    store.load_from_slice(RdfParser::from_format(format), opened.bytes()).map_err(|e| load_error(&file, e))
}

fn load_error(file: &str, error: LoaderError) -> Error {
    match error {
        LoaderError::Parsing(RdfParseError::Syntax(e)) => match e.location() {
            Some(range) => Error::invalid(format!("{file}:{}:{}: {e}", range.start.line + 1, range.start.column + 1)),
            None => Error::invalid(format!("{file}: {e}")),
        },
        other => Error::invalid(format!("{file}: {other}")),
    }
}

/// A SPARQL syntax error as one short line: where (line:column in the query), what was found
/// there and after what, and what was expected when the parser says it in words (its raw list
/// of expected character classes is dropped).
fn syntax_message(query: &str, error: &str) -> String {
    let Some(rest) = error.strip_prefix("error at ") else { return kgeval_formats::shorten(error, 200).into_owned() };
    let (position, expected) = rest.split_once(": ").unwrap_or((rest, ""));
    let (line, column) = position.split_once(':').unwrap_or((position, "1"));
    let (Ok(line), Ok(column)) = (line.parse::<usize>(), column.parse::<usize>()) else {
        return kgeval_formats::shorten(error, 200).into_owned();
    };
    // The byte offset of line:column (columns count characters).
    let line_text = query.split('\n').nth(line.saturating_sub(1)).unwrap_or_default();
    let split = line_text.char_indices().nth(column.saturating_sub(1)).map_or(line_text.len(), |(i, _)| i);
    let (before, after) = line_text.split_at(split);
    let found = after
        .split_whitespace()
        .next()
        .map_or_else(|| "the end of the query".to_owned(), |token| format!("`{}`", kgeval_formats::shorten(token, 40)));
    let previous =
        before.split_whitespace().last().map(|token| format!(" after `{}`", kgeval_formats::shorten(token, 40)));
    // The parser's own words among the alternatives (e.g. "Prefix not found").
    let alternatives = expected.strip_prefix("expected ").unwrap_or(expected);
    let alternatives = alternatives.strip_prefix("one of ").unwrap_or(alternatives);
    let words: Vec<&str> = alternatives
        .split(", ")
        .filter(|a| a.chars().next().is_some_and(char::is_alphabetic) && a.contains(' '))
        .collect();
    let after = previous.unwrap_or_default();
    if words.contains(&"Prefix not found") {
        let prefix = before.split_whitespace().last().and_then(|t| t.split_once(':')).map_or("", |(p, _)| p);
        return format!(
            "found an undeclared prefix `{}:` at {line}:{column} of the query{after}, expected a declaration PREFIX {}: <…>",
            kgeval_formats::shorten(prefix, 40),
            kgeval_formats::shorten(prefix, 40)
        );
    }
    let words = if words.is_empty() { String::new() } else { format!(" ({})", words.join("; ")) };
    format!("found {found} at {line}:{column} of the query{after}{words}, expected a valid SPARQL 1.1 query")
}

#[cfg(test)]
mod tests {
    #[test]
    fn syntax_errors_say_what_was_found_where_without_the_character_classes() {
        let e = super::syntax_message(
            "SELECT ?x WHERE { ?x ex:undeclared-prefix ?y ",
            "error at 1:42: expected one of Prefix not found, ['%'], ['.'], [':'], ['A' ..= 'Z' | 'a' ..= 'z'], ['\\\\'], ['_']",
        );
        assert_eq!(
            e,
            "found an undeclared prefix `ex:` at 1:42 of the query after `ex:undeclared-prefix`, expected a declaration PREFIX ex: <…>"
        );
        let e = super::syntax_message("SELECT ?x WHERE {\n?x ?p", "error at 2:7: expected one of \"(\", \"[\", ['\"']");
        assert_eq!(e, "found the end of the query at 2:7 of the query after `?p`, expected a valid SPARQL 1.1 query");
    }
}
