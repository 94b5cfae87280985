//! The `[tcp]` table: CoAP over TCP (RFC 8323) on a Linux-like TCP (`docs/tcp.md`), checked
//! once into a [`TcpModel`](super::TcpModel). A TCP scenario has `[network.*]` and `[tcp]` (no `[workload]`,
//! `[coap]` or algorithm tables); its `algorithms` name TCP congestion controls (`cubic`,
//! `reno`), one row of results each, as the CoAP algorithms of the other models do.
//!
//! ```toml
//! algorithms = ["cubic", "reno"]
//!
//! [network.nbiot]
//! buffer_bytes = 28200
//! errors = "none"
//!
//! [tcp]
//! clients = 1
//! object_bytes = 102400
//! ```
//!
//! Every other key has Linux's default (`docs/tcp.md` names the kernel constant of each).

use coapcc_core::Duration;
use serde::{Deserialize, Serialize};

/// A TCP congestion control, named in a TCP scenario's `algorithms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControl {
    /// RFC 5681 NewReno-style slow start and congestion avoidance (Linux `reno`).
    Reno,
    /// RFC 9438 CUBIC (Linux's default, `cubic`), with HyStart when `hystart` is on.
    Cubic,
}

impl CongestionControl {
    /// Every congestion control, in the order `coapcc` lists them.
    pub const ALL: [CongestionControl; 2] = [CongestionControl::Cubic, CongestionControl::Reno];

    /// The name in scenario files and results (`cubic`, `reno`).
    pub const fn name(self) -> &'static str {
        match self {
            CongestionControl::Reno => "reno",
            CongestionControl::Cubic => "cubic",
        }
    }

    /// The congestion control called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// How the retransmission timeout is floored (`rto_min_ms`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoFloor {
    /// Linux (`tcp_set_rto`, `tcp_rtt_estimator`): RTO = SRTT + max(4·RTTVAR, RTO_MIN), so the
    /// variance term never falls below 200 ms.
    #[default]
    Linux,
    /// RFC 6298 §2.4 with Linux's 200 ms instead of 1 s: RTO = max(SRTT + 4·RTTVAR, RTO_MIN)
    /// (ns-3's rule).
    Rfc6298,
}

fn default_clients() -> u32 {
    1
}
fn default_object() -> u64 {
    102_400
}
fn default_token() -> u8 {
    1
}
fn default_path() -> String {
    "fw".into()
}
fn default_mtu() -> u32 {
    296
}
fn default_ip_tcp() -> u32 {
    40
}
fn default_iw() -> u32 {
    10
}
fn yes() -> bool {
    true
}
/// The ns-3 options (`docs/tcp.md`, "Cross-check against ns-3") are written into a resolved
/// scenario only when they differ from Linux's behaviour, so a resolved Linux scenario reads as
/// it did before they existed.
fn is_linux_on(b: &bool) -> bool {
    *b
}
fn is_linux_off(b: &bool) -> bool {
    !*b
}
fn default_cubic_rtt_discard() -> Duration {
    CUBIC_RTT_DISCARD_LINUX
}
fn is_linux_cubic_rtt_discard(d: &Duration) -> bool {
    *d == CUBIC_RTT_DISCARD_LINUX
}
fn default_rto_initial() -> Duration {
    Duration::from_secs(1)
}
fn default_rto_fallback() -> Duration {
    Duration::from_secs(3)
}
fn default_rto_min() -> Duration {
    Duration::from_millis(200)
}
fn default_rto_max() -> Duration {
    Duration::from_secs(120)
}
fn default_delack() -> Duration {
    Duration::from_millis(40)
}
fn default_quickacks() -> u32 {
    16
}
fn default_rwnd() -> u32 {
    65_535
}
fn default_syn_retries() -> u32 {
    6
}
fn default_time_limit() -> Duration {
    Duration::from_secs(3_600)
}
fn default_max_message() -> u32 {
    1_152
}

