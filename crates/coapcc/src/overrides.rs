//! `--set KEY=VALUE` for `coapcc replay`: overrides of an algorithm's configuration keys,
//! checked by the same code that reads `[algorithm.NAME]` tables in scenario files
//! ([`coapcc_sim::scenario::configure_algorithm`]).

use coapcc_core::AnyConfig;
pub use coapcc_sim::scenario::Setting;
use coapcc_sim::scenario::{algorithm_keys, configure_algorithm};

use crate::error::CliError;

/// The preset configuration of `algorithm` with `settings` (typed values; keys are the
/// algorithm's own, so a dotted key is unknown) applied. Errors name the algorithm (listing
/// the valid names) or the key (listing the valid keys).
pub fn configure(algorithm: &str, settings: &[Setting]) -> Result<AnyConfig, CliError> {
    let mut own = toml::Table::new();
    for s in settings {
        own.insert(s.key.to_string(), s.value.to_toml());
    }
    configure_algorithm(algorithm, &toml::Table::new(), &own)
        .map_err(|e| CliError::usage(format!("algorithm `{algorithm}`: {e}")))
}

/// The configuration keys of a configuration and their current values (TOML).
pub fn keys_of(config: &AnyConfig) -> toml::Table {
    algorithm_keys(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(s: &str) -> Setting {
        s.parse().unwrap()
    }

    #[test]
    fn an_override_changes_the_named_key() {
        let c = configure("default", &[set("max_retransmit=20"), set("cap_ms=60000")]).unwrap();
        let keys = keys_of(&c);
        assert_eq!(keys["max_retransmit"].as_integer(), Some(20));
        assert_eq!(keys["cap_ms"].as_integer(), Some(60000));
    }

    #[test]
    fn string_values_select_presets() {
        let c = configure("cocoa-plus", &[set("vbf=makarem")]).unwrap();
        assert_eq!(keys_of(&c)["vbf"].as_str(), Some("makarem"));
        let c = configure("pcocoa", &[set("alpha=1/4")]).unwrap();
        assert_eq!(keys_of(&c)["alpha"].as_float(), Some(0.25));
    }

    #[test]
    fn an_unknown_key_lists_the_valid_ones() {
        let e = configure("default", &[set("bogus=1")]).unwrap_err().to_string();
        assert!(e.contains("unknown key `bogus`") && e.contains("max_retransmit"), "{e}");
    }

    #[test]
    fn a_value_of_the_wrong_type_names_the_key() {
        let e = configure("default", &[set("max_retransmit=lots")]).unwrap_err().to_string();
        assert!(e.contains("`max_retransmit`"), "{e}");
    }

    #[test]
    fn a_value_out_of_range_names_the_key() {
        let e = configure("default", &[set("ack_random_factor=0.5")]).unwrap_err().to_string();
        assert!(e.contains("ack_random_factor"), "{e}");
    }

    #[test]
    fn an_unknown_algorithm_lists_the_valid_names() {
        let e = configure("reno", &[]).unwrap_err().to_string();
        assert!(e.contains("unknown algorithm `reno`") && e.contains("default"), "{e}");
    }

    #[test]
    fn typed_values_of_every_kind_reach_the_configuration() {
        use coapcc_sim::scenario::Value;
        let c = configure(
            "idc",
            &[
                Setting::new("iw", 1.5).unwrap(),
                Setting::new("max_retransmit", 9_u32).unwrap(),
                Setting::new("dither", false).unwrap(),
            ],
        )
        .unwrap();
        let keys = keys_of(&c);
        assert_eq!(keys["iw"].as_float(), Some(1.5));
        assert_eq!(keys["max_retransmit"].as_integer(), Some(9));
        assert_eq!(keys["dither"].as_bool(), Some(false));
        let ratio = Setting::new("alpha", Value::Ratio { numerator: 1, denominator: 4 }).unwrap();
        assert_eq!(keys_of(&configure("pcocoa", &[ratio]).unwrap())["alpha"].as_float(), Some(0.25));
    }

    #[test]
    fn a_dotted_key_is_not_an_algorithm_key() {
        let e = configure("default", &[set("algorithm.default.cap_ms=1")]).unwrap_err().to_string();
        assert!(e.contains("unknown key `algorithm.default.cap_ms`"), "{e}");
    }

    #[test]
    fn a_setting_without_equals_is_rejected() {
        assert!("max_retransmit".parse::<Setting>().is_err());
    }
}
