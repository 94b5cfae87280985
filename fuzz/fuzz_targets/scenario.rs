//! Fuzz target `scenario`: see `coapcc_fuzz::scenario` (crates/coapcc-fuzz) for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| coapcc_fuzz::scenario::run(data));
