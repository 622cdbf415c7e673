//! Ranking readers on the real DISO / Bio-ML / DeepOnto / OAEI-Bio-ML-eval files of
//! `testdata/ranking/`, on the malformed fixtures of `testdata/ranking/bad/` (driven by its
//! README table), on small hand-written inputs, and on random bytes.
//!
//! Expected counts come from `testdata/ranking/SOURCES.md` (published or computed upstream);
//! the few marked "literal_eval" were counted with Python's `ast.literal_eval` on the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kgeval_formats::rank::{
    read_gold, read_gold_file, read_pools, read_pools_file, read_scored_pairs, read_scored_pairs_file, read_submission,
    read_submission_file, SubmissionFormat, SubmissionReadOptions,
};
use kgeval_formats::FormatError;
use kgeval_model::rank::{Submitted, DISO_NIL_IRI};
use kgeval_model::{Interner, Severity};
use proptest::prelude::*;

fn ranking_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/ranking")
}

fn options() -> SubmissionReadOptions {
    SubmissionReadOptions::default()
}

fn submission(relative: &str) -> (kgeval_formats::rank::ReadSubmission, Interner) {
    let mut interner = Interner::new();
    let read = read_submission_file(&ranking_data().join(relative), &mut interner, &options()).expect(relative);
    (read, interner)
}

fn scores(submitted: &Submitted) -> &[(kgeval_model::TermId, f64)] {
    match submitted {
        Submitted::Scores(scores) => scores,
        Submitted::Ranking(_) => panic!("expected scores, got a ranking"),
    }
}

fn ranking(submitted: &Submitted) -> &[kgeval_model::TermId] {
    match submitted {
        Submitted::Ranking(ranking) => ranking,
        Submitted::Scores(_) => panic!("expected a ranking, got scores"),
    }
}

#[test]
fn diso_pools_have_the_published_shape() {
    for (pair, queries, types) in [
        ("uco-stix", 217, [("CLS", 47), ("DPROP", 158), ("OPROP", 12)]),
        ("stix-d3fend", 73, [("CLS", 32), ("DPROP", 38), ("OPROP", 3)]),
    ] {
        let mut interner = Interner::new();
        let path = ranking_data().join(format!("diso-oaei/pools/{pair}/pools.jsonl"));
        let read = read_pools_file(&path, &mut interner).unwrap();
        assert!(read.warnings.is_empty(), "{pair}: {:?}", read.warnings);
        let pools = read.pools.pools();
        assert_eq!(pools.len(), queries, "{pair}");
        let mut by_type = BTreeMap::new();
        for (index, pool) in pools.iter().enumerate() {
            assert_eq!(&*pool.qid, index.to_string(), "{pair}: qids run 0..n-1");
            assert_eq!(pool.line as usize, index + 1);
            assert_eq!(pool.candidates.len(), 50, "{pair} qid {}", pool.qid);
            let distinct: std::collections::HashSet<_> = pool.candidates.iter().collect();
            assert_eq!(distinct.len(), 50);
            assert_eq!(interner.resolve(*pool.candidates.last().unwrap()), DISO_NIL_IRI);
            *by_type.entry(pool.entity_type.as_deref().unwrap().to_owned()).or_insert(0) += 1;
        }
        let expected: BTreeMap<String, usize> = types.iter().map(|&(t, n)| (t.to_owned(), n)).collect();
        assert_eq!(by_type, expected, "{pair}");
        if pair == "stix-d3fend" {
            let (two, three) = (read.pools.get("2").unwrap(), read.pools.get("3").unwrap());
            assert_eq!(interner.resolve(two.source), "http://docs.oasis-open.org/ns/cti#name");
            assert_eq!(two.source, three.source);
            assert_eq!(two.candidates, three.candidates, "qids 2 and 3 have identical pools");
        }
    }
}

