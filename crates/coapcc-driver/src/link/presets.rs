//! The link set-ups of `shared/spec/testbeds.md` as configuration data. Every testbed number
//! lives here (or in the stage module's `TESTBED_*` constants) and nowhere else; scenario
//! files may override any of them.
//!
//! ## Testbed §1: NB-IoT-like constrained link
//!
//! ```text
//! client ─▶ [uplink: serializer 60 kbit/s ▸ gilbert_elliott ▸ propagation 200 ms] ─▶ router ─▶ [rest of path: fifo_jitter U[10, 20] ms] ─▶ server
//! client ◀─ [downlink: serializer 30 kbit/s ▸ gilbert_elliott ▸ propagation 400 ms] ◀─ router ◀─ [rest of path: fifo_jitter U[10, 20] ms] ◀─ server
//! ```
//!
//! One pipeline per direction holds the whole path ([`nbiot_uplink_path`],
//! [`nbiot_downlink_path`]), shared by all clients (one FIFO per direction, \[D\]). Both
//! wireless directions have a drop-tail buffer of the same size (\[D\] placement). A packet's
//! error fate is decided at the instant its serialisation ends (the Gilbert–Elliott stage sits
//! between the serializer and the propagation delay). Packet sizes passed to the pipeline
//! must include the IPv4 + UDP headers (28 B), which count against the rate and the buffer.
//!
//! ## Testbed §2: residual bandwidth
//!
//! Forward: token bucket (ResBW redrawn every 5 s from U(a, b), depth one packet), then half
//! of the N(500 ms, 10 ms) RTT; return: the other half, never lost
//! ([`residual_bandwidth_forward`], [`residual_bandwidth_return`]).

use coapcc_core::{Duration, Ratio};

use super::{
    FifoJitterConfig, GilbertElliottConfig, NormalDelayConfig, PipelineConfig, PropagationConfig, SerializerConfig,
    StageConfig, TokenBucketConfig,
};

/// Uplink rate of testbeds §1 \[S\], bits per second.
pub const NBIOT_UPLINK_RATE_BPS: u64 = 60_000;
/// Downlink rate of testbeds §1 \[S\], bits per second.
pub const NBIOT_DOWNLINK_RATE_BPS: u64 = 30_000;
/// Uplink one-way propagation delay of testbeds §1 \[S\].
pub const NBIOT_UPLINK_DELAY: Duration = Duration::from_millis(200);
/// Downlink one-way propagation delay of testbeds §1 \[S\].
pub const NBIOT_DOWNLINK_DELAY: Duration = Duration::from_millis(400);
/// Rest-of-path one-way delay range of testbeds §1 [S range, D uniform FIFO].
pub const REST_OF_PATH_DELAY: (Duration, Duration) = (Duration::from_millis(10), Duration::from_millis(20));
/// Buffer sizes of testbeds §1 \[S\], bytes: ≈ bandwidth-delay product, 14 100, 28 200 and
/// 1 410 000 ("infinite").
pub const NBIOT_BUFFER_SIZES: [u64; 4] = [2_500, 14_100, 28_200, 1_410_000];

/// Mean RTT of a successful transmission in testbeds §2 \[S\].
pub const RESIDUAL_RTT_MEAN: Duration = Duration::from_millis(500);
/// Standard deviation of that RTT \[S\].
pub const RESIDUAL_RTT_SD: Duration = Duration::from_millis(10);

/// The link-error levels of testbeds §1 (`errors = "none" | "medium" | "high"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkErrors {
    /// Error-free runs: all loss is congestion loss.
    #[default]
    None,
    /// 50 % / 0 %, ≈ 10 % on average ([`GilbertElliottConfig::medium`]).
    Medium,
    /// 80 % / 2 %, ≈ 18 % on average ([`GilbertElliottConfig::high`]).
    High,
}

impl LinkErrors {
    /// Every level.
    pub const ALL: [LinkErrors; 3] = [LinkErrors::None, LinkErrors::Medium, LinkErrors::High];

