//! The link set-ups of the papers' testbeds (`docs/testbeds.md`) as configuration data. Every
//! testbed number lives here (or in the stage module's `TESTBED_*` constants) and nowhere else; scenario
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

use coapcc_core::ConfigError;
use coapcc_core::{Duration, Ratio};

use super::gilbert_elliott::DEFAULT_MEAN_BAD_PACKETS;
use super::{
    FifoJitterConfig, GeMode, GilbertElliottConfig, NormalDelayConfig, PipelineConfig, PropagationConfig,
    SerializerConfig, StageConfig, TokenBucketConfig,
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

/// Good-to-bad ratio of the mean sojourns of testbeds §1 (4 s : 1 s), used for the default
/// good run of the packet model so its stationary loss is the level's.
const TESTBED_GOOD_TO_BAD: u32 = 4;

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
        StageConfig::Serializer(SerializerConfig { rate_bps, buffer_bytes, count_in_service: false }),
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

/// Testbeds §1 with every number a key (`[network.nbiot]`): rates, propagation delays, the
/// rest-of-path delay range, the buffer and the Gilbert–Elliott error model. Every key but
/// `buffer_bytes` and `errors` defaults to the testbed's value, so a scenario that leaves them
/// out runs the testbed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NbiotConfig {
    /// Drop-tail buffer of each wireless direction, bytes (2 500, 14 100, 28 200, 1 410 000).
    pub buffer_bytes: u64,
    /// Whether the packet being serialised counts against `buffer_bytes` (default `false`:
    /// only waiting packets; the serializer's `count_in_service`). Not written when `false`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub buffer_counts_in_service: bool,
    /// Link errors: `none`, `medium` (≈ 10 %), `high` (≈ 18 %); the `errors_*` keys refine it.
    pub errors: LinkErrors,
    /// Wireless uplink rate, kbit/s (60); must be a whole number of bit/s.
    #[serde(default = "default_uplink_kbps")]
    pub uplink_kbps: Ratio,
    /// Wireless downlink rate, kbit/s (30); must be a whole number of bit/s.
    #[serde(default = "default_downlink_kbps")]
    pub downlink_kbps: Ratio,
    /// Wireless uplink one-way propagation delay (200 ms).
    #[serde(rename = "uplink_delay_ms", with = "coapcc_core::serde_ms", default = "default_uplink_delay")]
    pub uplink_delay: Duration,
    /// Wireless downlink one-way propagation delay (400 ms).
    #[serde(rename = "downlink_delay_ms", with = "coapcc_core::serde_ms", default = "default_downlink_delay")]
    pub downlink_delay: Duration,
    /// Rest of the path, either direction: shortest one-way delay (10 ms; uniform, FIFO).
    #[serde(rename = "rest_of_path_min_ms", with = "coapcc_core::serde_ms", default = "default_rest_min")]
    pub rest_of_path_min: Duration,
    /// Rest of the path, either direction: longest one-way delay (20 ms).
    #[serde(rename = "rest_of_path_max_ms", with = "coapcc_core::serde_ms", default = "default_rest_max")]
    pub rest_of_path_max: Duration,
    /// Gilbert–Elliott mean sojourn in the good state (4 000 ms), both directions.
    #[serde(rename = "errors_mean_good_ms", with = "coapcc_core::serde_ms", default = "default_mean_good")]
    pub errors_mean_good: Duration,
    /// Gilbert–Elliott mean sojourn in the bad (burst) state (1 000 ms), both directions.
    #[serde(rename = "errors_mean_bad_ms", with = "coapcc_core::serde_ms", default = "default_mean_bad")]
    pub errors_mean_bad: Duration,
    /// Loss probability in the good state, in [0, 1]; when absent, the `errors` level's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors_loss_good: Option<Ratio>,
    /// Loss probability in the bad state, in [0, 1]; when absent, the `errors` level's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors_loss_bad: Option<Ratio>,
    /// When the Gilbert–Elliott state changes: `"time"` (default; the `errors_mean_*_ms`
    /// sojourns) or `"packet"` (netem's per-packet `loss gemodel`; the `errors_mean_*_packets`).
    #[serde(default, skip_serializing_if = "is_time_mode")]
    pub errors_model: GeMode,
    /// Packet model: mean burst length in packets (2; ≥ 1), netem `r` = 1 / this.
    #[serde(default = "default_mean_bad_packets", skip_serializing_if = "is_default_mean_bad_packets")]
    pub errors_mean_bad_packets: Ratio,
    /// Packet model: mean good run in packets (≥ 1), netem `p` = 1 / this; when absent, four
    /// times the burst (the testbed's 4 s : 1 s), so the stationary loss is the `errors` level's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors_mean_good_packets: Option<Ratio>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_time_mode(m: &GeMode) -> bool {
    *m == GeMode::Time
}
fn default_mean_bad_packets() -> Ratio {
    DEFAULT_MEAN_BAD_PACKETS
}
fn is_default_mean_bad_packets(r: &Ratio) -> bool {
    *r == DEFAULT_MEAN_BAD_PACKETS
}

