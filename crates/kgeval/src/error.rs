//! The facade's one error type.

use kgeval_formats::FormatError;

/// Why a task could not be evaluated. Displays as one line; [`std::error::Error::source`]
/// chains to the cause (`reading the reference` → `ref.rdf:3:7: found …`).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An input could not be read or is malformed (`FILE:LINE:COL: …`).
    #[error(transparent)]
    Format(#[from] FormatError),
    /// An option value or a combination of inputs that cannot be evaluated, said in one line
    /// (`FILE:LINE: …` when it concerns a place in an input).
    #[error("{0}")]
    Invalid(String),
    /// What was being done when `source` failed (`reading the gold`).
    #[error("{context}")]
    Context {
        /// What was being done.
        context: String,
        /// Why it failed.
        #[source]
        source: Box<Error>,
    },
}

impl Error {
    /// An [`Error::Invalid`] with this message.
    #[must_use]
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::Invalid(message.into())
    }

    /// This error inside `context`.
    #[must_use]
    pub fn context(self, context: impl Into<String>) -> Self {
        Error::Context { context: context.into(), source: Box::new(self) }
    }
}

/// `.context(…)` on results whose error converts into [`Error`].
pub trait ResultExt<T> {
    /// Wraps the error in [`Error::Context`].
    ///
    /// # Errors
    /// The wrapped error.
    fn context(self, context: impl Into<String>) -> Result<T, Error>;

    /// Wraps the error in [`Error::Context`] computed lazily.
    ///
    /// # Errors
    /// The wrapped error.
    fn with_context<C: Into<String>>(self, context: impl FnOnce() -> C) -> Result<T, Error>;
}

impl<T, E: Into<Error>> ResultExt<T> for Result<T, E> {
    fn context(self, context: impl Into<String>) -> Result<T, Error> {
        self.map_err(|e| e.into().context(context))
    }

    fn with_context<C: Into<String>>(self, context: impl FnOnce() -> C) -> Result<T, Error> {
        self.map_err(|e| e.into().context(context()))
    }
}
