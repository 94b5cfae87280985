//! The allocator-free settings of the C API and firmware give what `coapcc --set KEY=VALUE`
//! gives: for every algorithm, every key of its configuration and a spread of values (the
//! preset's own, other numbers, ratios, words, arrays, nonsense), the configuration built by
//! `coapcc_ffi::settings` equals the one `coapcc_driver::scenario::algorithm_with_settings`
//! builds through TOML, and one is rejected exactly when the other is.

use coapcc_core::{ALGORITHMS, AnyConfig, Ratio};
use coapcc_driver::scenario::{Setting, algorithm_keys, algorithm_with_settings};
use coapcc_ffi::settings;

/// The configuration through the C API's path: preset, settings, then the whole checked.
fn through_ffi(name: &str, set: &[&str]) -> Result<AnyConfig, String> {
    let mut config = settings::preset(name).map_err(|e| e.to_string())?;
    for s in set {
        settings::apply(&mut config, s).map_err(|e| e.to_string())?;
    }
    config.build().map_err(|e| e.to_string())?;
    Ok(config)
}

/// The configuration through the driver's path (TOML).
fn through_driver(name: &str, set: &[&str]) -> Result<AnyConfig, String> {
    let set: Vec<Setting> =
        set.iter().map(|s| s.parse::<Setting>().map_err(|e| e.to_string())).collect::<Result<_, _>>()?;
    algorithm_with_settings(name, &set).map_err(|e| e.to_string())
}

const VALUES: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "15",
    "255",
    "256",
    "-1",
    "1_000",
    "0x10",
    "500",
    "4000",
    "1.5",
    "0.5",
    "0.125",
    "1.3",
    "2.5",
    "2e3",
    "1e-3",
    "-0.5",
    "1/8",
    "3/2",
    "1/3",
    "1/0",
    ".5",
    "1.",
    "01",
    "true",
    "false",
    "none",
    "\"none\"",
    "off",
    "on",
    "draft",
    "paper",
    "makarem",
    "contiki",
    "linear",
    "per-step",
    "per-exchange",
    "latest",
    "skip",
    "blend",
    "set",
    "uip",
    "literal",
    "exact",
    "move-then-select",
    "select-then-move",
    "bogus",
    "[1, 2, 3, 4]",
    "[1.5, 2, 2, 2]",
    "[0.5, 0.375, 0.25, 0.125]",
    "[1, 2]",
    "[]",
    "'draft'",
    "\"1/4\"",
    "inf",
    "nan",
    "",
];

#[test]
fn every_key_of_every_algorithm_reads_every_value_as_the_command_line_does() {
    let mut compared = 0;
    for a in ALGORITHMS {
        let preset = (a.preset)();
        for (key, own) in algorithm_keys(&preset) {
            let own = own.to_string();
            for value in VALUES.iter().copied().chain([own.as_str()]) {
                let setting = format!("{key}={value}");
                let ffi = through_ffi(a.name, &[&setting]);
                let driver = through_driver(a.name, &[&setting]);
                match (&ffi, &driver) {
                    (Ok(f), Ok(d)) => assert_eq!(f, d, "{} {setting}", a.name),
                    (Err(_), Err(_)) => {}
                    _ => panic!("{} {setting}: ffi {ffi:?}, driver {driver:?}", a.name),
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 5_000, "{compared}");
}

#[test]
fn settings_apply_in_order_and_an_unknown_key_or_name_is_rejected_by_both() {
    let set = ["initial_rto_ms=500", "vbf=makarem", "initial_rto_ms = 4000", "dither=false"];
    assert_eq!(through_ffi("cocoa-plus", &set), through_driver("cocoa-plus", &set));
    let e = settings::apply(&mut settings::preset("cocoa").unwrap(), "bogus=1").unwrap_err();
    assert_eq!(e.kind(), settings::Kind::UnknownKey);
    assert!(e.message().starts_with("unknown key `bogus`; valid keys: "), "{e}");
    assert!(through_driver("cocoa", &["bogus=1"]).is_err());
    assert_eq!(settings::preset("reno").unwrap_err().kind(), settings::Kind::UnknownAlgorithm);
    let e = settings::apply(&mut settings::preset("cocoa").unwrap(), "initial_rto_ms").unwrap_err();
    assert_eq!(e.kind(), settings::Kind::Syntax);
}

#[test]
fn a_bad_value_names_its_key_and_leaves_the_configuration_unchanged() {
    let mut config = settings::preset("fasor").unwrap();
    let before = config;
    let e = settings::apply(&mut config, "k=many").unwrap_err();
    assert_eq!(e.kind(), settings::Kind::BadValue);
    assert!(e.message().starts_with("bad value for key `k`: "), "{e}");
    assert_eq!(config, before);
}

#[test]
fn a_vbf_table_still_reads_through_the_driver_after_its_deserialisation_stopped_buffering() {
    // The VBF is read by the kind of value now (a string is a preset, a table a table), no
    // longer as serde's untagged enum: both forms still read, and nonsense is still refused.
    let table = through_driver("cocoa", &["vbf={below = 4, between = 2, above = 1.5}"]).unwrap();
    let AnyConfig::Cocoa(c) = table else { panic!("{table:?}") };
    assert_eq!((c.vbf.below, c.vbf.between, c.vbf.above), (Ratio::integer(4), Ratio::integer(2), Ratio::new(3, 2)));
    assert_eq!(c.vbf.lower, std::time::Duration::from_secs(1));
    let preset = through_driver("cocoa", &["vbf=makarem"]).unwrap();
    let AnyConfig::Cocoa(c) = preset else { panic!("{preset:?}") };
    assert_eq!(c.vbf, coapcc_core::backoff::vbf::Vbf::MAKAREM);
    assert!(through_driver("cocoa", &["vbf=bogus"]).is_err());
    assert!(through_driver("cocoa", &["vbf={below = 4, sideways = 1}"]).is_err());
    assert!(through_driver("cocoa", &["vbf=3"]).is_err());
}