/// The `[tcp]` table as written: the workload (clients fetching one object each over CoAP over
/// TCP) and every TCP option, each defaulting to Linux's value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinuxTcpConfig {
    /// Clients, each with its own connection to the server (1).
    #[serde(default = "default_clients")]
    pub clients: u32,
    /// The object each client fetches with one GET, bytes (102 400: the firmware image).
    #[serde(default = "default_object")]
    pub object_bytes: u64,
    /// Clients start (send their SYN) at uniform random offsets in [0, this) (0: together).
    #[serde(rename = "start_window_ms", with = "coapcc_core::serde_ms", default)]
    pub start_window: Duration,
    /// CoAP token length of the GET and its response, bytes (1: the 8-byte header of the
    /// 102 400-byte response, RFC 8323 §3.2).
    #[serde(default = "default_token")]
    pub token_bytes: u8,
    /// Uri-Path of the GET ("fw").
    #[serde(default = "default_path")]
    pub request_path: String,
    /// Max-Message-Size the server's CSM advertises (RFC 8323 §5.3.1; 1 152, the default).
    #[serde(default = "default_max_message")]
    pub server_max_message_bytes: u32,
    /// Link MTU (296): MSS = MTU − IP/TCP headers.
    #[serde(default = "default_mtu")]
    pub mtu_bytes: u32,
    /// IPv4 + TCP headers without options (40).
    #[serde(default = "default_ip_tcp")]
    pub ip_tcp_header_bytes: u32,
    /// TCP timestamps (RFC 7323): 12 bytes of every segment (off).
    #[serde(default)]
    pub timestamps: bool,
    /// SACK (RFC 2018) and SACK-based loss recovery (RFC 6675) (on).
    #[serde(default = "yes")]
    pub sack: bool,
    /// RACK time-based loss detection with SACK (RFC 8985 §6, Linux `tcp_recovery` bit 0,
    /// on by default): a segment is lost once one sent after it is delivered and its RTT plus
    /// the reordering window has passed; off, RFC 6675's DupThresh rule marks losses (on).
    #[serde(default = "yes")]
    pub rack: bool,
    /// Initial congestion window, segments (10, RFC 6928, Linux `TCP_INIT_CWND`).
    #[serde(default = "default_iw")]
    pub initial_window: u32,
    /// Initial RTO (1 s, RFC 6298 §2.1, Linux `TCP_TIMEOUT_INIT`).
    #[serde(rename = "rto_initial_ms", with = "coapcc_core::serde_ms", default = "default_rto_initial")]
    pub rto_initial: Duration,
    /// RTO once data flows after a lost SYN or SYN-ACK (3 s, RFC 6298 §5.7, Linux
    /// `TCP_TIMEOUT_FALLBACK`).
    #[serde(rename = "rto_fallback_ms", with = "coapcc_core::serde_ms", default = "default_rto_fallback")]
    pub rto_fallback: Duration,
    /// RTO floor (200 ms, Linux `TCP_RTO_MIN`).
    #[serde(rename = "rto_min_ms", with = "coapcc_core::serde_ms", default = "default_rto_min")]
    pub rto_min: Duration,
    /// RTO cap (120 s, Linux `TCP_RTO_MAX`).
    #[serde(rename = "rto_max_ms", with = "coapcc_core::serde_ms", default = "default_rto_max")]
    pub rto_max: Duration,
    /// Where the floor applies: `linux` (default) or `rfc6298`.
    #[serde(default)]
    pub rto_floor: RtoFloor,
    /// Delayed-ACK timer (40 ms, Linux `TCP_DELACK_MIN` / `TCP_ATO_MIN`).
    #[serde(rename = "delayed_ack_ms", with = "coapcc_core::serde_ms", default = "default_delack")]
    pub delayed_ack: Duration,
    /// Segments ACKed at once at the start of a connection (16, Linux `TCP_MAX_QUICKACKS`).
    #[serde(default = "default_quickacks")]
    pub quickacks: u32,
    /// Receive window each end advertises, bytes (65 535; Linux autotunes it, see `docs/tcp.md`).
    #[serde(default = "default_rwnd")]
    pub receive_window_bytes: u32,
    /// F-RTO spurious-RTO detection (RFC 5682 SACK-enhanced, Linux `tcp_frto` = 2) (on).
    #[serde(default = "yes")]
    pub frto: bool,
    /// Restart from the initial window after an idle RTO (RFC 5681 §4.1, Linux
    /// `tcp_slow_start_after_idle`) (on).
    #[serde(default = "yes")]
    pub slow_start_after_idle: bool,
    /// CUBIC's HyStart (delay increase detection, Linux `tcp_cubic.hystart`) (on).
    #[serde(default = "yes")]
    pub hystart: bool,
    /// The retransmission timer restarts when the oldest outstanding segment is retransmitted
    /// (on, Linux `tcp_xmit_retransmit_queue` → `tcp_rearm_rto`). Off: a retransmission arms
    /// the timer only when it is not running, so a fast retransmission must be acknowledged
    /// before the timer started by the last ACK of new data expires (ns-3
    /// `TcpSocketBase::SendDataPacket`).
    #[serde(default = "yes", skip_serializing_if = "is_linux_on")]
    pub rto_rearm_on_retransmit: bool,
    /// Every partial ACK in fast recovery restarts the retransmission timer (on, Linux; RFC
    /// 6582 §4.3's "Slow-but-Steady"). Off: only the first partial ACK of a recovery does (RFC
    /// 6582 §3.2 step 5, the "Impatient" variant; ns-3 `TcpSocketBase::ProcessAck` with
    /// `m_isFirstPartialAck`).
    #[serde(default = "yes", skip_serializing_if = "is_linux_on")]
    pub rto_rearm_every_partial_ack: bool,
    /// A backed-off RTO stays until an ACK gives a valid RTT sample (on, Linux
    /// `tcp_ack_update_rtt` and Karn's algorithm, RFC 6298 §5.7). Off: every ACK of new data that
    /// restarts the timer first sets the RTO from SRTT and RTTVAR again, dropping the backoff
    /// (ns-3 `TcpSocketBase::NewAck`).
    #[serde(default = "yes", skip_serializing_if = "is_linux_on")]
    pub rto_backoff_until_sample: bool,
    /// With SACK, a partial ACK in fast recovery sends one segment beyond the window unless the
    /// new oldest segment is already retransmitted: the first lost one, else new data, else the
    /// oldest (RFC 6582 §3.2 step 5 kept with SACK, as ns-3 `TcpSocketBase::ProcessAck` →
    /// `DoRetransmit` does) (off, as Linux).
    #[serde(default, skip_serializing_if = "is_linux_off")]
    pub partial_ack_retransmit: bool,
    /// RFC 6675 §4 `NextSeg` rule (3) in fast recovery: with no lost segment left to send and
    /// no new data, the first unSACKed segment below the highest SACKed one that is not being
    /// retransmitted is sent again (ns-3 `TcpTxBuffer::NextSeg`) (off, as Linux).
    #[serde(default, skip_serializing_if = "is_linux_off")]
    pub nextseg_rule3: bool,
    /// CUBIC forgets W_max on a retransmission timeout (on, Linux `cubictcp_state` →
    /// `bictcp_reset`). Off: W_max survives the timeout, so the next epoch is centred on it
    /// (ns-3 `TcpCubic::CubicReset`).
    #[serde(default = "yes", skip_serializing_if = "is_linux_on")]
    pub cubic_wmax_reset_on_timeout: bool,
    /// CUBIC's minimum delay and HyStart take the smoothed RTT after each sample instead of the
    /// sample itself (off, Linux `cubictcp_acked`; on: ns-3 `TcpSocketBase::ProcessAck` passes
    /// `m_srtt` to `TcpCubic::PktsAcked`).
    #[serde(default, skip_serializing_if = "is_linux_off")]
    pub cubic_srtt: bool,
    /// Reno's slow start grows the window only while the sender is window-limited (on, Linux
    /// `tcp_is_cwnd_limited`). Off: every ACK of new data grows it in slow start (ns-3
    /// `TcpLinuxReno::SlowStart`, which checks only in congestion avoidance).
    #[serde(default = "yes", skip_serializing_if = "is_linux_on")]
    pub reno_slow_start_cwnd_limited: bool,
    /// CUBIC ignores RTT samples for this long after the start of a congestion-avoidance epoch
    /// (1 000 ms: Linux `cubictcp_acked`, `HZ`; ns-3 `TcpCubic::PktsAcked` with `CubicDelta`,
    /// 10 ms).
    #[serde(
        rename = "cubic_rtt_discard_ms",
        with = "coapcc_core::serde_ms",
        default = "default_cubic_rtt_discard",
        skip_serializing_if = "is_linux_cubic_rtt_discard"
    )]
    pub cubic_rtt_discard: Duration,
    /// CUBIC grows as ns-3's `TcpCubic::IncreaseWindow` does (off: Linux `cubictcp_cong_avoid`,
    /// `tcp_slow_start` and `tcp_cong_avoid_ai`): slow start adds every acknowledged segment,
    /// even beyond ssthresh, and none is carried into congestion avoidance; congestion
    /// avoidance adds at most one segment per ACK, from a count of acknowledged segments that
    /// keeps its remainder (`m_cWndCnt -= cnt`) and survives losses.
    #[serde(default, skip_serializing_if = "is_linux_off")]
    pub cubic_one_increase_per_ack: bool,
    /// Every retransmission timeout sets ssthresh from the window at that moment (off: Linux
    /// `tcp_enter_loss` leaves it alone on a timeout in Recovery, and on a repeated timeout in
    /// Loss with no ACK of new data between; ns-3 `TcpSocketBase::ReTxTimeout` calls
    /// `GetSsThresh` every time, since `TcpTxBuffer::SetSentListLost` clears the head's
    /// retransmitted flag just before `IsHeadRetransmitted` is asked).
    #[serde(default, skip_serializing_if = "is_linux_off")]
    pub rto_ssthresh_every_timeout: bool,
    /// With SACK, every ACK that SACKs new data counts as a duplicate ACK, whether or not it
    /// also advances the cumulative ACK (only an ACK that advances it without new SACK
    /// information resets the count), and the third starts fast recovery with the oldest
    /// segment marked lost, even when fewer than three segments are SACKed above it (off, as
    /// Linux; RFC 6675 §5 step (1) with ns-3's definition of a duplicate ACK:
    /// `TcpSocketBase::ProcessAck`, `DupAck`, `EnterRecovery`).
    #[serde(default, skip_serializing_if = "is_linux_off")]
    pub sack_dupacks_start_recovery: bool,
    /// SYN retransmissions before the connection fails (6, Linux `tcp_syn_retries`).
    #[serde(default = "default_syn_retries")]
    pub syn_retries: u32,
    /// Flows not finished by this simulated time are cut off (their FCT is missing) (1 h).
    #[serde(rename = "time_limit_ms", with = "coapcc_core::serde_ms", default = "default_time_limit")]
    pub time_limit: Duration,
}

