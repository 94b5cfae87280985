//! `coapcc client --out DIR`: the run recorded in a folder, each file written atomically
//! once the run has ended (also when it failed), every table one pandas reads as it is
//! (`pd.read_csv`, `pd.read_json`).
//!
//! | file | what |
//! |---|---|
//! | `run.json` | coapcc version, git commit, date, command line, seed, host cores (as every output folder) |
//! | `timeline.csv` | one request: one row per transmission or endpoint event ([`Row`], the lines of `-v`) |
//! | `messages.json` | one request: the response and every notification (code, options, whole payload) |
//! | `exchanges.csv`, `flows.csv` | the load generator: one row per exchange, per flow (the `--json` records) |
//! | `summary.json` | how the run ended (one request: code, notifications, error; the load generator: its summary record) |

use std::path::{Path, PathBuf};

use coapcc_proto::{Message, decode_uint, option};
use coapcc_report::{CreatedFolders, RunRecord, check_writable, command_line, write_atomic, write_run_json};
use coapcc_sim::results::{Column, Columns, csv_of};
use coapcc_udp::client::{ClientFlowRecord, ExchangeRecord};
use serde::Serialize;

use super::show;
use crate::error::CliError;

/// The folder of `--out`, checked writable before the run (a file or an unwritable folder is
/// bad input, exit status 2).
pub struct OutDir {
    dir: PathBuf,
    created: CreatedFolders,
}

impl OutDir {
    /// Checks `dir` (created if missing; removed again if the run writes nothing).
    pub fn check(dir: &Path) -> Result<OutDir, CliError> {
        Ok(OutDir { dir: dir.to_path_buf(), created: check_writable(dir)? })
    }

    /// Writes `run.json` with `seed` and every `(name, bytes)` of `files`, each atomically.
    pub fn write(self, seed: u64, files: &[(&str, Vec<u8>)]) -> Result<(), CliError> {
        write_run_json(&self.dir, &RunRecord::now(command_line()).with_seed(seed))?;
        for (name, bytes) in files {
            write_atomic(&self.dir.join(name), bytes)?;
        }
        self.created.keep();
        Ok(())
    }
}

/// One row of `timeline.csv`: a datagram sent or received, or an endpoint event, at its
/// time since the request started. Fields an event does not have are empty.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Time since the request started, milliseconds.
    pub t_ms: f64,
    /// `sent_con`, `sent_non`, `sent_ack`, `received`, `timer_expired`, `acknowledged`,
    /// `separate_response`, `reset` or `gave_up`; over TCP `tcp_connected`, `tcp_sent`,
    /// `tcp_received`, `tcp_csm` or `tcp_answered` (a response or the Pong, with its RTT).
    pub event: &'static str,
    /// The copy of the request (0: the original).
    pub copy: Option<u64>,
    /// The Message ID sent.
    pub mid: Option<u64>,
    /// Datagram size, bytes.
    pub bytes: Option<u64>,
    /// The retransmission timer armed for the copy sent, or the one that expired, ms.
    pub timer_ms: f64,
    /// Retransmissions before the exchange ended.
    pub retransmissions: Option<u64>,
    /// The CoAP RTT of an acknowledged exchange, ms.
    pub rtt_ms: f64,
    /// The response code (`2.05 Content`) of an acknowledgement or a separate response.
    pub code: String,
    /// Where a datagram came from.
    pub peer: String,
}

impl Row {
    /// An event at `t_ms` with no other field.
    pub fn at(t_ms: f64, event: &'static str) -> Row {
        Row {
            t_ms,
            event,
            copy: None,
            mid: None,
            bytes: None,
            timer_ms: f64::NAN,
            retransmissions: None,
            rtt_ms: f64::NAN,
            code: String::new(),
            peer: String::new(),
        }
    }

