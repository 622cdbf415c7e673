//! TREC readers on trec_eval's own test files (`testdata/trec_eval/test/`, shapes in its
//! SOURCES.md, counted independently with Python), on the malformed fixtures of
//! `testdata/trec_eval/bad/` (driven by its README table), on gzip and scattered inputs, and
//! against a naive line-by-line parse (on the real runs and on random runs).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use kgeval_formats::trec::{error_position, read_qrels, read_qrels_bytes, read_run_bytes, RunFile};
use kgeval_formats::FormatError;
use kgeval_formats::Read;
use kgeval_model::trec::{RunDoc, RunSource};
use kgeval_model::Severity;
use proptest::prelude::*;

fn trec_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/trec_eval")
}

fn test_file(name: &str) -> String {
    trec_data().join("test").join(name).to_string_lossy().into_owned()
}

/// A document as (docno, score, rank, line).
type Row = (String, f64, i64, u32);
/// Topics in order of first appearance with their documents in input order.
type Topics = Vec<(String, Vec<Row>)>;

/// Every topic of `run` with its documents.
fn topics(run: &RunFile) -> Topics {
    let mut docs = Vec::new();
    (0..run.topic_count())
        .map(|index| {
            run.topic_docs(index, &mut docs).unwrap_or_else(|e| panic!("{e}"));
            let rows = docs.iter().map(|d| (d.docno.to_owned(), d.score, d.rank, run.line_of(d.position))).collect();
            (run.topic_id(index).to_owned(), rows)
        })
        .collect()
}

/// The obvious reading of a well-formed run: split lines on whitespace, skip blank and `#`
/// lines, group by qid in order of first appearance.
fn naive_run(text: &str) -> (Topics, String) {
    let mut topics: Topics = Vec::new();
    let mut run_id = String::new();
    for (number, line) in text.split('\n').enumerate() {
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        if fields.is_empty() || fields[0].starts_with('#') {
            continue;
        }
        let slot = match topics.iter().position(|(q, _)| q == fields[0]) {
            Some(slot) => slot,
            None => {
                topics.push((fields[0].to_owned(), Vec::new()));
                topics.len() - 1
            }
        };
        let score = fields[4].parse().expect("a score");
        let row = (fields[2].to_owned(), score, fields[3].parse().expect("a rank"), number as u32 + 1);
        topics[slot].1.push(row);
        fields[5].clone_into(&mut run_id);
    }
    (topics, run_id)
}

fn assert_same_topics(ours: &Topics, naive: &Topics) {
    assert_eq!(ours.len(), naive.len());
    for ((q1, d1), (q2, d2)) in ours.iter().zip(naive) {
        assert_eq!(q1, q2);
        assert_eq!(d1.len(), d2.len(), "topic {q1}");
        for (a, b) in d1.iter().zip(d2) {
            assert_eq!((&a.0, a.1.to_bits(), a.2, a.3), (&b.0, b.1.to_bits(), b.2, b.3), "topic {q1}");
        }
    }
}

#[test]
fn qrels_of_the_trec_eval_suite_have_their_shapes() {
    let qrels_test: &[(&str, usize)] = &[("301", 1708), ("302", 1061), ("303", 912)];
    /// (file, lines per topic in file order, count per relevance value).
    type Case<'a> = (&'a str, &'a [(&'a str, usize)], &'a [(i64, usize)]);
    let cases: [Case<'_>; 4] = [
        ("qrels.test", qrels_test, &[(0, 3120), (1, 561)]),
        ("qrels.test.with-comments", qrels_test, &[(0, 3120), (1, 561)]),
        ("qrels.rel_level", qrels_test, &[(-1, 304), (0, 2818), (1, 462), (2, 14), (3, 77), (4, 6)]),
        ("qrels-302.test", &[("302", 1061)], &[(0, 984), (1, 77)]),
    ];
    for (file, topics, relevances) in cases {
        let Read { value: qrels, warnings } = read_qrels(&test_file(file)).unwrap();
        assert!(warnings.is_empty(), "{file}: {warnings:?}");
        let shape: Vec<(&str, usize)> = qrels.topics().map(|(q, t)| (q, t.len())).collect();
        assert_eq!(shape, topics, "{file}");
        let mut histogram = BTreeMap::new();
        for (_, topic) in qrels.topics() {
            for relevance in topic.relevances() {
                *histogram.entry(relevance).or_insert(0) += 1;
            }
        }
        assert_eq!(histogram.into_iter().collect::<Vec<_>>(), relevances, "{file}");
    }
    let Read { value: qrels, .. } = read_qrels(&test_file("qrels.test")).unwrap();
    assert_eq!(qrels.topic("301").unwrap().get("CR93E-1282"), Some(1));
    assert_eq!(qrels.topic("301").unwrap().get("CR93E-10279"), Some(0));
    let Read { value: graded, .. } = read_qrels(&test_file("qrels.rel_level")).unwrap();
    assert!(graded.topics().any(|(_, t)| t.relevances().any(|r| r == -1)));
}

