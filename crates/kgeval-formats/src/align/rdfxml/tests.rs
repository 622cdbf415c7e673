//! Unit tests of the streaming Alignment-API RDF/XML reader.

use std::fmt::Write as _;

use super::*;
use kgeval_model::Relation;

fn read_str(xml: &str) -> Result<(ReadAlignment, Interner), FormatError> {
    read_with(xml, &ReadOptions::default())
}

fn read_with(xml: &str, options: &ReadOptions) -> Result<(ReadAlignment, Interner), FormatError> {
    let mut interner = Interner::new();
    let read = read(xml.as_bytes(), "t.rdf", options, &mut interner)?;
    Ok((read, interner))
}

fn cells(read: &ReadAlignment, interner: &Interner) -> Vec<(String, String, Relation, f64)> {
    read.alignment
        .iter()
        .map(|c| {
            (interner.resolve(c.entity1).to_owned(), interner.resolve(c.entity2).to_owned(), c.relation, c.confidence)
        })
        .collect()
}

const HEAD: &str = r#"<?xml version="1.0"?>
<rdf:RDF xmlns="http://knowledgeweb.semanticweb.org/heterogeneity/alignment"
     xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
     xmlns:xsd="http://www.w3.org/2001/XMLSchema#">
<Alignment><xml>yes</xml><level>0</level><type>??</type>
<map>"#;
const TAIL: &str = "</map></Alignment></rdf:RDF>";

fn doc(cells: &str) -> String {
    format!("{HEAD}{cells}{TAIL}")
}

fn one(cell_body: &str) -> (String, String, Relation, f64) {
    let (read, interner) = read_str(&doc(&format!("<Cell>{cell_body}</Cell>"))).unwrap();
    let mut all = cells(&read, &interner);
    assert_eq!(all.len(), 1);
    all.remove(0)
}

const E12: &str = r#"<entity1 rdf:resource="http://a#x"/><entity2 rdf:resource="http://b#y"/>"#;

#[test]
fn plain_cell_no_hash_namespace() {
    let c = one(&format!("{E12}<measure rdf:datatype=\"xsd:float\">0.5</measure><relation>=</relation>"));
    assert_eq!(c, ("http://a#x".into(), "http://b#y".into(), Relation::Equivalence, 0.5));
}

#[test]
fn measure_before_relation_and_variants() {
    assert_eq!(one(&format!("{E12}<relation>&lt;</relation><measure>1.</measure>")).2, Relation::Subsumed);
    assert_eq!(one(&format!("{E12}<measure>1.</measure>")).3, 1.0);
    assert_eq!(one(&format!("{E12}<measure>1e-1</measure>")).3, 0.1);
    assert_eq!(one(&format!("{E12}<measure> 0.5 </measure>")).3, 0.5);
}

#[test]
fn missing_measure_and_relation() {
    let c = one(E12);
    assert_eq!((c.2, c.3), (Relation::Equivalence, 1.0));
}

#[test]
fn align_prefix_with_hash() {
    let xml = r##"<r:RDF xmlns:align="http://knowledgeweb.semanticweb.org/heterogeneity/alignment#" xmlns:r="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><align:Alignment><align:map><align:Cell r:about="#c1"><align:entity1 r:resource="http://a#x"/><align:entity2 r:resource="http://b#y"/><align:measure>0.3</align:measure><align:relation>&gt;</align:relation></align:Cell></align:map></align:Alignment></r:RDF>"##;
    let (read, interner) = read_str(xml).unwrap();
    assert_eq!(cells(&read, &interner), vec![("http://a#x".into(), "http://b#y".into(), Relation::Subsumes, 0.3)]);
    assert_eq!(read.alignment.cells()[0].line, 1);
}

