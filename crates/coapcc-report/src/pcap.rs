//! Captures of simulated traffic (`coapcc sim --pcap`): replication 0 of each algorithm as
//! pcap files (see [`coapcc_sim::capture_network`] for what is captured and the node addresses).

use std::io::BufWriter;
use std::path::{Path, PathBuf};

use coapcc_driver::PcapWriter;
use coapcc_driver::scenario::{Model, Scenario};
use coapcc_sim::capture_network;

use crate::error::{ReportError, network_run};

/// An algorithm or variant name as a file name: every character but letters, digits and
/// `._-` becomes `_`.
pub fn file_stem(algorithm: &str) -> String {
    algorithm.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect()
}

/// The file of `algorithm`'s capture under `dir`: `dir/pcap/<algorithm>.pcap`.
pub fn pcap_path(dir: &Path, algorithm: &str) -> PathBuf {
    dir.join("pcap").join(format!("{}.pcap", file_stem(algorithm)))
}

/// Runs replication 0 of every algorithm of `s` again, capturing, and writes one pcap per
/// algorithm under `dir/pcap/`; timestamps are simulated time since the run's start. Trace
/// scenarios have no packets: nothing is written. Returns the files written.
pub fn write_captures(s: &Scenario, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let Model::Network { network, workload } = &s.model else { return Ok(Vec::new()) };
    let mut written = Vec::new();
    for (name, config) in &s.algorithms {
        let (_, captured) =
            capture_network(network, *workload, &s.file.coap, config, s.file.seed, 0).map_err(network_run(name, 0))?;
        let path = pcap_path(dir, name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut w = PcapWriter::new(BufWriter::new(std::fs::File::create(&path)?))?;
        for c in &captured {
            let bytes = coapcc_proto::codec::encode(&c.msg);
            w.write_udp(c.at.since_epoch(), c.from.socket_addr(), c.to.socket_addr(), &bytes)?;
        }
        w.into_inner()?;
        written.push(path);
    }
    Ok(written)
}
