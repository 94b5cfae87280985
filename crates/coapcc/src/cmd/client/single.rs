//! `coapcc client URI` without the load generator's options: one request as `coap-client`
//! and `aiocoap-client` make it, through [`coapcc_udp::request`].
//!
//! Standard output: the response's code (`2.05 Content`), one line per option
//! (`Content-Format: text/plain;charset=utf-8 (0)`), an empty line, and the payload as text,
//! or as hex when it is not text ([`show::is_text`]); with Observe, the same for every
//! notification as it arrives. `-o FILE` writes the payload to FILE instead. `-v` prints the
//! timeline of the transmissions on standard error.

use std::io::{Read, Write};
use std::time::Duration;

use coapcc_proto::{Message, Payload, encode_uint, option};
use coapcc_udp::block::{MAX_SZX, size_of_szx};
use coapcc_udp::clock::os_seed;
use coapcc_udp::config::{CoapUri, parse_uri};
use coapcc_udp::request::{RequestError, RequestEvent, SingleRequest};
use coapcc_udp::runtime::TaskReport;

use super::record::{self, MessageRecord, OutDir, Row, SingleSummary};
use super::show::{self, Format};
use super::{ClientArgs, resolve, runtime, seconds};
use crate::error::CliError;

/// Runs one request (or an observation) and prints what comes back.
pub fn run(args: &ClientArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let uri = parse_uri(&args.uri).map_err(|e| CliError::usage(e.to_string()))?;
    let algorithm = coapcc_udp::config::algorithm(&args.algorithm, &args.set)?;
    let timeout = args.timeout_s.map(|t| seconds("timeout-s", t)).transpose()?;
    let exchange_lifetime = seconds("exchange-lifetime-s", args.exchange_lifetime_s)?;
    let observe = match (args.observe_s, args.observe) {
        (Some(s), _) => Some(seconds("observe-s", s)?),
        (None, true) => Some(Duration::MAX),
        (None, false) => None,
    };
    let template = template(args, &uri)?;
    let block2_szx = args.block_size.map(block_szx).transpose()?;
    let out_dir = args.out.as_deref().map(OutDir::check).transpose()?;
    let rt = runtime()?;
    let target = resolve(&rt, &args.uri, &uri)?;
    let req = SingleRequest {
        target,
        template,
        confirmable: !args.non,
        block2_szx,
        observe,
        algorithm,
        seed: args.seed.unwrap_or_else(os_seed),
        exchange_lifetime,
    };
    let seed = req.seed;
    let mut printer = Printer::new(out, args);
    let result = rt.block_on(async {
        let request = coapcc_udp::request::run(&req, interrupted(), |e| printer.event(e));
        match timeout {
            Some(t) => tokio::time::timeout(t, request).await.ok(),
            None => Some(request.await),
        }
    });
    let outcome = outcome(result, args.timeout_s);
    if let Some(dir) = out_dir {
        let (summary, error) = match &outcome {
            Ok(s) => (Some(s), None),
            Err(e) => (None, Some(e.to_string())),
        };
        let summary = SingleSummary {
            code: summary.and_then(|s| s.code).map(show::code_text),
            ok: summary.is_some_and(|s| s.code.is_some_and(|c| c.class() == 2)),
            notifications: summary.map_or(0, |s| s.notifications),
            deregistered: summary.is_some_and(|s| s.deregistered),
            error,
        };
        printer.write_out(dir, seed, &summary)?;
    }
    if let Some(e) = printer.error.take() {
        return Err(e);
    }
    let summary = outcome?;
    match summary.code {
        Some(c) if c.class() == 2 => Ok(()),
        Some(c) => Err(CliError::Failure(format!("the response was {}", show::code_text(c)))),
        None => Err(CliError::Failure("no response".into())),
    }
}