/// qrels.123 holds three judgment groups (iter 0, 1, 2, for trec_eval's `-R qrels_jg`) that
/// judge the same (qid, docno) again: as plain qrels that is a duplicate, named with both lines.
#[test]
fn judgment_group_qrels_are_duplicates_as_plain_qrels() {
    for (file, line) in [("qrels.123", 3682), ("qrels.comments.123", 3685)] {
        let error = read_qrels(&test_file(file)).unwrap_err().to_string();
        let expected = format!(
            "{file}:{line}:7: found a second judgment for qid `301`, docno `CR93E-10279` (first at line 1), expected \
             one judgment per (qid, docno)"
        );
        assert!(error.ends_with(&expected), "{error}");
    }
}

#[test]
fn hash_inside_ids_is_not_a_comment() {
    let Read { value: qrels, warnings } = read_qrels(&test_file("qrels.comment.test")).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(qrels.len(), 31);
    assert_eq!(qrels.topics().map(|(_, t)| t.len()).sum::<usize>(), 5890);
    let (first, judgments) = qrels.topics().next().unwrap();
    assert_eq!((first, judgments.len()), ("2024-127266", 227));
    assert_eq!(judgments.get("msmarco_v2.1_doc_00_880019750#4_1633802806"), Some(1));
    assert_eq!(judgments.get("msmarco_v2.1_doc_05_1607548104#0_3077382650"), Some(2));
    // The first judgment group (iter 0, lines 1-3684) of the qrels_jg file with comments.
    let text = std::fs::read(test_file("qrels.comments.123")).unwrap();
    let group_0: Vec<u8> = text.split_inclusive(|&b| b == b'\n').take(3684).flatten().copied().collect();
    let Read { value: qrels, .. } = read_qrels_bytes(&group_0, "qrels.comments.123").unwrap();
    assert_eq!(qrels.topics().map(|(_, t)| t.len()).sum::<usize>(), 3681);
    assert_eq!(qrels.topic("301").unwrap().get("CR93E-3103#37"), Some(1));

    let run = RunFile::open(&test_file("results.comment.test")).unwrap();
    assert_eq!(run.run_id(), "comment.test");
    assert_eq!((run.topic_count(), run.line_count()), (301, 30100));
    let mut docs = Vec::new();
    run.topic_docs(0, &mut docs).unwrap();
    assert_eq!(run.topic_id(0), "2024-224960");
    assert_eq!(docs.len(), 100);
    assert_eq!(
        docs[0],
        RunDoc { docno: "msmarco_v2.1_doc_50_2286987788#13_3087841662", score: 0.7, rank: 1, position: 0 }
    );
    assert_eq!(docs[1].score, 0.689_830_165_702_919_2);
}

#[test]
fn results_test_has_three_topics_of_500() {
    let run = RunFile::open(&test_file("results.test")).unwrap();
    assert_eq!(run.run_id(), "STANDARD");
    assert_eq!(run.line_count(), 1500);
    let topics = topics(&run);
    let shape: Vec<(&str, usize)> = topics.iter().map(|(q, d)| (q.as_str(), d.len())).collect();
    assert_eq!(shape, [("301", 500), ("302", 500), ("303", 500)]);
    assert_eq!(topics[0].1[0], ("FR940202-2-00150".to_owned(), 2.129133, 104, 1));
    assert_eq!(run.topic_index("302"), Some(1));
    assert_eq!(run.topic_index("304"), None);
}

