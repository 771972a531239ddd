//! Replica fetchers: one tokio task per leader broker (as Kafka's ReplicaFetcherThread) serving
//! every local partition that follows that leader. A partition joining a fetcher first
//! truncates its log by epoch (OffsetForLeaderEpoch, KIP-101/279), then fetches with ordinary
//! Fetch requests (replica id = our node id) and appends what it gets byte for byte. Each task
//! keeps an incremental fetch session (KIP-227) with its leader, so idle partitions cost the
//! leader and the wire next to nothing.
//!
//! The control plane moves partitions between fetchers (`become_follower`, `become_leader`);
//! the task picks changes up at its next round. Every write a task makes names the leader
//! epoch it fetched for, and the partition refuses it once that epoch is over, so a response
//! in flight from a former leader is dropped rather than appended.

mod session;
mod task;
pub mod truncation;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::runtime::Handle;
use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::{Partition, Role};

/// The replica.* broker settings the fetchers use.
#[derive(Debug, Clone)]
pub struct FetcherConfig {
    pub node_id: i32,
    /// `replica.fetch.max.bytes`: per partition.
    pub max_bytes: i32,
    /// `replica.fetch.response.max.bytes`: per request.
    pub response_max_bytes: i32,
    /// `replica.fetch.wait.max.ms`: the long poll on the leader.
    pub wait_max: Duration,
    /// `replica.fetch.min.bytes`.
    pub min_bytes: i32,
    /// `replica.fetch.backoff.ms`: after an error, before retrying a partition or reconnecting.
    pub backoff: Duration,
    /// `replica.socket.timeout.ms`: connect, and answer beyond the long poll.
    pub socket_timeout: Duration,
    /// The inter-broker listener's security (TLS, SASL) the fetchers connect with.
    pub security: crate::client::InterBrokerSecurity,
}

impl Default for FetcherConfig {
    fn default() -> Self {
        FetcherConfig {
            node_id: 0,
            max_bytes: 1_048_576,
            response_max_bytes: 10_485_760,
            wait_max: Duration::from_millis(500),
            min_bytes: 1,
            backoff: Duration::from_millis(1000),
            socket_timeout: Duration::from_millis(30_000),
            security: crate::client::InterBrokerSecurity::default(),
        }
    }
}

/// What a partition's fetcher does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Ask the leader where our log may diverge from its log, truncate there.
    Truncating(Ask),
    /// Fetch from our log end offset.
    Fetching,
}

/// Which epoch a truncation round asks the leader about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// Our latest epoch: where does it end in the leader's log?
    LatestEpoch,
    /// The leader's own epoch: its log end offset, after it called our fetch offset out of
    /// range (our log is longer than the leader's).
    LeaderEnd,
}

type Key = (String, i32);

#[derive(Debug, Clone)]
struct Entry {
    partition: Arc<Partition>,
    /// The leader epoch this partition follows at.
    epoch: i32,
    phase: Phase,
    /// Backing off after an error until then.
    retry_at: Option<Instant>,
}

/// The partitions of one fetcher, shared between the manager and the task.
#[derive(Debug, Default)]
struct Shared {
    partitions: Mutex<HashMap<Key, Entry>>,
    changed: Notify,
}

/// The partitions ready for each kind of round, and when the next backed-off one is due.
struct Ready {
    truncating: Vec<(Key, Entry)>,
    fetching: Vec<(Key, Entry)>,
    next_retry: Option<Instant>,
}

impl Shared {
    fn ready(&self, now: Instant) -> Ready {
        let mut ready = Ready {
            truncating: Vec::new(),
            fetching: Vec::new(),
            next_retry: None,
        };
        for (key, entry) in self.partitions.lock().iter() {
            if let Some(at) = entry.retry_at.filter(|at| *at > now) {
                ready.next_retry = Some(ready.next_retry.map_or(at, |n| n.min(at)));
                continue;
            }
            let item = (key.clone(), entry.clone());
            match entry.phase {
                Phase::Truncating(_) => ready.truncating.push(item),
                Phase::Fetching => ready.fetching.push(item),
            }
        }
        ready
    }

