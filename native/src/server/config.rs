//! The broker settings the native server reads, by Kafka's property names (string values,
//! already resolved by the Python config table).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub node_id: i32,
    pub host: String,
    /// 0 picks any free port.
    pub port: u16,
    pub log_dirs: Vec<PathBuf>,
    pub max_connections: usize,
    pub idle_timeout: Duration,
    pub max_request_bytes: i32,
    pub io_threads: usize,
    pub checkpoint_interval: Duration,
    pub replica_fetch_max_bytes: i32,
    pub replica_fetch_response_max_bytes: i32,
    pub replica_fetch_wait_max: Duration,
    pub replica_fetch_min_bytes: i32,
    pub replica_fetch_backoff: Duration,
    pub replica_socket_timeout: Duration,
    pub control_queue_size: usize,
    /// `max.incremental.fetch.session.cache.slots`: at most this many fetch sessions.
    pub fetch_session_slots: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            node_id: 0,
            host: "127.0.0.1".into(),
            port: 9092,
            log_dirs: vec![PathBuf::from("/tmp/ferrolog-logs")],
            max_connections: usize::MAX,
            idle_timeout: Duration::from_millis(600_000),
            max_request_bytes: 104_857_600,
            io_threads: 2,
            checkpoint_interval: Duration::from_millis(60_000),
            replica_fetch_max_bytes: 1_048_576,
            replica_fetch_response_max_bytes: 10_485_760,
            replica_fetch_wait_max: Duration::from_millis(500),
            replica_fetch_min_bytes: 1,
            replica_fetch_backoff: Duration::from_millis(1000),
            replica_socket_timeout: Duration::from_millis(30_000),
            control_queue_size: 512,
            fetch_session_slots: 1000,
        }
    }
}

fn num<T: std::str::FromStr>(
    map: &HashMap<String, String>,
    key: &str,
    default: T,
) -> Result<T, String> {
    match map.get(key) {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("invalid value for {key}: {v:?}")),
    }
}

/// Splits `PLAINTEXT://host:port` (the first listener if several are given).
pub fn parse_listener(listeners: &str) -> Result<(String, u16), String> {
    let first = listeners.split(',').next().unwrap_or("").trim();
    let rest = first
        .split_once("://")
        .map(|(_, r)| r)
        .ok_or_else(|| format!("invalid listeners: {listeners:?}"))?;
    let (host, port) = rest
        .rsplit_once(':')
        .ok_or_else(|| format!("invalid listeners: {listeners:?}"))?;
    let port = port
        .parse()
        .map_err(|_| format!("invalid listener port: {listeners:?}"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let host = if host.is_empty() { "0.0.0.0" } else { host };
    Ok((host.to_string(), port))
}

impl ServerConfig {
    pub fn from_map(map: &HashMap<String, String>) -> Result<ServerConfig, String> {
        let d = ServerConfig::default();
        let (host, port) = match map.get("listeners") {
            Some(l) => parse_listener(l)?,
            None => (d.host.clone(), d.port),
        };
        let log_dirs = match map.get("log.dirs").or_else(|| map.get("log.dir")) {
            Some(dirs) => dirs
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
                .collect(),
            None => d.log_dirs.clone(),
        };
        let max_connections: i64 = num(map, "max.connections", i64::from(i32::MAX))?;
        // Kafka's longs: a negative idle timeout means connections are never reaped.
        let idle_ms: i64 = num(map, "connections.max.idle.ms", 600_000)?;
        let idle_ms = u64::try_from(idle_ms).unwrap_or(u64::MAX / 4);
        let checkpoint_ms: u64 = num(map, "log.flush.offset.checkpoint.interval.ms", 60_000)?;
        let millis = |key: &str, default: u64| -> Result<Duration, String> {
            Ok(Duration::from_millis(num(map, key, default)?))
        };
        let config = ServerConfig {
            node_id: num(map, "node.id", num(map, "broker.id", d.node_id)?)?,
            host,
            port,
            log_dirs,
            max_connections: max_connections.max(0) as usize,
            idle_timeout: Duration::from_millis(idle_ms),
            max_request_bytes: num(map, "socket.request.max.bytes", d.max_request_bytes)?,
            io_threads: num(map, "num.io.threads", d.io_threads)?.max(1),
            checkpoint_interval: Duration::from_millis(checkpoint_ms.max(1)),
            replica_fetch_max_bytes: num(
                map,
                "replica.fetch.max.bytes",
                d.replica_fetch_max_bytes,
            )?,
            replica_fetch_response_max_bytes: num(
                map,
                "replica.fetch.response.max.bytes",
                d.replica_fetch_response_max_bytes,
            )?,
            replica_fetch_wait_max: millis("replica.fetch.wait.max.ms", 500)?,
            replica_fetch_min_bytes: num(map, "replica.fetch.min.bytes", 1)?,
            replica_fetch_backoff: millis("replica.fetch.backoff.ms", 1000)?,
            replica_socket_timeout: millis("replica.socket.timeout.ms", 30_000)?,
            control_queue_size: num(map, "control.queue.size", d.control_queue_size)?.max(1),
            fetch_session_slots: num(
                map,
                "max.incremental.fetch.session.cache.slots",
                d.fetch_session_slots,
            )?,
        };
        if config.log_dirs.is_empty() {
            return Err("log.dirs is empty".into());
        }
        Ok(config)
    }

    /// The settings the replica fetchers use.
    pub fn fetcher_config(&self) -> crate::replica::fetcher::FetcherConfig {
        crate::replica::fetcher::FetcherConfig {
            node_id: self.node_id,
            max_bytes: self.replica_fetch_max_bytes,
            response_max_bytes: self.replica_fetch_response_max_bytes,
            wait_max: self.replica_fetch_wait_max,
            min_bytes: self.replica_fetch_min_bytes,
            backoff: self.replica_fetch_backoff,
            socket_timeout: self.replica_socket_timeout,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_listeners_and_numbers() {
        assert_eq!(
            parse_listener("PLAINTEXT://127.0.0.1:0").unwrap(),
            ("127.0.0.1".into(), 0)
        );
        assert_eq!(
            parse_listener("PLAINTEXT://:9092").unwrap(),
            ("0.0.0.0".into(), 9092)
        );
        assert!(parse_listener("127.0.0.1:9092").is_err());
        let map: HashMap<String, String> = [
            ("node.id", "3"),
            ("log.dirs", "/a, /b"),
            ("num.io.threads", "4"),
            ("connections.max.idle.ms", "1000"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let c = ServerConfig::from_map(&map).unwrap();
        assert_eq!(c.node_id, 3);
        assert_eq!(c.log_dirs, vec![PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(c.io_threads, 4);
        assert_eq!(c.idle_timeout, Duration::from_secs(1));
        let bad: HashMap<String, String> = [("max.connections".to_string(), "many".to_string())]
            .into_iter()
            .collect();
        assert!(ServerConfig::from_map(&bad)
            .unwrap_err()
            .contains("max.connections"));
    }
}