impl Default for LinuxTcpConfig {
    /// Every key at its default: what an empty `[tcp]` table reads as.
    fn default() -> Self {
        LinuxTcpConfig {
            clients: default_clients(),
            object_bytes: default_object(),
            start_window: Duration::ZERO,
            token_bytes: default_token(),
            request_path: default_path(),
            server_max_message_bytes: default_max_message(),
            mtu_bytes: default_mtu(),
            ip_tcp_header_bytes: default_ip_tcp(),
            timestamps: false,
            sack: true,
            rack: true,
            initial_window: default_iw(),
            rto_initial: default_rto_initial(),
            rto_fallback: default_rto_fallback(),
            rto_min: default_rto_min(),
            rto_max: default_rto_max(),
            rto_floor: RtoFloor::Linux,
            delayed_ack: default_delack(),
            quickacks: default_quickacks(),
            receive_window_bytes: default_rwnd(),
            frto: true,
            slow_start_after_idle: true,
            hystart: true,
            rto_rearm_on_retransmit: true,
            rto_rearm_every_partial_ack: true,
            rto_backoff_until_sample: true,
            partial_ack_retransmit: false,
            nextseg_rule3: false,
            cubic_wmax_reset_on_timeout: true,
            cubic_srtt: false,
            reno_slow_start_cwnd_limited: true,
            cubic_rtt_discard: CUBIC_RTT_DISCARD_LINUX,
            cubic_one_increase_per_ack: false,
            rto_ssthresh_every_timeout: false,
            sack_dupacks_start_recovery: false,
            syn_retries: default_syn_retries(),
            time_limit: default_time_limit(),
        }
    }
}

