//! TSV / CSV and SSSOM alignment readers and ontology typing, on the real files of
//! `testdata/`, the small fixtures of `testdata/alignment/kgeval-tsv/`, the malformed fixtures
//! `testdata/bad/{tsv,sssom,onto}-*`, and random input.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use kgeval_formats::align::{read_alignment, read_alignment_file, AlignmentFormat, ReadAlignment, ReadOptions};
use kgeval_formats::ontology::{read_entity_types, read_entity_types_file};
use kgeval_formats::FormatError;
use kgeval_model::{EntityKind, Interner, Relation};
use proptest::prelude::*;

const MELT_RESOURCES: &str = "alignment/melt/yet-another-alignment-api/src/test/resources";

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn options(format: AlignmentFormat) -> ReadOptions {
    ReadOptions { format: Some(format), ..ReadOptions::default() }
}

fn read_as(relative: &str, format: AlignmentFormat) -> Result<(ReadAlignment, Interner), FormatError> {
    let mut interner = Interner::new();
    let read = read_alignment_file(&testdata().join(relative), &options(format), &mut interner)?;
    Ok((read, interner))
}

fn codes(read: &ReadAlignment) -> Vec<&'static str> {
    read.warnings.iter().map(|w| w.code).collect()
}

#[test]
fn melt_tsv_parsing_file() -> Result<(), FormatError> {
    let (read, iris) = read_as(&format!("{MELT_RESOURCES}/tsv_parsing.tsv"), AlignmentFormat::Tsv)?;
    let cells = read.alignment.cells();
    assert_eq!(cells.len(), 5);
    assert_eq!(read.alignment.duplicates(), 0);
    // A leading space in the third row's source is trimmed.
    assert_eq!(iris.resolve(cells[2].entity1), "http://dbpedia.org/resource/E239557");
    assert_eq!(cells[2].confidence, 0.3239635);
    assert_eq!(cells[2].line, 3);
    // `%` is the incompatible relation.
    assert_eq!(cells[3].relation, Relation::Incompatible);
    assert_eq!(cells[3].confidence, 0.3328134);
    // No confidence column → 1.0, relation `=`.
    assert_eq!(cells[4].confidence, 1.0);
    assert_eq!(cells[4].relation, Relation::Equivalence);
    assert_eq!(iris.resolve(cells[4].entity2), "http://www.wikidata.org/entity/Q615797");
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    // Detected as TSV without forcing the format.
    let mut interner = Interner::new();
    let detected = read_alignment_file(
        &testdata().join(MELT_RESOURCES).join("tsv_parsing.tsv"),
        &ReadOptions::default(),
        &mut interner,
    )?;
    assert_eq!(detected.format, AlignmentFormat::Tsv);
    assert_eq!(detected.alignment.len(), 5);
    Ok(())
}

#[test]
fn bio_ml_reference_mappings() -> Result<(), FormatError> {
    let (read, iris) = read_as("alignment/kgeval-tsv/example_reference_mappings.tsv", AlignmentFormat::Tsv)?;
    let cells = read.alignment.cells();
    assert_eq!(cells.len(), 3);
    assert_eq!(iris.resolve(cells[0].entity1), "http://ncicb.nci.nih.gov/xml/owl/EVS/Thesaurus.owl#C27377");
    assert_eq!(iris.resolve(cells[0].entity2), "http://purl.obolibrary.org/obo/DOID_6494");
    assert!(cells.iter().all(|c| c.confidence == 1.0 && c.relation == Relation::Equivalence));
    assert_eq!(cells[0].line, 2, "the header row is line 1");
    Ok(())
}

