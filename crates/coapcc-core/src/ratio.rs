//! [`Ratio`]: exact rational factors (gains, weights, backoff factors) without floating point.
//!
//! Every multiplicative constant of the algorithms (α = 1/8, the VBF 1.5, the weight 0.25,
//! ACK_RANDOM_FACTOR 1.5 …) is a `Ratio`. Multiplying a duration by it is exact integer
//! arithmetic on nanoseconds (rounded half up to the nanosecond), so results are identical on
//! every target, a Cortex-M4 included, and the spec's test vectors hold to the nanosecond.

use core::cmp::Ordering;
use core::fmt;
use core::time::Duration;

use crate::time::{from_nanos, nanos};

/// A non-negative rational number `num / den` with `den ≥ 1`, kept in lowest terms.
/// Because the value is always in lowest terms, equal values have equal fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ratio {
    num: u32,
    den: u32,
}

const fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

impl Ratio {
    /// Zero.
    pub const ZERO: Ratio = Ratio { num: 0, den: 1 };
    /// One.
    pub const ONE: Ratio = Ratio { num: 1, den: 1 };

    /// `num / den` in lowest terms. A zero denominator is read as 1 (so this is total and
    /// usable in `const` items); use [`Ratio::try_new`] to reject it instead.
    pub const fn new(num: u32, den: u32) -> Ratio {
        let den = if den == 0 { 1 } else { den };
        let g = gcd(num, den);
        let g = if g == 0 { 1 } else { g };
        Ratio { num: num / g, den: den / g }
    }

    /// `num / den`, or `None` when `den` is zero.
    pub const fn try_new(num: u32, den: u32) -> Option<Ratio> {
        if den == 0 { None } else { Some(Ratio::new(num, den)) }
    }

    /// The integer `n`.
    pub const fn integer(n: u32) -> Ratio {
        Ratio { num: n, den: 1 }
    }

    /// Numerator (lowest terms).
    pub const fn numer(self) -> u32 {
        self.num
    }

    /// Denominator (lowest terms, ≥ 1).
    pub const fn denom(self) -> u32 {
        self.den
    }

    /// Whether this is zero.
    pub const fn is_zero(self) -> bool {
        self.num == 0
    }

    /// `d × self`, exact to the nanosecond (rounded half up), saturating.
    #[cfg_attr(not(target_os = "none"), inline)]
    #[cfg_attr(target_os = "none", inline(never))] // code size: see crate::time
    pub fn mul_duration(self, d: Duration) -> Duration {
        let n = nanos(d) as u128 * self.num as u128;
        let q = (n + (self.den as u128 / 2)) / self.den as u128;
        from_nanos(if q > u64::MAX as u128 { u64::MAX } else { q as u64 })
    }

    /// `1 − self`, or zero when `self ≥ 1`.
    pub const fn one_minus(self) -> Ratio {
        if self.num >= self.den { Ratio::ZERO } else { Ratio::new(self.den - self.num, self.den) }
    }

    /// The weighted mean `self·a + (1 − self)·b` for a weight in [0, 1] (a weight above 1 is
    /// read as 1). This is the form of every EWMA and every CoCoA overall-RTO update.
    #[cfg_attr(not(target_os = "none"), inline)]
    #[cfg_attr(target_os = "none", inline(never))] // code size: see crate::time
    pub fn blend(self, a: Duration, b: Duration) -> Duration {
        let (w, den) = if self.num >= self.den { (1u128, 1u128) } else { (self.num as u128, self.den as u128) };
        let s = w * nanos(a) as u128 + (den - w) * nanos(b) as u128;
        let q = (s + den / 2) / den;
        from_nanos(if q > u64::MAX as u128 { u64::MAX } else { q as u64 })
    }

