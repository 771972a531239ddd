//! The native broker server: a tokio runtime it owns, the listener, one task per connection,
//! the periodic log tasks, the replica fetchers (`crate::replica::fetcher`), and the partition
//! commands the control plane calls (`commands`, and `replication` for roles and the ISR).
//! Fetch sessions (KIP-227) live in `fetch_session`.

pub mod api;
pub mod commands;
pub mod completions;
pub mod config;
mod connection;
mod connection_limits;
pub mod fetch_session;
pub mod leader_hints;
pub mod replication;
pub mod request_log;
pub mod request_memory;
mod sendfile;
pub mod tls;
mod transport;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use tokio::net::TcpListener;
use tokio::runtime::{Handle, Runtime};
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

use crate::acl::Authorizer;
use crate::control::ControlBridge;
use crate::log::{now_ms, LogManager};
use crate::metrics::RequestMetrics;
use crate::quota::ClientQuotaManager;
use crate::replica::fetcher::FetcherManager;
use crate::replica::Registry;
use crate::server::fetch_session::{FetchSessionCache, EVICTION_MS};
use crate::server::request_log::RequestLog;
use crate::tls::principal;
use completions::Completions;
use connection_limits::{ConnectionLimits, Refusal};
use leader_hints::LiveBrokers;
use request_memory::RequestMemory;

pub use crate::replica::PartitionState;
pub use commands::{CommandError, MarkerRequest, OpenRequest, RoleRequest};
pub use config::{ListenerConfig, ServerConfig};
pub use replication::ReplicaState;

/// What every connection and command shares.
#[derive(Debug)]
pub struct Broker {
    pub config: ServerConfig,
    pub logs: Arc<LogManager>,
    pub partitions: Registry,
    /// The replica fetchers of the partitions this broker follows.
    pub fetchers: FetcherManager,
    /// The fetch sessions of consumers and followers fetching from here (KIP-227).
    pub fetch_sessions: Mutex<FetchSessionCache>,
    /// Share groups' share-partitions led here and their members' sessions (KIP-932).
    pub share: crate::share::ShareManager,
    pub control: Arc<ControlBridge>,
    /// The outcomes of the control plane's commands that finish on the runtime.
    pub completions: Arc<Completions>,
    /// Requests, latency and errors per API, for `/metrics`.
    pub requests: RequestMetrics,
    /// Refused and failed requests, rate-limited, for the broker's log.
    pub request_log: RequestLog,
    /// Client quotas: the configuration the control plane pushed and the meters.
    pub quotas: ClientQuotaManager,
    /// The ACLs the control plane pushed, checked by the natively served APIs.
    pub authorizer: Authorizer,
    /// The live brokers' endpoints the control plane pushed, for KIP-951's leader hints.
    pub live_brokers: LiveBrokers,
    /// `queued.max.request.bytes`: the memory of requests read and not yet handled.
    pub request_memory: Arc<RequestMemory>,
    connections: ConnectionLimits,
    next_connection_id: AtomicU64,
    /// Flips to true once: the listener and every connection stop.
    shutdown: watch::Sender<bool>,
}

impl Broker {
    pub fn open_connections(&self) -> usize {
        self.connections.open()
    }

    pub fn is_shutting_down(&self) -> bool {
        *self.shutdown.borrow()
    }
}

#[derive(Debug)]
pub struct Server {
    broker: Arc<Broker>,
    runtime: Mutex<Option<Runtime>>,
    handle: Handle,
    /// Each listener's name and bound port, once started.
    ports: Mutex<Option<Vec<(String, u16)>>>,
    stopped: AtomicBool,
}

impl Server {
    /// Parses the config, opens the log directories and starts the runtime and the periodic
    /// tasks; it does not listen until [`Server::start`].
    pub fn new(config: &HashMap<String, String>) -> Result<Server, CommandError> {
        Self::with_inter_broker_sasl(config, None)
    }

