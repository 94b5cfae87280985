//! Algorithm names, their metadata, and static dispatch over every controller.
//!
//! [`ALGORITHMS`] is the table behind `coapcc algorithms`: each name (as used by the CLI and
//! scenario files) maps to a preset [`AnyConfig`]. [`AnyConfig::build`] checks a
//! configuration and returns an [`AnyController`], an enum over every controller so that
//! endpoints hold one without allocation or dynamic dispatch.

// Built with no algorithm feature, the registry is empty: its dispatch has nothing to call.
#![cfg_attr(
    not(any(
        feature = "default-coap",
        feature = "cocoa",
        feature = "pcocoa",
        feature = "four-state",
        feature = "fasor",
        feature = "idc",
        feature = "mbc",
        feature = "bdp",
        feature = "uip",
        feature = "lim"
    )),
    allow(unused_imports, unused_variables, unreachable_code, dead_code)
)]

use core::fmt;
use core::mem::size_of;
use core::time::Duration;

#[cfg(feature = "bdp")]
use crate::algorithms::bdp::{Bdp, BdpConfig};
#[cfg(feature = "cocoa")]
use crate::algorithms::cocoa::{Cocoa, CocoaConfig};
#[cfg(feature = "default-coap")]
use crate::algorithms::default_coap::{DefaultCoap, DefaultCoapConfig};
#[cfg(feature = "fasor")]
use crate::algorithms::fasor::{Fasor, FasorConfig};
#[cfg(feature = "four-state")]
use crate::algorithms::four_state::{FourState, FourStateConfig};
#[cfg(feature = "idc")]
use crate::algorithms::idc::{Idc, IdcConfig};
#[cfg(feature = "lim")]
use crate::algorithms::lim::{Lim, LimConfig};
#[cfg(feature = "mbc")]
use crate::algorithms::mbc::{Mbc, MbcConfig};
#[cfg(feature = "pcocoa")]
use crate::algorithms::pcocoa::{PCocoa, PCocoaConfig};
#[cfg(feature = "uip")]
use crate::algorithms::uip::{Uip, UipConfig};
#[cfg(feature = "_full-backoff")]
use crate::backoff::full_backoff::FullBackoff;
#[cfg(feature = "cocoa")]
use crate::backoff::vbf::Vbf;
use crate::config::ConfigError;
use crate::controller::{Ack, Controller, EchoMode, Exchange, Retry, TimerBounds};
use crate::estimators::RtoEstimator;
use crate::random::Rng;
use crate::time::Instant;

/// How an algorithm reacts to congestion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Retransmission timers with backoff (Default CoAP, CoCoA, FASOR, …).
    Backoff,
    /// Pacing decides when the next copy may leave (IDC, MBC, BDP).
    RateBased,
    /// Window-of-one TCP retransmission timers (uIP, Lim).
    Tcp,
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Family::Backoff => "backoff",
            Family::RateBased => "rate-based",
            Family::Tcp => "tcp",
        })
    }
}

/// Whether the implementation follows a complete published description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exactness {
    /// Implemented from a complete text (RFC, draft, paper pseudocode or reference code).
    Exact,
    /// Reconstructed from secondary descriptions; parameters flagged in the spec.
    Reconstructed,
}

impl fmt::Display for Exactness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Exactness::Exact => "exact",
            Exactness::Reconstructed => "reconstructed",
        })
    }
}

/// One named algorithm (a controller type with a preset configuration).
#[derive(Clone, Copy)]
pub struct AlgorithmInfo {
    /// The name used by the CLI and scenario files.
    pub name: &'static str,
    /// Its family.
    pub family: Family,
    /// Its source document.
    pub source: &'static str,
    /// The section of the project's algorithm specification it implements (each algorithm is
    /// described in `docs/algorithms.md`).
    pub spec: &'static str,
    /// Exact or reconstructed.
    pub exactness: Exactness,
    /// Its colour (RGB) in every figure of the report and the Python package's plots. Families
    /// share a hue: `default*` blues, `cocoa*` oranges and reds, `fasor*` greens, `idc` teal,
    /// `mbc` gold, `uip*` pinks; every name has its own colour.
    pub colour: [u8; 3],
    /// Bytes of per-destination state (`size_of` the algorithm's [`Controller::State`]).
    pub state_bytes: usize,
    /// The preset configuration.
    pub preset: fn() -> AnyConfig,
}

