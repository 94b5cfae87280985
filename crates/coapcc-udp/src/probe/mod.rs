//! `coapcc probe`: the sockets and processes. [`client`] runs a client under test against a
//! probe server on loopback that answers by a [`Script`](coapcc_driver::probe::Script) and
//! timestamps every copy; [`server`] sends a server the messages that show how it handles
//! duplicates, pings and large responses. What the runs mean is inferred in
//! [`coapcc_driver::probe`] (no socket, no clock).

pub mod client;
pub mod server;

/// Why a probe could not run.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The command line is empty or no argument holds `{uri}`.
    #[error("{0}")]
    BadCommand(String),
    /// The command could not be started.
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// A socket operation failed.
    #[error("probe socket: {0}")]
    Socket(#[source] std::io::Error),
    /// The server URI is not a `coap://` URI or its host does not resolve.
    #[error("{0}")]
    BadUri(String),
    /// The client sent the probe no datagram in a run: there is nothing to measure (the
    /// client could not start, exited before sending, or sent elsewhere).
    #[error("run {run} ({script}): no datagram received from the client at {uri}: {how}{stderr}")]
    NoDatagram {
        /// The run's number (1, 2, …).
        run: usize,
        /// The run's script.
        script: String,
        /// The URI the client was given.
        uri: String,
        /// How the run ended (the client's exit status and when).
        how: String,
        /// The end of the client's standard error (`; its stderr ended: …`), or nothing.
        stderr: String,
    },
    /// The server did not answer the first request at all.
    #[error("the server at {0} did not answer a confirmable GET within {1:?}")]
    NoAnswer(std::net::SocketAddr, std::time::Duration),
}