#[test]
fn dtd_entities() {
    let xml = r#"<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
  <!ENTITY xsd "http://www.w3.org/2001/XMLSchema#">
  <!ENTITY a "http://a#">
  <!ENTITY ax "&a;x">
]>
<rdf:RDF xmlns="http://knowledgeweb.semanticweb.org/heterogeneity/alignment#" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<Alignment><map><Cell cid="c1">
<entity1 rdf:resource="&ax;"/><entity2 rdf:resource="&a;y&#x41;"/>
<measure rdf:datatype="&xsd;float">0.25</measure></Cell></map></Alignment></rdf:RDF>"#;
    let (read, interner) = read_str(xml).unwrap();
    assert_eq!(cells(&read, &interner), vec![("http://a#x".into(), "http://a#yA".into(), Relation::Equivalence, 0.25)]);
    assert_eq!(read.alignment.cells()[0].line, 8);
}

#[test]
fn nested_descriptions() {
    let c = one(
        r#"<entity1><rdf:Description rdf:about="http://a#x"/></entity1><entity2><owl:Class xmlns:owl="http://www.w3.org/2002/07/owl#" rdf:about="http://b#y"><rdf:type rdf:resource="http://t"/></owl:Class></entity2>"#,
    );
    assert_eq!((c.0.as_str(), c.1.as_str()), ("http://a#x", "http://b#y"));
}

#[test]
fn out_of_range_and_unknown_relation_warn() {
    let (read, _) =
        read_str(&doc(&format!("<Cell>{E12}<measure>1.5</measure><relation> foo </relation></Cell>"))).unwrap();
    let codes: Vec<_> = read.warnings.iter().map(|w| w.code).collect();
    assert_eq!(codes, ["measure-out-of-range", "unknown-relation"]);
    assert_eq!(read.alignment.cells()[0].relation, Relation::Unknown);
    assert!(read.warnings.iter().all(|w| w.location.as_ref().is_some_and(|l| l.line == 6)));
}

#[test]
fn melt_relations_do_not_trim() {
    let options = ReadOptions { melt_relations: true, ..ReadOptions::default() };
    let (read, _) = read_with(&doc(&format!("<Cell>{E12}<relation> = </relation></Cell>")), &options).unwrap();
    assert_eq!(read.alignment.cells()[0].relation, Relation::Unknown);
    assert!(read.warnings.is_empty());
    let (read, _) = read_str(&doc(&format!("<Cell>{E12}<relation> = </relation></Cell>"))).unwrap();
    assert_eq!(read.alignment.cells()[0].relation, Relation::Equivalence);
}

#[test]
fn duplicates_keep_first_and_warn() {
    let cell = |m: &str| format!("<Cell>{E12}<measure>{m}</measure></Cell>\n");
    let (read, _) = read_str(&doc(&format!("{}{}", cell("0.4"), cell("0.9")))).unwrap();
    assert_eq!(read.alignment.len(), 1);
    assert_eq!(read.alignment.duplicates(), 1);
    assert_eq!(read.alignment.cells()[0].confidence, 0.4);
    assert_eq!(read.warnings[0].code, "duplicate-cell");
    assert_eq!(read.alignment.duplicate_lines(), [7]);
}

#[test]
fn one_line_and_legacy_header() {
    let xml = r#"<?xml version='1.0'?><rdf:RDF xmlns='http://knowledgeweb.semanticweb.org/heterogeneity/alignment#' xml:base='http://knowledgeweb.semanticweb.org/heterogeneity/alignment#' xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><Alignment><level>0</level><type>11</type><onto1>file:///a.owl</onto1><onto2>file:///b.owl</onto2><uri1>http://a</uri1><map><Cell><entity1 rdf:resource='http://a#x'/><entity2 rdf:resource='http://b#y'/><measure>0.5</measure><relation>=</relation></Cell></map></Alignment></rdf:RDF>"#;
    let (read, _) = read_str(xml).unwrap();
    assert_eq!(read.alignment.len(), 1);
    let h = &read.alignment.header;
    assert_eq!(h.onto1.as_deref(), Some("http://a"));
    assert_eq!(h.onto2.as_deref(), Some("file:///b.owl"));
    assert_eq!(h.level.as_deref(), Some("0"));
    assert_eq!(h.arity.as_deref(), Some("11"));
}

