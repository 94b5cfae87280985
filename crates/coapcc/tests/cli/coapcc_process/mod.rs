//! A `coapcc` process of a test: started with its arguments, its first lines read, signalled
//! and stopped by its own PID (never by name), killed when its guard drops.

#![allow(dead_code, reason = "each test file uses part of it")]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use coapcc_udp::clock::Clock;

/// Runs `coapcc ARGS…` to its end with `stdin` as its input: its exit code (-1 when killed by
/// a signal), stdout and stderr.
pub fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_coapcc"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The tool may exit (on a bad argument) before reading its input: ignore a broken pipe.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A process of ours, stopped by its PID when dropped.
pub struct Process {
    child: Child,
}

impl Process {
    /// Starts `coapcc ARGS…` with its stdout and stderr piped.
    pub fn spawn(args: &[&str]) -> Process {
        let child = Command::new(env!("CARGO_BIN_EXE_coapcc"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        Process { child }
    }

    /// Its PID.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` (`TERM`, `INT`) to this process, by its PID.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill").args([&format!("-{signal}"), &self.pid().to_string()]).status().unwrap();
        assert!(status.success());
    }

    /// Waits for the process to end (at most `limit`); its exit code, stdout and stderr.
    pub fn finish(mut self, limit: Duration) -> (Option<i32>, String, String) {
        let clock = Clock::start();
        while self.child.try_wait().unwrap().is_none() {
            assert!(clock.now().since_epoch() < limit, "process {} did not end within {limit:?}", self.pid());
            std::thread::sleep(Duration::from_millis(20));
        }
        let (mut out, mut err) = (String::new(), String::new());
        self.child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
        self.child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        (self.child.try_wait().unwrap().and_then(|s| s.code()), out, err)
    }

    /// The first line the process writes to stdout (`stderr`: to stderr).
    pub fn first_line(&mut self, stderr: bool) -> String {
        self.first_lines(1, stderr).remove(0)
    }

    /// The first `n` lines the process writes to stdout (`stderr`: to stderr), written in one
    /// go (what one reader buffers beyond them is dropped).
    pub fn first_lines(&mut self, n: usize, stderr: bool) -> Vec<String> {
        let pipe: &mut dyn Read =
            if stderr { self.child.stderr.as_mut().unwrap() } else { self.child.stdout.as_mut().unwrap() };
        let mut reader = BufReader::new(pipe);
        (0..n)
            .map(|_| {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                line
            })
            .collect()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The address a `coapcc server` prints on its first line, `coapcc server listening on ADDR
/// (seed S)`, and the `coap+tcp://ADDR` of its second line when it listens on TCP too.
pub fn server_addresses(lines: &[String]) -> (std::net::SocketAddr, Option<std::net::SocketAddr>) {
    let udp = lines.first().and_then(|l| l.split_whitespace().nth(4)).and_then(|a| a.parse().ok());
    let udp = udp.unwrap_or_else(|| panic!("no address in {lines:?}"));
    let tcp = lines.get(1).and_then(|l| l.trim().strip_prefix("coapcc server listening on coap+tcp://")?.parse().ok());
    (udp, tcp)
}
