//! The replay vectors (`tests/replay/*.replay` at the repository root, run by `coapcc replay`
//! through `coapcc_core::harness`) run through the CoAP [`Endpoint`] too: a client endpoint
//! whose server is scripted. `send` is a request, `ack` / `ack copy K` a piggybacked response
//! arriving (echoing transmission K through the transmission-count option), `wait MS`
//! advances the clock and handles every timeout due. The transmissions, give-ups and
//! acknowledgements (with their times, timers and RTOs) must be those of the
//! `.expected.jsonl` file, so the endpoint and the harness share one retransmission machine.

use std::sync::Arc;

use coapcc_core::ConfigMapper;
use coapcc_core::harness::script::{Command, parse_line};
use coapcc_core::{AnyConfig, Instant};
use coapcc_proto::{Code, EchoMode, Endpoint, EndpointConfig, Event, Message, MessageType, Token};
use coapcc_proto::{encode_uint, option};
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde_json::{Value, json};

#[path = "../../../tests/support/replay_vectors.rs"]
mod replay_vectors;

const SERVER: u32 = 0;

/// Applies `--set KEY=VALUE` overrides through serde, as the CLI does.
struct Overrides(Vec<(String, Value)>);

impl ConfigMapper for Overrides {
    type Error = String;
    fn map<T: serde::Serialize + serde::de::DeserializeOwned>(&mut self, config: T) -> Result<T, String> {
        let mut v = serde_json::to_value(config).map_err(|e| e.to_string())?;
        for (k, x) in &self.0 {
            v.as_object_mut().ok_or("not a table")?.insert(k.clone(), x.clone());
        }
        serde_json::from_value(v).map_err(|e| e.to_string())
    }
}

fn value_of(raw: &str) -> Value {
    if let Ok(b) = raw.parse::<bool>() {
        json!(b)
    } else if let Ok(i) = raw.parse::<i64>() {
        json!(i)
    } else if let Ok(f) = raw.parse::<f64>() {
        json!(f)
    } else {
        json!(raw)
    }
}

/// The algorithm configuration named by a script's `# args:` line.
fn config_of(args: &str) -> AnyConfig {
    let words: Vec<&str> = args.split_whitespace().collect();
    let mut name = None;
    let mut sets = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            "--algorithm" => {
                name = words.get(i + 1).copied();
                i += 1;
            }
            "--no-dither" => sets.push(("dither".to_string(), json!(false))),
            "--set" => {
                let (k, v) = words[i + 1].split_once('=').expect("--set KEY=VALUE");
                sets.push((k.to_string(), value_of(v)));
                i += 1;
            }
            other => panic!("unsupported replay argument `{other}`"),
        }
        i += 1;
    }
    let preset = AnyConfig::from_name(name.expect("--algorithm")).expect("a known algorithm");
    preset.map_with(&mut Overrides(sets)).expect("overrides apply")
}

fn ms(ns: u64) -> Value {
    json!(ns as f64 / 1e6)
}

