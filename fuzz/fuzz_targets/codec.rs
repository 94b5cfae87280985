//! Fuzz target `codec`: see `coapcc_fuzz::codec` (crates/coapcc-fuzz) for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| coapcc_fuzz::codec::run(data));
