//! The lemon / OntoLex reader and the URI-list reader on the real QALD-3, lemon.dbpedia and
//! M-ATOLL files, and on malformed input.

use std::path::{Path, PathBuf};

use kgeval_formats::lexicon::{read_lexicon, read_lexicon_file, read_uri_list, read_uri_list_file, LexiconReadOptions};
use kgeval_formats::FormatError;
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
fn dump() {
    for name in ["qald3-dbpedia_train_lexicon_en.ttl", "qald3-dbpedia-test-lexicon-en.ttl", "matoll-foaf.ttl", "lemon.dbpedia-en-extra.ttl"] {
        let r = read(name);
        eprintln!("== {name}: {} entries", r.lexicon.entries.len());
        for w in &r.warnings { eprintln!("{w}"); }
    }
}