/// Runs `script` through a client endpoint and returns its events as the replay's JSON objects.
fn run(script: &str) -> Vec<Value> {
    let args = script.lines().next().and_then(|l| l.strip_prefix("# args:")).expect("# args: line");
    let algorithm = Arc::new(config_of(args).build().expect("config builds"));
    let cfg = EndpointConfig { echo: EchoMode::Option, ..EndpointConfig::new(algorithm) };
    let mut ep: Endpoint<u32, Pcg64Mcg> = Endpoint::new(cfg, Pcg64Mcg::seed_from_u64(0)).expect("config builds");
    let mut now = Instant::ZERO;
    let mut out = Vec::new();
    // Every copy sent of the current exchange (Message ID, token), by copy number.
    let mut copies: Vec<(u16, Token)> = Vec::new();
    let drain =
        |ep: &mut Endpoint<u32, Pcg64Mcg>, now: Instant, out: &mut Vec<Value>, copies: &mut Vec<(u16, Token)>| {
            while let Some(t) = ep.poll_transmit() {
                if let coapcc_proto::Origin::Request { copy, .. } = t.origin {
                    copies.truncate(usize::from(copy));
                    copies.push((t.msg.mid, t.msg.token));
                }
            }
            while let Some(e) = ep.poll_event() {
                let t_ms = ms(now.as_nanos());
                match e {
                    Event::Transmitted { id, copy, timer, .. } => out.push(json!({
                        "t_ms": t_ms, "event": "transmit", "exchange": id.0, "copy": copy,
                        "timer_ms": ms(timer.as_nanos() as u64),
                    })),
                    Event::Failed { id, .. } => out.push(json!({"t_ms": t_ms, "event": "give_up", "exchange": id.0})),
                    Event::Completed { id, echoed_copy, .. } => {
                        let rto = ep.rto(&SERVER, now).map(|d| ms(d.as_nanos() as u64));
                        out.push(json!({
                            "t_ms": t_ms, "event": "ack", "exchange": id.0, "copy": echoed_copy,
                            "rto_ms": rto.unwrap_or(Value::Null),
                        }))
                    }
                    Event::TimerExpired { .. } => {}
                    other => panic!("unexpected event {other:?}"),
                }
            }
        };
    for line in script.lines() {
        match parse_line(line).unwrap_or_else(|e| panic!("`{line}`: {e}")) {
            None => {}
            Some(Command::Send) => {
                ep.request(now, SERVER, Message::con_request(Code::GET, ""));
            }
            Some(Command::Wait(d)) => {
                let to = now.saturating_add(d);
                while let Some(t) = ep.poll_timeout().filter(|t| *t <= to) {
                    now = now.max(t);
                    ep.handle_timeout(now);
                    drain(&mut ep, now, &mut out, &mut copies);
                }
                now = to;
            }
            Some(Command::Ack(copy)) => {
                let (mid, token) = copies[usize::from(copy.unwrap_or(0))];
                let mut resp = Message {
                    mtype: MessageType::Ack,
                    code: Code::CONTENT,
                    mid,
                    token,
                    options: Default::default(),
                    payload: Default::default(),
                };
                if let Some(k) = copy {
                    resp.add_option(option::TRANSMISSION_COUNT, encode_uint(u32::from(k)));
                }
                ep.handle_message(now, SERVER, Arc::new(resp));
            }
        }
        drain(&mut ep, now, &mut out, &mut copies);
    }
    out
}

/// A JSON number of milliseconds as whole nanoseconds (exact for the vectors' values).
fn normalise(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| match x {
                    Value::Number(n) if k.ends_with("_ms") => {
                        (k.clone(), json!((n.as_f64().unwrap() * 1e6).round() as u64))
                    }
                    _ => (k.clone(), x.clone()),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

#[test]
fn every_replay_vector_gives_the_same_events_through_the_endpoint() {
    let scripts = replay_vectors::scripts();
    assert!(scripts.len() >= 60, "only {} replay vectors found", scripts.len());
    let mut failures = Vec::new();
    for path in &scripts {
        let script = std::fs::read_to_string(path).unwrap();
        let expected: Vec<Value> = std::fs::read_to_string(path.with_extension("expected.jsonl"))
            .unwrap()
            .lines()
            .map(|l| normalise(&serde_json::from_str(l).unwrap()))
            .collect();
        let got: Vec<Value> = run(&script).iter().map(normalise).collect();
        if let Some(i) = replay_vectors::first_difference(&got, &expected) {
            failures.push(format!(
                "{}: first difference at event {}:\n  got:      {}\n  expected: {}",
                path.file_name().unwrap().to_string_lossy(),
                i + 1,
                got.get(i).map_or("<end>".into(), Value::to_string),
                expected.get(i).map_or("<end>".into(), Value::to_string),
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} vectors differ:\n{}", failures.len(), scripts.len(), failures.join("\n"));
}
