//! Typed overrides of scenario keys: `--set KEY=VALUE`, `--algorithm`, `--replications`,
//! `--seed` and `--sweep` of the command-line tool, and (later) `Scenario.set(key, value)` of
//! the Python binding, all go through [`Setting`].
//!
//! A [`Setting`] is a [`Key`] (a bare key such as `flows`, looked up in the scenario, or a
//! dotted path such as `algorithm.cocoa.aging`) and a typed [`Value`]. Text is read once,
//! by [`Setting::from_str`] (`KEY=VALUE`) or [`Value::parse`]; a program builds settings from
//! typed values directly ([`Setting::new`], `Value::from(20_u32)`, …). Settings are applied to
//! the parsed scenario document before it is checked into types
//! ([`crate::scenario::load`], [`crate::scenario::parse`], [`crate::scenario::Scenario::set`]),
//! so every error names the file and the key.

use std::fmt;
use std::str::FromStr;

/// Why a setting could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingError {
    /// The key, when one was read.
    pub key: Option<String>,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(k) => write!(f, "key `{k}`: {}", self.problem),
            None => f.write_str(&self.problem),
        }
    }
}

impl std::error::Error for SettingError {}

/// A key of a scenario: one part (`flows`, looked up in the top level, `[network.*]`,
/// `[workload]`, `[coap]` and `[trace]`) or a dotted path naming its table
/// (`algorithm.cocoa.aging`, `network.nbiot.buffer_bytes`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    parts: Vec<String>,
}

impl Key {
    /// The parts of the key (one for a bare key), none empty.
    pub fn parts(&self) -> &[String] {
        &self.parts
    }

    /// The single part of a bare key (`flows`), `None` for a dotted path.
    pub fn bare(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.parts.join("."))
    }
}

impl FromStr for Key {
    type Err = SettingError;
    /// Reads `flows` or `algorithm.cocoa.aging` (surrounding blanks ignored); no part may be empty.
    fn from_str(s: &str) -> Result<Key, SettingError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(SettingError { key: None, problem: "empty key".into() });
        }
        let parts: Vec<String> = s.split('.').map(str::to_string).collect();
        if parts.iter().any(String::is_empty) {
            return Err(SettingError { key: Some(s.into()), problem: "a dotted key has an empty part".into() });
        }
        Ok(Key { parts })
    }
}

/// A typed value of a setting.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An integer (`20`).
    Integer(i64),
    /// A number with a fraction or exponent (`1.5`, `2e3`).
    Float(f64),
    /// An exact ratio (`1/4`), for keys such as CoCoA's `alpha` or a rate in packets per second.
    Ratio {
        /// Numerator.
        numerator: u64,
        /// Denominator (not 0).
        denominator: u64,
    },
    /// `true` or `false`.
    Boolean(bool),
    /// A string: a preset or mode name (`makarem`, `none`, `off`), a path, a name.
    Text(String),
    /// A list (`["default", "cocoa"]`, `[1, 2]`).
    List(Vec<Value>),
    /// A table (`{ kind = "fifo", min_ms = 10 }`), keys in order.
    Table(Vec<(String, Value)>),
}

impl Value {
    /// Reads a value written as on the command line: a TOML value when the text is one (`20`,
    /// `1.5`, `false`, `[1, 2]`, `{a = 1}`, `"quoted"`), a ratio for `N/D` (`1/4`), else the
    /// text itself as a string (`makarem`, `off`).
    pub fn parse(text: &str) -> Value {
        if let Some(r) = Value::ratio(text) {
            return r;
        }
        match toml::from_str::<toml::Table>(&format!("v = {text}")) {
            Ok(mut t) => match t.remove("v") {
                Some(toml::Value::Datetime(_)) | None => Value::Text(text.to_string()),
                Some(v) => Value::from_toml(v),
            },
            Err(_) => Value::Text(text.to_string()),
        }
    }

    /// `N/D` with decimal digits only, as written (so it reads back the same), and D not 0.
    fn ratio(text: &str) -> Option<Value> {
        let (n, d) = text.split_once('/')?;
        let numerator: u64 = n.parse().ok()?;
        let denominator: u64 = d.parse().ok()?;
        let canonical = numerator.to_string() == n && denominator.to_string() == d;
        (canonical && denominator != 0).then_some(Value::Ratio { numerator, denominator })
    }

