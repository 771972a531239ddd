//! The broker settings the native server reads, by Kafka's property names, from the map the
//! control plane resolves, through the generated table ([`crate::properties`]): names, bounds
//! and defaults are the control plane's, so this file has none of its own.

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use super::tls;
use crate::properties::{self, table::server, Props};

/// One of `listeners`: a name, where it binds, and its TLS when its security protocol is SSL.
#[derive(Debug, Clone)]
pub struct ListenerConfig {
    /// The listener name, upper case as Kafka has it (`PLAINTEXT`, `SSL`, `INTERNAL`, ...).
    pub name: String,
    pub host: String,
    /// 0 picks any free port.
    pub port: u16,
    /// None: PLAINTEXT or SASL_PLAINTEXT.
    pub tls: Option<tls::ListenerTls>,
    /// SASL_PLAINTEXT or SASL_SSL: a connection must authenticate before anything but
    /// ApiVersions and the SASL requests (the control plane checks the credentials).
    pub sasl: bool,
}

#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub node_id: i32,
    /// Every listener, in the order of `listeners`.
    pub listeners: Vec<ListenerConfig>,
    pub log_dirs: Vec<PathBuf>,
    pub max_connections: usize,
    /// `max.connections.per.ip`, and the addresses `max.connections.per.ip.overrides` names.
    pub max_connections_per_ip: usize,
    pub max_connections_per_ip_overrides: HashMap<IpAddr, usize>,
    /// `max.connection.creation.rate` (i32::MAX: none).
    pub max_connection_creation_rate: i32,
    pub idle_timeout: Duration,
    pub max_request_bytes: i32,
    /// `queued.max.request.bytes`: requests read and not handled yet (<= 0: no limit).
    pub queued_max_request_bytes: i64,
    /// `fetch.max.bytes`: the most record bytes of one Fetch response, below its own limit.
    pub fetch_max_bytes: i32,
    /// `sasl.server.max.receive.size`: the largest frame before authentication.
    pub sasl_max_receive_bytes: i32,
    /// `connection.failed.authentication.delay.ms`: a failed authentication's connection is
    /// closed only after this.
    pub failed_authentication_delay: Duration,
    pub io_threads: usize,
    pub checkpoint_interval: Duration,
    pub replica_fetch_max_bytes: i32,
    pub replica_fetch_response_max_bytes: i32,
    pub replica_fetch_wait_max: Duration,
    pub replica_fetch_min_bytes: i32,
    pub replica_fetch_backoff: Duration,
    pub replica_socket_timeout: Duration,
    /// `queued.max.requests`: capacity of the queue to the Python control plane.
    pub control_queue_size: usize,
    /// `num.recovery.threads.per.data.dir`: threads that open and close logs in bulk.
    pub recovery_threads_per_dir: usize,
    /// Idle producers' state is forgotten after this (see `LogManager::tick`).
    pub producer_id_expiration_ms: i64,
    /// `replica.alter.log.dirs.io.max.bytes.per.second` (None: no limit).
    pub alter_log_dirs_rate: Option<i64>,
    /// `max.incremental.fetch.session.cache.slots`: at most this many fetch sessions.
    pub fetch_session_slots: usize,
    /// `transaction.partition.verification.enable`: the first batch of a transaction on a
    /// partition waits for the coordinator to confirm the partition is in it (KIP-890).
    pub transaction_verification: bool,
    /// `quota.window.num` and `quota.window.size.seconds`: the client quotas' windows.
    pub quota_window: crate::quota::WindowConfig,
    /// `authorizer.class.name`, `super.users` and `allow.everyone.if.no.acl.found`.
    pub authorizer: crate::acl::AuthorizerConfig,
    /// How the replica fetchers connect to other brokers: `inter.broker.listener.name` (the
    /// control plane resolves Kafka's rule for it) and that listener's security.
    pub inter_broker: crate::client::InterBrokerSecurity,
}