#[test]
fn csv_with_header_and_quoting() -> Result<(), FormatError> {
    let (read, iris) = read_as("alignment/kgeval-tsv/with-header.csv", AlignmentFormat::Csv)?;
    assert_eq!(read.format, AlignmentFormat::Csv);
    let cells = read.alignment.cells();
    assert_eq!(cells.len(), 3);
    assert_eq!(read.alignment.duplicates(), 1);
    assert_eq!(read.alignment.duplicate_lines(), [6]);
    assert_eq!(codes(&read), ["duplicate-cell"]);
    assert_eq!(cells[0].confidence, 0.9, "first occurrence kept");
    assert_eq!(iris.resolve(cells[1].entity1), "http://a.org/onto#Author, Person");
    assert_eq!(iris.resolve(cells[1].entity2), "http://b.org/onto#Writer");
    assert_eq!(cells[1].relation, Relation::Subsumed);
    assert_eq!(cells[1].confidence, 0.75);
    assert_eq!(iris.resolve(cells[2].entity2), "http://b.org/onto#Re\"view\"");
    assert_eq!(cells[2].relation, Relation::Equivalence, "empty relation cell → =");
    assert_eq!(cells[2].line, 5);
    Ok(())
}

#[test]
fn unknown_relations_warn_unless_melt() -> Result<(), FormatError> {
    let input = b"http://a#x\thttp://b#y\t0.5\t = \nhttp://a#x\thttp://b#z\t0.5\tsameish\n";
    let mut iris = Interner::new();
    let read = read_alignment(input, "r.tsv", &options(AlignmentFormat::Tsv), &mut iris)?;
    let relations: Vec<_> = read.alignment.iter().map(|c| c.relation).collect();
    assert_eq!(relations, [Relation::Equivalence, Relation::Unknown]);
    assert_eq!(codes(&read), ["unknown-relation"]);
    assert_eq!(read.warnings[0].location.as_ref().map(|l| (l.line, l.column)), Some((2, 27)));
    let melt = ReadOptions { melt_relations: true, ..options(AlignmentFormat::Tsv) };
    let read = read_alignment(input, "r.tsv", &melt, &mut iris)?;
    let relations: Vec<_> = read.alignment.iter().map(|c| c.relation).collect();
    assert_eq!(relations, [Relation::Unknown, Relation::Unknown], "MELT reads ` = ` as ?");
    assert!(read.warnings.is_empty());
    Ok(())
}

#[test]
fn sssom_mgi_counts() -> Result<(), FormatError> {
    let (read, iris) = read_as(&format!("{MELT_RESOURCES}/mp_hp_mgi_all.sssom.tsv"), AlignmentFormat::Sssom)?;
    assert_eq!(read.alignment.len(), 770);
    assert_eq!(read.alignment.duplicates(), 6);
    assert_eq!(codes(&read).iter().filter(|c| **c == "duplicate-cell").count(), 6);
    assert_eq!(read.warnings.len(), 6, "{:?}", read.warnings);
    let mut by_relation = BTreeMap::new();
    for cell in &read.alignment {
        *by_relation.entry(cell.relation).or_insert(0) += 1;
    }
    // Distinct cells per predicate (rows: exact 422, broad 127, narrow 140, related 67, close 20).
    let expected = BTreeMap::from([
        (Relation::Equivalence, 418),
        (Relation::Subsumed, 127),
        (Relation::Subsumes, 139),
        (Relation::Close, 20),
        (Relation::Related, 66),
    ]);
    assert_eq!(by_relation, expected);
    let first = read.alignment.cells()[0];
    assert_eq!(iris.resolve(first.entity1), "http://purl.obolibrary.org/obo/MP_0003622");
    assert_eq!(iris.resolve(first.entity2), "http://purl.obolibrary.org/obo/HP_0000016");
    assert_eq!(first.line, 23);
    assert!(read.alignment.iter().any(|c| c.confidence == 0.7));
    // Detected as SSSOM from its content.
    let mut interner = Interner::new();
    let detected = read_alignment_file(
        &testdata().join(MELT_RESOURCES).join("mp_hp_mgi_all.sssom.tsv"),
        &ReadOptions::default(),
        &mut interner,
    )?;
    assert_eq!(detected.format, AlignmentFormat::Sssom);
    assert_eq!(detected.alignment.len(), 770);
    Ok(())
}