#[test]
fn biollm_result_reads_with_scores_answers_and_gold() {
    let (read, interner) = submission("bioml-biollm/biollm_result.tsv");
    assert_eq!(read.format, SubmissionFormat::BioMlCandidates);
    assert!(read.warnings.is_empty());
    let entries = &read.submission.entries;
    assert_eq!(entries.len(), 100);
    let sizes: Vec<usize> = entries.iter().map(|e| e.submitted.len()).collect();
    assert_eq!(sizes.iter().filter(|&&n| n == 100).count(), 99);
    assert_eq!(sizes[87], 70);
    let gold = read.gold.unwrap();
    assert_eq!(gold.entries.len(), 100);
    let nil_golds = gold.entries.iter().filter(|g| interner.resolve(g.gold) == DISO_NIL_IRI).count();
    assert_eq!(nil_golds, 50);
    assert!(gold.entries.iter().zip(entries).all(|(g, e)| g.qid == e.qid && g.line == e.line));
    let mut answers_true = 0;
    for entry in entries {
        let answers = entry.answers.as_ref().unwrap();
        assert_eq!(answers.len(), entry.submitted.len());
        answers_true += answers.iter().filter(|&&a| a).count();
    }
    assert_eq!(answers_true, 56, "literal_eval count");
    let first = &entries[0];
    assert_eq!(&*first.qid, "http://ncicb.nci.nih.gov/xml/owl/EVS/Thesaurus.owl#C27420");
    assert_eq!(first.line, 2);
    let (iri, score) = scores(&first.submitted)[0];
    assert_eq!((interner.resolve(iri), score), ("http://purl.obolibrary.org/obo/DOID_0080171", -0.98118526));
    assert_eq!(interner.resolve(gold.entries[0].gold), "http://purl.obolibrary.org/obo/DOID_3747");
}

#[test]
fn bioml_2022_examples_read_as_ranking_and_scores() {
    let (read, interner) = submission("bioml-2022-examples/local_ranking_submission_example1.tsv");
    assert_eq!(read.format, SubmissionFormat::BioMl2022);
    assert!(read.gold.is_none());
    assert_eq!(read.submission.entries.len(), 2);
    for entry in &read.submission.entries {
        assert_eq!(ranking(&entry.submitted).len(), 102);
    }
    let first = ranking(&read.submission.entries[0].submitted);
    assert_eq!(interner.resolve(first[0]), "http://purl.obolibrary.org/obo/DOID_2536");
    assert_eq!(&*read.submission.entries[1].qid, "http://ncicb.nci.nih.gov/xml/owl/EVS/Thesaurus.owl#C5228");

    let (read, interner) = submission("bioml-2022-examples/local_ranking_submission_example2.tsv");
    assert_eq!(read.submission.entries.len(), 1);
    let scored = scores(&read.submission.entries[0].submitted);
    assert_eq!(scored.len(), 102);
    let shown: Vec<(&str, f64)> = scored[..6].iter().map(|&(t, s)| (interner.resolve(t), s)).collect();
    assert_eq!(shown[0], ("http://purl.obolibrary.org/obo/DOID_2536", 0.92));
    assert_eq!(shown[1], ("http://purl.obolibrary.org/obo/DOID_0110090", 0.8));
    // Not monotone along the list: 0.54444 comes before 0.5512 (SOURCES.md).
    assert_eq!((shown[4].1, shown[5].1), (0.54444, 0.5512));
    let last = scored[101];
    assert_eq!((interner.resolve(last.0), last.1), ("http://purl.obolibrary.org/obo/DOID_1891", 0.0));
}

