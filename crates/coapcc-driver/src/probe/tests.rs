//! The inference on synthetic stacks whose answers are known: an RFC 7252 stack, and stacks
//! with each of the bugs real stacks had (coap-rs without randomisation, go-coap's linear
//! spacing, Contiki-NG without the final wait, Zephyr's 3 retransmissions and its fixed first
//! timeout).

use std::time::Duration;

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::*;

fn d(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

/// Copies of one exchange at `times_s` (seconds since the client started), then the client
/// exits at `exit_s`.
fn silent_run(times_s: &[f64], exit_s: f64) -> Run {
    Run {
        script: Script::silence(),
        copies: times_s
            .iter()
            .enumerate()
            .map(|(i, &t)| Copy { at: d(t), port: 40000, exchange: 0, copy: i as u8 })
            .collect(),
        replies: Vec::new(),
        sent: Vec::new(),
        end_at: d(exit_s),
        end: End::Exited(Some(1)),
    }
}

/// The original at 10 ms, its first retransmission `t0_s` later, answered at once.
fn first_timeout_run(t0_s: f64) -> Run {
    let t1 = 0.01 + t0_s;
    Run {
        script: Script::first_timeout(),
        copies: vec![
            Copy { at: d(0.01), port: 40000, exchange: 0, copy: 0 },
            Copy { at: d(t1), port: 40000, exchange: 0, copy: 1 },
        ],
        replies: Vec::new(),
        sent: vec![Sent { at: d(t1), exchange: 0, kind: SentKind::Piggybacked, copy: 0 }],
        end_at: d(t1 + 0.002),
        end: End::Exited(Some(0)),
    }
}

/// A stack whose unanswered request leaves at the cumulative sums of `timeouts_s` and gives up
/// `final_s` after its last copy.
fn stack(timeouts_s: &[f64], final_s: f64) -> Run {
    let mut t = vec![0.01];
    for x in timeouts_s {
        t.push(t.last().unwrap() + x);
    }
    let exit = t.last().unwrap() + final_s;
    silent_run(&t, exit)
}

fn draws(n: usize, lo: f64, hi: f64, seed: u64) -> Vec<f64> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..n).map(|_| lo + (hi - lo) * (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64).collect()
}

fn doubling(t0: f64, retransmissions: u32) -> Vec<f64> {
    (0..retransmissions).map(|i| t0 * f64::from(1u32 << i)).collect()
}

/// Every rule broken or not followed: violations, then warnings.
fn rules(f: &Findings) -> Vec<(&'static str, Kind, String)> {
    f.violations.iter().chain(&f.warnings).map(|v| (v.rule, v.kind, v.finding.clone())).collect()
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a / b - 1.0).abs() <= rel
}

#[test]
fn an_rfc_7252_stack_gives_its_parameters_within_five_percent_and_no_violation() {
    let mut runs: Vec<Run> = draws(30, 2.0, 3.0, 1).into_iter().map(first_timeout_run).collect();
    let t0 = 2.4;
    runs.push(stack(&doubling(t0, 4), 16.0 * t0));
    let f = infer(&runs, &Options::default());
    assert!(close(f.ack_timeout_s.unwrap(), 2.0, 0.05), "{:?}", f.ack_timeout_s);
    assert!(close(f.ack_random_factor_max.unwrap(), 1.5, 0.05), "{:?}", f.ack_random_factor_max);
    let ci = f.ack_timeout_ci_s.unwrap();
    assert!(ci[0] <= 2.0 && 2.0 <= ci[1], "{ci:?}");
    assert!(close(f.backoff_factor.unwrap(), 2.0, 1e-9));
    assert_eq!(f.max_retransmit, Some(4));
    assert!(close(f.total_wait_s.unwrap(), 31.0 * t0, 1e-9));
    assert_eq!(f.nstart, Some(1));
    assert!(f.violations.is_empty(), "{:?}", f.violations);
    assert!(f.conforms(false));
    // `default-aggressive` is `default` with ACK_TIMEOUT 1 s: fitted, the same configuration
    // (and `default` needs no scaling); the Full Backoff presets differ only in what a
    // retransmitted exchange carries into the next, which these runs do not show.
    assert_eq!(f.closest_algorithm.as_deref(), Some("default"));
    assert_eq!(f.same_algorithm, ["default-aggressive"]);
    for other in ["default-fb1", "default-fb2"] {
        assert!(f.tied_with.iter().any(|t| t == other), "{other} not tied: {:?}", f.tied_with);
    }
    let best = &f.candidates[0];
    assert_eq!(best.family, "backoff");
    let ack_ms = best.settings.iter().find(|(k, _)| k == "ack_timeout_ms").unwrap().1;
    assert!(close(ack_ms, 2000.0, 0.05), "{ack_ms}");
    assert!(best.distance < 0.02, "{best:?}");
}