#[test]
fn sssom_external_metadata() -> Result<(), FormatError> {
    let dir = testdata().join("alignment/kgeval-tsv");
    let table = std::fs::read(dir.join("external-metadata.sssom.tsv")).map_err(|e| FormatError::io("tsv", e))?;
    let yaml = std::fs::read(dir.join("external-metadata.sssom.yml")).map_err(|e| FormatError::io("yml", e))?;
    // Without the metadata, the CMT prefix is undeclared.
    let mut iris = Interner::new();
    let err = read_alignment(&table, "e.sssom.tsv", &options(AlignmentFormat::Sssom), &mut iris).err();
    let message = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(message.starts_with("e.sssom.tsv:2:1: found undeclared prefix `CMT`"), "{message}");
    // Given explicitly.
    let with_meta =
        ReadOptions { sssom_metadata: Some(("e.sssom.yml".to_owned(), yaml)), ..options(AlignmentFormat::Sssom) };
    let read = read_alignment(&table, "e.sssom.tsv", &with_meta, &mut iris)?;
    let cells = read.alignment.cells();
    assert_eq!(cells.len(), 3);
    assert_eq!(iris.resolve(cells[0].entity1), "http://cmt#Paper");
    assert_eq!(iris.resolve(cells[0].entity2), "http://conference#Paper");
    assert_eq!(cells[0].confidence, 0.95);
    assert_eq!((cells[1].relation, cells[1].confidence), (Relation::Subsumed, 1.0));
    assert_eq!(iris.resolve(cells[2].entity1), "http://cmt#Review");
    assert_eq!(cells[2].relation, Relation::Equivalence);
    // Picked up as the sibling `.sssom.yml` by the file reader.
    let (read, _) = read_as("alignment/kgeval-tsv/external-metadata.sssom.tsv", AlignmentFormat::Sssom)?;
    assert_eq!(read.alignment.len(), 3);
    // A broken external YAML is located in the YAML file.
    let bad = ReadOptions {
        sssom_metadata: Some(("bad.yml".to_owned(), b"curie_map:\n  CMT: [x\n".to_vec())),
        ..options(AlignmentFormat::Sssom)
    };
    let message = read_alignment(&table, "e.sssom.tsv", &bad, &mut iris).err().map(|e| e.to_string());
    assert!(message.as_deref().is_some_and(|m| m.starts_with("bad.yml:2:8: ")), "{message:?}");
    Ok(())
}

#[test]
fn sssom_negative_and_no_term_found() -> Result<(), FormatError> {
    let (read, iris) = read_as("alignment/kgeval-tsv/negative.sssom.tsv", AlignmentFormat::Sssom)?;
    let cells = read.alignment.cells();
    assert_eq!(cells.len(), 4);
    assert_eq!(cells[0].relation, Relation::Equivalence);
    assert_eq!((cells[1].relation, cells[1].confidence), (Relation::Incompatible, 0.9));
    assert_eq!(iris.resolve(cells[1].entity2), "http://b.org/onto#Paper");
    assert_eq!(cells[2].relation, Relation::Incompatible);
    assert_eq!(iris.resolve(cells[2].entity1), "http://a.org/onto#Chair");
    assert_eq!(iris.resolve(cells[2].entity2), "");
    assert_eq!(iris.resolve(cells[3].entity1), "");
    assert_eq!(iris.resolve(cells[3].entity2), "http://b.org/onto#Track");
    assert_eq!(cells[3].relation, Relation::Incompatible);
    assert_eq!(cells[3].line, 10);
    Ok(())
}

/// The malformed fixtures of this reader family, with the function that reads them.
fn bad_fixtures() -> Vec<PathBuf> {
    let dir = testdata().join("bad");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        ["tsv-", "sssom-", "onto-"].iter().any(|prefix| name.starts_with(prefix)) && !name.ends_with(".yml")
    });
    files.sort();
    files
}

