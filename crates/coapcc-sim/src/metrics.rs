//! Metrics of one run and the statistics over runs (testbeds §1 "Metrics", §2, §3).
//!
//! Units are in the names: `fct_s`, `rtt_s`, `goodput_per_s`. Ratios are fractions (0.1 = 10 %).

/// Per-flow results (one row of `flows.csv`).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowResult {
    /// Flow index.
    pub flow: u32,
    /// Flow completion time: first request → end of its last exchange (ACK or give-up), s.
    pub fct_s: f64,
    /// Exchanges acknowledged.
    pub exchanges_completed: u32,
    /// Exchanges abandoned after MAX_RETRANSMIT.
    pub exchanges_failed: u32,
    /// Request copies sent (originals and retransmissions).
    pub transmissions: u32,
    /// Retransmissions sent.
    pub retransmissions: u32,
    /// Retransmissions sent although an earlier copy of the same request completed the round
    /// trip (reached the server and its response reached the client) — ground truth.
    pub unnecessary_retransmissions: u32,
    /// Median CoAP RTT (original request → first ACK) of the flow's completed exchanges, s.
    pub median_rtt_s: f64,
}

/// Per-run metrics (one row of `runs.csv`).
#[derive(Clone, Debug, PartialEq)]
pub struct RunMetrics {
    /// Measured period: first flow start → last flow end (or the configured duration), s.
    pub duration_s: f64,
    /// Exchanges acknowledged.
    pub exchanges_completed: u64,
    /// Exchanges abandoned.
    pub exchanges_failed: u64,
    /// Exchanges acknowledged per second of the measured period.
    pub goodput_per_s: f64,
    /// Application loss ratio: abandoned / finished exchanges.
    pub loss_ratio: f64,
    /// Overhead (Makarem): request copies lost / request copies delivered to the server.
    pub overhead: f64,
    /// Busy fraction of the uplink's serializer (NaN without one).
    pub utilisation_up: f64,
    /// Busy fraction of the downlink's serializer (NaN without one).
    pub utilisation_down: f64,
    /// Packets offered to the uplink.
    pub packets_up: u64,
    /// Packets offered to the downlink.
    pub packets_down: u64,
    /// Packets dropped by a full buffer (both directions).
    pub drops_buffer: u64,
    /// Packets lost to link errors (both directions).
    pub drops_error: u64,
    /// Packets that found no token (residual bandwidth).
    pub drops_no_token: u64,
    /// Jain's fairness index over the flows' FCTs.
    pub jain_fct: f64,
    /// Events processed: packet deliveries (each through all link stages), timer wake-ups that
    /// found work, flow starts. Stale wake-ups of re-armed timers are not counted.
    pub events: u64,
    /// Simulated time at the end, s.
    pub sim_time_s: f64,
}

/// One window of a long-lived run (instantaneous rates, Makarem Fig. 23).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesPoint {
    /// Window start, s.
    pub t_s: f64,
    /// Residual bandwidth during the window, packets/s (NaN without a token bucket).
    pub resbw_per_s: f64,
    /// Request copies sent per second.
    pub send_rate_per_s: f64,
    /// Exchanges acknowledged per second.
    pub success_rate_per_s: f64,
}

/// Everything one run produces.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// Per flow.
    pub flows: Vec<FlowResult>,
    /// Per run.
    pub run: RunMetrics,
    /// Every CoAP RTT sample, s.
    pub rtts_s: Vec<f64>,
    /// The value of every retransmission timer that expired, s.
    pub expired_rto_s: Vec<f64>,
    /// Time series (long-lived runs).
    pub series: Vec<SeriesPoint>,
}

/// The `q`-quantile (0 ≤ q ≤ 1) by linear interpolation between order statistics (pandas'
/// default); NaN for no finite data. Sorts `xs` in place.
pub fn quantile(xs: &mut [f64], q: f64) -> f64 {
    let mut n = xs.len();
    xs.sort_by(|a, b| a.total_cmp(b));
    while n > 0 && !xs[n - 1].is_finite() {
        n -= 1;
    }
    let start = xs[..n].iter().position(|x| x.is_finite()).unwrap_or(n);
    let v = &xs[start..n];
    if v.is_empty() {
        return f64::NAN;
    }
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// The median (see [`quantile`]).
pub fn median(xs: &mut [f64]) -> f64 {
    quantile(xs, 0.5)
}

/// Jain's fairness index (Σx)² / (n·Σx²); NaN for no data.
pub fn jain(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || s2 == 0.0 { f64::NAN } else { s * s / (n * s2) }
}

/// Five-number summary used by the tables and box plots.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantiles {
    /// 10th percentile.
    pub p10: f64,
    /// First quartile.
    pub p25: f64,
    /// Median.
    pub p50: f64,
    /// Third quartile.
    pub p75: f64,
    /// 90th percentile.
    pub p90: f64,
}

impl Quantiles {
    /// The quantiles of `xs` (sorted in place).
    pub fn of(xs: &mut [f64]) -> Self {
        Quantiles {
            p10: quantile(xs, 0.1),
            p25: quantile(xs, 0.25),
            p50: quantile(xs, 0.5),
            p75: quantile(xs, 0.75),
            p90: quantile(xs, 0.9),
        }
    }
}

/// The arithmetic mean of the finite values; NaN when there are none.
pub fn mean(xs: &[f64]) -> f64 {
    let v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_like_pandas() {
        let mut xs = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(quantile(&mut xs, 0.5), 2.5);
        assert_eq!(quantile(&mut xs, 0.25), 1.75);
        assert_eq!(quantile(&mut xs, 1.0), 4.0);
        assert!(quantile(&mut [], 0.5).is_nan());
        assert_eq!(median(&mut [f64::NAN, 1.0, 3.0]), 2.0);
    }

    #[test]
    fn jain_is_one_for_equal_values_and_one_over_n_for_one_hog() {
        assert_eq!(jain(&[2.0, 2.0, 2.0]), 1.0);
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }
}