#[test]
fn coap_rs_without_randomisation_does_not_follow_the_should_of_section_4_8() {
    // coap-rs #143: every run identical, 2 s doubled. RFC 7252 §4.8: ACK_RANDOM_FACTOR "MUST
    // NOT be decreased below 1.0, and it SHOULD have a value that is sufficiently different
    // from 1.0": 1.0 breaks the SHOULD only, a warning that does not fail.
    let mut runs: Vec<Run> = (0..30).map(|_| first_timeout_run(2.0)).collect();
    runs.push(stack(&doubling(2.0, 4), 32.0));
    let f = infer(&runs, &Options::default());
    assert!(f.ack_random_factor_max.unwrap() < 1.001, "{:?}", f.ack_random_factor_max);
    assert!(close(f.ack_timeout_s.unwrap(), 2.0, 0.001));
    let r = rules(&f);
    assert!(
        r.iter().any(|(rule, kind, what)| *rule == "RFC 7252 §4.8"
            && *kind == Kind::Recommendation
            && what.contains("not randomised")),
        "{r:?}"
    );
    assert_eq!(r.len(), 1, "only the randomisation is wrong: {r:?}");
    assert!(f.violations.is_empty() && f.warnings.len() == 1, "{f:?}");
    assert!(f.conforms(false));
}

#[test]
fn go_coap_linear_spacing_breaks_the_doubling() {
    // go-coap #656: copy n at start + n × ACK_TIMEOUT, no random factor.
    let mut runs: Vec<Run> = (0..10).map(|_| first_timeout_run(2.0)).collect();
    runs.push(stack(&[2.0; 4], 2.0));
    let f = infer(&runs, &Options::default());
    assert!(close(f.backoff_factor.unwrap(), 1.0, 1e-9));
    let r = rules(&f);
    assert!(
        r.iter().any(|(rule, kind, what)| *rule == "RFC 7252 §4.2"
            && *kind == Kind::Requirement
            && what.contains("linear spacing")),
        "{r:?}"
    );
    assert!(r.iter().any(|(_, _, what)| what.contains("not randomised")), "{r:?}");
    // The closest algorithm is one with constant timers (rate-based: BDP or MBC).
    assert_eq!(f.candidates[0].family, "rate-based", "{:?}", &f.candidates[..3]);
}

#[test]
fn contiki_ng_without_the_final_wait_gives_up_too_early() {
    // Contiki-NG PR #630: the exchange is abandoned right after the last retransmission.
    let mut runs: Vec<Run> = draws(30, 2.0, 3.0, 2).into_iter().map(first_timeout_run).collect();
    runs.push(stack(&doubling(2.2, 4), 0.005));
    let f = infer(&runs, &Options::default());
    assert!(f.final_wait_s.unwrap() < 0.01);
    let r = rules(&f);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].0, "RFC 7252 §4.2");
    assert!(r[0].2.contains("without waiting for the timeout of its last retransmission"), "{r:?}");
}

#[test]
fn zephyr_with_three_retransmissions_changes_the_default_max_retransmit() {
    // Zephyr PR #6168: 3 retransmissions instead of 4.
    let mut runs: Vec<Run> = draws(30, 2.0, 3.0, 3).into_iter().map(first_timeout_run).collect();
    runs.push(stack(&doubling(2.6, 3), 8.0 * 2.6));
    let f = infer(&runs, &Options::default());
    assert_eq!(f.max_retransmit, Some(3));
    let r = rules(&f);
    assert_eq!(r, [("RFC 7252 §4.8", Kind::Default, "MAX_RETRANSMIT is 3, not the default 4".to_string())]);
    assert!(!f.conforms(false));
    assert!(f.conforms(true), "a changed default alone is allowed with --allow-tuned");
    // The closest algorithm is fitted to three retransmissions.
    let best = &f.candidates[0];
    assert_eq!(best.algorithm, "default");
    assert_eq!(best.settings.iter().find(|(k, _)| k == "max_retransmit").unwrap().1, 3.0);
}

