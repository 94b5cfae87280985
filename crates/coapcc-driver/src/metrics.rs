//! Metrics of one run and the statistics over runs (testbeds §1 "Metrics", §2, §3).
//!
//! Units are in the names: `fct_s`, `rtt_s`, `goodput_per_s`. Ratios are fractions (0.1 = 10 %).

/// Per-flow results (one row of `flows.csv`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// Every CoAP RTT sample of the flow, s, in the order they were taken (exact up to
    /// [`Distribution::EXACT_LIMIT`] samples).
    pub rtts: Distribution,
    /// The value of every retransmission timer of the flow that expired, s, in order.
    pub expired_rto: Distribution,
}

/// Per-run metrics (one row of `runs.csv`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// Mean time a packet admitted to the uplink's serializer waited in its buffer, s (NaN
    /// without a serializer or packets).
    pub queue_delay_up_s: f64,
    /// The same for the downlink, s.
    pub queue_delay_down_s: f64,
    /// Largest backlog of the uplink's buffer, bytes.
    pub max_queue_up_bytes: u64,
    /// Largest backlog of the downlink's buffer, bytes.
    pub max_queue_down_bytes: u64,
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
    /// Events processed: packet deliveries (each through all link stages), client timer
    /// wake-ups, flow starts.
    pub events: u64,
    /// Simulated time at the end, s.
    pub sim_time_s: f64,
    /// Flows that did not finish before the run ended (the workload's `time_limit_ms`): their
    /// `fct_s` is NaN and they are left out of the FCT quantiles and `jain_fct`, so this count
    /// says how many the quantiles miss. Always 0 for long-lived flows, which never finish by
    /// design (testbeds §2).
    pub flows_unfinished: u64,
}

/// One window of a long-lived run (instantaneous rates, Makarem Fig. 23).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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

/// One flow's block-wise transfer (one row of `transfers.csv`, `[coap.blockwise]`): the
/// firmware-update metrics of the thesis chapter, over CoAP on UDP.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TransferResult {
    /// Flow index.
    pub flow: u32,
    /// The object, bytes.
    pub object_bytes: u64,
    /// The block size, bytes.
    pub block_bytes: u32,
    /// Blocks of the object (exchanges of a transfer without failures).
    pub blocks: u32,
    /// Request of the first block → arrival of the last block, s (NaN when unfinished).
    pub fct_s: f64,
    /// Connection set-up before the first request, s: zero over UDP, which has none.
    pub setup_s: f64,
    /// Datagrams the client sent (requests and their retransmissions).
    pub packets_up: u64,
    /// Datagrams the server sent the client (responses, and answers to duplicates).
    pub packets_down: u64,
    /// Retransmissions sent.
    pub retransmissions: u32,
    /// Retransmissions sent although an earlier copy completed the round trip (ground truth).
    pub unnecessary_retransmissions: u32,
    /// The object's bits per second of FCT, bit/s (NaN when unfinished).
    pub goodput_bit_s: f64,
}

impl TransferResult {
    /// The transfer of `flow` (its results), an object of `object_bytes` in `blocks` blocks of
    /// `block_bytes`, for which the server sent `packets_down` datagrams.
    pub fn of(flow: &FlowResult, object_bytes: u64, block_bytes: u32, blocks: u32, packets_down: u64) -> Self {
        TransferResult {
            flow: flow.flow,
            object_bytes,
            block_bytes,
            blocks,
            fct_s: flow.fct_s,
            setup_s: 0.0,
            packets_up: u64::from(flow.transmissions),
            packets_down,
            retransmissions: flow.retransmissions,
            unnecessary_retransmissions: flow.unnecessary_retransmissions,
            goodput_bit_s: object_bytes as f64 * 8.0 / flow.fct_s,
        }
    }
}

/// Everything one run produces.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunResult {
    /// Per flow.
    pub flows: Vec<FlowResult>,
    /// Per run.
    pub run: RunMetrics,
    /// Time series (long-lived runs).
    pub series: Vec<SeriesPoint>,
    /// Per flow's block-wise transfer, when the flows do one (`[coap.blockwise]`); else empty.
    pub transfers: Vec<TransferResult>,
}

impl RunResult {
    /// Every CoAP RTT sample of the run, s.
    pub fn rtts(&self) -> Distribution {
        Distribution::union(self.flows.iter().map(|f| &f.rtts))
    }

