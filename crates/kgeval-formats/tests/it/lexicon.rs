//! The lemon / OntoLex reader and the URI-list reader on the real QALD-3, lemon.dbpedia and
//! M-ATOLL files, and on malformed input.

use std::path::{Path, PathBuf};

use kgeval_formats::lexicon::{read_lexicon, read_lexicon_file, read_uri_list, read_uri_list_file, LexiconReadOptions};
use kgeval_formats::FormatError;
use kgeval_formats::Read;
use kgeval_model::lexicon::{LexicalEntry, UriKind};
use kgeval_model::Diagnostic;

fn lemon(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/lemon").join(name)
}

fn read(name: &str) -> kgeval_formats::lexicon::ReadLexicon {
    read_lexicon_file(&lemon(name), &LexiconReadOptions::default()).expect(name)
}

fn codes<'a>(warnings: &'a [Diagnostic], code: &str) -> Vec<&'a Diagnostic> {
    warnings.iter().filter(|w| w.code == code).collect()
}

fn entry<'a>(entries: &'a [LexicalEntry], lemma: &str) -> &'a LexicalEntry {
    entries.iter().find(|e| e.written_rep.as_deref() == Some(lemma)).unwrap_or_else(|| panic!("no entry {lemma}"))
}

#[test]
fn qald3_train_gold_reads_with_its_defects_as_warnings() {
    let read = read("qald3-dbpedia_train_lexicon_en.ttl");
    assert_eq!(read.lexicon.entries.len(), 82);
    let w = &read.warnings;
    // The space inside the xsd IRI (line 8) and, in consequence, the undeclared xsd: prefix.
    let defects = codes(w, "turtle-defect");
    assert_eq!(defects.len(), 4, "{defects:?}");
    assert_eq!(defects[0].location.as_ref().map(|l| (l.line, l.column)), Some((8, 14)));
    let typo = codes(w, "frame-typo");
    assert_eq!(typo.len(), 1);
    assert!(typo[0].message.contains("IntransitivPPFrame") && typo[0].message.contains("IntransitivePPFrame"));
    assert_eq!(typo[0].location.as_ref().map(|l| l.line), Some(611));
    let wrong_node = codes(w, "argument-is-entry");
    assert!(wrong_node.iter().any(|d| d.message.contains("viceChancellor")), "{wrong_node:?}");
    // :bridgeOver's marker attached to :arg2crossing.
    let markers = codes(w, "several-markers");
    assert_eq!(markers.len(), 1);
    assert!(markers[0].message.contains("arg2crossing"));
    assert!(w.iter().all(|d| d.location.is_some()), "every warning located: {w:?}");
    // Subsenses: `discover` lexicalizes two properties, each with its own mapping.
    let discover = entry(&read.lexicon.entries, "discover");
    assert_eq!(
        discover.references(),
        ["http://dbpedia.org/ontology/discoverer", "http://dbpedia.org/ontology/discovered"]
    );
    let sub: Vec<_> = discover.senses.iter().filter(|s| s.subsense).collect();
    assert_eq!(sub.len(), 2);
    assert_ne!(sub[0].object_nodes, sub[1].object_nodes);
    // An adjective frame with copulativeSubject.
    let similar = entry(&read.lexicon.entries, "similar");
    assert_eq!(similar.part_of_speech.as_deref(), Some("adjective"));
    assert_eq!(similar.frames[0].frame_type.as_deref(), Some("AdjectivePPFrame"));
    let roles: Vec<&str> = similar.frames[0].arguments.iter().map(|a| a.role.as_str()).collect();
    assert_eq!(roles, ["copulativeSubject", "prepositionalObject"]);
    assert_eq!(similar.frames[0].arguments[1].marker.as_deref(), Some("to"));
}