    /// The line `-v` prints for it.
    pub fn line(&self) -> String {
        let n = |v: Option<u64>| v.unwrap_or(0);
        let what = match self.event {
            "sent_con" => format!(
                "sent CON copy {}, MID {}, {} bytes{}",
                n(self.copy),
                n(self.mid),
                n(self.bytes),
                if self.timer_ms.is_finite() { format!(", timer {:.3} ms", self.timer_ms) } else { String::new() }
            ),
            "sent_ack" => format!("sent empty ACK, MID {}", n(self.mid)),
            "sent_non" => format!("sent NON, MID {}, {} bytes (never retransmitted)", n(self.mid), n(self.bytes)),
            "received" => format!("received {} bytes from {}", n(self.bytes), self.peer),
            "timer_expired" => format!("timer of copy {} expired ({:.3} ms)", n(self.copy), self.timer_ms),
            "acknowledged" => format!(
                "acknowledged after {} retransmission(s), RTT {:.3} ms: {}",
                n(self.retransmissions),
                self.rtt_ms,
                if self.code.is_empty() {
                    "empty ACK, the response follows separately".to_string()
                } else {
                    format!("piggybacked {}", self.code)
                }
            ),
            "separate_response" => format!("separate response {}", self.code),
            // CoAP over TCP (RFC 8323): frames, the server's CSM, answers by token.
            "tcp_connected" => format!("connected to {} (coap+tcp)", self.peer),
            "tcp_sent" => format!("sent {}, {} bytes", self.code, n(self.bytes)),
            "tcp_received" => format!("received {}, {} bytes from {}", self.code, n(self.bytes), self.peer),
            "tcp_csm" => format!("server's CSM: {}", self.code),
            "tcp_answered" => format!("answered {} after {:.3} ms", self.code, self.rtt_ms),
            "reset" => format!("reset after {} retransmission(s)", n(self.retransmissions)),
            _ => format!("gave up after {} retransmission(s)", n(self.retransmissions)),
        };
        format!("{:>10.3} ms  {what}", self.t_ms)
    }
}

/// `timeline.csv` of `rows`.
pub fn timeline_csv(rows: &[Row]) -> Vec<u8> {
    let opt = |f: fn(&Row) -> Option<u64>| Column::OptU64(rows.iter().map(f).collect());
    let f64s = |f: fn(&Row) -> f64| Column::F64(rows.iter().map(f).collect());
    let strs = |f: fn(&Row) -> String| Column::Str(rows.iter().map(f).collect());
    let columns = vec![
        ("t_ms", f64s(|r| r.t_ms)),
        ("event", strs(|r| r.event.to_string())),
        ("copy", opt(|r| r.copy)),
        ("mid", opt(|r| r.mid)),
        ("bytes", opt(|r| r.bytes)),
        ("timer_ms", f64s(|r| r.timer_ms)),
        ("retransmissions", opt(|r| r.retransmissions)),
        ("rtt_ms", f64s(|r| r.rtt_ms)),
        ("code", strs(|r| r.code.clone())),
        ("peer", strs(|r| r.peer.clone())),
    ];
    table(columns)
}

fn table(columns: Vec<(&str, Column)>) -> Vec<u8> {
    csv_of(&Columns { columns: columns.into_iter().map(|(n, c)| (n.to_string(), c)).collect() }).into_bytes()
}

/// One entry of `messages.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MessageRecord {
    /// `response` (or the registration's) or `notification`.
    pub kind: &'static str,
    /// `c.dd`.
    pub code: String,
    /// The code's name (`Content`), empty without one.
    pub code_name: String,
    /// Each option as `-v` and the printed head show it (`Observe: 5`).
    pub options: Vec<String>,
    /// The Observe sequence number, if any (RFC 7641 §4.4).
    pub observe: Option<u32>,
    /// Bytes of the whole payload (all blocks).
    pub payload_bytes: usize,
    /// The payload as text, when it is text ([`show::is_text`]); else `null`.
    pub payload_text: Option<String>,
    /// The payload as hex (`0x…`), when it is not text; else `null`.
    pub payload_hex: Option<String>,
}

impl MessageRecord {
    /// The record of `msg` with its whole `body`.
    pub fn of(kind: &'static str, msg: &Message, body: &[u8]) -> MessageRecord {
        let format = msg.option(option::CONTENT_FORMAT).and_then(decode_uint);
        let text = show::is_text(format, body);
        let code = show::code_text(msg.code);
        let (code, name) = code.split_once(' ').map_or((code.clone(), String::new()), |(c, n)| (c.into(), n.into()));
        MessageRecord {
            kind,
            code,
            code_name: name,
            options: msg.options.iter().map(|o| show::option_text(o.number, &o.value)).collect(),
            observe: msg.option(option::OBSERVE).and_then(decode_uint),
            payload_bytes: body.len(),
            payload_text: text.then(|| String::from_utf8_lossy(body).into_owned()),
            payload_hex: (!text).then(|| show::hex(body)),
        }
    }
}

/// `summary.json` of one request.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SingleSummary {
    /// The code of the (last) response, `c.dd Name`, or `null`.
    pub code: Option<String>,
    /// Whether the run succeeded (a 2.xx response).
    pub ok: bool,
    /// Notifications after the first response.
    pub notifications: u64,
    /// The observation was deregistered with an acknowledged GET (Observe 1).
    pub deregistered: bool,
    /// Why the run failed, if it did.
    pub error: Option<String>,
}

