//! What a served upload must hold before its score counts: some bytes in every file and part
//! (an empty body, an empty part, a gzip of nothing or only whitespace is refused as `kgeval
//! FAMILY` refuses an empty file), and at least one item of its own (a correspondence in some
//! pair, an answered or empty question). An upload refused here is invalid: recorded, never
//! counted, so an empty file cannot replace a team's run under `counts = "last"`.

use kgeval_formats::FormatError;

use super::served_upload::decode_parts;
use crate::evaluation::FamilyResult;
use crate::{Error, Evaluation, Input};

/// Refuses an upload with no content: empty or only whitespace once decompressed, or stored
/// parts of which one is. Returns the upload to score: the same one, or for a gzip upload its
/// decompressed bytes under its name (decompressed once, here, not again by the reader).
///
/// # Errors
/// [`Error::Format`] at `NAME:1:1` (the upload's name, or the empty part's pair).
pub(super) fn refuse_empty(upload: Input) -> Result<Input, Error> {
    let opened = upload.open()?;
    let bytes = opened.bytes();
    if let Some(parts) = decode_parts(bytes) {
        if let Some((pair, _)) = parts.iter().find(|(_, part)| blank(part)) {
            return Err(empty(pair, "an empty part"));
        }
    } else if blank(bytes) {
        return Err(empty(&upload.name(), "an empty upload"));
    }
    Ok(match &upload {
        Input::Bytes { name, bytes: raw } if raw.starts_with(&[0x1f, 0x8b]) => {
            Input::from_bytes(name.clone(), std::sync::Arc::<[u8]>::from(bytes))
        }
        _ => upload,
    })
}

/// Whether `bytes` hold nothing but whitespace.
fn blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

fn empty(name: &str, what: &str) -> Error {
    Error::Format(FormatError::syntax(
        name,
        1,
        1,
        format!("found {what} (no byte but whitespace), expected a file to score"),
    ))
}

/// Refuses an evaluation in which the upload (named `name`) gave no item of its own: an
/// alignment without a correspondence in any pair, a QALD file without a question. The other
/// families' readers refuse such a file themselves (no run line, no lexical entry, no
/// ranking, no rank line).
///
/// # Errors
/// [`Error::Format`] at `NAME:1:1`.
pub(super) fn refuse_no_item(evaluation: &Evaluation, name: &str) -> Result<(), Error> {
    let missing = match &evaluation.result {
        FamilyResult::Align(result) => result
            .tracks
            .iter()
            .all(|t| t.pairs.iter().all(|p| p.primary.counts.correspondences == 0))
            .then_some("no correspondence in any pair"),
        FamilyResult::Qald(evaluations) => evaluations
            .iter()
            .all(|e| e.questions.iter().all(|q| q.status == kgeval_model::qald::QuestionStatus::NotProcessed))
            .then_some("no question"),
        _ => None,
    };
    match missing {
        Some(what) => {
            Err(Error::Format(FormatError::syntax(name, 1, 1, format!("found {what}, expected at least one to score"))))
        }
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::sync::Arc;

    use super::super::served_gold_tests::{campaign_in, CAMPAIGN, FILES};
    use crate::Input;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(bytes).expect("written");
        encoder.finish().expect("finished")
    }

    #[test]
    fn every_family_refuses_an_upload_without_content_or_item() {
        let dir = tempfile::tempdir().expect("a folder");
        let campaign = campaign_in(dir.path(), &FILES, CAMPAIGN);
        for task in &campaign.tasks {
            for (what, bytes) in [("nothing", Vec::new()), ("whitespace", b" \n\t\r\n".to_vec()), ("gzip", gzip(b""))] {
                let error = task.score("team", Input::from_bytes("upload", bytes)).expect_err(what).to_string();
                assert!(error.starts_with("upload:1:1: found an empty upload"), "{} {what}: {error}", task.name);
            }
        }
        let task = |name: &str| campaign.task(name).expect("the task");
        // A part of a multi-pair upload left empty is named by its pair.
        let lexical = super::super::served_gold_tests::bundled("ranking/diso-synthetic/uco-stix/lexical.jsonl");
        let parts = [("uco-stix".to_owned(), lexical), ("stix-d3fend".to_owned(), Arc::from(&b"\n"[..]))];
        let bundled = task("t2").bundle(&parts).expect("both pairs");
        let error = task("t2").score("team", Input::from_bytes("upload", bundled)).expect_err("an empty part");
        assert!(error.to_string().starts_with("stix-d3fend:1:1: found an empty part"), "{error}");
        // A well-formed file with no item of its own.
        let no_cell = b"<?xml version='1.0'?>\n<rdf:RDF xmlns='http://knowledgeweb.semanticweb.org/heterogeneity/alignment' \
            xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><Alignment><level>0</level></Alignment></rdf:RDF>\n";
        let error = task("t1").score("team", Input::from_bytes("upload", &no_cell[..])).expect_err("no cell");
        assert_eq!(
            error.to_string(),
            "upload:1:1: found no correspondence in any pair, expected at least one to score"
        );
        let error = task("qa")
            .score("team", Input::from_bytes("upload", &b"{\"questions\": []}"[..]))
            .expect_err("no question");
        assert_eq!(error.to_string(), "upload:1:1: found no question, expected at least one to score");
    }
}