#[test]
fn qald3_test_gold_reports_its_orphan_and_lemma_less_entries() {
    let read = read("qald3-dbpedia-test-lexicon-en.ttl");
    assert_eq!(read.lexicon.entries.len(), 74);
    let orphans = codes(&read.warnings, "orphan-entry");
    assert_eq!(orphans.len(), 1);
    assert!(orphans[0].message.contains("Non-ProfitOrganisation"));
    assert_eq!(orphans[0].location.as_ref().map(|l| l.line), Some(157));
    assert_eq!(codes(&read.warnings, "entry-without-lemma").len(), 6);
    assert_eq!(codes(&read.warnings, "frame-typo").len(), 3);
    assert_eq!(codes(&read.warnings, "turtle-defect").len(), 2);
}

#[test]
fn matoll_foaf_needs_a_base_iri_and_has_no_lemon_entry() {
    let read = read("matoll-foaf.ttl");
    assert_eq!(read.lexicon.entries.len(), 8, "6 entries and the markers `of`, `with`");
    assert_eq!(codes(&read.warnings, "entries-by-type").len(), 1);
    assert_eq!(codes(&read.warnings, "relative-iri").len(), 1);
    assert_eq!(codes(&read.warnings, "role-typo").len(), 6, "coplativeArg and prepositionalObj, three entries");
    let know = entry(&read.lexicon.entries, "know");
    assert!(know.node.starts_with("http://kgeval.invalid/lexicon/"), "{}", know.node);
    let friend = entry(&read.lexicon.entries, "friend");
    assert_eq!(friend.references(), ["http://xmlns.com/foaf/0.1/friend", "http://xmlns.com/foaf/0.1/know"]);
    let other = LexiconReadOptions { base_iri: Some("http://example.org/".into()) };
    let rebased = read_lexicon_file(&lemon("matoll-foaf.ttl"), &other).unwrap();
    assert_eq!(entry(&rebased.lexicon.entries, "know").node, "http://example.org/know");
}

#[test]
fn matoll_prefix_line_without_dot_is_repaired_with_a_warning() {
    for name in ["matoll-foaf_5.ttl", "matoll-foaf_6.ttl"] {
        let read = read(name);
        let repaired = codes(&read.warnings, "turtle-repaired");
        assert_eq!(repaired.len(), 1, "{name}");
        assert_eq!(repaired[0].location.as_ref().map(|l| (l.line, l.column)), Some((4, 64)), "{name}");
        assert_eq!(read.lexicon.entries.len(), 8, "{name}");
    }
    let six = read("matoll-foaf_6.ttl");
    let acquainted = entry(&six.lexicon.entries, "acquainted");
    assert_eq!(acquainted.frames[0].arguments[1].marker.as_deref(), Some("from"));
}

#[test]
fn lemon_model_net_namespace_reads_cleanly() {
    let read = read("lemon.dbpedia-en-extra.ttl");
    assert_eq!(read.lexicon.entries.len(), 66);
    assert!(codes(&read.warnings, "turtle-defect").is_empty());
    let high = entry(&read.lexicon.entries, "high");
    assert_eq!(high.part_of_speech.as_deref(), Some("adjective"));
}

