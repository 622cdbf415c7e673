//! Running QALD SPARQL queries: on an embedded in-memory oxigraph store loaded from RDF inputs
//! (Turtle, N-Triples, N-Quads, TriG, RDF/XML; gzip decompressed, as every input), or on a
//! SPARQL 1.1 protocol endpoint over HTTP (POST, form-encoded, JSON results, timeouts).
//!
//! Results become answers: an ASK gives one boolean; each SELECT row gives one answer, the
//! value of the first projected variable bound in the row, and the row's other bound values
//! as its aliases (QALD-2 gold queries select `?uri ?string` with the label in `?string`).
//!
//! Every query runs under [`QueryBounds`]: its rows are read one at a time (never collected
//! whole first) and it stops with an error past `max_rows` rows, past its deadline (the
//! task's `timeout`, or the end of the whole scoring when the caller set one, whichever comes
//! first) or once the answers one file's queries hold pass a byte budget. The embedded
//! store's evaluation is cancelled at the deadline from a watchdog thread (oxigraph's
//! `CancellationToken`, which the evaluator checks at every quad it reads), so a query that
//! produces no row for a long time stops too; an endpoint's response is read as a stream
//! capped in bytes, under the same deadline.

use std::cell::Cell;
use std::io::Read;
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use kgeval_formats::Input;
use kgeval_model::qald::{Answer, AnswerValue, QaldDataset, QaldQuery, QueryExecution};
use oxigraph::io::{RdfFormat, RdfParseError, RdfParser};
use oxigraph::model::{vocab::xsd, Term};
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsParser, ReaderQueryResultsParserOutput};
use oxigraph::sparql::{CancellationToken, QueryEvaluationError, QueryResults, QuerySolution, SparqlEvaluator};
use oxigraph::store::{LoaderError, Store};

use crate::{Error, Progress};

/// Where queries run.
pub(crate) enum SparqlBackend {
    /// An in-memory store.
    Embedded(Store),
    /// A SPARQL 1.1 protocol endpoint; `shown` is how messages name it (its URL, or for a
    /// served task "the task's endpoint").
    Endpoint { url: String, shown: String, agent: ureq::Agent },
}

/// What bounds every query of one file (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub(crate) struct QueryBounds {
    /// The most rows one query may give.
    pub(crate) max_rows: u64,
    /// How long one query may run.
    pub(crate) timeout: Duration,
    /// When every query must have finished (the end of a whole scoring), if set.
    pub(crate) deadline: Option<Instant>,
    /// The most bytes the answers of one file's queries may hold together (and the most an
    /// endpoint's response may have).
    pub(crate) answer_bytes: usize,
    /// The most the process's resident memory may grow while one query runs on the embedded
    /// store (the evaluator's own tables: a sort, a join's materialised side).
    pub(crate) memory_growth: usize,
}

impl QueryBounds {
    /// When the query starting now must stop, and whether that is the scoring's deadline
    /// rather than the query's own timeout.
    fn query_deadline(&self) -> (Instant, bool) {
        let own = Instant::now().checked_add(self.timeout);
        match (own, self.deadline) {
            (Some(own), Some(all)) if all < own => (all, true),
            (Some(own), _) => (own, false),
            (None, Some(all)) => (all, true),
            // A timeout beyond the clock's range: a year is as good as forever.
            (None, None) => (Instant::now() + Duration::from_secs(365 * 24 * 3600), false),
        }
    }
}

/// The bytes the answers of one file's queries may still hold.
struct Budget {
    left: usize,
    total: usize,
}

impl Budget {
    /// Takes the size of `answer` (its struct and its strings) from the budget.
    fn take(&mut self, answer: &Answer) -> Result<(), String> {
        let size = answer_size(answer);
        if size > self.left {
            return Err(format!(
                "found query results holding more than {} bytes of answers in this file, expected at most {} \
                 (the answers of one file's queries together)",
                self.total, self.total
            ));
        }
        self.left -= size;
        Ok(())
    }
}

/// The bytes `answer` holds: its struct, its strings and its aliases.
fn answer_size(answer: &Answer) -> usize {
    let value = match &answer.value {
        AnswerValue::Literal { lexical, datatype, language } => {
            lexical.len() + datatype.as_ref().map_or(0, String::len) + language.as_ref().map_or(0, String::len)
        }
        other => other.lexical().len(),
    };
    std::mem::size_of::<Answer>()
        + value
        + answer.aliases.iter().map(|a| std::mem::size_of::<String>() + a.len()).sum::<usize>()
}

/// Why a watchdog cancelled a query.
const STOPPED_FOR_TIME: u8 = 1;
const STOPPED_FOR_MEMORY: u8 = 2;

/// How often a watchdog looks at the clock and the process's memory.
const WATCH_EVERY: Duration = Duration::from_millis(10);

/// Cancels a query's evaluation at its deadline, or once the process's resident memory has
/// grown by more than the query's allowance since it started (Linux, where `/proc/self/status`
/// tells), unless dropped first (the query finished): one thread waiting on a channel that
/// dropping closes.
struct Watchdog {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    why: Arc<AtomicU8>,
}

