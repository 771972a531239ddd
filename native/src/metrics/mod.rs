//! Counters the data path keeps for Prometheus: relaxed atomics bumped where the bytes are
//! handled, read only when `/metrics` is scraped, so counting costs no Python and no lock per
//! request. Each counter follows the Kafka meter of the same name (`BrokerTopicMetrics`,
//! `RequestMetrics`); the Python collector gives them their exposition names.

mod exposition;

pub use exposition::replica_families;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A counter that only goes up; relaxed because a scrape needs no ordering with the data.
#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Kafka's per-topic `BrokerTopicMetrics`, shared by every local partition of the topic (the
/// registry hands each partition its topic's). Counts start when the topic's first partition
/// is registered here and go when its last one leaves, as Kafka removes a topic's meters.
#[derive(Debug, Default)]
pub struct TopicMetrics {
    /// Record bytes appended from producers (`BytesInPerSec`).
    pub bytes_in: Counter,
    /// Records appended from producers (`MessagesInPerSec`).
    pub messages_in: Counter,
    /// Record bytes sent to consumers (`BytesOutPerSec`); follower fetches are not counted.
    pub bytes_out: Counter,
    /// Record bytes refused as larger than `max.message.bytes` (`BytesRejectedPerSec`).
    pub bytes_rejected: Counter,
    /// One per partition of a Produce (`TotalProduceRequestsPerSec`).
    pub produce_requests: Counter,
    pub failed_produce_requests: Counter,
    /// One per partition of a consumer's Fetch (`TotalFetchRequestsPerSec`).
    pub fetch_requests: Counter,
    pub failed_fetch_requests: Counter,
    /// Record bytes a follower appended from its leader (`ReplicationBytesInPerSec`).
    pub replication_bytes_in: Counter,
    /// Record bytes sent to followers (`ReplicationBytesOutPerSec`).
    pub replication_bytes_out: Counter,
}

impl TopicMetrics {
    /// Every counter by its field name, the key the Python collector maps to an exposition
    /// name.
    pub fn values(&self) -> [(&'static str, u64); 10] {
        [
            ("bytes_in", self.bytes_in.get()),
            ("messages_in", self.messages_in.get()),
            ("bytes_out", self.bytes_out.get()),
            ("bytes_rejected", self.bytes_rejected.get()),
            ("produce_requests", self.produce_requests.get()),
            (
                "failed_produce_requests",
                self.failed_produce_requests.get(),
            ),
            ("fetch_requests", self.fetch_requests.get()),
            ("failed_fetch_requests", self.failed_fetch_requests.get()),
            ("replication_bytes_in", self.replication_bytes_in.get()),
            ("replication_bytes_out", self.replication_bytes_out.get()),
        ]
    }
}

/// Upper bounds (ms) of the request latency buckets: fine where produce and fetch usually
/// answer, coarse up to the long-poll and acks=all timeouts.
pub const LATENCY_BUCKETS_MS: [u64; 14] = [
    1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000,
];

/// API keys counted; Kafka's highest is below this, and `route` refuses unknown keys.
const API_KEYS: usize = 128;
/// Error codes counted: -1 (UNKNOWN_SERVER_ERROR) to 190, stored shifted by one.
const ERROR_CODES: usize = 192;

/// Kafka's `RequestMetrics` for one API: requests, total time from the frame read to the
/// response written (`TotalTimeMs`), and the error codes its responses carried
/// (`ErrorsPerSec`, NONE included, one per partition or entity as Kafka counts them).
#[derive(Debug)]
pub struct ApiMetrics {
    requests: Counter,
    total_us: Counter,
    buckets: [Counter; LATENCY_BUCKETS_MS.len() + 1],
    errors: Box<[Counter]>,
}

impl Default for ApiMetrics {
    fn default() -> Self {
        ApiMetrics {
            requests: Counter::default(),
            total_us: Counter::default(),
            buckets: Default::default(),
            errors: (0..ERROR_CODES).map(|_| Counter::default()).collect(),
        }
    }
}

/// What a scrape reads of one API: its key, requests, the latency buckets (not cumulative;
/// the last one is above every bound), the summed latency in ms, and the nonzero error counts.
pub type ApiSnapshot = (i16, u64, Vec<u64>, f64, Vec<(i16, u64)>);

/// Every API's request metrics, indexed by API key.
#[derive(Debug)]
pub struct RequestMetrics {
    apis: Box<[ApiMetrics]>,
}

impl Default for RequestMetrics {
    fn default() -> Self {
        RequestMetrics {
            apis: (0..API_KEYS).map(|_| ApiMetrics::default()).collect(),
        }
    }
}

impl RequestMetrics {
    fn api(&self, api_key: i16) -> Option<&ApiMetrics> {
        usize::try_from(api_key).ok().and_then(|k| self.apis.get(k))
    }