fn default_uplink_kbps() -> Ratio {
    Ratio::integer((NBIOT_UPLINK_RATE_BPS / 1000) as u32)
}
fn default_downlink_kbps() -> Ratio {
    Ratio::integer((NBIOT_DOWNLINK_RATE_BPS / 1000) as u32)
}
fn default_uplink_delay() -> Duration {
    NBIOT_UPLINK_DELAY
}
fn default_downlink_delay() -> Duration {
    NBIOT_DOWNLINK_DELAY
}
fn default_rest_min() -> Duration {
    REST_OF_PATH_DELAY.0
}
fn default_rest_max() -> Duration {
    REST_OF_PATH_DELAY.1
}
fn default_mean_good() -> Duration {
    GilbertElliottConfig::error_free().mean_good
}
fn default_mean_bad() -> Duration {
    GilbertElliottConfig::error_free().mean_bad
}

/// A rate in kbit/s as whole bits per second (`None` when it is not one, or zero).
fn kbps_to_bps(kbps: Ratio) -> Option<u64> {
    let bits = u64::from(kbps.numer()) * 1000;
    let den = u64::from(kbps.denom());
    (den > 0 && bits % den == 0 && bits > 0).then(|| bits / den)
}

impl NbiotConfig {
    /// The testbed with buffer `buffer_bytes` and error level `errors`.
    pub fn testbed(buffer_bytes: u64, errors: LinkErrors) -> Self {
        NbiotConfig {
            buffer_bytes,
            buffer_counts_in_service: false,
            errors,
            uplink_kbps: default_uplink_kbps(),
            downlink_kbps: default_downlink_kbps(),
            uplink_delay: NBIOT_UPLINK_DELAY,
            downlink_delay: NBIOT_DOWNLINK_DELAY,
            rest_of_path_min: REST_OF_PATH_DELAY.0,
            rest_of_path_max: REST_OF_PATH_DELAY.1,
            errors_mean_good: default_mean_good(),
            errors_mean_bad: default_mean_bad(),
            errors_loss_good: None,
            errors_loss_bad: None,
            errors_model: GeMode::Time,
            errors_mean_bad_packets: DEFAULT_MEAN_BAD_PACKETS,
            errors_mean_good_packets: None,
        }
    }