/// Splits `listeners` (`NAME://host:port`, comma separated) into (name, host, port) each.
pub fn parse_listeners(listeners: &str) -> Result<Vec<(String, String, u16)>, String> {
    let mut out = Vec::new();
    for item in listeners
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let (name, rest) = item
            .split_once("://")
            .ok_or_else(|| format!("invalid listener: {item:?}"))?;
        let (host, port) = rest
            .rsplit_once(':')
            .ok_or_else(|| format!("invalid listener: {item:?}"))?;
        let port = port
            .parse()
            .map_err(|_| format!("invalid listener port: {item:?}"))?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let host = if host.is_empty() { "0.0.0.0" } else { host };
        out.push((name.to_ascii_uppercase(), host.to_string(), port));
    }
    if out.is_empty() {
        return Err("listeners is empty".into());
    }
    Ok(out)
}

/// `listener.security.protocol.map`: the security protocol of listener `name`.
fn security_protocol<'a>(map: &'a str, name: &str) -> Result<&'a str, String> {
    map.split(',')
        .filter_map(|entry| entry.trim().split_once(':'))
        .find(|(listener, _)| listener.trim().eq_ignore_ascii_case(name))
        .map(|(_, protocol)| protocol.trim())
        .ok_or_else(|| {
            format!("listener {name} has no security protocol in listener.security.protocol.map")
        })
}

fn read_listeners(p: &mut Props<'_>) -> Result<Vec<ListenerConfig>, String> {
    let parsed = parse_listeners(p.text(&server::LISTENERS)?)?;
    let map = p.text(&server::LISTENER_SECURITY_PROTOCOL_MAP)?;
    tls::read_base(p)?;
    let mut listeners = Vec::new();
    for (name, host, port) in parsed {
        let protocol = security_protocol(map, &name)?.to_ascii_uppercase();
        let tls = match protocol.as_str() {
            "PLAINTEXT" | "SASL_PLAINTEXT" => None,
            "SSL" | "SASL_SSL" => Some(tls::listener_tls(p, &name)?),
            other => {
                return Err(format!(
                    "listener {name}: security protocol {other} is not supported"
                ))
            }
        };
        listeners.push(ListenerConfig {
            name,
            host,
            port,
            tls,
            sasl: protocol.starts_with("SASL_"),
        });
    }
    Ok(listeners)
}

/// The inter-broker listener (the first listener when unset, as a single broker needs none)
/// and its security.
fn read_inter_broker(
    p: &mut Props<'_>,
    listeners: &[ListenerConfig],
) -> Result<crate::client::InterBrokerSecurity, String> {
    let name = match p.optional_text(&server::INTER_BROKER_LISTENER_NAME)? {
        Some(name) => name.to_ascii_uppercase(),
        None => listeners[0].name.clone(),
    };
    if !listeners.iter().any(|l| l.name == name) {
        return Err(format!(
            "inter.broker.listener.name {name} is not one of the listeners"
        ));
    }
    let map = p.text(&server::LISTENER_SECURITY_PROTOCOL_MAP)?;
    crate::client::InterBrokerSecurity::read(p, &name, security_protocol(map, &name)?)
}

impl ServerConfig {
    /// Parses the broker's resolved config: every property this reads must be there, with a
    /// value within the table's bounds, and nothing else.
    pub fn from_map(map: &HashMap<String, String>) -> Result<ServerConfig, String> {
        properties::parse(map, Self::read)
    }

