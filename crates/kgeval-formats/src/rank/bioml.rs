//! Bio-ML / DeepOnto submission TSVs, recognised by their header:
//! - `SrcEntity, TgtEntity, TgtCandidates` and `SrcEntity, TgtCandidates`: a Python literal
//!   list of IRIs, of `(iri, score)` or of `(iri, score, answer)`;
//! - `SrcEntity, RankedTgtCandidates` (2022): a tuple of IRIs or of `"iri score"` strings;
//! - `SrcEntity, TgtEntity, Score` (2026 BLOCK): one candidate per row, consecutive rows
//!   grouped into one query (per run of equal `SrcEntity`, or per `block_size` rows).

use kgeval_model::rank::{GoldEntry, GoldKey, Submission, SubmissionEntry, Submitted};
use kgeval_model::{Diagnostic, Interner, TermId};

use super::pylit::{self, Literal, Node};
use super::text::{parse_score, quoted, Cell, Line, Source, SourceQids};
use super::{ReadSubmission, SubmissionFormat, SubmissionReadOptions, BIOML_UNMATCHED};
use crate::FormatError;

const HEADERS: [(&[&str], SubmissionFormat); 4] = [
    (&["SrcEntity", "TgtEntity", "TgtCandidates"], SubmissionFormat::BioMlCandidates),
    (&["SrcEntity", "TgtCandidates"], SubmissionFormat::BioMlContract),
    (&["SrcEntity", "RankedTgtCandidates"], SubmissionFormat::BioMl2022),
    (&["SrcEntity", "TgtEntity", "Score"], SubmissionFormat::BioMlBlock),
];

/// Reads a Bio-ML submission whose header row is `header` (already split into `header_cells`).
pub(super) fn read(
    src: &Source<'_>,
    header: Line<'_>,
    header_cells: &[Cell<'_>],
    interner: &mut Interner,
    options: &SubmissionReadOptions,
) -> Result<ReadSubmission, FormatError> {
    let names: Vec<&str> = header_cells.iter().map(|c| c.text.as_ref()).collect();
    let Some(&(columns, format)) = HEADERS.iter().find(|(columns, _)| *columns == names.as_slice()) else {
        let known: Vec<String> = HEADERS.iter().map(|(c, _)| c.join(", ")).collect();
        let message = format!(
            "found a header of {} cells starting {}, expected one of: {}",
            names.len(),
            crate::echo_cell(names.first().copied().unwrap_or("")),
            known.join(" | ")
        );
        return Err(src.error(header.offset, message));
    };
    let nil = interner.intern(&options.nil_iri);
    let mut reader = Reader {
        src,
        interner,
        nil,
        qids: SourceQids::default(),
        warnings: Vec::new(),
        entries: Vec::new(),
        gold: Vec::new(),
    };
    let mut cells = Vec::new();
    let mut block_rows: Vec<BlockRow> = Vec::new();
    for line in src.lines().skip_while(|l| l.number <= header.number) {
        if line.is_blank() {
            continue;
        }
        line.cells_into(&mut cells);
        if cells.len() != columns.len() {
            let at = cells.get(columns.len()).map_or(line.offset + line.text.len(), |c| c.offset);
            let message = format!("found {} cells, expected {} ({})", cells.len(), columns.len(), columns.join(", "));
            return Err(src.error(at, message));
        }
        for (cell, name) in cells.iter().zip(columns.iter()) {
            if cell.text.is_empty() {
                return Err(src.error(cell.offset, format!("found an empty {name}, expected a value")));
            }
        }
        match format {
            SubmissionFormat::BioMlBlock => {
                let score = parse_score(&cells[2].text).map_err(|m| src.error(cells[2].offset, m))?;
                let target = reader.interner.intern(&cells[1].text);
                let source = cells[0].clone().into_owned();
                block_rows.push(BlockRow { source, line: line.number, target, target_offset: cells[1].offset, score });
            }
            SubmissionFormat::BioMl2022 => {
                let (submitted, answers) = reader.ranked_2022(&cells[1])?;
                reader.push(&cells[0], line.number, submitted, answers);
            }
            _ => {
                let candidates = cells.last().unwrap_or(&cells[0]);
                let (submitted, answers) = reader.candidates(candidates)?;
                reader.push(&cells[0], line.number, submitted, answers);
                if format == SubmissionFormat::BioMlCandidates {
                    let gold = if cells[1].text == BIOML_UNMATCHED {
                        reader.nil
                    } else {
                        reader.interner.intern(&cells[1].text)
                    };
                    let qid = reader.entries.last().map_or_else(|| cells[0].text.as_ref().into(), |e| e.qid.clone());
                    reader.gold.push(GoldEntry { qid, gold, line: line.number });
                }
            }
        }
    }
    if format == SubmissionFormat::BioMlBlock {
        reader.blocks(&block_rows, options.block_size)?;
    }
    if reader.entries.is_empty() {
        return Err(src.error(src.text.len(), "found only a header, expected one row per query after it"));
    }
    let gold = (format == SubmissionFormat::BioMlCandidates).then_some(GoldKey { entries: reader.gold });
    Ok(ReadSubmission { submission: Submission { entries: reader.entries }, format, gold, warnings: reader.warnings })
}

struct Reader<'r, 'a> {
    src: &'r Source<'a>,
    interner: &'r mut Interner,
    nil: TermId,
    qids: SourceQids,
    warnings: Vec<Diagnostic>,
    entries: Vec<SubmissionEntry>,
    gold: Vec<GoldEntry>,
}

/// One row of the BLOCK form.
struct BlockRow {
    source: Cell<'static>,
    line: u32,
    target: TermId,
    target_offset: usize,
    score: f64,
}

/// The shape of the first candidate, which every other candidate must share.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Iri,
    Scored,
    Answered,
}

