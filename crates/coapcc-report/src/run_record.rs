//! `run.json`: what made an output folder — the coapcc version and git commit it was built
//! from, the date, the command line (or Python call), the seed and the host's cores — so that
//! any result can be traced to the run and the build that wrote it. Every output folder gets
//! it through [`write_run_json`]; the report's header shows it ([`RunRecord::header_md`]).

use std::path::Path;

use serde::Serialize;

use crate::error::ReportError;
use crate::files::write_atomic;

/// The commit the library was built from (the build script's `git rev-parse HEAD`), if it was
/// built in a git checkout.
const GIT_COMMIT: &str = env!("COAPCC_GIT_COMMIT");

/// What `run.json` records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunRecord {
    /// The coapcc version (the workspace's).
    pub coapcc_version: String,
    /// The git commit coapcc was built from, when it was built in a checkout.
    pub git_commit: Option<String>,
    /// When the run started, UTC, RFC 3339 to the second (`2026-11-25T07:19:28Z`).
    pub date_utc: String,
    /// The full command line (`coapcc sim fasor/… --out r`) or the Python call.
    pub command: String,
    /// The seed of the run: the scenario's (after `--seed`); `None` when the folder holds
    /// runs of several scenarios, each with its own (their `scenario.toml` files say it).
    pub seed: Option<u64>,
    /// Cores of the host (available parallelism).
    pub host_cores: usize,
}

impl RunRecord {
    /// The record of a run started now by `command`: this build's version and commit, today's
    /// date, this host's cores; no seed yet ([`RunRecord::with_seed`]).
    pub fn now(command: impl Into<String>) -> Self {
        #[allow(clippy::disallowed_methods, reason = "the date recorded in run.json; no result depends on it")]
        let now = std::time::SystemTime::now();
        let secs = now.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        RunRecord {
            coapcc_version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: (!GIT_COMMIT.is_empty()).then(|| GIT_COMMIT.to_string()),
            date_utc: rfc3339_utc(secs),
            command: command.into(),
            seed: None,
            host_cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// The same record with `seed`.
    pub fn with_seed(&self, seed: u64) -> Self {
        RunRecord { seed: Some(seed), ..self.clone() }
    }

    /// The record as the lines of a Markdown header (one bullet per field).
    pub fn header_md(&self) -> String {
        let mut s = format!("- coapcc {}", self.coapcc_version);
        if let Some(c) = &self.git_commit {
            s.push_str(&format!(", commit {c}"));
        }
        s.push_str(&format!("\n- date: {}\n- command: `{}`\n", self.date_utc, self.command));
        if let Some(seed) = self.seed {
            s.push_str(&format!("- seed: {seed}\n"));
        }
        s.push_str(&format!("- host cores: {}\n", self.host_cores));
        s
    }
}

/// `secs` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
fn rfc3339_utc(secs: u64) -> String {
    chrono::DateTime::from_timestamp(i64::try_from(secs).unwrap_or(i64::MAX), 0)
        .map_or_else(|| "?".into(), |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// The command line of this process, each argument quoted for a POSIX shell when it needs it
/// (`coapcc sim 'a b.toml' --out r`); the program as `coapcc`.
pub fn command_line() -> String {
    let quote = |a: String| {
        if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=,:@+%".contains(c)) {
            a
        } else {
            format!("'{}'", a.replace('\'', "'\\''"))
        }
    };
    std::iter::once("coapcc".to_string()).chain(std::env::args().skip(1).map(quote)).collect::<Vec<_>>().join(" ")
}

/// Writes `record` as `dir/run.json` (pretty JSON, atomically).
pub fn write_run_json(dir: &Path, record: &RunRecord) -> Result<(), ReportError> {
    let text = serde_json::to_string_pretty(record).map_err(|e| ReportError::Options(e.to_string()))? + "\n";
    write_atomic(&dir.join("run.json"), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc3339_utc_to_the_second() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        // 2000-03-01 is 11 017 days after the epoch (30 years, 7 of them leap, plus Jan+Feb 2000).
        assert_eq!(rfc3339_utc((30 * 365 + 7 + 31 + 29) * 86_400 + 3_661), "2000-03-01T01:01:01Z");
    }

    #[test]
    fn run_json_holds_every_field_and_is_written_whole() {
        let dir = std::env::temp_dir().join(format!("coapcc-run-json-{}", std::process::id()));
        let r = RunRecord::now("coapcc sim x --out r").with_seed(7);
        write_run_json(&dir, &r).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
        for key in ["coapcc_version", "git_commit", "date_utc", "command", "seed", "host_cores"] {
            assert!(v.get(key).is_some(), "{key}: {v}");
        }
        assert_eq!(v["seed"], 7);
        assert_eq!(v["coapcc_version"], env!("CARGO_PKG_VERSION"));
        assert!(v["host_cores"].as_u64().unwrap() >= 1);
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["run.json"], "no temporary file is left");
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(r.header_md().contains("- seed: 7\n"));
    }
}