#[test]
fn deeponto_assets_read_in_every_candidate_form() {
    let gold_positions = [98, 96, 96];
    for (file, scored, answered) in [
        ("example_candidate_mappings.tsv", false, false),
        ("example_scored_candidate_mappings.tsv", true, false),
        ("example_bio-llm_candidate_mappings.tsv", true, true),
    ] {
        let (read, interner) = submission(&format!("deeponto-assets/{file}"));
        assert_eq!(read.format, SubmissionFormat::BioMlCandidates, "{file}");
        let gold = read.gold.unwrap();
        assert_eq!(read.submission.entries.len(), 3);
        let mut answers_true = 0;
        for ((entry, gold), expected) in read.submission.entries.iter().zip(&gold.entries).zip(gold_positions) {
            assert_eq!(entry.submitted.len(), 101, "{file}");
            assert!(matches!(entry.submitted, Submitted::Scores(_)) == scored, "{file}");
            assert_eq!(entry.answers.is_some(), answered, "{file}");
            answers_true += entry.answers.iter().flatten().filter(|&&a| a).count();
            let position = entry.submitted.candidates().position(|c| c == gold.gold).unwrap() + 1;
            assert_eq!(position, expected, "{file}: gold position in the list");
            assert_ne!(interner.resolve(gold.gold), DISO_NIL_IRI, "no UnMatched row");
        }
        assert_eq!(answers_true, if answered { 167 } else { 0 }, "{file}: literal_eval count");
    }
    // The global-matching reference file reads as a gold key and as a BLOCK submission.
    let path = ranking_data().join("deeponto-assets/example_reference_mappings.tsv");
    let mut interner = Interner::new();
    let gold = read_gold_file(&path, &mut interner, DISO_NIL_IRI).unwrap().gold;
    assert_eq!(gold.entries.len(), 3);
    assert_eq!(&*gold.entries[1].qid, "http://ncicb.nci.nih.gov/xml/owl/EVS/Thesaurus.owl#C3079");
    assert_eq!(interner.resolve(gold.entries[1].gold), "http://purl.obolibrary.org/obo/DOID_114");
    let (read, _) = submission("deeponto-assets/example_reference_mappings.tsv");
    assert_eq!(read.format, SubmissionFormat::BioMlBlock);
    assert_eq!(read.submission.entries.iter().map(|e| e.submitted.len()).collect::<Vec<_>>(), [1, 1, 1]);
}

#[test]
fn oaei_bioml_eval_contract_reads() {
    let mut interner = Interner::new();
    let dir = ranking_data().join("oaei-bioml-eval-contract");
    let gold = read_gold_file(&dir.join("equivalence-local-gold.tsv"), &mut interner, DISO_NIL_IRI).unwrap();
    let qids: Vec<&str> = gold.gold.entries.iter().map(|g| &*g.qid).collect();
    assert_eq!(qids, ["http://example.org/source/A", "http://example.org/source/B"]);
    let read = read_submission_file(&dir.join("equivalence-local-submission.tsv"), &mut interner, &options()).unwrap();
    assert_eq!(read.format, SubmissionFormat::BioMlContract);
    assert!(read.gold.is_none());
    // The published contract: golds at ranks 2 and 1.
    for (entry, (gold, rank)) in read.submission.entries.iter().zip(gold.gold.entries.iter().zip([2, 1])) {
        assert_eq!(entry.qid, gold.qid);
        assert_eq!(ranking(&entry.submitted).len(), 3);
        assert_eq!(entry.submitted.candidates().position(|c| c == gold.gold), Some(rank - 1));
    }
}

/// One row of `testdata/ranking/bad/README.md`.
struct BadCase {
    file: String,
    role: String,
    options: String,
    line: u32,
    fragment: String,
}

fn bad_cases() -> Vec<BadCase> {
    let readme = std::fs::read_to_string(ranking_data().join("bad/README.md")).expect("bad/README.md");
    let table = readme.split("## `validation/`").next().unwrap_or_default();
    table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim().trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 5, "{l}");
            BadCase {
                file: cells[0].trim_matches('`').to_owned(),
                role: cells[1].to_owned(),
                options: cells[2].to_owned(),
                line: cells[3].parse().expect("a line number"),
                fragment: cells[4].to_owned(),
            }
        })
        .collect()
}

