//! `kgeval.Error` and its subclasses, and the one conversion from the facade's error.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(kgeval, Error, PyValueError, "Every error kgeval raises (a `ValueError`, as bad input is).");
create_exception!(
    kgeval,
    ParseError,
    Error,
    "Malformed input at a place: `.path`, `.line`, `.column` (1-based; 0 when unknown)."
);
create_exception!(kgeval, InvalidInput, Error, "An option or an input that cannot be evaluated (one line).");
create_exception!(kgeval, ReadError, Error, "An input file that cannot be opened or read (`.path`).");

/// Adds the exception classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("ParseError", py.get_type::<ParseError>())?;
    m.add("InvalidInput", py.get_type::<InvalidInput>())?;
    m.add("ReadError", py.get_type::<ReadError>())?;
    Ok(())
}

/// An [`InvalidInput`] with this message.
pub(crate) fn invalid(message: impl Into<String>) -> PyErr {
    InvalidInput::new_err(message.into())
}

/// The facade's error as a Python exception: its message is the CLI's one line (`context:
/// cause`); a syntax error becomes [`ParseError`] with its place, an unreadable file
/// [`ReadError`].
pub(crate) fn to_py(py: Python<'_>, error: &kgeval::Error) -> PyErr {
    let message = one_line(error);
    let mut root = error;
    while let kgeval::Error::Context { source, .. } = root {
        root = source;
    }
    match root {
        kgeval::Error::Format(kgeval::FormatError::Syntax(syntax)) => {
            let err = ParseError::new_err(message);
            let value = err.value(py);
            let location = &syntax.location;
            // Setting attributes on a fresh exception instance does not fail.
            let _ = value.setattr("path", location.file.as_str());
            let _ = value.setattr("line", location.line);
            let _ = value.setattr("column", location.column);
            err
        }
        kgeval::Error::Format(kgeval::FormatError::Io { file, .. }) => {
            let err = ReadError::new_err(message);
            let _ = err.value(py).setattr("path", file.as_str());
            err
        }
        _ => InvalidInput::new_err(message),
    }
}

/// The error and its causes on one line (`context: cause`), a cause whose text is already
/// there said once (as the CLI prints it).
fn one_line(error: &kgeval::Error) -> String {
    let mut out = String::new();
    let mut cause: Option<&dyn std::error::Error> = Some(error);
    while let Some(current) = cause {
        let text = current.to_string();
        if !out.contains(&text) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&text.replace('\n', " "));
        }
        cause = current.source();
    }
    out
}