    /// Changes the entry for `key` if it still follows at `epoch` (the manager may have
    /// replaced or removed it meanwhile).
    fn update(&self, key: &Key, epoch: i32, f: impl FnOnce(&mut Entry)) {
        if let Some(entry) = self.partitions.lock().get_mut(key) {
            if entry.epoch == epoch {
                f(entry);
            }
        }
    }

    fn set_phase(&self, key: &Key, epoch: i32, phase: Phase) {
        self.update(key, epoch, |e| {
            e.phase = phase;
            e.retry_at = None;
        });
    }

    fn retry_later(&self, key: &Key, epoch: i32, backoff: Duration) {
        self.update(key, epoch, |e| e.retry_at = Some(Instant::now() + backoff));
    }

    /// Whether `key` still follows at `epoch` in `phase`.
    fn is(&self, key: &Key, epoch: i32, phase: Phase) -> bool {
        self.partitions
            .lock()
            .get(key)
            .is_some_and(|e| e.epoch == epoch && e.phase == phase)
    }
}

#[derive(Debug)]
struct Fetcher {
    host: String,
    port: u16,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

/// Every fetcher of the broker, by leader id.
#[derive(Debug)]
pub struct FetcherManager {
    config: FetcherConfig,
    runtime: Handle,
    shutdown: watch::Receiver<bool>,
    fetchers: Mutex<HashMap<i32, Fetcher>>,
}

impl FetcherManager {
    pub fn new(config: FetcherConfig, runtime: Handle, shutdown: watch::Receiver<bool>) -> Self {
        FetcherManager {
            config,
            runtime,
            shutdown,
            fetchers: Mutex::new(HashMap::new()),
        }
    }

    /// Makes `partition` fetch from `leader_id` at `host:port` for `epoch`, starting with a
    /// truncation round; it leaves whatever fetcher served it before.
    pub fn add(
        &self,
        leader_id: i32,
        host: &str,
        port: u16,
        partition: Arc<Partition>,
        epoch: i32,
    ) {
        let key = (partition.topic().to_string(), partition.index());
        let mut fetchers = self.fetchers.lock();
        // Checked under the lock that `remove` also takes: a concurrent newer command (a
        // later epoch, or leadership) must not be undone by this one arriving last.
        if partition.role() != Role::Follower || partition.leader_epoch() != epoch {
            return;
        }
        for f in fetchers.values() {
            f.shared.partitions.lock().remove(&key);
        }
        let moved = fetchers
            .get(&leader_id)
            .is_some_and(|f| f.host != host || f.port != port);
        let mut carried = HashMap::new();
        if moved {
            // The leader broker moved: its partitions follow it to the new address, and start
            // over with truncation since their connection is new.
            let old = fetchers.remove(&leader_id).expect("checked");
            old.task.abort();
            carried = std::mem::take(&mut *old.shared.partitions.lock());
            for entry in carried.values_mut() {
                entry.phase = Phase::Truncating(Ask::LatestEpoch);
                entry.retry_at = None;
            }
        }
        let fetcher = fetchers
            .entry(leader_id)
            .or_insert_with(|| self.spawn(leader_id, host, port));
        {
            let mut partitions = fetcher.shared.partitions.lock();
            partitions.extend(carried);
            partitions.insert(
                key,
                Entry {
                    partition,
                    epoch,
                    phase: Phase::Truncating(Ask::LatestEpoch),
                    retry_at: None,
                },
            );
        }
        fetcher.shared.changed.notify_one();
        Self::reap_idle(&mut fetchers);
    }

    /// Stops fetching for the partition (it leads now, or was deleted).
    pub fn remove(&self, topic: &str, partition: i32) {
        let key = (topic.to_string(), partition);
        let mut fetchers = self.fetchers.lock();
        for f in fetchers.values() {
            f.shared.partitions.lock().remove(&key);
        }
        Self::reap_idle(&mut fetchers);
    }

    /// The leader a partition fetches from and its phase, if it fetches.
    pub fn state_of(&self, topic: &str, partition: i32) -> Option<(i32, Phase)> {
        let key = (topic.to_string(), partition);
        self.fetchers.lock().iter().find_map(|(leader, f)| {
            f.shared
                .partitions
                .lock()
                .get(&key)
                .map(|e| (*leader, e.phase))
        })
    }

