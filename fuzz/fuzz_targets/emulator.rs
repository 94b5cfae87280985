//! Fuzz target `emulator`: see `coapcc_fuzz::emulator` (crates/coapcc-fuzz) for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| coapcc_fuzz::emulator::run(data));
