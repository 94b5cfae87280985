//! Errors of the command-line tool and their exit codes: the libraries' typed errors become
//! one line of text and 2 (bad input) or 1 (a failed run).

use std::fmt;

use coapcc_driver::replay::ReplayError;
use coapcc_driver::scenario::AlgorithmSettingsError;
use coapcc_report::ReportError;
use coapcc_sim::bench::BenchError;
use coapcc_udp::bench::UdpBenchError;
use coapcc_udp::client::ClientError;
use coapcc_udp::emulator::EmulatorError;
use coapcc_udp::probe::ProbeError;

/// An error the tool reports on one line before exiting.
#[derive(Debug)]
pub enum CliError {
    /// Bad input from the user (unknown name, malformed script or value): exit code 2.
    Usage(String),
    /// Anything else (I/O failure, a failed run): exit code 1.
    Failure(String),
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
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

impl From<ReportError> for CliError {
    fn from(e: ReportError) -> Self {
        if e.is_bad_input() { CliError::Usage(e.to_string()) } else { CliError::Failure(e.to_string()) }
    }
}

impl From<ReplayError> for CliError {
    fn from(e: ReplayError) -> Self {
        match e {
            ReplayError::Line { .. } => CliError::Usage(e.to_string()),
            ReplayError::Io(e) => e.into(),
        }
    }
}

impl From<AlgorithmSettingsError> for CliError {
    fn from(e: AlgorithmSettingsError) -> Self {
        CliError::Usage(e.to_string())
    }
}

impl From<BenchError> for CliError {
    fn from(e: BenchError) -> Self {
        if e.is_bad_input() { CliError::Usage(e.to_string()) } else { CliError::Failure(e.to_string()) }
    }
}

impl From<ClientError> for CliError {
    fn from(e: ClientError) -> Self {
        if e.is_bad_input() { CliError::Usage(e.to_string()) } else { CliError::Failure(e.to_string()) }
    }
}

impl From<EmulatorError> for CliError {
    fn from(e: EmulatorError) -> Self {
        match e {
            EmulatorError::Link { .. } | EmulatorError::RelayToItself { .. } | EmulatorError::Pcap { .. } => {
                CliError::Usage(e.to_string())
            }
            EmulatorError::Io(e) => e.into(),
        }
    }
}

/// A measurement that could not be made is a failed run (exit code 1).
impl From<UdpBenchError> for CliError {
    fn from(e: UdpBenchError) -> Self {
        CliError::Failure(e.to_string())
    }
}

impl From<ProbeError> for CliError {
    fn from(e: ProbeError) -> Self {
        match e {
            ProbeError::BadCommand(_) | ProbeError::BadUri(_) | ProbeError::Spawn { .. } => {
                CliError::Usage(e.to_string())
            }
            ProbeError::Socket(_) | ProbeError::NoAnswer(..) | ProbeError::NoDatagram { .. } => {
                CliError::Failure(e.to_string())
            }
        }
    }
}
