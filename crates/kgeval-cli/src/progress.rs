//! The facade's [`Progress`] on a terminal: an indicatif bar on stderr, silent when piped.

use std::io::IsTerminal as _;
use std::sync::Mutex;

use kgeval::Progress;

/// Shows stages of at least `min_steps` steps as a bar on stderr when it is a terminal.
pub(crate) struct TerminalProgress {
    min_steps: u64,
    bar: Mutex<Option<indicatif::ProgressBar>>,
}

impl TerminalProgress {
    /// A bar for stages of at least `min_steps` steps.
    pub(crate) fn new(min_steps: u64) -> Self {
        TerminalProgress { min_steps, bar: Mutex::new(None) }
    }
}

impl Progress for TerminalProgress {
    fn start(&self, what: &str, total: u64) {
        let bar = if !std::io::stderr().is_terminal() || total < self.min_steps {
            indicatif::ProgressBar::hidden()
        } else {
            let bar = indicatif::ProgressBar::new(total);
            if let Ok(style) = indicatif::ProgressStyle::with_template(&format!("{{bar:30}} {{pos}}/{{len}} {what}")) {
                bar.set_style(style);
            }
            bar
        };
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(old) = slot.replace(bar) {
                old.finish_and_clear();
            }
        }
    }

    fn advance(&self, steps: u64) {
        if let Ok(slot) = self.bar.lock() {
            if let Some(bar) = slot.as_ref() {
                bar.inc(steps);
            }
        }
    }

    fn finish(&self) {
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(bar) = slot.take() {
                bar.finish_and_clear();
            }
        }
    }
}