impl fmt::Debug for AlgorithmInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlgorithmInfo").field("name", &self.name).finish_non_exhaustive()
    }
}

/// Every named algorithm, in the order of the spec.
pub static ALGORITHMS: &[AlgorithmInfo] = &[
    #[cfg(feature = "default-coap")]
    AlgorithmInfo {
        name: "default",
        family: Family::Backoff,
        source: "RFC 7252 §4.2",
        spec: "§1",
        exactness: Exactness::Exact,
        colour: [0x1F, 0x77, 0xB4],
        state_bytes: size_of::<<DefaultCoap as Controller>::State>(),
        preset: || AnyConfig::DefaultCoap(DefaultCoapConfig::default()),
    },
    #[cfg(feature = "default-coap")]
    AlgorithmInfo {
        name: "default-aggressive",
        family: Family::Backoff,
        source: "Betzler et al. 2014 (CoAP_B)",
        spec: "§1.3",
        exactness: Exactness::Exact,
        colour: [0x6B, 0xAE, 0xD6],
        state_bytes: size_of::<<DefaultCoap as Controller>::State>(),
        preset: || AnyConfig::DefaultCoap(DefaultCoapConfig::aggressive()),
    },
    #[cfg(feature = "default-coap")]
    AlgorithmInfo {
        name: "default-fb1",
        family: Family::Backoff,
        source: "ANRW'18 / Pesola 2020 (Full Backoff 1)",
        spec: "§4.2",
        exactness: Exactness::Exact,
        colour: [0x08, 0x30, 0x6B],
        state_bytes: size_of::<<DefaultCoap as Controller>::State>(),
        preset: || AnyConfig::DefaultCoap(DefaultCoapConfig::full_backoff(FullBackoff::Fb1)),
    },
    #[cfg(feature = "default-coap")]
    AlgorithmInfo {
        name: "default-fb2",
        family: Family::Backoff,
        source: "ANRW'18 / Pesola 2020 (Full Backoff 2)",
        spec: "§4.3",
        exactness: Exactness::Exact,
        colour: [0x17, 0xBE, 0xCF],
        state_bytes: size_of::<<DefaultCoap as Controller>::State>(),
        preset: || AnyConfig::DefaultCoap(DefaultCoapConfig::full_backoff(FullBackoff::Fb2)),
    },
    #[cfg(feature = "cocoa")]
    AlgorithmInfo {
        name: "cocoa",
        family: Family::Backoff,
        source: "draft-ietf-core-cocoa-03",
        spec: "§2",
        exactness: Exactness::Exact,
        colour: [0xFF, 0x7F, 0x0E],
        state_bytes: size_of::<<Cocoa as Controller>::State>(),
        preset: || AnyConfig::Cocoa(CocoaConfig::default()),
    },
    #[cfg(feature = "cocoa")]
    AlgorithmInfo {
        name: "cocoa-strong",
        family: Family::Backoff,
        source: "Californium COCOA_STRONG / Makarem 2022 CoCoA-S",
        spec: "§2",
        exactness: Exactness::Exact,
        colour: [0xD6, 0x27, 0x28],
        state_bytes: size_of::<<Cocoa as Controller>::State>(),
        preset: || AnyConfig::Cocoa(CocoaConfig::strong()),
    },
    #[cfg(feature = "cocoa")]
    AlgorithmInfo {
        name: "cocoa-fb1",
        family: Family::Backoff,
        source: "ANRW'18 / Pesola 2020 (CoCoA + Full Backoff 1)",
        spec: "§4.4",
        exactness: Exactness::Exact,
        colour: [0xA6, 0x36, 0x03],
        state_bytes: size_of::<<Cocoa as Controller>::State>(),
        preset: || AnyConfig::Cocoa(CocoaConfig::full_backoff(FullBackoff::Fb1)),
    },
    #[cfg(feature = "cocoa")]
    AlgorithmInfo {
        name: "cocoa-fb2",
        family: Family::Backoff,
        source: "ANRW'18 / Pesola 2020 (CoCoA + Full Backoff 2)",
        spec: "§4.5",
        exactness: Exactness::Exact,
        colour: [0xFD, 0xAE, 0x6B],
        state_bytes: size_of::<<Cocoa as Controller>::State>(),
        preset: || AnyConfig::Cocoa(CocoaConfig::full_backoff(FullBackoff::Fb2)),
    },
    #[cfg(feature = "cocoa")]
    AlgorithmInfo {
        name: "cocoa-plus",
        family: Family::Backoff,
        source: "Betzler et al. 2015 (CoCoA+), VBF presets paper/makarem",
        spec: "§3",
        exactness: Exactness::Exact,
        colour: [0xE7, 0x29, 0x8A],
        state_bytes: size_of::<<Cocoa as Controller>::State>(),
        preset: || AnyConfig::Cocoa(CocoaConfig::plus(Vbf::PAPER)),
    },
    #[cfg(feature = "pcocoa")]
    AlgorithmInfo {
        name: "pcocoa",
        family: Family::Backoff,
        source: "Bolettieri et al. 2018 (pCoCoA), as described by Makarem et al. 2022",
        spec: "§5",
        exactness: Exactness::Exact,
        colour: [0x94, 0x67, 0xBD],
        state_bytes: size_of::<<PCocoa as Controller>::State>(),
        preset: || AnyConfig::PCocoa(PCocoaConfig::default()),
    },
    #[cfg(feature = "four-state")]
    AlgorithmInfo {
        name: "four-state",
        family: Family::Backoff,
        source: "Bhalerao et al. 2016 (CoCoA 4-state-strong), tables are placeholders",
        spec: "§6",
        exactness: Exactness::Reconstructed,
        colour: [0x8C, 0x56, 0x4B],
        state_bytes: size_of::<<FourState as Controller>::State>(),
        preset: || AnyConfig::FourState(FourStateConfig::default()),
    },
    #[cfg(feature = "fasor")]
    AlgorithmInfo {
        name: "fasor",
        family: Family::Backoff,
        source: "draft-ietf-core-fasor-02 / Järvinen et al. 2018",
        spec: "§7",
        exactness: Exactness::Exact,
        colour: [0x2C, 0xA0, 0x2C],
        state_bytes: size_of::<<Fasor as Controller>::State>(),
        preset: || AnyConfig::Fasor(FasorConfig::default()),
    },
    #[cfg(feature = "fasor")]
    AlgorithmInfo {
        name: "fasor-token",
        family: Family::Backoff,
        source: "Järvinen et al. 2018 (FASOR+token) / FASOR-02 Rexmit-Cnt",
        spec: "§7.7",
        exactness: Exactness::Exact,
        colour: [0x7F, 0xBC, 0x41],
        state_bytes: size_of::<<Fasor as Controller>::State>(),
        preset: || AnyConfig::Fasor(FasorConfig::token()),
    },
    #[cfg(feature = "bdp")]
    AlgorithmInfo {
        name: "bdp",
        family: Family::RateBased,
        source: "Ancillotti & Bruno 2019 (BDP-CoAP), as described by Makarem et al. 2022",
        spec: "§8.4",
        exactness: Exactness::Reconstructed,
        colour: [0x63, 0x79, 0x39],
        state_bytes: size_of::<<Bdp as Controller>::State>(),
        preset: || AnyConfig::Bdp(BdpConfig::default()),
    },
    #[cfg(feature = "idc")]
    AlgorithmInfo {
        name: "idc",
        family: Family::RateBased,
        source: "Makarem et al. 2022 (IDC-CoAP)",
        spec: "§8.1–8.2",
        exactness: Exactness::Exact,
        colour: [0x00, 0x84, 0x7A],
        state_bytes: size_of::<<Idc as Controller>::State>(),
        preset: || AnyConfig::Idc(IdcConfig::default()),
    },
    #[cfg(feature = "mbc")]
    AlgorithmInfo {
        name: "mbc",
        family: Family::RateBased,
        source: "Makarem et al. 2022 (MBC-CoAP)",
        spec: "§8.1, §8.3",
        exactness: Exactness::Exact,
        colour: [0xB8, 0x86, 0x0B],
        state_bytes: size_of::<<Mbc as Controller>::State>(),
        preset: || AnyConfig::Mbc(MbcConfig::default()),
    },
    #[cfg(feature = "uip")]
    AlgorithmInfo {
        name: "uip",
        family: Family::Tcp,
        source: "uIP / Contiki TCP (as analysed by Lim 2020)",
        spec: "§9.1",
        exactness: Exactness::Exact,
        colour: [0xF7, 0x81, 0xBF],
        state_bytes: size_of::<<Uip as Controller>::State>(),
        preset: || AnyConfig::Uip(UipConfig::default()),
    },
    #[cfg(feature = "uip")]
    AlgorithmInfo {
        name: "uip-dither",
        family: Family::Tcp,
        source: "Lim 2020 (uIP with dithering only)",
        spec: "§9.2",
        exactness: Exactness::Exact,
        colour: [0xC9, 0x94, 0xC7],
        state_bytes: size_of::<<Uip as Controller>::State>(),
        preset: || AnyConfig::Uip(UipConfig::dithered()),
    },
    #[cfg(feature = "lim")]
    AlgorithmInfo {
        name: "lim",
        family: Family::Tcp,
        source: "Lim 2020, Sensors 20(17) 4774, Table 2 (max→min corrected)",
        spec: "§9.3",
        exactness: Exactness::Exact,
        colour: [0x52, 0x52, 0x52],
        state_bytes: size_of::<<Lim as Controller>::State>(),
        preset: || AnyConfig::Lim(LimConfig::default()),
    },
];

