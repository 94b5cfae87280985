//! Algorithm and endpoint configuration for real sockets, from the same presets and `--set`
//! keys as `coapcc sim` and `coapcc replay`.

use std::sync::Arc;
use std::time::Duration;

use coapcc_core::{AnyConfig, ConfigError};
use coapcc_driver::scenario::{AlgorithmSettingsError, Setting, algorithm_with_settings};
use coapcc_proto::{Code, EndpointConfig, Message};

/// The duplicate cache of servers on real sockets: at most this many requests remembered at
/// once (`docs/real-networks.md`, "Bounds").
pub const SERVER_DUPLICATE_CACHE_ENTRIES: usize = 16_384;

/// The duplicate cache of servers on real sockets: at most this many bytes of cached
/// responses and bookkeeping (`docs/real-networks.md`, "Bounds").
pub const SERVER_DUPLICATE_CACHE_BYTES: usize = 16 << 20;

/// RFC 7252 §4.8.2 EXCHANGE_LIFETIME with the default transmission parameters: how long a
/// server remembers a request, and how long a client waits for a separate response after
/// an empty ACK (`docs/real-networks.md`, "Bounds").
pub const EXCHANGE_LIFETIME: Duration = Duration::from_secs(247);

/// The longest Uri-Path segment or Uri-Query argument, bytes (RFC 7252 §5.10: 0–255).
pub const MAX_URI_PART_BYTES: usize = 255;

/// The preset `name` with `settings` (the algorithm's own keys, as `coapcc replay --set`)
/// applied and checked ([`algorithm_with_settings`]). The error names the algorithm or the key.
pub fn algorithm(name: &str, settings: &[Setting]) -> Result<AnyConfig, AlgorithmSettingsError> {
    algorithm_with_settings(name, settings)
}

/// A client endpoint's configuration for `algorithm`: RFC 7252 defaults (NSTART 1, 2-byte
/// tokens) and the algorithm's own echo mode (the token byte for `fasor-token`, the
/// transmission-count option for `pcocoa`; [`AnyConfig::echo_mode`](coapcc_core::AnyConfig::echo_mode)).
pub fn client_config(algorithm: &AnyConfig) -> Result<EndpointConfig, ConfigError> {
    let built = Arc::new(algorithm.build()?);
    Ok(EndpointConfig { echo: algorithm.echo_mode(), ..EndpointConfig::new(built) })
}

/// A server endpoint's configuration: requests are remembered for duplicate detection for
/// `exchange_lifetime` ([`EXCHANGE_LIFETIME`] by default), within
/// [`SERVER_DUPLICATE_CACHE_ENTRIES`] and [`SERVER_DUPLICATE_CACHE_BYTES`]. The server echoes
/// whatever transmission count a request carries (token byte or option), so one server
/// serves every algorithm.
pub fn server_config(exchange_lifetime: Duration) -> Result<EndpointConfig, ConfigError> {
    // The server role draws nothing from the algorithm; the RFC 7252 preset is the neutral one.
    let algorithm = Arc::new(AnyConfig::DefaultCoap(Default::default()).build()?);
    Ok(EndpointConfig {
        exchange_lifetime,
        duplicate_cache_entries: SERVER_DUPLICATE_CACHE_ENTRIES,
        duplicate_cache_bytes: SERVER_DUPLICATE_CACHE_BYTES,
        ..EndpointConfig::new(algorithm)
    })
}

/// A confirmable request template for `code` on a plain `path` (segments split at `/`, empty
/// ones dropped, no escapes) with `query` (`&`-separated, one Uri-Query option each): a
/// shorthand for tests and benchmarks. URIs go through [`uri_request`].
pub fn request(code: Code, path: &str, query: &str) -> Message {
    let mut m = Message::con_request(code, path);
    for q in query.split('&').filter(|q| !q.is_empty()) {
        m.add_option(coapcc_proto::option::URI_QUERY, q.as_bytes());
    }
    m
}

/// A `coap://` URI that does not parse: the URI and the problem (its message is one line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad URI `{uri}`: {problem}")]
pub struct UriError {
    /// The URI as given.
    pub uri: String,
    /// What is wrong with it.
    pub problem: UriProblem,
}

