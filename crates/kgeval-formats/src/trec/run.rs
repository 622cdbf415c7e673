//! [`RunFile`]: a TREC run held as its bytes plus a topic index, parsed topic by topic.

use std::cell::RefCell;
use std::hash::BuildHasher as _;

use kgeval_model::trec::{RunDoc, RunSource};
use rayon::prelude::*;
use rustc_hash::{FxBuildHasher, FxHashMap};

use super::error_position;
use super::fields::{line_kind, parse_integer, parse_score, shown, Fields, LineKind};
use super::index::{self, TopicIndex};
use super::qrels::{plain_id, utf8_id};
use super::scan;
use crate::input::{Input, InputBytes};
use crate::FormatError;

/// The expected shape, for messages.
const RUN_LINE: &str = "`qid Q0 docno rank score tag`";

/// A TREC run (`qid Q0 docno rank score tag` lines), memory-mapped (or read, for stdin and
/// gzip), with an index of where each topic's lines are.
///
/// Opening validates only what the index needs (every content line has a UTF-8 qid) and the
/// last line (its tag is the run id); the other fields are parsed when a topic is read with
/// [`RunSource::topic_docs`], which reports malformed lines and repeated docnos there. Call
/// [`RunFile::validate`] to check every topic at once.
///
/// Topics are numbered in order of first appearance; the lines of a topic may be scattered
/// over the file. Comment lines (first non-blank character `#`, as trec_eval reads runs) and
/// blank lines are skipped.
///
/// Errors of [`RunSource::topic_docs`] are [`FormatError::Syntax`] at the offending line;
/// when topics are read in parallel, report the one with the smallest [`error_position`]
/// (line, column) to be deterministic. A repeated docno is reported at its second line and
/// names the first.
#[derive(Debug)]
pub struct RunFile {
    name: String,
    bytes: InputBytes,
    run_id: String,
    topics: Vec<TopicIndex>,
    topic_by_qid: FxHashMap<Box<str>, usize>,
    lines: usize,
}

impl RunFile {
    /// Opens a run file: `-` reads standard input (named `<stdin>` in errors); gzip input (a
    /// `.gz` name or the gzip magic) is decompressed in memory; other files are mapped.
    ///
    /// # Errors
    /// [`FormatError::Io`] when the file cannot be read or decompressed; [`FormatError::Syntax`]
    /// as [`read_run_bytes`](super::read_run_bytes).
    pub fn open(path: &str) -> Result<Self, FormatError> {
        Self::from_input(Input::path(path).open()?)
    }

    /// A run from an opened [`InputBytes`] (any [`Input`]: a file, stdin, bytes in memory).
    ///
    /// # Errors
    /// As [`read_run_bytes`](super::read_run_bytes).
    pub fn from_input(bytes: InputBytes) -> Result<Self, FormatError> {
        let name = bytes.name().to_owned();
        let data = bytes.bytes();
        let index::RunIndex { topics, by_qid: topic_by_qid } = index::build(&name, data)?;
        let Some((last_start, last_line)) = last_content_line(data) else {
            return Err(FormatError::syntax(&name, 1, 1, format!("found no run lines, expected {RUN_LINE} lines")));
        };
        let run_id = {
            let mut fields = Fields::new(last_line);
            let tag = fields.nth(5);
            let Some((tag_at, tag)) = tag else {
                let found = Fields::new(last_line).count();
                return Err(too_few_fields(&name, data, last_start + end_of_fields(last_line), found));
            };
            utf8_id(&name, data, last_start + tag_at, tag, "run tag")?.to_owned()
        };
        let lines = topics.iter().map(|t| t.lines).sum();
        Ok(RunFile { name, bytes, run_id, topics, topic_by_qid, lines })
    }

