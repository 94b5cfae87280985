//! A client under test against a probe server: the command is started with `{uri}` replaced
//! by the probe's URI on 127.0.0.1, every datagram it sends is timestamped and answered as the
//! script says, and the run ends when the client exits, when the run has shown what it is for
//! (see [`RunOptions`]), or at its time limit; the probe then kills the client by its PID.

use std::collections::HashMap;
use std::io::Read;
use std::net::SocketAddr;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use coapcc_driver::probe::{Action, ClientReply, Copy, End, ReplyKind, Run, Script, Sent, SentKind};
use coapcc_proto::{Code, Message, MessageType, codec};
use tokio::net::UdpSocket;
use tokio::time::{Instant, sleep_until};

use super::ProbeError;

/// The placeholder the command's arguments hold for the probe's URI.
pub const URI_PLACEHOLDER: &str = "{uri}";

/// The placeholder replaced by the run's number (0, 1, …, in the order of the plan): a client
/// with a seed option draws reproducibly with `--seed {run}`.
pub const RUN_PLACEHOLDER: &str = "{run}";

/// The path of the probe's URI.
pub const PROBE_PATH: &str = "probe";

pub use coapcc_driver::probe::DUPLICATE_AFTER;

/// When a run stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// The longest a run may take; then the client is killed.
    pub time_limit: Duration,
    /// Stop once this many exchanges were answered (and `grace` passed), e.g. 1 for a
    /// first-timeout run of a client that would go on with more requests.
    pub stop_after_answered: Option<usize>,
    /// How long to keep listening after the stop condition (the client's ACKs of separate
    /// responses).
    pub grace: Duration,
}

/// The command with `{uri}` and `{run}` replaced; an error when it is empty or has no `{uri}`.
pub fn command_for(argv: &[String], uri: &str, run: usize) -> Result<Vec<String>, ProbeError> {
    if argv.is_empty() {
        return Err(ProbeError::BadCommand("no client command given (after --)".into()));
    }
    if !argv.iter().any(|a| a.contains(URI_PLACEHOLDER)) {
        return Err(ProbeError::BadCommand(format!(
            "the client command has no `{URI_PLACEHOLDER}` argument for the probe's URI: {}",
            argv.join(" ")
        )));
    }
    Ok(argv.iter().map(|a| a.replace(URI_PLACEHOLDER, uri).replace(RUN_PLACEHOLDER, &run.to_string())).collect())
}

/// How long the probe keeps reading its socket after the client exited: datagrams the client
/// sent just before its exit may arrive later on a loaded machine (an ACK of a separate
/// response was missed when only the datagrams already queued were read).
const EXIT_DRAIN: Duration = Duration::from_millis(100);

/// How much of the end of the client's standard error is kept (for the error of a run in
/// which it sent nothing).
const STDERR_TAIL: usize = 2048;

/// How long a run in which the client sent nothing waits, after the client's exit, for the
/// reader of its standard error to reach the end of the pipe (on a loaded machine the reader
/// thread can lag the exit by more than [`EXIT_DRAIN`], and the error would lose the client's
/// last words).
const STDERR_WAIT: Duration = Duration::from_secs(2);

/// The client's standard error as it is read: the kept tail, and a signal sent once the pipe
/// has closed.
struct StderrTail {
    tail: Arc<Mutex<Vec<u8>>>,
    closed: Option<tokio::sync::oneshot::Receiver<()>>,
}

impl StderrTail {
    /// The last non-blank line, after waiting at most [`STDERR_WAIT`] for the pipe to close.
    async fn last_line(self) -> Option<String> {
        if let Some(closed) = self.closed {
            let _ = tokio::time::timeout(STDERR_WAIT, closed).await;
        }
        let text = self.tail.lock().map(|v| String::from_utf8_lossy(&v).into_owned()).unwrap_or_default();
        text.lines().rev().find(|l| !l.trim().is_empty()).map(|l| l.trim().to_owned())
    }
}

