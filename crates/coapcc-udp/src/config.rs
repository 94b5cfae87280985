//! Algorithm and endpoint configuration for real sockets, from the same presets and `--set`
//! keys as `coapcc sim` and `coapcc replay`.

use std::sync::Arc;
use std::time::Duration;

use coapcc_core::{AnyConfig, ConfigError};
use coapcc_driver::scenario::{Setting, configure_algorithm};
use coapcc_proto::echo::echo_mode_for;
use coapcc_proto::{Code, EndpointConfig, Message};

/// The duplicate-cache bound of servers on real sockets (requests remembered at once):
/// 16 384 entries, about 2.5 MB at most, whatever a flood of spoofed requests sends.
pub const SERVER_DUPLICATE_CACHE_ENTRIES: usize = 16_384;

/// The preset `name` with `settings` (the algorithm's own keys, as `coapcc replay --set`)
/// applied and checked. The error is one line naming the algorithm or the key.
pub fn algorithm(name: &str, settings: &[Setting]) -> Result<AnyConfig, String> {
    let mut own = toml::Table::new();
    for s in settings {
        own.insert(s.key.to_string(), s.value.to_toml());
    }
    configure_algorithm(name, &toml::Table::new(), &own).map_err(|e| format!("algorithm `{name}`: {e}"))
}

/// A client endpoint's configuration for `algorithm`: RFC 7252 defaults (NSTART 1, 2-byte
/// tokens) and the algorithm's own echo mode (the token byte for `fasor-token`, the
/// transmission-count option for `pcocoa`; [`echo_mode_for`]).
pub fn client_config(algorithm: &AnyConfig) -> Result<EndpointConfig, ConfigError> {
    let built = Arc::new(algorithm.build()?);
    Ok(EndpointConfig { echo: echo_mode_for(algorithm), ..EndpointConfig::new(built) })
}

/// A server endpoint's configuration: requests are remembered for duplicate detection for
/// `exchange_lifetime` (RFC 7252 §4.8.2: 247 s by default), at most
/// [`SERVER_DUPLICATE_CACHE_ENTRIES`] at once. The server echoes whatever transmission count
/// a request carries (token byte or option), so one server serves every algorithm.
pub fn server_config(exchange_lifetime: Duration) -> Result<EndpointConfig, ConfigError> {
    // The server role draws nothing from the algorithm; the RFC 7252 preset is the neutral one.
    let algorithm = Arc::new(AnyConfig::DefaultCoap(Default::default()).build()?);
    Ok(EndpointConfig {
        exchange_lifetime,
        duplicate_cache_entries: SERVER_DUPLICATE_CACHE_ENTRIES,
        ..EndpointConfig::new(algorithm)
    })
}

/// A confirmable request template for `code` on `path` (segments split at `/`) with
/// `query` (`&`-separated, one Uri-Query option each).
pub fn request(code: Code, path: &str, query: &str) -> Message {
    let mut m = Message::con_request(code, path);
    for q in query.split('&').filter(|q| !q.is_empty()) {
        m.add_option(coapcc_proto::message::option::URI_QUERY, q.as_bytes());
    }
    m
}