/// The keys of `[tcp]` (for bare `--set` keys).
pub(super) const TCP_KEYS: &[&str] = &[
    "clients",
    "object_bytes",
    "start_window_ms",
    "token_bytes",
    "request_path",
    "server_max_message_bytes",
    "mtu_bytes",
    "ip_tcp_header_bytes",
    "timestamps",
    "sack",
    "rack",
    "initial_window",
    "rto_initial_ms",
    "rto_fallback_ms",
    "rto_min_ms",
    "rto_max_ms",
    "rto_floor",
    "delayed_ack_ms",
    "quickacks",
    "receive_window_bytes",
    "frto",
    "slow_start_after_idle",
    "hystart",
    "rto_rearm_on_retransmit",
    "rto_rearm_every_partial_ack",
    "rto_backoff_until_sample",
    "partial_ack_retransmit",
    "nextseg_rule3",
    "cubic_wmax_reset_on_timeout",
    "cubic_srtt",
    "reno_slow_start_cwnd_limited",
    "cubic_rtt_discard_ms",
    "cubic_one_increase_per_ack",
    "rto_ssthresh_every_timeout",
    "sack_dupacks_start_recovery",
    "syn_retries",
    "time_limit_ms",
];

/// Bytes of the TCP timestamps option in every segment when it is on (RFC 7323 §3: 10 bytes
/// padded to 12, as Linux sends it).
pub const TIMESTAMPS_OPTION_BYTES: u32 = 12;