fn read_bad(path: &Path, shown: &str) -> Result<(), FormatError> {
    let input = std::fs::read(path).map_err(|e| FormatError::io(shown, e))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let mut interner = Interner::new();
    if name.starts_with("onto-") {
        read_entity_types(&input, shown, &mut interner).map(drop)
    } else {
        let format = if name.starts_with("sssom-") {
            AlignmentFormat::Sssom
        } else if name.ends_with(".csv") {
            AlignmentFormat::Csv
        } else {
            AlignmentFormat::Tsv
        };
        read_alignment(&input, shown, &options(format), &mut interner).map(drop)
    }
}

#[test]
fn malformed_fixtures_are_located_errors() {
    let files = bad_fixtures();
    assert!(files.len() >= 20, "only {} tsv/sssom/onto fixtures", files.len());
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let shown = format!("testdata/bad/{name}");
        let started = Instant::now();
        let result = read_bad(path, &shown);
        // A hang guard, not a speed test (speed is measured by `cargo xtask bench`).
        assert!(started.elapsed().as_secs() < 30, "{name}: took {:?}", started.elapsed());
        let message = match result {
            Ok(()) => panic!("{name}: read without error"),
            Err(e) => e.to_string(),
        };
        assert!(!message.contains('\n'), "{name}: {message}");
        let rest = message.strip_prefix(&format!("{shown}:")).unwrap_or_else(|| panic!("{name}: {message}"));
        let mut parts = rest.splitn(3, ':');
        let line = parts.next().and_then(|s| s.parse::<u32>().ok());
        let column = parts.next().and_then(|s| s.parse::<u32>().ok());
        let text = parts.next().unwrap_or_default();
        assert!(matches!((line, column), (Some(l), Some(c)) if l >= 1 && c >= 1), "{name}: {message}");
        assert!(text.starts_with(' ') && text.len() > 10, "{name}: {message}");
        // The file read through the public file API gives the same located error (the CLI path).
        if !name.starts_with("onto-") {
            let mut interner = Interner::new();
            let via_file = read_alignment_file(path, &ReadOptions::default(), &mut interner);
            assert!(via_file.is_err(), "{name}: detected format read it without error");
        } else {
            let mut interner = Interner::new();
            assert!(read_entity_types_file(path, &mut interner).is_err(), "{name}");
        }
    }
}

#[test]
fn specific_errors_say_where_and_what() {
    let expectations = [
        ("tsv-bad-confidence.tsv", "2:23: found confidence `high`"),
        ("tsv-one-column.tsv", "2:25: found 1 column(s), expected at least 2"),
        ("tsv-non-utf8.tsv", "2:13: found bytes that are not UTF-8"),
        ("tsv-unclosed-quote.csv", "3:1: found a quote that is never closed"),
        ("sssom-undeclared-prefix.sssom.tsv", "6:21: found undeclared prefix `C`"),
        ("sssom-missing-subject-id.sssom.tsv", "4:1: found no `subject_id` column"),
        ("sssom-bad-yaml.sssom.tsv", "4:7: found invalid SSSOM metadata"),
        ("sssom-yaml-syntax.sssom.tsv", "4:16: found invalid SSSOM metadata"),
        ("sssom-bad-confidence.sssom.tsv", "5:25: found confidence `0,9`"),
        ("onto-bad-turtle.ttl", "5:1:"),
        (
            "onto-billion-laughs.owl",
            "8:3: entity expansion limit exceeded: found &a5; expanding to more than 1048576 bytes",
        ),
        (
            "onto-xxe-system-entity.owl",
            "3:3: found external entity &secret; (SYSTEM \"file:///etc/passwd\"): expected internal",
        ),
    ];
    for (name, expected) in expectations {
        let shown = format!("testdata/bad/{name}");
        let message = read_bad(&testdata().join("bad").join(name), &shown).err().map(|e| e.to_string());
        let message = message.unwrap_or_default();
        assert!(message.starts_with(&format!("{shown}:{expected}")), "{name}: {message}");
    }
}

