//! RDF alignment readers on the real files of `testdata/`, the malformed fixtures of
//! `testdata/bad/rdf-*`, the streaming-vs-triples differential, and random input.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kgeval_formats::align::{
    read_alignment, read_alignment_file, read_alignment_via_triples, AlignmentFormat, ReadAlignment, ReadOptions,
};
use kgeval_formats::FormatError;
use kgeval_model::{Interner, Relation};
use proptest::prelude::*;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn read_file(relative: &str, options: &ReadOptions) -> Result<(ReadAlignment, Interner), FormatError> {
    let mut interner = Interner::new();
    let read = read_alignment_file(&testdata().join(relative), options, &mut interner)?;
    Ok((read, interner))
}

/// Every file under `dir` (recursively) with one of the extensions.
fn files_under(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_under(&path, extensions, out);
        } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| extensions.contains(&e)) {
            out.push(path);
        }
    }
}

/// The real Alignment-API RDF/XML files (ontologies in the same folders are left out).
fn real_alignment_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["alignment", "diso"] {
        files_under(&testdata().join(dir), &["rdf", "xml"], &mut files);
    }
    files.retain(|path| {
        std::fs::read(path).is_ok_and(|bytes| {
            let head = &bytes[..bytes.len().min(4096)];
            head.windows(b"heterogeneity/alignment".len()).any(|w| w == b"heterogeneity/alignment")
        })
    });
    assert!(files.len() >= 40, "found only {} alignment files", files.len());
    files
}

fn is_edoal_file(path: &Path) -> bool {
    path.ends_with("procalign/test/output/wine2.xml")
}

fn is_raw_ampersand_file(path: &Path) -> bool {
    path.ends_with("src/test/resources/unparsable_alignment.rdf")
}

type CellSet = BTreeSet<(String, String, Relation, u64)>;

fn cell_set(read: &ReadAlignment, interner: &Interner) -> CellSet {
    read.alignment
        .iter()
        .map(|c| {
            (
                interner.resolve(c.entity1).to_owned(),
                interner.resolve(c.entity2).to_owned(),
                c.relation,
                c.confidence.to_bits(),
            )
        })
        .collect()
}

