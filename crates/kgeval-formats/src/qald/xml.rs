//! QALD XML (QALD-1..7): a quick-xml event loop over `<dataset>` › `<question>`.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use kgeval_model::qald::{Answer, AnswerValue, LocalizedText, QaldDataset, QaldQuery, Question};

use super::{classify_query, looks_like_iri, parse_flag, untyped_answer, Source};
use crate::FormatError;

/// The element being read, with what is needed when it closes.
#[derive(Debug)]
enum Open {
    Dataset,
    Question,
    /// `<string>` / `<keywords>` directly in a question, with its `lang`.
    Text {
        keywords: bool,
        language: Option<String>,
    },
    Query {
        pseudo: bool,
    },
    Answers,
    /// `<answer>`: whether typed children were seen, and the index of its first value.
    Answer {
        typed: bool,
        first: usize,
    },
    /// A typed value in an `<answer>` (`uri`, `string`, `number`, `date`, `boolean`).
    Value {
        tag: String,
        language: Option<String>,
    },
    /// Anything else (skipped, with its text).
    Other,
}

pub(super) fn read(body: &[u8], source: &mut Source<'_>) -> Result<QaldDataset, FormatError> {
    if let Some((at, message)) = crate::xml_guard::violation(body, true) {
        return Err(source.error(at, message));
    }
    let mut reader = Reader::from_reader(body);
    reader.config_mut().check_end_names = true;
    let mut state = State::default();
    loop {
        let start = reader.buffer_position() as usize;
        let event = reader.read_event().map_err(|e| {
            let at = reader.error_position() as usize;
            source.error(at, format!("malformed XML: {e}"))
        })?;
        match event {
            Event::Start(e) => state.open(&e, start, source)?,
            Event::Empty(e) => {
                state.open(&e, start, source)?;
                state.close(start, source)?;
            }
            Event::End(_) => state.close(start, source)?,
            Event::Text(t) => {
                let text = t.unescape().map_err(|e| source.error(start, format!("malformed XML text: {e}")))?;
                state.text(&text, start, source)?;
            }
            Event::CData(c) => {
                let text =
                    std::str::from_utf8(&c).map_err(|_| source.error(start, "found bytes that are not UTF-8"))?;
                state.text(text, start, source)?;
            }
            Event::Eof => break,
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
        }
    }
    if let Some((name, at)) = state.open_tags.last() {
        let location = source.location(*at);
        return Err(source.error(
            body.len(),
            format!(
                "found the end of the file inside <{name}> opened at {}:{}, expected </{name}>",
                location.line, location.column
            ),
        ));
    }
    if !state.seen_root {
        return Err(source.error(body.len(), "found no <dataset> element, expected a QALD dataset"));
    }
    Ok(state.dataset)
}

#[derive(Default)]
struct State {
    stack: Vec<Open>,
    /// The name of each open element (as written) and the offset of its start tag.
    open_tags: Vec<(String, usize)>,
    text: String,
    seen_root: bool,
    dataset: QaldDataset,
    question: Option<Question>,
    answers: Vec<Answer>,
}