    /// The value as `f64` (for display and reports; no algorithm computes with it).
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// Parses `"1.3"`, `"0.125"`, `"2"` or `"1/8"`. At most nine decimals.
    pub fn parse(s: &str) -> Result<Ratio, RatioError> {
        let s = s.trim();
        if let Some((n, d)) = s.split_once('/') {
            let n: u32 = n.trim().parse().map_err(|_| RatioError::Syntax)?;
            let d: u32 = d.trim().parse().map_err(|_| RatioError::Syntax)?;
            return Ratio::try_new(n, d).ok_or(RatioError::ZeroDenominator);
        }
        if s.starts_with('-') {
            return Err(RatioError::Negative);
        }
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        if (int.is_empty() && frac.is_empty())
            || !int.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(RatioError::Syntax);
        }
        let frac = frac.trim_end_matches('0');
        if frac.len() > 9 {
            return Err(RatioError::TooPrecise);
        }
        let scale = 10u64.pow(frac.len() as u32);
        let int_v: u64 = if int.is_empty() { 0 } else { int.parse().map_err(|_| RatioError::TooLarge)? };
        let frac_v: u64 = if frac.is_empty() { 0 } else { frac.parse().map_err(|_| RatioError::Syntax)? };
        let num = int_v.checked_mul(scale).and_then(|v| v.checked_add(frac_v)).ok_or(RatioError::TooLarge)?;
        Ratio::reduce_u64(num, scale)
    }

    /// Converts a float that has a short decimal form (`1.3`, `0.03125`): the value whose
    /// shortest decimal expansion of at most nine decimals reproduces `x` exactly.
    pub fn from_f64(x: f64) -> Result<Ratio, RatioError> {
        if x.is_nan() || x.is_infinite() {
            return Err(RatioError::Syntax);
        }
        if x < 0.0 {
            return Err(RatioError::Negative);
        }
        let mut scale = 1u64;
        for _ in 0..=9 {
            let scaled = x * scale as f64;
            if scaled > u64::MAX as f64 / 2.0 {
                return Err(RatioError::TooLarge);
            }
            let n = (scaled + 0.5) as u64;
            if n as f64 / scale as f64 == x {
                return Ratio::reduce_u64(n, scale);
            }
            scale *= 10;
        }
        Err(RatioError::TooPrecise)
    }

    fn reduce_u64(num: u64, den: u64) -> Result<Ratio, RatioError> {
        let (mut a, mut b) = (num, den);
        while b != 0 {
            let t = a % b;
            a = b;
            b = t;
        }
        let g = if a == 0 { 1 } else { a };
        let (n, d) = (num / g, den / g);
        if n > u32::MAX as u64 || d > u32::MAX as u64 {
            return Err(RatioError::TooLarge);
        }
        Ok(Ratio { num: n as u32, den: d as u32 })
    }

    /// Whether the decimal expansion terminates (the denominator has only factors 2 and 5).
    fn is_decimal(self) -> bool {
        let mut d = self.den;
        while d % 2 == 0 {
            d /= 2;
        }
        while d % 5 == 0 {
            d /= 5;
        }
        d == 1
    }
}

impl Default for Ratio {
    fn default() -> Self {
        Ratio::ONE
    }
}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ratio {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.num as u64 * other.den as u64).cmp(&(other.num as u64 * self.den as u64))
    }
}

impl fmt::Display for Ratio {
    /// Decimal when the expansion terminates (`1.5`, `0.03125`), else `num/den`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            return write!(f, "{}", self.num);
        }
        if !self.is_decimal() {
            return write!(f, "{}/{}", self.num, self.den);
        }
        let mut scale = 1u64;
        let mut digits = 0;
        while scale % self.den as u64 != 0 {
            scale *= 10;
            digits += 1;
        }
        let scaled = self.num as u64 * (scale / self.den as u64);
        write!(f, "{}.{:0width$}", scaled / scale, scaled % scale, width = digits)
    }
}

/// Why a text or number is not a valid [`Ratio`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RatioError {
    /// Not a decimal number or a fraction `n/d`.
    #[error("expected a non-negative number such as 1.5, 0.125 or 1/8")]
    Syntax,
    /// Negative values are not allowed.
    #[error("must not be negative")]
    Negative,
    /// Zero denominator.
    #[error("denominator must not be zero")]
    ZeroDenominator,
    /// More than nine decimals.
    #[error("at most nine decimals are supported")]
    TooPrecise,
    /// Too large to represent.
    #[error("too large")]
    TooLarge,
}

#[cfg(feature = "serde")]
mod serde_impl {
    use super::Ratio;
    use core::fmt;
    use serde::de::{self, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    impl Serialize for Ratio {
        /// A number when the decimal expansion terminates, else the string `"num/den"`.
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            if self.den == 1 {
                s.serialize_u64(self.num as u64)
            } else if self.is_decimal() {
                s.serialize_f64(self.to_f64())
            } else {
                s.collect_str(self)
            }
        }
    }