    /// The configuration name.
    pub const fn name(self) -> &'static str {
        match self {
            LinkErrors::None => "none",
            LinkErrors::Medium => "medium",
            LinkErrors::High => "high",
        }
    }

    /// The Gilbert–Elliott configuration of this level.
    pub const fn config(self) -> GilbertElliottConfig {
        match self {
            LinkErrors::None => GilbertElliottConfig::error_free(),
            LinkErrors::Medium => GilbertElliottConfig::medium(),
            LinkErrors::High => GilbertElliottConfig::high(),
        }
    }
}

/// The wireless uplink of testbeds §1: 60 kbit/s behind a `buffer_bytes` drop-tail buffer,
/// link errors, 200 ms propagation.
pub fn nbiot_wireless_uplink(buffer_bytes: u64, errors: LinkErrors) -> PipelineConfig {
    wireless(NBIOT_UPLINK_RATE_BPS, NBIOT_UPLINK_DELAY, buffer_bytes, errors)
}

/// The wireless downlink of testbeds §1: 30 kbit/s behind a `buffer_bytes` drop-tail buffer
/// (the bottleneck), link errors, 400 ms propagation.
pub fn nbiot_wireless_downlink(buffer_bytes: u64, errors: LinkErrors) -> PipelineConfig {
    wireless(NBIOT_DOWNLINK_RATE_BPS, NBIOT_DOWNLINK_DELAY, buffer_bytes, errors)
}

fn wireless(rate_bps: u64, delay: Duration, buffer_bytes: u64, errors: LinkErrors) -> PipelineConfig {
    PipelineConfig::new([
        StageConfig::Serializer(SerializerConfig { rate_bps, buffer_bytes }),
        StageConfig::GilbertElliott(errors.config()),
        StageConfig::Propagation(PropagationConfig::new(delay)),
    ])
}

/// The rest of the path of testbeds §1 (either direction): U[10, 20] ms, FIFO.
pub fn rest_of_path() -> PipelineConfig {
    PipelineConfig::new([StageConfig::FifoJitter(FifoJitterConfig::new(REST_OF_PATH_DELAY.0, REST_OF_PATH_DELAY.1))])
}

/// Client → server in testbeds §1: the wireless uplink, then the rest of the path.
pub fn nbiot_uplink_path(buffer_bytes: u64, errors: LinkErrors) -> PipelineConfig {
    nbiot_wireless_uplink(buffer_bytes, errors).then(rest_of_path())
}

/// Server → client in testbeds §1: the rest of the path, then the wireless downlink.
pub fn nbiot_downlink_path(buffer_bytes: u64, errors: LinkErrors) -> PipelineConfig {
    rest_of_path().then(nbiot_wireless_downlink(buffer_bytes, errors))
}

/// Sender → receiver in testbeds §2: ResBW drawn every 5 s from U(`min_pps`, `max_pps`)
/// packets/s with a bucket of one packet, then one half of the N(500 ms, 10 ms) RTT.
pub fn residual_bandwidth_forward(min_pps: Ratio, max_pps: Ratio) -> PipelineConfig {
    PipelineConfig::new([
        StageConfig::TokenBucket(TokenBucketConfig::uniform(min_pps, max_pps)),
        StageConfig::NormalDelay(NormalDelayConfig::split_rtt(RESIDUAL_RTT_MEAN, RESIDUAL_RTT_SD)),
    ])
}

/// Receiver → sender in testbeds §2: the other half of the RTT; ACKs are never lost.
pub fn residual_bandwidth_return() -> PipelineConfig {
    PipelineConfig::new([StageConfig::NormalDelay(NormalDelayConfig::split_rtt(RESIDUAL_RTT_MEAN, RESIDUAL_RTT_SD))])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid() {
        for buffer in NBIOT_BUFFER_SIZES {
            for errors in LinkErrors::ALL {
                nbiot_uplink_path(buffer, errors).validate().unwrap();
                nbiot_downlink_path(buffer, errors).validate().unwrap();
            }
        }
        residual_bandwidth_forward(Ratio::new(6, 10), Ratio::ONE).validate().unwrap();
        residual_bandwidth_return().validate().unwrap();
    }

    #[test]
    fn the_downlink_path_meets_the_rest_of_the_path_first() {
        let kinds: Vec<_> =
            nbiot_downlink_path(2_500, LinkErrors::None).stages.iter().map(|s| s.kind().name()).collect();
        assert_eq!(kinds, ["fifo_jitter", "serializer", "gilbert_elliott", "propagation"]);
    }
}