/// How long CUBIC ignores RTT samples after the start of an epoch on Linux (`cubictcp_acked`:
/// one second, `HZ` jiffies).
const CUBIC_RTT_DISCARD_LINUX: Duration = Duration::from_secs(1);

/// The messages of one CoAP-over-TCP fetch, bytes on the byte stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoapTcpSizes {
    /// The client's CSM (7.01, RFC 8323 §5.3): Max-Message-Size large enough for the response.
    pub client_csm: u64,
    /// The server's CSM: its Max-Message-Size.
    pub server_csm: u64,
    /// The GET: token and one Uri-Path option.
    pub request: u64,
    /// The response: token, the payload marker and the object (102 408 B for 102 400).
    pub response: u64,
}

impl LinuxTcpConfig {
    /// TCP payload per full segment: MTU − IP/TCP headers − the timestamps option when on.
    pub fn mss(&self) -> u32 {
        let ts = if self.timestamps { TIMESTAMPS_OPTION_BYTES } else { 0 };
        self.mtu_bytes.saturating_sub(self.ip_tcp_header_bytes + ts)
    }

    /// Header bytes of every segment: IP/TCP headers and the timestamps option when on.
    pub fn header_bytes(&self) -> u32 {
        self.ip_tcp_header_bytes + if self.timestamps { TIMESTAMPS_OPTION_BYTES } else { 0 }
    }

