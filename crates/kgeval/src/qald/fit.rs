//! Whether a submission answers the gold's questions: its ids the gold lacks, and on the ids
//! both have, its question strings that differ from the gold's in the task's language.
//!
//! A file of another task (QALD-3 test answers scored against the training gold: the ids
//! overlap, the questions do not) would otherwise score near 0 without a word. When more than
//! half of its ids are outside the gold, or more than half of the questions it carries a
//! string for differ from the gold's, the file is refused with the counts; an id outside the
//! gold is refused in any case (it cannot be scored); a few differing strings are a warning
//! with the counts.

use std::collections::HashMap;

use kgeval_model::qald::{QaldDataset, Question};
use kgeval_model::Diagnostic;

use crate::Error;

/// The warning code of a submission whose question strings differ from the gold's on a few
/// shared ids.
pub const QUESTION_TEXT_DIFFERS: &str = "question-text-differs";

/// Checks `system` against `gold` (named `gold_name` in messages, e.g. `the gold`): `Ok(None)`
/// when it fits, `Ok(Some(warning))` when a few of its question strings differ.
///
/// # Errors
/// [`Error::Unfit`] at the first id outside the gold, or at the first differing question when
/// more than half of the compared strings differ; each with the counts.
pub(super) fn check_fit(
    gold: &QaldDataset,
    system: &QaldDataset,
    language: &str,
    gold_name: &str,
) -> Result<Option<Diagnostic>, Error> {
    let gold_questions: HashMap<&str, &Question> = gold.questions.iter().map(|q| (q.id.as_str(), q)).collect();
    let submitted = system.questions.len();
    let outside: Vec<&Question> =
        system.questions.iter().filter(|q| !gold_questions.contains_key(q.id.as_str())).collect();
    let mut compared = 0usize;
    let mut differing: Vec<&Question> = Vec::new();
    for question in &system.questions {
        let Some(gold_question) = gold_questions.get(question.id.as_str()) else { continue };
        let (Some(text), Some(gold_text)) = (text_in(question, language), text_in(gold_question, language)) else {
            continue;
        };
        compared += 1;
        if normalised(text) != normalised(gold_text) {
            differing.push(question);
        }
    }
    if let Some(first) = differing.first().filter(|_| 2 * differing.len() > compared) {
        return Err(Error::unfit(format!(
            "{}: found {} of {compared} questions whose text differs from the gold's (compared in language {} on \
             the ids both have; {} of {submitted} ids not in {gold_name}), expected the answers to this task's \
             questions",
            first.location,
            differing.len(),
            kgeval_formats::echo(language),
            outside.len()
        )));
    }
    if let Some(first) = outside.first() {
        let most = if 2 * outside.len() > submitted { ": expected the answers to this task's questions" } else { "" };
        return Err(Error::unfit(format!(
            "{}: found question id {}, expected an id of {gold_name} ({} of {submitted} ids not in it{most})",
            first.location,
            kgeval_formats::echo(&first.id),
            outside.len()
        )));
    }
    Ok(differing.first().map(|first| {
        Diagnostic::warning(
            QUESTION_TEXT_DIFFERS,
            format!(
                "{} of {compared} questions have a text that differs from the gold's (compared in language {} on the \
                 ids both have; first: question {})",
                differing.len(),
                kgeval_formats::echo(language),
                kgeval_formats::echo(&first.id)
            ),
        )
        .at(first.location.clone())
    }))
}

/// The non-empty question string of `question` in `language` (its tag compared ignoring ASCII
/// case), if it carries one.
fn text_in<'q>(question: &'q Question, language: &str) -> Option<&'q str> {
    question
        .strings
        .iter()
        .find(|s| s.language.eq_ignore_ascii_case(language) && !s.text.trim().is_empty())
        .map(|s| s.text.as_str())
}

/// A question string as compared: trimmed, runs of whitespace made one space, case-folded.
fn normalised(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    use kgeval_model::qald::{LocalizedText, QaldDataset, Question};
    use kgeval_model::Location;

    use super::check_fit;

    fn dataset(file: &str, questions: &[(&str, Option<&str>)]) -> QaldDataset {
        QaldDataset {
            id: None,
            questions: questions
                .iter()
                .enumerate()
                .map(|(i, (id, text))| Question {
                    id: (*id).to_owned(),
                    strings: text
                        .iter()
                        .map(|t| LocalizedText { language: "en".to_owned(), text: (*t).to_owned() })
                        .collect(),
                    location: Location { file: file.to_owned(), line: i as u32 + 2, column: 1 },
                    ..Question::default()
                })
                .collect(),
        }
    }

    fn gold() -> QaldDataset {
        dataset(
            "g.xml",
            &[("1", Some("Who is the mayor of Berlin?")), ("2", Some("How tall is Claudia Schiffer?")), ("3", None)],
        )
    }

    #[test]
    fn texts_compare_trimmed_collapsed_and_case_folded() {
        let system =
            dataset("s.xml", &[("1", Some("  who is the MAYOR\tof  berlin? ")), ("2", None), ("3", Some("x"))]);
        assert_eq!(check_fit(&gold(), &system, "en", "the gold").expect("fits"), None);
        // Another language is not compared.
        assert_eq!(
            check_fit(&gold(), &dataset("s.xml", &[("1", Some("Wer?"))]), "de", "the gold").expect("fits"),
            None
        );
    }

    #[test]
    fn half_of_the_texts_differing_is_a_warning_more_is_an_error() {
        // 1 of 2 compared: a warning at the differing question.
        let system = dataset("s.xml", &[("1", Some("Who is the mayor of Berlin?")), ("2", Some("Who wrote Faust?"))]);
        let warning = check_fit(&gold(), &system, "en", "the gold").expect("a warning").expect("one");
        assert_eq!(warning.code, super::QUESTION_TEXT_DIFFERS);
        assert_eq!(warning.location.as_ref().map(ToString::to_string).as_deref(), Some("s.xml:3:1"));
        assert_eq!(
            warning.message,
            "1 of 2 questions have a text that differs from the gold's (compared in language \"en\" on the ids \
             both have; first: question \"2\")"
        );
        // 2 of 2: refused.
        let system = dataset("s.xml", &[("1", Some("Who wrote Faust?")), ("2", Some("Who painted it?"))]);
        let error = check_fit(&gold(), &system, "en", "the gold").expect_err("refused");
        assert!(error.concerns_gold());
        assert_eq!(
            error.to_string(),
            "s.xml:2:1: found 2 of 2 questions whose text differs from the gold's (compared in language \"en\" on \
             the ids both have; 0 of 2 ids not in the gold), expected the answers to this task's questions"
        );
    }

    #[test]
    fn an_id_outside_the_gold_is_refused_with_the_counts() {
        let system = dataset("s.xml", &[("1", None), ("2", None), ("9", None)]);
        assert_eq!(
            check_fit(&gold(), &system, "en", "the gold g.xml").expect_err("refused").to_string(),
            "s.xml:4:1: found question id \"9\", expected an id of the gold g.xml (1 of 3 ids not in it)"
        );
        let system = dataset("s.xml", &[("1", None), ("8", None), ("9", None)]);
        assert_eq!(
            check_fit(&gold(), &system, "en", "the gold").expect_err("refused").to_string(),
            "s.xml:3:1: found question id \"8\", expected an id of the gold (2 of 3 ids not in it: expected the \
             answers to this task's questions)"
        );
    }
}
