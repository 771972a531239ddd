//! The broker's quota meters: one windowed rate per quota type and metered entity, shared by
//! every connection of that entity, and the throttle time each request earns.
//!
//! With no quota configured for a type nothing is metered (no lock, no map entry), as in
//! Kafka. Meters are kept across configuration changes, so a changed quota applies to the rate
//! already measured, and dropped an hour after their entity's last request, as Kafka expires
//! its quota sensors: client ids that come and go do not grow the broker's memory.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Mutex, RwLock};

use super::entity::{MetricTags, QuotaConfig, QuotaType};
use super::rate::{debt_throttle_ms, Rate, TokenBucket, WindowConfig};

/// Throttling an entity has earned since the broker started.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleStats {
    pub total_ms: u64,
    pub count: u64,
}

type MeterKey = (QuotaType, MetricTags);

/// Kafka's `InactiveSensorExpirationTimeSeconds` for quota sensors.
const INACTIVE_MS: i64 = 3_600_000;
/// How often inactive meters are looked for (Kafka's sensor reaper runs every 30 s).
const SWEEP_EVERY_MS: i64 = 30_000;

#[derive(Debug, Default)]
struct Meter {
    /// Byte rates and request time.
    rate: Rate,
    /// Controller mutations.
    bucket: TokenBucket,
    last_recorded_ms: i64,
}

/// A controller mutation's answer: whether it may go ahead, and the throttle its client earned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mutation {
    pub accepted: bool,
    pub throttle_ms: i64,
}

#[derive(Debug)]
pub struct ClientQuotaManager {
    window: WindowConfig,
    config: RwLock<Arc<QuotaConfig>>,
    /// Whether any quota is configured: the data path's one check when there is none.
    any: AtomicBool,
    /// Locked before `throttles` where both are.
    meters: Mutex<HashMap<MeterKey, Meter>>,
    throttles: Mutex<HashMap<MeterKey, ThrottleStats>>,
    last_sweep_ms: AtomicI64,
}

impl ClientQuotaManager {
    pub fn new(window: WindowConfig) -> ClientQuotaManager {
        ClientQuotaManager {
            window,
            config: RwLock::new(Arc::new(QuotaConfig::default())),
            any: AtomicBool::new(false),
            meters: Mutex::new(HashMap::new()),
            throttles: Mutex::new(HashMap::new()),
            last_sweep_ms: AtomicI64::new(0),
        }
    }

    /// Replaces the whole configuration; requests from now on resolve against it.
    pub fn set_config(&self, config: QuotaConfig) {
        let any = QuotaType::ALL.iter().any(|&k| config.enabled(k));
        *self.config.write() = Arc::new(config);
        self.any.store(any, Ordering::Release);
    }

    fn resolve(&self, kind: QuotaType, user: &str, client_id: &str) -> Option<(f64, MetricTags)> {
        if !self.any.load(Ordering::Acquire) {
            return None;
        }
        let config = Arc::clone(&self.config.read());
        config.resolve(kind, user, client_id)
    }

    /// Records `value` (bytes) for the entity the request belongs to and returns the throttle
    /// time in ms it earned (0: within its quota, or no quota applies).
    pub fn record_and_get_throttle_time_ms(
        &self,
        kind: QuotaType,
        user: &str,
        client_id: &str,
        value: f64,
        now_ms: i64,
    ) -> i64 {
        let Some((bound, tags)) = self.resolve(kind, user, client_id) else {
            return 0;
        };
        let throttle = {
            let mut meters = self.meters.lock();
            self.sweep_if_due(&mut meters, now_ms);
            let meter = meters.entry((kind, tags.clone())).or_default();
            meter.last_recorded_ms = now_ms;
            let throttle = meter
                .rate
                .record_and_check(self.window, value, bound, now_ms);
            match kind {
                // Kafka bounds a request-time throttle by one quota window
                // (`ClientRequestQuotaManager.throttleTime`); byte-rate throttles are not.
                QuotaType::Request => throttle.min(self.window.window_ms),
                QuotaType::Produce | QuotaType::Fetch | QuotaType::ControllerMutation => throttle,
            }
        };
        self.count_throttle(kind, &tags, bound, throttle);
        throttle
    }

