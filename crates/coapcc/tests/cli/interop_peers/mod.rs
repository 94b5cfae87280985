//! Real CoAP peers for the interoperability tests: libcoap 4.3.1 (`coap-server-notls`,
//! `coap-client-notls`), aiocoap 0.4.17 (`tests/interop/aiocoap_server.py`, `aiocoap-client`),
//! Californium 3.14.0 (`tests/interop/californium`) and our own `coapcc server`.
//!
//! `scripts/setup-peers` installs them (once per test process, see [`peers`]); a peer that
//! cannot be installed fails every test with the script's reason. Each server runs on a free
//! loopback port, is probed with a confirmable GET until it answers (bounded), and is killed
//! by its own PID when its [`Server`] guard drops (also on a panic). Every client run is
//! bounded in time and killed by its PID past the bound. Nothing is ever killed by name.

#![allow(
    clippy::disallowed_methods,
    reason = "the harness bounds its waits for real processes by the wall clock; no result depends on it"
)]

use std::fs::File;
use std::io::Read;
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// How long a server may take to answer its first GET (a JVM needs 1–3 s).
const READY_LIMIT: Duration = Duration::from_secs(30);
/// How long one peer client run may take (every run here takes well under 2 s on loopback).
const CLIENT_LIMIT: Duration = Duration::from_secs(60);
/// How long libcoap's client waits for a response before it gives up (its `-B`).
const LIBCOAP_WAIT_S: &str = "20";

/// Where the repository and the installed peers are.
pub struct Peers {
    /// The repository's root folder.
    pub root: PathBuf,
    /// `$COAPCC_PEERS_DIR`, by default `target/peers` (the venv and the Californium build).
    pub dir: PathBuf,
}

/// Runs `scripts/setup-peers` once per test process and returns where the peers are; panics
/// with the script's reason when a peer cannot be installed (the test fails, never skips).
pub fn peers() -> &'static Peers {
    static PEERS: OnceLock<Result<Peers, String>> = OnceLock::new();
    let result = PEERS.get_or_init(|| {
        remove_stale_scratch();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().map_err(|e| e.to_string())?;
        let dir = std::env::var_os("COAPCC_PEERS_DIR").map_or_else(|| root.join("target/peers"), PathBuf::from);
        let mut command = Command::new(root.join("scripts/setup-peers"));
        command.env("COAPCC_PEERS_DIR", &dir).current_dir(&root);
        // Installing a peer (apt, pip, Maven) may take minutes on a fresh machine.
        let out = run_bounded(&mut command, Duration::from_secs(900))?;
        let text = format!("{}{}", out.stdout_text(), out.stderr_text());
        if !out.status.success() {
            return Err(format!("scripts/setup-peers could not install the interop peers:\n{text}"));
        }
        Ok(Peers { root, dir })
    });
    match result {
        Ok(peers) => peers,
        Err(reason) => panic!("{reason}"),
    }
}

/// The output of a bounded run.
pub struct Run {
    /// The exit status.
    pub status: std::process::ExitStatus,
    /// Everything written on stdout.
    pub stdout: Vec<u8>,
    /// Everything written on stderr.
    pub stderr: Vec<u8>,
}

impl Run {
    /// stdout as text (lossy).
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    /// stderr as text (lossy).
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

impl From<Output> for Run {
    fn from(out: Output) -> Self {
        Run { status: out.status, stdout: out.stdout, stderr: out.stderr }
    }
}

/// Runs a command to its end, but kills it (its own PID) once `limit` has passed.
pub fn run_bounded(command: &mut Command, limit: Duration) -> Result<Run, String> {
    let shown = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    // Read both pipes while waiting, so a large output never blocks the child.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{shown} did not finish within {limit:?}; killed (PID {})", child.id()));
            }
            Err(e) => return Err(format!("waiting for {shown}: {e}")),
        }
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    Ok(Run { status, stdout, stderr })
}