fn read_as(role: &str, options: &str, input: &[u8], file: &str) -> Result<(), FormatError> {
    let mut interner = Interner::new();
    match role {
        "pools" => read_pools(input, file, &mut interner).map(drop),
        "gold" => read_gold(input, file, &mut interner, DISO_NIL_IRI).map(drop),
        "pairs" => read_scored_pairs(input, file, &mut interner).map(drop),
        "submission" => {
            let block_size = options.strip_prefix("block_size=").map(|n| n.parse().expect("a block size"));
            let options = SubmissionReadOptions { block_size, ..SubmissionReadOptions::default() };
            read_submission(input, file, &mut interner, &options).map(drop)
        }
        other => panic!("unknown role {other}"),
    }
}

#[test]
fn every_bad_file_fails_at_its_line_with_its_message() {
    let cases = bad_cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let dir = ranking_data().join("bad");
    let mut listed: Vec<&str> = cases.iter().map(|c| c.file.as_str()).collect();
    listed.sort_unstable();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().into_string().unwrap())
        .filter(|n| n != "README.md")
        .collect();
    on_disk.sort_unstable();
    assert_eq!(listed, on_disk, "README table and directory differ");
    for case in &cases {
        let input = std::fs::read(dir.join(&case.file)).unwrap();
        let error = read_as(&case.role, &case.options, &input, &case.file).unwrap_err();
        let FormatError::Syntax(syntax) = &error else { panic!("{}: {error}", case.file) };
        let shown = error.to_string();
        assert_eq!(syntax.location.line, case.line, "{shown}");
        assert!(syntax.location.column >= 1, "{shown}");
        assert!(shown.starts_with(&format!("{}:{}:", case.file, case.line)), "{shown}");
        assert!(syntax.message.starts_with("found "), "{shown}");
        assert!(syntax.message.contains(&case.fragment), "{}: {shown} lacks `{}`", case.file, case.fragment);
        assert!(!shown.contains('\n'), "{shown}");
    }
}

#[test]
fn validation_fixtures_are_well_formed() {
    let dir = ranking_data().join("bad/validation");
    let mut interner = Interner::new();
    for pools in ["pools.jsonl", "pools-wrong-size.jsonl", "pools-without-nil.jsonl"] {
        let read = read_pools_file(&dir.join(pools), &mut interner).unwrap();
        assert_eq!(read.pools.len(), 3, "{pools}");
    }
    let gold = read_gold_file(&dir.join("gold.tsv"), &mut interner, DISO_NIL_IRI).unwrap();
    assert_eq!(gold.gold.entries.len(), 3);
    for (file, queries) in [
        ("sub-valid.jsonl", 3),
        ("sub-unknown-qid.jsonl", 4),
        ("sub-duplicate-qid.jsonl", 4),
        ("sub-not-permutation.jsonl", 3),
        ("sub-missing-qid.jsonl", 2),
    ] {
        let read = read_submission_file(&dir.join(file), &mut interner, &options()).unwrap();
        assert_eq!(read.format, SubmissionFormat::JsonlRanking, "{file}");
        assert_eq!(read.submission.entries.len(), queries, "{file}");
    }
}

fn resolve_scores(interner: &Interner, submitted: &Submitted) -> Vec<(String, f64)> {
    scores(submitted).iter().map(|&(t, s)| (interner.resolve(t).to_owned(), s)).collect()
}