/// Reads the client's standard error while it runs (a chatty client never blocks on a full
/// pipe) and keeps its last [`STDERR_TAIL`] bytes. The reader ends when the pipe closes; it
/// is waited for only when its text is needed, and then for at most [`STDERR_WAIT`] (a child
/// the client left behind may hold the pipe open).
fn stderr_tail(pipe: Option<ChildStderr>) -> StderrTail {
    let tail = Arc::new(Mutex::new(Vec::new()));
    let Some(mut pipe) = pipe else { return StderrTail { tail, closed: None } };
    let (done, closed) = tokio::sync::oneshot::channel();
    let kept = Arc::clone(&tail);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = pipe.read(&mut buf) {
            let Ok(mut v) = kept.lock() else { return };
            v.extend_from_slice(&buf[..n]);
            let extra = v.len().saturating_sub(STDERR_TAIL);
            v.drain(..extra);
        }
        let _ = done.send(());
    });
    StderrTail { tail, closed: Some(closed) }
}

/// How a run in which the client sent nothing ended, for [`ProbeError::NoDatagram`].
fn no_datagram_how(end: End, after: Duration) -> String {
    let after = after.as_secs_f64();
    match end {
        End::Exited(Some(code)) => format!("the client exited with status {code} after {after:.2} s"),
        End::Exited(None) => format!("the client was killed by a signal after {after:.2} s"),
        End::TimeLimit => format!("the client was still running at the run's time limit ({after:.0} s)"),
        End::Stopped => format!("the probe stopped the client after {after:.2} s"),
    }
}

/// A started client, killed by its PID if still running when dropped.
struct Client(Child);

impl Drop for Client {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// One exchange as the probe tracks it.
struct Tracked {
    number: u32,
    copies: u8,
    /// The response already sent for it (a later copy is answered again with the same bytes).
    answered: Option<Vec<u8>>,
}

/// A datagram to send later.
struct Pending {
    at: Instant,
    bytes: Vec<u8>,
    sent: Sent,
}

/// The probe's state during one run.
struct State {
    zero: Instant,
    script: Script,
    exchanges: HashMap<(u16, u16), Tracked>,
    /// Message ID of each separate response → its exchange.
    separate_mids: HashMap<u16, u32>,
    next_mid: u16,
    pending: Vec<Pending>,
    run: Run,
}

impl State {
    fn since(&self, t: Instant) -> Duration {
        t.saturating_duration_since(self.zero)
    }

    fn response(&mut self, req: &Message, mtype: MessageType) -> Message {
        let mid = if mtype == MessageType::Ack {
            req.mid
        } else {
            self.next_mid = self.next_mid.wrapping_add(1);
            self.next_mid
        };
        let mut m = Message::empty(mtype, mid);
        m.code = if req.code == Code::GET { Code::CONTENT } else { Code::CHANGED };
        m.token = req.token;
        m.payload = bytes::Bytes::from_static(b"coapcc probe");
        m
    }

    fn schedule(&mut self, at: Instant, msg: &Message, exchange: u32, kind: SentKind, copy: u8) -> Vec<u8> {
        let bytes = codec::encode(msg);
        let sent = Sent { at: self.since(at), exchange, kind, copy };
        self.pending.push(Pending { at, bytes: bytes.clone(), sent });
        bytes
    }