    /// The Gilbert–Elliott configuration of both wireless directions.
    pub fn gilbert_elliott(&self) -> GilbertElliottConfig {
        let level = self.errors.config();
        let ge = GilbertElliottConfig {
            mean_good: self.errors_mean_good,
            mean_bad: self.errors_mean_bad,
            loss_good: self.errors_loss_good.unwrap_or(level.loss_good),
            loss_bad: self.errors_loss_bad.unwrap_or(level.loss_bad),
            ..level
        };
        match self.errors_model {
            GeMode::Time => ge,
            GeMode::Packet => {
                let bad = self.errors_mean_bad_packets;
                let good = self.errors_mean_good_packets.unwrap_or_else(|| {
                    let ratio = TESTBED_GOOD_TO_BAD;
                    Ratio::new(bad.numer().saturating_mul(ratio), bad.denom())
                });
                ge.per_packet(good, bad)
            }
        }
    }

    /// Checks every key (the error names it as written under `[network.nbiot]`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        const WHOLE: &str = "must be a positive whole number of bits per second";
        if kbps_to_bps(self.uplink_kbps).is_none() {
            return Err(ConfigError::new("uplink_kbps", WHOLE));
        }
        if kbps_to_bps(self.downlink_kbps).is_none() {
            return Err(ConfigError::new("downlink_kbps", WHOLE));
        }
        if self.rest_of_path_min > self.rest_of_path_max {
            return Err(ConfigError::new("rest_of_path_min_ms", "must not exceed rest_of_path_max_ms"));
        }
        self.gilbert_elliott().validate().map_err(|e| {
            let key = match e.key {
                "mean_good_ms" => "errors_mean_good_ms",
                "mean_bad_ms" => "errors_mean_bad_ms",
                "loss_good" => "errors_loss_good",
                "loss_bad" => "errors_loss_bad",
                "mean_good_packets" => "errors_mean_good_packets",
                "mean_bad_packets" => "errors_mean_bad_packets",
                other => other,
            };
            ConfigError::new(key, e.problem)
        })?;
        self.uplink_path().validate()?;
        self.downlink_path().validate()
    }

    fn wireless(&self, kbps: Ratio, delay: Duration) -> PipelineConfig {
        // A rate that is not whole bit/s is refused by `validate`; 0 here makes the
        // serializer stage's own check refuse it too.
        let rate_bps = kbps_to_bps(kbps).unwrap_or(0);
        PipelineConfig::new([
            StageConfig::Serializer(SerializerConfig {
                rate_bps,
                buffer_bytes: self.buffer_bytes,
                count_in_service: self.buffer_counts_in_service,
            }),
            StageConfig::GilbertElliott(self.gilbert_elliott()),
            StageConfig::Propagation(PropagationConfig::new(delay)),
        ])
    }

    fn rest_of_path(&self) -> PipelineConfig {
        PipelineConfig::new([StageConfig::FifoJitter(FifoJitterConfig::new(
            self.rest_of_path_min,
            self.rest_of_path_max,
        ))])
    }

    /// Client → server: the wireless uplink, then the rest of the path.
    pub fn uplink_path(&self) -> PipelineConfig {
        self.wireless(self.uplink_kbps, self.uplink_delay).then(self.rest_of_path())
    }

    /// Server → client: the rest of the path, then the wireless downlink.
    pub fn downlink_path(&self) -> PipelineConfig {
        self.rest_of_path().then(self.wireless(self.downlink_kbps, self.downlink_delay))
    }
}

/// Sender → receiver in testbeds §2: ResBW drawn every 5 s from U(`min_pps`, `max_pps`)
/// packets/s with a bucket of one packet, then one half of the N(500 ms, 10 ms) RTT.
pub fn residual_bandwidth_forward(min_pps: Ratio, max_pps: Ratio) -> PipelineConfig {
    residual_bandwidth_forward_with_depth(min_pps, max_pps, 1)
}