/// A loopback port free for UDP and TCP (libcoap's server opens both), never handed out twice
/// by this process. It is taken below Linux's ephemeral range (32768–60999), so no socket bound
/// to port 0 meanwhile (our client's, a peer client's) can take it before the server binds it.
pub fn free_port() -> u16 {
    const FIRST: u16 = 20_000;
    const COUNT: u16 = 12_000;
    static NEXT: Mutex<Option<u16>> = Mutex::new(None);
    let mut next = NEXT.lock().unwrap_or_else(|e| e.into_inner());
    // Start where this process's PID points, so parallel test processes rarely meet.
    let offset = next.get_or_insert((std::process::id() % u32::from(COUNT)) as u16);
    for _ in 0..COUNT {
        let port = FIRST + *offset;
        *offset = (*offset + 1) % COUNT;
        let udp_free = UdpSocket::bind(("127.0.0.1", port)).is_ok();
        if udp_free && TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free loopback port between {FIRST} and {}", FIRST + COUNT - 1);
}

/// The CoAP servers of the tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerKind {
    /// libcoap's `coap-server-notls -d 20 -e`, with `/echo` and `/data` created by PUTs.
    Libcoap,
    /// `tests/interop/aiocoap_server.py` on aiocoap.
    Aiocoap,
    /// `coapcc.interop.Server` on Californium.
    Californium,
    /// `coapcc server`.
    Coapcc,
}

/// The size of the block-wise bodies moved in both directions.
pub const LARGE_BYTES: usize = 100_000;
/// The size of the small PUT bodies (one datagram).
pub const SMALL_BYTES: usize = 64;

/// How long one single-request `coapcc client` run may take (each takes well under a second).
const OUR_SINGLE_LIMIT: Duration = Duration::from_secs(60);

/// One request of `coapcc client URI -B 30 -o FILE ARGS…` (no load generator: it prints the
/// response): its exit status, a transcript (command, exit status, stdout, stderr) and the body
/// it wrote to FILE.
pub fn our_single_client(uri: &str, args: &[&str]) -> (bool, String, Vec<u8>) {
    let out = scratch("our-response");
    let mut c = Command::new(env!("CARGO_BIN_EXE_coapcc"));
    c.args(["client", uri, "-B", "30", "-o"]).arg(&out).args(args);
    let shown = format!("{c:?}");
    let run = run_bounded(&mut c, OUR_SINGLE_LIMIT).unwrap_or_else(|e| panic!("{e}"));
    let text = format!("{shown}\nexit {}\nstdout:\n{}\nstderr:\n{}", run.status, run.stdout_text(), run.stderr_text());
    (run.status.success(), text, std::fs::read(&out).unwrap_or_default())
}

/// The body of `/data?size=N` on every server (as `coapcc server` has it: the digits 0–9
/// repeated), and the bodies the tests PUT.
pub fn digits(size: usize) -> Vec<u8> {
    (0..size).map(|i| b'0' + (i % 10) as u8).collect()
}

/// A running server; killed (by its PID) when dropped.
pub struct Server {
    /// Which server.
    pub kind: ServerKind,
    /// Its UDP port on 127.0.0.1.
    pub port: u16,
    child: Child,
    log: PathBuf,
}

/// A fresh file name under the test's temporary folder.
pub fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("interop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the test's temporary folder can be made");
    dir.join(format!("{n}-{name}"))
}