    /// The file as named in errors (`<stdin>` for `-`).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The (decompressed) bytes of the run.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        self.bytes.bytes()
    }

    /// Number of run lines (not counting blank and comment lines).
    #[must_use]
    pub fn line_count(&self) -> usize {
        self.lines
    }

    /// Number of run lines of topic `index` (an upper bound of its documents; equal when the
    /// topic is well formed).
    #[must_use]
    pub fn topic_line_count(&self, index: usize) -> usize {
        self.topics[index].lines
    }

    /// The index of topic `qid`, if the run has it.
    #[must_use]
    pub fn topic_index(&self, qid: &str) -> Option<usize> {
        self.topic_by_qid.get(qid).copied()
    }

    /// The 1-based line of a [`RunDoc::position`] (a byte offset), counted on demand (a scan of
    /// the bytes before it: meant for error messages).
    #[must_use]
    pub fn line_of(&self, position: u64) -> u32 {
        let end = usize::try_from(position).unwrap_or(usize::MAX).min(self.bytes().len());
        (memchr::memchr_iter(b'\n', &self.bytes()[..end]).count() + 1) as u32
    }

    /// Reads every topic (in parallel) and returns the first error in file order, if any.
    ///
    /// # Errors
    /// The malformed line or repeated docno with the smallest [`error_position`].
    pub fn validate(&self) -> Result<(), FormatError> {
        let errors = (0..self.topics.len())
            .into_par_iter()
            .map_init(Vec::new, |docs, index| self.topic_docs(index, docs).err())
            .flatten()
            .min_by_key(|e| error_position(e).unwrap_or((u32::MAX, u32::MAX)));
        errors.map_or(Ok(()), Err)
    }

    /// Parses one content line starting at byte `start`, naming the first problem.
    fn parse_line<'a>(&self, start: usize, line: &'a [u8]) -> Result<(&'a str, f64, i64), FormatError> {
        let mut fields = Fields::new(line);
        let (_qid, _iter, docno, rank, score, tag) =
            (fields.next(), fields.next(), fields.next(), fields.next(), fields.next(), fields.next());
        let (Some((docno_at, docno)), Some((rank_at, rank)), Some((score_at, score)), Some(_)) =
            (docno, rank, score, tag)
        else {
            let found = Fields::new(line).count();
            return Err(too_few_fields(&self.name, self.bytes(), start + end_of_fields(line), found));
        };
        let docno = utf8_id(&self.name, self.bytes(), start + docno_at, docno, "docno")?;
        let Some(rank) = parse_integer(rank) else {
            return Err(
                self.error(start + rank_at, format!("found `{}` as the rank, expected an integer", shown(rank)))
            );
        };
        let score = match parse_score(score) {
            Some(value) if value.is_finite() => value,
            Some(_) => {
                let message = format!("found the score `{}`, expected a finite number", shown(score));
                return Err(self.error(start + score_at, message));
            }
            None => {
                return Err(
                    self.error(start + score_at, format!("found `{}` as the score, expected a number", shown(score)))
                )
            }
        };
        Ok((docno, score, rank))
    }

    fn error(&self, offset: usize, message: String) -> FormatError {
        FormatError::syntax_at_offset(&self.name, self.bytes(), offset, message)
    }
}

impl RunSource for RunFile {
    type Error = FormatError;

    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn topic_count(&self) -> usize {
        self.topics.len()
    }

    fn topic_id(&self, index: usize) -> &str {
        &self.topics[index].qid
    }

