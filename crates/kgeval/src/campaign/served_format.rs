//! What another family's file looks like when it is uploaded to a task: an upload the task's
//! reader refuses is looked at (its first 4 KiB) and, when it is plainly another family's
//! format — QALD XML sent to a lexicon task, a TREC run sent to a QALD task — the error names
//! both before the reader's line: `the upload looks like QALD XML, and this task takes a lemon
//! lexicon (Turtle): upload:1:1: …`. Only a refused upload is looked at, so a guess never
//! refuses a file its reader takes. A served error also leaves out the readers' hints that name
//! a command-line flag (`skip such cells with --skip-edoal`, `(--repair appends them)`): a team
//! uploading a file has no flag to pass ([`without_cli_hints`]).

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

/// `message` without the clauses that tell a command-line user which flag to pass: a
/// parenthesised group naming a flag (`(--repair appends them)`, `(or use --repair-xml)`), a
/// `; …` clause naming one (`; skip such cells with --skip-edoal`), a `, set by --flag`.
///
/// ```ignore
/// assert_eq!(without_cli_hints("a: b (or use --repair-xml)"), "a: b");
/// ```
pub(super) fn without_cli_hints(message: &str) -> String {
    let names_a_flag = |text: &str| {
        text.split(|c: char| c.is_whitespace() || c == '(' || c == '`')
            .any(|word| word.strip_prefix("--").is_some_and(|flag| flag.starts_with(|c: char| c.is_ascii_lowercase())))
    };
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    // Parenthesised groups naming a flag.
    while let Some(open) = rest.find(" (") {
        let Some(close) = rest[open..].find(')').map(|c| open + c) else { break };
        out.push_str(&rest[..open]);
        if !names_a_flag(&rest[open..=close]) {
            out.push_str(&rest[open..=close]);
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    // A `, set by --flag` aside, then the `; …` clauses after the first that name a flag.
    if let Some(at) = out.find(", set by --") {
        let after = at + ", set by --".len();
        let end = out[after..].find([',', ';', ' ']).map_or(out.len(), |e| after + e);
        out.replace_range(at..end, "");
    }
    let mut clauses = out.split("; ");
    let first = clauses.next().unwrap_or_default().to_owned();
    std::iter::once(first)
        .chain(clauses.filter(|clause| !names_a_flag(clause)).map(str::to_owned))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `error` of an upload to a task of `family`, as a team reads it: with the upload's look
/// before it when the upload plainly is another family's file, and without the readers' hints
/// naming a command-line flag; else `error` as it is.
pub(super) fn name_the_format(family: Family, upload: &Input, error: Error) -> Error {
    let error = match crate::campaign::one_line(&error) {
        line if line.contains(" --") || line.contains("(--") => {
            let line = without_cli_hints(&line);
            if error.concerns_gold() {
                Error::unfit(line)
            } else {
                Error::invalid(line)
            }
        }
        _ => error,
    };
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
    fn a_served_error_names_no_flag() {
        use super::without_cli_hints;
        for (message, kept) in [
            (
                "upload:3:5: EDOAL / level-2 cell (entity is the expression x): expected entities given as IRIs (rdf:resource); skip such cells with --skip-edoal",
                "upload:3:5: EDOAL / level-2 cell (entity is the expression x): expected entities given as IRIs (rdf:resource)",
            ),
            (
                "upload:2:9: raw '&' in a name (found \"a&b\"): expected an entity reference such as &amp; (or use --repair-xml)",
                "upload:2:9: raw '&' in a name (found \"a&b\"): expected an entity reference such as &amp;",
            ),
            ("upload:4:1: q7 is not a permutation of the pool: 2 missing: a, b (--repair appends them)", "upload:4:1: q7 is not a permutation of the pool: 2 missing: a, b"),
            ("upload: found 5 GB, over the decompressed limit, set by --max-decompressed (80 MB)", "upload: found 5 GB, over the decompressed limit (80 MB)"),
            ("upload:1:1: found a dash -- in text (a note)", "upload:1:1: found a dash -- in text (a note)"),
        ] {
            assert_eq!(without_cli_hints(message), kept, "{message}");
        }
    }

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