fn attribute(e: &BytesStart<'_>, name: &[u8], at: usize, source: &Source<'_>) -> Result<Option<String>, FormatError> {
    for attr in e.attributes() {
        let attr = attr.map_err(|err| source.error(at, format!("malformed attribute: {err}")))?;
        if attr.key.local_name().as_ref() == name {
            let value = attr.unescape_value().map_err(|err| source.error(at, format!("malformed attribute: {err}")))?;
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

fn flag(e: &BytesStart<'_>, name: &str, at: usize, source: &mut Source<'_>) -> Result<Option<bool>, FormatError> {
    let Some(value) = attribute(e, name.as_bytes(), at, source)? else { return Ok(None) };
    let parsed = parse_flag(&value);
    if parsed.is_none() {
        source
            .warn("qald-bad-flag", at, || format!("{name}={} is neither true nor false; ignored", crate::echo(&value)));
    }
    Ok(parsed)
}

impl State {
    fn open(&mut self, e: &BytesStart<'_>, at: usize, source: &mut Source<'_>) -> Result<(), FormatError> {
        let name = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
        self.text.clear();
        let parent = self.stack.last();
        let open = match (parent, name.as_str()) {
            (None, "dataset") => {
                if self.seen_root {
                    return Err(source.error(at, "found a second root element, expected one <dataset>"));
                }
                self.seen_root = true;
                self.dataset.id = attribute(e, b"id", at, source)?;
                Open::Dataset
            }
            (None, other) => return Err(source.error(at, format!("found <{other}>, expected <dataset>"))),
            (Some(Open::Dataset), "question") => {
                self.question = Some(self.start_question(e, at, source)?);
                Open::Question
            }
            (Some(Open::Question), "string" | "keywords") => {
                Open::Text { keywords: name == "keywords", language: attribute(e, b"lang", at, source)? }
            }
            (Some(Open::Question), "query" | "pseudoquery") => Open::Query { pseudo: name == "pseudoquery" },
            (Some(Open::Question), "answers") => {
                self.answers.clear();
                Open::Answers
            }
            (Some(Open::Answers), "answer") => Open::Answer { typed: false, first: self.answers.len() },
            (Some(Open::Answers), other) => {
                return Err(source.error(at, format!("found <{other}> in <answers>, expected <answer>")));
            }
            (Some(Open::Answer { .. }), "uri" | "string" | "number" | "date" | "boolean") => {
                if let Some(Open::Answer { typed, .. }) = self.stack.last_mut() {
                    *typed = true;
                }
                Open::Value { tag: name, language: attribute(e, b"lang", at, source)? }
            }
            (Some(Open::Answer { .. }), other) => {
                return Err(source.error(
                    at,
                    format!("found <{other}> in <answer>, expected <uri>, <string>, <number>, <date> or <boolean>"),
                ));
            }
            (Some(Open::Value { .. } | Open::Text { .. } | Open::Query { .. }), other) => {
                return Err(source.error(at, format!("found <{other}> inside a text element, expected text")));
            }
            (Some(Open::Dataset), other) => {
                return Err(source.error(at, format!("found <{other}> in <dataset>, expected <question>")));
            }
            (Some(_), other) => {
                source.warn("qald-unknown-element", at, || format!("unknown element <{other}> skipped"));
                Open::Other
            }
        };
        self.stack.push(open);
        self.open_tags.push((String::from_utf8_lossy(e.name().as_ref()).into_owned(), at));
        Ok(())
    }

    fn start_question(&self, e: &BytesStart<'_>, at: usize, source: &mut Source<'_>) -> Result<Question, FormatError> {
        let Some(id) = attribute(e, b"id", at, source)? else {
            return Err(source.error(at, "found <question> without id, expected an id attribute"));
        };
        let id = id.trim().to_owned();
        if id.is_empty() {
            return Err(source.error(at, "found an empty question id, expected an id"));
        }
        let mut onlydbo = flag(e, "onlydbo", at, source)?;
        if onlydbo.is_none() {
            onlydbo = flag(e, "onlyesdbp", at, source)?;
            if onlydbo.is_some() {
                source.warn("qald-onlyesdbp", at, || "`onlyesdbp` read as `onlydbo`".to_owned());
            }
        }
        let answertype = attribute(e, b"answertype", at, source)?;
        if let Some(t) = &answertype {
            if !matches!(t.as_str(), "resource" | "string" | "number" | "date" | "boolean") {
                source
                    .warn("qald-nonstandard-answertype", at, || format!("non-standard answertype {}", crate::echo(t)));
            }
        }
        Ok(Question {
            id,
            answertype,
            aggregation: flag(e, "aggregation", at, source)?,
            onlydbo,
            hybrid: flag(e, "hybrid", at, source)?,
            location: source.location(at),
            ..Question::default()
        })
    }

    fn text(&mut self, text: &str, at: usize, source: &Source<'_>) -> Result<(), FormatError> {
        match self.stack.last() {
            None | Some(Open::Dataset | Open::Question | Open::Answers) if text.trim().is_empty() => Ok(()),
            None => Err(source.error(at, "found text outside the root element, expected markup")),
            Some(Open::Dataset | Open::Question | Open::Answers) => {
                Err(source.error(at, format!("found text {}, expected an element", crate::echo(text.trim()))))
            }
            Some(_) => {
                self.text.push_str(text);
                Ok(())
            }
        }
    }

    fn close(&mut self, at: usize, source: &mut Source<'_>) -> Result<(), FormatError> {
        self.open_tags.pop();
        let Some(open) = self.stack.pop() else { return Err(source.error(at, "found an end tag, expected markup")) };
        let text = std::mem::take(&mut self.text);
        let Some(question) = self.question.as_mut() else { return Ok(()) };
        match open {
            Open::Question => {
                if let Some(q) = self.question.take() {
                    self.dataset.questions.push(q);
                }
            }
            Open::Text { keywords, language } => {
                if language.is_none() {
                    source.warn("qald-string-without-lang", at, || {
                        format!("<{}> without lang", if keywords { "keywords" } else { "string" })
                    });
                }
                let entry = LocalizedText { language: language.unwrap_or_default(), text: text.trim().to_owned() };
                if keywords {
                    question.keywords.push(entry);
                } else {
                    question.strings.push(entry);
                }
            }
            Open::Query { pseudo } => {
                let make = if pseudo { QaldQuery::Pseudo } else { QaldQuery::Sparql };
                let query = classify_query(&text, make);
                if query != QaldQuery::None || question.query == QaldQuery::None {
                    question.query = query;
                }
            }
            Open::Answers => question.answers = Some(std::mem::take(&mut self.answers)),
            Open::Answer { typed, .. } => {
                if !typed {
                    if text.trim().is_empty() {
                        source.warn("qald-empty-answer", at, || "empty <answer> skipped".to_owned());
                    } else {
                        source.warn("qald-untyped-answer", at, || {
                            "untyped <answer> text, typed from the answertype".to_owned()
                        });
                        let value = untyped_answer(&text, question.answertype.as_deref());
                        self.answers.push(Answer::new(value));
                    }
                }
            }
            Open::Value { tag, language } => {
                let answertype = question.answertype.clone();
                self.value(&tag, language, text, answertype.as_deref(), (at, source));
            }
            Open::Dataset | Open::Other => {}
        }
        Ok(())
    }

    /// A typed value closes: a new answer, or an alias of the `<uri>` before it (QALD-2).
    fn value(
        &mut self,
        tag: &str,
        language: Option<String>,
        text: String,
        answertype: Option<&str>,
        (at, source): (usize, &mut Source<'_>),
    ) {
        let first = match self.stack.last() {
            Some(Open::Answer { first, .. }) => *first,
            _ => self.answers.len(),
        };
        let answers = &mut self.answers;
        let value = match tag {
            "uri" if looks_like_iri(&text) && answertype != Some("string") => AnswerValue::Iri(text.trim().to_owned()),
            "uri" => {
                source.warn("qald-string-in-uri", at, || {
                    format!("<uri> holds the string answer {}, read as a string", crate::echo(text.trim()))
                });
                AnswerValue::Literal { lexical: text, datatype: None, language: None }
            }
            "string" => {
                let same_answer = answers.len() > first;
                if let Some(last) = answers.last_mut().filter(|_| same_answer) {
                    if matches!(last.value, AnswerValue::Iri(_)) {
                        last.aliases.push(text.trim().to_owned());
                        return;
                    }
                }
                AnswerValue::Literal { lexical: text, datatype: None, language }
            }
            "number" => {
                if answertype == Some("date") {
                    source
                        .warn("qald-number-for-date", at, || format!("date question answered <number>{}", text.trim()));
                }
                AnswerValue::Number(text)
            }
            "date" => AnswerValue::Date(text),
            _ => {
                let trimmed = text.trim();
                if trimmed != "true" && trimmed != "false" {
                    source.warn("qald-boolean-spelling", at, || format!("boolean written {trimmed:?}"));
                }
                AnswerValue::Boolean(text)
            }
        };
        answers.push(Answer::new(value));
    }
}
