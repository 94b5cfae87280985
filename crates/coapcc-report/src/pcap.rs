//! Captures of simulated traffic (`coapcc sim --pcap`): replication 0 of each algorithm as
//! pcap files (see [`coapcc_sim::capture_network`] for what is captured and the node addresses).

use std::path::{Path, PathBuf};

use coapcc_driver::PcapWriter;
use coapcc_driver::scenario::{Model, Scenario};
use coapcc_sim::{Captured, Streams, run_network_with};

use crate::error::{ReportError, network_run};
use crate::files::AtomicFile;

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
///
/// Each datagram is written as the run sees it (none is kept in memory, whatever the run's
/// length), into a temporary file renamed into place when the run is done.
pub fn write_captures(s: &Scenario, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let Model::Network { network, workload } = &s.model else { return Ok(Vec::new()) };
    let mut written = Vec::new();
    for (name, config) in &s.algorithms {
        let path = pcap_path(dir, name);
        let file = AtomicFile::create(&path)?;
        let mut w =
            PcapWriter::new(file).map_err(|e| ReportError::File { action: "write", path: path.clone(), source: e })?;
        let mut failed = None;
        let mut write = |c: Captured| {
            if failed.is_none() {
                let bytes = coapcc_proto::codec::encode(&c.msg);
                failed = w.write_udp(c.at.since_epoch(), c.from.socket_addr(), c.to.socket_addr(), &bytes).err();
            }
        };
        // The capture run's own series is `coapcc sim`'s run's: dropped as it is made.
        let streams = Streams { series: Some(Box::new(|_| {})), capture: Some(&mut write) };
        run_network_with(network, *workload, &s.file.coap, config, s.file.seed, 0, streams)
            .map_err(network_run(name, 0))?;
        let write_failed = |e| ReportError::File { action: "write", path: path.clone(), source: e };
        if let Some(e) = failed {
            return Err(write_failed(e));
        }
        w.into_inner().map_err(write_failed)?.commit()?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use coapcc_driver::scenario::Catalogue;
    use coapcc_sim::capture_network;

    #[test]
    fn a_capture_written_as_the_run_goes_has_the_bytes_of_one_written_from_the_kept_datagrams() {
        let sets = ["algorithms=[\"idc\"]".parse(), "duration_ms=600000".parse()]
            .map(|s| s.unwrap_or_else(|e| panic!("{e:?}")));
        let s = Catalogue::BuiltIn
            .load(Path::new("makarem/residual-high-variability.toml"), &sets)
            .unwrap_or_else(|e| panic!("{e}"));
        let dir = std::env::temp_dir().join(format!("coapcc-pcap-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let files = write_captures(&s, &dir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(files, [pcap_path(&dir, "idc")]);
        let streamed = std::fs::read(&files[0]).unwrap_or_else(|e| panic!("{e}"));
        // The same run captured into memory, then written.
        let Model::Network { network, workload } = &s.model else { panic!("a network scenario") };
        let (_, captured) = capture_network(network, *workload, &s.file.coap, &s.algorithms[0].1, s.file.seed, 0)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut w = PcapWriter::new(Vec::new()).unwrap_or_else(|e| panic!("{e}"));
        for c in &captured {
            let bytes = coapcc_proto::codec::encode(&c.msg);
            w.write_udp(c.at.since_epoch(), c.from.socket_addr(), c.to.socket_addr(), &bytes)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        assert!(captured.len() > 100, "{} datagrams", captured.len());
        assert_eq!(streamed, w.into_inner().unwrap_or_else(|e| panic!("{e}")));
        let names: Vec<_> = std::fs::read_dir(dir.join("pcap"))
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "no temporary file left: {names:?}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
