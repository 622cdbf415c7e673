//! Warnings and notes about the input, with their place.

use std::fmt;

/// Where something is in an input: a file (by display name), a 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// The file as the user named it (empty when built in code).
    pub file: String,
    /// 1-based line; 0 when unknown.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}", self.file),
            (l, 0) => write!(f, "{}:{l}", self.file),
            (l, c) => write!(f, "{}:{l}:{c}", self.file),
        }
    }
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Informational (e.g. a repair that was asked for).
    Note,
    /// Data that was accepted but deserves a look (duplicates, swapped sides, …).
    Warning,
}

/// A warning or note: a stable machine code (`duplicate-cell`, `swapped-sides`, …), a message
/// and an optional location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// How serious.
    pub severity: Severity,
    /// A stable kebab-case code.
    pub code: &'static str,
    /// One line, human-readable.
    pub message: String,
    /// Where, if known.
    pub location: Option<Location>,
}

impl Diagnostic {
    /// A warning without location.
    #[must_use]
    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Self { severity: Severity::Warning, code, message: message.into(), location: None }
    }

    /// A note without location.
    #[must_use]
    pub fn note(code: &'static str, message: impl Into<String>) -> Self {
        Self { severity: Severity::Note, code, message: message.into(), location: None }
    }

    /// The same diagnostic at a location.
    #[must_use]
    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Note => "note",
            Severity::Warning => "warning",
        };
        match &self.location {
            Some(loc) => write!(f, "{level}: {loc}: {} [{}]", self.message, self.code),
            None => write!(f, "{level}: {} [{}]", self.message, self.code),
        }
    }
}
