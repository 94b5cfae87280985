//! `--set KEY=VALUE`: overrides of any algorithm configuration key, checked through serde.
//!
//! The preset configuration is serialised to a JSON object, the named key replaced, and the
//! object deserialised back into the same configuration type (which denies unknown keys), one
//! override at a time so that an error names the key that caused it. A value is read as a
//! TOML value when it parses as one (`20`, `1.5`, `false`, `{below = 3, between = 2, above = 1.3}`)
//! and as a plain string otherwise (`paper`, `1/8`, `none`).

use coapcc_core::registry::ConfigMapper;
use coapcc_core::{AnyConfig, registry};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::CliError;

/// One `KEY=VALUE` pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The key.
    pub key: String,
    /// The raw value text.
    pub value: String,
}

impl std::str::FromStr for Setting {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                Ok(Setting { key: k.trim().to_string(), value: v.trim().to_string() })
            }
            _ => Err(format!("expected KEY=VALUE, got `{s}`")),
        }
    }
}

/// Reads a value as TOML when it is one, else as a string.
pub fn parse_value(raw: &str) -> Value {
    match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) => t.remove("v").and_then(|v| serde_json::to_value(v).ok()).unwrap_or(Value::String(raw.to_string())),
        Err(_) => Value::String(raw.to_string()),
    }
}

/// The configuration keys of a configuration and their current values, in declaration order.
pub fn keys_of(config: &AnyConfig) -> Vec<(String, Value)> {
    match serde_json::to_value(config) {
        Ok(Value::Object(map)) => map.into_iter().collect(),
        _ => Vec::new(),
    }
}

struct Apply<'a> {
    algorithm: &'a str,
    settings: &'a [Setting],
}

impl ConfigMapper for Apply<'_> {
    type Error = CliError;

    fn map<T: Serialize + DeserializeOwned>(&mut self, config: T) -> Result<T, CliError> {
        let mut current = serde_json::to_value(&config).map_err(|e| CliError::Failure(e.to_string()))?;
        for s in self.settings {
            let Value::Object(map) = &mut current else {
                return Err(CliError::Failure("configuration is not a table".into()));
            };
            if !map.contains_key(&s.key) {
                let valid: Vec<&str> = map.keys().map(String::as_str).collect();
                return Err(CliError::usage(format!(
                    "unknown key `{}` for algorithm `{}`; valid keys: {}",
                    s.key,
                    self.algorithm,
                    valid.join(", ")
                )));
            }
            map.insert(s.key.clone(), parse_value(&s.value));
            let checked: T = serde_json::from_value(current.clone()).map_err(|e| {
                CliError::usage(format!(
                    "bad value `{}` for key `{}` of algorithm `{}`: {e}",
                    s.value, s.key, self.algorithm
                ))
            })?;
            current = serde_json::to_value(&checked).map_err(|e| CliError::Failure(e.to_string()))?;
        }
        serde_json::from_value(current).map_err(|e| CliError::Failure(e.to_string()))
    }
}

/// The preset configuration of `algorithm` with `settings` applied. Errors name the
/// algorithm (listing the valid names) or the key (listing the valid keys).
pub fn configure(algorithm: &str, settings: &[Setting]) -> Result<AnyConfig, CliError> {
    let preset = AnyConfig::from_name(algorithm).ok_or_else(|| {
        let names: Vec<&str> = registry::ALGORITHMS.iter().map(|a| a.name).collect();
        CliError::usage(format!("unknown algorithm `{algorithm}`; valid names: {}", names.join(", ")))
    })?;
    let config = preset.map_with(&mut Apply { algorithm, settings })?;
    // Range checks happen once, when the controller is built.
    config.build().map_err(|e| CliError::usage(format!("bad configuration for algorithm `{algorithm}`: {e}")))?;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(s: &str) -> Setting {
        s.parse().unwrap()
    }

    #[test]
    fn values_are_read_as_toml_or_else_as_strings() {
        assert_eq!(parse_value("20"), Value::from(20));
        assert_eq!(parse_value("false"), Value::Bool(false));
        assert_eq!(parse_value("paper"), Value::String("paper".into()));
        assert_eq!(parse_value("1/8"), Value::String("1/8".into()));
    }

    #[test]
    fn an_override_changes_the_named_key() {
        let c = configure("default", &[set("max_retransmit=20"), set("cap_ms=60000")]).unwrap();
        let keys = keys_of(&c);
        assert!(keys.contains(&("max_retransmit".to_string(), Value::from(20))));
        assert!(keys.contains(&("cap_ms".to_string(), Value::from(60000))));
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
    fn a_setting_without_equals_is_rejected() {
        assert!("max_retransmit".parse::<Setting>().is_err());
    }
}