    /// Handles one datagram from the client at `now`.
    fn on_datagram(&mut self, now: Instant, from: SocketAddr, bytes: &[u8]) {
        let Ok(msg) = codec::decode(bytes) else { return };
        let at = self.since(now);
        if msg.code == Code::EMPTY && matches!(msg.mtype, MessageType::Ack | MessageType::Rst) {
            if let Some(&exchange) = self.separate_mids.get(&msg.mid) {
                let kind = if msg.mtype == MessageType::Ack { ReplyKind::Ack } else { ReplyKind::Reset };
                self.run.replies.push(ClientReply { at, exchange, kind });
            }
            return;
        }
        if !msg.code.is_request() || !matches!(msg.mtype, MessageType::Con | MessageType::Non) {
            return;
        }
        let key = (from.port(), msg.mid);
        let count = self.exchanges.len() as u32;
        let tracked = self.exchanges.entry(key).or_insert(Tracked { number: count, copies: 0, answered: None });
        let (number, copy) = (tracked.number, tracked.copies);
        tracked.copies = tracked.copies.saturating_add(1);
        let repeat = tracked.answered.clone();
        self.run.copies.push(Copy { at, port: from.port(), exchange: number, copy });
        let confirmable = msg.mtype == MessageType::Con;
        match self.script.action(number as usize) {
            Action::Drop => {}
            Action::Piggybacked { copy: k, delay } if copy >= k => match repeat {
                // A copy after the answer: answered again at once (as duplicate detection would).
                Some(bytes) => self.pending.push(Pending {
                    at: now,
                    bytes,
                    sent: Sent { at, exchange: number, kind: SentKind::Piggybacked, copy: 1 },
                }),
                None => {
                    let mtype = if confirmable { MessageType::Ack } else { MessageType::Non };
                    let m = self.response(&msg, mtype);
                    let b = self.schedule(now + delay, &m, number, SentKind::Piggybacked, 0);
                    if let Some(t) = self.exchanges.get_mut(&key) {
                        t.answered = Some(b);
                    }
                }
            },
            Action::Piggybacked { .. } => {}
            Action::Separate { delay, duplicate } => {
                if !confirmable {
                    return;
                }
                let ack = Message::empty(MessageType::Ack, msg.mid);
                self.schedule(now, &ack, number, SentKind::EmptyAck, 0);
                if repeat.is_none() {
                    let m = self.response(&msg, MessageType::Con);
                    self.separate_mids.insert(m.mid, number);
                    let b = self.schedule(now + delay, &m, number, SentKind::Separate, 0);
                    if duplicate {
                        self.schedule(now + delay + DUPLICATE_AFTER, &m, number, SentKind::Separate, 1);
                    }
                    if let Some(t) = self.exchanges.get_mut(&key) {
                        t.answered = Some(b);
                    }
                }
            }
        }
    }

    /// Whether the run has shown what it is for: the first unanswered exchange ended (the
    /// client started another after its last copy), or enough exchanges were answered.
    fn done(&self, opts: &RunOptions) -> bool {
        let ex = self.run.exchanges();
        let silent_ended = ex.iter().any(|e| e.action == Action::Drop && e.ended.is_some());
        let answered = ex.iter().filter(|e| e.answered).count();
        let enough = opts.stop_after_answered.is_some_and(|n| answered >= n) && self.pending.is_empty();
        silent_ended || enough
    }