    /// One request answered (or, for acks=0, appended) after `elapsed`.
    pub fn record(&self, api_key: i16, elapsed: Duration) {
        let Some(api) = self.api(api_key) else { return };
        api.requests.add(1);
        let us = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        api.total_us.add(us);
        let bucket = LATENCY_BUCKETS_MS
            .iter()
            .position(|&bound| us <= bound * 1000)
            .unwrap_or(LATENCY_BUCKETS_MS.len());
        api.buckets[bucket].add(1);
    }

    /// `count` more occurrences of `code` in `api_key`'s responses.
    pub fn error(&self, api_key: i16, code: i16, count: u64) {
        let slot = usize::try_from(i32::from(code) + 1).ok();
        if let Some(c) = self
            .api(api_key)
            .zip(slot)
            .and_then(|(a, s)| a.errors.get(s))
        {
            c.add(count);
        }
    }

    /// A response's error codes, `(code, count)`.
    pub fn errors(&self, api_key: i16, counts: &[(i16, u64)]) {
        for &(code, count) in counts {
            self.error(api_key, code, count);
        }
    }

    /// The APIs that have seen a request or an error.
    pub fn snapshot(&self) -> Vec<ApiSnapshot> {
        self.apis
            .iter()
            .enumerate()
            .filter_map(|(key, api)| {
                let errors: Vec<(i16, u64)> = api
                    .errors
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.get() > 0)
                    .map(|(slot, c)| (slot as i16 - 1, c.get()))
                    .collect();
                let requests = api.requests.get();
                (requests > 0 || !errors.is_empty()).then(|| {
                    (
                        key as i16,
                        requests,
                        api.buckets.iter().map(Counter::get).collect(),
                        api.total_us.get() as f64 / 1000.0,
                        errors,
                    )
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_lands_in_the_first_bucket_that_holds_it() {
        let m = RequestMetrics::default();
        m.record(0, Duration::from_micros(999));
        m.record(0, Duration::from_millis(1));
        m.record(0, Duration::from_millis(3));
        m.record(0, Duration::from_secs(60));
        let (key, requests, buckets, sum_ms, errors) = m.snapshot().remove(0);
        assert_eq!((key, requests), (0, 4));
        assert_eq!(buckets[0], 2, "<= 1 ms");
        assert_eq!(buckets[2], 1, "<= 5 ms");
        assert_eq!(buckets[LATENCY_BUCKETS_MS.len()], 1, "above every bound");
        assert_eq!(buckets.iter().sum::<u64>(), 4);
        assert!((sum_ms - 60_004.999).abs() < 0.01, "{sum_ms}");
        assert!(errors.is_empty());
    }

    #[test]
    fn errors_are_counted_per_code_and_out_of_range_ones_ignored() {
        let m = RequestMetrics::default();
        m.error(1, 0, 3);
        m.error(1, -1, 1);
        m.error(1, 6, 2);
        m.error(1, 500, 1);
        m.error(-3, 6, 1);
        m.error(400, 6, 1);
        let snap = m.snapshot();
        assert_eq!(snap.len(), 1);
        assert_eq!(snap[0].0, 1);
        assert_eq!(snap[0].1, 0, "errors alone are not requests");
        assert_eq!(snap[0].4, vec![(-1, 1), (0, 3), (6, 2)]);
    }

    #[test]
    fn unused_apis_are_left_out() {
        assert!(RequestMetrics::default().snapshot().is_empty());
    }
}