#[test]
fn results_trunc_interleaves_topics_and_has_junk_columns() {
    let run = RunFile::open(&test_file("results.trunc")).unwrap();
    assert_eq!(run.run_id(), "STANDARD");
    let topics = topics(&run);
    let shape: Vec<(&str, usize)> = topics.iter().map(|(q, d)| (q.as_str(), d.len())).collect();
    assert_eq!(shape, [("301", 500), ("303", 84)]);
    // Line 1 is `301 Q0 FBIS3-27619 99 2.138276 STANDARD more junk at`, line 2 is topic 303.
    assert_eq!(topics[0].1[0], ("FBIS3-27619".to_owned(), 2.138276, 99, 1));
    assert_eq!(topics[1].1[0], ("FT941-17652".to_owned(), 1.857372, 99, 2));
    assert_eq!(topics[0].1[1].3, 3);
}

#[test]
fn every_real_run_reads_as_the_naive_parse() {
    for file in ["results.test", "results.trunc", "results.comment.test", "results-302.test"] {
        let text = std::fs::read_to_string(test_file(file)).unwrap();
        let run = RunFile::open(&test_file(file)).unwrap();
        run.validate().unwrap();
        let (naive, run_id) = naive_run(&text);
        assert_same_topics(&topics(&run), &naive);
        assert_eq!(run.run_id(), run_id, "{file}");
        assert_eq!(run.line_count(), naive.iter().map(|(_, d)| d.len()).sum::<usize>(), "{file}");
    }
}

#[test]
fn gzip_is_read_by_name_and_by_magic() {
    let dir = tempfile::tempdir().unwrap();
    let plain = RunFile::open(&test_file("results.test")).unwrap();
    let bytes = std::fs::read(test_file("results.test")).unwrap();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&bytes).unwrap();
    let compressed = encoder.finish().unwrap();
    for name in ["results.test.gz", "results-without-extension"] {
        let path = dir.path().join(name);
        std::fs::write(&path, &compressed).unwrap();
        let run = RunFile::open(path.to_str().unwrap()).unwrap();
        assert_same_topics(&topics(&run), &topics(&plain));
        assert_eq!(run.run_id(), "STANDARD");
    }
    let from_bytes = read_run_bytes(compressed, "mem.gz").unwrap();
    assert_same_topics(&topics(&from_bytes), &topics(&plain));

    let qrels = std::fs::read(test_file("qrels.test")).unwrap();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&qrels).unwrap();
    let path = dir.path().join("qrels.test.gz");
    std::fs::write(&path, encoder.finish().unwrap()).unwrap();
    let Read { value: gz, .. } = read_qrels(path.to_str().unwrap()).unwrap();
    assert_eq!(gz, read_qrels(&test_file("qrels.test")).unwrap().value);

    let not_gzip = dir.path().join("plain.gz");
    std::fs::write(&not_gzip, b"1 Q0 d 1 1 t\n").unwrap();
    let error = RunFile::open(not_gzip.to_str().unwrap()).unwrap_err().to_string();
    assert!(error.contains("plain.gz: found a corrupt gzip stream"), "{error}");
}

#[test]
fn the_tie_fixture_reads() {
    let Read { value: qrels, .. } = read_qrels(&trec_data().join("ties/qrels").to_string_lossy()).unwrap();
    assert_eq!(qrels.len(), 1);
    assert_eq!(qrels.topic("q1").unwrap().iter().collect::<Vec<_>>(), [("d1", 1)]);
    let run = RunFile::open(&trec_data().join("ties/run").to_string_lossy()).unwrap();
    assert_eq!(run.run_id(), "ties");
    let topics = topics(&run);
    let docs: Vec<(&str, f64, i64)> = topics[0].1.iter().map(|d| (d.0.as_str(), d.1, d.2)).collect();
    assert_eq!(docs, [("d1", 0.5, 1), ("d2", 0.5, 2), ("d3", 0.5, 3)]);
}

#[test]
fn scattered_topics_are_one_topic_in_file_order() {
    let input = b"q1 Q0 a 1 3 t\nq2 Q0 a 1 3 t\n\nq1 Q0 b 2 2 t\n# note\nq2 Q0 b 2 2 t\nq1 Q0 c 3 1 last\n";
    let run = read_run_bytes(input.to_vec(), "r").unwrap();
    assert_eq!(run.run_id(), "last");
    let topics = topics(&run);
    assert_eq!(topics.len(), 2);
    let docnos =
        |t: &(String, Vec<(String, f64, i64, u32)>)| t.1.iter().map(|d| (d.0.clone(), d.3)).collect::<Vec<_>>();
    assert_eq!(docnos(&topics[0]), [("a".to_owned(), 1), ("b".to_owned(), 4), ("c".to_owned(), 7)]);
    assert_eq!(docnos(&topics[1]), [("a".to_owned(), 2), ("b".to_owned(), 6)]);
    assert_eq!(run.topic_line_count(0), 3);
}

