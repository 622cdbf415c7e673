//! Question lists (kgc-sparsity `trec_queries.txt`: `qid<TAB>entity<TAB>relation`).

use std::fmt::Write as _;

use kgeval_model::kgc::{KgcVocabulary, QuestionKey, QuestionSet, Side};
use rustc_hash::FxHashMap;

use super::lines::{quoted, Text};
use super::QueryLine;
use crate::FormatError;

pub(crate) fn read_queries(
    input: &[u8],
    file: &str,
    vocabulary: &KgcVocabulary,
) -> Result<Vec<QueryLine>, FormatError> {
    let text = Text::new(file, input)?;
    let mut out = Vec::new();
    let mut seen: FxHashMap<&str, u32> = FxHashMap::default();
    let mut fields = Vec::with_capacity(3);
    for line in text.lines() {
        if line.is_blank() {
            continue;
        }
        line.expect_fields(file, &["qid", "entity", "relation"], &mut fields)?;
        let qid = fields[0].text.trim();
        let side = if qid.starts_with("head") {
            Side::Head
        } else if qid.starts_with("tail") {
            Side::Tail
        } else {
            return Err(line.error(
                file,
                fields[0].start,
                format!("found qid {}, expected a qid starting with `head` or `tail`", quoted(qid)),
            ));
        };
        if let Some(first) = seen.insert(qid, line.number) {
            return Err(line.error(
                file,
                fields[0].start,
                format!("found qid {} again (first at line {first}), expected each qid once", quoted(qid)),
            ));
        }
        let name = fields[1].text.trim();
        let anchor = vocabulary.entities.get(name);
        if anchor.is_none() && vocabulary.closed_entities {
            return Err(line.error(
                file,
                fields[1].start,
                format!("found entity {}, expected an entity of the entity list", quoted(name)),
            ));
        }
        let relation = vocabulary.relations.get(fields[2].text.trim());
        let key = anchor.zip(relation).map(|(anchor, relation)| QuestionKey { side, relation, anchor });
        out.push(QueryLine { qid: qid.to_owned(), key, line: line.number });
    }
    if out.is_empty() {
        return Err(FormatError::syntax(file, 1, 1, "found no question, expected `qid<TAB>entity<TAB>relation` lines"));
    }
    Ok(out)
}

pub(crate) fn write_queries(questions: &QuestionSet, vocabulary: &KgcVocabulary) -> String {
    let mut out = String::with_capacity(questions.len() * 64);
    for q in questions.questions() {
        let _ = writeln!(
            out,
            "{}\t{}\t{}",
            q.id,
            vocabulary.entities.resolve(q.key.anchor),
            vocabulary.relations.resolve(q.key.relation)
        );
    }
    out
}