    /// [`Server::new`], with the broker's own SASL credentials towards other brokers (its
    /// inter-broker listener is SASL_PLAINTEXT or SASL_SSL).
    pub fn with_inter_broker_sasl(
        config: &HashMap<String, String>,
        sasl: Option<crate::client::SaslCredentials>,
    ) -> Result<Server, CommandError> {
        let mut config = ServerConfig::from_map(config).map_err(CommandError::Config)?;
        config
            .inter_broker
            .set_sasl(sasl)
            .map_err(CommandError::Config)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(config.io_threads)
            .thread_name("ferrolog-io")
            .enable_all()
            .build()?;
        let logs = Arc::new(LogManager::new(config.log_dirs.clone())?);
        logs.set_threads_per_dir(config.recovery_threads_per_dir);
        logs.set_producer_id_expiration_ms(config.producer_id_expiration_ms);
        logs.set_alter_log_dirs_rate(config.alter_log_dirs_rate);
        logs.start_mover();
        let control = ControlBridge::new(config.control_queue_size)?;
        let handle = runtime.handle().clone();
        let shutdown = watch::channel(false).0;
        let fetchers = FetcherManager::new(
            config.fetcher_config(),
            handle.clone(),
            shutdown.subscribe(),
        );
        // Session ids only need to be hard to collide with a stale one, not secret.
        let seed = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let fetch_sessions = Mutex::new(FetchSessionCache::new(
            config.fetch_session_slots,
            EVICTION_MS,
            seed,
        ));
        let quotas = ClientQuotaManager::new(config.quota_window);
        let authorizer = Authorizer::new(config.authorizer.clone());
        let connections = ConnectionLimits::new(
            config.max_connections,
            config.max_connections_per_ip,
            config.max_connections_per_ip_overrides.clone(),
        )
        .with_creation_rate(config.max_connection_creation_rate, config.quota_window);
        let queued_max_request_bytes = config.queued_max_request_bytes;
        let broker = Arc::new(Broker {
            config,
            quotas,
            authorizer,
            live_brokers: LiveBrokers::default(),
            request_memory: RequestMemory::new(queued_max_request_bytes),
            logs,
            partitions: Registry::new(),
            fetchers,
            fetch_sessions,
            share: crate::share::ShareManager::new(),
            control,
            completions: Arc::new(Completions::new()?),
            requests: RequestMetrics::default(),
            request_log: RequestLog::default(),
            connections,
            next_connection_id: AtomicU64::new(1),
            shutdown,
        });
        handle.spawn(periodic_tasks(Arc::clone(&broker)));
        handle.spawn(api::sweep_share_locks(Arc::clone(&broker)));
        Ok(Server {
            broker,
            runtime: Mutex::new(Some(runtime)),
            handle,
            ports: Mutex::new(None),
            stopped: AtomicBool::new(false),
        })
    }

    pub fn broker(&self) -> &Arc<Broker> {
        &self.broker
    }

    /// Binds every listener and starts accepting; returns the first listener's bound port.
    /// Either every listener is bound or none is accepting.
    pub fn start(&self) -> std::io::Result<u16> {
        let mut ports = self.ports.lock();
        if let Some(bound) = &*ports {
            return Ok(bound[0].1);
        }
        if self.stopped.load(Ordering::Acquire) {
            return Err(std::io::Error::other("server is shut down"));
        }
        let mut bound = Vec::new();
        for config in &self.broker.config.listeners {
            let host = &config.host;
            let addr = if host.contains(':') {
                format!("[{host}]:{}", config.port)
            } else {
                format!("{host}:{}", config.port)
            };
            let listener = self
                .handle
                .block_on(TcpListener::bind(&addr))
                .map_err(|e| {
                    std::io::Error::new(e.kind(), format!("listener {} ({addr}): {e}", config.name))
                })?;
            bound.push((config.clone(), listener));
        }
        let mut names = Vec::new();
        for (config, listener) in bound {
            names.push((config.name.clone(), listener.local_addr()?.port()));
            self.handle
                .spawn(accept_loop(Arc::clone(&self.broker), listener, config));
        }
        let first = names[0].1;
        *ports = Some(names);
        Ok(first)
    }

    /// The first listener's bound port.
    pub fn port(&self) -> Option<u16> {
        self.ports.lock().as_ref().map(|bound| bound[0].1)
    }

    /// Each listener's name and bound port, in the order of `listeners`.
    pub fn ports(&self) -> Option<Vec<(String, u16)>> {
        self.ports.lock().clone()
    }

    /// Runs `fut` on the server's runtime from a thread outside it (the Python thread, with the
    /// GIL released).
    pub fn block_on<F: std::future::Future>(&self, fut: F) -> F::Output {
        self.handle.block_on(fut)
    }

    /// Stops accepting, closes connections, then closes every log. Idempotent.
    pub fn shutdown(&self) -> std::io::Result<()> {
        if self.stopped.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        self.broker.shutdown.send_replace(true);
        self.broker.fetchers.stop_all();
        // Give connection tasks a moment to see the signal and drop their sockets.
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        while self.broker.open_connections() > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        // Stop the runtime first so no maintenance tick is still running against the logs
        // while they close.
        if let Some(rt) = self.runtime.lock().take() {
            rt.shutdown_timeout(Duration::from_secs(2));
        }
        self.broker.logs.shutdown()
    }

    /// Commands after `shutdown` fail instead of touching closed logs or a stopped runtime.
    pub(crate) fn ensure_running(&self) -> std::io::Result<()> {
        if self.stopped.load(Ordering::Acquire) {
            return Err(std::io::Error::other("server is shut down"));
        }
        Ok(())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if !self.stopped.load(Ordering::Acquire) {
            let _ = self.shutdown();
        }
    }
}

