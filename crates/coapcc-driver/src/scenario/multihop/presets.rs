//! The two preset keys of a `[multihop]` table (OQ-M2, OQ-M1): the Contiki release whose
//! constants a run follows (`version`) and the mote platform (`mote`). `parse.rs` lays a
//! file's own keys over the table they select.

use serde::Deserialize;

/// The Contiki release whose constants a preset follows (OQ-M2: Betzler 2.7, Lim and
/// Makarem 3.0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
pub enum ContikiVersion {
    /// Contiki 2.7: linear capped CSMA backoff, CCA threshold −77 dBm, no hop-by-hop option
    /// at the UDP origin.
    #[serde(rename = "2.7")]
    V2_7,
    /// Contiki 3.0: exponential CSMA backoff, CCA threshold −90 dBm, hop-by-hop option on
    /// every UDP datagram.
    #[default]
    #[serde(rename = "3.0")]
    V3_0,
}

/// The mote platforms of the set-ups and their CSMA-relevant build constants (§1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mote {
    /// Tmote Sky: QUEUEBUF 8, 5 MAC transmissions.
    Sky,
    /// Zolertia Z1: QUEUEBUF 4, 4 MAC transmissions.
    Z1,
    /// Wismote: QUEUEBUF 8, 5 MAC transmissions.
    Wismote,
    /// The rpl-border-router example on a Sky: QUEUEBUF 4, 5 MAC transmissions.
    SkyBorderRouter,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiki_versions_read_as_their_release_numbers() {
        #[derive(Deserialize)]
        struct V {
            v: ContikiVersion,
        }
        assert_eq!(toml::from_str::<V>("v = \"2.7\"").unwrap().v, ContikiVersion::V2_7);
        assert_eq!(toml::from_str::<V>("v = \"3.0\"").unwrap().v, ContikiVersion::V3_0);
        assert!(toml::from_str::<V>("v = \"3\"").is_err());
    }
}