fn kinds(relative: &str) -> Result<(kgeval_model::EntityTypes, Interner), FormatError> {
    let mut interner = Interner::new();
    let types = read_entity_types_file(&testdata().join(relative), &mut interner)?;
    Ok((types, interner))
}

fn kind_of(types: &kgeval_model::EntityTypes, interner: &mut Interner, iri: &str) -> Option<EntityKind> {
    types.kind(interner.intern(iri))
}

#[test]
fn ontology_typing_conference() -> Result<(), FormatError> {
    let (types, mut iris) = kinds("alignment/melt/matching-eval/src/test/resources/cmt.owl")?;
    assert_eq!(kind_of(&types, &mut iris, "http://cmt#Paper"), Some(EntityKind::Class));
    assert_eq!(kind_of(&types, &mut iris, "http://cmt#Acceptance"), Some(EntityKind::Class));
    assert_eq!(kind_of(&types, &mut iris, "http://cmt#writePaper"), Some(EntityKind::ObjectProperty));
    assert_eq!(kind_of(&types, &mut iris, "http://cmt#acceptedBy"), Some(EntityKind::ObjectProperty));
    assert_eq!(kind_of(&types, &mut iris, "http://cmt#name"), Some(EntityKind::DatatypeProperty));
    assert_eq!(kind_of(&types, &mut iris, "http://cmt#email"), Some(EntityKind::DatatypeProperty));
    assert_eq!(kind_of(&types, &mut iris, "http://cmt#NoSuchThing"), None);

    let (types, mut iris) = kinds("alignment/melt/matching-eval/src/test/resources/conference.owl")?;
    assert_eq!(kind_of(&types, &mut iris, "http://conference#Abstract"), Some(EntityKind::Class));
    assert_eq!(kind_of(&types, &mut iris, "http://conference#has_a_URL"), Some(EntityKind::DatatypeProperty));
    assert_eq!(kind_of(&types, &mut iris, "http://conference#contributes"), Some(EntityKind::ObjectProperty));
    assert_eq!(
        kind_of(&types, &mut iris, "http://conference#has_a_review_expertise"),
        Some(EntityKind::ObjectProperty)
    );

    let (types, mut iris) =
        kinds("alignment/melt/examples/simpleHobbitMatcher/src/test/resources/localtrack/cmt-confof/target.rdf")?;
    assert_eq!(kind_of(&types, &mut iris, "http://confOf#Banquet"), Some(EntityKind::Class));
    assert_eq!(kind_of(&types, &mut iris, "http://confOf#Country"), Some(EntityKind::Class));
    assert_eq!(kind_of(&types, &mut iris, "http://confOf#employedBy"), Some(EntityKind::ObjectProperty));
    assert_eq!(kind_of(&types, &mut iris, "http://confOf#contactEmail"), Some(EntityKind::DatatypeProperty));
    Ok(())
}

#[test]
fn ontology_typing_anatomy() -> Result<(), FormatError> {
    let (types, mut iris) = kinds("alignment/ontoaligner/assets/mouse-human/source.xml")?;
    assert_eq!(kind_of(&types, &mut iris, "http://mouse.owl#MA_0000001"), Some(EntityKind::Class));
    assert_eq!(kind_of(&types, &mut iris, "http://mouse.owl#UNDEFINED_part_of"), Some(EntityKind::ObjectProperty));
    assert_eq!(
        kind_of(&types, &mut iris, "http://www.geneontology.org/formats/oboInOwl#hasDbXref"),
        Some(EntityKind::AnnotationProperty)
    );
    let classes =
        count_kind(&types, &mut iris, "alignment/ontoaligner/assets/mouse-human/source.xml", EntityKind::Class);
    assert_eq!(classes, 2744, "mouse classes");

    let (types, mut iris) = kinds("alignment/ontoaligner/assets/mouse-human/target.xml")?;
    assert_eq!(kind_of(&types, &mut iris, "http://human.owl#NCI_C12219"), Some(EntityKind::Class));
    let classes =
        count_kind(&types, &mut iris, "alignment/ontoaligner/assets/mouse-human/target.xml", EntityKind::Class);
    assert_eq!(classes, 3304, "human classes");
    Ok(())
}