#[test]
fn zephyr_with_a_fixed_first_timeout_is_not_randomised() {
    // Zephyr before PR #31406: the initial ACK timeout was not randomised.
    let mut runs: Vec<Run> = (0..30).map(|i| first_timeout_run(2.0 + 1e-4 * f64::from(i % 3))).collect();
    runs.push(stack(&doubling(2.0, 4), 32.0));
    let f = infer(&runs, &Options::default());
    let r = rules(&f);
    assert!(r.iter().any(|(_, _, what)| what.contains("not randomised")), "{r:?}");
    assert!(f.ack_random_factor_max_ci.unwrap()[1] < 1.01);
}

#[test]
fn a_run_with_one_sample_reports_its_first_timeout_without_an_interval() {
    let f = infer(&[stack(&doubling(2.5, 4), 40.0)], &Options::default());
    assert_eq!(f.ack_timeout_s, Some(2.5));
    assert_eq!(f.ack_timeout_ci_s, None);
    assert_eq!(f.ack_random_factor_max, None);
    assert!(f.violations.is_empty(), "{:?}", f.violations);
}

/// Runs replayed by a registered algorithm (its replay is the reference): copies and the
/// give-up as the replay has them, 10 ms after the client started.
fn replayed_run(name: &str, script: Script, seed: u64, exchanges: usize, gap: Duration) -> Run {
    use crate::replay::{ScriptedExchange, run_scripted};
    use coapcc_core::harness::Event;
    let controller = coapcc_core::AnyConfig::from_name(name).unwrap().build().unwrap();
    let start = d(0.01);
    // Each exchange starts `gap` after the previous one ends (run_scripted waits for that).
    let mut scripted = Vec::new();
    for i in 0..exchanges {
        scripted.push(ScriptedExchange { start: gap * i as u32, answer: script.action(i).answer(), echo: false });
    }
    let (mut copies, mut sent, mut end) = (Vec::new(), Vec::new(), Duration::ZERO);
    let mut counts = vec![0u8; exchanges];
    run_scripted(&controller, &scripted, seed, &mut |e| match e {
        Event::Transmit { at, exchange, .. } => {
            let x = exchange as usize - 1;
            copies.push(Copy { at: start + at.since_epoch(), port: 40000, exchange: x as u32, copy: counts[x] });
            counts[x] += 1;
        }
        Event::Ack { at, exchange, .. } => sent.push(Sent {
            at: start + at.since_epoch(),
            exchange: exchange - 1,
            kind: SentKind::Piggybacked,
            copy: 0,
        }),
        Event::GiveUp { at, .. } => end = start + at.since_epoch(),
    });
    Run { script, copies, replies: Vec::new(), sent, end_at: end, end: End::Exited(Some(1)) }
}

#[test]
fn timelines_of_distinct_shapes_are_named_after_the_algorithm_that_made_them() {
    // Not FASOR: a fresh FASOR client draws F in [2.17, 2.67) s and doubles it, which Default
    // CoAP scaled to 0.9 ([1.8, 2.7) s) matches draw for draw (the nearest draw cannot tell a
    // narrower window from a wider one); its Slow RTO shows only after retransmitted exchanges.
    for name in ["uip", "idc", "four-state"] {
        let mut runs: Vec<Run> =
            (0..8).map(|s| replayed_run(name, Script::first_timeout(), 100 + s, 1, Duration::ZERO)).collect();
        runs.push(replayed_run(name, Script::silence(), 7, 1, Duration::ZERO));
        let f = infer(&runs, &Options::default());
        let best = &f.candidates[0];
        assert!(best.algorithm == name || f.tied_with.iter().any(|t| t == name), "{name}: {:?}", &f.candidates[..3]);
        // The scale is known only as far as the draws pin it down: a client whose first
        // timeouts were drawn from the preset's window [lo, hi] is matched by every scale s with
        // s·lo ≤ the smallest and s·hi ≥ the largest first timeout seen (1 % for the 64 draws
        // the window and the match are taken from); a client that draws nothing pins it to 1.
        let preset = coapcc_core::AnyConfig::from_name(name).unwrap();
        let [lo, hi] = windows(&preset).unwrap().copies_s[0];
        let seen = |pick: fn(f64, f64) -> f64| f.first_timeouts_s.iter().copied().reduce(pick).unwrap();
        let (least, most) = (seen(f64::max) / hi * 0.99, seen(f64::min) / lo * 1.01);
        assert!(least <= 1.0 && 1.0 <= most, "{name}: the window of consistent scales [{least}, {most}] misses 1");
        assert!((least..=most).contains(&best.scale), "{name}: scale {} outside [{least}, {most}]", best.scale);
    }
}

