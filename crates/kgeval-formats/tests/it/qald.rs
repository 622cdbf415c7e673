//! The QALD reader on every real file of `testdata/qald/` (each edition's quirks as located
//! warnings) and on small inputs written for one quirk each.

use std::path::{Path, PathBuf};

use kgeval_formats::qald::{read_qald, read_qald_file, ReadQald};
use kgeval_model::qald::{AnswerValue, QaldQuery};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/qald")
}

fn read(relative: &str) -> ReadQald {
    read_qald_file(&testdata().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

fn codes(read: &ReadQald) -> Vec<&'static str> {
    let mut codes: Vec<_> = read.warnings.iter().map(|w| w.code).collect();
    codes.dedup();
    codes
}

/// Every real file parses, with the question counts of SOURCES.md.
#[test]
fn every_real_file_parses() {
    let expected = [
        ("qald3/dbpedia-train-answers.xml", 100),
        ("qald3/dbpedia-train.xml", 100),
        ("qald3/dbpedia-test-answers.xml", 99),
        ("qald3/dbpedia-test-questions.xml", 99),
        ("qald3/musicbrainz-train-answers.xml", 100),
        ("qald3/musicbrainz-test.xml", 55),
        ("qald3/esdbpedia-train-answers.xml", 50),
        ("qald3/esdbpedia-test-answers.xml", 50),
        ("qald3/participants-challenge.xml", 7),
        ("other-editions/qald2-dbpedia-train-answers.xml", 100),
        ("other-editions/qald-4_biomedical_test_withanswers.xml", 25),
        ("other-editions/qald-4_hybrid_train.xml", 25),
        ("other-editions/qald-7-test-hybrid.xml", 50),
        ("json/qald-6-test-multilingual.json", 100),
        ("json/qald-6-test-hybrid.json", 24),
        ("json/qald-7-test-multilingual.json", 43),
        ("json/qald-7-train-multilingual-extended-json.json", 215),
        ("json/qald-8-test-multilingual.json", 41),
        ("json/qald-9-test-multilingual.json", 150),
        ("json/qald_10.json", 394),
    ];
    for (file, count) in expected {
        let read = read(file);
        assert_eq!(read.dataset.questions.len(), count, "{file}");
        for w in &read.warnings {
            let location = w.location.as_ref().expect("located warning");
            assert!(location.file.ends_with(file.rsplit('/').next().unwrap_or(file)), "{file}: {w}");
        }
    }
}

#[test]
fn qald3_dbpedia_test_gold() {
    let read = read("qald3/dbpedia-test-answers.xml");
    assert_eq!(read.dataset.id.as_deref(), Some("dbpedia-test"));
    let q81 = &read.dataset.questions[0];
    assert_eq!(q81.id, "81");
    assert_eq!(q81.answertype.as_deref(), Some("resource"));
    assert_eq!((q81.aggregation, q81.onlydbo), (Some(false), Some(true)));
    assert_eq!(q81.strings.len(), 6);
    assert_eq!(q81.text("de"), Some("Welche Bücher von Kerouac wurden von Viking Press verlegt?"));
    assert_eq!(q81.answer_slice().len(), 5);
    assert!(matches!(q81.query, QaldQuery::Sparql(ref q) if q.starts_with("PREFIX dbo:")));
    let oos: Vec<&str> =
        read.dataset.questions.iter().filter(|q| q.query == QaldQuery::OutOfScope).map(|q| q.id.as_str()).collect();
    assert_eq!(oos.len(), 4);
    for id in ["36", "37", "47", "52"] {
        let q = read.dataset.questions.iter().find(|q| q.id == id).expect(id);
        assert_eq!(q.query, QaldQuery::OutOfScope, "{id}");
        assert_eq!(q.answers.as_deref(), Some(&[][..]), "{id}");
    }
    assert!(codes(&read).contains(&"qald-nonstandard-answertype"), "num / list");
}

#[test]
fn qald3_quirks_are_located_warnings() {
    // Its UTF-8 byte-order mark is skipped without a word, as in every input.
    let mb = read("qald3/musicbrainz-test.xml");
    assert!(mb.warnings.is_empty(), "{:?}", mb.warnings);
    assert!(!mb.dataset.questions.is_empty());
    assert!(mb.dataset.questions.iter().all(|q| q.answers.is_none()));

    let es = read("qald3/esdbpedia-train-answers.xml");
    assert!(codes(&es).contains(&"qald-onlyesdbp"));
    assert!(es.dataset.questions.iter().all(|q| q.onlydbo.is_some()));

    let challenge = read("qald3/participants-challenge.xml");
    assert!(codes(&challenge).contains(&"qald-string-without-lang"));
    assert_eq!(
        challenge.dataset.questions[0].strings[0].text,
        "Give me all people that wrote lyrics for bands from Seattle."
    );
    assert!(matches!(challenge.dataset.questions[1].query, QaldQuery::Sparql(ref q) if q.starts_with("PREFIX")));

    let train = read("qald3/dbpedia-train-answers.xml");
    let booleans: Vec<&str> = train
        .dataset
        .questions
        .iter()
        .flat_map(|q| q.answer_slice())
        .filter_map(|a| match &a.value {
            AnswerValue::Boolean(b) => Some(b.as_str()),
            _ => None,
        })
        .collect();
    assert!(booleans.contains(&"True") || booleans.contains(&"False"), "{booleans:?}");
    assert!(codes(&train).contains(&"qald-boolean-spelling"));
    assert!(codes(&train).contains(&"qald-string-in-uri"));
}

#[test]
fn qald2_labels_become_aliases() {
    let read = read("other-editions/qald2-dbpedia-train-answers.xml");
    let with_alias = read
        .dataset
        .questions
        .iter()
        .flat_map(|q| q.answer_slice())
        .find(|a| a.value == AnswerValue::Iri("http://dbpedia.org/resource/East_River".into()))
        .expect("East River");
    assert_eq!(with_alias.aliases, ["East River"]);
}

#[test]
fn later_xml_editions() {
    let hybrid = read("other-editions/qald-4_hybrid_train.xml");
    assert!(hybrid.dataset.questions.iter().any(|q| matches!(q.query, QaldQuery::Pseudo(_))));
    let bio = read("other-editions/qald-4_biomedical_test_withanswers.xml");
    assert!(bio.dataset.questions.iter().any(|q| q.answertype.is_none()));
    let q7 = read("other-editions/qald-7-test-hybrid.xml");
    assert!(codes(&q7).contains(&"qald-untyped-answer"));
    assert_eq!(q7.dataset.questions[0].answer_slice()[0].value, AnswerValue::Boolean("true".into()));
    let q1003 = q7.dataset.questions.iter().find(|q| q.id == "1003").expect("1003");
    assert_eq!(q1003.answer_slice()[0].value, AnswerValue::Iri("http://dbpedia.org/resource/Achelous".into()));
}

#[test]
fn json_editions() {
    let q6 = read("json/qald-6-test-multilingual.json");
    assert_eq!(q6.dataset.questions[0].id, "1");
    let found = codes(&q6);
    for code in ["qald-integer-id", "qald-string-flag", "qald-undeclared-variable"] {
        assert!(found.contains(&code), "{code} in {found:?}");
    }
    assert_eq!(q6.dataset.questions.iter().filter(|q| q.query == QaldQuery::None && q.answers.is_none()).count(), 4);

    let hybrid = read("json/qald-6-test-hybrid.json");
    assert!(codes(&hybrid).contains(&"qald-nonstandard-binding"));
    assert!(matches!(hybrid.dataset.questions[0].query, QaldQuery::Pseudo(_)));

    let extended = read("json/qald-7-train-multilingual-extended-json.json");
    let first = &extended.dataset.questions[0];
    assert_eq!((first.id.as_str(), first.answertype.as_deref()), ("0", Some("date")));
    assert_eq!(first.aggregation, Some(false));
    assert_eq!(first.answer_slice()[0].value, AnswerValue::plain("1863-07-03"));
    assert!(matches!(first.query, QaldQuery::Sparql(_)));

    let q8 = read("json/qald-8-test-multilingual.json");
    assert_eq!(q8.dataset.questions[0].aggregation, Some(false));
    let q9 = read("json/qald-9-test-multilingual.json");
    assert!(codes(&q9).contains(&"qald-boolean-with-results"));

    let q10 = read("json/qald_10.json");
    assert!(q10.dataset.questions.iter().all(|q| q.answertype.is_none()));
    assert!(codes(&q10).contains(&"qald-plus-sign"));
    let typed = q10
        .dataset
        .questions
        .iter()
        .flat_map(|q| q.answer_slice())
        .find(|a| matches!(&a.value, AnswerValue::Literal { language: Some(l), .. } if l == "de-ch"));
    assert!(typed.is_some(), "a de-ch literal");
}

#[test]
fn small_inputs() {
    let read = read_qald(
        b"<dataset><question id=\"1\" answertype=\"resource\"><answers><answer><uri>http://x.org/a</uri>\
          <string>A</string></answer><answer><string>B</string></answer></answers></question></dataset>",
        "s.xml",
    )
    .expect("valid");
    let answers = read.dataset.questions[0].answer_slice();
    assert_eq!(answers.len(), 2, "the second <answer>'s string is its own answer, not an alias");
    assert_eq!(answers[0].aliases, ["A"]);
    assert_eq!(answers[1].value, AnswerValue::plain("B"));

    let json = br#"{"questions": [{"id": "1", "answers": []}, {"id": "2", "answers": [{"head": {"vars": ["x"]},
        "results": {"bindings": []}}]}]}"#;
    let read = read_qald(json, "s.json").expect("valid");
    assert_eq!(read.dataset.questions[0].answers, None, "[] gives no answer set");
    assert_eq!(read.dataset.questions[1].answers, Some(vec![]), "no bindings: the empty set");
}

#[test]
fn errors_name_file_line_and_column() {
    let cases: [(&[u8], &str); 6] = [
        (b"<dataset><question id=\"1\"></questio></dataset>", "f:1:27: malformed XML"),
        (b"<dataset>\n<question answertype=\"date\"/></dataset>", "f:2:1: found <question> without id"),
        (
            b"<dataset>\n<question id=\"1\"/>\n<question id=\"1\"/></dataset>",
            "f:3:1: found question id \"1\" a second time",
        ),
        (b"{\"questions\": [\n  {\"id\": [1]}]}", "f:2:3: questions[0].id: found an array"),
        (
            b"{\"questions\": [\n  {\"id\": 1, \"aggregation\": \"yes\"}]}",
            "f:2:3: questions[0].aggregation: found \"yes\"",
        ),
        (b"{\"questions\": [}", "f:1:16: malformed JSON"),
    ];
    for (input, expected) in cases {
        let e = read_qald(input, "f").expect_err(expected);
        assert!(e.to_string().starts_with(expected), "{e} vs {expected}");
    }
}
