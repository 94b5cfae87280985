//! `coapcc emulate`: a bad link key is refused with one line naming it and exit code 2;
//! `--duration-s` stops it, its pcap is flushed packet by packet (also to standard output with
//! `--pcap -`), and its byte columns all count the same bytes.

use std::process::Command;

#[test]
fn an_unknown_link_key_is_named_and_exits_with_code_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_coapcc"))
        .args(["emulate", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--set", "bufer_bytes=1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("bufer_bytes"), "{err}");
}

#[test]
fn a_bad_link_value_is_named_and_exits_with_code_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_coapcc"))
        .args(["emulate", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--set", "errors=lots"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("errors"), "{err}");
}

/// An emulator process (`--profile none`, a plain relay) to `to`, with `extra` arguments;
/// killed by its PID when dropped. Returns it with its listening address, read from the
/// first line of its standard error.
struct Emulator {
    child: std::process::Child,
    listen: std::net::SocketAddr,
    stderr: std::io::BufReader<std::process::ChildStderr>,
}

impl Emulator {
    fn start(to: std::net::SocketAddr, extra: &[&str]) -> Emulator {
        use std::io::BufRead;
        let to = to.to_string();
        let mut child = Command::new(env!("CARGO_BIN_EXE_coapcc"))
            .args(["emulate", "--listen", "127.0.0.1:0", "--to", &to, "--profile", "none", "--seed", "1"])
            .args(extra)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        // "emulate: listening on 127.0.0.1:PORT, relaying to …"
        let listen = line.split_whitespace().nth(3).and_then(|a| a.trim_end_matches(',').parse().ok());
        Emulator { child, listen: listen.unwrap_or_else(|| panic!("no address in {line:?}")), stderr }
    }

    /// Waits (at most 20 s) for the process to end by itself; its exit code, stdout, stderr.
    fn finish(mut self) -> (Option<i32>, Vec<u8>, String) {
        use std::io::Read;
        // 20 s at most, counted in polls (the OS clock is coapcc-udp's alone).
        for _ in 0..1000 {
            if self.child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(self.child.try_wait().unwrap().is_some(), "the emulator did not stop at its --duration-s");
        let mut out = Vec::new();
        self.child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
        let mut err = String::new();
        self.stderr.read_to_string(&mut err).unwrap();
        (self.child.wait().unwrap().code(), out, err)
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A UDP peer that sends every datagram back, on a thread that ends with the test process.
fn echo_peer() -> std::net::SocketAddr {
    let peer = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = peer.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut buf = [0u8; 2048];
        while let Ok((n, from)) = peer.recv_from(&mut buf) {
            let _ = peer.send_to(&buf[..n], from);
        }
    });
    addr
}

/// The row of `direction` in the counters, by column name.
fn column(report: &str, direction: &str, name: &str) -> u64 {
    let header: Vec<&str> = report.lines().find(|l| l.starts_with("direction")).unwrap().split_whitespace().collect();
    let row: Vec<&str> = report.lines().find(|l| l.starts_with(direction)).unwrap().split_whitespace().collect();
    row[header.iter().position(|h| *h == name).unwrap()].parse().unwrap()
}

#[test]
fn the_pcap_grows_packet_by_packet_while_the_emulator_runs_and_it_stops_at_its_duration() {
    let pcap = std::env::temp_dir().join(format!("coapcc-emulate-live-{}.pcap", std::process::id()));
    let emu = Emulator::start(echo_peer(), &["--duration-s", "2", "--pcap", pcap.to_str().unwrap()]);
    let client = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    client.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
    client.send_to(b"0123456789", emu.listen).unwrap();
    let mut buf = [0u8; 64];
    let (n, _) = client.recv_from(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"0123456789");
    // Still running: four packets (in, out to the peer, back, out to the client), each a
    // 16-byte record header and an IPv4 (20) + UDP (8) packet of 10 payload bytes, after the
    // 24-byte file header.
    // (The last record is written just after its datagram left: poll briefly for it.)
    let expected = 24 + 4 * (16 + 28 + 10);
    let mut live = 0;
    for _ in 0..50 {
        live = std::fs::read(&pcap).unwrap().len();
        if live >= expected {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(live, expected, "flushed per packet, read while running");
    assert!(emu.child.id() > 0 && std::fs::metadata(format!("/proc/{}", emu.child.id())).is_ok(), "still running");
    let (code, out, _) = emu.finish();
    assert_eq!(code, Some(0));
    let report = String::from_utf8(out).unwrap();
    // One datagram each way: 10 payload bytes + 28 header bytes in every byte column.
    for direction in ["uplink", "downlink"] {
        assert_eq!(column(&report, direction, "offered_B"), 38, "{report}");
        assert_eq!(column(&report, direction, "forwarded_B"), 38, "{report}");
    }
    assert!(report.contains("plus 28 header bytes"), "{report}");
    let _ = std::fs::remove_file(pcap);
}

#[test]
fn a_pcap_on_standard_output_leaves_the_counters_to_standard_error() {
    let emu = Emulator::start(echo_peer(), &["--duration-s", "1", "--pcap", "-"]);
    let client = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    client.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
    client.send_to(b"x", emu.listen).unwrap();
    let mut buf = [0u8; 8];
    client.recv_from(&mut buf).unwrap();
    let (code, out, err) = emu.finish();
    assert_eq!(code, Some(0));
    // The classic pcap magic, little-endian (libpcap's file format), then four records.
    assert_eq!(out[..4], 0xa1b2_c3d4_u32.to_le_bytes());
    assert_eq!(out.len(), 24 + 4 * (16 + 28 + 1));
    assert_eq!(column(&err, "uplink", "forwarded_B"), 29, "{err}");
}
