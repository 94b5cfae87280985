//! Which transmission-count echo each registered algorithm states it needs.

use coapcc_core::{ALGORITHMS, Controller, EchoMode};

/// What each named preset needs, as the algorithms' sources say (spec §7.7, OQ-17, OQ-28):
/// only FASOR+token, pCoCoA and the exact-sample IDC/MBC ask for an echo; the configuration
/// and the built controller agree.
#[test]
fn each_preset_asks_for_the_echo_its_source_describes() {
    for a in ALGORITHMS {
        let expected = match a.name {
            "fasor-token" => EchoMode::Token,
            "pcocoa" | "idc" | "mbc" => EchoMode::Option,
            _ => EchoMode::None,
        };
        assert_eq!((a.preset)().echo_mode(), expected, "{}", a.name);
        let built = (a.preset)().build().unwrap();
        assert_eq!(Controller::echo_mode(&built), expected, "{}", a.name);
    }
}
