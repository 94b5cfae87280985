//! Algorithm and endpoint configuration for real sockets, from the same presets and `--set`
//! keys as `coapcc sim` and `coapcc replay`.

use std::sync::Arc;
use std::time::Duration;

use coapcc_core::{AnyConfig, ConfigError};
use coapcc_driver::overrides::{AlgorithmSettingsError, Setting, algorithm_with_settings};
use coapcc_proto::echo::echo_mode_for;
use coapcc_proto::{Code, EndpointConfig, Message};

/// The duplicate-cache bound of servers on real sockets (requests remembered at once):
/// 16 384 entries, about 2.5 MB at most, whatever a flood of spoofed requests sends.
pub const SERVER_DUPLICATE_CACHE_ENTRIES: usize = 16_384;

/// The preset `name` with `settings` (the algorithm's own keys, as `coapcc replay --set`)
/// applied and checked ([`algorithm_with_settings`]). The error names the algorithm or the key.
pub fn algorithm(name: &str, settings: &[Setting]) -> Result<AnyConfig, AlgorithmSettingsError> {
    algorithm_with_settings(name, settings)
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

/// A `coap://` URI that does not parse: the URI and the problem, in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriError(pub String);

impl std::fmt::Display for UriError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UriError {}

/// A parsed `coap://` URI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoapUri {
    /// Host (a name, an IPv4 address or an IPv6 address without brackets).
    pub host: String,
    /// Port.
    pub port: u16,
    /// Path, segments separated by `/`, percent-decoded.
    pub path: String,
    /// Query, `&`-separated, percent-decoded.
    pub query: String,
}

/// Parses `coap://HOST[:PORT]/PATH[?QUERY]`; the error names the problem.
pub fn parse_uri(uri: &str) -> Result<CoapUri, UriError> {
    let bad = |why: &str| UriError(format!("bad URI `{uri}`: {why}"));
    let rest = uri.strip_prefix("coap://").ok_or_else(|| bad("the scheme must be coap://"))?;
    let (authority, path_query) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let end = v6.find(']').ok_or_else(|| bad("unclosed `[`"))?;
        let port = &v6[end + 1..];
        (&v6[..end], port.strip_prefix(':').unwrap_or(port))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, p),
            None => (authority, ""),
        }
    };
    if host.is_empty() {
        return Err(bad("no host"));
    }
    let port = if port.is_empty() { 5683 } else { port.parse().map_err(|_| bad("the port must be 0-65535"))? };
    let (path, query) = path_query.split_once('?').unwrap_or((path_query, ""));
    let path = path.strip_prefix('/').unwrap_or(path);
    Ok(CoapUri {
        host: host.to_string(),
        port,
        path: percent_decode(path).ok_or_else(|| bad("bad %-escape in the path"))?,
        query: percent_decode(query).ok_or_else(|| bad("bad %-escape in the query"))?,
    })
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uri_gives_host_port_path_and_query() {
        let u = parse_uri("coap://127.0.0.1:5684/data?size=100&x=%41").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str(), u.query.as_str()),
            ("127.0.0.1", 5684, "data", "size=100&x=A")
        );
        let u = parse_uri("coap://[::1]/a/b").unwrap();
        assert_eq!((u.host.as_str(), u.port, u.path.as_str()), ("::1", 5683, "a/b"));
        assert_eq!(parse_uri("coap://localhost").unwrap().path, "");
    }

    #[test]
    fn a_bad_uri_is_named_with_its_problem() {
        assert!(parse_uri("http://x/").unwrap_err().0.contains("scheme"));
        assert!(parse_uri("coap://:5683/").unwrap_err().0.contains("no host"));
        assert!(parse_uri("coap://h:99999/").unwrap_err().0.contains("port"));
        assert!(parse_uri("coap://h/%zz").unwrap_err().0.contains("%-escape"));
    }
}