#[test]
fn lims_first_timers_in_half_second_ticks_give_its_ack_timeout_and_factor_on_the_lattice() {
    // Spec §9.3: the first timer is the RTO (3 s before any sample) plus a whole number of
    // 0.5 s ticks below it: 3.0, 3.5, … 5.5 s, so ACK_TIMEOUT 3 s and ACK_RANDOM_FACTOR 5.5/3.
    for name in ["lim", "uip-dither"] {
        let runs: Vec<Run> =
            (0..30).map(|s| replayed_run(name, Script::first_timeout(), 100 + s, 1, Duration::ZERO)).collect();
        let f = infer(&runs, &Options::default());
        assert!(close(f.first_timeout_step_s.unwrap(), 0.5, 1e-6), "{name}: {:?}", f.first_timeout_fit);
        assert!(close(f.ack_timeout_s.unwrap(), 3.0, 1e-6), "{name}: {:?}", f.first_timeout_fit);
        assert!(close(f.ack_random_factor_max.unwrap(), 5.5 / 3.0, 1e-6), "{name}: {:?}", f.first_timeout_fit);
        let ci = f.ack_timeout_ci_s.unwrap();
        assert!(ci[0] <= 3.0 && 3.0 <= ci[1] && ci[1] - ci[0] < 0.01, "{name}: {ci:?}");
    }
    // Default CoAP's continuous draws stay continuous.
    let runs: Vec<Run> =
        (0..30).map(|s| replayed_run("default", Script::first_timeout(), 100 + s, 1, Duration::ZERO)).collect();
    assert_eq!(infer(&runs, &Options::default()).first_timeout_step_s, None);
}

#[test]
fn a_timeout_that_follows_strong_rtt_samples_shows_adaptation() {
    // Ten exchanges answered 50 ms after their original, then silence: CoCoA's RTO falls
    // towards the samples, Default CoAP's stays in [2, 3) s.
    let script = Script::rtt(Duration::from_millis(50), 10);
    let gap = Duration::from_millis(200);
    for (name, adapts) in [("cocoa", true), ("default", false)] {
        let mut runs: Vec<Run> =
            (0..10).map(|s| replayed_run(name, Script::first_timeout(), s, 1, Duration::ZERO)).collect();
        runs.push(replayed_run(name, script.clone(), 3, 11, gap));
        let f = infer(&runs, &Options::default());
        assert_eq!(f.adapts_to_rtt, Some(adapts), "{name}: {:?}", f.after_strong);
        assert_eq!(f.after_strong.unwrap().samples, 10);
    }
}