/// Removes the scratch folders of earlier test processes that have ended (a folder per process,
/// named after its PID; a live process keeps its own).
fn remove_stale_scratch() {
    let Ok(entries) = std::fs::read_dir(env!("CARGO_TARGET_TMPDIR")) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("interop-").and_then(|p| p.parse::<u32>().ok()) else { continue };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

impl Server {
    /// Starts a server on a free loopback port and waits until it answers a GET; a server that
    /// exits before answering (another process took the port first) is started again on
    /// another port, three tries in all.
    pub fn start(kind: ServerKind) -> Server {
        let mut failures = Vec::new();
        for _ in 0..3 {
            match Server::try_start(kind) {
                Ok(server) => return server,
                Err(failure) => failures.push(failure),
            }
        }
        panic!("the {kind:?} server did not start in three tries:\n{}", failures.join("\n"));
    }

    fn try_start(kind: ServerKind) -> Result<Server, String> {
        let peers = peers();
        let port = free_port();
        let log = scratch(&format!("{kind:?}-server.log"));
        let mut command = match kind {
            ServerKind::Libcoap => {
                let mut c = Command::new("coap-server-notls");
                // -d: PUT may create up to 20 resources; -e: a PUT's response echoes its body.
                c.args(["-A", "127.0.0.1", "-p", &port.to_string(), "-d", "20", "-e"]);
                c
            }
            ServerKind::Aiocoap => {
                let mut c = Command::new(peers.dir.join("venv/bin/python"));
                c.arg(peers.root.join("tests/interop/aiocoap_server.py"));
                c.args(["--bind", "127.0.0.1", "--port", &port.to_string()]);
                c
            }
            ServerKind::Californium => {
                let mut c = Command::new("java");
                c.arg("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn").arg("-cp").arg(californium_classpath(peers));
                c.args(["coapcc.interop.Server", "127.0.0.1", &port.to_string()]);
                c
            }
            ServerKind::Coapcc => {
                let mut c = Command::new(env!("CARGO_BIN_EXE_coapcc"));
                c.args(["server", "--bind", &format!("127.0.0.1:{port}")]);
                c
            }
        };
        let out = File::create(&log).expect("the server log can be created");
        let err = out.try_clone().expect("the server log can be shared");
        let child = command
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the {kind:?} server ({command:?}): {e}"));
        let mut server = Server { kind, port, child, log };
        server.wait_ready(&[".well-known", "core"])?;
        if kind == ServerKind::Libcoap {
            server.create_libcoap_resources();
        }
        Ok(server)
    }

    /// What the server wrote so far (for failure messages).
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Probes until a confirmable GET of `path` is answered and a TCP connection to the same
    /// port is accepted (`Ok`), the process exits (`Err`, with its log), or the limit passes
    /// (a panic: a server that hangs is no port clash).
    fn wait_ready(&mut self, path: &[&str]) -> Result<(), String> {
        let started = Instant::now();
        while started.elapsed() < READY_LIMIT {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!(
                    "the {:?} server on port {} exited ({status}) before answering:\n{}",
                    self.kind,
                    self.port,
                    self.log_text()
                ));
            }
            // Every server here listens on TCP too (coap+tcp://), and may bind it after its
            // UDP socket answers (Californium starts its endpoints one by one).
            if probe(self.port, path) && TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return Ok(());
            }
            thread::sleep(Duration::from_millis(50));
        }
        panic!("the {:?} server did not answer a GET within {READY_LIMIT:?}:\n{}", self.kind, self.log_text());
    }

    /// libcoap's server has no `/echo` or `/data` of its own: PUTs create them (its `-d`), with
    /// libcoap's own client. `/data` then holds [`LARGE_BYTES`] bytes of [`digits`] (it ignores
    /// the query), `/echo` the text "echo" (each PUT replaces it, and `-e` echoes it).
    fn create_libcoap_resources(&mut self) {
        let echo = request(ClientKind::Libcoap, self.port, Method::Put, "/echo", Some(b"echo"));
        assert_eq!(echo.body, b"echo", "creating /echo on the libcoap server: {}", echo.transcript);
        let data = request(ClientKind::Libcoap, self.port, Method::Put, "/data", Some(&digits(LARGE_BYTES)));
        assert!(data.body == digits(LARGE_BYTES), "creating /data on the libcoap server: {}", data.transcript);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Exactly the process this guard started, by its PID (std's kill is SIGKILL to it).
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The class path of the Californium program built by `scripts/setup-peers`.
pub fn californium_classpath(peers: &Peers) -> String {
    let cf = peers.dir.join("californium");
    format!("{}:{}", cf.join("build/classes").display(), cf.join("lib/*").display())
}

/// Sends one confirmable GET of `path` (no token) and waits 300 ms for an answer with its
/// Message ID: a 2.xx piggybacked response or an empty ACK (a separate response follows).
pub fn probe(port: u16, path: &[&str]) -> bool {
    static MID: AtomicU16 = AtomicU16::new(0x4000);
    let mid = MID.fetch_add(1, Ordering::Relaxed).to_be_bytes();
    // Ver 1, CON, TKL 0; GET; Message ID; then Uri-Path options (number 11, short values).
    let mut datagram = vec![0x40, 0x01, mid[0], mid[1]];
    let mut delta = 11u8;
    for segment in path {
        assert!(segment.len() < 13, "probe paths use short segments");
        datagram.push((delta << 4) | segment.len() as u8);
        datagram.extend_from_slice(segment.as_bytes());
        delta = 0;
    }
    let Ok(socket) = UdpSocket::bind("127.0.0.1:0") else { return false };
    if socket.connect(("127.0.0.1", port)).is_err()
        || socket.set_read_timeout(Some(Duration::from_millis(300))).is_err()
    {
        return false;
    }
    if socket.send(&datagram).is_err() {
        return false;
    }
    let mut buffer = [0u8; 1500];
    let deadline = Instant::now() + Duration::from_millis(300);
    while Instant::now() < deadline {
        let Ok(n) = socket.recv(&mut buffer) else { return false };
        let is_ack = n >= 4 && buffer[0] >> 6 == 1 && (buffer[0] >> 4) & 3 == 2 && buffer[2..4] == mid;
        if is_ack && (buffer[1] == 0 || buffer[1] >> 5 == 2) {
            return true;
        }
    }
    false
}

/// The CoAP clients of the peers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientKind {
    /// `coap-client-notls` (libcoap).
    Libcoap,
    /// `aiocoap-client`.
    Aiocoap,
    /// `coapcc.interop.Client` (Californium).
    Californium,
}

/// A request method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// GET.
    Get,
    /// PUT.
    Put,
}