/// Every `<owl:Class rdf:about="…">` of an RDF/XML file (found textually) is typed Class;
/// returns how many there are.
fn count_kind(types: &kgeval_model::EntityTypes, iris: &mut Interner, file: &str, kind: EntityKind) -> usize {
    let text = std::fs::read_to_string(testdata().join(file)).unwrap_or_default();
    let needle = "<owl:Class rdf:about=\"";
    let mut count = 0;
    for chunk in text.split(needle).skip(1) {
        let iri = chunk.split('"').next().unwrap_or_default();
        assert_eq!(types.kind(iris.intern(iri)), Some(kind), "{iri}");
        count += 1;
    }
    count
}

fn turtle_and_ntriples() -> Result<(), FormatError> {
    let nt = b"<http://e/A> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#Class> .\n\
               <http://e/p> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2002/07/owl#AnnotationProperty> .\n\
               <http://e/x> <http://e/q> _:b .\n";
    let mut iris = Interner::new();
    let types = read_entity_types(nt, "o.nt", &mut iris)?;
    assert_eq!(kind_of(&types, &mut iris, "http://e/A"), Some(EntityKind::Class));
    assert_eq!(kind_of(&types, &mut iris, "http://e/p"), Some(EntityKind::AnnotationProperty));
    assert_eq!(kind_of(&types, &mut iris, "http://e/q"), Some(EntityKind::OtherProperty));
    assert_eq!(kind_of(&types, &mut iris, "http://e/x"), None);
    Ok(())
}

#[test]
fn ontology_typing_ntriples() -> Result<(), FormatError> {
    turtle_and_ntriples()
}

#[test]
fn two_hundred_thousand_rows_are_read() -> Result<(), FormatError> {
    let mut input = Vec::with_capacity(80 * 200_000);
    for i in 0..200_000u32 {
        input.extend_from_slice(
            format!("http://a.org/o#e{i}\thttp://b.org/o#e{}\t0.{}\t=\n", i % 5000, i % 97).as_bytes(),
        );
    }
    let mut iris = Interner::new();
    let read = read_alignment(&input, "big.tsv", &options(AlignmentFormat::Tsv), &mut iris)?;
    // Speed is measured by `cargo xtask bench align`, never by a timed test.
    assert_eq!(read.alignment.len(), 200_000);
    assert_eq!(iris.len(), 200_000 + 5_000);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut iris = Interner::new();
        for format in [AlignmentFormat::Tsv, AlignmentFormat::Csv, AlignmentFormat::Sssom] {
            if let Err(FormatError::Syntax(e)) = read_alignment(&bytes, "r", &options(format), &mut iris) {
                prop_assert!(e.location.line >= 1 && e.location.column >= 1, "{e}");
            }
        }
        let _ = read_entity_types(&bytes, "r", &mut iris);
    }

    #[test]
    fn tsv_like_text_never_panics(text in "([a-z:#/\"<> ]{0,12}[\t,\n]{0,2}){0,40}") {
        let mut iris = Interner::new();
        for format in [AlignmentFormat::Tsv, AlignmentFormat::Csv, AlignmentFormat::Sssom] {
            if let Err(FormatError::Syntax(e)) = read_alignment(text.as_bytes(), "r", &options(format), &mut iris) {
                prop_assert!(e.location.line >= 1 && e.location.column >= 1, "{e}");
            }
        }
        let sssom = format!("#curie_map:\n#  a: http://a/\n{text}");
        let _ = read_alignment(sssom.as_bytes(), "r", &options(AlignmentFormat::Sssom), &mut iris);
    }
}