    /// Whether the client has answered every copy of the separate responses sent so far:
    /// the run need not wait out its grace.
    fn separate_answered(&self) -> bool {
        let sent = self.run.sent.iter().filter(|s| s.kind == SentKind::Separate).count();
        sent > 0 && self.run.replies.len() >= sent
    }
}

/// Runs the client command `argv` (with `{uri}`, and `{run}` replaced by `run`) once against a
/// probe server answering by `script`. Times in the returned [`Run`] are since the client was
/// started.
pub async fn run_once(argv: &[String], run: usize, script: &Script, opts: &RunOptions) -> Result<Run, ProbeError> {
    let socket = UdpSocket::bind("127.0.0.1:0").await.map_err(ProbeError::Socket)?;
    let port = socket.local_addr().map_err(ProbeError::Socket)?.port();
    let argv = command_for(argv, &format!("coap://127.0.0.1:{port}/{PROBE_PATH}"), run)?;
    let mut command = Command::new(&argv[0]);
    command.args(&argv[1..]).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    #[allow(clippy::disallowed_methods, reason = "this crate is where the OS clock may be read")]
    let zero = Instant::now();
    let mut child = command.spawn().map_err(|source| ProbeError::Spawn { program: argv[0].clone(), source })?;
    let stderr = stderr_tail(child.stderr.take());
    let mut client = Client(child);
    let mut st = State {
        zero,
        script: script.clone(),
        exchanges: HashMap::new(),
        separate_mids: HashMap::new(),
        next_mid: (std::process::id() as u16).wrapping_mul(7919),
        pending: Vec::new(),
        run: Run {
            script: script.clone(),
            copies: Vec::new(),
            replies: Vec::new(),
            sent: Vec::new(),
            end_at: Duration::ZERO,
            end: End::Stopped,
        },
    };
    let limit = zero + opts.time_limit;
    let mut done_at: Option<Instant> = None;
    let mut exited_at: Option<Instant> = None;
    let mut buf = vec![0u8; 65_535];
    let poll = Duration::from_millis(5);
    loop {
        #[allow(clippy::disallowed_methods, reason = "this crate is where the OS clock may be read")]
        let now = Instant::now();
        // Send what is due (nothing to a client that has exited).
        if exited_at.is_none() {
            let (due, later): (Vec<Pending>, Vec<Pending>) = st.pending.drain(..).partition(|p| p.at <= now);
            st.pending = later;
            for p in due {
                if let Some(peer_port) = st.run.copies.iter().find(|c| c.exchange == p.sent.exchange).map(|c| c.port) {
                    let to = SocketAddr::from(([127, 0, 0, 1], peer_port));
                    socket.send_to(&p.bytes, to).await.map_err(ProbeError::Socket)?;
                    st.run.sent.push(Sent { at: st.since(now), ..p.sent });
                }
            }
        }
        if exited_at.is_none()
            && let Ok(Some(status)) = client.0.try_wait()
        {
            // The exit ends the run (the give-up of a silent exchange), but what the client
            // sent just before exiting (an ACK of the separate response) may still be on its
            // way: on a loaded machine loopback delivery can lag the exit by milliseconds.
            st.run.end = End::Exited(status.code());
            st.run.end_at = st.since(now);
            exited_at = Some(now);
        }
        if let Some(t) = exited_at {
            if now >= t + EXIT_DRAIN {
                break;
            }
        } else {
            if now >= limit {
                st.run.end = End::TimeLimit;
                st.run.end_at = st.since(now);
                break;
            }
            if done_at.is_none() && st.done(opts) {
                done_at = Some(now + opts.grace);
            }
            if done_at.is_some_and(|t| now >= t) || (done_at.is_some() && st.separate_answered()) {
                st.run.end = End::Stopped;
                st.run.end_at = st.since(now);
                break;
            }
        }
        let next_send = st.pending.iter().map(|p| p.at).min().filter(|_| exited_at.is_none());
        let drained = exited_at.map(|t| t + EXIT_DRAIN);
        let wake = [Some(now + poll), next_send, done_at, drained].into_iter().flatten().min().unwrap_or(now + poll);
        tokio::select! {
            r = socket.recv_from(&mut buf) => {
                #[allow(clippy::disallowed_methods, reason = "this crate is where the OS clock may be read")]
                let at = Instant::now();
                if let Ok((n, from)) = r {
                    st.on_datagram(at, from, &buf[..n]);
                }
            }
            () = sleep_until(wake) => {}
        }
    }
    drop(client);
    st.run.sent.sort_by_key(|s| s.at);
    if st.run.copies.is_empty() {
        // Nothing to measure: an error, never a run the inference would read as a client
        // that does nothing.
        let last = stderr.last_line().await;
        return Err(ProbeError::NoDatagram {
            run: run + 1,
            script: format!("{:?}", script.actions()),
            uri: format!("coap://127.0.0.1:{port}/{PROBE_PATH}"),
            how: no_datagram_how(st.run.end, st.run.end_at),
            stderr: last.map_or_else(String::new, |l| format!("; its standard error ended: {l}")),
        });
    }
    Ok(st.run)
}

/// How long a separate-response run waits, after the response and its duplicate left, for
/// the client's answers to them.
pub const SEPARATE_GRACE: Duration = Duration::from_secs(2);

/// Which runs `coapcc probe client` makes.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Runs where every copy is dropped (the whole backoff and the give-up).
    pub silence_runs: u32,
    /// Runs where the first retransmission is answered at once (one first timeout each).
    pub first_timeout_runs: u32,
    /// `(rtt, answered)`: a run where `answered` exchanges are answered `rtt` after their
    /// original, then silence (needs a command that sends more than `answered` requests).
    pub rtt: Option<(Duration, usize)>,
    /// The same with the answers after the first retransmission (weak samples only).
    pub weak_rtt: Option<(Duration, usize)>,
    /// A run that shows what a retransmitted exchange carries into the next
    /// ([`Script::carry`]: Full Backoff 1 or 2).
    pub carry: bool,
    /// A run with a separate response (and its duplicate) `delay` after an empty ACK.
    pub separate: Option<Duration>,
    /// The longest one run may take.
    pub time_limit: Duration,
}