    /// The value as a TOML value (a ratio as the string `"N/D"`, as scenario files write it).
    pub fn to_toml(&self) -> toml::Value {
        match self {
            Value::Integer(i) => toml::Value::Integer(*i),
            Value::Float(x) => toml::Value::Float(*x),
            Value::Ratio { numerator, denominator } => toml::Value::String(format!("{numerator}/{denominator}")),
            Value::Boolean(b) => toml::Value::Boolean(*b),
            Value::Text(s) => toml::Value::String(s.clone()),
            Value::List(v) => toml::Value::Array(v.iter().map(Value::to_toml).collect()),
            Value::Table(t) => toml::Value::Table(t.iter().map(|(k, v)| (k.clone(), v.to_toml())).collect()),
        }
    }

    /// A TOML value as a typed value (a date-time as its text).
    pub fn from_toml(v: toml::Value) -> Value {
        match v {
            toml::Value::Integer(i) => Value::Integer(i),
            toml::Value::Float(x) => Value::Float(x),
            toml::Value::Boolean(b) => Value::Boolean(b),
            toml::Value::String(s) => Value::Text(s),
            toml::Value::Datetime(d) => Value::Text(d.to_string()),
            toml::Value::Array(a) => Value::List(a.into_iter().map(Value::from_toml).collect()),
            toml::Value::Table(t) => Value::Table(t.into_iter().map(|(k, v)| (k, Value::from_toml(v))).collect()),
        }
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Integer(v)
    }
}

impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Integer(i64::from(v))
    }
}

impl From<u64> for Value {
    /// An integer; one above `i64::MAX` (which TOML cannot hold) as its decimal text.
    fn from(v: u64) -> Value {
        i64::try_from(v).map_or_else(|_| Value::Text(v.to_string()), Value::Integer)
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Float(v)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Boolean(v)
    }
}

impl From<&str> for Value {
    /// A string, taken as is (not parsed: use [`Value::parse`] for command-line text).
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}

impl From<String> for Value {
    /// A string, taken as is.
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(v: Vec<T>) -> Value {
        Value::List(v.into_iter().map(Into::into).collect())
    }
}

/// One override: a key and its typed value.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    /// The key: bare (`flows`) or dotted (`algorithm.cocoa.aging`).
    pub key: Key,
    /// The value.
    pub value: Value,
}

impl Setting {
    /// A setting of `key` (bare or dotted) to `value`. Errors name the key.
    pub fn new(key: &str, value: impl Into<Value>) -> Result<Setting, SettingError> {
        Ok(Setting { key: key.parse()?, value: value.into() })
    }

    /// `replications = n` (`--replications`).
    pub fn replications(n: u32) -> Setting {
        Setting { key: Key { parts: vec!["replications".into()] }, value: n.into() }
    }

    /// `seed = n` (`--seed`).
    pub fn seed(n: u64) -> Setting {
        Setting { key: Key { parts: vec!["seed".into()] }, value: n.into() }
    }

    /// `algorithms = [names…]` (`--algorithm`, repeated). The names are checked with the
    /// scenario: each must be an algorithm (see `coapcc algorithms`) or one of its `[variant.*]`.
    pub fn algorithms<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Setting {
        let list = names.into_iter().map(|n| Value::Text(n.into())).collect();
        Setting { key: Key { parts: vec!["algorithms".into()] }, value: Value::List(list) }
    }
}

impl FromStr for Setting {
    type Err = SettingError;
    /// Reads `KEY=VALUE` (blanks around either ignored); the value as by [`Value::parse`].
    fn from_str(s: &str) -> Result<Setting, SettingError> {
        match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok(Setting { key: k.parse()?, value: Value::parse(v.trim()) }),
            _ => Err(SettingError { key: None, problem: format!("expected KEY=VALUE, got `{s}`") }),
        }
    }
}

/// An algorithm that could not be configured from settings: its name and why (the unknown
/// name with the valid ones, or the key at fault with the valid keys).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlgorithmSettingsError {
    /// The algorithm asked for.
    pub algorithm: String,
    /// Why.
    pub problem: crate::scenario::AlgorithmError,
}

impl fmt::Display for AlgorithmSettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "algorithm `{}`: {}", self.algorithm, self.problem)
    }
}

impl std::error::Error for AlgorithmSettingsError {}

