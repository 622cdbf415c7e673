//! Gold keys: TSV `qid<TAB>gold` (Bio-ML `SrcEntity, TgtEntity`) or JSONL `{"qid", "gold"}`.

use kgeval_model::rank::{GoldEntry, GoldKey};
use kgeval_model::Interner;

use super::json::{self, missing_key, LineKind};
use super::text::{Cell, Source, SourceQids};
use super::{ReadGold, BIOML_UNMATCHED};
use crate::FormatError;

pub(super) fn read(input: &[u8], file: &str, interner: &mut Interner, nil_iri: &str) -> Result<ReadGold, FormatError> {
    let src = Source::new(file, input)?;
    let Some(first) = src.first_content_line() else {
        return Err(src.empty_error("a gold key (`qid<TAB>gold` rows or `{\"qid\", \"gold\"}` lines)"));
    };
    if first.text.trim_start().starts_with('{') {
        read_jsonl(&src, interner, nil_iri)
    } else {
        read_tsv(&src, interner, nil_iri)
    }
}

fn read_jsonl(src: &Source<'_>, interner: &mut Interner, nil_iri: &str) -> Result<ReadGold, FormatError> {
    const EXPECTED: &str = "a gold line {\"qid\", \"gold\"}";
    let mut gold = GoldKey::default();
    for line in src.lines() {
        if line.is_blank() {
            continue;
        }
        let parsed = json::parse_line(src, &line, LineKind::Gold, interner, nil_iri)?;
        let qid = parsed.qid.ok_or_else(|| missing_key(src, &line, "qid", EXPECTED))?;
        let target = parsed.gold.ok_or_else(|| missing_key(src, &line, "gold", EXPECTED))?;
        gold.entries.push(GoldEntry { qid, gold: target, line: line.number });
    }
    Ok(ReadGold { gold, warnings: Vec::new() })
}

fn read_tsv(src: &Source<'_>, interner: &mut Interner, nil_iri: &str) -> Result<ReadGold, FormatError> {
    let mut gold = GoldKey::default();
    let mut warnings = Vec::new();
    let mut cells: Vec<Cell<'_>> = Vec::new();
    let mut width = 2;
    let mut header: Option<String> = None;
    let mut bioml_qids: Option<SourceQids> = None;
    let nil = interner.intern(nil_iri);
    for line in src.lines() {
        if line.is_blank() {
            continue;
        }
        line.cells_into(&mut cells);
        if gold.entries.is_empty() && header.is_none() {
            let first = cells[0].text.as_ref();
            if first.eq_ignore_ascii_case("qid") || first == "SrcEntity" {
                if cells.len() < 2 {
                    return Err(src.error(line.offset, "found a header of one column, expected `qid<TAB>gold`"));
                }
                width = cells.len();
                header = Some(cells.iter().map(|c| c.text.as_ref()).collect::<Vec<_>>().join(", "));
                if first == "SrcEntity" {
                    bioml_qids = Some(SourceQids::default());
                }
                continue;
            }
        }
        if cells.len() != width {
            let expected = header.as_deref().unwrap_or("qid, gold");
            let at = cells.get(width).map_or(line.offset + line.text.len(), |c| c.offset);
            return Err(src.error(at, format!("found {} cells, expected {width} ({expected})", cells.len())));
        }
        for (cell, name) in cells.iter().take(2).zip(["qid", "gold"]) {
            if cell.text.is_empty() {
                return Err(src.error(cell.offset, format!("found an empty {name}, expected a value")));
            }
        }
        let qid = match bioml_qids.as_mut() {
            Some(qids) => qids.qid(&cells[0].text, line.number, cells[0].offset, src, &mut warnings),
            None => cells[0].text.as_ref().into(),
        };
        let target = if cells[1].text == BIOML_UNMATCHED { nil } else { interner.intern(&cells[1].text) };
        gold.entries.push(GoldEntry { qid, gold: target, line: line.number });
    }
    if gold.entries.is_empty() {
        return Err(src.error(src.text.len(), "found only a header, expected gold rows after it"));
    }
    Ok(ReadGold { gold, warnings })
}