#[test]
fn onto_as_ontology_node() {
    let xml = doc("</map><onto1><Ontology rdf:about=\"http://o1\"><location>x</location></Ontology></onto1><map>");
    let (read, _) = read_str(&xml).unwrap();
    assert_eq!(read.alignment.header.onto1.as_deref(), Some("http://o1"));
}

#[test]
fn errors_have_positions() {
    let cases = [
        (doc(&format!("<Cell>{E12}<measure>abc</measure></Cell>")), "measure"),
        (doc(r#"<Cell><entity1 rdf:resource="http://a"/></Cell>"#), "without entity2"),
        (doc(r#"<Cell><entity1 rdf:resource="a&b"/></Cell>"#), "raw '&'"),
        (doc(r#"<Cell><entity1 rdf:resource="&foo;"/></Cell>"#), "undefined entity"),
        (doc(r#"<Cell><entity1 rdf:resource=http://a/></Cell>"#), "not quoted"),
        (doc(r#"<Cell><entity1 rdf:resource="a" rdf:resource="b"/></Cell>"#), "duplicate attribute"),
        (HEAD.to_owned(), "end of file"),
        ("<foo/>".to_owned(), "root element"),
        (
            r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><Alignment xmlns="http://example.org/"/></rdf:RDF>"#
                .to_owned(),
            "expected an Alignment element in namespace",
        ),
        (format!("{}<x/>", doc("")), "after the root"),
        (doc("<Cell></map>"), "expected </Cell>"),
    ];
    for (xml, needle) in cases {
        let e = read_str(&xml).unwrap_err();
        let FormatError::Syntax(s) = &e else { panic!("{e}") };
        assert!(s.location.line >= 1 && s.location.column >= 1, "{e}");
        assert!(e.to_string().contains(needle), "{e} should contain {needle:?}");
    }
}

#[test]
fn edoal_error_or_skip() {
    let xml = format!(
        r#"{HEAD}<Cell><entity1><edoal:Class xmlns:edoal="http://ns.inria.org/edoal/1.0/#" rdf:about="http://a"/></entity1><entity2 rdf:resource="http://b"/></Cell><Cell>{E12}</Cell>{TAIL}"#
    );
    let e = read_str(&xml).unwrap_err().to_string();
    assert!(e.contains("EDOAL / level-2 cell"), "{e}");
    let options = ReadOptions { skip_edoal: true, ..ReadOptions::default() };
    let (read, _) = read_with(&xml, &options).unwrap();
    assert_eq!((read.alignment.len(), read.alignment.skipped_cells), (1, 1));
}

#[test]
fn repair_raw_ampersands() {
    let xml =
        doc(r#"<Cell><entity1 rdf:resource = "http://a?x=1&y=2"/><entity2 rdf:resource="http://b&amp;c"/></Cell>"#);
    assert!(read_str(&xml).unwrap_err().to_string().contains("--repair-xml"));
    let options = ReadOptions { repair_xml: true, ..ReadOptions::default() };
    let (read, interner) = read_with(&xml, &options).unwrap();
    assert_eq!(cells(&read, &interner)[0].0, "http://a?x=1&y=2");
    assert_eq!(cells(&read, &interner)[0].1, "http://b&c");
    assert_eq!(read.warnings[0].code, "repaired-xml");
    assert!(read.warnings[0].message.contains("repaired 1 raw '&'"));
}

#[test]
fn billion_laughs_fails_fast() {
    let mut dtd = String::from("<!DOCTYPE rdf:RDF [\n<!ENTITY lol \"lol\">\n");
    dtd.push_str("<!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n");
    for i in 2..10 {
        let p = i - 1;
        dtd.push_str(&format!(
            "<!ENTITY lol{i} \"&lol{p};&lol{p};&lol{p};&lol{p};&lol{p};&lol{p};&lol{p};&lol{p};&lol{p};&lol{p};\">\n"
        ));
    }
    dtd.push_str("]>\n");
    let xml = format!("{dtd}{}", doc(r#"<Cell><entity1 rdf:resource="&lol9;"/><entity2 rdf:resource="x"/></Cell>"#));
    let start = std::time::Instant::now();
    let e = read_str(&xml).unwrap_err().to_string();
    assert!(e.contains("entity expansion limit exceeded"), "{e}");
    assert!(start.elapsed().as_millis() < 1000);
}

#[test]
fn external_entity_is_refused() {
    let xml = format!(
        "<!DOCTYPE rdf:RDF [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>{}",
        doc(r#"<Cell><entity1 rdf:resource="&xxe;"/><entity2 rdf:resource="x"/></Cell>"#)
    );
    let e = read_str(&xml).unwrap_err().to_string();
    assert!(e.contains("found external entity &xxe; (SYSTEM \"file:///etc/passwd\")"), "{e}");
}

#[test]
fn garbage_and_encoding() {
    assert!(read(b"", "t", &ReadOptions::default(), &mut Interner::new()).is_err());
    assert!(read(b"\x00\x01binary", "t", &ReadOptions::default(), &mut Interner::new()).is_err());
    let e = read(b"<a>\xff</a>", "t", &ReadOptions::default(), &mut Interner::new()).unwrap_err();
    assert_eq!(e.to_string(), "t:1:4: found byte 0xFF that is not UTF-8: expected UTF-8 text");
}

#[test]
fn relative_iris_resolve_against_xml_base() {
    let xml = doc(
        r#"<Cell xml:base="http://ex.org/dir/"><entity1 rdf:resource="a"/><entity2 rdf:resource="http://b"/></Cell>"#,
    );
    let (read, interner) = read_str(&xml).unwrap();
    assert_eq!(cells(&read, &interner)[0].0, "http://ex.org/dir/a");
}

/// Everything a read yields, as text: cells with ids, strings and lines, the interner's size,
/// warnings, header, counts; or the error.
fn outcome(xml: &[u8], options: &ReadOptions, cut: Cut) -> String {
    let mut interner = Interner::new();
    interner.intern("http://already/there");
    // An IRI of the generated documents, interned before the read (as the reference's are).
    interner.intern("http://a#x3");
    match read_cut(xml, "t.rdf", options, &mut interner, cut) {
        Err(e) => format!("error: {e}"),
        Ok(read) => {
            let a = &read.alignment;
            let strings: Vec<(&str, &str)> =
                a.iter().map(|c| (interner.resolve(c.entity1), interner.resolve(c.entity2))).collect();
            format!(
                "{:?}\n{strings:?}\n{}\n{:?}\n{:?}\n{} {} {:?}",
                a.cells(),
                interner.len(),
                read.warnings,
                a.header,
                a.skipped_cells,
                a.duplicates(),
                a.duplicate_lines()
            )
        }
    }
}

/// The exact path, the sequential fast path and parallel reads cut in 2, 3 and 7 stretches
/// agree on every RDF/XML file of the test data (good and bad) and on generated documents.
#[test]
fn fast_and_parallel_reads_match_the_exact_path() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rdf" || e == "xml" || e == "owl") {
                files.push(std::fs::read(&path).unwrap());
            }
        }
    }
    assert!(files.len() > 20, "{}", files.len());
    let cell = |i: usize, extra: &str| {
        format!(
            "<map>\n <Cell>\n  <entity1 rdf:resource=\"http://a#x{}\"/>\n  <entity2 rdf:resource=\"http://b#y{}\"/>{extra}\n </Cell>\n</map>\n",
            i % 7,
            i % 5
        )
    };
    let mut generated = String::new();
    for i in 0..60 {
        let extra = match i % 6 {
            0 => "<measure rdf:datatype=\"xsd:float\">0.5</measure><relation>=</relation>".to_owned(),
            1 => format!("<relation> &lt; </relation><measure>{}</measure>", i as f64 / 10.0),
            2 => "<relation>zz</relation>".to_owned(),
            3 => "<!-- c --><measure>2</measure>".to_owned(),
            _ => String::new(),
        };
        generated.push_str(&cell(i, &extra));
        if i == 30 {
            generated.push_str("<level>0</level>");
        }
    }
    files.push(doc(&format!("</map>{generated}<map>")).into_bytes());
    files.push(doc(&format!("</map>{}<map>", generated.replace("<map>", "<map >"))).into_bytes());
    files.push(doc(&format!("</map>{}<map>", generated.replace("#x3", "x3"))).into_bytes());
    // Attributes on `<Cell>`: taken by the fast path (MELT's `cid`, `rdf:about`, references),
    // left to the general path (`xml:base`, a namespace declaration), or errors (a repeated
    // attribute, an undefined entity, an undeclared prefix, no whitespace).
    for attributes in [
        " cid='7'",
        " cid = \"7\" rdf:about='http://c#&amp;1'\t",
        " cid='1' cid='2'",
        " cid='&nope;'",
        " xml:base='http://z/'",
        " xmlns:rdf='http://other#'",
        " zz:cid='1'",
        "cid='1'",
        " cid='1'x='2'",
        " cid",
        " a='1' b='2' c='3' d='4' e='5'",
    ] {
        let with = generated.replace("<Cell>", &format!("<Cell{attributes}>"));
        files.push(doc(&format!("</map>{}<map>", with.replace("#x3", "x3"))).into_bytes());
    }
    // Enough IRIs and cells for the batched interning and insertion (sharded, on every
    // thread): IRIs repeated and interned before the read, cells repeated (duplicates, the
    // later one with a higher confidence for KeepMax), warnings in between.
    let mut large = String::new();
    for i in 0..6000 {
        let relation = if i % 997 == 0 { "zz" } else { "=" };
        let _ = writeln!(
            large,
            "<map><Cell><entity1 rdf:resource=\"http://a#x{}\"/><entity2 rdf:resource=\"http://b#y{}\"/><relation>{relation}</relation><measure>0.{}</measure></Cell></map>",
            i % 2500,
            (i % 2500 * 7) % 3001,
            (i / 7) % 10
        );
    }
    files.push(doc(&format!("</map>{large}<map>")).into_bytes());
    // `&xsd;float` datatypes (checked once while they repeat), then another value and an
    // undefined entity in later cells.
    let with_dtd = |cells: &str| {
        doc(cells).replacen(
            "?>\n",
            "?>\n<!DOCTYPE rdf:RDF [ <!ENTITY xsd \"http://www.w3.org/2001/XMLSchema#\"> ]>\n",
            1,
        )
    };
    let entity_typed = generated.replace("\"xsd:float\"", "\"&xsd;float\"");
    files.push(with_dtd(&format!("</map>{entity_typed}<map>")).into_bytes());
    let mut later = entity_typed;
    let at = later.rfind("&xsd;float").expect("a datatype");
    later.replace_range(at..at + 10, "&xsd;double");
    files.push(with_dtd(&format!("</map>{later}<map>")).into_bytes());
    later.replace_range(at..at + 11, "&nope;float");
    files.push(with_dtd(&format!("</map>{later}<map>")).into_bytes());
    let mut broken = doc(&format!("</map>{generated}<map>"));
    broken.insert_str(broken.len() * 2 / 3, "</Cell>");
    files.push(broken.into_bytes());
    let exact = Cut { parallel_from: usize::MAX, stretches: 1, fast: false };
    for options in [
        ReadOptions::default(),
        ReadOptions {
            repair_xml: true,
            skip_edoal: true,
            duplicate_policy: kgeval_model::DuplicatePolicy::KeepMax,
            ..ReadOptions::default()
        },
    ] {
        for xml in &files {
            let expected = outcome(xml, &options, exact);
            for cut in [
                Cut { parallel_from: usize::MAX, stretches: 1, fast: true },
                Cut { parallel_from: 0, stretches: 2, fast: true },
                Cut { parallel_from: 0, stretches: 3, fast: true },
                Cut { parallel_from: 0, stretches: 7, fast: true },
            ] {
                assert_eq!(
                    outcome(xml, &options, cut),
                    expected,
                    "{cut:?} on {}",
                    String::from_utf8_lossy(&xml[..xml.len().min(300)])
                );
            }
        }
    }
}

/// Cells read by the fast path, and all cells, in a whole (unsplit) fast read.
fn fast_share(xml: &str) -> (usize, usize) {
    let options = ReadOptions::default();
    let (_, records) = parse_whole(xml, "t.rdf", &options, Mode::Fast).unwrap();
    (records.fast, records.cells.len())
}

/// The layouts of `cargo xtask bench align` (`testdata/alignment/kgeval/layouts/`, 12 cells
/// each, written by `cargo xtask bench align --cells 12 --generate-only`): every layout reads
/// to the same cells, and the fast path reads every one of them.
#[test]
fn every_real_layout_takes_the_fast_path() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/alignment/kgeval/layouts");
    let read_layout = |name: &str| std::fs::read_to_string(dir.join(format!("{name}.rdf"))).unwrap();
    let (read, interner) = read_str(&read_layout("canonical")).unwrap();
    let expected = cells(&read, &interner);
    assert_eq!(expected.len(), 12);
    assert_eq!(
        expected[0],
        (
            "http://bench.kgeval.org/source#Entity_11".into(),
            "http://bench.kgeval.org/target#Entity_3".into(),
            Relation::Equivalence,
            0.192032
        )
    );
    let mut slow = Vec::new();
    for layout in ["canonical", "melt", "single-quoted", "xsd-prefixed", "entity-datatype", "measure-first", "cell-id"]
    {
        let xml = read_layout(layout);
        let (read, interner) = read_str(&xml).unwrap();
        assert_eq!(cells(&read, &interner), expected, "{layout}");
        assert_eq!(read.alignment.header.onto1.as_deref(), Some("http://bench.kgeval.org/source"), "{layout}");
        if fast_share(&xml) != (12, 12) {
            slow.push(format!("{layout}: {:?} of the cells read by the fast path", fast_share(&xml)));
        }
    }
    assert!(slow.is_empty(), "{slow:#?}");
}

/// What the fast path takes beyond the canonical layout: `'` quotes, white space around `=`,
/// references to the DTD's entities, character and predefined references in values and text,
/// entities in any order; the cells are the ones the exact path reads.
#[test]
fn fast_path_takes_quotes_references_and_spacing() {
    let dtd = "<!DOCTYPE rdf:RDF [\n<!ENTITY xsd \"http://www.w3.org/2001/XMLSchema#\">\n<!ENTITY a 'http://a#'>\n<!ENTITY ax \"&a;x\">\n]>\n";
    let cases = [
        (
            r#"<entity1 rdf:resource='http://a#x'/><entity2 rdf:resource = "http://b#y" /><measure rdf:datatype='&xsd;float'>0.5</measure>"#,
            ("http://a#x", "http://b#y", Relation::Equivalence, 0.5),
        ),
        (
            "<entity2\n rdf:resource=\"&a;y&#x41;\"/><entity1 rdf:resource=\"&ax;\"/><relation>&lt;</relation><measure rdf:datatype=\"&xsd;float\"> &#48;.25 </measure>",
            ("http://a#x", "http://a#yA", Relation::Subsumed, 0.25),
        ),
        (
            r#"<measure>1</measure><relation> &gt; </relation><entity1 rdf:resource="http://a#x?p=1&amp;q=2"/><entity2 rdf:resource='http://b#"y"'/>"#,
            ("http://a#x?p=1&q=2", "http://b#\"y\"", Relation::Subsumes, 1.0),
        ),
    ];
    for (body, (e1, e2, relation, measure)) in cases {
        let xml = doc(&format!("<Cell>{body}</Cell>")).replacen("?>\n", &format!("?>\n{dtd}"), 1);
        let (read, interner) = read_str(&xml).unwrap();
        assert_eq!(cells(&read, &interner), vec![(e1.to_owned(), e2.to_owned(), relation, measure)], "{body}");
        assert_eq!(fast_share(&xml), (1, 1), "{body}");
        let exact = Cut { parallel_from: usize::MAX, stretches: 1, fast: false };
        let fast = Cut { parallel_from: usize::MAX, stretches: 1, fast: true };
        assert_eq!(
            outcome(xml.as_bytes(), &ReadOptions::default(), fast),
            outcome(xml.as_bytes(), &ReadOptions::default(), exact)
        );
    }
}

/// A `<map>` the fast path gives up on after expanding an entity is charged nothing: the
/// general path reads it (and charges it) once, so a document that fits the budget on the exact
/// path fits it on the fast path too.
#[test]
fn a_map_left_to_the_general_path_is_charged_once() {
    // `&big;` expands to 1 MiB (the per-entity bound); the budget is 1 MiB plus the document
    // (which holds the 1 MiB declaration): two expansions fit, four do not.
    let dtd = format!("<!DOCTYPE rdf:RDF [\n<!ENTITY big \"{}\">\n]>\n", "x".repeat(crate::xml_guard::MAX_ENTITY_SIZE));
    // The comment sends the map to the general path after both entities were expanded.
    let body =
        r#"<Cell><entity1 rdf:resource="http://a#&big;"/><entity2 rdf:resource="http://b#&big;"/><!-- c --></Cell>"#;
    let xml = doc(body).replacen("?>\n", &format!("?>\n{dtd}"), 1);
    let (read, _) = read_str(&xml).unwrap();
    assert_eq!(read.alignment.len(), 1);
    assert_eq!(fast_share(&xml), (0, 1));
}

/// The malformed fixtures of the layouts the fast path now takes (`testdata/bad/`, listed in
/// its README.md): an error at the place the exact path names, whichever path read the cells
/// before it.
#[test]
fn malformed_fast_path_layouts_are_located_errors() {
    let bad = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/bad");
    let cases = [
        (
            "rdf-datatype-entity-undeclared.rdf",
            "19:30: found undefined entity &xsd;: expected a declared entity or '&amp;'",
        ),
        ("rdf-mismatched-quotes.rdf", "17:7: found end of file inside a tag (in <Cell>): expected '>'"),
        (
            "rdf-undefined-entity-single-quoted.rdf",
            "16:30: found undefined entity &onto1;: expected a declared entity or '&amp;'",
        ),
        (
            "rdf-undefined-entity-in-relation.rdf",
            "18:17: found undefined entity &sub;: expected a declared entity or '&amp;'",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, expected) in cases {
        let xml = std::fs::read(bad.join(name)).unwrap();
        for cut in [
            Cut { parallel_from: usize::MAX, stretches: 1, fast: false },
            Cut { parallel_from: usize::MAX, stretches: 1, fast: true },
            Cut { parallel_from: 0, stretches: 2, fast: true },
        ] {
            let message = match read_cut(&xml, name, &ReadOptions::default(), &mut Interner::new(), cut) {
                Ok(_) => "read without an error".to_owned(),
                Err(e) => e.to_string(),
            };
            if message != format!("{name}:{expected}") {
                wrong.push(format!("{cut:?}: {message}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
