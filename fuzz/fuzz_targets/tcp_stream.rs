//! Fuzz target `tcp_stream`: see `coapcc_fuzz::tcp_stream` (crates/coapcc-fuzz) for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| coapcc_fuzz::tcp_stream::run(data));