impl Plan {
    /// The scripts of the plan, in order, with their stop rules.
    pub fn runs(&self) -> Vec<(Script, RunOptions)> {
        let opts = |stop| RunOptions {
            time_limit: self.time_limit,
            stop_after_answered: stop,
            grace: Duration::from_millis(20),
        };
        let mut v = Vec::new();
        for _ in 0..self.first_timeout_runs {
            v.push((Script::first_timeout(), opts(Some(1))));
        }
        for _ in 0..self.silence_runs {
            v.push((Script::silence(), opts(None)));
        }
        if let Some((rtt, n)) = self.rtt {
            v.push((Script::rtt(rtt, n), opts(None)));
        }
        if let Some((rtt, n)) = self.weak_rtt {
            v.push((Script::weak_rtt(rtt, n), opts(None)));
        }
        if self.carry {
            v.push((Script::carry(), opts(None)));
        }
        if let Some(delay) = self.separate {
            // Long enough for a client on a loaded machine to acknowledge the response and its
            // duplicate (the run stops as soon as it has answered both, or exits).
            let grace = SEPARATE_GRACE;
            v.push((Script::separate(delay), RunOptions { grace, ..opts(Some(1)) }));
        }
        v
    }
}

/// Runs every run of `plan` in turn; `progress` is told each run's index, count and script
/// before it starts.
pub async fn run_plan(
    argv: &[String],
    plan: &Plan,
    progress: &mut dyn FnMut(usize, usize, &Script),
) -> Result<Vec<Run>, ProbeError> {
    command_for(argv, "coap://127.0.0.1/", 0)?;
    let runs = plan.runs();
    let mut out = Vec::with_capacity(runs.len());
    for (i, (script, opts)) in runs.iter().enumerate() {
        progress(i, runs.len(), script);
        out.push(run_once(argv, i, script, opts).await?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uri_replaces_every_placeholder_and_a_command_without_one_is_refused() {
        let argv: Vec<String> = ["c", "-m", "get", "{uri}"].map(String::from).to_vec();
        assert_eq!(command_for(&argv, "coap://x/p", 0).unwrap()[3], "coap://x/p");
        let e = command_for(&argv[..3], "u", 0).unwrap_err().to_string();
        assert!(e.contains("no `{uri}`"), "{e}");
        assert!(command_for(&[], "u", 0).is_err());
        let seeded: Vec<String> = ["c", "--seed", "{run}", "{uri}"].map(String::from).to_vec();
        assert_eq!(command_for(&seeded, "u", 7).unwrap(), ["c", "--seed", "7", "u"]);
    }

    #[tokio::test]
    async fn a_client_that_sends_nothing_is_an_error_naming_its_exit_and_its_last_words() {
        let argv: Vec<String> =
            ["sh", "-c", "echo starting >&2; echo cannot start: no such class >&2; exit 3", "{uri}"]
                .map(String::from)
                .to_vec();
        let opts = RunOptions { time_limit: Duration::from_secs(30), stop_after_answered: None, grace: Duration::ZERO };
        let e = run_once(&argv, 4, &Script::silence(), &opts).await.unwrap_err();
        assert!(matches!(e, ProbeError::NoDatagram { run: 5, .. }), "{e:?}");
        let text = e.to_string();
        for part in ["run 5 ([Drop])", "no datagram received", "status 3", "ended: cannot start: no such class"] {
            assert!(text.contains(part), "{part:?} not in {text}");
        }
    }

    #[test]
    fn a_plan_lists_first_timeout_runs_then_silence_then_rtt_then_carry_then_separate() {
        let plan = Plan {
            silence_runs: 1,
            first_timeout_runs: 2,
            rtt: Some((Duration::from_millis(10), 3)),
            weak_rtt: None,
            carry: true,
            separate: Some(Duration::from_millis(5)),
            time_limit: Duration::from_secs(9),
        };
        let scripts: Vec<Script> = plan.runs().into_iter().map(|(s, _)| s).collect();
        assert_eq!(
            scripts,
            [
                Script::first_timeout(),
                Script::first_timeout(),
                Script::silence(),
                Script::rtt(Duration::from_millis(10), 3),
                Script::carry(),
                Script::separate(Duration::from_millis(5))
            ]
        );
    }
}
