//! QALD JSON (QALD-5..10 and the QALD-7 "extended" JSON), walked as a `serde_json::Value`.
//! Structural errors name the JSON path and point at the question they are in.

use serde_json::{Map, Value};

use kgeval_model::qald::{Answer, AnswerValue, LocalizedText, QaldDataset, QaldQuery, Question};

use super::{classify_query, parse_flag, untyped_answer, Source};
use crate::FormatError;

pub(super) fn read(body: &[u8], source: &mut Source<'_>) -> Result<QaldDataset, FormatError> {
    let root: Value = serde_json::from_slice(body).map_err(|e| {
        let (line, column) = (e.line() as u32, e.column().max(1) as u32);
        FormatError::syntax(source.file, line.max(1), column, format!("malformed JSON: {e}"))
    })?;
    let text = std::str::from_utf8(body).unwrap_or_default();
    let offsets = question_offsets(text);
    let Value::Object(root) = root else {
        return Err(source.error(first_token(text), format!("found {}, expected a JSON object", kind(&root))));
    };
    let id = match root.get("dataset") {
        Some(Value::Object(dataset)) => dataset.get("id").and_then(id_text),
        _ => None,
    };
    let Some(Value::Array(questions)) = root.get("questions") else {
        let found = root.get("questions").map_or("no `questions`", kind);
        return Err(source.error(first_token(text), format!("found {found}, expected a `questions` array")));
    };
    let mut dataset = QaldDataset { id, questions: Vec::with_capacity(questions.len()) };
    for (index, value) in questions.iter().enumerate() {
        let at = offsets.get(index).copied().unwrap_or(0);
        let mut walker = Walker { source: &mut *source, at, path: format!("questions[{index}]") };
        dataset.questions.push(walker.question(value)?);
    }
    Ok(dataset)
}

/// Reads one question object at byte offset `at`, naming paths from `path` in errors.
struct Walker<'s, 'a> {
    source: &'s mut Source<'a>,
    at: usize,
    path: String,
}

impl Walker<'_, '_> {
    fn error(&self, field: &str, message: impl std::fmt::Display) -> FormatError {
        self.source.error(self.at, format!("{}{field}: {message}", self.path))
    }

    fn warn(&mut self, code: &'static str, message: impl FnOnce() -> String) {
        let path = self.path.clone();
        self.source.warn(code, self.at, || format!("{path}: {}", message()));
    }

    fn question(&mut self, value: &Value) -> Result<Question, FormatError> {
        let Value::Object(object) = value else {
            return Err(self.error("", format_args!("found {}, expected a question object", kind(value))));
        };
        // QALD-7 "extended" JSON: {"question": {"id", "answertype", "language": [...], "answers", "metadata"}}.
        if let (Some(Value::Object(inner)), None) = (object.get("question"), object.get("id")) {
            self.path.push_str(".question");
            self.warn("qald-extended-json", || "QALD-7 extended JSON layout".to_owned());
            return self.extended(inner);
        }
        let mut question = self.head(object)?;
        if let Some(texts) = object.get("question").or_else(|| object.get("body")) {
            self.localized(texts, ".question", "string", &mut question)?;
        }
        if let Some(keywords) = object.get("keywords").filter(|k| k.is_array()) {
            // QALD-5: a separate [{"language", "keywords"}] list.
            self.localized(keywords, ".keywords", "string", &mut question)?;
        }
        question.query = match object.get("query") {
            None | Some(Value::Null) => QaldQuery::None,
            Some(Value::Object(query)) => match (query.get("sparql"), query.get("pseudo")) {
                (Some(Value::String(q)), _) => classify_query(q, QaldQuery::Sparql),
                (None, Some(Value::String(q))) => classify_query(q, QaldQuery::Pseudo),
                (None, None) => QaldQuery::None,
                (Some(other), _) | (None, Some(other)) => {
                    return Err(self.error(".query", format_args!("found {}, expected a string", kind(other))));
                }
            },
            Some(Value::String(q)) => classify_query(q, QaldQuery::Sparql),
            Some(other) => {
                return Err(self.error(".query", format_args!("found {}, expected an object", kind(other))));
            }
        };
        question.answers = match object.get("answers") {
            None | Some(Value::Null) => None,
            Some(answers) => self.answers(answers, question.answertype.as_deref())?,
        };
        Ok(question)
    }

