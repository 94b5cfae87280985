//! The Variable Backoff Factor of CoCoA and its descendants (spec §2.5, §3, OQ-3, OQ-7).
//!
//! The factor depends on the RTO: large for small RTOs (so that MAX_RETRANSMIT copies do not
//! all leave within the default 2–3 s window), small for large ones (so that all copies still
//! fit into MAX_TRANSMIT_WAIT). The three published value sets are presets.

use core::time::Duration;

use crate::ratio::Ratio;

/// A VBF table: `below` for RTO < `lower`, `between` for `lower` ≤ RTO ≤ `upper`, `above` for
/// RTO > `upper`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(from = "serde_repr::VbfRepr", into = "serde_repr::VbfRepr"))]
pub struct Vbf {
    /// Factor for RTO < `lower`.
    pub below: Ratio,
    /// Factor for `lower` ≤ RTO ≤ `upper`.
    pub between: Ratio,
    /// Factor for RTO > `upper`.
    pub above: Ratio,
    /// Lower threshold (1 s in every source).
    pub lower: Duration,
    /// Upper threshold (3 s in every source).
    pub upper: Duration,
}

impl Vbf {
    const fn table(below: Ratio, between: Ratio, above: Ratio) -> Vbf {
        Vbf { below, between, above, lower: Duration::from_secs(1), upper: Duration::from_secs(3) }
    }

    /// draft-ietf-core-cocoa-03 §4.2 and Californium: {3, 2, 1.5}.
    pub const DRAFT: Vbf = Vbf::table(Ratio::integer(3), Ratio::integer(2), Ratio::new(3, 2));
    /// The 2014 slides \[S3\] and Lim 2020 \[S4\] (CoCoA+ as published): {3, 2, 1.3}.
    pub const PAPER: Vbf = Vbf::table(Ratio::integer(3), Ratio::integer(2), Ratio::new(13, 10));
    /// Betzler's 2015 Contiki code, used by Makarem \[S1\] for CoCoA+ and pCoCoA: {2.5, 2, 1.5}.
    pub const MAKAREM: Vbf = Vbf::table(Ratio::new(5, 2), Ratio::integer(2), Ratio::new(3, 2));

    /// The factor for an RTO.
    pub fn factor(&self, rto: Duration) -> Ratio {
        if rto < self.lower {
            self.below
        } else if rto <= self.upper {
            self.between
        } else {
            self.above
        }
    }

    /// The preset name of this table, if it is one.
    pub fn preset_name(&self) -> Option<&'static str> {
        [("draft", Vbf::DRAFT), ("paper", Vbf::PAPER), ("makarem", Vbf::MAKAREM)]
            .into_iter()
            .find(|(_, v)| v == self)
            .map(|(n, _)| n)
    }

    /// The largest factor of the table.
    pub fn max_factor(&self) -> Ratio {
        self.below.max(self.between).max(self.above)
    }
}

#[cfg(feature = "serde")]
mod serde_repr {
    use super::Vbf;
    use crate::ratio::Ratio;
    use core::time::Duration;

    #[derive(serde::Serialize, serde::Deserialize, Clone, Copy)]
    #[serde(rename_all = "lowercase")]
    pub enum Preset {
        Draft,
        Paper,
        Makarem,
    }

    #[derive(serde::Serialize, serde::Deserialize, Clone, Copy)]
    #[serde(deny_unknown_fields)]
    pub struct Table {
        below: Ratio,
        between: Ratio,
        above: Ratio,
        #[serde(rename = "lower_ms", with = "crate::config::serde_ms", default = "one_s")]
        lower: Duration,
        #[serde(rename = "upper_ms", with = "crate::config::serde_ms", default = "three_s")]
        upper: Duration,
    }

    fn one_s() -> Duration {
        Duration::from_secs(1)
    }
    fn three_s() -> Duration {
        Duration::from_secs(3)
    }

    /// A preset name (`"draft"`, `"paper"`, `"makarem"`) or a table.
    #[derive(serde::Serialize, Clone, Copy)]
    #[serde(untagged)]
    pub enum VbfRepr {
        Preset(Preset),
        Table(Table),
    }

    /// Read by the kind of value (a string is a preset name, a map a table) rather than as
    /// serde's untagged enum, which buffers the value and so needs an allocator: firmware
    /// reads `vbf = "makarem"` without one.
    impl<'de> serde::Deserialize<'de> for VbfRepr {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            use serde::de::value::{MapAccessDeserializer, StrDeserializer};
            use serde::de::{self, Deserialize};

            struct ReprVisitor;
            impl<'de> de::Visitor<'de> for ReprVisitor {
                type Value = VbfRepr;
                fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.write_str(
                        "a VBF preset (\"draft\", \"paper\", \"makarem\") or a table of `below`, `between`, `above`",
                    )
                }
                fn visit_str<E: de::Error>(self, v: &str) -> Result<VbfRepr, E> {
                    Preset::deserialize(StrDeserializer::<E>::new(v)).map(VbfRepr::Preset)
                }
                fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<VbfRepr, A::Error> {
                    Table::deserialize(MapAccessDeserializer::new(map)).map(VbfRepr::Table)
                }
            }
            d.deserialize_any(ReprVisitor)
        }
    }

    impl From<VbfRepr> for Vbf {
        fn from(r: VbfRepr) -> Vbf {
            match r {
                VbfRepr::Preset(Preset::Draft) => Vbf::DRAFT,
                VbfRepr::Preset(Preset::Paper) => Vbf::PAPER,
                VbfRepr::Preset(Preset::Makarem) => Vbf::MAKAREM,
                VbfRepr::Table(t) => {
                    Vbf { below: t.below, between: t.between, above: t.above, lower: t.lower, upper: t.upper }
                }
            }
        }
    }

    impl From<Vbf> for VbfRepr {
        fn from(v: Vbf) -> VbfRepr {
            match v.preset_name() {
                Some("draft") => VbfRepr::Preset(Preset::Draft),
                Some("paper") => VbfRepr::Preset(Preset::Paper),
                Some(_) => VbfRepr::Preset(Preset::Makarem),
                None => VbfRepr::Table(Table {
                    below: v.below,
                    between: v.between,
                    above: v.above,
                    lower: v.lower,
                    upper: v.upper,
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_draft_table_picks_3_below_1_s_2_up_to_3_s_and_1_5_above() {
        let v = Vbf::DRAFT;
        assert_eq!(v.factor(Duration::from_millis(999)), Ratio::integer(3));
        assert_eq!(v.factor(Duration::from_secs(1)), Ratio::integer(2));
        assert_eq!(v.factor(Duration::from_secs(3)), Ratio::integer(2));
        assert_eq!(v.factor(Duration::from_millis(3001)), Ratio::new(3, 2));
    }

    #[test]
    fn presets_know_their_names() {
        assert_eq!(Vbf::PAPER.preset_name(), Some("paper"));
        assert_eq!(Vbf { below: Ratio::integer(4), ..Vbf::DRAFT }.preset_name(), None);
    }
}
