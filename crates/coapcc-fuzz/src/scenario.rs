//! Fuzz target `scenario`: arbitrary text to the scenario parser.

use coapcc_driver::scenario::parse;

/// Parses `data` (when it is UTF-8) as a scenario file. Errors are expected; a scenario that
/// parses must be reproducible from the resolved file written next to its results: its TOML
/// parses to the same scenario.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(s) = parse(text, "fuzz.toml", &[]) else { return };
    let resolved = s.to_toml();
    let again = parse(&resolved, "resolved.toml", &[])
        .unwrap_or_else(|e| panic!("the resolved scenario does not parse: {e}\n{resolved}"));
    assert_eq!(again, s, "the resolved scenario parses to another one:\n{resolved}");
}
