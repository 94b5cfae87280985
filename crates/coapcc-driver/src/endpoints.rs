//! Scenario → endpoint configuration: the server's fixed response, the echo mode and the
//! request every client sends ([`crate::scenario::request_template`]). Everything a driver
//! needs to build its `coapcc-proto` endpoints, whatever carries the datagrams: the one place
//! the network model, the testbed and the multihop model ([`Endpoints::multihop`]) configure
//! them.

use std::sync::Arc;

use coapcc_core::{AnyConfig, ConfigError};
use coapcc_proto::Payload;
use coapcc_proto::{AutoResponse, Code, EchoMode, EndpointConfig, Message};

use crate::scenario::multihop::MultihopEcho;
use crate::scenario::{CoapConfig, EchoChoice, WorkloadConfig, request_template};

/// A payload of `len` zero bytes. Up to 2 KiB (any payload that fits a usual MTU) it borrows a
/// static buffer, so the server's copies of it share nothing that needs counting.
pub fn zero_payload(len: usize) -> Payload {
    static ZEROS: [u8; 2048] = [0; 2048];
    match ZEROS.get(..len) {
        Some(z) => Payload::from_static(z),
        None => Payload::from(vec![0u8; len]),
    }
}

/// The echo mode for an algorithm under the scenario's choice.
pub fn echo_for(choice: EchoChoice, algorithm: &AnyConfig) -> EchoMode {
    match choice {
        EchoChoice::Auto => algorithm.echo_mode(),
        EchoChoice::None => EchoMode::None,
        EchoChoice::Token => EchoMode::Token,
        EchoChoice::Option => EchoMode::Option,
        // The same copy number in a token byte instead of the option (docs/deviations.md).
        EchoChoice::AutoToken => match algorithm.echo_mode() {
            EchoMode::Option => EchoMode::Token,
            mode => mode,
        },
    }
}

/// The endpoint set-up of one algorithm under a scenario: what every client and the server are
/// built from.
#[derive(Clone, Debug)]
pub struct Endpoints {
    /// Every client's configuration (a short-lived client gets a fresh endpoint from it).
    pub client: EndpointConfig,
    /// The server's: the client's plus the fixed response (`coap.response_payload_bytes` zero
    /// bytes, 2.05 Content) it gives every request; with a block-wise transfer the object
    /// (`object_bytes` zero bytes), served block by block.
    pub server: EndpointConfig,
    /// The request each exchange sends ([`request_template`]).
    pub request: Message,
}

impl Endpoints {
    /// The set-up for `algorithm` under the scenario's CoAP sizes and the workload's NSTART.
    ///
    /// The algorithm is built (checked) here, once; every endpoint made from these
    /// configurations shares the built value. Fails only if `algorithm` was not checked when
    /// the scenario loaded.
    pub fn new(coap: &CoapConfig, workload: &WorkloadConfig, algorithm: &AnyConfig) -> Result<Self, ConfigError> {
        Self::with_nstart(coap, workload.nstart, algorithm)
    }

    /// The multihop model's set-up (multihop.md §2.4, §3.3) for `algorithm` with `nstart`: a
    /// GET without Uri-Path, an empty 2.05 response, 2-byte tokens, and the echo `echo` chooses.
    /// Its frames are sized by the model's tables or rules, not from these messages.
    pub fn multihop(algorithm: &AnyConfig, nstart: u16, echo: MultihopEcho) -> Result<Self, ConfigError> {
        let coap = CoapConfig {
            request_path: String::new(),
            response_payload_bytes: 0,
            echo: echo.into(),
            ..CoapConfig::default()
        };
        Self::with_nstart(&coap, nstart, algorithm)
    }

    fn with_nstart(coap: &CoapConfig, nstart: u16, algorithm: &AnyConfig) -> Result<Self, ConfigError> {
        let built = Arc::new(algorithm.build()?);
        let client = EndpointConfig {
            echo: echo_for(coap.echo, algorithm),
            nstart,
            token_len: coap.token_bytes,
            // Drivers count copies from `Transmit::origin`.
            transmitted_events: false,
            ..EndpointConfig::new(built)
        };
        // A block-wise transfer's server holds the whole object and answers each Block2
        // request with its block (RFC 7959 §2.4, `AutoResponse`).
        let payload_bytes = coap.blockwise.map_or(coap.response_payload_bytes, |t| t.object_bytes);
        let server = EndpointConfig {
            auto_response: Some(AutoResponse { code: Code::CONTENT, payload: zero_payload(payload_bytes as usize) }),
            ..client.clone()
        };
        Ok(Endpoints { client, server, request: request_template(coap) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_multihop_set_up_echoes_only_when_asked_and_sends_a_bare_get_with_an_empty_answer() {
        for name in ["idc", "mbc", "cocoa"] {
            let alg = AnyConfig::from_name(name).unwrap_or_else(|| panic!("{name}"));
            let none = Endpoints::multihop(&alg, 4, MultihopEcho::None).unwrap_or_else(|e| panic!("{e}"));
            let stated = Endpoints::multihop(&alg, 4, MultihopEcho::Algorithm).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(none.client.echo, EchoMode::None, "{name}");
            // OQ-28: IDC and MBC ask for the transmission-count option; CoCoA for nothing.
            let want = if name == "cocoa" { EchoMode::None } else { EchoMode::Option };
            assert_eq!((stated.client.echo, stated.server.echo), (want, want), "{name}");
            assert_eq!((none.client.nstart, none.client.token_len), (4, 2));
        }
        let alg = AnyConfig::from_name("default").unwrap_or_else(|| panic!("default"));
        let e = Endpoints::multihop(&alg, 1, MultihopEcho::default()).unwrap_or_else(|e| panic!("{e}"));
        // A GET without Uri-Path: no option at all.
        assert_eq!((e.request.code, e.request.options.len(), e.request.payload.len()), (Code::GET, 0, 0));
        let answer = e.server.auto_response.unwrap_or_else(|| panic!("the server answers itself"));
        assert_eq!((answer.code, answer.payload.len()), (Code::CONTENT, 0));
    }
}