/// [`residual_bandwidth_forward`] with a token bucket of `depth_packets` (≥ 1) instead of one
/// packet (the token-bucket-depth investigation; docs/testbeds.md §2: not published).
pub fn residual_bandwidth_forward_with_depth(min_pps: Ratio, max_pps: Ratio, depth_packets: u32) -> PipelineConfig {
    PipelineConfig::new([
        StageConfig::TokenBucket(TokenBucketConfig { depth_packets, ..TokenBucketConfig::uniform(min_pps, max_pps) }),
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
    fn the_nbiot_keys_default_to_the_testbed_paths() {
        for buffer in NBIOT_BUFFER_SIZES {
            for errors in LinkErrors::ALL {
                let c = NbiotConfig::testbed(buffer, errors);
                assert_eq!(c.uplink_path(), nbiot_uplink_path(buffer, errors));
                assert_eq!(c.downlink_path(), nbiot_downlink_path(buffer, errors));
                c.validate().unwrap();
            }
        }
    }

    #[test]
    fn an_nbiot_rate_of_12_5_kbps_is_12500_bps_and_a_fraction_of_a_bit_is_refused() {
        let c = NbiotConfig { downlink_kbps: Ratio::new(25, 2), ..NbiotConfig::testbed(2_500, LinkErrors::None) };
        assert_eq!(
            c.downlink_path().stages[1],
            StageConfig::Serializer(SerializerConfig {
                rate_bps: 12_500,
                buffer_bytes: 2_500,
                count_in_service: false
            })
        );
        let bad = NbiotConfig { uplink_kbps: Ratio::new(1, 3), ..c };
        assert_eq!(bad.validate().map_err(|e| e.key), Err("uplink_kbps"));
        let zero = NbiotConfig { uplink_kbps: Ratio::ZERO, ..c };
        assert_eq!(zero.validate().map_err(|e| e.key), Err("uplink_kbps"));
    }

    #[test]
    fn an_nbiot_loss_override_replaces_only_that_probability_of_the_level() {
        let c =
            NbiotConfig { errors_loss_good: Some(Ratio::new(1, 10)), ..NbiotConfig::testbed(2_500, LinkErrors::High) };
        let ge = c.gilbert_elliott();
        assert_eq!((ge.loss_good, ge.loss_bad), (Ratio::new(1, 10), Ratio::new(4, 5)));
        let bad = NbiotConfig { errors_loss_bad: Some(Ratio::new(3, 2)), ..c };
        assert_eq!(bad.validate().map_err(|e| e.key), Err("errors_loss_bad"));
    }

    #[test]
    fn the_downlink_path_meets_the_rest_of_the_path_first() {
        let kinds: Vec<_> =
            nbiot_downlink_path(2_500, LinkErrors::None).stages.iter().map(|s| s.kind().name()).collect();
        assert_eq!(kinds, ["fifo_jitter", "serializer", "gilbert_elliott", "propagation"]);
    }

    #[test]
    fn the_nbiot_packet_model_keeps_the_level_stationary_loss() {
        assert_eq!(
            TESTBED_GOOD_TO_BAD as u128,
            crate::link::gilbert_elliott::TESTBED_MEAN_GOOD.as_nanos()
                / crate::link::gilbert_elliott::TESTBED_MEAN_BAD.as_nanos()
        );
        for errors in [LinkErrors::Medium, LinkErrors::High] {
            let c = NbiotConfig {
                errors_model: GeMode::Packet,
                errors_mean_bad_packets: Ratio::integer(5),
                ..NbiotConfig::testbed(2_500, errors)
            };
            let ge = c.gilbert_elliott();
            assert_eq!(
                (ge.mode, ge.mean_bad_packets, ge.mean_good_packets),
                (GeMode::Packet, Ratio::integer(5), Ratio::integer(20))
            );
            assert!((ge.stationary_loss() - errors.config().stationary_loss()).abs() < 1e-12);
            c.validate().unwrap();
        }
        let bad = NbiotConfig {
            errors_model: GeMode::Packet,
            errors_mean_good_packets: Some(Ratio::new(1, 2)),
            ..NbiotConfig::testbed(2_500, LinkErrors::High)
        };
        assert_eq!(bad.validate().map_err(|e| e.key), Err("errors_mean_good_packets"));
    }
}
