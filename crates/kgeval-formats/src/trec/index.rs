//! The topic index of a run, built in one parallel pass: the bytes are cut into chunks at line
//! boundaries, each chunk records its runs of consecutive lines with the same qid (segments),
//! and the chunks' segments are merged in file order under a qid → topic map. Nothing is
//! allocated per line; only the first field of each line is looked at.

use std::ops::Range;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::fields::is_space;
use super::qrels::utf8_id;
use super::scan;
use crate::FormatError;

/// Bytes per chunk of the index pass.
const CHUNK_BYTES: usize = 8 << 20;

/// Consecutive lines of one topic: bytes `start..end` (line starts; `end` is past the last
/// line's `\n`), of which `lines` are content lines (blank and comment lines inside are kept
/// in the range and skipped when the topic is read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Segment {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) lines: usize,
}

/// One topic of a run: its id and where its lines are, in file order.
#[derive(Debug, Clone)]
pub(super) struct TopicIndex {
    pub(super) qid: Box<str>,
    pub(super) segments: Vec<Segment>,
    pub(super) lines: usize,
}

/// The topics of a run, in order of first appearance, and their numbers by qid.
#[derive(Debug, Clone, Default)]
pub(super) struct RunIndex {
    pub(super) topics: Vec<TopicIndex>,
    pub(super) by_qid: FxHashMap<Box<str>, usize>,
}

/// A segment of one chunk with the byte range of its qid.
struct ChunkSegment {
    qid: Range<usize>,
    segment: Segment,
}

/// Indexes the topics of `bytes` in order of first appearance.
///
/// Errors: a qid that is not UTF-8 (the first such line of the file).
pub(super) fn build(file: &str, bytes: &[u8]) -> Result<RunIndex, FormatError> {
    let chunks: Vec<Range<usize>> = chunk_bounds(bytes);
    let indexed: Vec<Result<Vec<ChunkSegment>, FormatError>> =
        chunks.into_par_iter().map(|range| index_chunk(file, bytes, range)).collect();
    let mut by_qid: FxHashMap<&[u8], usize> = FxHashMap::default();
    let mut topics: Vec<TopicIndex> = Vec::new();
    for chunk in indexed {
        for ChunkSegment { qid, segment } in chunk? {
            let qid = &bytes[qid];
            let index = *by_qid.entry(qid).or_insert_with(|| {
                topics.push(TopicIndex {
                    qid: String::from_utf8_lossy(qid).into(),
                    segments: Vec::with_capacity(1),
                    lines: 0,
                });
                topics.len() - 1
            });
            let topic = &mut topics[index];
            topic.lines += segment.lines;
            match topic.segments.last_mut() {
                Some(last) if last.end == segment.start => {
                    last.end = segment.end;
                    last.lines += segment.lines;
                }
                _ => topic.segments.push(segment),
            }
        }
    }
    let by_qid = topics.iter().enumerate().map(|(i, t)| (t.qid.clone(), i)).collect();
    Ok(RunIndex { topics, by_qid })
}

/// Chunks of about [`CHUNK_BYTES`], each ending just after a `\n` (or at the end).
fn chunk_bounds(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut bounds = Vec::with_capacity(bytes.len() / CHUNK_BYTES + 1);
    let mut start = 0;
    while start < bytes.len() {
        let mut end = start.saturating_add(CHUNK_BYTES).min(bytes.len());
        if end < bytes.len() {
            end = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i + 1);
        }
        bounds.push(start..end);
        start = end;
    }
    bounds
}

/// The segments of one chunk, in order.
fn index_chunk(file: &str, bytes: &[u8], range: Range<usize>) -> Result<Vec<ChunkSegment>, FormatError> {
    let mut segments = Vec::new();
    let mut current: Option<ChunkSegment> = None;
    // Line ends come from one SIMD pass over the chunk (`memchr_iter`), not a search per line.
    let mut newlines = memchr::memchr_iter(b'\n', &bytes[range.clone()]).map(|i| range.start + i);
    let mut pos = range.start;
    while pos < range.end {
        let line_end = newlines.next().unwrap_or(range.end);
        let next = (line_end + 1).min(range.end);
        let first = scan::skip_separators(bytes, pos, line_end);
        if first == line_end || bytes[first] == b'#' {
            // A blank or comment line: kept inside the current segment, skipped when read.
            if let Some(current) = &mut current {
                current.segment.end = next;
            }
            pos = next;
            continue;
        }
        if let Some(current) = &mut current {
            // The common case, a line of the current topic: compare its qid without scanning.
            let after = first + current.qid.len();
            if after <= line_end
                && same_bytes(&bytes[first..after], &bytes[current.qid.clone()])
                && (after == line_end || is_space(bytes[after]))
            {
                current.segment.end = next;
                current.segment.lines += 1;
                pos = next;
                continue;
            }
        }
        let qid = first..scan::field_end(bytes, first, line_end);
        utf8_id(file, bytes, qid.start, &bytes[qid.clone()], "qid")?;
        segments.extend(current.take());
        current = Some(ChunkSegment { qid, segment: Segment { start: pos, end: next, lines: 1 } });
        pos = next;
    }
    segments.extend(current);
    Ok(segments)
}

/// `a == b` for short ids without a call to `memcmp`.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_end_at_line_ends_and_cover_everything() {
        let mut bytes = Vec::new();
        while bytes.len() < 3 * CHUNK_BYTES {
            bytes.extend_from_slice(b"q1 Q0 d 1 0.5 t\n");
        }
        bytes.extend_from_slice(b"q2 Q0 d 1 0.5 t");
        let bounds = chunk_bounds(&bytes);
        assert!(bounds.len() >= 3);
        assert_eq!(bounds[0].start, 0);
        assert_eq!(bounds.last().unwrap().end, bytes.len());
        for pair in bounds.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
            assert_eq!(bytes[pair[0].end - 1], b'\n');
        }
        let topics = build("r", &bytes).unwrap().topics;
        assert_eq!(topics.len(), 2);
        assert_eq!(topics[0].segments.len(), 1, "chunk-boundary segments are joined");
        assert_eq!(topics[0].lines, bytes.len() / 16);
    }

    #[test]
    fn scattered_topics_keep_their_segments_and_blank_lines_stay_inside() {
        let bytes = b"\n# c\na Q0 d1 1 1 t\n\nb Q0 d2 1 1 t\na Q0 d3 1 1 t\n  # c\n";
        let RunIndex { topics, by_qid } = build("r", bytes).unwrap();
        assert_eq!(topics.iter().map(|t| &*t.qid).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(
            topics[0].segments,
            [Segment { start: 5, end: 20, lines: 1 }, Segment { start: 34, end: 54, lines: 1 }]
        );
        assert_eq!(topics[1].segments, [Segment { start: 20, end: 34, lines: 1 }]);
        assert_eq!(by_qid["b"], 1);
    }
}