#[test]
fn jsonl_scores_keep_submission_order_and_qids_their_text() {
    let input = b"{\"qid\": 7, \"scores\": {\"z\": 0.1, \"a\": 0.9, \"m\": 2}, \"extra\": [1]}\n\n{\"qid\": \"q-2\", \"scores\": {}}\n";
    let mut interner = Interner::new();
    let read = read_submission(input, "s.jsonl", &mut interner, &options()).unwrap();
    assert_eq!(read.format, SubmissionFormat::JsonlScores);
    let entries = &read.submission.entries;
    assert_eq!((&*entries[0].qid, entries[0].line), ("7", 1));
    assert_eq!((&*entries[1].qid, entries[1].line), ("q-2", 3));
    let got = resolve_scores(&interner, &entries[0].submitted);
    assert_eq!(got, [("z".to_owned(), 0.1), ("a".to_owned(), 0.9), ("m".to_owned(), 2.0)]);
    assert!(entries[1].submitted.is_empty());
}

#[test]
fn jsonl_rankings_keep_repeats_for_validation() {
    let input = b"{\"qid\": 0, \"ranking\": [\"a\", \"b\", \"a\"]}\r\n{\"qid\": 0, \"ranking\": []}\r\n";
    let mut interner = Interner::new();
    let read = read_submission(input, "s.jsonl", &mut interner, &options()).unwrap();
    assert_eq!(read.format, SubmissionFormat::JsonlRanking);
    assert_eq!(read.submission.entries.len(), 2, "duplicate qids are kept");
    assert_eq!(ranking(&read.submission.entries[0].submitted).len(), 3);
}

#[test]
fn qid_iri_score_rows_are_gathered_per_qid_in_first_seen_order() {
    let input = b"\xef\xbb\xbfqid\tiri\tscore\n1\tb\t0.5\n0\ta\t1e-3\n1\ta\t-2\n0\tc\t0.25\n";
    let mut interner = Interner::new();
    let read = read_submission(input, "s.tsv", &mut interner, &options()).unwrap();
    assert_eq!(read.format, SubmissionFormat::QidIriScoreTsv);
    let entries = &read.submission.entries;
    assert_eq!(entries.iter().map(|e| (&*e.qid, e.line)).collect::<Vec<_>>(), [("1", 2), ("0", 3)]);
    assert_eq!(resolve_scores(&interner, &entries[0].submitted), [("b".to_owned(), 0.5), ("a".to_owned(), -2.0)]);
    assert_eq!(resolve_scores(&interner, &entries[1].submitted), [("a".to_owned(), 0.001), ("c".to_owned(), 0.25)]);
}

#[test]
fn gold_keys_read_from_tsv_and_jsonl_with_unmatched_as_nil() {
    let nil = "http://example.org/NIL";
    let mut interner = Interner::new();
    let tsv =
        read_gold(b"qid\tgold\n0\thttp://t/a\n1\tUnMatched\n0\thttp://t/b\n", "g.tsv", &mut interner, nil).unwrap();
    let got: Vec<(&str, &str, u32)> =
        tsv.gold.entries.iter().map(|g| (&*g.qid, interner.resolve(g.gold), g.line)).collect();
    assert_eq!(got, [("0", "http://t/a", 2), ("1", nil, 3), ("0", "http://t/b", 4)], "duplicates kept");
    let jsonl = read_gold(
        b"{\"qid\": 0, \"gold\": \"http://t/a\"}\n{\"gold\": \"UnMatched\", \"qid\": 1}\n",
        "g.jsonl",
        &mut interner,
        nil,
    )
    .unwrap();
    let got: Vec<(&str, &str)> = jsonl.gold.entries.iter().map(|g| (&*g.qid, interner.resolve(g.gold))).collect();
    assert_eq!(got, [("0", "http://t/a"), ("1", nil)]);
    // Without a header and with a DISO NIL gold.
    let plain = read_gold(format!("5\t{DISO_NIL_IRI}\n").as_bytes(), "g.tsv", &mut interner, DISO_NIL_IRI).unwrap();
    assert_eq!(interner.resolve(plain.gold.entries[0].gold), DISO_NIL_IRI);
}

