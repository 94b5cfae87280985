//! Finished pieces of a long run — a sweep point, a reproduced case — as bytes, so that an
//! interrupted sweep or reproduction continues where it stopped instead of running again what
//! it had finished.
//!
//! A piece is the outputs of every (algorithm, replication) job of one scenario, plus any
//! extra outputs the caller keeps with them (a traced replication), under a *key*: the SHA-256
//! of the coapcc version and the canonical TOML of the fully resolved scenario
//! ([`Scenario::to_toml`]: every default filled in, every setting applied). A piece is taken
//! only by a scenario with the same key, so a changed key, value, seed, replication count or
//! coapcc version runs again. The bytes are [`TAG`], the key, then the outputs in the
//! [`crate::wire`] format's serde encoding; anything else (a truncated or foreign file) is
//! no piece. The callers write a piece through a temporary file and a rename, after the
//! result files it stands for, so a piece on disk is always whole and its files are there.

use coapcc_driver::scenario::Scenario;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::runner::{AlgorithmRuns, RunOutput};

/// First bytes of every piece: the piece format and the job output format ([`crate::wire::TAG`]).
pub const TAG: &[u8; 14] = b"coapcc-piece1\0";

/// The file name a piece has in the folder of the results it stands for.
pub const FILE_NAME: &str = ".coapcc-piece";

/// The key of scenario `s`: hex SHA-256 of `coapcc VERSION`, the job output format and the
/// canonical TOML of the resolved scenario.
pub fn key(s: &Scenario) -> String {
    let mut h = Sha256::new();
    h.update(format!("coapcc {}\n", env!("CARGO_PKG_VERSION")).as_bytes());
    h.update(crate::wire::TAG);
    h.update(b"\n");
    h.update(s.to_toml().as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// A finished piece: the runs of every algorithm (in scenario order, replication 0 first) and
/// the caller's extra outputs, each under a name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Piece {
    /// One entry per algorithm: its name and its outputs, replication 0 first.
    pub runs: Vec<(String, Vec<RunOutput>)>,
    /// Extra outputs kept with the runs (a traced replication), by name.
    pub extra: Vec<(String, RunOutput)>,
}

impl Piece {
    /// The piece of `runs` with `extra`.
    pub fn new(runs: &[AlgorithmRuns], extra: Vec<(String, RunOutput)>) -> Piece {
        Piece { runs: runs.iter().map(|a| (a.algorithm.clone(), a.runs.clone())).collect(), extra }
    }

    /// The runs, as [`crate::run_scenario`] returns them.
    pub fn algorithm_runs(&self) -> Vec<AlgorithmRuns> {
        self.runs.iter().map(|(a, r)| AlgorithmRuns { algorithm: a.clone(), runs: r.clone() }).collect()
    }
}

/// The bytes of `piece` for scenario `s`.
pub fn encode(s: &Scenario, piece: &Piece) -> Vec<u8> {
    let mut out = TAG.to_vec();
    out.extend_from_slice(key(s).as_bytes());
    // Serialising into memory cannot fail for these types (see `crate::wire::encode`).
    postcard::to_extend(piece, out).unwrap_or_default()
}

/// The piece in `bytes` if it is whole and was written for scenario `s` (same key); else None.
pub fn decode(s: &Scenario, bytes: &[u8]) -> Option<Piece> {
    let rest = bytes.strip_prefix(TAG.as_slice())?;
    let rest = rest.strip_prefix(key(s).as_bytes())?;
    match postcard::take_from_bytes::<Piece>(rest) {
        Ok((piece, [])) => Some(piece),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run_scenario, runner::run_job};
    use coapcc_driver::scenario::{Setting, Value, parse};

    const SMALL: &str = r#"
name = "store-test"
description = ""
source = ""
seed = 3
replications = 2
algorithms = ["cocoa"]
[network.nbiot]
buffer_bytes = 2500
errors = "high"
[workload]
flows = 2
flow_type = "random"
exchanges_per_flow = 3
"#;

    fn scenario(settings: &[Setting]) -> Scenario {
        parse(SMALL, "store-test", settings).unwrap()
    }

    #[test]
    fn a_piece_comes_back_whole_for_its_scenario() {
        let s = scenario(&[]);
        let runs = run_scenario(&s, &|| ()).unwrap();
        let extra = vec![("again".to_string(), run_job(&s, 0, 1).unwrap())];
        let piece = Piece::new(&runs, extra);
        let back = decode(&s, &encode(&s, &piece)).unwrap();
        assert_eq!(back, piece);
        assert_eq!(back.algorithm_runs(), runs);
    }

    #[test]
    fn a_piece_is_not_taken_by_another_scenario_nor_when_truncated() {
        let s = scenario(&[]);
        let bytes = encode(&s, &Piece::new(&run_scenario(&s, &|| ()).unwrap(), Vec::new()));
        let other = scenario(&[Setting { key: "seed".parse().unwrap(), value: Value::parse("4") }]);
        assert_ne!(key(&s), key(&other));
        assert!(decode(&other, &bytes).is_none());
        for cut in [0, TAG.len(), TAG.len() + 64, bytes.len() - 1] {
            assert!(decode(&s, &bytes[..cut]).is_none(), "cut at {cut}");
        }
    }

    #[test]
    fn the_key_is_the_sha256_of_the_version_the_wire_format_and_the_resolved_toml() {
        let s = scenario(&[]);
        let text = format!("coapcc {}\ncoapcc3\0\n{}", env!("CARGO_PKG_VERSION"), s.to_toml());
        // SHA-256 computed independently (the FIPS 180-4 test vector checks the crate below).
        let expected: String = Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(key(&s), expected);
        let abc: String = Sha256::digest(b"abc").iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(abc, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