    /// Stops every fetcher (shutdown).
    pub fn stop_all(&self) {
        for (_, f) in self.fetchers.lock().drain() {
            f.task.abort();
        }
    }

    fn spawn(&self, leader_id: i32, host: &str, port: u16) -> Fetcher {
        let shared = Arc::new(Shared::default());
        let task = self.runtime.spawn(task::run(
            Arc::clone(&shared),
            task::Leader {
                id: leader_id,
                host: host.to_string(),
                port,
            },
            self.config.clone(),
            self.shutdown.clone(),
        ));
        Fetcher {
            host: host.to_string(),
            port,
            shared,
            task,
        }
    }

    fn reap_idle(fetchers: &mut HashMap<i32, Fetcher>) {
        fetchers.retain(|_, f| {
            let idle = f.shared.partitions.lock().is_empty();
            if idle {
                f.task.abort();
            }
            !idle
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use parking_lot::RwLock;
    use tokio::sync::watch;

    use super::{Ask, FetcherConfig, FetcherManager, Phase};
    use crate::log::{Log, LogConfig};
    use crate::replica::Partition;

    fn partition(dir: &std::path::Path, topic: &str) -> Arc<Partition> {
        let path = dir.join(format!("{topic}-0"));
        std::fs::create_dir_all(&path).expect("dir");
        let log = Log::open(&path, LogConfig::default(), 0, 0, 0).expect("log");
        Arc::new(Partition::new(
            topic,
            0,
            [1; 16],
            1,
            Arc::new(RwLock::new(log)),
        ))
    }

    #[test]
    fn partitions_move_between_fetchers_and_idle_fetchers_go() {
        let dir = tempfile::tempdir().expect("tempdir");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let (_stop, shutdown) = watch::channel(false);
        let manager =
            FetcherManager::new(FetcherConfig::default(), runtime.handle().clone(), shutdown);
        let (a, b) = (partition(dir.path(), "a"), partition(dir.path(), "b"));
        let starting = Phase::Truncating(Ask::LatestEpoch);
        let follow = |p: &Partition, epoch: i32, leader: i32| {
            p.become_follower(epoch, leader, vec![1, 7, 8])
                .expect("follow");
        };
        follow(&a, 1, 7);
        follow(&b, 1, 7);
        // nothing listens on port 1: the task only ever retries its connection
        manager.add(7, "127.0.0.1", 1, Arc::clone(&a), 1);
        manager.add(7, "127.0.0.1", 1, Arc::clone(&b), 1);
        assert_eq!(manager.state_of("a", 0), Some((7, starting)));
        assert_eq!(manager.fetchers.lock().len(), 1, "one fetcher per leader");
        // a command for an older epoch than the partition's is ignored
        follow(&a, 2, 8);
        manager.add(7, "127.0.0.1", 5, Arc::clone(&a), 1);
        assert_eq!(manager.fetchers.lock()[&7].port, 1, "unchanged");
        // a new leader for a: it leaves 7's fetcher for 8's
        manager.add(8, "127.0.0.1", 2, Arc::clone(&a), 2);
        assert_eq!(manager.state_of("a", 0), Some((8, starting)));
        assert_eq!(manager.fetchers.lock().len(), 2);
        // leader 7 moved to another address: b follows it there
        follow(&a, 3, 7);
        manager.add(7, "127.0.0.1", 3, Arc::clone(&a), 3);
        assert_eq!(manager.state_of("b", 0), Some((7, starting)));
        assert_eq!(manager.state_of("a", 0), Some((7, starting)));
        {
            let fetchers = manager.fetchers.lock();
            assert_eq!(fetchers.len(), 1, "8 had nothing left to fetch");
            assert_eq!(fetchers[&7].port, 3);
        }
        manager.remove("a", 0);
        manager.remove("b", 0);
        assert_eq!(manager.state_of("b", 0), None);
        assert!(manager.fetchers.lock().is_empty());
    }
}