/// The request's summary, or why it has none.
fn outcome(
    result: Option<Result<coapcc_udp::request::RequestSummary, RequestError>>,
    timeout_s: Option<f64>,
) -> Result<coapcc_udp::request::RequestSummary, CliError> {
    match result {
        None => Err(CliError::Failure(format!("time-out after {} s", timeout_s.unwrap_or(0.0)))),
        Some(Err(e @ RequestError::Config(_))) => Err(CliError::usage(e.to_string())),
        Some(Err(e)) => Err(CliError::Failure(e.to_string())),
        Some(Ok(s)) => Ok(s),
    }
}

/// Resolves on SIGINT or SIGTERM (never when the handlers cannot be installed). The handlers
/// are installed when this is called (inside the runtime), not when it is first polled, so a
/// signal that arrives after the call is never lost; they replace a disposition inherited as
/// "ignored" (as a shell gives the background jobs it starts without job control).
pub(super) fn interrupted() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let streams = {
        use tokio::signal::unix::{SignalKind, signal};
        (signal(SignalKind::interrupt()), signal(SignalKind::terminate()))
    };
    async move {
        #[cfg(unix)]
        match streams {
            (Ok(mut int), Ok(mut term)) => {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
            }
            _ => std::future::pending().await,
        }
        #[cfg(not(unix))]
        std::future::pending::<()>().await
    }
}

/// The request `coapcc client` makes of `uri`: `-m`, the URI's path and query, the options of
/// `-t`, `-A` and `-O`, and the body of `-e` or `-f` (at most
/// [`coapcc_udp::client::MAX_SENT_BODY_BYTES`]).
pub(super) fn template(args: &ClientArgs, uri: &CoapUri) -> Result<Message, CliError> {
    let mut template = coapcc_udp::config::uri_request(args.method.code(), &uri.path, &uri.query)
        .map_err(|e| CliError::usage(format!("bad URI `{}`: {e}", args.uri)))?;
    for (number, value) in request_options(args)? {
        template.add_option(number, value);
    }
    template.payload = payload(args)?;
    if template.payload.len() > coapcc_udp::client::MAX_SENT_BODY_BYTES {
        return Err(CliError::usage(format!("-e/-f: at most {} bytes", coapcc_udp::client::MAX_SENT_BODY_BYTES)));
    }
    Ok(template)
}

/// The options of `-t`, `-A` and `-O`.
fn request_options(args: &ClientArgs) -> Result<Vec<(u16, Vec<u8>)>, CliError> {
    let format = |flag: &str, s: &str| {
        show::content_format(s).ok_or_else(|| {
            CliError::usage(format!(
                "{flag}: unknown content format `{s}` (a number, or e.g. text/plain, application/cbor)"
            ))
        })
    };
    let mut options = Vec::new();
    if let Some(t) = &args.content_format {
        options.push((option::CONTENT_FORMAT, encode_uint(format("-t", t)?).to_vec()));
    }
    if let Some(a) = &args.accept {
        options.push((17, encode_uint(format("-A", a)?).to_vec()));
    }
    for o in &args.options {
        options.push(extra_option(o)?);
    }
    Ok(options)
}

/// One `-O NUM,VALUE`.
fn extra_option(o: &str) -> Result<(u16, Vec<u8>), CliError> {
    let bad = |why: &str| CliError::usage(format!("-O `{o}`: {why}"));
    let (number, value) = o.split_once(',').unwrap_or((o, ""));
    let number: u16 = number.trim().parse().map_err(|_| bad("the option number must be 0-65535"))?;
    let value = if let Some(h) = value.strip_prefix("0x") {
        (0..h.len())
            .step_by(2)
            .map(|i| h.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok()))
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(|| bad("bad hex after 0x"))?
    } else if show::option_format(number) == Format::Uint || show::option_format(number) == Format::Block {
        let n: u32 = value.parse().map_err(|_| bad("this option takes a non-negative integer"))?;
        encode_uint(n).to_vec()
    } else {
        value.as_bytes().to_vec()
    };
    if value.len() > 1034 {
        return Err(bad("an option value is at most 1034 bytes (RFC 7252 §3.1)"));
    }
    Ok((number, value))
}

