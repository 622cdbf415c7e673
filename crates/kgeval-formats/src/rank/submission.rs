//! Submissions: layout detection, DISO JSONL (rankings or scores) and `qid IRI score` TSV.
//! The Bio-ML layouts are in [`super::bioml`].

use std::collections::HashMap;

use kgeval_model::rank::{Submission, SubmissionEntry, Submitted};
use kgeval_model::{Interner, TermId};

use super::json::{self, key_offset, missing_key, LineKind};
use super::text::{parse_score, quoted, Cell, Source};
use super::{bioml, ReadSubmission, SubmissionFormat, SubmissionReadOptions};
use crate::FormatError;

pub(super) fn read(
    input: &[u8],
    file: &str,
    interner: &mut Interner,
    options: &SubmissionReadOptions,
) -> Result<ReadSubmission, FormatError> {
    let src = Source::new(file, input)?;
    let Some(first) = src.first_content_line() else {
        return Err(src.empty_error("a submission (JSONL, `qid<TAB>IRI<TAB>score` or Bio-ML TSV)"));
    };
    if first.text.trim_start().starts_with('{') {
        return read_jsonl(&src, interner);
    }
    let mut cells = Vec::new();
    first.cells_into(&mut cells);
    if cells[0].text == "SrcEntity" {
        return bioml::read(&src, first, &cells, interner, options);
    }
    read_qid_iri_score(&src, interner)
}

fn read_jsonl(src: &Source<'_>, interner: &mut Interner) -> Result<ReadSubmission, FormatError> {
    const EXPECTED: &str = "a submission line {\"qid\", \"ranking\"} or {\"qid\", \"scores\"}";
    let mut entries = Vec::new();
    let mut form: Option<(SubmissionFormat, u32)> = None;
    for line in src.lines() {
        if line.is_blank() {
            continue;
        }
        let parsed = json::parse_line(src, &line, LineKind::Submission, interner, "")?;
        let qid = parsed.qid.ok_or_else(|| missing_key(src, &line, "qid", EXPECTED))?;
        let (submitted, this_form, key) = match (parsed.ranking, parsed.scores) {
            (Some(ranking), None) => (Submitted::Ranking(ranking), SubmissionFormat::JsonlRanking, "ranking"),
            (None, Some(scores)) => (Submitted::Scores(scores), SubmissionFormat::JsonlScores, "scores"),
            (Some(_), Some(_)) => {
                let message = "found both `ranking` and `scores`, expected one of them";
                return Err(src.error(key_offset(&line, "scores"), message));
            }
            (None, None) => return Err(missing_key(src, &line, "ranking` or `scores", EXPECTED)),
        };
        match form {
            None => form = Some((this_form, line.number)),
            Some((first_form, first_line)) if first_form != this_form => {
                let first_key = if first_form == SubmissionFormat::JsonlRanking { "ranking" } else { "scores" };
                let message = format!(
                    "found `{key}` in a file whose line {first_line} gives `{first_key}`, expected one form per file"
                );
                return Err(src.error(key_offset(&line, key), message));
            }
            Some(_) => {}
        }
        entries.push(SubmissionEntry { qid, submitted, answers: None, line: line.number });
    }
    let format = form.map_or(SubmissionFormat::JsonlRanking, |(f, _)| f);
    Ok(ReadSubmission { submission: Submission { entries }, format, gold: None, warnings: Vec::new() })
}

/// `qid<TAB>IRI<TAB>score` rows, gathered per qid in first-seen order.
fn read_qid_iri_score(src: &Source<'_>, interner: &mut Interner) -> Result<ReadSubmission, FormatError> {
    let mut entries: Vec<SubmissionEntry> = Vec::new();
    let mut by_qid: HashMap<Box<str>, usize> = HashMap::new();
    let mut seen: HashMap<(usize, TermId), u32> = HashMap::new();
    let mut cells: Vec<Cell<'_>> = Vec::new();
    let mut header_seen = false;
    for line in src.lines() {
        if line.is_blank() {
            continue;
        }
        line.cells_into(&mut cells);
        if entries.is_empty() && !header_seen && cells[0].text.eq_ignore_ascii_case("qid") {
            header_seen = true;
            continue;
        }
        if cells.len() != 3 {
            let at = cells.get(3).map_or(line.offset + line.text.len(), |c| c.offset);
            let message = format!("found {} cells, expected 3 (qid, IRI, score)", cells.len());
            return Err(src.error(at, message));
        }
        for (cell, name) in cells.iter().zip(["qid", "IRI", "score"]) {
            if cell.text.is_empty() {
                return Err(src.error(cell.offset, format!("found an empty {name}, expected a value")));
            }
        }
        let score = parse_score(&cells[2].text).map_err(|message| src.error(cells[2].offset, message))?;
        let candidate = interner.intern(&cells[1].text);
        let index = match by_qid.get(cells[0].text.as_ref()) {
            Some(&index) => index,
            None => {
                let qid: Box<str> = cells[0].text.as_ref().into();
                by_qid.insert(qid.clone(), entries.len());
                let submitted = Submitted::Scores(Vec::new());
                entries.push(SubmissionEntry { qid, submitted, answers: None, line: line.number });
                entries.len() - 1
            }
        };
        if let Some(first_line) = seen.insert((index, candidate), line.number) {
            let message = format!(
                "found {} again for qid {} (first at line {first_line}), expected each candidate once per query",
                quoted(&cells[1].text),
                quoted(&cells[0].text)
            );
            return Err(src.error(cells[1].offset, message));
        }
        if let Submitted::Scores(scores) = &mut entries[index].submitted {
            scores.push((candidate, score));
        }
    }
    if entries.is_empty() {
        return Err(src.error(src.text.len(), "found only a header, expected `qid<TAB>IRI<TAB>score` rows"));
    }
    let submission = Submission { entries };
    Ok(ReadSubmission { submission, format: SubmissionFormat::QidIriScoreTsv, gold: None, warnings: Vec::new() })
}
