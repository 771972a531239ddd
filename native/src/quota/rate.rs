//! Kafka's windowed rate (`Rate` over a `WindowedSum` in `org.apache.kafka.common.metrics`) and
//! the throttle time `QuotaUtils.throttleTime` derives from a violation of it.
//!
//! Values are summed into `samples` windows of `window_ms` each; a window starts at the first
//! value recorded after the previous one is complete, and windows older than
//! `samples * window_ms` are reset when measured. The rate is the sum over the live windows
//! divided by the time they span, counted as at least `samples - 1` full windows so that a
//! burst at the start of a quiet period is measured against the whole window, not against the
//! few milliseconds since it began (which would throttle the first request of every client).

/// `quota.window.num` and `quota.window.size.seconds`, as the sampled stat uses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowConfig {
    pub samples: usize,
    pub window_ms: i64,
}

#[derive(Debug, Clone, Copy)]
struct Sample {
    value: f64,
    /// When the window began (Kafka's `lastWindowMs`).
    start_ms: i64,
}

impl Sample {
    fn new(now_ms: i64) -> Sample {
        Sample {
            value: 0.0,
            start_ms: now_ms,
        }
    }
}

#[derive(Debug, Default, Clone)]
pub struct Rate {
    samples: Vec<Sample>,
    current: usize,
}

impl Rate {
    pub fn new() -> Rate {
        Rate::default()
    }

    /// Adds `value` to the current window, first moving to the next one if it is complete.
    pub fn record(&mut self, config: WindowConfig, value: f64, now_ms: i64) {
        if self.samples.is_empty() {
            self.samples.push(Sample::new(now_ms));
            self.current = 0;
        }
        if now_ms - self.samples[self.current].start_ms >= config.window_ms {
            self.current = (self.current + 1) % config.samples.max(1);
            if self.current >= self.samples.len() {
                self.samples.push(Sample::new(now_ms));
                self.current = self.samples.len() - 1;
            } else {
                self.samples[self.current] = Sample::new(now_ms);
            }
        }
        self.samples[self.current].value += value;
    }

    /// Resets the windows that ended before the span the rate covers.
    fn purge_obsolete(&mut self, config: WindowConfig, now_ms: i64) {
        let expire = config.samples as i64 * config.window_ms;
        for sample in &mut self.samples {
            if now_ms - sample.start_ms >= expire {
                *sample = Sample::new(now_ms);
            }
        }
    }

    /// The time the rate divides by, in ms: since the oldest live window began, and at least
    /// `samples - 1` full windows.
    pub fn window_size_ms(&mut self, config: WindowConfig, now_ms: i64) -> i64 {
        self.purge_obsolete(config, now_ms);
        let oldest = self
            .samples
            .iter()
            .map(|s| s.start_ms)
            .min()
            .unwrap_or(now_ms);
        let mut elapsed = now_ms - oldest;
        let full_windows = elapsed / config.window_ms;
        let min_full_windows = config.samples as i64 - 1;
        if full_windows < min_full_windows {
            elapsed += (min_full_windows - full_windows) * config.window_ms;
        }
        elapsed.max(1)
    }

    /// The rate per second.
    pub fn measure(&mut self, config: WindowConfig, now_ms: i64) -> f64 {
        self.purge_obsolete(config, now_ms);
        let sum: f64 = self.samples.iter().map(|s| s.value).sum();
        sum / (self.window_size_ms(config, now_ms) as f64 / 1000.0)
    }

    /// Records `value` and checks the rate against `bound`: the throttle time in ms when it
    /// is over (Kafka's `Sensor.record` with quota checks, then `QuotaUtils.throttleTime`),
    /// else 0.
    pub fn record_and_check(
        &mut self,
        config: WindowConfig,
        value: f64,
        bound: f64,
        now_ms: i64,
    ) -> i64 {
        self.record(config, value, now_ms);
        let measured = self.measure(config, now_ms);
        if measured <= bound {
            return 0;
        }
        throttle_time_ms(measured, bound, self.window_size_ms(config, now_ms))
    }
}

/// Kafka's `TokenBucket` stat (KIP-599), which meters controller mutations: a burst of
/// `quota.window.num` windows of quota is allowed at once, then tokens come back at the quota's
/// rate. Tokens go negative when a mutation takes more than is left: the debt is the throttle.
#[derive(Debug, Clone, Default)]
pub struct TokenBucket {
    /// None until the first use: a bucket starts full.
    tokens: Option<f64>,
    last_ms: i64,
}

impl TokenBucket {
    /// The tokens left now, refilled since the last use at `bound` per second, up to the burst.
    pub fn tokens(&mut self, config: WindowConfig, bound: f64, now_ms: i64) -> f64 {
        let burst = bound * config.samples as f64 * config.window_ms as f64 / 1000.0;
        let tokens = match self.tokens {
            None => burst,
            Some(t) => (t + bound * (now_ms - self.last_ms).max(0) as f64 / 1000.0).min(burst),
        };
        self.tokens = Some(tokens);
        self.last_ms = now_ms;
        tokens
    }

    pub fn take(&mut self, config: WindowConfig, bound: f64, permits: f64, now_ms: i64) -> f64 {
        let left = self.tokens(config, bound, now_ms) - permits;
        self.tokens = Some(left);
        left
    }
}

