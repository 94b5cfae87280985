//! The wall clock and the operating system's entropy: the only reads of either in the
//! workspace. Everything else receives `now` ([`coapcc_core::Instant`]) and an RNG it is given.

use std::time::Duration;

use coapcc_core::Instant;

/// A monotonic clock whose epoch is the moment it was created, in the [`Instant`] the sans-IO
/// code understands. Cheap to copy: every task of a process can share one epoch.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    epoch: tokio::time::Instant,
}

impl Clock {
    /// A clock whose epoch is now.
    #[allow(clippy::disallowed_methods, reason = "this crate is where the OS clock may be read")]
    pub fn start() -> Self {
        Clock { epoch: tokio::time::Instant::now() }
    }

    /// The current instant since the epoch (monotonic; saturates after about 584 years).
    #[allow(clippy::disallowed_methods, reason = "this crate is where the OS clock may be read")]
    pub fn now(&self) -> Instant {
        self.instant_of(tokio::time::Instant::now())
    }

    /// The sans-IO instant of a tokio instant (instants before the epoch map to the epoch).
    pub fn instant_of(&self, t: tokio::time::Instant) -> Instant {
        let since = t.saturating_duration_since(self.epoch);
        Instant::from_nanos(u64::try_from(since.as_nanos()).unwrap_or(u64::MAX))
    }

    /// The tokio instant of a sans-IO instant (for `sleep_until`).
    pub fn deadline(&self, at: Instant) -> tokio::time::Instant {
        // Far-future instants are clamped to a day from the epoch's view of now, so that
        // tokio's timer wheel never overflows.
        let limit = Duration::from_secs(86_400 * 365);
        self.epoch + at.since_epoch().min(limit)
    }
}

/// A seed from the operating system's random source, for runs that do not fix one. The seed
/// is reported by whoever uses it, so a run can be repeated with `--seed`.
#[allow(clippy::disallowed_methods, reason = "this crate is where the OS clock may be read")]
pub fn os_seed() -> u64 {
    // std's RandomState is keyed from the OS entropy source once per process and per thread;
    // hashing the current time into it mixes both without a new dependency.
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let mut h = RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.finish()
}

/// The wall-clock time since the Unix epoch (for pcap timestamps; never for timing, which
/// uses the monotonic [`Clock`]).
#[allow(clippy::disallowed_methods, reason = "this crate is where the OS clock may be read")]
pub fn unix_now() -> Duration {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn an_instant_maps_to_a_deadline_and_back_exactly() {
        let clock = Clock::start();
        let at = Instant::from_millis(1_500);
        assert_eq!(clock.instant_of(clock.deadline(at)), at);
        tokio::time::advance(Duration::from_millis(250)).await;
        assert_eq!(clock.now(), Instant::from_millis(250));
    }
}