    fn topic_docs<'a>(&'a self, index: usize, out: &mut Vec<RunDoc<'a>>) -> Result<(), FormatError> {
        out.clear();
        let topic = &self.topics[index];
        out.reserve(topic.lines);
        let bytes = self.bytes();
        DOCNO_SLOTS.with_borrow_mut(|slots| {
            let mut seen = DocnoSet::new(slots, topic.lines);
            for segment in &topic.segments {
                let mut start = segment.start;
                while start < segment.end {
                    let (doc, next) = match fast_line(bytes, start, segment.end, topic.qid.len()) {
                        FastLine::Skip(next) => {
                            start = next;
                            continue;
                        }
                        FastLine::Doc { docno, rank, score, next } => (
                            match plain_id(docno) {
                                Some(docno) => (docno, score, rank),
                                None => self.slow_line(start)?,
                            },
                            next,
                        ),
                        FastLine::Unusual => (self.slow_line(start)?, scan::next_line(bytes, start, segment.end)),
                    };
                    let (docno, score, rank) = doc;
                    out.push(RunDoc { docno, score, rank, position: start as u64 });
                    if let Some(first) = seen.insert(out) {
                        return Err(self.duplicate(start, self.line_of(out[first].position), docno, &topic.qid));
                    }
                    start = next;
                }
            }
            Ok(())
        })
    }
}

/// A run line as the fast path sees it.
enum FastLine<'a> {
    /// A blank or comment line; the next line starts here.
    Skip(usize),
    /// A line with at least 6 fields, an integer rank and a finite score (docno not yet
    /// checked for UTF-8).
    Doc { docno: &'a [u8], rank: i64, score: f64, next: usize },
    /// Anything else: the slow path parses it again and names the problem.
    Unusual,
}

/// Parses the line starting at `start` without looking for its end first. Every content line
/// of a topic's segments starts with the topic's qid (the index compared it), so the first
/// field is skipped by its length `qid_len`.
#[inline]
fn fast_line(bytes: &[u8], start: usize, end: usize, qid_len: usize) -> FastLine<'_> {
    let pos = scan::skip_separators(bytes, start, end);
    match bytes.get(pos) {
        _ if pos >= end => return FastLine::Skip(end),
        Some(b'\n') => return FastLine::Skip(pos + 1),
        Some(b'#') => return FastLine::Skip(scan::next_line(bytes, pos, end)),
        _ => {}
    }
    let at_line_end = |pos: usize| pos >= end || bytes[pos] == b'\n';
    let iter = scan::skip_separators(bytes, pos + qid_len, end);
    if at_line_end(iter) {
        return FastLine::Unusual;
    }
    let docno = scan::skip_separators(bytes, scan::field_end(bytes, iter, end), end);
    if at_line_end(docno) {
        return FastLine::Unusual;
    }
    let docno_end = scan::field_end(bytes, docno, end);
    let rank = scan::skip_separators(bytes, docno_end, end);
    if at_line_end(rank) {
        return FastLine::Unusual;
    }
    let rank_end = scan::field_end(bytes, rank, end);
    let score = scan::skip_separators(bytes, rank_end, end);
    if at_line_end(score) {
        return FastLine::Unusual;
    }
    let score_end = scan::field_end(bytes, score, end);
    let tag = scan::skip_separators(bytes, score_end, end);
    if at_line_end(tag) {
        return FastLine::Unusual;
    }
    let (Some(rank), Some(score)) = (parse_integer(&bytes[rank..rank_end]), parse_score(&bytes[score..score_end]))
    else {
        return FastLine::Unusual;
    };
    if !score.is_finite() {
        return FastLine::Unusual;
    }
    FastLine::Doc { docno: &bytes[docno..docno_end], rank, score, next: scan::next_line(bytes, tag, end) }
}

impl RunFile {
    /// Parses the content line starting at `start` the slow way, for its error (or, should the
    /// fast path have been too strict, its document).
    #[cold]
    fn slow_line(&self, start: usize) -> Result<(&str, f64, i64), FormatError> {
        let bytes = self.bytes();
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        self.parse_line(start, &bytes[start..end])
    }

    #[cold]
    fn duplicate(&self, start: usize, first_line: u32, docno: &str, qid: &str) -> FormatError {
        let bytes = self.bytes();
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let docno_at = Fields::new(&bytes[start..end]).nth(2).map_or(0, |(at, _)| at);
        let message = format!(
            "found docno `{docno}` again in topic `{qid}` (first at line {first_line}), expected each docno once per \
             topic"
        );
        self.error(start + docno_at, message)
    }
}