impl Shape {
    fn describe(self) -> &'static str {
        match self {
            Shape::Iri => "an IRI string",
            Shape::Scored => "an (iri, score) pair",
            Shape::Answered => "an (iri, score, answer) triple",
        }
    }
}

impl Reader<'_, '_> {
    fn push(&mut self, source: &Cell<'_>, line: u32, submitted: Submitted, answers: Option<Vec<bool>>) {
        let qid = self.qids.qid(&source.text, line, source.offset, self.src, &mut self.warnings);
        self.entries.push(SubmissionEntry { qid, submitted, answers, line });
    }

    fn literal_error(&self, cell: &Cell<'_>, at: usize, message: String) -> FormatError {
        self.src.error(cell.offset + at, message)
    }

    /// `TgtCandidates`: a list (or tuple) of IRIs, `(iri, score)` or `(iri, score, answer)`.
    fn candidates(&mut self, cell: &Cell<'_>) -> Result<(Submitted, Option<Vec<bool>>), FormatError> {
        let node = pylit::parse(&cell.text).map_err(|e| self.literal_error(cell, e.offset, e.message))?;
        let items = self.sequence(cell, &node)?;
        let shape = match items.first().map(|n| &n.value) {
            None | Some(Literal::Str(_)) => Shape::Iri,
            Some(Literal::List(t) | Literal::Tuple(t)) if t.len() == 2 => Shape::Scored,
            Some(Literal::List(t) | Literal::Tuple(t)) if t.len() == 3 => Shape::Answered,
            Some(other) => {
                let message = format!(
                    "found {}, expected an IRI string, an (iri, score) pair or an (iri, score, answer) triple",
                    other.describe()
                );
                return Err(self.literal_error(cell, items[0].offset, message));
            }
        };
        let mut ranking = Vec::new();
        let mut scores = Vec::new();
        let mut answers = Vec::new();
        for item in items {
            let mismatch = |reader: &Self| {
                reader.literal_error(
                    cell,
                    item.offset,
                    format!("found {}, expected {} like the first candidate", item.value.describe(), shape.describe()),
                )
            };
            if shape == Shape::Iri {
                let Literal::Str(iri) = &item.value else { return Err(mismatch(self)) };
                ranking.push(self.iri(cell, item, iri)?);
                continue;
            }
            let parts = match item.value.as_sequence() {
                Some(parts) if parts.len() == if shape == Shape::Scored { 2 } else { 3 } => parts,
                _ => return Err(mismatch(self)),
            };
            let Literal::Str(iri) = &parts[0].value else {
                let message = format!("found {}, expected an IRI string", parts[0].value.describe());
                return Err(self.literal_error(cell, parts[0].offset, message));
            };
            let iri = self.iri(cell, &parts[0], iri)?;
            let score = match parts[1].value.as_number() {
                Some(score) if score.is_finite() => score,
                _ => {
                    let message = format!("found {}, expected a finite score", parts[1].value.describe());
                    return Err(self.literal_error(cell, parts[1].offset, message));
                }
            };
            scores.push((iri, score));
            if shape == Shape::Answered {
                let Literal::Bool(answer) = parts[2].value else {
                    let message = format!("found {}, expected an answer `True` or `False`", parts[2].value.describe());
                    return Err(self.literal_error(cell, parts[2].offset, message));
                };
                answers.push(answer);
            }
        }
        Ok(match shape {
            Shape::Iri => (Submitted::Ranking(ranking), None),
            Shape::Scored => (Submitted::Scores(scores), None),
            Shape::Answered => (Submitted::Scores(scores), Some(answers)),
        })
    }