#[test]
fn separate_responses_not_acknowledged_or_with_retransmissions_are_violations() {
    let script = Script::separate(Duration::from_millis(100));
    let copy = |t: f64, i: u8| Copy { at: d(t), port: 40000, exchange: 0, copy: i };
    let sent = vec![
        Sent { at: d(0.011), exchange: 0, kind: SentKind::EmptyAck, copy: 0 },
        Sent { at: d(0.111), exchange: 0, kind: SentKind::Separate, copy: 0 },
        Sent { at: d(0.112), exchange: 0, kind: SentKind::Separate, copy: 1 },
    ];
    let good = Run {
        script: script.clone(),
        copies: vec![copy(0.01, 0)],
        replies: vec![
            ClientReply { at: d(0.1115), exchange: 0, kind: ReplyKind::Ack },
            ClientReply { at: d(0.1125), exchange: 0, kind: ReplyKind::Ack },
        ],
        sent: sent.clone(),
        end_at: d(0.2),
        end: End::Exited(Some(0)),
    };
    let f = infer(std::slice::from_ref(&good), &Options::default());
    let h = f.separate.unwrap();
    assert_eq!((h.exchanges, h.acknowledged, h.duplicates_sent, h.duplicates_acknowledged), (1, 1, 1, 1));
    assert!(f.violations.is_empty(), "{:?}", f.violations);
    // Retransmits after the empty ACK, never acknowledges the duplicate.
    let bad = Run {
        copies: vec![copy(0.01, 0), copy(2.5, 1)],
        replies: vec![ClientReply { at: d(0.1115), exchange: 0, kind: ReplyKind::Ack }],
        ..good.clone()
    };
    let f = infer(std::slice::from_ref(&bad), &Options::default());
    let r: Vec<String> = f.violations.iter().map(|v| v.finding.clone()).collect();
    assert!(r.iter().any(|w| w.contains("retransmits a request after its empty ACK")), "{r:?}");
    // Its endpoint was still open after the duplicate (it sent a copy from the same port):
    // §4.5's SHOULD not followed, a warning.
    let w: Vec<(Kind, String)> = f.warnings.iter().map(|v| (v.kind, v.finding.clone())).collect();
    assert!(
        w.iter().any(|(k, w)| *k == Kind::Recommendation && w.contains("does not acknowledge the duplicate")),
        "{w:?}"
    );
    // A Reset for the duplicate (aiocoap's answer) is not the same ACK (RFC 7252 §4.5).
    let reset = Run {
        replies: vec![
            ClientReply { at: d(0.1115), exchange: 0, kind: ReplyKind::Ack },
            ClientReply { at: d(0.1125), exchange: 0, kind: ReplyKind::Reset },
        ],
        ..good.clone()
    };
    let f = infer(&[reset], &Options::default());
    assert_eq!(f.separate.unwrap().duplicates_reset, 1);
    assert!(f.violations.is_empty() && f.conforms(false), "{:?}", f.violations);
    let r: Vec<(&str, Kind, String)> = f.warnings.into_iter().map(|v| (v.rule, v.kind, v.finding)).collect();
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!((r[0].0, r[0].1), ("RFC 7252 §4.5", Kind::Recommendation));
    assert!(r[0].2.contains("with a Reset, not the same ACK"), "{r:?}");
    // A one-shot client that acknowledges the response and sends nothing afterwards may have
    // closed its endpoint before the duplicate came: not judged, no violation.
    let gone = Run { replies: vec![ClientReply { at: d(0.1115), exchange: 0, kind: ReplyKind::Ack }], ..good.clone() };
    let f = infer(&[gone], &Options::default());
    let h = f.separate.unwrap();
    assert_eq!((h.acknowledged, h.duplicates_sent, h.duplicates_not_judged, h.duplicates_ignored), (1, 1, 1, 0));
    assert!(f.violations.is_empty(), "{:?}", f.violations);
    // The same when its ACK of the first copy arrives after the duplicate left and it exits
    // (Californium's one-shot client, measured): that ACK answers the first copy and shows
    // nothing about the endpoint after the duplicate. Not judged, no warning.
    let late = Run {
        replies: vec![ClientReply { at: d(0.119), exchange: 0, kind: ReplyKind::Ack }],
        end_at: d(0.13),
        end: End::Exited(Some(0)),
        ..good.clone()
    };
    let f = infer(&[late], &Options::default());
    let h = f.separate.unwrap();
    assert_eq!((h.acknowledged, h.duplicates_not_judged, h.duplicates_ignored), (1, 1, 0));
    assert!(f.violations.is_empty() && f.warnings.is_empty(), "{:?} {:?}", f.violations, f.warnings);
    // A run the probe stopped as soon as both copies were answered (well within the grace
    // after the response) still counts the exchange: the answers settle it.
    let stopped = Run { end_at: d(0.1126), end: End::Stopped, ..good };
    let h = infer(&[stopped], &Options::default()).separate.unwrap();
    assert_eq!((h.exchanges, h.acknowledged, h.duplicates_acknowledged), (1, 1, 1));
}

#[test]
fn overlapping_exchanges_from_one_port_count_towards_nstart() {
    // Three requests leave at once, each retransmitted 2 s later: none waited for another.
    let copies = (0..6)
        .map(|k| {
            let (i, copy) = (k % 3, (k / 3) as u8);
            Copy { at: d(0.01 + 0.001 * f64::from(i) + 2.0 * f64::from(copy)), port: 40000, exchange: i, copy }
        })
        .collect();
    let run = Run {
        script: Script::silence(),
        copies,
        replies: Vec::new(),
        sent: Vec::new(),
        end_at: d(3.0),
        end: End::Stopped,
    };
    let f = infer(&[run], &Options::default());
    assert_eq!(f.nstart, Some(3));
    assert!(f.violations.iter().any(|v| v.rule == "RFC 7252 §4.7" && v.kind == Kind::Default), "{:?}", f.violations);
}