impl Watchdog {
    fn start(token: CancellationToken, deadline: Instant, memory_growth: usize) -> Result<Watchdog, Error> {
        let (stop, stopped) = mpsc::channel::<()>();
        let why = Arc::new(AtomicU8::new(0));
        let said = Arc::clone(&why);
        let start = resident_bytes();
        let thread = std::thread::Builder::new()
            .name("kgeval-sparql-watchdog".to_owned())
            .spawn(move || loop {
                let now = Instant::now();
                if now >= deadline {
                    said.store(STOPPED_FOR_TIME, Ordering::Relaxed);
                    token.cancel();
                    return;
                }
                if let (Some(start), Some(now)) = (start, resident_bytes()) {
                    if now.saturating_sub(start) > memory_growth {
                        said.store(STOPPED_FOR_MEMORY, Ordering::Relaxed);
                        token.cancel();
                        return;
                    }
                }
                match stopped.recv_timeout(WATCH_EVERY.min(deadline - now)) {
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
            })
            .map_err(|e| Error::invalid(format!("cannot start the thread that bounds a query: {e}")))?;
        Ok(Watchdog { stop: Some(stop), thread: Some(thread), why })
    }

    /// Why it cancelled the query (`None`: it did not).
    fn why(&self) -> Option<u8> {
        Some(self.why.load(Ordering::Relaxed)).filter(|&w| w != 0)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            // The thread ends at once when the channel closes; it cannot panic.
            let _ = thread.join();
        }
    }
}

/// The process's resident memory in bytes (`VmRSS` of `/proc/self/status`), where known.
fn resident_bytes() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?;
    let kib: usize = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// Why a query stopped before its end.
fn too_slow(bounds: &QueryBounds, scoring_deadline: bool) -> String {
    if scoring_deadline {
        "found a query still running when the scoring's time ran out, expected every query of the file to finish \
         within it"
            .to_owned()
    } else {
        format!(
            "found a query still running after {} s, expected it to finish within the task's timeout",
            bounds.timeout.as_secs_f64()
        )
    }
}

fn too_much_memory(bounds: &QueryBounds) -> String {
    format!(
        "found a query whose evaluation grew the memory by more than {} MiB, expected at most that much",
        bounds.memory_growth >> 20
    )
}

