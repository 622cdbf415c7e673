//! The uploads of `serve_load.rs`'s clients: generated TREC runs, QALD-3 answers files and
//! DISO Task 2 submissions (one part per pair), one in five malformed, every one unique.

use serde_json::Value;
use sha2::{Digest as _, Sha256};

use crate::serve::data;
use crate::serve_load::UPLOADS;

/// Documents ranked per topic in a generated run.
pub(crate) const RUN_DOCS: usize = 1000;
/// Distinct rankings among the generated runs (their tags differ: every file is unique).
pub(crate) const VARIANTS: u64 = 6;
/// The QALD-3 test answers: the QALD task's gold, and (with a comment) a perfect upload.
pub(crate) const QALD_GOLD: &str = "testdata/qald/qald3/dbpedia-test-answers.xml";
/// DISO Task 2's pairs, in the task's order.
pub(crate) const PAIRS: [&str; 2] = ["uco-stix", "stix-d3fend"];

/// The SHA-256 of `bytes`, in hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The judged documents of each topic of trec_eval's test qrels, in file order.
pub(crate) fn judged() -> Vec<(String, Vec<String>)> {
    let qrels = std::fs::read_to_string(data("testdata/trec_eval/test/qrels.test")).expect("qrels");
    let mut topics: Vec<(String, Vec<String>)> = Vec::new();
    for line in qrels.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if topics.last().is_none_or(|(t, _)| t != fields[0]) {
            topics.push((fields[0].to_owned(), Vec::new()));
        }
        topics.last_mut().expect("a topic").1.push(fields[2].to_owned());
    }
    topics
}

/// A run of `RUN_DOCS` documents per topic, ranked by `variant` (a seeded shuffle of the
/// judged documents and padding), tagged `tag`.
pub(crate) fn trec_run(judged: &[(String, Vec<String>)], variant: u64, tag: &str) -> Vec<u8> {
    let mut out = String::new();
    let mut state = variant.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for (topic, docs) in judged {
        let mut ranked: Vec<String> = docs.iter().take(RUN_DOCS).cloned().collect();
        ranked.extend((ranked.len()..RUN_DOCS).map(|i| format!("PAD-{topic}-{i}")));
        for i in (1..ranked.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ranked.swap(i, usize::try_from(state % (i as u64 + 1)).expect("an index"));
        }
        for (rank, doc) in ranked.iter().enumerate() {
            out.push_str(&format!("{topic} Q0 {doc} {} {} {tag}\n", rank + 1, RUN_DOCS - rank));
        }
    }
    out.into_bytes()
}

/// The files every upload is made of: the QALD answers and questions, DISO Task 2's lexical
/// submission per pair and stix-d3fend's with its scores turned around.
pub(crate) struct Files {
    /// The QALD answers and the questions alone.
    pub(crate) qald: (Vec<u8>, Vec<u8>),
    /// DISO Task 2's lexical submission of each pair.
    pub(crate) lexical: [Vec<u8>; 2],
    /// stix-d3fend's lexical submission with every score `s` turned into `1 - s`.
    pub(crate) reversed: Vec<u8>,
}

impl Files {
    pub(crate) fn read() -> Files {
        let lexical = |pair: &str| {
            std::fs::read(data(&format!("testdata/ranking/diso-synthetic/{pair}/lexical.jsonl"))).expect("lexical")
        };
        let reversed = reversed_scores(&lexical(PAIRS[1]));
        Files {
            qald: (
                std::fs::read(data(QALD_GOLD)).expect("answers"),
                std::fs::read(data("testdata/qald/qald3/dbpedia-test-questions.xml")).expect("questions"),
            ),
            lexical: [lexical(PAIRS[0]), lexical(PAIRS[1])],
            reversed: reversed.into_bytes(),
        }
    }
}

/// A ranking submission (JSON lines) with every score `s` turned into `1 - s`: its order
/// reversed, as another team's submission.
pub(crate) fn reversed_scores(jsonl: &[u8]) -> String {
    String::from_utf8(jsonl.to_vec())
        .expect("UTF-8")
        .lines()
        .map(|line| {
            let mut query: Value = serde_json::from_str(line).expect("a query");
            if let Some(scores) = query.get_mut("scores").and_then(Value::as_object_mut) {
                for score in scores.values_mut() {
                    *score = Value::from(1.0 - score.as_f64().unwrap_or(0.0));
                }
            }
            format!("{query}\n")
        })
        .collect()
}

/// What one upload sends: a file, or a form of named parts (one per pair).
pub(crate) enum Body {
    /// The file itself.
    File(Vec<u8>),
    /// Named parts.
    Parts(Vec<(&'static str, Vec<u8>)>),
}

impl Body {
    /// The SHA-256 of what the server stores: the file, or the parts bundled in the pairs'
    /// order (the facade's `encode_parts`).
    pub(crate) fn stored_sha256(&self) -> String {
        match self {
            Body::File(bytes) => sha256_hex(bytes),
            Body::Parts(parts) => {
                let parts: Vec<(&str, &[u8])> = parts.iter().map(|(n, b)| (*n, b.as_slice())).collect();
                sha256_hex(&kgeval::campaign::encode_parts(&parts))
            }
        }
    }
}

/// Upload `k` of team `team`: its task, its body, its variant, whether it is malformed.
pub(crate) fn upload_of(
    judged: &[(String, Vec<String>)],
    files: &Files,
    team: usize,
    k: usize,
) -> (&'static str, Body, u64, bool) {
    let bad = k % 5 == 3;
    let tag = format!("t{team}u{k}");
    if k % 8 == 0 && k < 16 {
        // DISO Task 2, one part per pair; each upload made unique by blanks in its first
        // query's JSON (a malformed one: stix-d3fend's first line cut short).
        let uco = files.lexical[0].splitn(2, |&b| b == b'{').nth(1).expect("a query");
        let mut first = format!("{{{}", " ".repeat(team * UPLOADS + k + 1)).into_bytes();
        first.extend_from_slice(uco);
        let variant = u64::from((team + k) % 3 != 0);
        let stix = if bad {
            format!("{{\"qid\": \"{tag}\",\n").into_bytes()
        } else if variant == 1 {
            files.lexical[1].clone()
        } else {
            files.reversed.clone()
        };
        return ("task2", Body::Parts(vec![(PAIRS[0], first), (PAIRS[1], stix)]), if bad { 0 } else { variant }, bad);
    }
    if k % 4 != 1 {
        if bad {
            let bytes = format!("301 Q0 d1 1 0.5 {tag}\n301 Q0 d2 x 0.4 {tag}\n").into_bytes();
            return ("adhoc", Body::File(bytes), 0, true);
        }
        let variant = (team as u64 * 5 + k as u64) % VARIANTS;
        ("adhoc", Body::File(trec_run(judged, variant, &tag)), variant, false)
    } else {
        if bad {
            let bytes = format!("<dataset id=\"{tag}\">\n<question id=\"1\">\n</dataset>\n").into_bytes();
            return ("qa", Body::File(bytes), 0, true);
        }
        // The gold answers (qald_f 1) or the questions alone (0), each made unique by a comment.
        let variant = u64::from((team + k) % 3 != 0);
        let base = if variant == 1 { &files.qald.0 } else { &files.qald.1 };
        let mut bytes = base.clone();
        bytes.extend_from_slice(format!("\n<!-- {tag} -->\n").as_bytes());
        ("qa", Body::File(bytes), variant, false)
    }
}