    /// `RankedTgtCandidates` (2022): a tuple of bare IRIs (a ranking) or of `"iri score"`
    /// strings (scores; split on the last space).
    fn ranked_2022(&mut self, cell: &Cell<'_>) -> Result<(Submitted, Option<Vec<bool>>), FormatError> {
        let node = pylit::parse(&cell.text).map_err(|e| self.literal_error(cell, e.offset, e.message))?;
        let items = self.sequence(cell, &node)?;
        let mut ranking = Vec::new();
        let mut scores = Vec::new();
        let mut scored: Option<bool> = None;
        for item in items {
            let Literal::Str(text) = &item.value else {
                let message = format!("found {}, expected a string `iri` or `iri score`", item.value.describe());
                return Err(self.literal_error(cell, item.offset, message));
            };
            let text = text.trim();
            let split = text.rsplit_once(' ');
            if *scored.get_or_insert(split.is_some()) != split.is_some() {
                let expected = if split.is_some() { "a bare IRI" } else { "an `iri score` string" };
                let message = format!("found {}, expected {expected} like the first candidate", quoted(text));
                return Err(self.literal_error(cell, item.offset, message));
            }
            match split {
                Some((iri, score)) => {
                    // The offset points at the string's opening quote.
                    let score = parse_score(score).map_err(|m| self.literal_error(cell, item.offset, m))?;
                    let iri = self.iri(cell, item, iri.trim())?;
                    scores.push((iri, score));
                }
                None => ranking.push(self.iri(cell, item, text)?),
            }
        }
        Ok(if scored == Some(true) { (Submitted::Scores(scores), None) } else { (Submitted::Ranking(ranking), None) })
    }

    fn sequence<'n>(&self, cell: &Cell<'_>, node: &'n Node<'n>) -> Result<&'n [Node<'n>], FormatError> {
        node.value.as_sequence().ok_or_else(|| {
            let message = format!("found {}, expected a list or tuple of candidates", node.value.describe());
            self.literal_error(cell, node.offset, message)
        })
    }

    fn iri(&mut self, cell: &Cell<'_>, node: &Node<'_>, iri: &str) -> Result<TermId, FormatError> {
        if iri.trim().is_empty() {
            return Err(self.literal_error(cell, node.offset, "found an empty string, expected an IRI".to_owned()));
        }
        Ok(self.interner.intern(iri))
    }

    /// Groups BLOCK rows into queries.
    fn blocks(&mut self, rows: &[BlockRow], block_size: Option<usize>) -> Result<(), FormatError> {
        let mut start = 0;
        while start < rows.len() {
            let end = match block_size {
                Some(0) => {
                    return Err(self.src.error(rows[0].source.offset, "found a block size of 0, expected at least 1"));
                }
                Some(size) if start + size > rows.len() => {
                    let last = &rows[rows.len() - 1];
                    let message = format!(
                        "found {} rows, expected a multiple of the block size {size} (the last block, from line {}, has {} of {size})",
                        rows.len(),
                        rows[start].line,
                        rows.len() - start
                    );
                    return Err(self.src.error(last.source.offset, message));
                }
                Some(size) => start + size,
                None => start + rows[start..].iter().take_while(|r| r.source.text == rows[start].source.text).count(),
            };
            let block = &rows[start..end];
            if let Some(other) = block.iter().find(|r| r.source.text != block[0].source.text) {
                let message = format!(
                    "found the source {} in the block of {} that starts at line {}, expected one source per block",
                    quoted(&other.source.text),
                    quoted(&block[0].source.text),
                    block[0].line
                );
                return Err(self.src.error(other.source.offset, message));
            }
            let mut seen = std::collections::HashSet::new();
            for row in block {
                if !seen.insert(row.target) {
                    let message = format!(
                        "found the candidate {} twice in the block that starts at line {}, expected each candidate once",
                        quoted(self.interner.resolve(row.target)),
                        block[0].line
                    );
                    return Err(self.src.error(row.target_offset, message));
                }
            }
            let scores = block.iter().map(|r| (r.target, r.score)).collect();
            self.push(&block[0].source, block[0].line, Submitted::Scores(scores), None);
            start = end;
        }
        Ok(())
    }
}