    /// The CoAP-over-TCP messages of one fetch, framed by `coapcc_proto::tcp` (RFC 8323 §3.2).
    pub fn sizes(&self) -> CoapTcpSizes {
        use coapcc_proto::tcp::{CSM, MAX_MESSAGE_SIZE, TcpMessage, frame_len};
        use coapcc_proto::{Code, Token, encode_uint, option::URI_PATH};
        let token = Token::new(&[0; 8][..usize::from(self.token_bytes.min(8))]).unwrap_or(Token::EMPTY);
        // The response: token, the payload marker and the object (no option).
        let response = frame_len(token.len(), 1 + self.object_bytes).unwrap_or(u64::MAX);
        // Max-Message-Size (RFC 8323 §5.3.1, a uint of at most 4 bytes) is each CSM's only option.
        let csm = |max: u64| {
            let mut m = TcpMessage::new(CSM);
            m.add_option(MAX_MESSAGE_SIZE, encode_uint(u32::try_from(max).unwrap_or(u32::MAX)).as_slice());
            m.wire_len() as u64
        };
        // Uri-Path is option 11, one per path segment (RFC 7252 §5.10.1).
        let mut get = TcpMessage::new(Code::GET);
        get.token = token;
        for seg in self.request_path.split('/').filter(|s| !s.is_empty()) {
            get.add_option(URI_PATH, seg);
        }
        CoapTcpSizes {
            client_csm: csm(response),
            server_csm: csm(u64::from(self.server_max_message_bytes)),
            request: get.wire_len() as u64,
            response,
        }
    }

