//! The pcap files of `coapcc sim --pcap` and `coapcc emulate --pcap`, decoded by Wireshark's
//! `tshark`: the CoAP message types, Message IDs and tokens are those that were sent, and the
//! IPv4 and UDP checksums are valid. tshark is installed by `scripts/setup-tshark`; when it is
//! missing and cannot be installed the tests fail with the reason.

use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use coapcc_driver::scenario::{self, Model};
use coapcc_proto::MessageType;
use coapcc_sim::capture_network;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tshark() -> &'static str {
    if Command::new("tshark").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return "tshark";
    }
    let out = Command::new(repo().join("scripts/setup-tshark")).output().expect("cannot run scripts/setup-tshark");
    assert!(
        out.status.success(),
        "tshark is missing and could not be installed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    "tshark"
}

/// One decoded frame: (source, destination, CoAP type 0–3, Message ID, token hex); checks
/// the checksums on the way.
fn decode(pcap: &Path, coap_ports: &[u16]) -> Vec<(String, String, u8, u16, String)> {
    let mut cmd = Command::new(tshark());
    cmd.arg("-r").arg(pcap);
    for p in coap_ports {
        cmd.args(["-d", &format!("udp.port=={p},coap")]);
    }
    let out = cmd
        .args(["-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"])
        .args(["-T", "fields", "-E", "separator=/t"])
        .args(["-e", "ip.src", "-e", "udp.srcport", "-e", "ip.dst", "-e", "udp.dstport"])
        .args(["-e", "coap.type", "-e", "coap.mid", "-e", "coap.token", "-e", "ip.checksum.status"])
        .args(["-e", "udp.checksum.status"])
        .stderr(Stdio::null())
        .output()
        .expect("tshark runs");
    assert!(out.status.success(), "tshark failed on {}", pcap.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 9, "{l}");
            assert_eq!((f[7], f[8]), ("1", "1"), "IPv4 and UDP checksums are good: {l}");
            let ty = f[4].parse().unwrap_or_else(|_| panic!("not decoded as CoAP: {l}"));
            (format!("{}:{}", f[0], f[1]), format!("{}:{}", f[2], f[3]), ty, f[5].parse().unwrap(), f[6].to_string())
        })
        .collect()
}

fn type_number(t: MessageType) -> u8 {
    match t {
        MessageType::Con => 0,
        MessageType::Non => 1,
        MessageType::Ack => 2,
        MessageType::Rst => 3,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn the_simulators_pcap_shows_every_captured_coap_message_and_changes_no_other_output() {
    let dir = std::env::temp_dir().join(format!("coapcc-sim-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario_path = dir.join("tiny.toml");
    std::fs::write(
        &scenario_path,
        "name = \"tiny\"\ndescription = \"pcap test\"\nsource = \"test\"\nseed = 7\nreplications = 2\n\
         algorithms = [\"default\", \"cocoa\"]\n[network.nbiot]\nbuffer_bytes = 2500\nerrors = \"medium\"\n\
         [workload]\nflows = 3\nflow_type = \"continuous\"\nexchanges_per_flow = 4\nstart_window_ms = 1000\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_coapcc"))
        .arg("sim")
        .arg(&scenario_path)
        .arg("--out")
        .arg(dir.join("out"))
        .args(["--pcap", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Capturing changes no other output.
    let plain = Command::new(env!("CARGO_BIN_EXE_coapcc"))
        .arg("sim")
        .arg(&scenario_path)
        .arg("--out")
        .arg(dir.join("plain"))
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(plain.status.success());
    for f in ["flows.csv", "runs.csv", "summary.csv", "scenario.toml"] {
        let read = |d: &str| std::fs::read(dir.join(d).join(f)).unwrap();
        assert_eq!(read("out"), read("plain"), "{f} with and without --pcap");
    }
    let s = scenario::load(&scenario_path, &[]).unwrap();
    let Model::Network { network, workload } = &s.model else { unreachable!() };
    for (name, config) in &s.algorithms {
        let (_, captured) = capture_network(network, *workload, &s.file.coap, config, s.file.seed, 0).unwrap();
        let frames = decode(&dir.join("out/pcap").join(format!("{name}.pcap")), &[5683]);
        assert_eq!(frames.len(), captured.len(), "{name}");
        assert!(frames.len() > 3 * 4 * 2, "{name}: requests and responses at both ends");
        for (f, c) in frames.iter().zip(&captured) {
            let expected = (
                c.from.socket_addr().to_string(),
                c.to.socket_addr().to_string(),
                type_number(c.msg.mtype),
                c.msg.mid,
                hex(c.msg.token.as_bytes()),
            );
            assert_eq!(f, &expected, "{name}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_emulators_pcap_shows_both_sides_of_every_exchange() {
    let dir = std::env::temp_dir().join(format!("coapcc-emu-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("relay.pcap");
    // A CoAP "server" answering every CON with a piggybacked 2.05 ACK of the same ID and token.
    let server = UdpSocket::bind("127.0.0.1:0").unwrap();
    let server_addr = server.local_addr().unwrap();
    server.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let server_thread = std::thread::spawn(move || {
        let mut buf = [0_u8; 64];
        for _ in 0..5 {
            let Ok((n, from)) = server.recv_from(&mut buf) else { return };
            let req = &buf[..n];
            let mut ack = vec![0x62, 0x45, req[2], req[3]];
            ack.extend_from_slice(&req[4..6]);
            server.send_to(&ack, from).unwrap();
        }
    });
    // A free port for the relay: bind, read it, release it.
    let relay_addr = UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_coapcc"))
        .args(["emulate", "--listen", &relay_addr.to_string(), "--to", &server_addr.to_string()])
        .args(["--profile", "none", "--seed", "1", "--pcap"])
        .arg(&pcap)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    client.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
    let mut sent = Vec::new();
    let mut buf = [0_u8; 64];
    for i in 0..5_u16 {
        let mid = 0x1200 + i;
        let token = [0xab, i as u8];
        let mut req = vec![0x42, 0x01];
        req.extend_from_slice(&mid.to_be_bytes());
        req.extend_from_slice(&token);
        // The relay may not be listening yet: retry a few times until the ACK comes back.
        let mut answered = false;
        for _ in 0..20 {
            client.send_to(&req, relay_addr).unwrap();
            if client.recv_from(&mut buf).is_ok() {
                answered = true;
                break;
            }
        }
        assert!(answered, "no answer through the relay for exchange {i}");
        sent.push((mid, hex(&token)));
    }
    // Stop exactly the emulator started here (SIGINT, as Ctrl-C), then read its report.
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    server_thread.join().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report} {}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains("uplink") && report.contains("downlink"), "{report}");
    let frames = decode(&pcap, &[relay_addr.port(), server_addr.port()]);
    let client_addr = client.local_addr().unwrap().to_string();
    // Requests that found no relay yet are not in the file; every answered one is, four times.
    for (mid, token) in &sent {
        let of: Vec<_> = frames.iter().filter(|f| f.3 == *mid && &f.4 == token).collect();
        let kinds: Vec<(u8, bool, bool)> =
            of.iter().map(|f| (f.2, f.0 == client_addr, f.1 == server_addr.to_string())).collect();
        assert_eq!(
            kinds,
            [(0, true, false), (0, false, true), (2, false, false), (2, false, false)],
            "client → relay, relay → server, server → relay, relay → client for {mid}"
        );
        assert_eq!(of[3].1, client_addr);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
