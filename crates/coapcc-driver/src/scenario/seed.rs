//! The scenario's `seed`, any `u64`: TOML integers are signed 64-bit (TOML 1.1 §Integer), so a
//! seed above 2⁶³−1 is written as its decimal text (`seed = "18446744073709551615"`), and
//! either form is read. `--seed`/`--set seed=` give such a seed as text, read the same way.

use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

/// Writes `seed` as an integer when TOML can hold it, else as its decimal text.
pub(super) fn serialize<S: Serializer>(seed: &u64, s: S) -> Result<S::Ok, S::Error> {
    match i64::try_from(*seed) {
        Ok(i) => s.serialize_i64(i),
        Err(_) => s.serialize_str(&seed.to_string()),
    }
}

/// Reads a seed from an integer from 0 to 2⁶⁴−1 or its decimal text.
pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    d.deserialize_any(SeedVisitor)
}

struct SeedVisitor;

impl Visitor<'_> for SeedVisitor {
    type Value = u64;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an integer from 0 to 18446744073709551615 (above 2^63-1 as its decimal text)")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        Ok(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        u64::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        v.parse().map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Doc {
        #[serde(with = "super")]
        seed: u64,
    }

    fn read(text: &str) -> Result<u64, toml::de::Error> {
        toml::from_str::<Doc>(text).map(|d| d.seed)
    }

    #[test]
    fn every_u64_seed_round_trips_through_toml() {
        for seed in [0, 1, i64::MAX as u64, i64::MAX as u64 + 1, u64::MAX] {
            let text = toml::to_string(&Doc { seed }).unwrap();
            assert_eq!(read(&text).unwrap(), seed, "{text}");
        }
    }

    #[test]
    fn a_seed_toml_can_hold_stays_an_integer_and_a_larger_one_is_its_decimal_text() {
        assert_eq!(toml::to_string(&Doc { seed: 7 }).unwrap(), "seed = 7\n");
        assert_eq!(toml::to_string(&Doc { seed: u64::MAX }).unwrap(), "seed = \"18446744073709551615\"\n");
    }

    #[test]
    fn a_negative_seed_or_text_that_is_not_a_u64_is_refused() {
        assert!(read("seed = -1").is_err());
        assert!(read("seed = \"18446744073709551616\"").is_err());
        assert!(read("seed = \"one\"").is_err());
        assert!(read("seed = 1.5").is_err());
    }
}
