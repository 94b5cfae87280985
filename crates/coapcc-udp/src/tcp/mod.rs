//! Real CoAP over TCP (RFC 8323): `coapcc server`'s `coap+tcp://` listener and `coapcc client
//! coap+tcp://…`, both driving the sans-IO [`coapcc_proto::tcp::Session`] over a tokio
//! [`tokio::net::TcpStream`].
//!
//! There is no congestion-control algorithm at the CoAP layer here: TCP (the kernel's, CUBIC
//! by default on Linux) paces the connection, and the session neither retransmits nor times
//! anything. The bounds a hostile peer meets are constants below (`docs/real-networks.md`,
//! "CoAP over TCP").
//!
//! | module | what is there |
//! |---|---|
//! | [`server`] | the listener: accepts up to a bound of connections, one task each, the resources of [`crate::server`] with [`crate::server::reply_reliable`] |
//! | [`client`] | one request (GET/PUT/POST/DELETE, Block2/Block1, BERT) or a Ping, with every frame reported for `-v` |

use std::time::Duration;

use coapcc_proto::tcp::{Session, SessionEvent, Transmit};
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;

pub mod client;
pub mod server;

/// The Max-Message-Size both our server and our client announce and enforce on receipt, bytes:
/// 64 KiB of BERT payload plus 512 bytes for header and options (RFC 8323 §5.3.2's
/// implementation note). A frame announcing more is refused from its length field.
pub const MAX_MESSAGE_BYTES: u32 = (64 << 10) + 512;

/// How long the peer's CSM may take after the connection is up (RFC 8323 §3.3: a missing CSM
/// is a connection error); then the connection is aborted.
pub const CSM_TIMEOUT: Duration = Duration::from_secs(10);

/// How long one write may block on a peer that does not read; then the connection is closed.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// The read buffer of a connection, bytes.
pub const READ_CHUNK_BYTES: usize = 16 << 10;

/// Writes every pending transmit of `session` to `wr`, handing each to `sent` first (for
/// logs); a write that fails or blocks longer than [`WRITE_TIMEOUT`] is an error.
pub(crate) async fn flush(
    session: &mut Session,
    wr: &mut OwnedWriteHalf,
    mut sent: impl FnMut(&Transmit),
) -> std::io::Result<()> {
    while let Some(t) = session.poll_transmit() {
        sent(&t);
        match tokio::time::timeout(WRITE_TIMEOUT, wr.write_all(&t.bytes)).await {
            Ok(r) => r?,
            Err(_) => return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "the peer does not read")),
        }
    }
    Ok(())
}

/// Events of `session` until none is left.
pub(crate) fn events(session: &mut Session) -> Vec<SessionEvent> {
    std::iter::from_fn(|| session.poll_event()).collect()
}