    /// id, answertype and flags (from `object`, or the extended layout's `metadata`).
    fn head(&mut self, object: &Map<String, Value>) -> Result<Question, FormatError> {
        let id = match object.get("id") {
            Some(Value::Number(n)) => {
                self.warn("qald-integer-id", || format!("integer id {n}"));
                n.to_string()
            }
            Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
            Some(other) => {
                return Err(self.error(".id", format_args!("found {}, expected a string or an integer", kind(other))))
            }
            None => return Err(self.error("", "found no `id`, expected a question id")),
        };
        let answertype = match object.get("answertype") {
            None | Some(Value::Null) => {
                self.warn("qald-no-answertype", || "no answertype".to_owned());
                None
            }
            Some(Value::String(t)) => {
                if !matches!(t.as_str(), "resource" | "string" | "number" | "date" | "boolean") {
                    self.warn("qald-nonstandard-answertype", || format!("non-standard answertype {}", crate::echo(t)));
                }
                Some(t.clone())
            }
            Some(other) => {
                return Err(self.error(".answertype", format_args!("found {}, expected a string", kind(other))))
            }
        };
        let flags = match object.get("metadata") {
            Some(Value::Object(metadata)) => metadata,
            _ => object,
        };
        Ok(Question {
            id,
            answertype,
            aggregation: self.flag(flags, "aggregation")?,
            onlydbo: self.flag(flags, "onlydbo")?,
            hybrid: self.flag(flags, "hybrid")?,
            location: self.source.location(self.at),
            ..Question::default()
        })
    }

    fn extended(&mut self, inner: &Map<String, Value>) -> Result<Question, FormatError> {
        let mut question = self.head(inner)?;
        if let Some(languages) = inner.get("language") {
            for (i, entry) in self.localized(languages, ".language", "question", &mut question)?.into_iter().enumerate()
            {
                if question.query == QaldQuery::None {
                    if let Some(sparql) = self.optional_string(entry, "SPARQL", i)? {
                        question.query = classify_query(&sparql, QaldQuery::Sparql);
                    }
                }
            }
        }
        question.answers = match inner.get("answers") {
            None | Some(Value::Null) => None,
            Some(answers) => self.answers(answers, question.answertype.as_deref())?,
        };
        Ok(question)
    }