#[test]
fn a_scattered_duplicate_names_both_lines() {
    let input = b"q1 Q0 a 1 3 t\nq2 Q0 x 1 3 t\nq1 Q0 a 2 2 t\n";
    let run = read_run_bytes(input.to_vec(), "r").unwrap();
    let error = run.topic_docs(0, &mut Vec::new()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "r:3:7: found docno `a` again in topic `q1` (first at line 1), expected each docno once per topic"
    );
}

#[test]
fn last_line_without_newline_crlf_and_tabs_read() {
    let run = read_run_bytes(b"1\tQ0\td1\t1\t0.5\tx\r\n 1  Q0 d2 2 .25 y".to_vec(), "r").unwrap();
    assert_eq!(run.run_id(), "y");
    let mut docs = Vec::new();
    run.topic_docs(0, &mut docs).unwrap();
    assert_eq!(docs.iter().map(|d| (d.docno, d.score, d.rank)).collect::<Vec<_>>(), [("d1", 0.5, 1), ("d2", 0.25, 2)]);
    let Read { value: qrels, warnings } = read_qrels_bytes(b"1 0 d1 1\r\n1\t0\td2\t-2", "q").unwrap();
    assert!(warnings.is_empty());
    assert_eq!(qrels.topic("1").unwrap().get("d2"), Some(-2));
    assert_eq!(qrels.topic("1").unwrap().get("d1"), Some(1));
}

#[test]
fn blank_qrels_lines_are_located_capped_warnings() {
    let mut input = b"1 0 d1 1\n\n".to_vec();
    input.extend(std::iter::repeat_n(b'\n', 120));
    input.extend_from_slice(b"  \t\n1 0 d2 0\n");
    let Read { value: qrels, warnings } = read_qrels_bytes(&input, "q").unwrap();
    assert_eq!(qrels.topic("1").unwrap().len(), 2);
    assert_eq!(warnings.len(), 101);
    assert!(warnings.iter().all(|w| w.severity == Severity::Warning && w.code == "blank-line"));
    assert_eq!(warnings[0].location.as_ref().unwrap().line, 2);
    assert_eq!(warnings[99].location.as_ref().unwrap().line, 101);
    assert_eq!(warnings[100].message, "22 more `blank-line` warnings not listed (122 in all)");
}

#[test]
fn validate_reports_the_earliest_error_of_all_topics() {
    let input = b"a Q0 d 1 1 t\nb Q0 d 1 1 t\nc Q0 d x 1 t\nb Q0 e 1 nan t\na Q0 d 1 1 t\nc Q0 f 1 1 t\n";
    let run = read_run_bytes(input.to_vec(), "r").unwrap();
    let error = run.validate().unwrap_err();
    assert_eq!(error_position(&error), Some((3, 8)));
    assert_eq!(error.to_string(), "r:3:8: found `x` as the rank, expected an integer");
    let mut docs = Vec::new();
    let errors: Vec<FormatError> = (0..3).filter_map(|i| run.topic_docs(i, &mut docs).err()).collect();
    let lines: Vec<u32> = errors.iter().map(|e| error_position(e).unwrap().0).collect();
    assert_eq!(lines, [5, 4, 3]);
}

/// One row of `testdata/trec_eval/bad/README.md`: file, expected error text.
fn bad_cases() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(trec_data().join("bad/README.md")).expect("bad/README.md");
    readme
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim().trim_matches('|').split(" | ").map(str::trim).collect();
            assert_eq!(cells.len(), 3, "{l}");
            let expected = cells[2].strip_prefix("``").and_then(|c| c.strip_suffix("``")).expect(l).trim();
            (cells[0].trim_matches('`').to_owned(), expected.to_owned())
        })
        .collect()
}

