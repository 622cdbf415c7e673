//! From the triples of a lexicon to [`LexicalEntry`] values, with a located warning for every
//! defect the real gold files have.

use std::collections::{HashMap, HashSet};

use kgeval_model::lexicon::{Frame, LexicalEntry, Lexicon, Sense, SyntacticArgument};
use kgeval_model::{Diagnostic, Location};

use super::graph::{Graph, Locator, Object};
use super::vocabulary::{
    argument_role, frame_typo, is_entry_class, is_lexical_entry_class, lemon_local, lexinfo_local, lexinfo_name,
    role_typo, RDF_TYPE,
};
use crate::FormatError;

/// Whether `predicate` is the lemon / OntoLex property `local`.
fn is(predicate: &str, local: &str) -> bool {
    lemon_local(predicate) == Some(local)
}

/// Builds the entries: the objects of `lemon:entry` / `lime:entry` when the file has any, else
/// every node typed as a lexical entry (M-ATOLL lexica list no entries).
pub(crate) fn build(
    graph: &Graph,
    locator: &Locator<'_>,
    file: &str,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Lexicon, FormatError> {
    let at = |line: u32| Location { file: file.to_owned(), line, column: u32::from(line > 0) };
    let mut listed: Vec<String> = Vec::new();
    let mut typed: Vec<(String, bool)> = Vec::new();
    for (subject, predicate, object) in &graph.triples {
        if is(predicate, "entry") {
            if let Some(node) = object.node() {
                if !listed.iter().any(|n| n == node) {
                    listed.push(node.to_owned());
                }
            }
        } else if predicate == RDF_TYPE {
            if let Object::Node(class) = object {
                if is_entry_class(class) && !typed.iter().any(|(n, _)| n == subject) {
                    typed.push((subject.clone(), is_lexical_entry_class(class)));
                }
            }
        }
    }
    let nodes: Vec<String> = if listed.is_empty() {
        if typed.is_empty() {
            return Err(FormatError::syntax(
                file,
                1,
                1,
                "found no lemon:entry triple and no node typed lemon:LexicalEntry: expected a lemon or OntoLex lexicon",
            ));
        }
        warnings.push({
            Diagnostic::note(
                "entries-by-type",
                format!(
                    "no lemon:entry triple: the {} nodes typed as lexical entries are read as the entries",
                    typed.len()
                ),
            )
            .at(at(0))
        });
        typed.iter().map(|(n, _)| n.clone()).collect()
    } else {
        let listed_set: HashSet<&str> = listed.iter().map(String::as_str).collect();
        for (node, lexical_entry) in &typed {
            let has_sense = graph.objects(node, |p| is(p, "sense")).next().is_some();
            if !listed_set.contains(node.as_str()) && (*lexical_entry || has_sense) {
                warnings.push({
                    Diagnostic::warning(
                        "orphan-entry",
                        format!(
                            "entry {} is typed as a lexical entry but not listed under lemon:entry: not scored",
                            short(node)
                        ),
                    )
                    .at(at(locator.line_of(node)))
                });
            }
        }
        listed
    };
    let entry_nodes: HashSet<&str> = nodes.iter().map(String::as_str).collect();
    let mut entries = Vec::with_capacity(nodes.len());
    for node in &nodes {
        let line = locator.line_of(node);
        if !graph.has_subject(node) {
            warnings.push({
                Diagnostic::warning("undefined-entry", format!("entry {} is listed but never described", short(node)))
                    .at(at(line))
            });
            continue;
        }
        let entry = read_entry(graph, node, line);
        check_entry(&entry, &entry_nodes, file, warnings);
        entries.push(entry);
    }
    check_markers(graph, &entries, locator, file, warnings);
    Ok(Lexicon { entries })
}

fn read_entry(graph: &Graph, node: &str, line: u32) -> LexicalEntry {
    let written_rep = graph
        .objects(node, |p| is(p, "canonicalForm"))
        .filter_map(Object::node)
        .find_map(|form| written_rep_of(graph, form));
    let part_of_speech = graph.objects(node, |p| lexinfo_local(p) == Some("partOfSpeech")).next().map(|o| match o {
        Object::Node(iri) => lexinfo_name(iri).rsplit(['#', '/']).next().unwrap_or_default().to_owned(),
        Object::Literal(text) => text.clone(),
    });
    let mut senses = Vec::new();
    for sense in graph.objects(node, |p| is(p, "sense")).filter_map(Object::node) {
        read_sense(graph, sense, false, &mut senses, 0);
    }
    for reference in graph.objects(node, |p| is(p, "denotes")).filter_map(Object::node) {
        senses.push(Sense { references: vec![reference.to_owned()], ..Sense::default() });
    }
    let frames = graph
        .objects(node, |p| is(p, "synBehavior"))
        .filter_map(Object::node)
        .map(|frame| read_frame(graph, frame))
        .collect();
    LexicalEntry { node: node.to_owned(), written_rep, part_of_speech, senses, frames, line }
}

fn written_rep_of(graph: &Graph, form: &str) -> Option<String> {
    graph.objects(form, |p| is(p, "writtenRep")).find_map(|o| match o {
        Object::Literal(text) => Some(text.clone()),
        Object::Node(_) => None,
    })
}

/// Reads a sense and, flattened after it, its subsenses / submaps (depth-limited: cycles).
fn read_sense(graph: &Graph, node: &str, subsense: bool, out: &mut Vec<Sense>, depth: usize) {
    let mut sense = Sense { subsense, ..Sense::default() };
    let mut children = Vec::new();
    for (predicate, object) in graph.properties(node) {
        match (lemon_local(predicate), object) {
            (Some("reference"), Object::Node(r)) => sense.references.push(r.clone()),
            (Some("subjOfProp"), Object::Node(n)) => sense.subject_nodes.push(n.clone()),
            (Some("objOfProp"), Object::Node(n)) => sense.object_nodes.push(n.clone()),
            (Some("subsense" | "submap"), Object::Node(child)) => {
                children.push(child.clone());
                sense.other_properties += 1;
            }
            _ => sense.other_properties += 1,
        }
    }
    out.push(sense);
    if depth < 8 {
        for child in children {
            read_sense(graph, &child, true, out, depth + 1);
        }
    }
}

fn read_frame(graph: &Graph, node: &str) -> Frame {
    let mut frame = Frame::default();
    for (predicate, object) in graph.properties(node) {
        if predicate == RDF_TYPE {
            if let (None, Object::Node(class)) = (&frame.frame_type, object) {
                frame.frame_type = Some(lexinfo_name(class));
            }
            continue;
        }
        let (Some(role), Object::Node(argument)) = (argument_role(predicate), object) else { continue };
        let marker = graph.objects(argument, |p| is(p, "marker")).next().map(|m| marker_text(graph, m));
        frame.arguments.push(SyntacticArgument { role, node: argument.clone(), marker });
    }
    frame
}

/// A marker's written form: its canonical form, else the IRI's local name, else the literal.
fn marker_text(graph: &Graph, marker: &Object) -> String {
    match marker {
        Object::Literal(text) => text.clone(),
        Object::Node(node) => graph
            .objects(node, |p| is(p, "canonicalForm"))
            .filter_map(Object::node)
            .find_map(|form| written_rep_of(graph, form))
            .unwrap_or_else(|| short(node).to_owned()),
    }
}

/// The defects of one entry, located at the entry's line.
fn check_entry(entry: &LexicalEntry, entry_nodes: &HashSet<&str>, file: &str, warnings: &mut Vec<Diagnostic>) {
    let location = Location { file: file.to_owned(), line: entry.line, column: u32::from(entry.line > 0) };
    let name = short(&entry.node);
    let mut warn = |code: &'static str, message: String| {
        warnings.push(Diagnostic::warning(code, message).at(location.clone()));
    };
    if entry.written_rep.is_none() && !entry.references().is_empty() {
        warn("entry-without-lemma", format!("entry {name} has a sense but no canonicalForm/writtenRep: not scored"));
    }
    let mut argument_nodes = HashSet::new();
    for frame in &entry.frames {
        if let Some(class) = &frame.frame_type {
            if let Some(known) = frame_typo(class) {
                warn(
                    "frame-typo",
                    format!("entry {name}: frame class lexinfo:{class} is not a LexInfo class (a typo of {known}?): compared as written"),
                );
            }
        }
        for argument in &frame.arguments {
            argument_nodes.insert(argument.node.as_str());
            if let Some(known) = role_typo(&argument.role) {
                warn(
                    "role-typo",
                    format!(
                        "entry {name}: role lexinfo:{} is not a LexInfo role (a typo of {known}?): compared as written",
                        argument.role
                    ),
                );
            }
            if entry_nodes.contains(argument.node.as_str()) {
                warn(
                    "argument-is-entry",
                    format!(
                        "entry {name}: argument {} ({}) is a lexical entry, not an argument node",
                        short(&argument.node),
                        argument.role
                    ),
                );
            }
        }
    }
    if entry.frames.is_empty() {
        return;
    }
    let mut reported = HashSet::new();
    for sense in &entry.senses {
        for node in sense.subject_nodes.iter().chain(&sense.object_nodes) {
            if !argument_nodes.contains(node.as_str()) && reported.insert(node.as_str()) {
                warn(
                    "unmapped-sense-argument",
                    format!("entry {name}: the sense maps {} but no frame of the entry has that argument", short(node)),
                );
            }
        }
    }
}

