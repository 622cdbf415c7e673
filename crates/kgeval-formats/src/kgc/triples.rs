//! Triple files (`head<TAB>relation<TAB>tail`) and entity lists.

use kgeval_model::kgc::{KgcVocabulary, Triple, TripleFile};
use kgeval_model::TermId;

use super::lines::{quoted, Field, Line, Text};
use crate::FormatError;

const TRIPLE_FIELDS: [&str; 3] = ["head", "relation", "tail"];

pub(crate) fn read_triples(
    input: &[u8],
    file: &str,
    vocabulary: &mut KgcVocabulary,
) -> Result<TripleFile, FormatError> {
    let text = Text::new(file, input)?;
    let mut out = TripleFile { name: file.to_owned(), ..TripleFile::default() };
    let mut fields = Vec::with_capacity(3);
    for line in text.lines() {
        if line.is_blank() {
            continue;
        }
        line.expect_fields(file, &TRIPLE_FIELDS, &mut fields)?;
        out.triples.push(triple(vocabulary, &line, &fields, file)?);
        out.lines.push(line.number);
    }
    Ok(out)
}

/// The triple of the first three fields of a line (relations are always added; entities as
/// [`entity`]).
pub(crate) fn triple(
    vocabulary: &mut KgcVocabulary,
    line: &Line<'_>,
    fields: &[Field<'_>],
    file: &str,
) -> Result<Triple, FormatError> {
    let head = entity(vocabulary, line, fields[0], file)?;
    let relation = vocabulary.relations.intern(fields[1].text.trim());
    let tail = entity(vocabulary, line, fields[2], file)?;
    Ok(Triple { head, relation, tail })
}

/// The id of the entity in `field`, or the error for an entity outside a closed list.
fn entity(
    vocabulary: &mut KgcVocabulary,
    line: &Line<'_>,
    field: Field<'_>,
    file: &str,
) -> Result<TermId, FormatError> {
    let name = field.text.trim();
    vocabulary.entity(name).ok_or_else(|| {
        line.error(file, field.start, format!("found entity {}, expected an entity of the entity list", quoted(name)))
    })
}

pub(crate) fn read_entities(input: &[u8], file: &str) -> Result<KgcVocabulary, FormatError> {
    let text = Text::new(file, input)?;
    let mut vocabulary = KgcVocabulary { closed_entities: true, ..KgcVocabulary::default() };
    let mut lines_of: Vec<u32> = Vec::new();
    let mut fields = Vec::with_capacity(1);
    for line in text.lines() {
        if line.is_blank() {
            continue;
        }
        line.expect_fields(file, &["entity"], &mut fields)?;
        let name = fields[0].text.trim();
        let before = vocabulary.entities.len();
        let id = vocabulary.entities.intern(name);
        if vocabulary.entities.len() == before {
            let first = lines_of[id.index() as usize];
            return Err(line.error(
                file,
                fields[0].start,
                format!("found entity {} again (first at line {first}), expected each entity once", quoted(name)),
            ));
        }
        lines_of.push(line.number);
    }
    if vocabulary.entities.is_empty() {
        return Err(FormatError::syntax(file, 1, 1, "found no entity, expected one entity per line"));
    }
    Ok(vocabulary)
}