/// The body of `-e` or `-f` (`-f -`: standard input).
fn payload(args: &ClientArgs) -> Result<Payload, CliError> {
    if let Some(t) = &args.payload {
        return Ok(Payload::from(t.clone().into_bytes()));
    }
    let Some(path) = &args.payload_file else { return Ok(Payload::new()) };
    let mut bytes = Vec::new();
    let limit = coapcc_udp::client::MAX_SENT_BODY_BYTES as u64 + 1;
    let read = if path.as_os_str() == "-" {
        std::io::stdin().lock().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    };
    read.map_err(|e| CliError::usage(format!("-f {}: {e}", path.display())))?;
    Ok(Payload::from(bytes))
}

/// The SZX of `-b BYTES`.
pub(super) fn block_szx(bytes: usize) -> Result<u8, CliError> {
    (0..=MAX_SZX)
        .find(|s| size_of_szx(*s) == bytes)
        .ok_or_else(|| CliError::usage(format!("-b {bytes}: a block size is 16, 32, 64, 128, 256, 512 or 1024 bytes")))
}

/// Writes the events of a request as they come.
pub(super) struct Printer<'a> {
    pub(super) out: &'a mut dyn Write,
    output: Option<&'a std::path::Path>,
    pub(super) verbose: bool,
    /// The timer of the copy about to be sent (its event comes before its datagram).
    timer: Option<Duration>,
    /// A message was printed already.
    printed: bool,
    pub(super) error: Option<CliError>,
    /// The timeline so far (`--out`'s `timeline.csv`).
    pub(super) rows: Vec<Row>,
    /// The response and notifications so far (`--out`'s `messages.json`).
    pub(super) messages: Vec<MessageRecord>,
}

