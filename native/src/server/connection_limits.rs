//! Kafka's connection limits, counted from accept to close: `max.connections` in all and
//! `max.connections.per.ip` from one address, with `max.connections.per.ip.overrides` for
//! named hosts. A connection over either is closed as soon as it is accepted, as Kafka's
//! `ConnectionQuotas` does (every listener counts, the inter-broker one too). And
//! `max.connection.creation.rate`, Kafka's broker-wide connection-accept rate: over it, the
//! listener waits before it serves the connection it accepted (at most one quota window), as
//! Kafka's acceptor does; the inter-broker listener is not held when there are others.

use std::collections::HashMap;
use std::net::{IpAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use parking_lot::Mutex;

use crate::quota::{Rate, WindowConfig};

#[derive(Debug)]
pub struct ConnectionLimits {
    open: AtomicUsize,
    max_total: usize,
    max_per_ip: usize,
    overrides: HashMap<IpAddr, usize>,
    /// Open connections by address; kept only when some address has a limit.
    per_ip: Mutex<HashMap<IpAddr, usize>>,
    /// `max.connection.creation.rate`, when it is set below Kafka's default (Int.MaxValue).
    creation: Option<CreationRate>,
}

#[derive(Debug)]
struct CreationRate {
    bound: f64,
    window: WindowConfig,
    rate: Mutex<Rate>,
}

/// Why a connection was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    Total,
    PerIp(usize),
}

impl ConnectionLimits {
    pub fn new(max_total: usize, max_per_ip: usize, overrides: HashMap<IpAddr, usize>) -> Self {
        ConnectionLimits {
            open: AtomicUsize::new(0),
            max_total,
            max_per_ip,
            overrides,
            per_ip: Mutex::new(HashMap::new()),
            creation: None,
        }
    }

    /// Holds new connections to `max_rate` a second, measured over `window` (Kafka's quota
    /// windows); `i32::MAX` is no limit.
    pub fn with_creation_rate(mut self, max_rate: i32, window: WindowConfig) -> Self {
        self.creation = (max_rate < i32::MAX).then(|| CreationRate {
            bound: f64::from(max_rate.max(0)),
            window,
            rate: Mutex::new(Rate::new()),
        });
        self
    }

    /// Counts a connection just accepted against the creation rate: how long its listener
    /// waits before serving it (zero under the rate), at most one quota window, as Kafka's
    /// `QuotaUtils.boundedThrottleTime` bounds it.
    pub fn creation_delay(&self, now_ms: i64) -> Duration {
        let Some(c) = &self.creation else {
            return Duration::ZERO;
        };
        let ms = c
            .rate
            .lock()
            .record_and_check(c.window, 1.0, c.bound, now_ms);
        Duration::from_millis(ms.clamp(0, c.window.window_ms) as u64)
    }

    fn per_ip_limited(&self) -> bool {
        self.max_per_ip < i32::MAX as usize || !self.overrides.is_empty()
    }

    /// Counts a new connection from `ip`, or refuses it (and counts nothing).
    pub fn admit(&self, ip: IpAddr) -> Result<(), Refusal> {
        if self.per_ip_limited() {
            let limit = self.overrides.get(&ip).copied().unwrap_or(self.max_per_ip);
            let mut per_ip = self.per_ip.lock();
            let count = per_ip.entry(ip).or_insert(0);
            if *count >= limit {
                if *count == 0 {
                    per_ip.remove(&ip);
                }
                return Err(Refusal::PerIp(limit));
            }
            *count += 1;
        }
        if self.open.fetch_add(1, Ordering::AcqRel) >= self.max_total {
            self.open.fetch_sub(1, Ordering::AcqRel);
            self.forget(ip);
            return Err(Refusal::Total);
        }
        Ok(())
    }

    /// A connection `admit` counted has closed.
    pub fn release(&self, ip: IpAddr) {
        self.open.fetch_sub(1, Ordering::AcqRel);
        self.forget(ip);
    }

    fn forget(&self, ip: IpAddr) {
        if !self.per_ip_limited() {
            return;
        }
        let mut per_ip = self.per_ip.lock();
        if let Some(count) = per_ip.get_mut(&ip) {
            *count -= 1;
            if *count == 0 {
                per_ip.remove(&ip);
            }
        }
    }

    pub fn open(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }
}

