//! Scenario files: one TOML file per published case, checked once into a [`Scenario`].
//!
//! ```toml
//! name = "fasor/400-flows-infinite-buffer-continuous"
//! description = "..."
//! source = "Järvinen et al., GLOBECOM 2018, Fig. 5; docs/testbeds.md §1"
//! seed = 1
//! replications = 20
//! algorithms = ["default", "cocoa", "cocoa-fb1", "fasor", "fasor-token"]
//!
//! [network.nbiot]       # or [network.residual], [network.custom]
//! buffer_bytes = 1410000
//! errors = "none"
//!
//! [workload]
//! flows = 400
//! flow_type = "continuous"
//!
//! [all_algorithms]      # keys applied to every listed algorithm that has them
//! max_retransmit = 20
//!
//! [algorithm.default]   # keys for one algorithm name
//! cap_ms = 60000
//! ```
//!
//! The RTT-trace model (testbeds §3) uses a `[trace]` table instead of `[network]` and
//! `[workload]`. Every error names the file, the key and the problem. `--set KEY=VALUE`
//! overrides a key before checking: a bare key (`flows`) is looked up in the top level, in
//! `[network.*]`, `[workload]`, `[coap]` and `[trace]`, and must be unique; a dotted key
//! (`algorithm.cocoa.aging`) names its table.
//!
//! ## Files
//!
//! | file | what is there |
//! |---|---|
//! | `schema` | the file as written ([`ScenarioFile`] and its tables) and what it is checked into ([`Scenario`], [`Model`]) |
//! | `settings` | [`parse`], [`load`], [`read`]: settings applied to the document, then checked; [`Scenario::set`], [`network_with`] |
//! | `catalogue` | the built-in scenarios ([`built_in`], [`built_in_named`]), compiled in from `scenarios/`; [`Catalogue`]: built-in or a folder |
//! | `algorithm` | [`configure_algorithm`]: a registry preset with the scenario's keys, built once |
//! | `check` | the checks from a deserialised file to a [`Scenario`] |
//! | `seed` | the `seed` key: any `u64`, above 2⁶³−1 as its decimal text |
//! | `sizes` | the request template and the MTU check ([`check_sizes`]) |
//! | `blockwise` | `[coap.blockwise]` as written: a block-wise transfer per flow ([`BlockwiseConfig`]) |
//! | `transfer` | its checks: the block size from the MTU ([`block_szx`]), what a block-wise scenario must be |
//! | `error` | [`ScenarioError`]: file, line, key, problem |
//! | [`multihop`] | the `[multihop]` schema and its check into a [`multihop::MultihopModel`] |

mod algorithm;
mod blockwise;
mod catalogue;
mod check;
mod error;
// A namespace: the `[multihop]` table's schema (its many `*Config` types read as
// `multihop::…`); nothing in it is re-exported here.
pub mod multihop;
mod overrides;
mod schema;
mod seed;
mod settings;
mod sizes;
mod transfer;

pub use algorithm::{AlgorithmError, algorithm_keys, configure_algorithm};
pub use blockwise::{BlockBytes, BlockwiseConfig};
pub use catalogue::{BuiltIn, Catalogue, built_in, built_in_named, closest_built_in, load, read};
pub use error::ScenarioError;
pub use schema::{
    CoapConfig, Count, EchoChoice, FlowType, Model, NetworkConfig, Scenario, ScenarioFile, WorkloadConfig,
};
pub use settings::{network_with, parse};
pub use sizes::{SizeError, check_sizes, largest_datagram, request_template, worst_case_messages};
pub use transfer::{BlockwiseError, block_szx};

pub use overrides::{AlgorithmSettingsError, Key, Setting, SettingError, Value, algorithm_with_settings};