    struct RatioVisitor;
    impl<'de> Visitor<'de> for RatioVisitor {
        type Value = Ratio;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a non-negative number such as 1.5, 0.125 or \"1/8\"")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Ratio, E> {
            u32::try_from(v).map(Ratio::integer).map_err(|_| E::custom("too large"))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Ratio, E> {
            if v < 0 {
                return Err(E::custom("must not be negative"));
            }
            self.visit_u64(v as u64)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Ratio, E> {
            Ratio::from_f64(v).map_err(E::custom)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Ratio, E> {
            Ratio::parse(v).map_err(E::custom)
        }
    }

    impl<'de> Deserialize<'de> for Ratio {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ratio, D::Error> {
            d.deserialize_any(RatioVisitor)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::string::ToString;

    #[test]
    fn ratios_are_kept_in_lowest_terms() {
        assert_eq!(Ratio::new(2, 16), Ratio::new(1, 8));
        assert_eq!(Ratio::new(3, 0), Ratio::integer(3));
        assert_eq!(Ratio::try_new(1, 0), None);
    }

    #[test]
    fn multiplying_a_duration_is_exact_to_the_nanosecond() {
        assert_eq!(Ratio::new(3, 2).mul_duration(Duration::from_secs(2)), Duration::from_secs(3));
        assert_eq!(Ratio::new(1, 3).mul_duration(Duration::from_secs(2)), Duration::from_nanos(666_666_667));
        assert_eq!(Ratio::integer(3).mul_duration(Duration::MAX), Duration::from_nanos(u64::MAX));
    }

    #[test]
    fn blend_is_a_weighted_mean_with_weights_clamped_to_one() {
        let (a, b) = (Duration::from_millis(3000), Duration::from_millis(1500));
        assert_eq!(Ratio::new(1, 4).blend(a, b), Duration::from_millis(1875));
        assert_eq!(Ratio::integer(2).blend(a, b), a);
        assert_eq!(Ratio::ZERO.blend(a, b), b);
    }

    #[test]
    fn parsing_accepts_decimals_and_fractions_and_rejects_the_rest() {
        assert_eq!(Ratio::parse("1.3"), Ok(Ratio::new(13, 10)));
        assert_eq!(Ratio::parse("1/32"), Ok(Ratio::new(1, 32)));
        assert_eq!(Ratio::parse("0.03125"), Ok(Ratio::new(1, 32)));
        assert_eq!(Ratio::parse("2"), Ok(Ratio::integer(2)));
        assert_eq!(Ratio::parse(".5"), Ok(Ratio::new(1, 2)));
        assert_eq!(Ratio::parse("-1"), Err(RatioError::Negative));
        assert_eq!(Ratio::parse("abc"), Err(RatioError::Syntax));
        assert_eq!(Ratio::parse("1/0"), Err(RatioError::ZeroDenominator));
        assert_eq!(Ratio::parse(""), Err(RatioError::Syntax));
    }

    #[test]
    fn floats_with_short_decimal_forms_convert_exactly() {
        assert_eq!(Ratio::from_f64(1.3), Ok(Ratio::new(13, 10)));
        assert_eq!(Ratio::from_f64(0.125), Ok(Ratio::new(1, 8)));
        assert_eq!(Ratio::from_f64(-0.5), Err(RatioError::Negative));
        assert_eq!(Ratio::from_f64(1.0 / 3.0), Err(RatioError::TooPrecise));
    }

    #[test]
    fn display_is_decimal_when_it_terminates() {
        assert_eq!(Ratio::new(13, 10).to_string(), "1.3");
        assert_eq!(Ratio::new(1, 32).to_string(), "0.03125");
        assert_eq!(Ratio::new(1, 3).to_string(), "1/3");
        assert_eq!(Ratio::integer(4).to_string(), "4");
    }

    #[test]
    fn ordering_compares_values_not_representations() {
        assert!(Ratio::new(3, 2) > Ratio::new(13, 10));
        assert!(Ratio::new(1, 8) < Ratio::new(1, 4));
    }
}