thread_local! {
    /// The slots of [`DocnoSet`], reused by every topic read on this thread.
    static DOCNO_SLOTS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// An open-addressing set of the docnos of one topic, holding indices into the topic's
/// documents: a slot is `hash_high_32 << 32 | (index + 1)`, 0 when empty.
struct DocnoSet<'s> {
    slots: &'s mut Vec<u64>,
    mask: usize,
}

impl<'s> DocnoSet<'s> {
    fn new(slots: &'s mut Vec<u64>, capacity: usize) -> Self {
        let size = (capacity.max(8) * 2).next_power_of_two();
        slots.clear();
        slots.resize(size, 0);
        DocnoSet { slots, mask: size - 1 }
    }

    /// Adds the last document of `docs`; returns the index of an earlier one with the same
    /// docno instead when there is one.
    #[inline]
    fn insert(&mut self, docs: &[RunDoc<'_>]) -> Option<usize> {
        let index = docs.len() - 1;
        let docno = docs[index].docno;
        let hash = FxBuildHasher.hash_one(docno.as_bytes());
        let tag = hash & 0xFFFF_FFFF_0000_0000;
        if index + 1 > self.slots.len() / 2 {
            self.grow(docs);
        }
        let mut slot = slot_of(hash) & self.mask;
        loop {
            let value = self.slots[slot];
            if value == 0 {
                self.slots[slot] = tag | (index as u64 + 1);
                return None;
            }
            if value & 0xFFFF_FFFF_0000_0000 == tag {
                let other = (value & 0xFFFF_FFFF) as usize - 1;
                if docs[other].docno == docno {
                    return Some(other);
                }
            }
            slot = (slot + 1) & self.mask;
        }
    }

    /// Doubles the table (only when a topic has more documents than its line count said,
    /// which cannot happen; kept so the set never loops on a full table).
    #[cold]
    fn grow(&mut self, docs: &[RunDoc<'_>]) {
        let size = self.slots.len() * 2;
        self.slots.clear();
        self.slots.resize(size, 0);
        self.mask = size - 1;
        for (index, doc) in docs[..docs.len() - 1].iter().enumerate() {
            let hash = FxBuildHasher.hash_one(doc.docno.as_bytes());
            let mut slot = slot_of(hash) & self.mask;
            while self.slots[slot] != 0 {
                slot = (slot + 1) & self.mask;
            }
            self.slots[slot] = (hash & 0xFFFF_FFFF_0000_0000) | (index as u64 + 1);
        }
    }
}

/// The home slot of a hash: its bits mixed down by a Fibonacci multiplication, so short ids
/// whose hashes differ in few bits still spread over the table.
#[inline]
fn slot_of(hash: u64) -> usize {
    (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize
}

/// The start offset and content of the last line that is neither blank nor a comment.
fn last_content_line(bytes: &[u8]) -> Option<(usize, &[u8])> {
    let mut end = bytes.len();
    loop {
        let start = memchr::memrchr(b'\n', &bytes[..end]).map_or(0, |i| i + 1);
        let line = &bytes[start..end];
        if matches!(line_kind(line, false), LineKind::Content(_)) {
            return Some((start, line));
        }
        if start == 0 {
            return None;
        }
        end = start - 1;
    }
}

/// The offset just past the last field of `line`.
fn end_of_fields(line: &[u8]) -> usize {
    let mut fields = Fields::new(line);
    fields.by_ref().for_each(drop);
    fields.offset()
}

fn too_few_fields(file: &str, bytes: &[u8], offset: usize, found: usize) -> FormatError {
    let s = if found == 1 { "" } else { "s" };
    FormatError::syntax_at_offset(
        file,
        bytes,
        offset,
        format!("found {found} field{s}, expected at least 6: {RUN_LINE}"),
    )
}