/// The preset configuration of algorithm `name` with `settings` applied: the algorithm's own
/// keys (so a dotted key is unknown), checked by the same code that reads `[algorithm.NAME]`
/// tables of scenario files ([`crate::scenario::configure_algorithm`]). The one place
/// `--set KEY=VALUE` meets an algorithm: `coapcc replay`, `coapcc algorithms NAME`,
/// `coapcc client`, the real-socket configuration and the Python package use it.
pub fn algorithm_with_settings(
    name: &str,
    settings: &[Setting],
) -> Result<coapcc_core::AnyConfig, AlgorithmSettingsError> {
    let own: toml::Table = settings.iter().map(|s| (s.key.to_string(), s.value.to_toml())).collect();
    crate::scenario::configure_algorithm(name, &toml::Table::new(), &own)
        .map_err(|problem| AlgorithmSettingsError { algorithm: name.to_string(), problem })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value_of(s: &str) -> Value {
        s.parse::<Setting>().unwrap().value
    }

    #[test]
    fn an_integer_is_read_as_an_integer() {
        assert_eq!(value_of("flows=50"), Value::Integer(50));
        assert_eq!(value_of("flows = 1_000"), Value::Integer(1000));
    }

    #[test]
    fn a_number_with_a_fraction_is_read_as_a_float() {
        assert_eq!(value_of("iw=1.1"), Value::Float(1.1));
        assert_eq!(value_of("x=2e3"), Value::Float(2000.0));
    }

    #[test]
    fn n_over_d_is_read_as_a_ratio_and_written_back_as_the_same_text() {
        let v = value_of("alpha=1/4");
        assert_eq!(v, Value::Ratio { numerator: 1, denominator: 4 });
        assert_eq!(v.to_toml(), toml::Value::String("1/4".into()));
        assert_eq!(value_of("alpha=1/0"), Value::Text("1/0".into()));
        assert_eq!(value_of("alpha=01/4"), Value::Text("01/4".into()));
    }

    #[test]
    fn a_word_is_read_as_a_string() {
        assert_eq!(value_of("vbf=makarem"), Value::Text("makarem".into()));
        assert_eq!(value_of("name=\"a b\""), Value::Text("a b".into()));
        assert_eq!(value_of("day=1979-05-27"), Value::Text("1979-05-27".into()));
    }

    #[test]
    fn true_and_false_are_read_as_booleans() {
        assert_eq!(value_of("dither=false"), Value::Boolean(false));
        assert_eq!(value_of("dither=true"), Value::Boolean(true));
    }

    #[test]
    fn a_bracketed_list_is_read_as_a_list() {
        assert_eq!(
            value_of("algorithms=[\"default\", \"cocoa\"]"),
            Value::List(vec![Value::Text("default".into()), Value::Text("cocoa".into())])
        );
        assert_eq!(Setting::algorithms(["default", "cocoa"]).value, value_of("algorithms=[\"default\", \"cocoa\"]"));
    }

    #[test]
    fn a_dotted_key_keeps_its_parts() {
        let s: Setting = "algorithm.cocoa.aging=off".parse().unwrap();
        assert_eq!(s.key.parts(), ["algorithm", "cocoa", "aging"]);
        assert_eq!(s.key.bare(), None);
        assert_eq!(s.key.to_string(), "algorithm.cocoa.aging");
        assert_eq!("flows=1".parse::<Setting>().unwrap().key.bare(), Some("flows"));
    }

    #[test]
    fn a_malformed_setting_says_what_was_expected() {
        assert!("max_retransmit".parse::<Setting>().unwrap_err().to_string().contains("expected KEY=VALUE"));
        assert!("=3".parse::<Setting>().is_err());
        let e = "algorithm..aging=off".parse::<Setting>().unwrap_err();
        assert_eq!(e.key.as_deref(), Some("algorithm..aging"));
    }

    #[test]
    fn numbers_from_a_program_keep_their_type() {
        assert_eq!(Setting::replications(3).value, Value::Integer(3));
        assert_eq!(Setting::seed(u64::MAX).value, Value::Text(u64::MAX.to_string()));
        assert_eq!(Setting::new("flows", 50_u32).unwrap(), "flows=50".parse().unwrap());
        assert_eq!(Setting::new("a..b", 1_i64).unwrap_err().key.as_deref(), Some("a..b"));
    }
    fn configure(name: &str, settings: &[Setting]) -> Result<coapcc_core::AnyConfig, AlgorithmSettingsError> {
        algorithm_with_settings(name, settings)
    }

    fn keys_of(config: &coapcc_core::AnyConfig) -> toml::Table {
        crate::scenario::algorithm_keys(config)
    }

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
        assert!(e.starts_with("algorithm `reno`: "), "{e}");
    }

    #[test]
    fn typed_values_of_every_kind_reach_the_configuration() {
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
}