/// What is wrong with a `coap://` URI ([`parse_uri`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UriProblem {
    /// Another scheme than `coap://`.
    #[error("the scheme must be coap://")]
    Scheme,
    /// Another scheme than `coap://` or `coap+tcp://` ([`parse_uri_transport`]).
    #[error("the scheme must be coap:// or coap+tcp://")]
    SchemeUdpOrTcp,
    /// A fragment (`#…`): RFC 7252 §6.4 fails a URI that has one.
    #[error("a coap URI has no fragment (RFC 7252 §6.4)")]
    Fragment,
    /// An IPv6 literal without its closing `]`.
    #[error("unclosed `[`")]
    UnclosedBracket,
    /// No host before the port or path.
    #[error("no host")]
    NoHost,
    /// A port that is not a number of 0–65535.
    #[error("the port must be 0-65535")]
    Port,
    /// A path segment or query argument that cannot be an option.
    #[error(transparent)]
    Part(#[from] UriPartError),
}

/// Which part of a URI's path or query an [`UriPartError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UriPart {
    /// A Uri-Path segment (between `/`).
    PathSegment,
    /// A Uri-Query argument (between `&`).
    QueryArgument,
}

impl std::fmt::Display for UriPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            UriPart::PathSegment => "path segment",
            UriPart::QueryArgument => "query argument",
        })
    }
}

/// A path segment or query argument that cannot become a Uri-Path or Uri-Query option
/// ([`uri_request`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UriPartError {
    /// A bad percent-escape, or bytes that are not UTF-8 once decoded (RFC 3986 §2.1).
    #[error("bad %-escape in the {part} `{text}`")]
    Escape {
        /// Segment or argument.
        part: UriPart,
        /// The text as written.
        text: String,
    },
    /// Longer than an option value may be once decoded (RFC 7252 §5.10).
    #[error("a {part} of {bytes} bytes (at most {MAX_URI_PART_BYTES}: RFC 7252 §5.10)")]
    TooLong {
        /// Segment or argument.
        part: UriPart,
        /// Its decoded length.
        bytes: usize,
    },
}

/// A parsed `coap://` URI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoapUri {
    /// Host (a name, an IPv4 address or an IPv6 address without brackets).
    pub host: String,
    /// Port.
    pub port: u16,
    /// Path as written, without its first `/` (percent-encoded; see [`uri_request`]).
    pub path: String,
    /// Query as written, without the `?` (percent-encoded; see [`uri_request`]).
    pub query: String,
}

/// Parses `coap://HOST[:PORT]/PATH[?QUERY]` (RFC 7252 §6.4 steps 1–5 and 7–9: a fragment
/// fails, every path segment and query argument must percent-decode to UTF-8 of at most
/// [`MAX_URI_PART_BYTES`]); the error names the problem.
pub fn parse_uri(uri: &str) -> Result<CoapUri, UriError> {
    let rest =
        uri.strip_prefix("coap://").ok_or_else(|| UriError { uri: uri.to_string(), problem: UriProblem::Scheme })?;
    parse_after_scheme(uri, rest)
}

/// The transport a URI's scheme names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// `coap://`: CoAP over UDP (RFC 7252).
    Udp,
    /// `coap+tcp://`: CoAP over TCP (RFC 8323 §8.1; the default port is 5683 as well).
    Tcp,
}

/// Parses `coap://…` or `coap+tcp://…` (RFC 8323 §8.1, §8.6: the same decomposition as
/// [`parse_uri`]).
pub fn parse_uri_transport(uri: &str) -> Result<(Transport, CoapUri), UriError> {
    if let Some(rest) = uri.strip_prefix("coap+tcp://") {
        return Ok((Transport::Tcp, parse_after_scheme(uri, rest)?));
    }
    if let Some(rest) = uri.strip_prefix("coap://") {
        return Ok((Transport::Udp, parse_after_scheme(uri, rest)?));
    }
    Err(UriError { uri: uri.to_string(), problem: UriProblem::SchemeUdpOrTcp })
}

fn parse_after_scheme(uri: &str, rest: &str) -> Result<CoapUri, UriError> {
    let bad = |problem: UriProblem| UriError { uri: uri.to_string(), problem };
    if rest.contains('#') {
        return Err(bad(UriProblem::Fragment));
    }
    let (authority, path_query) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let end = v6.find(']').ok_or_else(|| bad(UriProblem::UnclosedBracket))?;
        let port = &v6[end + 1..];
        (&v6[..end], port.strip_prefix(':').unwrap_or(port))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, p),
            None => (authority, ""),
        }
    };
    if host.is_empty() {
        return Err(bad(UriProblem::NoHost));
    }
    let port = if port.is_empty() { 5683 } else { port.parse().map_err(|_| bad(UriProblem::Port))? };
    let (path, query) = path_query.split_once('?').unwrap_or((path_query, ""));
    let path = path.strip_prefix('/').unwrap_or(path);
    uri_options(path, query).map_err(|e| bad(e.into()))?;
    Ok(CoapUri { host: host.to_string(), port, path: path.to_string(), query: query.to_string() })
}