    /// The value of every retransmission timer of the run that expired, s.
    pub fn expired_rto(&self) -> Distribution {
        Distribution::union(self.flows.iter().map(|f| &f.expired_rto))
    }
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

/// One bin of a binned [`Distribution`]: `(key, count, sum of the values)`.
pub type Bin = (u64, u64, f64);

/// Values (CoAP RTTs, expired RTOs) kept for their quantiles in bounded memory: every value
/// exactly up to [`Distribution::EXACT_LIMIT`] values, then in logarithmic bins 2⁻¹⁰ wide
/// (each value within 0.1 % of its bin's mean), so that a run of any length keeps at most a
/// few thousand bins instead of one number per exchange. Non-finite values are ignored.
///
/// Quantiles interpolate between order statistics as [`quantile`] does; once binned, an order
/// statistic is the mean of the bin it falls in.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Distribution {
    /// The values, in arrival order, while the distribution is exact.
    exact: Vec<f64>,
    /// Bin key → (count, sum), once there were more than `EXACT_LIMIT` values.
    bins: Option<std::collections::BTreeMap<u64, (u64, f64)>>,
    count: u64,
}

impl Distribution {
    /// Values kept exactly before binning (512 KiB).
    pub const EXACT_LIMIT: usize = 65_536;

    /// An empty distribution.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `x` (ignored unless finite).
    pub fn push(&mut self, x: f64) {
        if !x.is_finite() {
            return;
        }
        self.count += 1;
        match &mut self.bins {
            Some(bins) => bin_add(bins, x, 1, x),
            None => {
                if self.exact.len() == self.exact.capacity() {
                    // Doubling from 64 values rather than 4: a run's distributions mostly hold
                    // tens to hundreds, and each early reallocation was a copy per flow.
                    self.exact.reserve(self.exact.len().max(64));
                }
                self.exact.push(x);
                if self.exact.len() > Self::EXACT_LIMIT {
                    self.bin_all();
                }
            }
        }
    }

    /// Adds every value of `other` (binning if the total exceeds the limit).
    pub fn merge(&mut self, other: &Distribution) {
        match &other.bins {
            None => other.exact.iter().for_each(|&x| self.push(x)),
            Some(theirs) => {
                self.bin_all();
                if let Some(bins) = &mut self.bins {
                    for (&k, &(n, sum)) in theirs {
                        let e = bins.entry(k).or_insert((0, 0.0));
                        e.0 += n;
                        e.1 += sum;
                    }
                }
                self.count += other.count;
            }
        }
    }

    /// The union of `parts` without the limit: exact when every part is (summaries over
    /// replications, built once at the end).
    pub fn union<'a>(parts: impl IntoIterator<Item = &'a Distribution>) -> Distribution {
        let parts: Vec<&Distribution> = parts.into_iter().collect();
        if parts.iter().all(|p| p.is_exact()) {
            let exact: Vec<f64> = parts.iter().flat_map(|p| p.exact.iter().copied()).collect();
            return Distribution { count: exact.len() as u64, exact, bins: None };
        }
        let mut d = Distribution::new();
        d.bin_all();
        parts.into_iter().for_each(|p| d.merge(p));
        d
    }

    /// The distribution's whole state, to send it to another process: the exact values (in
    /// arrival order) while exact, else the bins as `(key, count, sum)` in key order; and the
    /// count. [`Distribution::from_parts`] rebuilds an equal distribution.
    pub fn to_parts(&self) -> (&[f64], Option<Vec<Bin>>, u64) {
        let bins = self.bins.as_ref().map(|b| b.iter().map(|(&k, &(n, sum))| (k, n, sum)).collect());
        (&self.exact, bins, self.count)
    }

    /// The distribution [`Distribution::to_parts`] described.
    pub fn from_parts(exact: Vec<f64>, bins: Option<Vec<Bin>>, count: u64) -> Distribution {
        let bins = bins.map(|b| b.into_iter().map(|(k, n, sum)| (k, (n, sum))).collect());
        Distribution { exact, bins, count }
    }

    /// Releases spare capacity (results kept for many runs hold only their values).
    pub fn shrink_to_fit(&mut self) {
        self.exact.shrink_to_fit();
    }

    /// Values added (finite ones).
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether no value was added.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Whether every value is still kept exactly.
    pub fn is_exact(&self) -> bool {
        self.bins.is_none()
    }

    /// The values, while the distribution is exact.
    pub fn values(&self) -> Option<&[f64]> {
        self.is_exact().then_some(self.exact.as_slice())
    }

    /// Every value with a count of 1, in arrival order, while exact; once binned, each bin's
    /// mean with the number of values in it, in ascending order.
    pub fn weighted(&self) -> Vec<(f64, u64)> {
        match &self.bins {
            None => self.exact.iter().map(|&x| (x, 1)).collect(),
            Some(bins) => bins.values().map(|&(n, sum)| (sum / n as f64, n)).collect(),
        }
    }

    /// The `q`-quantile (see [`quantile`]); NaN when empty.
    pub fn quantile(&self, q: f64) -> f64 {
        match &self.bins {
            None => quantile(&mut self.exact.clone(), q),
            Some(bins) => {
                if self.count == 0 {
                    return f64::NAN;
                }
                let pos = q.clamp(0.0, 1.0) * (self.count - 1) as f64;
                let (lo, hi) = (pos.floor() as u64, pos.ceil() as u64);
                let (a, b) = (bin_value(bins, lo), bin_value(bins, hi));
                a + (b - a) * (pos - lo as f64)
            }
        }
    }

    /// The five quantiles of the tables and box plots.
    pub fn quantiles(&self) -> Quantiles {
        match &self.bins {
            None => Quantiles::of(&mut self.exact.clone()),
            Some(_) => Quantiles {
                p10: self.quantile(0.1),
                p25: self.quantile(0.25),
                p50: self.quantile(0.5),
                p75: self.quantile(0.75),
                p90: self.quantile(0.9),
            },
        }
    }

    fn bin_all(&mut self) {
        if self.bins.is_some() {
            return;
        }
        let mut bins = std::collections::BTreeMap::new();
        for x in std::mem::take(&mut self.exact) {
            bin_add(&mut bins, x, 1, x);
        }
        self.exact.shrink_to_fit();
        self.bins = Some(bins);
    }
}

