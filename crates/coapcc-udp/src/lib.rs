//! Real CoAP over UDP, on the very code the simulator runs.
//!
//! `coapcc-udp` is a driver: it owns sockets, the wall clock and operating-system entropy,
//! and feeds them to the sans-IO [`coapcc_proto::Endpoint`] and the link stages of
//! [`coapcc_driver::link`]. It is the only crate of the workspace that reads a clock or the
//! operating system's random source (see [`clock`]); everything it drives takes `now` and an
//! RNG as arguments, so a controller behaves on a socket exactly as in `coapcc sim`.

pub mod clock;
pub mod emulator;
pub mod testbed;