#[test]
fn repeated_bioml_sources_get_numbered_qids_with_a_note() {
    let input = b"SrcEntity\tTgtEntity\tTgtCandidates\ns\tt1\t['t1', 't2']\nu\tUnMatched\t('t2',)\ns\tt2\t['t2', 't1']\ns\tt1\t[]\n";
    let mut interner = Interner::new();
    let options = SubmissionReadOptions { nil_iri: "urn:nil".to_owned(), block_size: None };
    let read = read_submission(input, "b.tsv", &mut interner, &options).unwrap();
    let qids: Vec<&str> = read.submission.entries.iter().map(|e| &*e.qid).collect();
    assert_eq!(qids, ["s", "u", "s#2", "s#3"]);
    let gold = read.gold.unwrap();
    let gold: Vec<(&str, &str)> = gold.entries.iter().map(|g| (&*g.qid, interner.resolve(g.gold))).collect();
    assert_eq!(gold, [("s", "t1"), ("u", "urn:nil"), ("s#2", "t2"), ("s#3", "t1")]);
    assert_eq!(read.warnings.len(), 2);
    let note = &read.warnings[0];
    assert_eq!((note.severity, note.code), (Severity::Note, "repeated-source"));
    let location = note.location.as_ref().unwrap();
    assert_eq!((location.line, location.column), (4, 1));
    assert!(note.message.contains("first at line 2"), "{}", note.message);
    // The same rule in a Bio-ML gold file.
    let gold = read_gold(b"SrcEntity\tTgtEntity\ns\tt1\ns\tt2\n", "g.tsv", &mut interner, DISO_NIL_IRI).unwrap();
    assert_eq!(gold.gold.entries.iter().map(|g| &*g.qid).collect::<Vec<_>>(), ["s", "s#2"]);
    assert_eq!(gold.warnings.len(), 1);
}

#[test]
fn block_form_groups_runs_or_fixed_blocks() {
    let input = b"SrcEntity\tTgtEntity\tScore\nx\ta\t0.5\nx\tb\t0.7\ny\ta\t1\ny\tc\t0\nx\tc\t0.1\nx\td\t0.2\n";
    let mut interner = Interner::new();
    let read = read_submission(input, "b.tsv", &mut interner, &options()).unwrap();
    assert_eq!(read.format, SubmissionFormat::BioMlBlock);
    assert!(read.gold.is_none());
    let shape: Vec<(&str, u32, usize)> =
        read.submission.entries.iter().map(|e| (&*e.qid, e.line, e.submitted.len())).collect();
    assert_eq!(shape, [("x", 2, 2), ("y", 4, 2), ("x#2", 6, 2)]);
    assert_eq!(
        resolve_scores(&interner, &read.submission.entries[1].submitted),
        [("a".to_owned(), 1.0), ("c".to_owned(), 0.0)]
    );
    let fixed = SubmissionReadOptions { block_size: Some(2), ..options() };
    let read = read_submission(input, "b.tsv", &mut interner, &fixed).unwrap();
    assert_eq!(read.submission.entries.len(), 3);
    let too_big = SubmissionReadOptions { block_size: Some(4), ..options() };
    let error = read_submission(input, "b.tsv", &mut interner, &too_big).unwrap_err().to_string();
    assert!(error.starts_with("b.tsv:4:1: found the source `y` in the block of `x`"), "{error}");
    let zero = SubmissionReadOptions { block_size: Some(0), ..options() };
    assert!(read_submission(input, "b.tsv", &mut interner, &zero).is_err());
}

#[test]
fn ranked_2022_scores_split_on_the_last_space() {
    let input = "SrcEntity\tRankedTgtCandidates\ns\t('http://t/a b 0.5', \"http://t/c 1e-2\")\n";
    let mut interner = Interner::new();
    let read = read_submission(input.as_bytes(), "r.tsv", &mut interner, &options()).unwrap();
    let got = resolve_scores(&interner, &read.submission.entries[0].submitted);
    assert_eq!(got, [("http://t/a b".to_owned(), 0.5), ("http://t/c".to_owned(), 0.01)]);
}