#[test]
fn every_bad_file_fails_at_its_line_with_its_message() {
    let cases = bad_cases();
    assert!(cases.len() >= 15, "{} cases", cases.len());
    let dir = trec_data().join("bad");
    let mut listed: Vec<&str> = cases.iter().map(|(f, _)| f.as_str()).collect();
    listed.sort_unstable();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "README.md")
        .collect();
    on_disk.sort_unstable();
    assert_eq!(listed, on_disk, "README table and directory differ");
    for (file, expected) in &cases {
        let path = dir.join(file).to_string_lossy().into_owned();
        let result = if file.starts_with("qrels-") {
            read_qrels(&path).map(drop)
        } else {
            RunFile::open(&path).and_then(|run| run.validate())
        };
        let error = result.expect_err(file).to_string();
        assert!(error.contains(expected), "{file}: `{error}` lacks `{expected}`");
        assert!(error.starts_with(&path), "{error}");
        assert!(!error.contains('\n'), "{error}");
        if !file.ends_with(".gz") {
            let line_col = &error[path.len()..];
            assert!(line_col.starts_with(':') && line_col[1..].starts_with(|c: char| c.is_ascii_digit()), "{error}");
        }
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for round in 0..300 {
        let len = round % 97;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b" \t\n#Q0a1.e-\xff"[(x % 12) as usize]
            })
            .collect();
        let _ = read_qrels_bytes(&bytes, "q");
        if let Ok(run) = read_run_bytes(bytes, "r") {
            let _ = run.validate();
        }
    }
}

/// A random run line: (qid, docno, rank, score text, separator, extra columns).
fn line_strategy() -> impl Strategy<Value = (u8, u8, i64, String, &'static str, bool)> {
    let score = prop_oneof![
        (-1000i32..1000).prop_map(|i| i.to_string()),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| f.to_string()),
        any::<f32>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| format!("{f:e}")),
        (0u32..1_000_000).prop_map(|i| format!("{:.6}", f64::from(i) / 1e6)),
        (0u8..3).prop_map(|i| ["0.5", "0.50", ".5"][usize::from(i)].to_owned()),
    ];
    (0u8..4, 0u8..12, -3i64..2000, score, prop_oneof![Just(" "), Just("\t"), Just("  \t")], any::<bool>())
}

proptest! {
    #[test]
    fn run_file_reads_as_the_naive_parse(
        lines in proptest::collection::vec((line_strategy(), 0u8..8), 1..60),
        final_newline in any::<bool>(),
    ) {
        let mut text = String::new();
        for ((qid, docno, rank, score, sep, extra), noise) in &lines {
            match noise {
                0 => text.push('\n'),
                1 => text.push_str("# comment q1 Q0 d1 1 1 t\n"),
                _ => {}
            }
            let extra = if *extra { " junk cols" } else { "" };
            text.push_str(&format!("q{qid}{sep}Q0{sep}d{docno}{sep}{rank}{sep}{score}{sep}tag{qid}{extra}\n"));
        }
        if !final_newline { text.pop(); }
        let run = read_run_bytes(text.clone().into_bytes(), "r").unwrap();
        let (naive, run_id) = naive_run(&text);
        prop_assert_eq!(run.run_id(), run_id);
        prop_assert_eq!(run.topic_count(), naive.len());
        let mut docs = Vec::new();
        for (index, (qid, rows)) in naive.iter().enumerate() {
            prop_assert_eq!(run.topic_id(index), qid.as_str());
            let mut distinct = std::collections::HashSet::new();
            let duplicate = rows.iter().find(|r| !distinct.insert(r.0.clone()));
            match run.topic_docs(index, &mut docs) {
                Ok(()) => {
                    prop_assert!(duplicate.is_none());
                    let ours: Vec<_> = docs.iter().map(|d| (d.docno.to_owned(), d.score.to_bits(), d.rank, run.line_of(d.position))).collect();
                    let expected: Vec<_> = rows.iter().map(|r| (r.0.clone(), r.1.to_bits(), r.2, r.3)).collect();
                    prop_assert_eq!(ours, expected);
                }
                Err(error) => {
                    let duplicate = duplicate.expect("only duplicates fail");
                    let first = rows.iter().find(|r| r.0 == duplicate.0).unwrap().3;
                    let message = error.to_string();
                    prop_assert!(message.starts_with(&format!("r:{}:", duplicate.3)), "{}", message);
                    let first_at = format!("(first at line {first})");
                    prop_assert!(message.contains(&first_at), "{}", message);
                }
            }
        }
    }
}
