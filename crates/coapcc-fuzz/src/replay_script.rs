//! Fuzz target `replay_script`: a replay script (`send`, `wait MS`, `ack`, `ack copy K`; the
//! language of [`coapcc_core::harness::script`]) run through [`StopAndWait`] as
//! `coapcc replay` runs it, on an algorithm the first byte picks.

use coapcc_core::harness::script::{Command, parse_line};
use coapcc_core::harness::{Event, StopAndWait};
use coapcc_core::{ALGORITHMS, Controller, Instant};
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// The first byte picks the algorithm (an index into [`ALGORITHMS`]; bit 7 turns dithering
/// off), the rest is the script. Lines that do not parse and commands the harness refuses
/// are skipped. Every event must come in time order, every armed timer within the
/// algorithm's [`timer_bounds`](Controller::timer_bounds), and no copy number beyond its
/// MAX_RETRANSMIT.
pub fn run(data: &[u8]) {
    checked_events(data);
}

/// [`run`], answering how many events were checked.
fn checked_events(data: &[u8]) -> usize {
    let Some((&pick, script)) = data.split_first() else { return 0 };
    let Ok(script) = std::str::from_utf8(script) else { return 0 };
    let mut config = (ALGORITHMS[usize::from(pick & 0x7f) % ALGORITHMS.len()].preset)();
    config.set_dither(pick & 0x80 == 0);
    let Ok(alg) = config.build() else { return 0 };
    let bounds = alg.timer_bounds();
    let max_retransmit = config.max_retransmit();
    let mut harness = StopAndWait::new(&alg);
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let mut now = Instant::ZERO;
    let mut last = Instant::ZERO;
    let mut checked = 0;
    let mut check = |e: Event| {
        checked += 1;
        let at = match e {
            Event::Transmit { at, copy, timer, .. } => {
                assert!(bounds.min <= timer && timer <= bounds.max, "{config:?}: timer {timer:?} outside {bounds:?}");
                assert!(copy <= max_retransmit, "{config:?}: copy {copy} beyond MAX_RETRANSMIT {max_retransmit}");
                at
            }
            Event::GiveUp { at, .. } | Event::Ack { at, .. } => at,
        };
        assert!(at >= last, "{config:?}: event at {at:?} after one at {last:?}");
        last = at;
    };
    for line in script.lines() {
        let Ok(Some(command)) = parse_line(line) else { continue };
        match command {
            Command::Send => {
                let _ = harness.send(now, &mut rng, &mut check);
            }
            Command::Wait(d) => {
                now = now.saturating_add(d);
                harness.advance_to(now, &mut rng, &mut check);
            }
            Command::Ack(copy) => {
                let _ = harness.ack(now, copy, &mut rng, &mut check);
            }
        }
        assert_eq!(harness.now(), now, "the harness clock follows the script");
    }
    checked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_of_an_unanswered_exchange_is_checked() {
        // Default CoAP undithered: RFC 7252 §4.2's original and MAX_RETRANSMIT = 4
        // retransmissions, then the give-up.
        assert_eq!(checked_events(b"\x80send\nwait 100000\n"), 6);
        assert_eq!(checked_events(b"\x80snd\nwait 1\n"), 0);
    }
}