async fn accept_loop(broker: Arc<Broker>, listener: TcpListener, config: ListenerConfig) {
    let name: Arc<str> = config.name.as_str().into();
    let sasl = config.sasl;
    let acceptor = config.tls.map(|listener| {
        (
            TlsAcceptor::from(listener.config),
            listener.principal_mapper,
        )
    });
    let anonymous: Arc<str> = principal::ANONYMOUS_PRINCIPAL.into();
    // Kafka's protected listener: the inter-broker one, when there are others, is not held
    // to the broker-wide creation rate.
    let protected =
        broker.config.listeners.len() > 1 && broker.config.inter_broker.listener == config.name;
    let mut shutdown = broker.shutdown.subscribe();
    loop {
        let accepted = tokio::select! {
            _ = stopped(&mut shutdown) => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                // EMFILE and friends: back off rather than spin.
                log::warn!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if !protected {
            let delay = broker.connections.creation_delay(now_ms());
            if !delay.is_zero() {
                tokio::select! {
                    _ = stopped(&mut shutdown) => break,
                    () = tokio::time::sleep(delay) => {}
                }
            }
        }
        match broker.connections.admit(peer.ip()) {
            Ok(()) => {}
            Err(Refusal::PerIp(limit)) => {
                log::info!(
                    "Rejected connection from {}, address already has the configured maximum \
                     of {limit} connections.",
                    peer.ip()
                );
                continue;
            }
            Err(Refusal::Total) => continue,
        }
        let guard = ConnectionSlot(Arc::clone(&broker), peer.ip());
        let id = broker.next_connection_id.fetch_add(1, Ordering::Relaxed);
        let _ = stream.set_nodelay(true);
        let mut who = connection::Peer {
            address: peer,
            listener: Arc::clone(&name),
            principal: Arc::clone(&anonymous),
            token_authenticated: false,
        };
        let Some((acceptor, principal_mapper)) = acceptor.clone() else {
            tokio::spawn(async move {
                connection::serve(&guard.0, stream, who, id, sasl).await;
                api::share_connection_closed(&guard.0, id);
                drop(guard);
            });
            continue;
        };
        tokio::spawn(async move {
            let broker = &guard.0;
            let mut shutdown = broker.shutdown.subscribe();
            // A client that never finishes its handshake (or speaks plaintext to this port)
            // loses the connection like an idle one.
            let handshake = tokio::time::timeout(
                broker.config.idle_timeout.min(TLS_HANDSHAKE_TIMEOUT),
                acceptor.accept(stream),
            );
            let stream = tokio::select! {
                _ = stopped(&mut shutdown) => return,
                accepted = handshake => match accepted {
                    Ok(Ok(stream)) => stream,
                    Ok(Err(e)) => {
                        log::debug!("TLS handshake with {peer} on {} failed: {e}", who.listener);
                        return;
                    }
                    Err(_) => return,
                },
            };
            // SASL_SSL's principal is the one SASL authenticates: Kafka maps certificates on
            // SSL listeners only.
            let subject = match stream.get_ref().1.peer_certificates() {
                Some([certificate, ..]) if !sasl => principal::subject_name(certificate),
                _ => None,
            };
            if let Some(subject) = subject {
                let Some(name) = principal_mapper.name(&subject) else {
                    // Kafka fails the authentication, which closes the connection.
                    log::info!(
                        "Failed authentication with {peer} on {}: no rule of \
                         ssl.principal.mapping.rules ({principal_mapper}) applies to {subject}",
                        who.listener
                    );
                    return;
                };
                who.principal = format!("User:{name}").into();
            }
            drop(shutdown);
            connection::serve(broker, stream, who, id, sasl).await;
            api::share_connection_closed(broker, id);
            drop(guard);
        });
    }
}

/// The longest a TLS handshake may take (the idle timeout, when shorter).
const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Frees the connection's slot however its task ends (even by a panic unwinding).
/// An admitted connection's place in the limits, given back when the connection ends.
struct ConnectionSlot(Arc<Broker>, IpAddr);

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.0.connections.release(self.1);
    }
}

/// Log maintenance off the I/O workers: `tick` about every second, checkpoints at their
/// interval. A panic in one run is contained in its blocking task.
async fn periodic_tasks(broker: Arc<Broker>) {
    let mut shutdown = broker.shutdown.subscribe();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut checkpoint = tokio::time::interval(broker.config.checkpoint_interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    checkpoint.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    checkpoint.tick().await;
    loop {
        tokio::select! {
            _ = stopped(&mut shutdown) => break,
            _ = tick.tick() => {
                let logs = Arc::clone(&broker.logs);
                match tokio::task::spawn_blocking(move || logs.tick(now_ms())).await {
                    Ok(Err(e)) => log::warn!("log maintenance failed: {e}"),
                    Err(e) => log::error!("log maintenance panicked: {e}"),
                    Ok(Ok(_)) => {}
                }
            }
            _ = checkpoint.tick() => {
                let logs = Arc::clone(&broker.logs);
                match tokio::task::spawn_blocking(move || logs.checkpoint()).await {
                    Ok(Err(e)) => log::warn!("checkpoint failed: {e}"),
                    Err(e) => log::error!("checkpoint panicked: {e}"),
                    Ok(Ok(())) => {}
                }
            }
        }
    }
}

/// Resolves once the shutdown flag is set.
pub(crate) async fn stopped(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|stop| *stop).await;
}

#[cfg(test)]
mod tests;