/// The bin of a finite value: its bits mapped to an order-preserving integer, keeping sign,
/// exponent and the top 10 mantissa bits (bins 2⁻¹⁰ ≈ 0.1 % wide).
fn bin_key(x: f64) -> u64 {
    let b = x.to_bits();
    let ordered = if b >> 63 == 1 { !b } else { b | (1 << 63) };
    ordered >> 42
}

fn bin_add(bins: &mut std::collections::BTreeMap<u64, (u64, f64)>, x: f64, n: u64, sum: f64) {
    let e = bins.entry(bin_key(x)).or_insert((0, 0.0));
    e.0 += n;
    e.1 += sum;
}

/// The mean of the bin holding the order statistic of rank `k` (0-based).
fn bin_value(bins: &std::collections::BTreeMap<u64, (u64, f64)>, k: u64) -> f64 {
    let mut seen = 0u64;
    for &(n, sum) in bins.values() {
        seen += n;
        if k < seen {
            return sum / n as f64;
        }
    }
    f64::NAN
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
    fn a_distribution_rebuilt_from_its_parts_is_equal_exact_or_binned() {
        let mut d = Distribution::new();
        for n in [10, Distribution::EXACT_LIMIT + 10] {
            while d.len() < n as u64 {
                d.push(0.5 + (d.len() % 997) as f64 * 1e-3);
            }
            let (exact, bins, count) = d.to_parts();
            let back = Distribution::from_parts(exact.to_vec(), bins, count);
            assert_eq!(back, d);
            assert_eq!(back.quantile(0.9), d.quantile(0.9));
        }
        assert!(!d.is_exact());
    }

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
    fn a_distribution_is_exact_up_to_its_limit() {
        let mut d = Distribution::new();
        for x in [4.0, f64::NAN, 1.0, 3.0, 2.0, f64::INFINITY] {
            d.push(x);
        }
        assert_eq!(d.len(), 4);
        assert!(d.is_exact());
        assert_eq!(d.quantile(0.5), 2.5);
        assert_eq!(d.quantiles().p25, 1.75);
        assert!(Distribution::new().quantile(0.5).is_nan());
    }

    #[test]
    fn past_its_limit_a_distribution_keeps_bins_and_stays_within_a_thousandth() {
        // Values spread over four decades, in a scrambled order.
        let n = Distribution::EXACT_LIMIT as u64 * 3;
        let value = |i: u64| 0.01 * 10f64.powf(4.0 * ((i * 7919) % n) as f64 / n as f64);
        let mut d = Distribution::new();
        let mut all = Vec::new();
        for i in 0..n {
            d.push(value(i));
            all.push(value(i));
        }
        assert!(!d.is_exact());
        assert_eq!(d.len(), n);
        // 4 decades ≈ 13.3 octaves × 1024 bins: bounded, whatever the number of values.
        assert!(d.bins.as_ref().is_some_and(|b| b.len() < 14 * 1024));
        for q in [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0] {
            let exact = quantile(&mut all, q);
            let approx = d.quantile(q);
            assert!((approx - exact).abs() <= 1e-3 * exact, "q={q}: {approx} vs {exact}");
        }
    }

    #[test]
    fn merging_binned_and_exact_parts_counts_every_value() {
        let mut big = Distribution::new();
        (0..=Distribution::EXACT_LIMIT).for_each(|i| big.push(1.0 + i as f64));
        let mut small = Distribution::new();
        small.push(0.5);
        let u = Distribution::union([&small, &big]);
        assert_eq!(u.len(), big.len() + 1);
        assert!((u.quantile(0.0) - 0.5).abs() < 1e-3);
        let exact = Distribution::union([&small, &small]);
        assert_eq!(exact.values(), Some(&[0.5, 0.5][..]));
    }

    #[test]
    fn jain_is_one_for_equal_values_and_one_over_n_for_one_hog() {
        assert_eq!(jain(&[2.0, 2.0, 2.0]), 1.0);
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }
}