    /// `permits` partitions created or deleted by the entity, against its
    /// `controller_mutation_rate` (Kafka's controller mutation quotas). Strict (the versions
    /// that know THROTTLING_QUOTA_EXCEEDED): refused while the bucket is in debt, accepted
    /// otherwise, however large. Permissive (older versions): always accepted, throttled for
    /// the debt it leaves.
    pub fn record_controller_mutation(
        &self,
        user: &str,
        client_id: &str,
        permits: f64,
        strict: bool,
        now_ms: i64,
    ) -> Mutation {
        let kind = QuotaType::ControllerMutation;
        let Some((bound, tags)) = self.resolve(kind, user, client_id) else {
            return Mutation {
                accepted: true,
                throttle_ms: 0,
            };
        };
        let mutation = {
            let mut meters = self.meters.lock();
            self.sweep_if_due(&mut meters, now_ms);
            let meter = meters.entry((kind, tags.clone())).or_default();
            meter.last_recorded_ms = now_ms;
            let bucket = &mut meter.bucket;
            let tokens = bucket.tokens(self.window, bound, now_ms);
            if strict && tokens < 0.0 {
                Mutation {
                    accepted: false,
                    throttle_ms: debt_throttle_ms(tokens, bound),
                }
            } else {
                let left = bucket.take(self.window, bound, permits, now_ms);
                Mutation {
                    accepted: true,
                    throttle_ms: if strict {
                        0
                    } else {
                        debt_throttle_ms(left, bound)
                    },
                }
            }
        };
        self.count_throttle(kind, &tags, bound, mutation.throttle_ms);
        mutation
    }

    fn count_throttle(&self, kind: QuotaType, tags: &MetricTags, bound: f64, throttle: i64) {
        if throttle > 0 {
            log::debug!(
                "quota violated: {} user={:?} client-id={:?} quota={bound} throttle={throttle}ms",
                kind.name(),
                tags.user,
                tags.client_id,
            );
            let mut throttles = self.throttles.lock();
            let stats = throttles.entry((kind, tags.clone())).or_default();
            stats.total_ms += throttle as u64;
            stats.count += 1;
        }
    }

    /// Records the time a request of the entity took the broker (Kafka's request handler
    /// time, without the waits for replication or for data) against its `request_percentage`,
    /// and returns the throttle time in ms it earned.
    pub fn record_request_time(
        &self,
        user: &str,
        client_id: &str,
        busy: Duration,
        now_ms: i64,
    ) -> i64 {
        if !self.any.load(Ordering::Acquire) {
            return 0;
        }
        // Kafka's `nanosToPercentage`: a request of 10 ms each second is a rate of 1 (%).
        let percent_seconds = busy.as_nanos() as f64 * 100.0 / 1e9;
        self.record_and_get_throttle_time_ms(
            QuotaType::Request,
            user,
            client_id,
            percent_seconds,
            now_ms,
        )
    }

    /// Takes back a recorded value (a throttled fetch answers no data, so its bytes do not
    /// count), as Kafka's `unrecordQuotaSensor` does.
    pub fn unrecord(&self, kind: QuotaType, user: &str, client_id: &str, value: f64, now_ms: i64) {
        let Some((_, tags)) = self.resolve(kind, user, client_id) else {
            return;
        };
        self.meters
            .lock()
            .entry((kind, tags))
            .or_default()
            .rate
            .record(self.window, -value, now_ms);
    }