/// `max.connections.per.ip.overrides`: `host:count` pairs, comma-separated; a host name
/// stands for every address it resolves to (Kafka takes the first), an IPv6 address is
/// written bare (the count follows the last colon).
pub fn parse_overrides(text: &str) -> Result<HashMap<IpAddr, usize>, String> {
    let mut overrides = HashMap::new();
    for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let bad = || format!("max.connections.per.ip.overrides: {item:?} is not host:count");
        let (host, count) = item.rsplit_once(':').ok_or_else(bad)?;
        let count: usize = count.trim().parse().map_err(|_| bad())?;
        let host = host.trim().trim_start_matches('[').trim_end_matches(']');
        let addresses: Vec<IpAddr> = match host.parse::<IpAddr>() {
            Ok(ip) => vec![ip],
            Err(_) => (host, 0)
                .to_socket_addrs()
                .map_err(|e| format!("max.connections.per.ip.overrides: {host}: {e}"))?
                .map(|a| a.ip())
                .collect(),
        };
        for ip in addresses {
            overrides.insert(ip, count);
        }
    }
    Ok(overrides)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn an_address_is_held_to_its_limit_and_its_override() {
        let overrides = parse_overrides("127.0.0.2:3, ::1:0").expect("parses");
        let limits = ConnectionLimits::new(100, 2, overrides);
        let a = ip("127.0.0.1");
        assert_eq!(limits.admit(a), Ok(()));
        assert_eq!(limits.admit(a), Ok(()));
        assert_eq!(limits.admit(a), Err(Refusal::PerIp(2)));
        let b = ip("127.0.0.2");
        for _ in 0..3 {
            assert_eq!(limits.admit(b), Ok(()));
        }
        assert_eq!(limits.admit(b), Err(Refusal::PerIp(3)));
        assert_eq!(limits.admit(ip("::1")), Err(Refusal::PerIp(0)));
        assert_eq!(limits.open(), 5);
        limits.release(a);
        assert_eq!(limits.admit(a), Ok(()));
        assert_eq!(limits.open(), 5);
    }

    #[test]
    fn connections_over_the_creation_rate_wait_at_most_a_window() {
        let window = WindowConfig {
            samples: 2,
            window_ms: 1000,
        };
        let limits = ConnectionLimits::new(100, 100, HashMap::new()).with_creation_rate(5, window);
        let delays: Vec<Duration> = (0..8).map(|_| limits.creation_delay(10_000)).collect();
        // Five a second are served at once; the sixth within that second waits.
        assert!(delays[..5].iter().all(Duration::is_zero), "{delays:?}");
        assert!(delays[5..].iter().all(|d| !d.is_zero()), "{delays:?}");
        assert!(delays.iter().all(|d| *d <= Duration::from_secs(1)));
        // Unlimited by default.
        let open =
            ConnectionLimits::new(100, 100, HashMap::new()).with_creation_rate(i32::MAX, window);
        assert!((0..1000).all(|_| open.creation_delay(10_000).is_zero()));
    }

    #[test]
    fn the_total_is_counted_over_every_address() {
        let limits = ConnectionLimits::new(2, i32::MAX as usize, HashMap::new());
        assert_eq!(limits.admit(ip("10.0.0.1")), Ok(()));
        assert_eq!(limits.admit(ip("10.0.0.2")), Ok(()));
        assert_eq!(limits.admit(ip("10.0.0.3")), Err(Refusal::Total));
        limits.release(ip("10.0.0.1"));
        assert_eq!(limits.admit(ip("10.0.0.3")), Ok(()));
    }

    #[test]
    fn a_refused_total_gives_back_the_address_count() {
        let limits = ConnectionLimits::new(1, 5, HashMap::new());
        assert_eq!(limits.admit(ip("10.0.0.1")), Ok(()));
        assert_eq!(limits.admit(ip("10.0.0.2")), Err(Refusal::Total));
        assert!(limits.per_ip.lock().get(&ip("10.0.0.2")).is_none());
    }

    #[test]
    fn overrides_name_hosts_and_refuse_what_is_not_a_pair() {
        let parsed = parse_overrides("localhost:7").expect("parses");
        assert_eq!(parsed.get(&ip("127.0.0.1")), Some(&7));
        assert!(parse_overrides("").expect("empty").is_empty());
        assert!(parse_overrides("127.0.0.1").is_err());
        assert!(parse_overrides("127.0.0.1:many").is_err());
    }
}