#[test]
fn real_files_have_the_expected_cell_counts() {
    let tutorial = "alignment/alignapi/html/tutorial/tutorial1/results";
    let conference = "alignment/melt/examples/analyzingMatcherSimilarity/results";
    let cases: &[(String, usize, usize)] = &[
        (format!("{tutorial}/refalign.rdf"), 48, 0),
        (format!("{tutorial}/equal.rdf"), 17, 0),
        (format!("{tutorial}/SMOA.rdf"), 82, 0),
        (format!("{tutorial}/SMOA5.rdf"), 65, 0),
        (format!("{tutorial}/levenshtein.rdf"), 88, 0),
        (format!("{tutorial}/levenshtein33.rdf"), 74, 0),
        (format!("{tutorial}/AOMS5.rdf"), 65, 0),
        ("alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf".into(), 15, 0),
        (
            "alignment/melt/examples/simpleHobbitMatcher/src/test/resources/localtrack/cmt-confof/reference.rdf".into(),
            16,
            0,
        ),
        ("alignment/ontoaligner/assets/mouse-human/reference.xml".into(), 1516, 0),
        (
            format!("{conference}/anatomy_track_anatomy_track-default/mouse-human-suite/ALOD2Vec/systemAlignment.rdf"),
            988,
            0,
        ),
        (
            format!("{conference}/anatomy_track_anatomy_track-default/mouse-human-suite/DOME/systemAlignment.rdf"),
            936,
            0,
        ),
        ("diso/brick-smartenv/Rplus.rdf".into(), 18, 0),
        // DISO files repeat cells: 53 <Cell> elements, 47 distinct keys; 84 / 75.
        ("diso/brick-smartenv/Rapprox.rdf".into(), 47, 6),
        ("diso/brick-smartenv/unknown.rdf".into(), 224, 0),
        ("diso/brick-smartenv/incorrect.rdf".into(), 75, 9),
    ];
    let mut report = Vec::new();
    for (file, cells, duplicates) in cases {
        let (read, _) = read_file(file, &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.format, AlignmentFormat::RdfXml);
        let got = (read.alignment.len(), read.alignment.duplicates());
        if got != (*cells, *duplicates) {
            report.push(format!("{file}: expected {cells} cells / {duplicates} duplicates, got {got:?}"));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn headers_are_read() {
    let (read, _) =
        read_file("alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf", &ReadOptions::default())
            .unwrap();
    let header = &read.alignment.header;
    assert_eq!(header.onto1.as_deref(), Some("http://cmt"));
    assert_eq!(header.level.as_deref(), Some("0"));
    assert_eq!(header.arity.as_deref(), Some("??"));
    // Legacy format: <onto1> is a location, <uri1> the ontology IRI.
    let (read, _) =
        read_file("alignment/alignapi/html/tutorial/tutorial1/results/refalign.rdf", &ReadOptions::default()).unwrap();
    assert_eq!(read.alignment.header.onto1.as_deref(), Some("http://alignapi.gforge.inria.fr/tutorial/myOnto.owl"));
    assert_eq!(
        read.alignment.header.onto2.as_deref(),
        Some("http://alignapi.gforge.inria.fr/tutorial/edu.mit.visus.bibtex.owl")
    );
}

#[test]
fn every_real_rdfxml_file_parses() {
    for path in real_alignment_files() {
        let mut interner = Interner::new();
        let result = read_alignment_file(&path, &ReadOptions::default(), &mut interner);
        if is_edoal_file(&path) {
            let e = result.expect_err("EDOAL file must not parse by default").to_string();
            assert!(e.contains("EDOAL / level-2 cell"), "{e}");
            let options = ReadOptions { skip_edoal: true, ..ReadOptions::default() };
            let read = read_alignment_file(&path, &options, &mut interner).unwrap();
            assert!(read.alignment.skipped_cells > 0);
        } else if is_raw_ampersand_file(&path) {
            let e = result.expect_err("raw '&' must be an error by default").to_string();
            assert!(e.contains("raw '&'") && e.contains("--repair-xml"), "{e}");
            let options = ReadOptions { repair_xml: true, ..ReadOptions::default() };
            let read = read_alignment_file(&path, &options, &mut interner).unwrap();
            assert_eq!(read.alignment.len(), 3, "MELT's repair reads 3 cells");
            // Four raw '&' in the three cells (the third cell has two).
            assert!(read.warnings.iter().any(|w| w.message.starts_with("repaired 4 raw '&'")), "{:?}", read.warnings);
        } else {
            let read = result.unwrap_or_else(|e| panic!("{e}"));
            assert!(!read.alignment.is_empty(), "{}", path.display());
            assert!(read.alignment.iter().all(|c| c.line >= 1), "{}", path.display());
        }
    }
}

/// Real files that are not valid RDF/XML, so oxrdfxml rejects them ("XML namespaces are required
/// in RDF/XML"): they carry unprefixed attributes (`alignmentSource='AgreementMakerLight'` on
/// `rdf:RDF`, `<Cell cid='1'>`), which RDF/XML forbids. The streaming reader ignores them.
const NOT_RDF: [&str; 5] = [
    "cmt-conference/AML/systemAlignment.rdf",
    // AML's layout, with its unprefixed `alignmentSource` attribute on `rdf:RDF`.
    "alignment/kgeval/layouts/measure-first.rdf",
    "cmt-confof/AML/systemAlignment.rdf",
    "matching-eval/src/test/resources/cmt-conference.rdf",
    // The same layout as the file above (`<Cell cid='1'>`), for the bench.
    "alignment/kgeval/layouts/cell-id.rdf",
];

/// The streaming reader and the oxrdfxml triples path agree on every fixture oxrdfxml accepts.
#[test]
fn streaming_and_triples_paths_agree() {
    let mut compared = 0;
    let mut rejected_by_oxrdfxml = Vec::new();
    for path in real_alignment_files() {
        if is_edoal_file(&path) {
            continue;
        }
        let options = ReadOptions { repair_xml: is_raw_ampersand_file(&path), ..ReadOptions::default() };
        let bytes = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        let mut interner = Interner::new();
        let streamed = read_alignment(&bytes, &name, &options, &mut interner).unwrap();
        let streamed = cell_set(&streamed, &interner);
        match read_alignment_via_triples(&bytes, &name, AlignmentFormat::RdfXml, &options, &mut interner) {
            Ok(triples) => {
                assert_eq!(streamed, cell_set(&triples, &interner), "{name}");
                compared += 1;
            }
            Err(e) if NOT_RDF.iter().any(|f| path.ends_with(f)) => {
                assert!(e.to_string().contains("XML namespaces are required"), "{e}");
            }
            Err(e) => rejected_by_oxrdfxml.push(e.to_string()),
        }
    }
    // Files oxrdfxml rejects are not valid RDF/XML; list them so a change is noticed.
    assert!(rejected_by_oxrdfxml.is_empty(), "oxrdfxml rejected:\n{}", rejected_by_oxrdfxml.join("\n"));
    assert!(compared >= 38, "compared {compared}");
}

#[test]
fn turtle_and_ntriples_read_like_rdfxml() {
    let base = "alignment/kgeval/small";
    let (xml, interner_xml) = read_file(&format!("{base}.rdf"), &ReadOptions::default()).unwrap();
    let expected = cell_set(&xml, &interner_xml);
    assert_eq!(expected.len(), 4);
    for (ext, format) in [("ttl", AlignmentFormat::Turtle), ("nt", AlignmentFormat::NTriples)] {
        let (read, interner) = read_file(&format!("{base}.{ext}"), &ReadOptions::default()).unwrap();
        assert_eq!(read.format, format);
        assert_eq!(cell_set(&read, &interner), expected, "{ext}");
        assert_eq!(read.alignment.header, xml.alignment.header, "{ext}");
    }
}

/// Every `testdata/bad/rdf-*` fixture is an error `FILE:LINE:COL: message`, quickly.
#[test]
fn malformed_fixtures_are_located_errors() {
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(testdata().join("bad"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("rdf-")))
        .collect();
    fixtures.sort();
    assert!(fixtures.len() >= 23, "found {} fixtures", fixtures.len());
    for path in fixtures {
        let shown = path.display().to_string();
        let started = Instant::now();
        let mut interner = Interner::new();
        let result = read_alignment_file(&path, &ReadOptions::default(), &mut interner);
        let elapsed = started.elapsed();
        let Err(e) = result else { panic!("{shown} parsed") };
        let message = e.to_string();
        let rest = message.strip_prefix(&format!("{shown}:")).unwrap_or_else(|| panic!("{message}"));
        let mut parts = rest.splitn(3, ':');
        let line: u32 = parts.next().and_then(|l| l.parse().ok()).unwrap_or_else(|| panic!("{message}"));
        let column: u32 = parts.next().and_then(|c| c.parse().ok()).unwrap_or_else(|| panic!("{message}"));
        assert!(line >= 1 && column >= 1, "{message}");
        assert!(parts.next().is_some_and(|m| m.starts_with(' ') && m.len() > 10), "{message}");
        assert!(!message.contains('\n'), "{message}");
        assert!(!message.contains("root:x:0:0"), "{shown} leaked /etc/passwd: {message}");
        // A guard against hangs and runaway entity expansion (minutes and gigabytes), not a speed
        // test: speed is measured by `cargo xtask bench`, never by a timed test.
        assert!(elapsed < Duration::from_secs(30), "{shown} took {elapsed:?}");
    }
}

fn real_samples() -> Vec<Vec<u8>> {
    let tutorial = testdata().join("alignment/alignapi/html/tutorial/tutorial1/results");
    ["refalign.rdf", "SMOA.rdf", "AOMS5.rdf"]
        .iter()
        .map(|f| std::fs::read(tutorial.join(f)).expect("read sample"))
        .chain(std::iter::once(std::fs::read(testdata().join("alignment/kgeval/small.ttl")).expect("read sample")))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        for format in [AlignmentFormat::RdfXml, AlignmentFormat::Turtle, AlignmentFormat::NTriples] {
            let options = ReadOptions { format: Some(format), ..ReadOptions::default() };
            let _ = read_alignment(&bytes, "random", &options, &mut Interner::new());
        }
        let _ = read_alignment_via_triples(&bytes, "random", AlignmentFormat::RdfXml, &ReadOptions::default(), &mut Interner::new());
    }

    #[test]
    fn truncated_and_mutated_real_files_never_panic(
        which in 0usize..4,
        cut in any::<proptest::sample::Index>(),
        flips in proptest::collection::vec((any::<proptest::sample::Index>(), any::<u8>()), 0..4),
        repair in any::<bool>(),
    ) {
        let samples = real_samples();
        let mut bytes = samples[which].clone();
        bytes.truncate(cut.index(bytes.len() + 1));
        for (at, byte) in flips {
            if !bytes.is_empty() {
                let i = at.index(bytes.len());
                bytes[i] = byte;
            }
        }
        let options = ReadOptions { repair_xml: repair, skip_edoal: repair, ..ReadOptions::default() };
        if let Err(FormatError::Syntax(e)) = read_alignment(&bytes, "cut", &options, &mut Interner::new()) {
            prop_assert!(e.location.line >= 1 && e.location.column >= 1, "{}", e);
        }
        let _ = read_alignment_via_triples(&bytes, "cut", AlignmentFormat::RdfXml, &options, &mut Interner::new());
    }
}

/// Found by the `align` fuzz target: the general (oxrdfxml) path expanded the billion-laughs
/// entities of `testdata/bad/rdf-billion-laughs.rdf`, allocating gigabytes, where the
/// streaming path refuses them. Both must fail fast with a located error.
#[test]
fn general_rdfxml_path_refuses_billion_laughs() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/bad/rdf-billion-laughs.rdf");
    let input = std::fs::read(path).expect("testdata present");
    let mut interner = kgeval_model::Interner::new();
    let start = std::time::Instant::now();
    let result = kgeval_formats::align::read_alignment_via_triples(
        &input,
        "rdf-billion-laughs.rdf",
        kgeval_formats::align::AlignmentFormat::RdfXml,
        &kgeval_formats::align::ReadOptions::default(),
        &mut interner,
    );
    let error = result.expect_err("billion laughs must be refused").to_string();
    assert!(error.contains("rdf-billion-laughs.rdf:"), "{error}");
    assert!(error.contains("entity"), "{error}");
    // A hang guard (the unbounded expansion ran for minutes), not a speed test.
    assert!(start.elapsed() < std::time::Duration::from_secs(30), "took {:?}", start.elapsed());
}
