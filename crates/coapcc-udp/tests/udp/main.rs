//! The tests of `coapcc-udp` on loopback, one module per subject, in one test binary (one link
//! instead of one per file).

mod amplification;
mod emulator;
mod fuzz;
mod hostile;
mod loopback;
mod runtime;