    /// Drops the meters of entities inactive for an hour, and their throttle counts with
    /// them, at most once per `SWEEP_EVERY_MS`.
    fn sweep_if_due(&self, meters: &mut HashMap<MeterKey, Meter>, now_ms: i64) {
        let last = self.last_sweep_ms.load(Ordering::Relaxed);
        if now_ms - last < SWEEP_EVERY_MS {
            return;
        }
        self.last_sweep_ms.store(now_ms, Ordering::Relaxed);
        meters.retain(|_, m| now_ms - m.last_recorded_ms < INACTIVE_MS);
        self.throttles
            .lock()
            .retain(|key, _| meters.contains_key(key));
    }

    /// The most a single request may carry without being throttled for certain: the quota over
    /// all windows but the current one (Kafka caps a consumer's fetch size with it). None: no
    /// quota applies.
    pub fn max_value_in_quota_window(
        &self,
        kind: QuotaType,
        user: &str,
        client_id: &str,
    ) -> Option<f64> {
        let (bound, _) = self.resolve(kind, user, client_id)?;
        let windows = self.window.samples.saturating_sub(1) as f64;
        Some(bound * windows * self.window.window_ms as f64 / 1000.0)
    }

    /// The throttling of every entity throttled so far: (quota type, metric tags, stats).
    pub fn throttle_stats(&self) -> Vec<(QuotaType, MetricTags, ThrottleStats)> {
        let mut out: Vec<_> = self
            .throttles
            .lock()
            .iter()
            .map(|((kind, tags), stats)| (*kind, tags.clone(), *stats))
            .collect();
        out.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        out
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::time::Duration;

    use super::ClientQuotaManager;
    use crate::quota::{EntityName, MetricTags, QuotaConfig, QuotaEntity, QuotaType, WindowConfig};

    fn manager() -> ClientQuotaManager {
        let manager = ClientQuotaManager::new(WindowConfig {
            samples: 11,
            window_ms: 1000,
        });
        manager.set_config(QuotaConfig::new([(
            QuotaEntity {
                user: Some(EntityName::Name("alice".into())),
                client_id: None,
            },
            HashMap::from([("producer_byte_rate".to_string(), 1000.0)]),
        )]));
        manager
    }

    #[test]
    fn a_user_quota_is_shared_by_its_client_ids() {
        let m = manager();
        // 10 s of quota at once, from two client ids of alice: the second is over.
        assert_eq!(
            m.record_and_get_throttle_time_ms(QuotaType::Produce, "alice", "a", 6000.0, 0),
            0
        );
        let throttle =
            m.record_and_get_throttle_time_ms(QuotaType::Produce, "alice", "b", 6000.0, 0);
        assert_eq!(throttle, 2000);
        // bob has no quota, fetches have none.
        assert_eq!(
            m.record_and_get_throttle_time_ms(QuotaType::Produce, "bob", "a", 1e9, 0),
            0
        );
        assert_eq!(
            m.record_and_get_throttle_time_ms(QuotaType::Fetch, "alice", "a", 1e9, 0),
            0
        );
        let stats = m.throttle_stats();
        assert_eq!(stats.len(), 1);
        let (kind, tags, s) = &stats[0];
        assert_eq!(*kind, QuotaType::Produce);
        assert_eq!(
            *tags,
            MetricTags {
                user: "alice".into(),
                client_id: String::new()
            }
        );
        assert_eq!((s.total_ms, s.count), (2000, 1));
    }

    #[test]
    fn request_time_is_metered_as_a_percentage_and_its_throttle_bounded() {
        let m = manager();
        m.set_config(QuotaConfig::new([(
            QuotaEntity {
                user: None,
                client_id: Some(EntityName::Name("busy".into())),
            },
            HashMap::from([("request_percentage".to_string(), 10.0)]),
        )]));
        // 10 % of a thread over the 10 s the first window counts as: 1 s of requests.
        let ms = |n| Duration::from_millis(n);
        assert_eq!(m.record_request_time("ANONYMOUS", "busy", ms(900), 0), 0);
        // 2 s in all: twice the quota, throttled, but never for more than one window (1 s).
        assert_eq!(
            m.record_request_time("ANONYMOUS", "busy", ms(1100), 0),
            1000
        );
        assert_eq!(m.record_request_time("ANONYMOUS", "idle", ms(5000), 0), 0);
        let stats = m.throttle_stats();
        assert_eq!(stats[0].0, QuotaType::Request);
    }

    #[test]
    fn controller_mutations_strict_and_permissive() {
        let m = ClientQuotaManager::new(WindowConfig {
            samples: 10,
            window_ms: 1000,
        });
        m.set_config(QuotaConfig::new([(
            QuotaEntity {
                user: None,
                client_id: Some(EntityName::Name("admin".into())),
            },
            HashMap::from([("controller_mutation_rate".to_string(), 10.0)]),
        )]));
        let mutate = |permits, strict, now| {
            let got = m.record_controller_mutation("ANONYMOUS", "admin", permits, strict, now);
            (got.accepted, got.throttle_ms)
        };
        // Kafka's ControllerMutationQuotaManagerTest: a burst of 110 of a 100-token bucket is
        // accepted; the next one is refused for the 1 s the debt of 10 takes to repay.
        assert_eq!(mutate(110.0, true, 0), (true, 0));
        assert_eq!(mutate(110.0, true, 0), (false, 1000));
        assert_eq!(mutate(110.0, true, 1000), (true, 0));
        // Permissive: accepted, throttled for the debt (-110 tokens: 11 s).
        assert_eq!(mutate(0.0, false, 1000), (true, 11_000));
        // Without a quota nothing is metered.
        let other = m.record_controller_mutation("ANONYMOUS", "x", 1e9, true, 0);
        assert_eq!((other.accepted, other.throttle_ms), (true, 0));
    }

    #[test]
    fn meters_of_inactive_entities_are_dropped_after_an_hour() {
        let m = manager();
        let user = |name: &str| QuotaEntity {
            user: Some(EntityName::Name(name.into())),
            client_id: None,
        };
        let quota = || HashMap::from([("producer_byte_rate".to_string(), 1000.0)]);
        m.set_config(QuotaConfig::new([
            (user("alice"), quota()),
            (user("bob"), quota()),
        ]));
        let (t0, minute) = (1_000_000, 60_000);
        // alice is throttled once, then goes quiet; bob keeps producing.
        m.record_and_get_throttle_time_ms(QuotaType::Produce, "alice", "a", 20_000.0, t0);
        assert_eq!(m.throttle_stats().len(), 1);
        m.record_and_get_throttle_time_ms(QuotaType::Produce, "bob", "b", 0.0, t0 + 59 * minute);
        assert_eq!(m.meters.lock().len(), 2);
        m.record_and_get_throttle_time_ms(QuotaType::Produce, "bob", "b", 0.0, t0 + 61 * minute);
        // alice's meter and her throttle count are gone; bob's meter stays.
        assert_eq!(m.meters.lock().len(), 1);
        assert!(m.throttle_stats().is_empty());
    }

    #[test]
    fn unrecord_and_the_window_cap() {
        let m = manager();
        m.record_and_get_throttle_time_ms(QuotaType::Produce, "alice", "a", 20_000.0, 0);
        m.unrecord(QuotaType::Produce, "alice", "a", 20_000.0, 0);
        assert_eq!(
            m.record_and_get_throttle_time_ms(QuotaType::Produce, "alice", "a", 5000.0, 0),
            0
        );
        assert_eq!(
            m.max_value_in_quota_window(QuotaType::Produce, "alice", "x"),
            Some(10_000.0)
        );
        assert_eq!(
            m.max_value_in_quota_window(QuotaType::Produce, "bob", "x"),
            None
        );
        // Removing every quota stops the metering.
        m.set_config(QuotaConfig::default());
        assert_eq!(
            m.record_and_get_throttle_time_ms(QuotaType::Produce, "alice", "a", 1e9, 0),
            0
        );
    }
}
