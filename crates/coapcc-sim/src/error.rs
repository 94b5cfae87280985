//! What running the simulator can fail with, as types a caller can tell apart: a scenario
//! that does not check ([`ScenarioError`]), a scenario the memory budget refuses
//! ([`BudgetError`]), job outputs that do not fit their scenario ([`JobError`]) or are not
//! job outputs at all ([`WireError`]), a run that failed ([`RunError`], inside
//! [`SimError::Run`]) and a run stopped by its caller ([`SimError::Interrupted`]). Every
//! error's text is one line naming the scenario, the key or the job at fault; the command-line
//! tool prints it and exits with 2 for bad input ([`SimError::is_bad_input`]), 1 otherwise.

use coapcc_core::{AnyConfig, ConfigError};
use coapcc_driver::scenario::ScenarioError;

use crate::engine::EngineError;

/// An error of the simulator.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimError {
    /// A scenario that does not check (names the file and the key).
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// A scenario the memory budget refuses before anything is allocated for it.
    #[error(transparent)]
    Budget(#[from] BudgetError),
    /// Job outputs that do not fit their scenario.
    #[error(transparent)]
    Job(#[from] JobError),
    /// Bytes that are not one job's output of this version.
    #[error(transparent)]
    Wire(#[from] WireError),
    /// A run that failed.
    #[error("{algorithm}, replication {replication}: {source}")]
    Run {
        /// The algorithm (or variant) name.
        algorithm: String,
        /// The replication.
        replication: u32,
        /// Why it failed.
        source: RunError,
    },
    /// The caller stopped the run (a Python caller's Ctrl-C) before every job had run.
    #[error("interrupted")]
    Interrupted,
}

impl SimError {
    /// Whether the caller's input is at fault (a scenario, the budget's refusal, job outputs
    /// or bytes that do not fit), rather than a run (exit code 2 of the command-line tool,
    /// against 1).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, SimError::Scenario(_) | SimError::Budget(_) | SimError::Job(_) | SimError::Wire(_))
    }
}

/// Why one run (an algorithm's replication) failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RunError {
    /// The network model could not set the run up.
    #[error(transparent)]
    Network(#[from] EngineError),
    /// The RTT-trace model has nothing to feed.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The multihop engine refused the configuration (a key of `[multihop]`).
    #[error("key `multihop.{}`: {}", .0.key, .0.problem)]
    Multihop(ConfigError),
    /// The TCP model refused a link of the network (a key of `[network]`).
    #[error("key `network.{}`: {}", .0.key, .0.problem)]
    Tcp(ConfigError),
}

/// Why the RTT-trace model cannot run an algorithm.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TraceError {
    /// The algorithm's configuration does not build.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The algorithm has no RTO estimator (a rate-based or fixed-timer algorithm).
    #[error(
        "the RTT-trace model has no RTO estimator for this algorithm ({config:?}); use idc, mbc, pcocoa, cocoa*, fasor* or default*"
    )]
    NoEstimator {
        /// The algorithm's configuration.
        config: Box<AnyConfig>,
    },
}

/// Job outputs that do not fit their scenario (a distributed run gathers them).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JobError {
    /// An algorithm number beyond the scenario's list.
    #[error("{scenario}: no algorithm number {algorithm} (the scenario has {count})")]
    NoAlgorithm {
        /// The scenario's name.
        scenario: String,
        /// The algorithm number asked for.
        algorithm: usize,
        /// How many algorithms the scenario has.
        count: usize,
    },
    /// A replication beyond the scenario's.
    #[error("{scenario}: no replication {replication} (the scenario has {count})")]
    NoReplication {
        /// The scenario's name.
        scenario: String,
        /// The replication asked for.
        replication: u32,
        /// How many replications the scenario has.
        count: u32,
    },
    /// An output for a job the scenario does not have.
    #[error("{scenario}: no job (algorithm {algorithm}, replication {replication})")]
    Outside {
        /// The scenario's name.
        scenario: String,
        /// The algorithm number.
        algorithm: usize,
        /// The replication.
        replication: u32,
    },
    /// Two outputs for one job.
    #[error("{scenario}: job (algorithm {algorithm}, replication {replication}) given twice")]
    Twice {
        /// The scenario's name.
        scenario: String,
        /// The algorithm number.
        algorithm: usize,
        /// The replication.
        replication: u32,
    },
    /// No output for a job.
    #[error("{scenario}: {algorithm}, replication {replication}: missing")]
    Missing {
        /// The scenario's name.
        scenario: String,
        /// The algorithm's name.
        algorithm: String,
        /// The replication.
        replication: u32,
    },
}

/// Bytes that are not one job's output of this version of coapcc.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The bytes do not start with this version's tag.
    #[error("not a job output of this coapcc version")]
    Version,
    /// The tag is right but what follows does not decode (truncated or corrupted).
    #[error("a malformed job output: {0}")]
    Malformed(String),
}

/// A scenario the memory budget refuses: its estimate and the memory available.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{scenario}: needs an estimated {} of memory ({needs_bytes} bytes) but {} is available; reduce {keys}, \
     `replications` or the algorithms (or `--jobs`)",
    human_bytes(*.needs_bytes),
    human_bytes(*.available_bytes)
)]
pub struct BudgetError {
    /// The scenario's name.
    pub scenario: String,
    /// The estimated peak memory, bytes.
    pub needs_bytes: u64,
    /// The memory available, bytes.
    pub available_bytes: u64,
    /// The keys that size the scenario (`` `flows`, `exchanges_per_flow` ``).
    pub keys: &'static str,
}

/// `b` bytes in binary units with one decimal (`8.0 GiB`).
pub(crate) fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    format!("{x:.1} {}", UNITS[u])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_and_failed_runs_are_told_apart() {
        let scenario = SimError::Scenario(ScenarioError {
            file: "t.toml".into(),
            line: None,
            key: Some("flows".into()),
            problem: "must be at least 1".into(),
        });
        assert!(scenario.is_bad_input());
        let budget =
            BudgetError { scenario: "t".into(), needs_bytes: 1 << 40, available_bytes: 1 << 30, keys: "`flows`" };
        assert!(SimError::from(budget).is_bad_input());
        assert!(SimError::from(WireError::Version).is_bad_input());
        let run = SimError::Run {
            algorithm: "cocoa".into(),
            replication: 3,
            source: RunError::Multihop(ConfigError::new("topology.nodes", "a line has 2 to 1000 nodes")),
        };
        assert!(!run.is_bad_input() && !SimError::Interrupted.is_bad_input());
        assert_eq!(run.to_string(), "cocoa, replication 3: key `multihop.topology.nodes`: a line has 2 to 1000 nodes");
    }

    #[test]
    fn a_budget_refusal_states_the_estimate_and_the_memory_in_binary_units() {
        let e = BudgetError { scenario: "t".into(), needs_bytes: 3 << 40, available_bytes: 8 << 30, keys: "`samples`" };
        assert_eq!(
            e.to_string(),
            "t: needs an estimated 3.0 TiB of memory (3298534883328 bytes) but 8.0 GiB is available; reduce \
             `samples`, `replications` or the algorithms (or `--jobs`)"
        );
        assert_eq!(human_bytes(1023), "1023.0 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
    }
}