/// Markers on nodes that are no frame argument, and argument nodes with several markers.
fn check_markers(
    graph: &Graph,
    entries: &[LexicalEntry],
    locator: &Locator<'_>,
    file: &str,
    warnings: &mut Vec<Diagnostic>,
) {
    let arguments: HashSet<&str> =
        entries.iter().flat_map(|e| &e.frames).flat_map(|f| &f.arguments).map(|a| a.node.as_str()).collect();
    let mut markers: HashMap<&str, usize> = HashMap::new();
    for (subject, predicate, _) in &graph.triples {
        if is(predicate, "marker") {
            *markers.entry(subject.as_str()).or_default() += 1;
        }
    }
    let mut nodes: Vec<(&str, usize)> = markers.into_iter().collect();
    nodes.sort_unstable();
    for (node, count) in nodes {
        let location = Location { file: file.to_owned(), line: locator.line_of(node), column: 0 };
        let location = Location { column: u32::from(location.line > 0), ..location };
        if !arguments.contains(node) {
            warnings.push({
                Diagnostic::warning(
                    "marker-on-non-argument",
                    format!("{} has a lemon:marker but is no argument of any frame", short(node)),
                )
                .at(location.clone())
            });
        } else if count > 1 {
            warnings.push({
                Diagnostic::warning(
                    "several-markers",
                    format!("argument {} has {count} markers: the first is kept", short(node)),
                )
                .at(location.clone())
            });
        }
    }
}

/// The local part of an IRI (after the last `#` or `/`), for messages.
pub(crate) fn short(node: &str) -> &str {
    if node.starts_with("_:") {
        return node;
    }
    node.rsplit(['#', '/']).find(|s| !s.is_empty()).unwrap_or(node)
}