#[test]
fn a_stack_with_a_one_second_ack_timeout_is_named_default_aggressive_the_same_algorithm_as_default() {
    // Betzler's CoAP_B: RFC 7252 with ACK_TIMEOUT 1 s.
    let mut runs: Vec<Run> = draws(30, 1.0, 1.5, 4).into_iter().map(first_timeout_run).collect();
    runs.push(stack(&doubling(1.2, 4), 16.0 * 1.2));
    let f = infer(&runs, &Options::default());
    assert_eq!(f.closest_algorithm.as_deref(), Some("default-aggressive"), "{:?}", &f.candidates[..3]);
    assert_eq!(f.same_algorithm, ["default"]);
    let ack_ms = f.candidates[0].settings.iter().find(|(k, _)| k == "ack_timeout_ms").unwrap().1;
    assert!(close(ack_ms, 1000.0, 0.05), "{ack_ms}");
}

/// Runs of `name` replayed on the long-lived scripts (strong and weak samples of `rtt`, the
/// carry run) after `fresh` first-timeout runs and a silence run.
fn long_lived(name: &str, rtt: Duration, fresh: u64) -> Vec<Run> {
    let gap = Duration::from_millis(50);
    let mut runs: Vec<Run> =
        (0..fresh).map(|s| replayed_run(name, Script::first_timeout(), 100 + s, 1, Duration::ZERO)).collect();
    runs.push(replayed_run(name, Script::silence(), 7, 1, Duration::ZERO));
    runs.push(replayed_run(name, Script::rtt(rtt, 6), 8, 7, gap));
    runs.push(replayed_run(name, Script::weak_rtt(rtt, 6), 9, 7, gap));
    runs.push(replayed_run(name, Script::carry(), 10, 3, gap));
    runs
}

#[test]
fn full_backoff_1_and_2_are_told_apart_by_the_exchange_after_a_clean_one() {
    // The carry run: exchange 1 ends after two retransmissions (timer 4·T0 carried), exchange
    // 2 is clean: FB1 forgets the carry (exchange 3 draws afresh in [2, 3) s), FB2 halves it
    // (2·T0 ≥ 4 s). Pesola 2020 §5.1; docs/algorithms.md#default-fb2.
    for name in ["default-fb1", "default-fb2"] {
        let f = infer(&long_lived(name, Duration::from_millis(100), 8), &Options::default());
        assert_eq!(f.closest_algorithm.as_deref(), Some(name), "{:?}", &f.candidates[..4]);
        assert!(f.tied_with.is_empty() && f.same_algorithm.is_empty(), "{f:?}");
    }
}

#[test]
fn cocoa_strong_is_told_from_cocoa_and_from_default_coap_by_its_rtt_runs() {
    // CoCoA-strong adapts to strong samples only (no weak estimator): Default CoAP adapts to
    // neither, CoCoA to both.
    for name in ["cocoa-strong", "cocoa", "default"] {
        let f = infer(&long_lived(name, Duration::from_millis(100), 8), &Options::default());
        assert_eq!(f.closest_algorithm.as_deref(), Some(name), "{:?}", &f.candidates[..4]);
    }
}

#[test]
fn cocoa_and_cocoa_plus_are_told_apart_once_the_rto_exceeds_three_seconds() {
    // Their VBF tables differ only above an RTO of 3 s (1.5 against 1.3): weak samples of a
    // 2 s answer delay lift the overall RTO past 3 s before the silence.
    for name in ["cocoa", "cocoa-plus"] {
        let f = infer(&long_lived(name, Duration::from_secs(2), 8), &Options::default());
        assert_eq!(f.closest_algorithm.as_deref(), Some(name), "{:?}", &f.candidates[..4]);
        assert!(!f.tied_with.iter().any(|t| t == "cocoa" || t == "cocoa-plus"), "{:?}", f.tied_with);
    }
}

#[test]
fn runs_without_any_copy_name_no_algorithm() {
    // A client that sent nothing (the probe's runner reports such a run as an error) shows no
    // timer: every algorithm is infinitely far, none is named.
    let empty = Run {
        script: Script::silence(),
        copies: Vec::new(),
        replies: Vec::new(),
        sent: Vec::new(),
        end_at: d(0.1),
        end: End::Exited(Some(1)),
    };
    let f = infer(&[empty], &Options::default());
    assert_eq!(f.closest_algorithm, None);
    assert_eq!(f.max_retransmit, None);
    assert!(f.same_algorithm.is_empty() && f.tied_with.is_empty(), "{f:?}");
    assert!(f.candidates.iter().all(|c| c.distance.is_infinite()), "{:?}", f.candidates);
}
