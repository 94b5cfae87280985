//! Which transmission-count echo each registered algorithm needs from the endpoint: a shim
//! over what each algorithm states itself ([`AnyConfig::echo_mode`], from
//! [`Controller::echo_mode`](coapcc_core::Controller::echo_mode) of each algorithm file).

use coapcc_core::AnyConfig;

use crate::endpoint::EchoMode;

/// The echo mode an algorithm uses by default, as its configuration states it
/// ([`AnyConfig::echo_mode`]): none for the algorithms that only see ambiguous
/// acknowledgements, the token byte for FASOR+token (the paper's variant), the option for
/// pCoCoA (its Transmission Count option) and for IDC/MBC matching samples exactly.
pub fn echo_mode_for(config: &AnyConfig) -> EchoMode {
    config.echo_mode()
}

#[cfg(test)]
mod tests {
    use super::*;
    use coapcc_core::ALGORITHMS;

    /// What each named preset needs, as the algorithms' sources say (spec §7.7, OQ-17,
    /// OQ-28): only FASOR+token, pCoCoA and the exact-sample IDC/MBC ask for an echo.
    #[test]
    fn each_preset_asks_for_the_echo_its_source_describes() {
        for a in ALGORITHMS {
            let expected = match a.name {
                "fasor-token" => EchoMode::Token,
                "pcocoa" | "idc" | "mbc" => EchoMode::Option,
                _ => EchoMode::None,
            };
            assert_eq!(echo_mode_for(&(a.preset)()), expected, "{}", a.name);
            let built = (a.preset)().build().unwrap();
            assert_eq!(coapcc_core::Controller::echo_mode(&built), expected, "{}", a.name);
        }
    }
}