/// What a peer client got.
pub struct Reply {
    /// The final response code as the client reported it (`2.05`), `None` without a response.
    pub code: Option<String>,
    /// The response body (empty when there was none).
    pub body: Vec<u8>,
    /// The command and everything it printed, for failure messages.
    pub transcript: String,
}

/// One confirmable request by a peer client to `coap://127.0.0.1:PORT{path}`, block-wise where
/// the body needs it. A client that hangs is killed after [`CLIENT_LIMIT`].
pub fn request(client: ClientKind, port: u16, method: Method, path: &str, body: Option<&[u8]>) -> Reply {
    request_uri(client, &format!("coap://127.0.0.1:{port}{path}"), method, body)
}

/// [`request`] of a whole URI (`coap://` or `coap+tcp://`).
pub fn request_uri(client: ClientKind, uri: &str, method: Method, body: Option<&[u8]>) -> Reply {
    let peers = peers();
    let uri = uri.to_string();
    let body_file = body.map(|b| {
        let f = scratch("request-body");
        std::fs::write(&f, b).expect("the request body can be written");
        f
    });
    let out_file = scratch("response-body");
    let method_name = match method {
        Method::Get => "GET",
        Method::Put => "PUT",
    };
    let mut command = match client {
        ClientKind::Libcoap => {
            let mut c = Command::new("coap-client-notls");
            // -B bounds its wait (default 90 s); -b 1024: block-wise with 1024-byte blocks;
            // -v 7 logs the code of every response it processes (its exit status says nothing).
            c.args(["-v", "7", "-B", LIBCOAP_WAIT_S, "-b", "1024", "-m", &method_name.to_lowercase(), "-o"])
                .arg(&out_file);
            if let Some(f) = &body_file {
                c.arg("-f").arg(f);
            }
            c.arg(&uri);
            c
        }
        ClientKind::Aiocoap => {
            let mut c = Command::new(peers.dir.join("venv/bin/aiocoap-client"));
            // -v logs the response code; it exits 1 on an error code or no response.
            c.args(["-v", "-m", method_name]);
            if let Some(f) = &body_file {
                c.arg("--payload").arg(format!("@{}", f.display()));
            }
            c.arg(&uri);
            c
        }
        ClientKind::Californium => {
            let mut c = Command::new("java");
            c.arg("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn").arg("-cp").arg(californium_classpath(peers));
            c.args(["coapcc.interop.Client", method_name, &uri, "--timeout-s", "20", "--out"]).arg(&out_file);
            if let Some(b) = body {
                assert!(*b == digits(b.len())[..], "the Californium client sends pattern bodies only");
                c.args(["--payload-bytes", &b.len().to_string()]);
            }
            c
        }
    };
    let shown = format!("{command:?}");
    let run = run_bounded(&mut command, CLIENT_LIMIT).unwrap_or_else(|e| panic!("{e}"));
    let (stdout, stderr) = (run.stdout_text(), run.stderr_text());
    let code = match client {
        // "… DEBG ** process incoming 2.05 response:" (-v 7; on stdout or stderr, as libcoap's
        // logging chooses), the last one is final.
        ClientKind::Libcoap => last_code(&format!("{stderr}\n{stdout}"), "process incoming "),
        // "INFO:coap.aiocoap-client:2.05 Content from coap://…" (stderr).
        ClientKind::Aiocoap => last_code(&stderr, "INFO:coap.aiocoap-client:"),
        // "code=2.05 bytes=N" (stdout).
        ClientKind::Californium => last_code(&stdout, "code="),
    };
    let body = match client {
        // aiocoap-client prints the body on stdout.
        ClientKind::Aiocoap if run.status.success() => run.stdout.clone(),
        // The others wrote it with their -o / --out.
        ClientKind::Libcoap | ClientKind::Californium => std::fs::read(&out_file).unwrap_or_default(),
        ClientKind::Aiocoap => Vec::new(),
    };
    let tail = |text: &str| {
        let cut = text.char_indices().rev().nth(3000).map_or(0, |(i, _)| i);
        format!("{}{}", if cut > 0 { "…" } else { "" }, &text[cut..])
    };
    let transcript = format!(
        "{shown}\nexit: {}, code: {code:?}, body: {} bytes\nstderr (end): {}\nstdout (end): {}",
        run.status,
        body.len(),
        tail(&stderr),
        tail(&stdout)
    );
    Reply { code, body, transcript }
}