#[test]
fn ontolex_synsem_lexinfo3_and_isocat() {
    let ttl = br#"@prefix ontolex: <http://www.w3.org/ns/lemon/ontolex#> .
@prefix synsem: <http://www.w3.org/ns/lemon/synsem#> .
@prefix lime: <http://www.w3.org/ns/lemon/lime#> .
@prefix lexinfo: <http://www.lexinfo.net/ontology/3.0/lexinfo#> .
@prefix isocat: <http://www.isocat.org/datcat/> .
<#lex> lime:entry <#cross> .
<#cross> a ontolex:LexicalEntry ;
  ontolex:canonicalForm [ ontolex:writtenRep "cross"@en ] ;
  lexinfo:partOfSpeech lexinfo:verb ;
  synsem:synBehavior [ a lexinfo:TransitiveFrame ; isocat:DC-2261 <#s> ; lexinfo:directObject <#o> ] ;
  ontolex:sense [ ontolex:reference <http://dbpedia.org/ontology/crosses> ;
                  synsem:submap [ ontolex:reference <http://dbpedia.org/ontology/spans> ;
                                  synsem:subjOfProp <#o> ; synsem:objOfProp <#s> ] ;
                  synsem:subjOfProp <#s> ; synsem:objOfProp <#o> ] .
"#;
    let read = read_lexicon(ttl, "x.ttl", &LexiconReadOptions::default()).unwrap();
    let [cross] = read.lexicon.entries.as_slice() else { panic!("one entry") };
    assert_eq!(cross.part_of_speech.as_deref(), Some("verb"));
    assert_eq!(cross.frames[0].frame_type.as_deref(), Some("TransitiveFrame"));
    let roles: Vec<&str> = cross.frames[0].arguments.iter().map(|a| a.role.as_str()).collect();
    assert_eq!(roles, ["subject", "directObject"]);
    assert_eq!(cross.references(), ["http://dbpedia.org/ontology/crosses", "http://dbpedia.org/ontology/spans"]);
    let found: Vec<&str> = read.warnings.iter().map(|w| w.code).collect();
    assert_eq!(found, ["relative-iri"], "`<#lex>` is relative");
}

fn syntax_error(result: Result<impl std::fmt::Debug, FormatError>) -> (u32, u32, String) {
    match result {
        Err(FormatError::Syntax(e)) => (e.location.line, e.location.column, e.message),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn malformed_turtle_is_a_located_error() {
    let ttl =
        b"@prefix lemon: <http://www.monnet-project.eu/lemon#> .\n:lexicon lemon:entry :a ;\n  lemon:entry \"x .\n";
    let (line, column, message) = syntax_error(read_lexicon(ttl, "bad.ttl", &LexiconReadOptions::default()));
    assert!(line >= 2 && column >= 1, "{line}:{column}");
    assert!(message.starts_with("invalid Turtle"), "{message}");
}

#[test]
fn a_lexicon_without_entries_is_an_error() {
    let ttl = b"@prefix lemon: <http://www.monnet-project.eu/lemon#> .\n<http://x/lexicon> a lemon:Lexicon ; lemon:language \"en\" .\n";
    let (line, column, message) = syntax_error(read_lexicon(ttl, "empty.ttl", &LexiconReadOptions::default()));
    assert_eq!((line, column), (1, 1));
    assert!(message.contains("no lemon:entry"), "{message}");
}

#[test]
fn uri_lists() {
    let Read { value: train, warnings } =
        read_uri_list_file(&lemon("qald3-dbpedia_train_classes_properties.txt")).unwrap();
    assert!(warnings.is_empty());
    assert_eq!(train.uris.len(), 40);
    assert_eq!(train.uris.iter().filter(|u| u.kind == UriKind::Class).count(), 10);
    assert_eq!(train.kind_of("http://dbpedia.org/ontology/crosses"), Some(UriKind::Property));
    let Read { value: test, .. } = read_uri_list_file(&lemon("qald3-dbpedia_test_classes_properties.txt")).unwrap();
    assert_eq!((test.uris.len(), test.uris.iter().filter(|u| u.kind == UriKind::Class).count()), (40, 10));
    let (line, column, message) = syntax_error(read_uri_list(b"http://x/A\n\nhttp://x/p\nnot an iri\n", "u.txt"));
    assert_eq!((line, column), (4, 1));
    assert!(message.contains("expected one absolute class or property IRI per line"), "{message}");
    let (line, _, message) = syntax_error(read_uri_list(b"http://x/A\n\nhttp://x/p\n\nhttp://x/q\n", "u.txt"));
    assert_eq!(line, 5);
    assert!(message.contains("third block"), "{message}");
    assert_eq!(syntax_error(read_uri_list(b"\n\n", "u.txt")).0, 1);
    assert_eq!(syntax_error(read_uri_list(b"http://x/A\n\xff\n", "u.txt")).0, 2);
    let Read { value: one_block, warnings } = read_uri_list(b"http://x/p\nhttp://x/p\n", "u.txt").unwrap();
    assert_eq!(one_block.uris.len(), 1);
    let found: Vec<&str> = warnings.iter().map(|w| w.code).collect();
    assert_eq!(found, ["uri-list-one-block", "duplicate-uri"]);
}