/// The wait, in ms, until a bucket `tokens` in debt is back at zero (Kafka's
/// `ControllerMutationQuotaManager.throttleTimeMs`).
pub fn debt_throttle_ms(tokens: f64, bound: f64) -> i64 {
    if tokens >= 0.0 {
        return 0;
    }
    (-tokens / bound * 1000.0).round() as i64
}

/// How long the client must stay idle for the rate over `window_ms` to fall back to `bound`.
pub fn throttle_time_ms(measured: f64, bound: f64, window_ms: i64) -> i64 {
    ((measured - bound) / bound * window_ms as f64).round() as i64
}

#[cfg(test)]
mod tests {
    use super::{debt_throttle_ms, throttle_time_ms, Rate, TokenBucket, WindowConfig};

    const KAFKA: WindowConfig = WindowConfig {
        samples: 11,
        window_ms: 1000,
    };

    #[test]
    fn a_first_burst_counts_against_the_whole_window() {
        let mut rate = Rate::new();
        rate.record(KAFKA, 10_000.0, 0);
        // 10 full windows are assumed before the first one: 10000 bytes over 10 s.
        assert_eq!(rate.window_size_ms(KAFKA, 0), 10_000);
        assert!((rate.measure(KAFKA, 0) - 1000.0).abs() < 1e-9);
        // Half a second on, the span is 10.5 s.
        assert!((rate.measure(KAFKA, 500) - 10_000.0 / 10.5).abs() < 1e-9);
    }

    #[test]
    fn windows_roll_and_expire() {
        let mut rate = Rate::new();
        for second in 0..11 {
            rate.record(KAFKA, 1000.0, second * 1000);
        }
        // 11 windows of 1000 each, the oldest began 10.5 s before: 11000 / 10.5.
        assert!((rate.measure(KAFKA, 10_500) - 11_000.0 / 10.5).abs() < 1e-9);
        // At 11 s the first window is obsolete and reset.
        assert!((rate.measure(KAFKA, 11_000) - 10_000.0 / 10.0).abs() < 1e-9);
        // The 12th window reuses the first one's slot.
        rate.record(KAFKA, 500.0, 11_000);
        assert_eq!(rate.samples.len(), 11);
        // After a long silence everything is obsolete: the rate is 0 over 10 windows.
        assert_eq!(rate.measure(KAFKA, 100_000), 0.0);
        assert_eq!(rate.window_size_ms(KAFKA, 100_000), 10_000);
    }

    #[test]
    fn throttle_time_brings_the_rate_back_to_the_bound() {
        // Kafka's arithmetic: (measured - bound) / bound * window.
        assert_eq!(throttle_time_ms(1500.0, 1000.0, 10_000), 5000);
        assert_eq!(throttle_time_ms(1000.4, 1000.0, 10_000), 4);
        let mut rate = Rate::new();
        // 20000 bytes at once against 1000/s over a 10 s span: 2000/s, one span of throttle.
        let throttle = rate.record_and_check(KAFKA, 20_000.0, 1000.0, 0);
        assert_eq!(throttle, 10_000);
        // The span stays at 10 s until the burst's window is older than the 11 windows; then
        // it is forgotten.
        assert!((rate.measure(KAFKA, throttle) - 2000.0).abs() < 1e-9);
        assert_eq!(rate.measure(KAFKA, 11_000), 0.0);
        // Within the bound: no throttle.
        let mut calm = Rate::new();
        assert_eq!(calm.record_and_check(KAFKA, 5000.0, 1000.0, 0), 0);
    }

    #[test]
    fn a_client_held_to_its_quota_averages_the_bound() {
        // A client that sends 100 KiB, waits out its throttle, and repeats for a minute
        // averages the quota, as the windowed rate intends.
        let bound = 1_048_576.0;
        let mut rate = Rate::new();
        let mut now = 0;
        let mut sent = 0.0;
        while now < 60_000 {
            sent += 102_400.0;
            let throttle = rate.record_and_check(KAFKA, 102_400.0, bound, now);
            now += throttle.max(1);
        }
        let average = sent / (now as f64 / 1000.0);
        assert!(
            (average - bound).abs() / bound < 0.2,
            "averaged {average} for a bound of {bound}"
        );
    }

    #[test]
    fn a_token_bucket_allows_its_burst_then_refills_at_the_quota() {
        // Kafka's StrictControllerMutationQuotaTest: quota 10/s, 10 windows of 1 s.
        let config = WindowConfig {
            samples: 10,
            window_ms: 1000,
        };
        let mut bucket = TokenBucket::default();
        assert_eq!(bucket.take(config, 10.0, 90.0, 0), 10.0);
        assert_eq!(bucket.take(config, 10.0, 90.0, 0), -80.0);
        assert_eq!(debt_throttle_ms(-80.0, 10.0), 8000);
        // 5 s later 50 tokens are back; never more than the burst.
        assert_eq!(bucket.tokens(config, 10.0, 5000), -30.0);
        assert_eq!(bucket.tokens(config, 10.0, 1_000_000), 100.0);
        assert_eq!(debt_throttle_ms(0.0, 10.0), 0);
    }

    #[test]
    fn unrecording_takes_a_value_back() {
        let mut rate = Rate::new();
        rate.record(KAFKA, 4000.0, 0);
        rate.record(KAFKA, -4000.0, 0);
        assert_eq!(rate.measure(KAFKA, 0), 0.0);
    }
}