/// Looks up an algorithm by name.
pub fn find(name: &str) -> Option<&'static AlgorithmInfo> {
    ALGORITHMS.iter().find(|a| a.name == name)
}

/// Generates [`AnyConfig`], [`AnyController`], [`AnyState`], [`AnyExchangeState`] and their
/// dispatch from one list of `Variant(Algorithm, Config)`.
macro_rules! any_algorithm {
    ($($(#[$m:meta])* $variant:ident($ctrl:ty, $cfg:ty)),* $(,)?) => {
        /// The configuration of any algorithm.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize))]
        #[cfg_attr(feature = "serde", serde(untagged))]
        pub enum AnyConfig {
            $(
                $(#[$m])*
                #[allow(missing_docs)]
                $variant($cfg),
            )*
        }

        /// Any algorithm, built once from a checked [`AnyConfig`] and shared (an endpoint keeps
        /// it behind an `Arc`), dispatched statically. Its per-destination state is an
        /// [`AnyState`], made by [`Controller::new_state`].
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum AnyController {
            $(
                $(#[$m])*
                #[allow(missing_docs)]
                $variant($ctrl),
            )*
        }

        /// The per-destination state of an [`AnyController`]. Only
        /// [`Controller::new_state`] makes one, so it always belongs to some algorithm; given
        /// to a different algorithm it is replaced by that algorithm's fresh state (never a
        /// panic).
        #[derive(Clone, Debug, PartialEq)]
        pub struct AnyState(StateOf);

        #[derive(Clone, Debug, PartialEq)]
        #[allow(clippy::large_enum_variant)]
        enum StateOf {
            $($(#[$m])* $variant(<$ctrl as Controller>::State),)*
        }

        /// The per-exchange state of an [`AnyController`] (the default scratch of an
        /// [`Exchange`](crate::Exchange)). Scratch of another algorithm reads as that algorithm's default.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub enum AnyExchangeState {
            /// Nothing written yet (an exchange before its original's timer is armed).
            #[default]
            Fresh,
            $(
                $(#[$m])*
                #[allow(missing_docs)]
                $variant(<$ctrl as Controller>::ExchangeState),
            )*
        }

        impl AnyConfig {
            /// Checks the configuration and builds the algorithm.
            pub fn build(&self) -> Result<AnyController, ConfigError> {
                match *self {
                    $($(#[$m])* AnyConfig::$variant(ref c) => <$ctrl>::new(*c).map(AnyController::$variant),)*
                }
            }

            /// MAX_RETRANSMIT (or the algorithm's equivalent retransmission limit).
            pub fn max_retransmit(&self) -> u8 {
                match *self { $($(#[$m])* AnyConfig::$variant(ref c) => c.max_retransmit,)* }
            }

            /// Sets the retransmission limit.
            pub fn set_max_retransmit(&mut self, n: u8) {
                match *self { $($(#[$m])* AnyConfig::$variant(ref mut c) => c.max_retransmit = n,)* }
            }

            /// The same configuration with its retransmission limit replaced by `n` (a
            /// workload's own limit overriding the algorithm's, as the multihop TCP
            /// workload's `max_retransmissions` does for uIP and Lim).
            #[must_use]
            pub fn with_max_retransmit(mut self, n: u8) -> AnyConfig {
                self.set_max_retransmit(n);
                self
            }

            /// How acknowledgements must name the copy they answer for this algorithm: the
            /// rule each algorithm states for its configuration ([`Controller::echo_mode`]).
            pub fn echo_mode(&self) -> EchoMode {
                match *self { $($(#[$m])* AnyConfig::$variant(ref c) => c.echo_mode(),)* }
            }

            /// Whether timers are dithered.
            pub fn dither(&self) -> bool {
                match *self { $($(#[$m])* AnyConfig::$variant(ref c) => c.dither,)* }
            }

            /// Turns dithering on or off (`--no-dither`).
            pub fn set_dither(&mut self, on: bool) {
                match *self { $($(#[$m])* AnyConfig::$variant(ref mut c) => c.dither = on,)* }
            }

            /// Rebuilds the configuration through `f`, which sees the concrete config type
            /// (used to apply `--set` overrides through serde).
            #[cfg(feature = "serde")]
            pub fn map_with<M: ConfigMapper>(self, f: &mut M) -> Result<AnyConfig, M::Error> {
                Ok(match self {
                    $($(#[$m])* AnyConfig::$variant(c) => AnyConfig::$variant(f.map(c)?),)*
                })
            }
        }

        impl AnyController {
            /// The algorithm's RTO estimator, fresh, for the RTT-trace model; `None` for the
            /// algorithms whose timers are not an estimator's RTO (4-state, BDP, uIP, Lim).
            pub fn rto_estimator(&self) -> Option<RtoEstimator> {
                match self {
                    #[cfg(feature = "default-coap")]
                    AnyController::DefaultCoap(c) => Some(RtoEstimator::Fixed(c.config().ack_timeout)),
                    #[cfg(feature = "cocoa")]
                    AnyController::Cocoa(c) => Some(RtoEstimator::Cocoa(c.new_state().estimator, c.config().rto_params())),
                    #[cfg(feature = "fasor")]
                    AnyController::Fasor(c) => Some(c.rto_estimator()),
                    #[cfg(feature = "pcocoa")]
                    AnyController::PCocoa(c) => Some(RtoEstimator::PCocoa(*c, c.new_state())),
                    #[cfg(feature = "idc")]
                    AnyController::Idc(c) => Some(RtoEstimator::Makarem(c.new_state().rto, c.config().rto_params())),
                    #[cfg(feature = "mbc")]
                    AnyController::Mbc(c) => Some(RtoEstimator::Makarem(c.new_state().rto, c.config().rto_params())),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            /// The configuration it was built from.
            pub fn config(&self) -> AnyConfig {
                match *self { $($(#[$m])* AnyController::$variant(ref c) => AnyConfig::$variant(*c.config()),)* }
            }

            /// Whether `st` is a state of this algorithm.
            fn owns(&self, st: &AnyState) -> bool {
                match (self, &st.0) {
                    $($(#[$m])* (AnyController::$variant(_), StateOf::$variant(_)) => true,)*
                    #[allow(unreachable_patterns)]
                    _ => false,
                }
            }

            /// `st`, replaced by a fresh state if it belongs to another algorithm.
            fn own<'s>(&self, st: &'s mut AnyState) -> &'s mut StateOf {
                if !self.owns(st) {
                    *st = self.new_state();
                }
                &mut st.0
            }

            /// `st`, or (if it belongs to another algorithm) a fresh state kept in `fresh`.
            fn own_or_fresh<'s>(&self, st: &'s AnyState, fresh: &'s mut Option<AnyState>) -> &'s AnyState {
                if self.owns(st) { st } else { fresh.insert(self.new_state()) }
            }
        }

        impl Controller for AnyController {
            type State = AnyState;
            type ExchangeState = AnyExchangeState;

            fn new_state(&self) -> AnyState {
                match *self { $($(#[$m])* AnyController::$variant(ref c) => AnyState(StateOf::$variant(c.new_state())),)* }
            }

            fn on_transmit(
                &self,
                st: &mut AnyState,
                now: Instant,
                ex: &mut Exchange<AnyExchangeState>,
                in_flight: usize,
                rng: &mut dyn Rng,
            ) -> Duration {
                match (self, self.own(st)) {
                    $($(#[$m])* (AnyController::$variant(c), StateOf::$variant(s)) => {
                        let mut typed = ex.map_cc(|x| match x { AnyExchangeState::$variant(x) => x, #[allow(unreachable_patterns)] _ => Default::default() });
                        let timer = c.on_transmit(s, now, &mut typed, in_flight, rng);
                        // A controller changes only its scratch (see `Controller::on_transmit`).
                        debug_assert!(same_record(&typed, ex), "a controller changed its exchange record");
                        ex.cc = AnyExchangeState::$variant(typed.cc);
                        timer
                    })*
                    // `own` made the state match: not reached.
                    #[allow(unreachable_patterns)]
                    _ => self.timer_bounds().max,
                }
            }

            fn on_timeout(&self, st: &mut AnyState, now: Instant, ex: &mut Exchange<AnyExchangeState>) -> Retry {
                match (self, self.own(st)) {
                    $($(#[$m])* (AnyController::$variant(c), StateOf::$variant(s)) => {
                        let mut typed = ex.map_cc(|x| match x { AnyExchangeState::$variant(x) => x, #[allow(unreachable_patterns)] _ => Default::default() });
                        let retry = c.on_timeout(s, now, &mut typed);
                        // A controller changes only its scratch (see `Controller::on_transmit`).
                        debug_assert!(same_record(&typed, ex), "a controller changed its exchange record");
                        ex.cc = AnyExchangeState::$variant(typed.cc);
                        retry
                    })*
                    #[allow(unreachable_patterns)]
                    _ => Retry::GiveUp,
                }
            }

            fn on_ack(&self, st: &mut AnyState, now: Instant, ex: &Exchange<AnyExchangeState>, ack: &Ack) {
                match (self, self.own(st)) {
                    $($(#[$m])* (AnyController::$variant(c), StateOf::$variant(s)) => {
                        let typed = ex.map_cc(|x| match x { AnyExchangeState::$variant(x) => x, #[allow(unreachable_patterns)] _ => Default::default() });
                        c.on_ack(s, now, &typed, ack)
                    })*
                    #[allow(unreachable_patterns)]
                    _ => {}
                }
            }

            fn earliest_send(&self, st: &AnyState, now: Instant) -> Instant {
                let mut fresh = None;
                match (self, &self.own_or_fresh(st, &mut fresh).0) {
                    $($(#[$m])* (AnyController::$variant(c), StateOf::$variant(s)) => c.earliest_send(s, now),)*
                    // `own_or_fresh` gave a state of this algorithm: not reached.
                    #[allow(unreachable_patterns)]
                    _ => now,
                }
            }

            fn rto(&self, st: &AnyState, now: Instant) -> Option<Duration> {
                let mut fresh = None;
                match (self, &self.own_or_fresh(st, &mut fresh).0) {
                    $($(#[$m])* (AnyController::$variant(c), StateOf::$variant(s)) => c.rto(s, now),)*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            fn timer_bounds(&self) -> TimerBounds {
                match *self { $($(#[$m])* AnyController::$variant(ref c) => c.timer_bounds(),)* }
            }

            fn echo_mode(&self) -> EchoMode {
                match *self { $($(#[$m])* AnyController::$variant(ref c) => c.echo_mode(),)* }
            }

            fn tcp_rtt_unit(&self) -> Option<Duration> {
                match *self { $($(#[$m])* AnyController::$variant(ref c) => c.tcp_rtt_unit(),)* }
            }
        }
    };
}

any_algorithm! {
    #[cfg(feature = "default-coap")]
    DefaultCoap(DefaultCoap, DefaultCoapConfig),
    #[cfg(feature = "cocoa")]
    Cocoa(Cocoa, CocoaConfig),
    #[cfg(feature = "fasor")]
    Fasor(Fasor, FasorConfig),
    #[cfg(feature = "pcocoa")]
    PCocoa(PCocoa, PCocoaConfig),
    #[cfg(feature = "four-state")]
    FourState(FourState, FourStateConfig),
    #[cfg(feature = "bdp")]
    Bdp(Bdp, BdpConfig),
    #[cfg(feature = "idc")]
    Idc(Idc, IdcConfig),
    #[cfg(feature = "mbc")]
    Mbc(Mbc, MbcConfig),
    #[cfg(feature = "uip")]
    Uip(Uip, UipConfig),
    #[cfg(feature = "lim")]
    Lim(Lim, LimConfig),
}

/// Whether two exchanges have the same record (send times, retransmissions, timer), whatever
/// their scratch.
fn same_record<X, Y>(a: &Exchange<X>, b: &Exchange<Y>) -> bool {
    a.first_sent() == b.first_sent()
        && a.last_sent() == b.last_sent()
        && a.retransmissions() == b.retransmissions()
        && a.timer() == b.timer()
}

/// Sees each concrete configuration type (see [`AnyConfig::map_with`]).
#[cfg(feature = "serde")]
pub trait ConfigMapper {
    /// The error of a failed mapping.
    type Error;
    /// Maps one configuration to a new value of the same type.
    fn map<T: serde::Serialize + serde::de::DeserializeOwned>(&mut self, config: T) -> Result<T, Self::Error>;
}

impl AnyConfig {
    /// The preset configuration of the named algorithm.
    pub fn from_name(name: &str) -> Option<AnyConfig> {
        find(name).map(|a| (a.preset)())
    }

    /// The family of the algorithm this configures: the one [`ALGORITHMS`] gives the presets
    /// of the same algorithm (every preset of one algorithm is of one family).
    pub fn family(&self) -> Family {
        let same = |a: &&AlgorithmInfo| core::mem::discriminant(&(a.preset)()) == core::mem::discriminant(self);
        // Every variant has at least one preset (a test checks it), so the fallback is not reached.
        ALGORITHMS.iter().find(same).map_or(Family::Backoff, |a| a.family)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_unique_and_its_preset_builds() {
        for (i, a) in ALGORITHMS.iter().enumerate() {
            assert!(ALGORITHMS[..i].iter().all(|b| b.name != a.name), "duplicate name {}", a.name);
            assert!((a.preset)().build().is_ok(), "preset of {} does not build", a.name);
        }
    }

    #[test]
    fn every_preset_of_one_algorithm_is_of_the_family_its_configuration_states() {
        for a in ALGORITHMS {
            assert_eq!((a.preset)().family(), a.family, "{}", a.name);
        }
    }

    #[test]
    #[cfg(all(feature = "uip", feature = "fasor"))]
    fn a_replaced_retransmission_limit_keeps_every_other_key() {
        let uip = AnyConfig::from_name("uip-dither").unwrap();
        let mut expected = uip;
        expected.set_max_retransmit(3);
        assert_eq!(uip.with_max_retransmit(3), expected);
        assert_eq!(uip.with_max_retransmit(3).max_retransmit(), 3);
        assert!(uip.with_max_retransmit(3).dither());
        assert_eq!(uip.family(), Family::Tcp);
        assert_eq!(AnyConfig::from_name("fasor").unwrap().family(), Family::Backoff);
    }

    #[test]
    fn every_algorithm_has_a_colour_no_other_algorithm_has() {
        for (i, a) in ALGORITHMS.iter().enumerate() {
            for b in &ALGORITHMS[..i] {
                assert_ne!(a.colour, b.colour, "{} and {} share a colour", a.name, b.name);
            }
        }
    }

    #[test]
    #[cfg(all(feature = "uip", feature = "lim", feature = "cocoa"))]
    fn only_the_window_of_one_tcp_timers_state_an_rtt_unit() {
        // uIP and Lim count samples in whole seconds by default (spec OQ-37).
        for name in ["uip", "uip-dither", "lim"] {
            let c = AnyConfig::from_name(name).unwrap().build().unwrap();
            assert_eq!(c.tcp_rtt_unit(), Some(Duration::from_secs(1)), "{name}");
        }
        let cocoa = AnyConfig::from_name("cocoa").unwrap().build().unwrap();
        assert_eq!(cocoa.tcp_rtt_unit(), None);
        for a in ALGORITHMS {
            let tcp = (a.preset)().build().unwrap().tcp_rtt_unit().is_some();
            assert_eq!(tcp, a.family == Family::Tcp, "{}", a.name);
        }
    }

    #[test]
    fn unknown_names_are_not_found() {
        assert!(AnyConfig::from_name("reno").is_none());
    }

    #[test]
    #[cfg(all(feature = "cocoa", feature = "fasor"))]
    fn a_state_of_another_algorithm_is_replaced_by_a_fresh_one_without_a_panic() {
        use crate::harness::testing::at;
        use rand_core::SeedableRng;
        let cocoa = AnyConfig::from_name("cocoa").unwrap().build().unwrap();
        let mut fasor_config = AnyConfig::from_name("fasor").unwrap();
        fasor_config.set_dither(false);
        let fasor = fasor_config.build().unwrap();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
        let mut st = cocoa.new_state();
        // A foreign state reads as a fresh one: FASOR's initial 2 s timer and RTO.
        assert_eq!(fasor.rto(&st, at(0)), Some(Duration::from_secs(2)));
        let mut ex = fasor.start(&mut st, at(0), 0, &mut rng);
        assert_eq!(ex.timer(), Duration::from_secs(2));
        assert_eq!(st, fasor.new_state());
        // Scratch written by another algorithm reads as that algorithm's default.
        let other = cocoa.start(&mut cocoa.new_state(), at(0), 0, &mut rng);
        ex.cc = other.cc;
        assert_eq!(fasor.on_timeout(&mut st, at(2000), &mut ex), Retry::Retransmit);
    }
}
