//! `coapcc client coap+tcp://…`: one request (or `--ping`) over CoAP over TCP (RFC 8323)
//! through [`coapcc_udp::tcp::client`], printed as the UDP client prints it (code, options,
//! payload; `-o`, `--out`), with `-v` showing every frame.
//!
//! There is no congestion-control algorithm at the CoAP layer on TCP: `--algorithm` other than
//! `default` and `--set` are refused (exit status 2), as are the options that make no sense on
//! a reliable transport (`-N`) or are not offered over TCP (Observe, the load generator).

use std::io::Write;

use coapcc_proto::Code;
use coapcc_proto::tcp::signal_name;
use coapcc_udp::clock::os_seed;
use coapcc_udp::config::CoapUri;
use coapcc_udp::tcp::client::{TcpEvent, TcpRequest, TcpSummary};

use super::record::{MessageRecord, OutDir, Row, SingleSummary};
use super::show;
use super::single::{Printer, block_szx, template};
use super::{ClientArgs, resolve, runtime, seconds};
use crate::error::CliError;

/// `c.dd Name` of a code, signals by their RFC 8323 names.
fn code_text(code: Code) -> String {
    match signal_name(code) {
        Some(name) => format!("{}.{:02} {name}", code.class(), code.0 & 0x1f),
        None if code == Code::EMPTY => "0.00 Empty".into(),
        None => show::code_text(code),
    }
}

/// The first option that does not apply over TCP, with why.
fn refused(args: &ClientArgs) -> Option<String> {
    if args.algorithm != "default" || !args.set.is_empty() {
        return Some(format!(
            "--algorithm {}{}: CoAP over TCP has no CoAP-layer congestion control (TCP paces the connection); drop --algorithm and --set for coap+tcp://",
            args.algorithm,
            if args.set.is_empty() { "" } else { " --set" }
        ));
    }
    let load = [
        (args.count.is_some(), "--count"),
        (args.flows.is_some(), "--flows"),
        (args.json, "--json"),
        (args.payload_bytes.is_some(), "--payload-bytes"),
    ];
    if let Some((_, flag)) = load.iter().find(|(given, _)| *given) {
        return Some(format!("{flag}: the load generator runs over UDP only (coap://)"));
    }
    if args.non {
        return Some("-N: CoAP over TCP has no message types (RFC 8323 §3.2); drop -N".into());
    }
    if args.observe || args.observe_s.is_some() {
        return Some("-s/--observe: Observe over coap+tcp:// is not offered by this client".into());
    }
    None
}

/// Runs one request over TCP and prints what comes back.
pub fn run(args: &ClientArgs, uri: CoapUri, out: &mut dyn Write) -> Result<(), CliError> {
    if let Some(why) = refused(args) {
        return Err(CliError::usage(why));
    }
    let timeout = args.timeout_s.map(|t| seconds("timeout-s", t)).transpose()?;
    let answer_timeout = seconds("exchange-lifetime-s", args.exchange_lifetime_s)?;
    let template = template(args, &uri)?;
    let block2_szx = args.block_size.map(block_szx).transpose()?;
    let out_dir = args.out.as_deref().map(OutDir::check).transpose()?;
    let rt = runtime()?;
    let target = resolve(&rt, &args.uri, &uri)?;
    let req = TcpRequest { target, template, block2_szx, ping: args.ping, answer_timeout };
    // The seed only names the run in `--out`'s run.json (nothing here is random).
    let seed = args.seed.unwrap_or_else(os_seed);
    let mut printer = Printer::new(out, args);
    let peer = target.to_string();
    // None: the time-out passed; Some(None): a signal stopped the run.
    let result = rt.block_on(async {
        let request = coapcc_udp::tcp::client::run(&req, |e| event(&mut printer, &peer, e));
        let bounded = async {
            match timeout {
                Some(t) => tokio::time::timeout(t, request).await.ok(),
                None => Some(request.await),
            }
        };
        tokio::select! {
            r = bounded => r.map(Some),
            () = super::single::interrupted() => Some(None),
        }
    });
    let outcome: Result<TcpSummary, CliError> = match result {
        None => Err(CliError::Failure(format!("time-out after {} s", args.timeout_s.unwrap_or(0.0)))),
        Some(None) => Err(CliError::Failure("stopped by a signal".into())),
        Some(Some(Err(e))) => Err(CliError::Failure(e.to_string())),
        Some(Some(Ok(s))) => Ok(s),
    };
    if let Some(dir) = out_dir {
        let summary = SingleSummary {
            code: outcome.as_ref().ok().and_then(|s| s.code).map(code_text),
            ok: outcome.as_ref().is_ok_and(|s| s.code.is_none_or(|c| c.class() == 2)),
            notifications: 0,
            deregistered: false,
            error: outcome.as_ref().err().map(ToString::to_string),
        };
        printer.write_out(dir, seed, &summary)?;
    }
    if let Some(e) = printer.error.take() {
        return Err(e);
    }
    match outcome?.code {
        None => Ok(()),
        Some(c) if c.class() == 2 => Ok(()),
        Some(c) => Err(CliError::Failure(format!("the response was {}", show::code_text(c)))),
    }
}

