//! [`ReportError`]: what went wrong, split into bad input (the caller can fix it: an unknown
//! experiment, a scenario or override that does not check) and a failed run (I/O, a run that
//! failed). The command-line tool turns the first into exit code 2, the second into 1.

use std::path::PathBuf;

/// An error of this crate. Its text is one line, naming the file, key or experiment at fault.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// An experiment id that is not one of the experiments.
    #[error("unknown experiment `{name}`; valid: {valid}, all (see --list)")]
    UnknownExperiment {
        /// The id asked for.
        name: String,
        /// The valid ids, comma-separated.
        valid: String,
    },
    /// A scenario (file, sweep point or case) that does not load or check; the text names the
    /// file and the key.
    #[error("{0}")]
    Scenario(String),
    /// A description of an experiment or its published data that does not load or check; the
    /// text names the file and the item (claim, figure, investigation).
    #[error("{0}")]
    Description(String),
    /// An option or override out of its range (`--jobs 0`, `--replications 0`, a malformed
    /// `--set`), or a combination the command does not take.
    #[error("{0}")]
    Options(String),
    /// A file that could not be written (the text names it and the step that failed).
    #[error("cannot {action} `{}`: {source}", path.display())]
    File {
        /// What was being done (`write`, `create the folder of`, …).
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Any other I/O failure (reading a folder, writing the printed table).
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A run that failed (the simulator or the testbed said why).
    #[error("{0}")]
    Run(String),
}

impl ReportError {
    /// Whether the caller's input is at fault (exit code 2 of the command-line tool), rather
    /// than the run (exit code 1).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            ReportError::UnknownExperiment { .. }
                | ReportError::Scenario(_)
                | ReportError::Description(_)
                | ReportError::Options(_)
        )
    }
}

/// `Result` with a [`ReportError`].
pub type Result<T, E = ReportError> = std::result::Result<T, E>;

/// A scenario error as text (the driver's errors are text or `Display`).
pub(crate) fn scenario(e: impl ToString) -> ReportError {
    ReportError::Scenario(e.to_string())
}

/// A failed run.
pub(crate) fn run(e: impl ToString) -> ReportError {
    ReportError::Run(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_and_failed_runs_are_told_apart() {
        assert!(ReportError::Options("--jobs must be at least 1".into()).is_bad_input());
        assert!(scenario("x.toml: key `flows`: must be at least 1").is_bad_input());
        assert!(!run("out of memory").is_bad_input());
        assert!(!ReportError::Io(std::io::Error::other("disk full")).is_bad_input());
    }

    #[test]
    fn a_file_error_names_the_step_and_the_file() {
        let e =
            ReportError::File { action: "write", path: "out/a.csv".into(), source: std::io::Error::other("disk full") };
        assert_eq!(e.to_string(), "cannot write `out/a.csv`: disk full");
    }
}