fn too_many_rows(bounds: &QueryBounds) -> String {
    format!("found a query giving more than {} rows, expected at most max_rows = {}", bounds.max_rows, bounds.max_rows)
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

    /// An endpoint client with a connect timeout; each request sets its own overall timeout.
    pub(crate) fn endpoint(url: &str, timeout: Duration) -> Self {
        let agent = ureq::AgentBuilder::new().timeout_connect(timeout).timeout(timeout).build();
        SparqlBackend::Endpoint { url: url.to_owned(), shown: url.to_owned(), agent }
    }

    /// Messages name the endpoint `name` instead of its URL.
    pub(crate) fn show_endpoint_as(&mut self, name: &str) {
        if let SparqlBackend::Endpoint { shown, .. } = self {
            name.clone_into(shown);
        }
    }

    /// Where the results came from, for the conventions.
    pub(crate) fn execution(&self) -> QueryExecution {
        match self {
            SparqlBackend::Embedded(store) => {
                QueryExecution::EmbeddedStore { triples: store.len().unwrap_or_default() }
            }
            SparqlBackend::Endpoint { shown, .. } => QueryExecution::Endpoint { url: shown.clone() },
        }
    }

    /// Runs the SPARQL query of every question that gives one and no answers (or of every
    /// question, with `all`), replacing its answers with the results, each query under
    /// `bounds` (the answers of all of them under one budget).
    pub(crate) fn execute(
        &self,
        dataset: &mut QaldDataset,
        all: bool,
        bounds: &QueryBounds,
        progress: &dyn Progress,
    ) -> Result<(), Error> {
        let mut budget = Budget { left: bounds.answer_bytes, total: bounds.answer_bytes };
        for question in &mut dataset.questions {
            let QaldQuery::Sparql(query) = &question.query else { continue };
            if question.answers.is_some() && !all {
                continue;
            }
            tracing::debug!(location = %question.location, "running the question's query");
            let answers = self
                .answers(query, bounds, &mut budget)
                .map_err(|e| Error::invalid(format!("{}: question {}: {e}", question.location, question.id)))?;
            question.answers = Some(answers);
            progress.advance(1);
        }
        Ok(())
    }

    /// Runs `query`; errors are one line without the question's location (the caller adds it).
    fn answers(&self, query: &str, bounds: &QueryBounds, budget: &mut Budget) -> Result<Vec<Answer>, String> {
        let (deadline, scoring_deadline) = bounds.query_deadline();
        let mut rows = Rows { answers: Vec::new(), count: 0, bounds, budget };
        match self {
            SparqlBackend::Embedded(store) => {
                let token = CancellationToken::new();
                let mut prepared =
                    SparqlEvaluator::new().with_cancellation_token(token.clone()).parse_query(query).map_err(|e| {
                        format!("the SPARQL query does not parse: {}", syntax_message(query, &e.to_string()))
                    })?;
                prepared.dataset_mut().set_default_graph_as_union();
                let watchdog =
                    Watchdog::start(token.clone(), deadline, bounds.memory_growth).map_err(|e| e.to_string())?;
                let stopped = || match watchdog.why() {
                    Some(STOPPED_FOR_MEMORY) => too_much_memory(bounds),
                    _ => too_slow(bounds, scoring_deadline),
                };
                let failed = |e: QueryEvaluationError| match e {
                    QueryEvaluationError::Cancelled => stopped(),
                    other => format!("query evaluation failed: {other}"),
                };
                match prepared.on_store(store).execute().map_err(failed)? {
                    QueryResults::Boolean(b) => Ok(vec![Answer::new(AnswerValue::Boolean(b.to_string()))]),
                    QueryResults::Solutions(solutions) => {
                        for row in solutions {
                            let row = row.map_err(failed)?;
                            if token.is_cancelled() {
                                return Err(stopped());
                            }
                            rows.push(&row)?;
                        }
                        Ok(rows.answers)
                    }
                    QueryResults::Graph(_) => {
                        Err("found a CONSTRUCT or DESCRIBE query, expected SELECT or ASK".to_owned())
                    }
                }
            }
            SparqlBackend::Endpoint { url, shown, agent } => {
                let response = agent
                    .post(url)
                    .timeout(deadline.saturating_duration_since(Instant::now()))
                    .set("Accept", "application/sparql-results+json")
                    .send_form(&[("query", query)])
                    .map_err(|e| endpoint_error(shown, e))?;
                let over = Rc::new(Cell::new(false));
                let cap = rows.budget.left;
                let reader = Capped { inner: response.into_reader(), left: cap, over: Rc::clone(&over) };
                let malformed = |e: &dyn std::fmt::Display| {
                    if over.get() {
                        format!(
                            "{shown}: found a response of more than {cap} bytes, expected at most {cap} (what is left \
                             of the file's budget of {} bytes of answers)",
                            bounds.answer_bytes
                        )
                    } else if Instant::now() >= deadline {
                        too_slow(bounds, scoring_deadline)
                    } else {
                        format!("{shown}: malformed SPARQL JSON results: {e}")
                    }
                };
                let parsed = QueryResultsParser::from_format(QueryResultsFormat::Json)
                    .for_reader(reader)
                    .map_err(|e| malformed(&e))?;
                match parsed {
                    ReaderQueryResultsParserOutput::Boolean(b) => {
                        Ok(vec![Answer::new(AnswerValue::Boolean(b.to_string()))])
                    }
                    ReaderQueryResultsParserOutput::Solutions(solutions) => {
                        for row in solutions {
                            let row = row.map_err(|e| malformed(&e))?;
                            if Instant::now() >= deadline {
                                return Err(too_slow(bounds, scoring_deadline));
                            }
                            rows.push(&row)?;
                        }
                        Ok(rows.answers)
                    }
                }
            }
        }
    }
}

/// The answers of one query as its rows come, under the row cap and the file's budget.
struct Rows<'b> {
    answers: Vec<Answer>,
    count: u64,
    bounds: &'b QueryBounds,
    budget: &'b mut Budget,
}

impl Rows<'_> {
    fn push(&mut self, row: &QuerySolution) -> Result<(), String> {
        self.count += 1;
        if self.count > self.bounds.max_rows {
            return Err(too_many_rows(self.bounds));
        }
        if let Some(answer) = row_answer(row) {
            self.budget.take(&answer)?;
            self.answers.push(answer);
        }
        Ok(())
    }
}

/// A reader that fails (and says so in `over`) past `left` bytes, instead of ending quietly.
struct Capped<R> {
    inner: R,
    left: usize,
    over: Rc<Cell<bool>>,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            let mut probe = [0u8; 1];
            if self.inner.read(&mut probe)? == 0 {
                return Ok(0);
            }
            self.over.set(true);
            return Err(std::io::Error::other("the response is larger than its cap"));
        }
        let n = buf.len().min(self.left);
        let read = self.inner.read(&mut buf[..n])?;
        self.left -= read;
        Ok(read)
    }
}

fn endpoint_error(url: &str, error: ureq::Error) -> String {
    match error {
        ureq::Error::Status(code, response) => {
            let status = response.status_text().to_owned();
            let body = response.into_string().unwrap_or_default();
            let first = body.lines().find(|l| !l.trim().is_empty()).unwrap_or_default();
            let first: String = first.chars().take(200).collect();
            format!("{url}: the endpoint answered HTTP {code} {status}: {first}")
        }
        // Said without the URL ureq prefixes (`url` may be a name that hides it).
        ureq::Error::Transport(t) => {
            let mut line = format!("{url}: request failed: {}", t.kind());
            for part in
                t.message().map(str::to_owned).into_iter().chain(std::error::Error::source(&t).map(ToString::to_string))
            {
                line.push_str(": ");
                line.push_str(&part);
            }
            line
        }
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