/// One event: a timeline row (printed with `-v`), or the response / Pong on stdout.
fn event(p: &mut Printer<'_>, peer: &str, e: TcpEvent) {
    let ms = |at: coapcc_core::Instant| at.as_nanos() as f64 / 1e6;
    let row = match e {
        TcpEvent::Connected { at, local } => {
            Row { peer: format!("{peer} from {local}"), ..Row::at(ms(at), "tcp_connected") }
        }
        TcpEvent::Sent { at, code, token, bytes } => Row {
            bytes: Some(bytes as u64),
            code: format!("{}{}", code_text(code), token_text(token)),
            ..Row::at(ms(at), "tcp_sent")
        },
        TcpEvent::Received { at, code, token, bytes } => Row {
            bytes: Some(bytes as u64),
            code: format!("{}{}", code_text(code), token_text(token)),
            peer: peer.to_string(),
            ..Row::at(ms(at), "tcp_received")
        },
        TcpEvent::PeerCsm { at, settings, bert } => Row {
            code: format!(
                "Max-Message-Size {}{}, BERT {}",
                settings.max_message_bytes,
                if settings.block_wise_transfer { ", Block-Wise-Transfer" } else { "" },
                if bert { "allowed" } else { "not allowed" }
            ),
            ..Row::at(ms(at), "tcp_csm")
        },
        TcpEvent::Answered { at, code, rtt } => {
            Row { code: code_text(code), rtt_ms: rtt.as_secs_f64() * 1e3, ..Row::at(ms(at), "tcp_answered") }
        }
        TcpEvent::Pong { at, rtt, custody } => {
            let row = Row {
                code: format!("7.03 Pong{}", if custody { " (Custody)" } else { "" }),
                rtt_ms: rtt.as_secs_f64() * 1e3,
                ..Row::at(ms(at), "tcp_answered")
            };
            let line = format!("{} (RTT {:.3} ms)\n", row.code, row.rtt_ms);
            if let Err(e) = p.out.write_all(line.as_bytes()).and_then(|()| p.out.flush()) {
                p.error.get_or_insert(e.into());
            }
            row
        }
        TcpEvent::Response { response, body } => {
            p.messages.push(MessageRecord::of("response", &response, &body));
            if let Err(e) = p.message(&response, &body) {
                p.error.get_or_insert(e);
            }
            return;
        }
    };
    if p.verbose {
        eprintln!("{}", row.line());
    }
    p.rows.push(row);
}

fn token_text(token: coapcc_proto::Token) -> String {
    if token.is_empty() { String::new() } else { format!(", token {}", show::hex(token.as_bytes())) }
}