    /// Checks every key; the error is `(key, problem)` with the key as written under `[tcp]`.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let bad = |k: &'static str, p: &str| Err((k, p.to_string()));
        if self.clients == 0 {
            return bad("clients", "must be at least 1");
        }
        if self.clients > 10_000 {
            return bad("clients", "must be at most 10 000");
        }
        if self.object_bytes == 0 || self.object_bytes > 1 << 32 {
            return bad("object_bytes", "must be between 1 and 4 294 967 296");
        }
        if self.token_bytes > 8 {
            return bad("token_bytes", "must be at most 8 (RFC 8323 §3.2)");
        }
        if self.ip_tcp_header_bytes < 40 {
            return bad("ip_tcp_header_bytes", "must be at least 40 (IPv4 and TCP headers without options)");
        }
        if self.mss() < 64 {
            return bad("mtu_bytes", "must leave at least 64 bytes of TCP payload after the headers");
        }
        if self.mtu_bytes > 65_535 {
            return bad("mtu_bytes", "must be at most 65 535");
        }
        if self.initial_window == 0 || self.initial_window > 1_000 {
            return bad("initial_window", "must be between 1 and 1 000 segments");
        }
        if self.rto_min.is_zero() {
            return bad("rto_min_ms", "must be greater than 0");
        }
        if self.rto_max < self.rto_min {
            return bad("rto_max_ms", "must not be below rto_min_ms");
        }
        if self.rto_initial < self.rto_min || self.rto_initial > self.rto_max {
            return bad("rto_initial_ms", "must be between rto_min_ms and rto_max_ms");
        }
        if self.rto_fallback < self.rto_min || self.rto_fallback > self.rto_max {
            return bad("rto_fallback_ms", "must be between rto_min_ms and rto_max_ms");
        }
        if self.delayed_ack.is_zero() || self.delayed_ack > Duration::from_millis(500) {
            return bad("delayed_ack_ms", "must be greater than 0 and at most 500 (RFC 5681 §4.2)");
        }
        if self.receive_window_bytes < self.mss() {
            return bad("receive_window_bytes", "must hold at least one full segment (the MSS)");
        }
        if self.partial_ack_retransmit && !self.sack {
            return bad(
                "partial_ack_retransmit",
                "needs sack = true (without SACK every partial ACK retransmits the oldest segment already, RFC 6582 §3.2)",
            );
        }
        if self.nextseg_rule3 && !self.sack {
            return bad("nextseg_rule3", "needs sack = true (RFC 6675's NextSeg works on the SACK scoreboard)");
        }
        if self.sack_dupacks_start_recovery && !self.sack {
            return bad(
                "sack_dupacks_start_recovery",
                "needs sack = true (without SACK three duplicate ACKs start fast recovery already, RFC 5681 §3.2)",
            );
        }
        if self.cubic_rtt_discard > Duration::from_secs(60) {
            return bad("cubic_rtt_discard_ms", "must be at most 60 000");
        }
        if self.syn_retries == 0 || self.syn_retries > 20 {
            return bad("syn_retries", "must be between 1 and 20");
        }
        if self.time_limit.is_zero() {
            return bad("time_limit_ms", "must be greater than 0");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_firmware_response_has_the_theses_eight_byte_header() {
        // RFC 8323 §3.2: length = 1 (marker) + 102 400 ≥ 65 805 → Len 15 and 4 extended
        // bytes; 1 (Len/TKL) + 4 + 1 (code) + 1 (token) + 1 (marker) = 8.
        let c = LinuxTcpConfig::default();
        assert_eq!(c.sizes().response, 102_408);
        assert_eq!(c.mss(), 256);
    }

    #[test]
    fn the_get_and_the_csms_have_their_option_bytes() {
        let s = LinuxTcpConfig::default().sizes();
        // GET /fw: Len/TKL, code, 1-byte token, Uri-Path (delta 11, length 2: 1 + 2 bytes).
        assert_eq!(s.request, 1 + 1 + 1 + 3);
        // Server CSM: Max-Message-Size 1 152 = 0x0480 (2 bytes): option 1 + 2, no token.
        assert_eq!(s.server_csm, 1 + 1 + 3);
        // Client CSM: Max-Message-Size 102 408 = 0x019008 (3 bytes): option 1 + 3.
        assert_eq!(s.client_csm, 1 + 1 + 4);
    }

    #[test]
    fn timestamps_take_twelve_bytes_of_every_segment() {
        let c = LinuxTcpConfig { timestamps: true, ..LinuxTcpConfig::default() };
        assert_eq!(c.mss(), 244);
        assert_eq!(c.header_bytes(), 52);
    }

    const FILE: &str = "name = \"t\"\ndescription = \"d\"\nsource = \"s\"\nseed = 1\nreplications = 1\n\
                        algorithms = [\"cubic\", \"reno\"]\n[network.nbiot]\nbuffer_bytes = 28200\nerrors = \"none\"\n\
                        [tcp]\nclients = 4\n";

    fn load(text: &str, sets: &[&str]) -> Result<super::super::Scenario, super::super::ScenarioError> {
        let sets: Vec<super::super::Setting> = sets.iter().map(|s| s.parse().unwrap()).collect();
        super::super::parse(text, "t.toml", &sets)
    }

    #[test]
    fn a_tcp_scenario_names_congestion_controls_and_takes_bare_keys() {
        let s = load(FILE, &["initial_window=4", "sack=false"]).unwrap();
        let super::super::Model::Tcp(m) = &s.model else { panic!("a TCP model") };
        assert_eq!(
            m.congestion,
            [("cubic".to_string(), CongestionControl::Cubic), ("reno".into(), CongestionControl::Reno)]
        );
        assert_eq!((m.tcp.clients, m.tcp.initial_window, m.tcp.sack), (4, 4, false));
        assert_eq!(s.algorithm_names(), ["cubic", "reno"]);
        // The resolved file loads back to the same model.
        assert_eq!(load(&s.to_toml(), &[]).unwrap().model, s.model);
    }

    #[test]
    fn tcp_scenario_errors_name_the_key() {
        let e = load(&FILE.replace("\"reno\"", "\"bbr\""), &[]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("algorithms"));
        assert!(e.problem.contains("cubic, reno"), "{e}");
        let e = load(FILE, &["rto_max_ms=100"]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("tcp.rto_max_ms"));
        let e = load(&format!("{FILE}[workload]\nflows = 1\nflow_type = \"continuous\"\n"), &[]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("tcp"));
        let e = load(&format!("{FILE}nagle = true\n"), &[]).unwrap_err();
        assert!(e.to_string().contains("nagle"), "{e}");
    }

    #[test]
    fn the_ns3_options_need_sack_and_a_resolved_linux_scenario_does_not_name_them() {
        for key in ["partial_ack_retransmit=true", "nextseg_rule3=true", "sack_dupacks_start_recovery=true"] {
            let e = load(FILE, &["sack=false", key]).unwrap_err();
            let name = key.trim_end_matches("=true");
            assert_eq!(e.key.as_deref(), Some(format!("tcp.{name}").as_str()), "{e}");
            assert!(e.problem.contains("sack"), "{e}");
        }
        // Linux's behaviour is the default and is not written out; a changed option is, and
        // loads back to the same model.
        let linux = load(FILE, &[]).unwrap().to_toml();
        for key in ["rto_rearm_on_retransmit", "nextseg_rule3", "cubic_rtt_discard_ms", "rto_ssthresh_every_timeout"] {
            assert!(!linux.contains(key), "{key} in {linux}");
        }
        let s = load(FILE, &["rto_rearm_on_retransmit=false", "nextseg_rule3=true", "cubic_srtt=true"]).unwrap();
        let text = s.to_toml();
        assert!(text.contains("rto_rearm_on_retransmit = false") && text.contains("nextseg_rule3 = true"), "{text}");
        assert_eq!(load(&text, &[]).unwrap().model, s.model);
        let super::super::Model::Tcp(m) = &s.model else { panic!("a TCP model") };
        assert!(!m.tcp.rto_rearm_on_retransmit && m.tcp.nextseg_rule3 && m.tcp.cubic_srtt);
        assert!(m.tcp.rto_rearm_every_partial_ack && m.tcp.cubic_wmax_reset_on_timeout, "the rest stays Linux's");
        // The CUBIC and timeout options of ns-3 are written out and read back the same way.
        let sets = [
            "cubic_rtt_discard_ms=10",
            "cubic_one_increase_per_ack=true",
            "rto_ssthresh_every_timeout=true",
            "sack_dupacks_start_recovery=true",
        ];
        let s = load(FILE, &sets).unwrap();
        let text = s.to_toml();
        assert!(
            text.contains("cubic_rtt_discard_ms = 10") && text.contains("cubic_one_increase_per_ack = true"),
            "{text}"
        );
        assert_eq!(load(&text, &[]).unwrap().model, s.model);
        let super::super::Model::Tcp(m) = &s.model else { panic!("a TCP model") };
        assert_eq!(m.tcp.cubic_rtt_discard, Duration::from_millis(10));
        assert!(m.tcp.rto_ssthresh_every_timeout && m.tcp.sack_dupacks_start_recovery);
        let e = load(FILE, &["cubic_rtt_discard_ms=60001"]).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("tcp.cubic_rtt_discard_ms"), "{e}");
    }

    #[test]
    fn an_rto_floor_above_the_cap_is_refused_naming_the_key() {
        let c = LinuxTcpConfig { rto_max: Duration::from_millis(100), ..LinuxTcpConfig::default() };
        assert_eq!(c.validate().unwrap_err().0, "rto_max_ms");
        let c = LinuxTcpConfig { mtu_bytes: 100, ..LinuxTcpConfig::default() };
        assert_eq!(c.validate().unwrap_err().0, "mtu_bytes");
    }
}
