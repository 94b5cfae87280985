//! Configuration errors, and the serde helpers that give duration fields their unit in the
//! key (`ack_timeout_ms = 2000`).
//!
//! Every algorithm has a plain configuration struct whose `Default` holds its source's values.
//! Constructing the controller checks the configuration once (`Algorithm::new(config)`
//! returns a [`ConfigError`] naming the key); after that every controller method is total.

/// A configuration value outside its allowed range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{key}` {problem}")]
pub struct ConfigError {
    /// The key as written in scenario files and `--set` (e.g. `ack_random_factor`).
    pub key: &'static str,
    /// What is wrong and what is allowed (e.g. "must be at least 1").
    pub problem: &'static str,
}

impl ConfigError {
    /// An error for `key`.
    pub const fn new(key: &'static str, problem: &'static str) -> Self {
        ConfigError { key, problem }
    }
}

/// Serde for a [`core::time::Duration`] written as milliseconds (integer or decimal).
#[cfg(feature = "serde")]
pub mod serde_ms {
    use core::fmt;
    use core::time::Duration;
    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    /// Writes whole milliseconds as an integer, otherwise a decimal.
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        let n = crate::time::nanos(*d);
        if n % 1_000_000 == 0 { s.serialize_u64(n / 1_000_000) } else { s.serialize_f64(n as f64 / 1e6) }
    }

    pub(crate) struct MsVisitor;
    impl<'de> Visitor<'de> for MsVisitor {
        type Value = Duration;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a non-negative number of milliseconds")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Duration, E> {
            Ok(Duration::from_nanos(v.saturating_mul(1_000_000)))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Duration, E> {
            if v < 0 { Err(E::custom("must not be negative")) } else { self.visit_u64(v as u64) }
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Duration, E> {
            if v.is_nan() || v < 0.0 || v.is_infinite() {
                return Err(E::custom("must be a finite, non-negative number of milliseconds"));
            }
            let ns = v * 1e6 + 0.5;
            if ns >= u64::MAX as f64 {
                return Err(E::custom("too large"));
            }
            Ok(Duration::from_nanos(ns as u64))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Duration, E> {
            match v.trim().parse::<f64>() {
                Ok(x) => self.visit_f64(x),
                Err(_) => Err(E::custom("expected a number of milliseconds")),
            }
        }
    }

    /// Reads an integer or decimal number of milliseconds (also as a string).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        d.deserialize_any(MsVisitor)
    }
}

/// Serde for an optional [`core::time::Duration`] in milliseconds: a number, or the string
/// `"none"` (TOML has no null).
#[cfg(feature = "serde")]
pub mod serde_opt_ms {
    use core::fmt;
    use core::time::Duration;
    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    /// Writes the milliseconds, or `"none"`.
    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => super::serde_ms::serialize(d, s),
            None => s.serialize_str("none"),
        }
    }

    struct OptVisitor;
    impl<'de> Visitor<'de> for OptVisitor {
        type Value = Option<Duration>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a non-negative number of milliseconds or \"none\"")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            super::serde_ms::MsVisitor.visit_u64(v).map(Some)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            super::serde_ms::MsVisitor.visit_i64(v).map(Some)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            super::serde_ms::MsVisitor.visit_f64(v).map(Some)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            if v.eq_ignore_ascii_case("none") { Ok(None) } else { super::serde_ms::MsVisitor.visit_str(v).map(Some) }
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }

    /// Reads a number of milliseconds, or `"none"` / null.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        d.deserialize_any(OptVisitor)
    }
}