impl<'a> Printer<'a> {
    /// A printer to `out`, with `-o` and `-v` of `args`.
    pub(super) fn new(out: &'a mut dyn Write, args: &'a ClientArgs) -> Printer<'a> {
        Printer {
            out,
            output: args.output.as_deref(),
            verbose: args.verbose,
            timer: None,
            printed: false,
            error: None,
            rows: Vec::new(),
            messages: Vec::new(),
        }
    }

    /// Writes `--out`'s files into `dir`: `run.json` with `seed`, the timeline, the messages
    /// and `summary`.
    pub(super) fn write_out(&self, dir: OutDir, seed: u64, summary: &SingleSummary) -> Result<(), CliError> {
        dir.write(
            seed,
            &[
                ("timeline.csv", record::timeline_csv(&self.rows)),
                ("messages.json", record::json(&self.messages)),
                ("summary.json", record::json(summary)),
            ],
        )
    }

    fn event(&mut self, e: RequestEvent) {
        let res = match e {
            RequestEvent::Timeline(r) => {
                if let Some(row) = self.row(&r) {
                    if self.verbose {
                        eprintln!("{}", row.line());
                    }
                    self.rows.push(row);
                }
                Ok(())
            }
            RequestEvent::Response { response, body } => {
                self.messages.push(MessageRecord::of("response", &response, &body));
                self.message(&response, &body)
            }
            RequestEvent::Notification { message, body } => {
                self.messages.push(MessageRecord::of("notification", &message, &body));
                self.message(&message, &body)
            }
        };
        if let Err(e) = res {
            self.error.get_or_insert(e);
        }
    }

    pub(super) fn message(&mut self, msg: &Message, body: &[u8]) -> Result<(), CliError> {
        // Notifications after the first are set apart by an empty line.
        let mut text = if self.printed { "\n".to_string() } else { String::new() };
        self.printed = true;
        text.push_str(&show::head(msg));
        match self.output {
            Some(path) => {
                coapcc_report::write_atomic(path, body)?;
                text.push_str(&format!("({} bytes written to {})\n", body.len(), path.display()));
            }
            None if body.is_empty() => {}
            None => {
                let format = msg.option(option::CONTENT_FORMAT).and_then(coapcc_proto::decode_uint);
                text.push('\n');
                text.push_str(&show::payload_text(format, body));
            }
        }
        self.out.write_all(text.as_bytes())?;
        self.out.flush()?;
        Ok(())
    }

    /// The timeline row of `r` (none for the events that only prepare one).
    fn row(&mut self, r: &TaskReport) -> Option<Row> {
        use coapcc_proto::{Event, Origin};
        let ms = |at: coapcc_core::Instant| at.as_nanos() as f64 / 1e6;
        let d = |t: Duration| t.as_secs_f64() * 1e3;
        let u = |v: usize| Some(v as u64);
        Some(match r {
            TaskReport::Event { event: Event::Transmitted { timer, .. }, .. } => {
                self.timer = Some(*timer);
                return None;
            }
            TaskReport::Sent { at, origin: Origin::Request { copy, .. }, len_bytes, mid, .. } => Row {
                copy: Some(u64::from(*copy)),
                mid: Some(u64::from(*mid)),
                bytes: u(*len_bytes),
                timer_ms: self.timer.take().map_or(f64::NAN, d),
                ..Row::at(ms(*at), "sent_con")
            },
            TaskReport::Sent { at, len_bytes: 4, mid, .. } => {
                Row { mid: Some(u64::from(*mid)), bytes: Some(4), ..Row::at(ms(*at), "sent_ack") }
            }
            TaskReport::Sent { at, len_bytes, mid, .. } => {
                Row { mid: Some(u64::from(*mid)), bytes: u(*len_bytes), ..Row::at(ms(*at), "sent_non") }
            }
            TaskReport::Received { at, from, len_bytes } => {
                Row { bytes: u(*len_bytes), peer: from.to_string(), ..Row::at(ms(*at), "received") }
            }
            TaskReport::Event { at, event: Event::TimerExpired { copy, timer, .. } } => {
                Row { copy: Some(u64::from(*copy)), timer_ms: d(*timer), ..Row::at(ms(*at), "timer_expired") }
            }
            TaskReport::Event { at, event: Event::Completed { rtt, retransmissions, response, .. } } => Row {
                retransmissions: Some(u64::from(*retransmissions)),
                rtt_ms: d(*rtt),
                code: response.as_ref().map(|r| show::code_text(r.code)).unwrap_or_default(),
                ..Row::at(ms(*at), "acknowledged")
            },
            TaskReport::Event { at, event: Event::Response { response, .. } } => {
                Row { code: show::code_text(response.code), ..Row::at(ms(*at), "separate_response") }
            }
            TaskReport::Event { at, event: Event::Failed { retransmissions, reset, .. } } => Row {
                retransmissions: Some(u64::from(*retransmissions)),
                ..Row::at(ms(*at), if *reset { "reset" } else { "gave_up" })
            },
            TaskReport::Event { event: Event::Request { .. }, .. } => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use coapcc_proto::Code;

    use super::*;

    #[test]
    fn extra_options_take_integers_hex_or_text_by_the_options_format() {
        // Observe (6) and Max-Age (14) are uint options: minimal big-endian (RFC 7252 §3.2).
        assert_eq!(extra_option("6,0").unwrap(), (6, vec![]));
        assert_eq!(extra_option("14,300").unwrap(), (14, vec![0x01, 0x2c]));
        assert_eq!(extra_option("4,0xbeef").unwrap(), (4, vec![0xbe, 0xef]));
        assert_eq!(extra_option("15,a=b").unwrap(), (15, b"a=b".to_vec()));
        assert!(extra_option("70000,1").is_err());
        assert!(extra_option("14,abc").is_err());
        assert!(extra_option("4,0xzz").is_err());
        assert_eq!(block_szx(64).unwrap(), 2);
        assert!(block_szx(100).is_err());
    }

    #[test]
    fn a_method_code_is_that_of_rfc_7252() {
        assert_eq!(super::super::Method::Delete.code(), Code(4));
    }
}
