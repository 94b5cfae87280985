//! `coapcc emulate`: the link emulator of `coapcc_udp::emulator` on the command line.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::ValueEnum;
use coapcc_core::{Duration, Ratio};
use coapcc_driver::link::presets::{LinkErrors, NbiotConfig};
use coapcc_driver::scenario::{NetworkConfig, Setting, network_with};
use coapcc_udp::emulator::{self, EmulatorConfig};

use crate::error::CliError;

/// The link presets of scenario files (`[network.*]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Profile {
    /// `[network.nbiot]`, testbeds §1: 60/30 kbit/s, 200/400 ms, rest of path U[10, 20] ms;
    /// defaults here `buffer_bytes = 2500`, `errors = "none"`.
    NbIot,
    /// `[network.residual]`, testbeds §2: token bucket ResBW ~ U(a, b) packets/s, RTT
    /// N(500, 10) ms; defaults here `min_rate_pps = 0.9`, `max_rate_pps = 1.1`.
    Residual,
    /// `[network.custom]` with empty pipelines: a plain relay (set `network.custom.uplink.stages`…).
    None,
}

impl Profile {
    /// The profile's link before any `--set`.
    pub fn network(self) -> NetworkConfig {
        match self {
            Profile::NbIot => NetworkConfig::Nbiot(NbiotConfig::testbed(2_500, LinkErrors::None)),
            Profile::Residual => NetworkConfig::Residual {
                min_rate_pps: Ratio::new(9, 10),
                max_rate_pps: Ratio::new(11, 10),
                depth_packets: 1,
            },
            Profile::None => NetworkConfig::Custom { uplink: Default::default(), downlink: Default::default() },
        }
    }
}

/// Arguments of `coapcc emulate`.
#[derive(Clone, Debug, clap::Args)]
pub struct EmulateArgs {
    /// Address clients send to, e.g. `127.0.0.1:5684`.
    #[arg(long)]
    pub listen: SocketAddr,
    /// Server to relay to, e.g. `127.0.0.1:5683`.
    #[arg(long)]
    pub to: SocketAddr,
    /// Link preset (a scenario file's `[network.*]` table).
    #[arg(long, value_enum, default_value = "nb-iot")]
    pub profile: Profile,
    /// Override a link key (repeatable), as in the scenario files' link tables:
    /// `--set buffer_bytes=14100 --set errors=medium`, `--set downlink_kbps=12.5`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<Setting>,
    /// Write both sides (what the emulator received and what it sent) to this pcap file, each
    /// packet flushed as it happens (Wireshark can follow it live); `-`: standard output (the
    /// counters then go to standard error), e.g. `--pcap - | wireshark -k -i -`.
    #[arg(long)]
    pub pcap: Option<PathBuf>,
    /// Stop after this many seconds (and print the counters); runs until Ctrl-C or SIGTERM
    /// when absent.
    #[arg(long)]
    pub duration_s: Option<f64>,
    /// Seed of the link's random draws (default: from the OS, printed at start).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Microseconds before a departure at which the relay stops sleeping and polls the clock
    /// (0: timer only, about 1 ms late, less CPU).
    #[arg(long, default_value_t = 2_000)]
    pub spin_us: u64,
    /// Header bytes counted with every datagram against rates and buffers (IPv4 + UDP).
    #[arg(long, default_value_t = emulator::DEFAULT_HEADER_BYTES)]
    pub header_bytes: u32,
}

/// The emulator configuration of `args` (errors name the key; exit code 2).
pub fn config(args: &EmulateArgs) -> Result<EmulatorConfig, CliError> {
    let network = network_with(&args.profile.network(), &args.set, "emulate --set")
        .map_err(|e| CliError::usage(e.to_string()))?;
    let mut c = EmulatorConfig::new(args.listen, args.to, network);
    c.seed = args.seed.unwrap_or_else(coapcc_udp::clock::os_seed);
    c.spin = Duration::from_micros(args.spin_us);
    c.header_bytes = args.header_bytes;
    c.pcap.clone_from(&args.pcap);
    Ok(c)
}

/// Runs `coapcc emulate` until Ctrl-C or SIGTERM; the final report goes to `out`. A relay to
/// its own listening address and a pcap file that cannot be created are refused before it
/// listens (exit code 2).
pub fn run(args: &EmulateArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let c = config(args)?;
    let duration = args.duration_s.map(|d| super::client::seconds("duration-s", d)).transpose()?;
    let (to, seed, profile) = (c.to, c.seed, args.profile);
    let report = emulator::run_until_interrupted(c, duration, |addr| {
        eprintln!(
            "emulate: listening on {addr}, relaying to {to}, profile {}, seed {seed}; {}Ctrl-C or SIGTERM stops, SIGUSR1 prints the counters",
            profile.to_possible_value().map_or_else(String::new, |v| v.get_name().to_string()),
            args.duration_s.map(|d| format!("stops after {d} s; ")).unwrap_or_default()
        );
    })?;
    if args.pcap.as_ref().is_some_and(|p| p.as_os_str() == "-") {
        // Standard output carries the capture.
        eprintln!("{report}");
    } else {
        writeln!(out, "{report}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(set: &[&str]) -> EmulateArgs {
        EmulateArgs {
            listen: "127.0.0.1:0".parse().unwrap(),
            to: "127.0.0.1:5683".parse().unwrap(),
            profile: Profile::NbIot,
            set: set.iter().map(|s| s.parse().unwrap()).collect(),
            pcap: None,
            duration_s: None,
            seed: Some(1),
            spin_us: 0,
            header_bytes: 28,
        }
    }

    #[test]
    fn a_link_key_changes_the_link() {
        let c = config(&args(&["buffer_bytes=14100", "errors=medium"])).unwrap();
        let NetworkConfig::Nbiot(n) = c.network else { panic!("not nb-iot") };
        assert_eq!((n.buffer_bytes, n.errors), (14_100, LinkErrors::Medium));
    }

    #[test]
    fn an_unknown_key_is_a_usage_error_naming_it() {
        let e = config(&args(&["bufer_bytes=1"])).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("bufer_bytes"), "{e}");
        let e = config(&args(&["flows=3"])).unwrap_err();
        assert!(e.to_string().contains("flows"), "{e}");
        let e = config(&args(&["errors=lots"])).unwrap_err();
        assert!(e.to_string().contains("errors"), "{e}");
    }
}
