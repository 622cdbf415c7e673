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
    /// Well-formed input that does not fit the gold it is scored against, said in one line:
    /// ids the gold lacks, questions other than the gold's, gold items it leaves out. Its
    /// message tells something of the gold's content ([`Error::concern`]).
    #[error("{0}")]
    Unfit(String),
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

    /// An [`Error::Unfit`] with this message.
    #[must_use]
    pub fn unfit(message: impl Into<String>) -> Self {
        Error::Unfit(message.into())
    }

    /// What the error is about: the input itself, or how it fits the gold (an
    /// [`Error::Unfit`], or a reader's error that
    /// [concerns the gold](kgeval_formats::SyntaxError::concerns_gold)), looking through
    /// [`Error::Context`].
    ///
    /// ```
    /// use kgeval::{Concern, Error};
    /// assert_eq!(Error::invalid("upload:3:1: found a tab").concern(), Concern::Input);
    /// let unfit = Error::unfit("upload:3:1: found question id \"18\", expected an id of the gold");
    /// assert_eq!(unfit.context("scoring").concern(), Concern::Gold);
    /// ```
    #[must_use]
    pub fn concern(&self) -> Concern {
        match self {
            Error::Unfit(_) => Concern::Gold,
            Error::Format(e) if e.concerns_gold() => Concern::Gold,
            Error::Context { source, .. } => source.concern(),
            _ => Concern::Input,
        }
    }

    /// Whether the error tells something of the gold's content ([`Error::concern`] is
    /// [`Concern::Gold`]).
    #[must_use]
    pub fn concerns_gold(&self) -> bool {
        self.concern() == Concern::Gold
    }

    /// This error inside `context`.
    #[must_use]
    pub fn context(self, context: impl Into<String>) -> Self {
        Error::Context { context: context.into(), source: Box::new(self) }
    }
}

/// What an [`Error`] is about ([`Error::concern`]), for a front end that must not tell more of a
/// hidden gold than it may: a server whose phase gives no feedback answers a
/// [`Concern::Gold`] error with one generic line ("the upload does not fit this task's
/// gold"), and a [`Concern::Input`] error with its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Concern {
    /// The input itself — its syntax or encoding, an option, a query that fails or runs past
    /// its bounds — or a file that cannot be read: the message says nothing of the gold.
    Input,
    /// How the input fits the gold — an id the gold lacks, questions that differ from the
    /// gold's, gold items the input leaves out, a coverage check: the message tells something
    /// of what the gold holds.
    Gold,
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
