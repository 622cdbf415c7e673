//! The parsed triples of a lexicon, indexed by subject, and a locator that finds the line of a
//! node in the source text (oxttl does not report positions of triples).

use std::collections::HashMap;

use oxrdf::{NamedOrBlankNode, Term, Triple};

/// An object: a node (IRI or `_:label`) or a literal's lexical form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Object {
    /// An IRI or a blank node (`_:label`).
    Node(String),
    /// A literal's value.
    Literal(String),
}

impl Object {
    /// The node, if this is one.
    pub(crate) fn node(&self) -> Option<&str> {
        match self {
            Object::Node(n) => Some(n),
            Object::Literal(_) => None,
        }
    }
}

/// Triples indexed by subject; each subject's `(predicate, object)` list in document order.
#[derive(Debug, Default)]
pub(crate) struct Graph {
    by_subject: HashMap<String, Vec<(String, Object)>>,
    /// Every triple in document order as `(subject, predicate, object)`.
    pub(crate) triples: Vec<(String, String, Object)>,
}

fn node_text(node: &NamedOrBlankNode) -> String {
    match node {
        NamedOrBlankNode::NamedNode(n) => n.as_str().to_owned(),
        NamedOrBlankNode::BlankNode(b) => format!("_:{}", b.as_str()),
        #[allow(unreachable_patterns)]
        other => other.to_string(),
    }
}

impl Graph {
    /// Indexes triples.
    pub(crate) fn new(triples: Vec<Triple>) -> Self {
        let mut graph = Graph::default();
        for triple in triples {
            let subject = node_text(&triple.subject);
            let object = match &triple.object {
                Term::NamedNode(n) => Object::Node(n.as_str().to_owned()),
                Term::BlankNode(b) => Object::Node(format!("_:{}", b.as_str())),
                Term::Literal(l) => Object::Literal(l.value().to_owned()),
                #[allow(unreachable_patterns)]
                other => Object::Literal(other.to_string()),
            };
            let predicate = triple.predicate.as_str().to_owned();
            graph.by_subject.entry(subject.clone()).or_default().push((predicate.clone(), object.clone()));
            graph.triples.push((subject, predicate, object));
        }
        graph
    }

    /// The `(predicate, object)` pairs of `subject`.
    pub(crate) fn properties(&self, subject: &str) -> &[(String, Object)] {
        self.by_subject.get(subject).map_or(&[], Vec::as_slice)
    }

    /// Whether `subject` has any triple.
    pub(crate) fn has_subject(&self, subject: &str) -> bool {
        self.by_subject.contains_key(subject)
    }

    /// The objects of `subject` whose predicate satisfies `wanted`.
    pub(crate) fn objects<'a>(
        &'a self,
        subject: &str,
        wanted: impl Fn(&str) -> bool + 'a,
    ) -> impl Iterator<Item = &'a Object> + 'a {
        self.properties(subject).iter().filter(move |(p, _)| wanted(p)).map(|(_, o)| o)
    }
}

/// Finds the line where a node is written, from the prefixes the parser saw.
pub(crate) struct Locator<'a> {
    text: &'a str,
    prefixes: Vec<(String, String)>,
}

impl<'a> Locator<'a> {
    /// A locator over `input` with `(prefix, namespace)` pairs.
    pub(crate) fn new(input: &'a [u8], prefixes: Vec<(String, String)>) -> Self {
        let text = std::str::from_utf8(input).unwrap_or("");
        Self { text, prefixes }
    }

    /// The 1-based line where `node` is first written as a subject (at the start of a line,
    /// followed by a predicate), else anywhere; 0 when it cannot be found (blank nodes, unusual spellings).
    pub(crate) fn line_of(&self, node: &str) -> u32 {
        if node.starts_with("_:") {
            return 0;
        }
        let mut spellings = vec![format!("<{node}>")];
        for (prefix, namespace) in &self.prefixes {
            if let Some(local) = node.strip_prefix(namespace.as_str()) {
                spellings.push(format!("{prefix}:{local}"));
            }
        }
        let mut anywhere = None;
        for spelling in &spellings {
            for (at, _) in self.text.match_indices(spelling.as_str()) {
                let after = self.text[at + spelling.len()..].chars().next();
                let before = self.text[..at].chars().next_back();
                let ends = after.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-' || c == ':'));
                let starts = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-' || c == ':'));
                if !(ends && starts) {
                    continue;
                }
                let line_start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
                let line = self.text[..at].matches('\n').count() as u32 + 1;
                let rest = self.text[at + spelling.len()..].lines().next().unwrap_or("").trim_start();
                let as_subject = !rest.is_empty() && !rest.starts_with([',', ';', '.']);
                if as_subject && self.text[line_start..at].trim().is_empty() {
                    return line;
                }
                anywhere.get_or_insert(line);
            }
        }
        anywhere.unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_subject_lines_first() {
        let text = b"@prefix : <http://x#> .\n:l :entry :a .\n\n:a :p :b .\n";
        let locator = Locator::new(text, vec![(String::new(), "http://x#".to_owned())]);
        assert_eq!(locator.line_of("http://x#a"), 4);
        assert_eq!(locator.line_of("http://x#b"), 4);
        assert_eq!(locator.line_of("http://x#zz"), 0);
        assert_eq!(locator.line_of("_:b0"), 0);
    }
}
