//! Running QALD SPARQL queries: on an embedded in-memory oxigraph store loaded from local RDF
//! files (Turtle, N-Triples, N-Quads, TriG, RDF/XML; `.gz` decompressed), or on a SPARQL 1.1
//! protocol endpoint over HTTP (POST, form-encoded, JSON results, timeouts).
//!
//! Results become answers: an ASK gives one boolean; each SELECT row gives one answer, the
//! value of the first projected variable bound in the row, and the row's other bound values
//! as its aliases (QALD-2 gold queries select `?uri ?string` with the label in `?string`).

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context as _};
use kgeval_model::qald::{Answer, AnswerValue};
use oxigraph::io::{RdfFormat, RdfParseError, RdfParser};
use oxigraph::model::{vocab::xsd, Term};
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsParser, ReaderQueryResultsParserOutput};
use oxigraph::sparql::{QueryResults, QuerySolution, SparqlEvaluator};
use oxigraph::store::{LoaderError, Store};

/// Where queries run.
pub(crate) enum SparqlBackend {
    /// An in-memory store.
    Embedded(Store),
    /// A SPARQL 1.1 protocol endpoint.
    Endpoint { url: String, agent: ureq::Agent },
}

impl SparqlBackend {
    /// An in-memory store with every file of `data` loaded.
    pub(crate) fn embedded(data: &[impl AsRef<Path>]) -> anyhow::Result<Self> {
        let store = Store::new().context("cannot create the in-memory store")?;
        for path in data {
            load(&store, path.as_ref())?;
        }
        Ok(SparqlBackend::Embedded(store))
    }

    /// An endpoint client with a connect and an overall timeout per request.
    pub(crate) fn endpoint(url: &str, timeout: Duration) -> Self {
        let agent = ureq::AgentBuilder::new().timeout_connect(timeout).timeout(timeout).build();
        SparqlBackend::Endpoint { url: url.to_owned(), agent }
    }

    /// What the results say where they came from, for the conventions line.
    pub(crate) fn describe(&self) -> String {
        match self {
            SparqlBackend::Embedded(store) => format!("embedded store ({} triples)", store.len().unwrap_or_default()),
            SparqlBackend::Endpoint { url, .. } => format!("endpoint {url}"),
        }
    }

    /// Runs `query`; errors are one line without the question's location (the caller adds it).
    pub(crate) fn answers(&self, query: &str) -> anyhow::Result<Vec<Answer>> {
        match self {
            SparqlBackend::Embedded(store) => {
                let mut prepared = SparqlEvaluator::new()
                    .parse_query(query)
                    .map_err(|e| anyhow::anyhow!("the SPARQL query does not parse: {e}"))?;
                prepared.dataset_mut().set_default_graph_as_union();
                match prepared.on_store(store).execute().context("query evaluation failed")? {
                    QueryResults::Boolean(b) => Ok(vec![Answer::new(AnswerValue::Boolean(b.to_string()))]),
                    QueryResults::Solutions(solutions) => solutions
                        .map(|row| Ok(row_answer(&row.context("query evaluation failed")?)))
                        .filter_map(Result::transpose)
                        .collect(),
                    QueryResults::Graph(_) => bail!("found a CONSTRUCT or DESCRIBE query, expected SELECT or ASK"),
                }
            }
            SparqlBackend::Endpoint { url, agent } => {
                let response = agent
                    .post(url)
                    .set("Accept", "application/sparql-results+json")
                    .send_form(&[("query", query)])
                    .map_err(|e| endpoint_error(url, e))?;
                let parsed = QueryResultsParser::from_format(QueryResultsFormat::Json)
                    .for_reader(response.into_reader())
                    .with_context(|| format!("{url}: malformed SPARQL JSON results"))?;
                match parsed {
                    ReaderQueryResultsParserOutput::Boolean(b) => {
                        Ok(vec![Answer::new(AnswerValue::Boolean(b.to_string()))])
                    }
                    ReaderQueryResultsParserOutput::Solutions(solutions) => solutions
                        .map(|row| {
                            Ok(row_answer(&row.with_context(|| format!("{url}: malformed SPARQL JSON results"))?))
                        })
                        .filter_map(Result::transpose)
                        .collect(),
                }
            }
        }
    }
}

fn endpoint_error(url: &str, error: ureq::Error) -> anyhow::Error {
    match error {
        ureq::Error::Status(code, response) => {
            let status = response.status_text().to_owned();
            let body = response.into_string().unwrap_or_default();
            let first = body.lines().find(|l| !l.trim().is_empty()).unwrap_or_default();
            let first: String = first.chars().take(200).collect();
            anyhow::anyhow!("{url}: the endpoint answered HTTP {code} {status}: {first}")
        }
        ureq::Error::Transport(t) => anyhow::anyhow!("{url}: request failed: {t}"),
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

/// Loads one RDF file, its syntax from the extension (after an optional `.gz`).
fn load(store: &Store, path: &Path) -> anyhow::Result<()> {
    let file = path.display().to_string();
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let (stem, gzipped) = match name.strip_suffix(".gz") {
        Some(stem) => (stem.to_owned(), true),
        None => (name.clone(), false),
    };
    let extension = stem.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    let format = match extension {
        "owl" | "xml" => Some(RdfFormat::RdfXml),
        other => RdfFormat::from_extension(other),
    };
    let Some(format) = format else {
        bail!("{file}: found extension {extension:?}, expected .ttl, .nt, .nq, .trig, .rdf, .owl or .xml (optionally .gz)");
    };
    let reader = File::open(path).with_context(|| format!("{file}: cannot open"))?;
    let reader: Box<dyn Read> = if gzipped {
        Box::new(flate2::read::GzDecoder::new(BufReader::new(reader)))
    } else {
        Box::new(BufReader::new(reader))
    };
    tracing::info!(path = %file, ?format, "loading RDF");
    store.load_from_reader(RdfParser::from_format(format), reader).map_err(|e| load_error(&file, e))
}

fn load_error(file: &str, error: LoaderError) -> anyhow::Error {
    match error {
        LoaderError::Parsing(RdfParseError::Syntax(e)) => match e.location() {
            Some(range) => anyhow::anyhow!("{file}:{}:{}: {e}", range.start.line + 1, range.start.column + 1),
            None => anyhow::anyhow!("{file}: {e}"),
        },
        other => anyhow::anyhow!("{file}: {other}"),
    }
}
