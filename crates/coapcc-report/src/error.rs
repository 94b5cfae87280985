//! [`ReportError`]: what went wrong, split into bad input (the caller can fix it: an unknown
//! experiment, a scenario or override that does not check, a scenario the memory budget
//! refuses) and a failed run (I/O, a simulation or testbed run that failed or was
//! interrupted). The command-line tool turns the first into exit code 2, the second into 1.

use std::path::PathBuf;

use coapcc_driver::scenario::ScenarioError;
use coapcc_sim::EngineError;
use coapcc_sim::{BudgetError, RunError, SimError};

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
    /// A scenario (file, sweep point or case) that does not load or check, or that the command
    /// does not run; the text names the file and the key.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// A scenario the memory budget refuses before anything is allocated for it.
    #[error(transparent)]
    Budget(#[from] BudgetError),
    /// A description of an experiment or its published data that does not load or check; the
    /// text names the file and the item (claim, figure, investigation).
    #[error("{0}")]
    Description(String),
    /// An option or override out of its range (`--jobs 0`, `--replications 0`, a malformed
    /// `--set`, a scenarios folder that cannot be read), or a combination the command does not
    /// take.
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
    /// A simulation that failed or was interrupted (the simulator says which job and why).
    #[error(transparent)]
    Run(SimError),
    /// A replication on the real-time testbed that failed.
    #[error("{algorithm}, replication {replication}: {problem}")]
    Testbed {
        /// The algorithm (or variant) name.
        algorithm: String,
        /// The replication.
        replication: u32,
        /// What the testbed said.
        problem: String,
    },
    /// The reference simulator of a cross-check (ns-3's program) that is missing, failed or
    /// answered something unreadable (the text names the program and the case).
    #[error("{0}")]
    Reference(String),
    /// The worker threads could not be started.
    #[error(transparent)]
    Threads(#[from] rayon::ThreadPoolBuildError),
    /// A table that could not be written as TOML.
    #[error(transparent)]
    Toml(#[from] toml::ser::Error),
}

impl From<SimError> for ReportError {
    /// A scenario or budget error stays one (bad input); anything else is a failed run.
    fn from(e: SimError) -> Self {
        match e {
            SimError::Scenario(e) => ReportError::Scenario(e),
            SimError::Budget(e) => ReportError::Budget(e),
            e => ReportError::Run(e),
        }
    }
}

impl ReportError {
    /// Whether the caller's input is at fault (exit code 2 of the command-line tool), rather
    /// than the run (exit code 1).
    pub fn is_bad_input(&self) -> bool {
        match self {
            ReportError::UnknownExperiment { .. }
            | ReportError::Scenario(_)
            | ReportError::Budget(_)
            | ReportError::Description(_)
            | ReportError::Options(_) => true,
            ReportError::Run(e) => e.is_bad_input(),
            ReportError::File { .. }
            | ReportError::Io(_)
            | ReportError::Testbed { .. }
            | ReportError::Reference(_)
            | ReportError::Threads(_)
            | ReportError::Toml(_) => false,
        }
    }
}

/// A network run (replication `replication` of `algorithm`) that the engine refused.
pub(crate) fn network_run(algorithm: &str, replication: u32) -> impl FnOnce(EngineError) -> ReportError {
    move |e| {
        ReportError::Run(SimError::Run { algorithm: algorithm.to_string(), replication, source: RunError::Network(e) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_and_failed_runs_are_told_apart() {
        assert!(ReportError::Options("--jobs must be at least 1".into()).is_bad_input());
        let scenario = ScenarioError {
            file: "x.toml".into(),
            line: None,
            key: Some("flows".into()),
            problem: "must be at least 1".into(),
        };
        let e = ReportError::from(SimError::from(scenario));
        assert!(matches!(e, ReportError::Scenario(_)) && e.is_bad_input());
        assert_eq!(e.to_string(), "x.toml: key `flows`: must be at least 1");
        let budget = BudgetError { scenario: "x".into(), needs_bytes: 2, available_bytes: 1, keys: "`flows`" };
        assert!(matches!(ReportError::from(SimError::from(budget)), ReportError::Budget(_)));
        assert!(!ReportError::from(SimError::Interrupted).is_bad_input());
        assert!(!ReportError::Io(std::io::Error::other("disk full")).is_bad_input());
    }

    #[test]
    fn a_file_error_names_the_step_and_the_file() {
        let e =
            ReportError::File { action: "write", path: "out/a.csv".into(), source: std::io::Error::other("disk full") };
        assert_eq!(e.to_string(), "cannot write `out/a.csv`: disk full");
    }
}