    /// A `[{"language", TEXT_KEY, "keywords"}]` list: question strings and keywords per
    /// language into `question`; the entries are returned for other fields.
    fn localized<'v>(
        &self,
        list: &'v Value,
        field: &str,
        text_key: &str,
        question: &mut Question,
    ) -> Result<Vec<&'v Map<String, Value>>, FormatError> {
        let mut entries = Vec::new();
        for (i, entry) in self.array(list, field)?.iter().enumerate() {
            let entry = self.object(entry, &format!("{field}[{i}]"))?;
            let language = self.optional_string(entry, "language", i)?.unwrap_or_default();
            if let Some(text) = self.optional_string(entry, text_key, i)? {
                question.strings.push(LocalizedText { language: language.clone(), text });
            }
            if let Some(keywords) = self.optional_string(entry, "keywords", i)? {
                question.keywords.push(LocalizedText { language, text: keywords });
            }
            entries.push(entry);
        }
        Ok(entries)
    }

    fn flag(&mut self, object: &Map<String, Value>, name: &str) -> Result<Option<bool>, FormatError> {
        match object.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) => {
                let Some(b) = parse_flag(s) else {
                    return Err(self
                        .error(&format!(".{name}"), format_args!("found {}, expected true or false", crate::echo(s))));
                };
                self.warn("qald-string-flag", || format!("{name} written as the string {}", crate::echo(s)));
                Ok(Some(b))
            }
            Some(other) => {
                Err(self.error(&format!(".{name}"), format_args!("found {}, expected a boolean", kind(other))))
            }
        }
    }

    /// `answers`: a list of SPARQL-results objects (or QALD-5 `{"string"}` objects), or one
    /// SPARQL-results object (extended JSON). An empty list gives no answer set (`None`).
    fn answers(&mut self, answers: &Value, answertype: Option<&str>) -> Result<Option<Vec<Answer>>, FormatError> {
        let list: Vec<&Value> = match answers {
            Value::Array(list) => list.iter().collect(),
            Value::Object(_) => vec![answers],
            other => return Err(self.error(".answers", format_args!("found {}, expected an array", kind(other)))),
        };
        if list.is_empty() {
            return Ok(None);
        }
        let mut out = Vec::new();
        for (i, result) in list.into_iter().enumerate() {
            let field = format!(".answers[{i}]");
            let result = self.object(result, &field)?;
            if let Some(text) = result.get("string") {
                let Value::String(text) = text else {
                    return Err(self.error(&field, format_args!("found {}, expected a string", kind(text))));
                };
                out.push(Answer::new(untyped_answer(text, answertype)));
                continue;
            }
            self.results(result, &field, &mut out)?;
        }
        Ok(Some(out))
    }

    /// One SPARQL-results JSON object: `boolean` (ASK) or `results.bindings`.
    fn results(&mut self, result: &Map<String, Value>, field: &str, out: &mut Vec<Answer>) -> Result<(), FormatError> {
        if let Some(boolean) = result.get("boolean") {
            let Value::Bool(b) = boolean else {
                return Err(self
                    .error(&format!("{field}.boolean"), format_args!("found {}, expected a boolean", kind(boolean))));
            };
            if result.contains_key("results") {
                self.warn("qald-boolean-with-results", || {
                    "ASK answer also has `results`; the boolean is used".to_owned()
                });
            }
            out.push(Answer::new(AnswerValue::Boolean(b.to_string())));
            return Ok(());
        }
        let vars: Vec<&str> = match result.get("head").and_then(|h| h.get("vars")) {
            Some(Value::Array(vars)) => vars.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let bindings = match result.get("results").and_then(|r| r.get("bindings")) {
            Some(Value::Array(bindings)) => bindings,
            Some(other) => {
                return Err(self.error(
                    &format!("{field}.results.bindings"),
                    format_args!("found {}, expected an array", kind(other)),
                ));
            }
            None => {
                return Err(self.error(field, "found neither `boolean` nor `results.bindings`, expected SPARQL results"))
            }
        };
        for (b, binding) in bindings.iter().enumerate() {
            let binding_field = format!("{field}.results.bindings[{b}]");
            for (var, term) in self.object(binding, &binding_field)? {
                if !vars.contains(&var.as_str()) {
                    self.warn("qald-undeclared-variable", || {
                        format!(
                            "binding of ?{}, not in head.vars {}",
                            crate::shorten(var, crate::MAX_ECHO),
                            crate::shorten(&format!("{vars:?}"), crate::MAX_ECHO)
                        )
                    });
                }
                let var_field = format!("{binding_field}.{}", crate::shorten(var, crate::MAX_ECHO));
                let term = self.object(term, &var_field)?;
                out.push(Answer::new(self.term(term, &var_field)?));
            }
        }
        Ok(())
    }

    /// One RDF term of a binding: `{"type", "value", "datatype"?, "xml:lang"?}`.
    fn term(&mut self, term: &Map<String, Value>, field: &str) -> Result<AnswerValue, FormatError> {
        let Some(Value::String(value)) = term.get("value") else {
            return Err(self.error(field, "found no string `value`, expected an RDF term"));
        };
        let text = |key: &str| term.get(key).and_then(Value::as_str).map(str::to_owned);
        let kind_name = text("type").unwrap_or_default();
        Ok(match kind_name.as_str() {
            "uri" => AnswerValue::Iri(value.clone()),
            "literal" | "typed-literal" => {
                let datatype = text("datatype");
                if value.starts_with('+') {
                    self.warn("qald-plus-sign", || {
                        format!("number written with a leading plus: {}", crate::echo(value))
                    });
                }
                AnswerValue::Literal {
                    lexical: value.clone(),
                    datatype,
                    language: text("xml:lang").or_else(|| text("lang")),
                }
            }
            "bnode" => AnswerValue::plain(format!("_:{value}")),
            "number" => {
                self.warn("qald-nonstandard-binding", || "binding type \"number\"".to_owned());
                AnswerValue::Number(value.clone())
            }
            other => {
                self.warn("qald-nonstandard-binding", || {
                    format!("binding type {} read as a literal", crate::echo(other))
                });
                AnswerValue::plain(value.clone())
            }
        })
    }

    fn array<'v>(&self, value: &'v Value, field: &str) -> Result<&'v Vec<Value>, FormatError> {
        match value {
            Value::Array(list) => Ok(list),
            other => Err(self.error(field, format_args!("found {}, expected an array", kind(other)))),
        }
    }

    fn object<'v>(&self, value: &'v Value, field: &str) -> Result<&'v Map<String, Value>, FormatError> {
        match value {
            Value::Object(map) => Ok(map),
            other => Err(self.error(field, format_args!("found {}, expected an object", kind(other)))),
        }
    }

    fn optional_string(
        &self,
        entry: &Map<String, Value>,
        key: &str,
        index: usize,
    ) -> Result<Option<String>, FormatError> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_owned())),
            Some(other) => {
                Err(self.error(&format!("[{index}].{key}"), format_args!("found {}, expected a string", kind(other))))
            }
        }
    }
}

fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn first_token(text: &str) -> usize {
    text.find(|c: char| !c.is_whitespace()).unwrap_or(0)
}

/// Byte offsets of the elements of the top-level `"questions"` array (of valid JSON), so that
/// errors and warnings can point at their question.
fn question_offsets(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut offsets = Vec::new();
    let mut depth = 0usize;
    let mut last_key_at_depth1: Option<(usize, usize)> = None;
    let mut in_questions = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if depth == 1 {
                    last_key_at_depth1 = Some((start, i.min(bytes.len())));
                }
                if in_questions && depth == 2 {
                    offsets.push(start - 1);
                }
            }
            b'{' | b'[' => {
                if in_questions && depth == 2 {
                    offsets.push(i);
                }
                if depth == 1 && bytes[i] == b'[' {
                    in_questions = last_key_at_depth1.is_some_and(|(s, e)| &text[s..e] == "questions");
                }
                depth += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 1 {
                    in_questions = false;
                }
            }
            c if in_questions && depth == 2 && (c.is_ascii_digit() || matches!(c, b'-' | b't' | b'f' | b'n')) => {
                offsets.push(i);
                while i + 1 < bytes.len() && !matches!(bytes[i + 1], b',' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_of_each_question() {
        let text = r#"{"dataset": {"id": "x"}, "questions": [ {"id": 1, "a": [1, {"b": "]"}]}, 3, "s", {"id": 2} ], "z": [{}]}"#;
        let offsets = question_offsets(text);
        let starts: Vec<&str> = offsets.iter().map(|&o| &text[o..o + 1]).collect();
        assert_eq!(starts, ["{", "3", "\"", "{"]);
        assert_eq!(&text[offsets[3]..offsets[3] + 9], "{\"id\": 2}");
    }
}
