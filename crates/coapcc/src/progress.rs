//! The worker pool and the progress bar shared by `coapcc sim` and `coapcc reproduce`.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::error::CliError;

/// A rayon pool with `jobs` threads (default: all cores). Results never depend on it.
pub fn thread_pool(jobs: Option<usize>) -> Result<rayon::ThreadPool, CliError> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(j) = jobs {
        if j == 0 {
            return Err(CliError::usage("--jobs must be at least 1"));
        }
        b = b.num_threads(j);
    }
    b.build().map_err(|e| CliError::Failure(e.to_string()))
}

/// A progress bar over `total` runs on standard error, with the time elapsed and an estimate
/// of the time left; hidden with `--quiet` or when standard error is not a terminal.
pub fn bar(total: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
    }
    let b = ProgressBar::new(total);
    b.set_style(
        ProgressStyle::with_template("{msg:32} [{bar:30}] {pos}/{len} runs, {elapsed} elapsed, ~{eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    b
}