#[test]
fn literal_errors_point_at_the_column_inside_the_cell() {
    let input = "SrcEntity\tTgtCandidates\nhttp://s/x\t['http://t/a', ('http://t/b', 1)]\n";
    let mut interner = Interner::new();
    let error = read_submission(input.as_bytes(), "c.tsv", &mut interner, &options()).unwrap_err().to_string();
    // The tuple starts at column 12 + 15 = 27.
    assert_eq!(error, "c.tsv:2:27: found a tuple of 2, expected an IRI string like the first candidate");
}

#[test]
fn scored_pairs_read_from_tsv_and_json() {
    let mut interner = Interner::new();
    let tsv = read_scored_pairs(b"source\ttarget\tscore\ns1\tt1\t0.5\ns1\tt2\t\n", "p.tsv", &mut interner).unwrap();
    let got: Vec<(&str, &str, f64)> =
        tsv.iter().map(|p| (interner.resolve(p.source), interner.resolve(p.target), p.score)).collect();
    assert_eq!(got, [("s1", "t1", 0.5), ("s1", "t2", 0.0)]);
    let two_columns = read_scored_pairs(b"SrcEntity\tTgtEntity\ns\tt\n", "p.tsv", &mut interner).unwrap();
    assert_eq!(two_columns[0].score, 0.0);
    let json = br#"[{"source": "s1", "target": "t1", "score": 0.25}, {"source": "s2", "target": "t1", "score": null, "note": 1}]"#;
    let json = read_scored_pairs(json, "p.json", &mut interner).unwrap();
    assert_eq!(json.iter().map(|p| p.score).collect::<Vec<_>>(), [0.25, 0.0]);
}

#[test]
fn file_readers_name_a_missing_file() {
    let mut interner = Interner::new();
    let missing = ranking_data().join("no-such-file.jsonl");
    for error in [
        read_pools_file(&missing, &mut interner).map(drop).unwrap_err(),
        read_gold_file(&missing, &mut interner, DISO_NIL_IRI).map(drop).unwrap_err(),
        read_submission_file(&missing, &mut interner, &options()).map(drop).unwrap_err(),
        read_scored_pairs_file(&missing, &mut interner).map(drop).unwrap_err(),
    ] {
        assert!(matches!(error, FormatError::Io { .. }));
        assert!(error.to_string().contains("no-such-file.jsonl"), "{error}");
    }
}

fn every_reader(input: &[u8]) {
    for role in ["pools", "gold", "pairs", "submission"] {
        for options in ["", "block_size=2"] {
            if let Err(FormatError::Syntax(error)) = read_as(role, options, input, "f") {
                assert!(error.location.line >= 1 && error.location.column >= 1, "{error}");
                assert!(error.message.starts_with("found "), "{error}");
            }
        }
    }
}

fn sample_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for file in [
        "diso-oaei/pools/stix-d3fend/pools.jsonl",
        "deeponto-assets/example_bio-llm_candidate_mappings.tsv",
        "bioml-2022-examples/local_ranking_submission_example2.tsv",
        "bad/validation/sub-valid.jsonl",
    ] {
        let text = std::fs::read_to_string(ranking_data().join(file)).expect(file);
        // A header and one shortened data row of each file.
        let mut rows = text.lines().take(2).map(|l| l.chars().take(400).collect::<String>());
        lines.push(rows.by_ref().collect::<Vec<_>>().join("\n"));
    }
    lines
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        every_reader(&bytes);
    }

    #[test]
    fn mutated_real_rows_never_panic(sample in 0usize..4, cut in 0usize..400, byte in any::<u8>(), at in 0usize..400) {
        let mut bytes = sample_lines()[sample].clone().into_bytes();
        if !bytes.is_empty() {
            let at = at % bytes.len();
            bytes[at] = byte;
            bytes.truncate(cut.max(1).min(bytes.len()));
        }
        every_reader(&bytes);
    }
}
