//! Fuzz target `replay_script`: see `coapcc_fuzz::replay_script` (crates/coapcc-fuzz) for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| coapcc_fuzz::replay_script::run(data));
