//! What another family's file looks like when it is uploaded to a task: an upload the task's
//! reader refuses is looked at (its first 4 KiB) and, when it is plainly another family's
//! format — QALD XML sent to a lexicon task, a TREC run sent to a QALD task — the error names
//! both before the reader's line: `the upload looks like QALD XML, and this task takes a lemon
//! lexicon (Turtle): upload:1:1: …`. Only a refused upload is looked at, so a guess never
//! refuses a file its reader takes.

use crate::{Error, Family, Input};

/// How much of an upload is looked at.
const HEAD: usize = 4096;

/// A format recognised at the start of an upload: its name in messages and its family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Look {
    /// `QALD XML`, `a TREC run`, ….
    pub name: &'static str,
    /// The family whose files look so.
    pub family: Family,
}

/// What a task of `family` takes, in words.
fn takes(family: Family) -> &'static str {
    match family {
        Family::Trec => "a TREC run (qid Q0 docno rank score tag)",
        Family::Qald => "QALD answers (QALD XML or JSON)",
        Family::Lexicon => "a lemon lexicon (Turtle)",
        Family::Align => "an alignment (Alignment API RDF/XML, SSSOM TSV or RDF)",
        Family::Rank => "rankings as JSON lines ({\"qid\": …, \"scores\": {…}})",
        Family::Kgc => "KGC ranks",
    }
}

/// The format the start of `bytes` plainly shows, if any.
pub(super) fn look(bytes: &[u8]) -> Option<Look> {
    let head = &bytes[..bytes.len().min(HEAD)];
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    let look = |name, family| Some(Look { name, family });
    if text.starts_with('<') {
        if text.contains("<dataset") || text.contains("<question") {
            return look("QALD XML", Family::Qald);
        }
        if text.contains("<Alignment") || text.contains("knowledgeweb/turtle/align") || text.contains("<map>") {
            return look("an alignment (RDF/XML)", Family::Align);
        }
        return None;
    }
    if text.starts_with('{') || text.starts_with('[') {
        if text.contains("\"questions\"") {
            return look("QALD JSON", Family::Qald);
        }
        let first = text.lines().next().unwrap_or_default();
        if first.contains("\"qid\"") && first.contains("\"scores\"") {
            return look("rankings as JSON lines", Family::Rank);
        }
        return None;
    }
    if (text.starts_with("@prefix") || text.starts_with("PREFIX") || text.starts_with("@base"))
        && (text.contains("lemon") || text.contains("ontolex"))
    {
        return look("a lemon lexicon (Turtle)", Family::Lexicon);
    }
    if text.starts_with("subject_id\t") || text.starts_with("#curie_map") || text.starts_with("# curie_map") {
        return look("an SSSOM mapping set (TSV)", Family::Align);
    }
    let first = text.lines().next().unwrap_or_default();
    let fields: Vec<&str> = first.split_ascii_whitespace().collect();
    if fields.len() == 6 && fields[1] == "Q0" && fields[3].parse::<u64>().is_ok() && fields[4].parse::<f64>().is_ok() {
        return look("a TREC run", Family::Trec);
    }
    None
}

/// `error` of an upload to a task of `family` with the upload's look before it, when the
/// upload plainly is another family's file; else `error` as it is.
pub(super) fn name_the_format(family: Family, upload: &Input, error: Error) -> Error {
    if error.concern() != crate::Concern::Input {
        return error;
    }
    let Ok(opened) = upload.open() else { return error };
    match look(opened.bytes()) {
        Some(found) if found.family != family => Error::invalid(format!(
            "the upload looks like {}, and this task takes {}: {}",
            found.name,
            takes(family),
            crate::campaign::one_line(&error)
        )),
        _ => error,
    }
}

#[cfg(test)]
mod tests {
    use super::{look, Family};

    #[test]
    fn each_family_is_told_apart() {
        let bundled =
            |path: &str| std::fs::read(std::path::Path::new("../../testdata").join(path)).expect("bundled data");
        for (path, family) in [
            ("qald/qald3/dbpedia-train-answers.xml", Family::Qald),
            ("qald/json/qald_10.json", Family::Qald),
            ("lemon/qald3-dbpedia-test-lexicon-en.ttl", Family::Lexicon),
            ("trec_eval/test/results.test", Family::Trec),
            ("diso/brick-smartenv/Rapprox.rdf", Family::Align),
            ("ranking/diso-synthetic/uco-stix/lexical.jsonl", Family::Rank),
        ] {
            assert_eq!(look(&bundled(path)).map(|l| l.family), Some(family), "{path}");
        }
        assert_eq!(look(b"301 0 doc 1\n"), None, "qrels are no run");
        assert_eq!(look(b"   "), None);
        assert_eq!(look(b"\xef\xbb\xbf<?xml version=\"1.0\"?><dataset id=\"x\">").map(|l| l.name), Some("QALD XML"));
    }
}
