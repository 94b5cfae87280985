//! The `[multihop]` table of a scenario file (multihop.md §1–4; the user's guide is
//! `docs/multihop.md`): its schema, checked once into a [`MultihopModel`] with errors naming
//! the dotted key. The simulator (`coapcc_sim::multihop`) runs it; the schema lives here so
//! that a [`crate::scenario::Model::Multihop`] is typed like every other model.
//!
//! ```toml
//! [multihop]
//! version = "3.0"          # Contiki preset (OQ-M2): CSMA backoff, CCA threshold, RSSI truncation
//! mote = "sky"             # platform preset: QUEUEBUF, MAC transmissions, NullRDC ACK wait
//! rdc = "contikimac"
//! duration_ms = 660000
//! [multihop.topology]
//! kind = "lim4x4"
//! [multihop.workload]
//! kind = "lim_tcp"
//! [multihop.csma]
//! queuebuf_num = 4
//! ```
//!
//! Every key of [`MultihopConfig`] (and its tables) may be written; what is left out has the
//! spec's default (multihop.md §1), after the `version` and `mote` presets. Keys written in
//! the file win over the presets. The workload's `algorithm` (CoAP) or `scheme` (TCP) comes
//! from the scenario's `algorithms` list, with the `[algorithm.NAME]` keys applied; writing it
//! in `[multihop.workload]` is an error. `--set` and `--sweep` reach these keys like any other
//! (`--set multihop.csma.queuebuf_num=4`, or a bare key where it is unique: `--set rdc=null_rdc`).
//!
//! ## Files
//!
//! | file | spec | what is there |
//! |---|---|---|
//! | `config.rs` | §1–4 | [`MultihopConfig`] (serde, `Default` = spec values), [`RdcKind`], [`TopologyChoice`] |
//! | `workload.rs` | §2.4, §3.3, §4.3 | the `[multihop.workload]` table: [`MultihopWorkload`] — Makarem saturated senders, Betzler 1-to-1, many-to-many and cross-traffic burst, Lim TCP reports; [`ClientMode`] (OQ-M5) |
//! | `presets.rs` | OQ-M1, OQ-M2 | the preset keys: [`ContikiVersion`], [`Mote`] |
//! | `phy.rs` | §1.2 | [`PhyConfig`]: radio timing and airtimes; [`FrameLenMode`] |
//! | `udgm.rs` | §1.3 | [`UdgmConfig`]: ranges, success ratios, the CCA threshold and RSSI model |
//! | `csma.rs` | §1.4 | [`CsmaConfig`] with its backoff, [`BackoffKind`] |
//! | `rdc.rs` | §1.5 | [`NullRdcConfig`], [`ContikiMacConfig`], [`rtimer_ticks`] |
//! | `topology.rs` | §2.1, §3.1, §4.1 | node lists (x, y, role): [`Topology`] and its presets, [`NodeId`] |
//! | `parse.rs` | — | [`MultihopModel::parse`]: presets, per-algorithm configuration, errors naming the dotted key |

mod config;
mod csma;
mod parse;
mod phy;
mod presets;
mod rdc;
mod topology;
mod udgm;
mod workload;

pub use self::config::{MultihopConfig, MultihopEcho, NodeSpec, RdcKind, RoleChoice, TopologyChoice};
pub use self::csma::{BackoffKind, CsmaConfig};
pub use self::parse::{MultihopModel, PRESET_KEYS};
pub use self::phy::{FrameLenMode, PhyConfig};
pub use self::presets::{ContikiVersion, Mote};
pub use self::rdc::{ContikiMacConfig, NullRdcConfig, rtimer_ticks};
pub use self::topology::{Node, NodeId, Position, Role, Topology};
pub use self::udgm::UdgmConfig;
pub use self::workload::{
    ClientMode, CoapCrossTraffic, CoapFrames, CoapManyToMany, CoapOneToOne, CoapSaturated, LimTcp, MultihopWorkload,
};