/// The response code (`d.dd`) right after the last occurrence of `marker` on a line.
fn last_code(text: &str, marker: &str) -> Option<String> {
    text.lines().rev().find_map(|line| {
        let rest = &line[line.find(marker)? + marker.len()..];
        let code = rest.get(..4)?;
        let b = code.as_bytes();
        (b[0].is_ascii_digit() && b[1] == b'.' && b[2].is_ascii_digit() && b[3].is_ascii_digit())
            .then(|| code.to_string())
    })
}

/// The interoperability checks (README, "Interoperability") for a client against a server, each with the response code and the
/// body: GET `/echo` (2.05), PUT of 64 bytes to `/echo` (2.04, echoed), a Block2 GET of
/// `/data?size=100000` (2.05, whole and exact), a Block1 PUT of 100 000 bytes to `/echo`
/// (2.04; where the server echoes a block-wise body, as the peers do and `coapcc server` does
/// not, the echo is whole and exact) and `/.well-known/core` (2.05, lists `</echo>` and
/// `</data>`).
pub fn client_checks(client: ClientKind, server: &Server) {
    client_checks_over("coap", client, server);
}

/// [`client_checks`] over `scheme` (`coap`, or `coap+tcp` for CoAP over TCP, where the large
/// bodies move in BERT blocks when both CSMs offer them).
pub fn client_checks_over(scheme: &str, client: ClientKind, server: &Server) {
    let uri = |path: &str| format!("{scheme}://127.0.0.1:{}{path}", server.port);
    let check = |what: &str, reply: &Reply, code: &str, ok: bool| {
        assert!(
            reply.code.as_deref() == Some(code) && ok,
            "{client:?} client, {:?} server, {scheme}: {what} (expected code {code}):\n{}\nserver log:\n{}",
            server.kind,
            reply.transcript,
            server.log_text()
        );
    };

    let get = request_uri(client, &uri("/echo"), Method::Get, None);
    check("GET /echo", &get, "2.05", true);

    let small = digits(SMALL_BYTES);
    let put = request_uri(client, &uri("/echo"), Method::Put, Some(&small));
    check("PUT /echo of 64 bytes is echoed", &put, "2.04", put.body == small);

    let large = digits(LARGE_BYTES);
    let block2 = request_uri(client, &uri(&format!("/data?size={LARGE_BYTES}")), Method::Get, None);
    check("Block2 GET /data?size=100000 is whole and exact", &block2, "2.05", block2.body == large);

    let block1 = request_uri(client, &uri("/echo"), Method::Put, Some(&large));
    let echoed = block1.body.is_empty() && server.kind == ServerKind::Coapcc || block1.body == large;
    check("Block1 PUT /echo of 100 000 bytes (echoed whole by the peers)", &block1, "2.04", echoed);

    let core = request_uri(client, &uri("/.well-known/core"), Method::Get, None);
    let links = String::from_utf8_lossy(&core.body);
    check(
        "/.well-known/core lists </echo> and </data>",
        &core,
        "2.05",
        links.contains("</echo>") && links.contains("</data>"),
    );
}
