//! The progress bar of `sim` and `reproduce` (indicatif, on standard error), and their notices:
//! a [`coapcc_report::Progress`].

use std::io::IsTerminal;
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar over the runs of a stage with the time elapsed and an estimate of the time
/// left; hidden with `--quiet` or when standard error is not a terminal. Notices go to
/// standard error unless quiet.
pub struct Bar {
    quiet: bool,
    bar: Mutex<ProgressBar>,
}

impl Bar {
    /// A bar, drawn unless `quiet`.
    pub fn new(quiet: bool) -> Bar {
        Bar { quiet, bar: Mutex::new(ProgressBar::hidden()) }
    }

    fn bar(&self) -> ProgressBar {
        self.bar.lock().map_or_else(|e| e.into_inner().clone(), |b| b.clone())
    }
}

impl coapcc_report::Progress for Bar {
    fn begin(&self, total: u64) {
        let b = if self.quiet || !std::io::stderr().is_terminal() {
            ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden())
        } else {
            let b = ProgressBar::new(total);
            b.set_style(
                ProgressStyle::with_template("{msg:32} [{bar:30}] {pos}/{len} runs, {elapsed} elapsed, ~{eta} left")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            b
        };
        if let Ok(mut slot) = self.bar.lock() {
            *slot = b;
        }
    }

    fn working_on(&self, label: &str) {
        self.bar().set_message(label.to_string());
    }

    fn finished_one(&self) {
        self.bar().inc(1);
    }

    fn end(&self) {
        self.bar().finish_and_clear();
    }

    fn note(&self, line: &str) {
        if !self.quiet {
            eprintln!("{line}");
        }
    }
}
