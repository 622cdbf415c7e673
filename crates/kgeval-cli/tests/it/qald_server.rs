//! A SPARQL 1.1 protocol server on loopback for the tests: a std `TcpListener` over an
//! in-memory oxigraph store, answering `POST` form-encoded queries with SPARQL JSON results,
//! or misbehaving on purpose (HTTP 500, malformed results, no answer at all).

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::thread;

use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsSerializer};
use oxigraph::sparql::{QueryResults, SparqlEvaluator};
use oxigraph::store::Store;

/// How the server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Behaviour {
    /// Runs the query and answers with SPARQL JSON results.
    Serve,
    /// `HTTP 500` with a text body.
    InternalError,
    /// `200 OK` with a body that is not SPARQL JSON.
    MalformedResults,
    /// Reads the request and never answers (until the test ends).
    Silent,
}

/// A running server (its thread ends with the test process).
pub(crate) struct Server {
    /// The endpoint URL.
    pub(crate) url: String,
}

/// Starts a server on 127.0.0.1 (a free port) over the RDF files `data`.
pub(crate) fn start(data: &[&Path], behaviour: Behaviour) -> Server {
    let store = Store::new().expect("store");
    for path in data {
        let format = if path.extension().is_some_and(|e| e == "rdf") { RdfFormat::RdfXml } else { RdfFormat::Turtle };
        let bytes = std::fs::read(path).expect("data");
        store.load_from_slice(RdfParser::from_format(format), &bytes).expect("load");
    }
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}/sparql", listener.local_addr().expect("address"));
    thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            match behaviour {
                // Keep the connection open without answering, until the test process ends.
                Behaviour::Silent => held.push(stream),
                _ => {
                    let _ = answer(stream, &store, behaviour);
                }
            }
        }
    });
    Server { url }
}

fn answer(mut stream: TcpStream, store: &Store, behaviour: Behaviour) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let form = String::from_utf8_lossy(&body).into_owned();
    let query = form.split('&').find_map(|kv| kv.strip_prefix("query=")).map(form_decode).unwrap_or_default();
    let (status, content_type, payload) = match behaviour {
        Behaviour::InternalError => ("500 Internal Server Error", "text/plain", b"the store is on fire\n".to_vec()),
        Behaviour::MalformedResults => {
            ("200 OK", "application/sparql-results+json", b"{\"head\": {\"vars\": [".to_vec())
        }
        _ => match run(store, &query) {
            Ok(json) => ("200 OK", "application/sparql-results+json", json),
            Err(message) => ("400 Bad Request", "text/plain", message.into_bytes()),
        },
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        payload.len()
    )?;
    stream.write_all(&payload)?;
    stream.flush()
}

fn run(store: &Store, query: &str) -> Result<Vec<u8>, String> {
    let prepared = SparqlEvaluator::new().parse_query(query).map_err(|e| e.to_string())?;
    let serializer = QueryResultsSerializer::from_format(QueryResultsFormat::Json);
    match prepared.on_store(store).execute().map_err(|e| e.to_string())? {
        QueryResults::Boolean(b) => serializer.serialize_boolean_to_writer(Vec::new(), b).map_err(|e| e.to_string()),
        QueryResults::Solutions(solutions) => {
            let mut writer = serializer
                .serialize_solutions_to_writer(Vec::new(), solutions.variables().to_vec())
                .map_err(|e| e.to_string())?;
            for solution in solutions {
                writer.serialize(&solution.map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
            }
            writer.finish().map_err(|e| e.to_string())
        }
        QueryResults::Graph(_) => Err("CONSTRUCT is not supported here".to_owned()),
    }
}

/// `application/x-www-form-urlencoded` value decoding.
fn form_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