/// A confirmable request template for `code` with the Uri-Path and Uri-Query options of a
/// URI's `path` (without its first `/`) and `query`, as written (RFC 7252 §6.4 steps 8–9):
/// split at `/` and `&` first, then each part percent-decoded, so `%2F` and `%26` stay inside
/// their part; every path segment is an option, empty ones too (`a//b/` is four), except
/// that an empty path has none.
pub fn uri_request(code: Code, path: &str, query: &str) -> Result<Message, UriPartError> {
    let mut m = Message::con_request(code, "");
    for (number, value) in uri_options(path, query)? {
        m.add_option(number, value);
    }
    Ok(m)
}

fn uri_options(path: &str, query: &str) -> Result<Vec<(u16, Vec<u8>)>, UriPartError> {
    use coapcc_proto::option::{URI_PATH, URI_QUERY};
    let segments =
        if path.is_empty() { None } else { Some(path.split('/').map(|s| (URI_PATH, s, UriPart::PathSegment))) };
    let arguments =
        if query.is_empty() { None } else { Some(query.split('&').map(|a| (URI_QUERY, a, UriPart::QueryArgument))) };
    segments
        .into_iter()
        .flatten()
        .chain(arguments.into_iter().flatten())
        .map(|(number, text, part)| {
            let value = percent_decode(text).ok_or_else(|| UriPartError::Escape { part, text: text.to_string() })?;
            if value.len() > MAX_URI_PART_BYTES {
                return Err(UriPartError::TooLong { part, bytes: value.len() });
            }
            Ok((number, value.into_bytes()))
        })
        .collect()
}

/// Percent-decodes `s` (RFC 3986 §2.1) into UTF-8; `None` for a bad escape or bytes that are
/// not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3).filter(|h| h.iter().all(u8::is_ascii_hexdigit))?;
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
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
            ("127.0.0.1", 5684, "data", "size=100&x=%41")
        );
        let m = uri_request(Code::GET, &u.path, &u.query).unwrap();
        assert_eq!(m.option(coapcc_proto::option::URI_QUERY), Some(&b"size=100"[..]));
        assert_eq!(m.options.last().map(|o| o.value.as_slice()), Some(&b"x=A"[..]));
        let u = parse_uri("coap://[::1]/a/b").unwrap();
        assert_eq!((u.host.as_str(), u.port, u.path.as_str()), ("::1", 5683, "a/b"));
        assert_eq!(parse_uri("coap://localhost").unwrap().path, "");
        let (t, u) = parse_uri_transport("coap+tcp://127.0.0.1/data?size=5").unwrap();
        assert_eq!((t, u.port, u.path.as_str(), u.query.as_str()), (Transport::Tcp, 5683, "data", "size=5"));
        assert_eq!(parse_uri_transport("coap://h/").unwrap().0, Transport::Udp);
        assert_eq!(parse_uri_transport("coaps+tcp://h/").unwrap_err().problem, UriProblem::SchemeUdpOrTcp);
        assert_eq!(parse_uri("coap+tcp://h/").unwrap_err().problem, UriProblem::Scheme);
    }

    #[test]
    fn exchange_lifetime_is_that_of_the_default_transmission_parameters() {
        assert_eq!(EXCHANGE_LIFETIME, coapcc_core::params::TransmissionParams::default().exchange_lifetime());
    }

    #[test]
    fn a_bad_uri_is_named_with_its_problem() {
        let problem = |uri: &str| parse_uri(uri).unwrap_err().problem;
        assert_eq!(problem("http://x/"), UriProblem::Scheme);
        assert_eq!(problem("coap://:5683/"), UriProblem::NoHost);
        assert_eq!(problem("coap://h:99999/"), UriProblem::Port);
        assert_eq!(problem("coap://[::1/"), UriProblem::UnclosedBracket);
        let escape =
            |text: &str| UriProblem::Part(UriPartError::Escape { part: UriPart::PathSegment, text: text.into() });
        assert_eq!(problem("coap://h/%zz"), escape("%zz"));
        assert_eq!(problem("coap://h/%+1"), escape("%+1"));
        assert_eq!(
            parse_uri("coap://h:99999/").unwrap_err().to_string(),
            "bad URI `coap://h:99999/`: the port must be 0-65535"
        );
    }
}
