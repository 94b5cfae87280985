//! Errors of the command-line tool and their exit codes.

use std::fmt;

/// An error the tool reports on one line before exiting.
#[derive(Debug)]
pub enum CliError {
    /// Bad input from the user (unknown name, malformed script or value): exit code 2.
    Usage(String),
    /// Anything else (I/O failure): exit code 1.
    Failure(String),
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Failure(_) => 1,
        }
    }

    /// A usage error.
    pub fn usage(msg: impl Into<String>) -> Self {
        CliError::Usage(msg.into())
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) | CliError::Failure(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for CliError {}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::Failure(e.to_string())
    }
}