    /// The broker properties [`ServerConfig::from_map`] reads.
    pub fn property_names() -> Result<Vec<&'static str>, String> {
        properties::names_read(server::ALL, Self::read)
    }

    fn read(p: &mut Props<'_>) -> Result<ServerConfig, String> {
        let listeners = read_listeners(p)?;
        let inter_broker = read_inter_broker(p, &listeners)?;
        let log_dirs: Vec<PathBuf> = p
            .list(&server::LOG_DIRS)?
            .into_iter()
            .map(PathBuf::from)
            .collect();
        if log_dirs.is_empty() {
            return Err("log.dirs is empty".into());
        }
        // Kafka's longs: a negative idle timeout means connections are never reaped.
        let idle_ms: i64 = p.integer(&server::CONNECTIONS_MAX_IDLE_MS)?;
        let idle_ms = u64::try_from(idle_ms).unwrap_or(u64::MAX / 4);
        let millis = |p: &mut Props<'_>, property| -> Result<Duration, String> {
            Ok(Duration::from_millis(p.integer(property)?))
        };
        let max_connections_per_ip: usize = p.integer(&server::MAX_CONNECTIONS_PER_IP)?;
        let max_connections_per_ip_overrides = super::connection_limits::parse_overrides(
            p.text(&server::MAX_CONNECTIONS_PER_IP_OVERRIDES)?,
        )?;
        if max_connections_per_ip == 0 && max_connections_per_ip_overrides.is_empty() {
            // Kafka's check: nobody could connect at all.
            return Err(
                "requirement failed: max.connections.per.ip can be set to zero only if \
                 max.connections.per.ip.overrides property is set."
                    .into(),
            );
        }
        Ok(ServerConfig {
            node_id: p.integer(&server::NODE_ID)?,
            listeners,
            log_dirs,
            max_connections: p.integer(&server::MAX_CONNECTIONS)?,
            max_connections_per_ip,
            max_connections_per_ip_overrides,
            max_connection_creation_rate: p.integer(&server::MAX_CONNECTION_CREATION_RATE)?,
            idle_timeout: Duration::from_millis(idle_ms),
            max_request_bytes: p.integer(&server::SOCKET_REQUEST_MAX_BYTES)?,
            fetch_max_bytes: p.integer(&server::FETCH_MAX_BYTES)?,
            queued_max_request_bytes: p.integer(&server::QUEUED_MAX_REQUEST_BYTES)?,
            sasl_max_receive_bytes: p.integer(&server::SASL_SERVER_MAX_RECEIVE_SIZE)?,
            failed_authentication_delay: millis(
                p,
                &server::CONNECTION_FAILED_AUTHENTICATION_DELAY_MS,
            )?,
            io_threads: p.integer(&server::NUM_IO_THREADS)?,
            // The table allows 0; a tokio interval cannot tick that fast.
            checkpoint_interval: millis(p, &server::LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS)?
                .max(Duration::from_millis(1)),
            replica_fetch_max_bytes: p.integer(&server::REPLICA_FETCH_MAX_BYTES)?,
            replica_fetch_response_max_bytes: p
                .integer(&server::REPLICA_FETCH_RESPONSE_MAX_BYTES)?,
            replica_fetch_wait_max: millis(p, &server::REPLICA_FETCH_WAIT_MAX_MS)?,
            replica_fetch_min_bytes: p.integer(&server::REPLICA_FETCH_MIN_BYTES)?,
            replica_fetch_backoff: millis(p, &server::REPLICA_FETCH_BACKOFF_MS)?,
            replica_socket_timeout: millis(p, &server::REPLICA_SOCKET_TIMEOUT_MS)?,
            control_queue_size: p.integer(&server::QUEUED_MAX_REQUESTS)?,
            recovery_threads_per_dir: p.integer(&server::NUM_RECOVERY_THREADS_PER_DATA_DIR)?,
            producer_id_expiration_ms: p.integer(&server::PRODUCER_ID_EXPIRATION_MS)?,
            alter_log_dirs_rate: p
                .optional_integer(&server::REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND)?,
            fetch_session_slots: p.integer(&server::MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS)?,
            transaction_verification: p
                .boolean(&server::TRANSACTION_PARTITION_VERIFICATION_ENABLE)?,
            quota_window: crate::quota::WindowConfig {
                samples: p.integer(&server::QUOTA_WINDOW_NUM)?,
                window_ms: p.integer::<i64>(&server::QUOTA_WINDOW_SIZE_SECONDS)? * 1000,
            },
            authorizer: crate::acl::AuthorizerConfig::parse(
                p.text(&server::AUTHORIZER_CLASS_NAME)?,
                p.optional_text(&server::SUPER_USERS)?,
                p.boolean(&server::ALLOW_EVERYONE_IF_NO_ACL_FOUND)?,
            )?,
            inter_broker,
        })
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
            security: self.inter_broker.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_listeners_and_numbers() {
        assert_eq!(
            parse_listeners("PLAINTEXT://127.0.0.1:0").unwrap(),
            vec![("PLAINTEXT".into(), "127.0.0.1".into(), 0)]
        );
        assert_eq!(
            parse_listeners("PLAINTEXT://:9092, internal://[::1]:9093").unwrap(),
            vec![
                ("PLAINTEXT".into(), "0.0.0.0".into(), 9092),
                ("INTERNAL".into(), "::1".into(), 9093)
            ]
        );
        assert!(parse_listeners("127.0.0.1:9092").is_err());
        assert_eq!(
            security_protocol("PLAINTEXT:PLAINTEXT,INTERNAL:SSL", "internal").unwrap(),
            "SSL"
        );
        assert!(security_protocol("PLAINTEXT:PLAINTEXT", "OTHER").is_err());
        let map = properties::with_defaults(
            server::ALL,
            &[
                ("node.id", "3"),
                ("log.dirs", "/a, /b"),
                ("num.io.threads", "4"),
                ("connections.max.idle.ms", "1000"),
            ],
        );
        let c = ServerConfig::from_map(&map).unwrap();
        assert_eq!(c.node_id, 3);
        assert_eq!(c.log_dirs, vec![PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(c.io_threads, 4);
        assert_eq!(c.idle_timeout, Duration::from_secs(1));
        let bad = properties::with_defaults(server::ALL, &[("max.connections", "many")]);
        assert!(ServerConfig::from_map(&bad)
            .unwrap_err()
            .contains("max.connections"));
        // As Kafka: a per-address limit of 0 leaves only the overrides' hosts.
        let nobody = properties::with_defaults(server::ALL, &[("max.connections.per.ip", "0")]);
        assert!(ServerConfig::from_map(&nobody)
            .unwrap_err()
            .contains("can be set to zero only if max.connections.per.ip.overrides"));
        let some = properties::with_defaults(
            server::ALL,
            &[
                ("max.connections.per.ip", "0"),
                ("max.connections.per.ip.overrides", "10.0.0.1:5"),
            ],
        );
        let c = ServerConfig::from_map(&some).unwrap();
        assert_eq!(c.max_connections_per_ip_overrides.len(), 1);
    }

    #[test]
    fn the_tables_defaults_are_kafkas() {
        let c = ServerConfig::from_map(&properties::defaults(server::ALL)).unwrap();
        assert_eq!(c.io_threads, 8);
        assert_eq!(c.control_queue_size, 500);
        assert_eq!(c.log_dirs, vec![PathBuf::from("./ferrolog-data")]);
        assert_eq!(c.producer_id_expiration_ms, 86_400_000);
    }

    #[test]
    fn every_property_is_required_and_no_other_is_accepted() {
        let mut missing = properties::defaults(server::ALL);
        missing.remove("num.io.threads");
        let err = ServerConfig::from_map(&missing).unwrap_err();
        assert!(err.contains("num.io.threads is missing"), "{err}");
        let extra =
            properties::with_defaults(server::ALL, &[("log.retention.check.interval.ms", "1")]);
        let err = ServerConfig::from_map(&extra).unwrap_err();
        assert!(err.contains("log.retention.check.interval.ms"), "{err}");
    }

    #[test]
    fn bounds_come_from_the_table() {
        for (key, value) in [
            ("num.io.threads", "0"),
            ("queued.max.requests", "0"),
            ("node.id", "-1"),
            ("socket.request.max.bytes", "2147483648"),
        ] {
            let map = properties::with_defaults(server::ALL, &[(key, value)]);
            let err = ServerConfig::from_map(&map).unwrap_err();
            assert!(err.contains(key), "{key}={value}: {err}");
        }
        let never = properties::with_defaults(server::ALL, &[("connections.max.idle.ms", "-1")]);
        assert!(
            ServerConfig::from_map(&never).unwrap().idle_timeout > Duration::from_secs(1 << 40)
        );
    }

    #[test]
    fn names_read_are_the_tables() {
        let mut names = ServerConfig::property_names().unwrap();
        names.sort_unstable();
        assert_eq!(names, properties::sorted_names(server::ALL));
    }
}
