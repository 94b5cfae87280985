//! Which transmission-count echo each algorithm needs from the endpoint.

use coapcc_core::AnyConfig;

use coapcc_core::estimators::makarem::SampleSource;

use crate::endpoint::EchoMode;

fn samples_echo(s: SampleSource) -> EchoMode {
    match s {
        SampleSource::Exact => EchoMode::Option,
        _ => EchoMode::None,
    }
}

/// The echo mode an algorithm uses by default: none for the algorithms that only see
/// ambiguous acknowledgements, the token byte for FASOR+token (the paper's variant), the
/// option for pCoCoA (its Transmission Count option).
pub fn echo_mode_for(config: &AnyConfig) -> EchoMode {
    match config {
        AnyConfig::DefaultCoap(_) | AnyConfig::Cocoa(_) => EchoMode::None,
        AnyConfig::Fasor(c) if c.echo => EchoMode::Token,
        AnyConfig::Fasor(_) => EchoMode::None,
        // pCoCoA's Transmission Count option, echoed by a cooperating server (spec OQ-17).
        AnyConfig::PCocoa(_) => EchoMode::Option,
        // 4-state-strong: RTT from the latest transmission by default (spec §6).
        AnyConfig::FourState(_) => EchoMode::None,
        // uIP applies Karn's rule; Lim measures from the latest transmission.
        AnyConfig::Uip(_) | AnyConfig::Lim(_) => EchoMode::None,
        // IDC/MBC: exact matching, "as with a TC option" (spec OQ-28), unless told otherwise.
        AnyConfig::Idc(c) => samples_echo(c.samples),
        AnyConfig::Mbc(c) => samples_echo(c.samples),
        // BDP keeps CoCoA+'s estimator, which measures from the original transmission.
        AnyConfig::Bdp(_) => EchoMode::None,
    }
}
