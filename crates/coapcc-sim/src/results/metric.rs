//! The typed run metrics of the multihop model ([`MultihopMetric`], spec multihop.md §2.5,
//! §3.4, §4.4, §4.5): one per column of a multihop `runs.csv`, each with its column name and
//! whether it counts or measures.

/// Declares [`MultihopMetric`]: each metric's variant, its column name and whether it counts
/// things (an integer column) or measures them (a floating-point column).
macro_rules! multihop_metrics {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal, $kind:ident;)*) => {
        /// A run metric of the multihop model: a column of `runs.csv`, a row of `summary.csv`
        /// (see [`run_metrics`](super::run_metrics) for which a run has, and in which order).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum MultihopMetric {
            $($(#[doc = $doc])* $variant,)*
        }

        impl MultihopMetric {
            /// Every metric.
            pub const ALL: &'static [MultihopMetric] = &[$(MultihopMetric::$variant,)*];

            /// The metric's column name (unit in the name).
            pub const fn name(self) -> &'static str {
                match self {
                    $(MultihopMetric::$variant => $name,)*
                }
            }

            /// Whether the metric counts things (events, frames, packets, exchanges, segments,
            /// connections): an integer column of `runs.csv`.
            pub const fn is_count(self) -> bool {
                match self {
                    $(MultihopMetric::$variant => multihop_metrics!(@count $kind),)*
                }
            }
        }
    };
    (@count count) => { true };
    (@count measure) => { false };
}

multihop_metrics! {
    /// Events processed.
    Events = "events", count;
    /// Simulated time, s.
    SimulatedS = "simulated_s", measure;
    /// Packets that reached their destination's network layer.
    PacketsDelivered = "packets_delivered", count;
    /// Packets lost on the way.
    PacketsDropped = "packets_dropped", count;
    /// Data frames put on air, all motes.
    MacDataFrames = "mac_data_frames", count;
    /// Attempts that ended `NOACK`, all motes.
    MacNoack = "mac_noack", count;
    /// Attempts that ended `COLLISION`, all motes.
    MacCollision = "mac_collision", count;
    /// Busy CCAs, all motes.
    MacCcaBusy = "mac_cca_busy", count;
    /// Corrupted receptions, all motes.
    MacRxCorrupted = "mac_rx_corrupted", count;
    /// CSMA drops of every cause, all motes.
    MacDrops = "mac_drops", count;
    /// Copies per ContikiMAC train that ended `OK`.
    CopiesPerOkTrain = "copies_per_ok_train", measure;
    /// Mean radio duty cycle of the motes other than the border router.
    DutyCycleMean = "duty_cycle_mean", measure;
    /// TCP: total goodput, bit/s.
    GoodputBps = "goodput_bps", measure;
    /// TCP: offered payload, bit/s.
    OfferedBps = "offered_bps", measure;
    /// TCP: retransmitted data segments.
    RetransmittedSegments = "retransmitted_segments", count;
    /// TCP: Jain's index over per-node goodput.
    Fairness = "fairness", measure;
    /// TCP: connections never established.
    SetupFailures = "setup_failures", count;
    /// TCP: connections broken in the data phase.
    Broken = "broken", count;
    /// TCP: set-up failures plus broken connections.
    ConnectionFailures = "connection_failures", count;
    /// TCP: Karn-valid RTT samples.
    RttSamples = "rtt_samples", count;
    /// TCP: the largest retransmission count of a delivered segment.
    MaxRetransmissionsDelivered = "max_retransmissions_delivered", count;
    /// TCP: the fewest RTT samples of a mote.
    MinRttSamplesPerNode = "min_rtt_samples_per_node", count;
    /// TCP: Karn-valid samples below 1 s (§4.5 L3), as a fraction.
    RttBelow1sFraction = "rtt_below_1s_fraction", measure;
    /// TCP: samples the controller's 1-s integer arithmetic truncates to 0 (§4.5 L5).
    RttSamplesTruncated = "rtt_samples_truncated", count;
    /// TCP: samples longer than 3 s (§4.5 L8).
    RttSamplesAbove3s = "rtt_samples_above_3s", count;
    /// TCP: the mean first timer armed (each mote's first SYN), s (§4.5 L2).
    FirstTimerS = "first_timer_s", measure;
    /// TCP: the largest fresh-segment timer armed after a mote's first 10 samples, s (§4.5 L3).
    MaxRtoAfter10SamplesS = "max_rto_after_10_samples_s", measure;
    /// TCP: segments delivered.
    DeliveredSegments = "delivered_segments", count;
    /// TCP: retransmissions per delivered segment (§4.5 L13).
    RetransmissionsPerDeliveredSegment = "retransmissions_per_delivered_segment", measure;
    /// CoAP: exchanges completed.
    ExchangesCompleted = "exchanges_completed", count;
    /// CoAP: exchanges abandoned.
    ExchangesFailed = "exchanges_failed", count;
    /// CoAP: retransmissions per ended exchange.
    RetriesPerExchange = "retries_per_exchange", measure;
    /// CoAP: mean exchange duration, s.
    DurationMeanS = "duration_mean_s", measure;
    /// CoAP: exchanges completed per second (see [`run_metrics`](super::run_metrics)).
    ThroughputPerS = "throughput_per_s", measure;
    /// CoAP: 1 / mean duration (OQ-M5).
    InverseDurationPerS = "inverse_duration_per_s", measure;
    /// CoAP: throughput × mean duration (Little's law).
    InFlightMean = "in_flight_mean", measure;
    /// CoAP: distinct requests received in the window per second of it.
    GoodputPerS = "goodput_per_s", measure;
    /// CoAP: failed / ended exchanges in the window.
    AppLossRatio = "app_loss_ratio", measure;
    /// CoAP: (transmissions − completed) / completed in the window.
    Overhead = "overhead", measure;
    /// CoAP, Makarem's saturated senders: the senders.
    Senders = "senders", count;
    /// CoAP, Makarem's saturated senders: goodput per sender, 1/s (M7).
    GoodputPerSenderPerS = "goodput_per_sender_per_s", measure;
    /// CoAP, Makarem's saturated senders: the fraction one hop from the receiver (M6).
    SendersOneHopFraction = "senders_one_hop_fraction", measure;
}

impl std::str::FromStr for MultihopMetric {
    type Err = UnknownMetric;
    /// The metric of a column name (`goodput_bps`).
    fn from_str(s: &str) -> Result<MultihopMetric, UnknownMetric> {
        MultihopMetric::ALL.iter().copied().find(|m| m.name() == s).ok_or_else(|| UnknownMetric(s.to_string()))
    }
}

impl std::fmt::Display for MultihopMetric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a [`MultihopMetric`]'s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a multihop run metric")]
pub struct UnknownMetric(pub String);
