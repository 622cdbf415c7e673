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

/// One bar per campaign task on stderr when it is a terminal (indicatif `MultiProgress`),
/// nothing when piped.
pub(crate) struct CampaignBars {
    multi: Option<indicatif::MultiProgress>,
}

impl CampaignBars {
    /// Bars on a terminal, else none.
    pub(crate) fn new() -> Self {
        CampaignBars { multi: std::io::stderr().is_terminal().then(indicatif::MultiProgress::new) }
    }
}

impl kgeval::campaign::CampaignProgress for CampaignBars {
    fn task(&self, name: &str) -> Box<dyn Progress + '_> {
        let Some(multi) = &self.multi else { return Box::new(kgeval::NoProgress) };
        let bar = multi.add(indicatif::ProgressBar::new(0));
        if let Ok(style) = indicatif::ProgressStyle::with_template("{prefix:24} {bar:30} {pos}/{len} {msg}") {
            bar.set_style(style);
        }
        bar.set_prefix(name.to_owned());
        bar.set_message("starting");
        Box::new(TaskBar { bar })
    }
}

/// A campaign task's bar: each stage resets it; done when dropped.
struct TaskBar {
    bar: indicatif::ProgressBar,
}

impl Progress for TaskBar {
    fn start(&self, what: &str, total: u64) {
        self.bar.set_length(total);
        self.bar.set_position(0);
        self.bar.set_message(what.to_owned());
    }

    fn advance(&self, steps: u64) {
        self.bar.inc(steps);
    }

    fn finish(&self) {}
}

impl Drop for TaskBar {
    fn drop(&mut self) {
        self.bar.finish_with_message("done");
    }
}
