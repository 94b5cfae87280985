//! Fuzz target `endpoint`: see `coapcc_fuzz::endpoint` (crates/coapcc-fuzz) for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| coapcc_fuzz::endpoint::run(data));