/// Pretty JSON with a final line end.
pub fn json(value: &impl Serialize) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(value).unwrap_or_default();
    v.push(b'\n');
    v
}

/// `exchanges.csv` of the load generator.
pub fn exchanges_csv(rows: &[ExchangeRecord]) -> Vec<u8> {
    let u = |f: fn(&ExchangeRecord) -> u64| Column::U64(rows.iter().map(f).collect());
    let o = |f: fn(&ExchangeRecord) -> Option<u64>| Column::OptU64(rows.iter().map(f).collect());
    let b = |f: fn(&ExchangeRecord) -> bool| Column::Bool(rows.iter().map(f).collect());
    let columns = vec![
        ("flow", u(|r| u64::from(r.flow))),
        ("request", u(|r| u64::from(r.request))),
        ("block", o(|r| r.block.map(u64::from))),
        ("start_s", Column::F64(rows.iter().map(|r| r.start_s).collect())),
        ("rtt_ms", Column::F64(rows.iter().map(|r| r.rtt_ms.unwrap_or(f64::NAN)).collect())),
        ("transmissions", u(|r| u64::from(r.transmissions))),
        // The timers of the copies, `;`-separated (one field per exchange).
        (
            "timers_ms",
            Column::Str(
                rows.iter().map(|r| r.timers_ms.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(";")).collect(),
            ),
        ),
        ("echoed_copy", o(|r| r.echoed_copy.map(u64::from))),
        ("gave_up", b(|r| r.gave_up)),
        ("reset", b(|r| r.reset)),
        ("no_response", b(|r| r.no_response)),
        ("separate", b(|r| r.separate)),
        ("code", Column::Str(rows.iter().map(|r| r.code.clone().unwrap_or_default()).collect())),
        ("payload_bytes", u(|r| r.payload_bytes as u64)),
    ];
    table(columns)
}

/// `flows.csv` of the load generator.
pub fn flows_csv(rows: &[ClientFlowRecord]) -> Vec<u8> {
    let u = |f: fn(&ClientFlowRecord) -> u64| Column::U64(rows.iter().map(f).collect());
    let columns = vec![
        ("flow", u(|r| u64::from(r.flow))),
        ("requests_ok", u(|r| u64::from(r.requests_ok))),
        ("requests_failed", u(|r| u64::from(r.requests_failed))),
        ("exchanges", u(|r| u64::from(r.exchanges))),
        ("transmissions", u(|r| u64::from(r.transmissions))),
        ("retransmissions", u(|r| u64::from(r.retransmissions))),
        ("fct_ms", Column::F64(rows.iter().map(|r| r.fct_ms).collect())),
        ("bytes_received", u(|r| r.bytes_received)),
        ("bytes_sent", u(|r| r.bytes_sent)),
    ];
    table(columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeline_row_reads_as_the_verbose_line_and_as_a_csv_row_with_empty_missing_fields() {
        let row = Row { copy: Some(1), mid: Some(7), bytes: Some(14), timer_ms: 2500.0, ..Row::at(0.25, "sent_con") };
        assert_eq!(row.line(), "     0.250 ms  sent CON copy 1, MID 7, 14 bytes, timer 2500.000 ms");
        let csv = String::from_utf8(timeline_csv(&[row])).unwrap();
        assert_eq!(
            csv,
            "t_ms,event,copy,mid,bytes,timer_ms,retransmissions,rtt_ms,code,peer\n0.25,sent_con,1,7,14,2500,,,,\n"
        );
    }

    #[test]
    fn a_message_record_splits_the_code_and_keeps_binary_payloads_as_hex() {
        let mut m = Message::empty(coapcc_proto::MessageType::Ack, 1);
        m.code = coapcc_proto::Code::CONTENT;
        m.add_option(option::OBSERVE, [5]);
        m.add_option(option::CONTENT_FORMAT, [42]);
        let r = MessageRecord::of("notification", &m, &[0xff, 0x00]);
        assert_eq!((r.code.as_str(), r.code_name.as_str(), r.observe), ("2.05", "Content", Some(5)));
        assert_eq!((r.payload_text, r.payload_hex.as_deref()), (None, Some("0xff00")));
        assert_eq!(r.options, ["Observe: 5", "Content-Format: application/octet-stream (42)"]);
    }
}
