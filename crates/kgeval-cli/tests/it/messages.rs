//! Issue 15 item 4: messages hold no Rust debug text, cap the user text they echo, and say
//! what was found where.

use crate::{kgeval, root};

const GOLD: &str = "testdata/qald/sparql/gold.xml";

fn stderr(args: &[&str]) -> String {
    String::from_utf8_lossy(&kgeval(args).stderr).into_owned()
}

/// Rust debug renderings of our own types (`Text { keywords: false, … }`, `Some("en")`).
fn has_debug_text(message: &str) -> bool {
    message.contains("Some(") || message.contains("None") || message.contains(" { ") || message.contains("['")
}

#[test]
fn no_message_about_a_malformed_qald_file_holds_debug_text() {
    let line = stderr(&["qald", "--gold", "testdata/qald/bad/xml-truncated.xml", "--system", GOLD]);
    // Before: `found the end of the file inside Text { keywords: false, language: Some("en") }`.
    assert!(
        line.ends_with(
            "xml-truncated.xml:3:27: found the end of the file inside <string> opened at 3:1, expected </string>\n"
        ),
        "{line}"
    );
    let dir = root().join("testdata/qald/bad");
    for entry in std::fs::read_dir(&dir).expect("testdata/qald/bad") {
        let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
        if name == "README.md" || name.starts_with("data-") {
            continue;
        }
        let file = format!("testdata/qald/bad/{name}");
        for args in [
            vec!["qald", "--gold", GOLD, "--system", &file, "--data", "testdata/qald/sparql/data.ttl"],
            vec!["qald", "--gold", &file, "--system", GOLD],
        ] {
            let text = stderr(&args);
            assert!(!has_debug_text(&text), "{name}: {text}");
        }
    }
}

#[test]
fn a_sparql_syntax_error_says_what_was_found_where() {
    let line = stderr(&[
        "qald",
        "--gold",
        GOLD,
        "--system",
        "testdata/qald/bad/sparql-bad-query.json",
        "--data",
        "testdata/qald/sparql/data.ttl",
    ]);
    // Before: the parser's list of ~10 expected character classes (`['A' ..= 'Z' | …]`).
    assert_eq!(
        line,
        "error: testdata/qald/bad/sparql-bad-query.json:3:2: question 2: the SPARQL query does not parse: found an undeclared prefix `ex:` at 1:42 of the query after `ex:undeclared-prefix`, expected a declaration PREFIX ex: <…>\n"
    );
}

#[test]
fn echoed_user_text_is_capped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let big = |c: &str| c.repeat(5_000_000);
    let alignment = |measure: &str, relation: &str| {
        format!(
            "<?xml version=\"1.0\"?>\n<rdf:RDF xmlns=\"http://knowledgeweb.semanticweb.org/heterogeneity/alignment\" xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n<Alignment><xml>yes</xml><level>0</level><type>??</type>\n<map><Cell><entity1 rdf:resource=\"http://a#x\"/><entity2 rdf:resource=\"http://b#y\"/><measure>{measure}</measure><relation>{relation}</relation></Cell></map>\n</Alignment></rdf:RDF>\n"
        )
    };
    let measure = dir.path().join("measure.rdf");
    std::fs::write(&measure, alignment(&big("9"), "=")).expect("write");
    let relation = dir.path().join("relation.rdf");
    std::fs::write(&relation, alignment("0.5", &big("r"))).expect("write");
    let labels = dir.path().join("labels.tsv");
    std::fs::write(&labels, format!("{}\tlabel\n", big("x"))).expect("write");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_owned();
    let (measure, relation, labels) = (path(&measure), path(&relation), path(&labels));
    let cases = [
        (vec!["align", "-r", &measure, "-s", &measure], "found measure \"99999"),
        (vec!["align", "-r", &relation, "-s", &relation], "unknown relation \"rrrrr"),
        (vec!["qald", "--gold", GOLD, "--system", GOLD, "--labels", &labels], "found \"xxxxx"),
    ];
    for (args, expected) in cases {
        let text = stderr(&args);
        // Before: each message held the whole 5 MB.
        assert!(text.contains(expected) && text.contains("… (5000000 bytes)\""), "{}", &text[..text.len().min(300)]);
        for line in text.lines() {
            assert!(line.len() < 400, "{} bytes: {}", line.len(), &line[..300]);
        }
    }
}

/// Warnings about the gold say "gold" and are printed once, also when the same file is given
/// as gold and system (before: twice, each "(system NAME)").
#[test]
fn gold_warnings_say_gold_and_are_printed_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let qald = dir.path().join("warn.xml");
    std::fs::write(
        &qald,
        "<?xml version=\"1.0\"?>\n<dataset id=\"w\">\n<question id=\"1\" answertype=\"weird\"><string lang=\"en\">Q?</string><answers><answer><uri>http://x</uri></answer></answers></question>\n</dataset>\n",
    )
    .expect("write");
    let qald = qald.to_str().expect("utf-8");
    let text = stderr(&["qald", "--gold", qald, "--system", qald]);
    assert_eq!(
        text,
        format!("warning: {qald}:3:1: non-standard answertype \"weird\" [qald-nonstandard-answertype] (gold)\n")
    );
    let align = dir.path().join("warn.rdf");
    std::fs::write(
        &align,
        "<?xml version=\"1.0\"?>\n<rdf:RDF xmlns=\"http://knowledgeweb.semanticweb.org/heterogeneity/alignment\" xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n<Alignment><xml>yes</xml><level>0</level><type>??</type>\n<map><Cell><entity1 rdf:resource=\"http://a#x\"/><entity2 rdf:resource=\"http://b#y\"/><measure>0.5</measure><relation>~</relation></Cell></map>\n</Alignment></rdf:RDF>\n",
    )
    .expect("write");
    let align = align.to_str().expect("utf-8");
    let text = stderr(&["align", "-r", align, "-s", align]);
    let relation: Vec<&str> = text.lines().filter(|l| l.contains("unknown relation \"~\"")).collect();
    assert_eq!(relation.len(), 1, "{text}");
    assert!(relation[0].ends_with("[unknown-relation] (gold, pair warn)"), "{text}");
}
