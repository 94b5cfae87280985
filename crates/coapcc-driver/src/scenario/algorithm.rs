//! Algorithm configuration: a preset from the registry with the scenario's keys applied
//! (`[all_algorithms]` where the algorithm has them, `[algorithm.NAME]` and `[variant.NAME]`
//! keys that must exist), checked by building the controller once.

use coapcc_core::AnyConfig;
use coapcc_core::{ALGORITHMS, ConfigMapper};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Why an algorithm could not be configured.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AlgorithmError {
    /// No algorithm has this name; the valid names are listed.
    #[error("unknown algorithm `{name}`; valid names: {}", .valid.join(", "))]
    UnknownName {
        /// The name asked for.
        name: String,
        /// Every valid name.
        valid: Vec<&'static str>,
    },
    /// The key does not exist for this algorithm; the valid keys are listed.
    #[error("unknown key `{key}`; valid keys: {}", .valid.join(", "))]
    UnknownKey {
        /// The key.
        key: String,
        /// Every valid key.
        valid: Vec<String>,
    },
    /// A value has the wrong type or is out of range.
    #[error("{}{problem}", .key.as_ref().map(|k| format!("bad value for key `{k}`: ")).unwrap_or_default())]
    BadValue {
        /// The key, when known.
        key: Option<String>,
        /// What is wrong.
        problem: String,
    },
}

struct Apply<'a> {
    all: &'a toml::Table,
    own: &'a toml::Table,
}

impl ConfigMapper for Apply<'_> {
    type Error = AlgorithmError;
    fn map<T: Serialize + DeserializeOwned>(&mut self, config: T) -> Result<T, AlgorithmError> {
        let bad = |key: Option<String>, problem: String| AlgorithmError::BadValue { key, problem };
        let mut value = toml::Table::try_from(&config).map_err(|e| bad(None, e.to_string()))?;
        for (k, v) in self.all {
            if value.contains_key(k) {
                value.insert(k.clone(), v.clone());
            }
        }
        for (k, v) in self.own {
            if !value.contains_key(k) {
                return Err(AlgorithmError::UnknownKey { key: k.clone(), valid: value.keys().cloned().collect() });
            }
            // One key at a time, so that an error names the key that caused it.
            let mut trial = value.clone();
            trial.insert(k.clone(), v.clone());
            let checked: T = toml::Value::Table(trial)
                .try_into()
                .map_err(|e: toml::de::Error| bad(Some(k.clone()), e.message().replace('\n', " ")))?;
            value = toml::Table::try_from(&checked).map_err(|e| bad(Some(k.clone()), e.to_string()))?;
        }
        toml::Value::Table(value).try_into().map_err(|e: toml::de::Error| bad(None, e.message().replace('\n', " ")))
    }
}

/// The preset of algorithm `name` with `all` (keys applied where the algorithm has them) and
/// `own` (keys that must exist) applied, checked by building the controller once.
pub fn configure_algorithm(name: &str, all: &toml::Table, own: &toml::Table) -> Result<AnyConfig, AlgorithmError> {
    let preset = AnyConfig::from_name(name).ok_or_else(|| AlgorithmError::UnknownName {
        name: name.to_string(),
        valid: ALGORITHMS.iter().map(|a| a.name).collect(),
    })?;
    let config = preset.map_with(&mut Apply { all, own })?;
    config
        .build()
        .map_err(|e| AlgorithmError::BadValue { key: Some(e.key.to_string()), problem: e.problem.to_string() })?;
    Ok(config)
}

/// The configuration keys of an algorithm configuration and their values.
pub fn algorithm_keys(config: &AnyConfig) -> toml::Table {
    toml::Table::try_from(config).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_algorithm_error_names_the_key_and_lists_what_is_valid() {
        let own: toml::Table = toml::from_str("bogus = 1").unwrap_or_default();
        let e = configure_algorithm("default", &toml::Table::new(), &own).unwrap_err();
        assert!(e.to_string().starts_with("unknown key `bogus`; valid keys: "), "{e}");
        assert!(e.to_string().contains("max_retransmit"), "{e}");
        let e = configure_algorithm("reno", &toml::Table::new(), &toml::Table::new()).unwrap_err();
        assert!(e.to_string().starts_with("unknown algorithm `reno`; valid names: default, "), "{e}");
        let bad = AlgorithmError::BadValue { key: Some("cap_ms".into()), problem: "must be positive".into() };
        assert_eq!(bad.to_string(), "bad value for key `cap_ms`: must be positive");
        let bad = AlgorithmError::BadValue { key: None, problem: "must be positive".into() };
        assert_eq!(bad.to_string(), "must be positive");
    }
}
