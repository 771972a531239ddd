//! The share-partitions this broker leads, as Kafka's `SharePartitionManager` holds them: one
//! entry per (group, topic id, partition), loaded from the share coordinator on the first
//! ShareFetch that reaches it and dropped when leadership moves; the share sessions; and the
//! settings each share group applies (the control plane pushes the broker's and the groups'
//! configs, already resolved).

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use tokio::sync::{oneshot, Notify};

use super::partition::SharePartition;
use super::records::Limits;
use super::session::ShareSessions;

/// One share-partition: a share group's view of one partition.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SpKey {
    pub group: Arc<str>,
    pub topic_id: [u8; 16],
    pub partition: i32,
}

/// A share-partition read from its share coordinator.
#[derive(Debug)]
pub struct Loaded {
    pub partition: SharePartition,
    /// The share coordinator's epoch of this state (bumped by an offsets reset).
    pub state_epoch: i32,
    /// The partition's leader epoch when it was loaded: another epoch means another
    /// leadership, whose state must be read again.
    pub leader_epoch: i32,
}

#[derive(Debug)]
pub struct SpEntry {
    pub key: SpKey,
    /// The topic's name when the entry was made, for the metrics.
    pub topic: String,
    /// None until loaded, and again once a write failed or leadership moved. An async lock:
    /// the first fetch holds it while the state is read, and the others wait for it.
    pub state: tokio::sync::Mutex<Option<Loaded>>,
    /// Woken when records may have become available (acknowledged, released, timed out).
    pub changed: Notify,
    /// Records whose acquisition lock ran out (Kafka's AcquisitionLockTimeoutPerSec).
    pub lock_timeouts: AtomicU64,
}

/// share.auto.offset.reset: where a share-partition never read from starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoReset {
    Earliest,
    Latest,
    /// by_duration: the first record no older than this many milliseconds.
    ByDuration(i64),
}

impl AutoReset {
    /// The control plane's code: -2 earliest, -1 latest, a duration in ms otherwise.
    pub fn from_code(code: i64) -> AutoReset {
        match code {
            -2 => AutoReset::Earliest,
            c if c >= 0 => AutoReset::ByDuration(c),
            _ => AutoReset::Latest,
        }
    }
}

/// What a share group applies to its share-partitions (its group configs over the broker's).
#[derive(Clone, Copy, Debug)]
pub struct GroupSettings {
    pub limits: Limits,
    pub auto_reset: AutoReset,
    pub read_committed: bool,
    /// share.renew.acknowledge.enable: whether RENEW extends a lock (else INVALID_RECORD_STATE).
    pub renew: bool,
}

impl Default for GroupSettings {
    /// Kafka's defaults, until the control plane pushes the broker's.
    fn default() -> Self {
        GroupSettings {
            limits: Limits {
                lock_ms: 30_000,
                delivery_limit: 5,
                max_in_flight: 2_000,
            },
            auto_reset: AutoReset::Latest,
            read_committed: false,
            renew: true,
        }
    }
}

/// State writes waiting to go to a group's share coordinators, joined while one is out (one
/// WriteShareGroupState per group at a time carries every share-partition changed since).
#[derive(Debug, Default)]
pub struct PendingWrites {
    pub entries: Vec<Arc<SpEntry>>,
    pub waiters: Vec<oneshot::Sender<Arc<WriteCodes>>>,
    pub running: bool,
}

/// The error code each share-partition's write was answered with.
pub type WriteCodes = HashMap<SpKey, i16>;

#[derive(Debug, Default)]
pub struct ShareManager {
    /// `share.version` is finalized at 1 or more.
    enabled: AtomicBool,
    /// group.share.max.share.sessions
    max_sessions: RwLock<usize>,
    defaults: RwLock<GroupSettings>,
    groups: RwLock<HashMap<Arc<str>, GroupSettings>>,
    entries: Mutex<HashMap<SpKey, Arc<SpEntry>>>,
    pub sessions: Mutex<ShareSessions>,
    pub writes: Mutex<HashMap<Arc<str>, PendingWrites>>,
}

/// A member id as the share-partitions tell owners apart: a 64-bit hash (member ids are
/// UUIDs the group coordinator hands out; a collision would need 2^32 live members).
pub fn member_key(member_id: &str) -> u64 {
    let mut h = DefaultHasher::new();
    member_id.hash(&mut h);
    h.finish()
}

impl ShareManager {
    pub fn new() -> ShareManager {
        ShareManager {
            max_sessions: RwLock::new(2_000),
            ..ShareManager::default()
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }

    pub fn max_sessions(&self) -> usize {
        *self.max_sessions.read()
    }

    /// The control plane's push: whether share groups are on, the broker's settings and the
    /// groups that have their own.
    pub fn configure(
        &self,
        enabled: bool,
        max_sessions: usize,
        defaults: GroupSettings,
        groups: HashMap<Arc<str>, GroupSettings>,
    ) {
        *self.max_sessions.write() = max_sessions;
        *self.defaults.write() = defaults;
        *self.groups.write() = groups;
        let was = self.enabled.swap(enabled, Ordering::AcqRel);
        if was && !enabled {
            // As Kafka when share.version drops: every session and share-partition goes.
            *self.sessions.lock() = ShareSessions::default();
            self.entries.lock().clear();
        }
    }

    pub fn settings(&self, group: &str) -> GroupSettings {
        match self.groups.read().get(group) {
            Some(s) => *s,
            None => *self.defaults.read(),
        }
    }

    /// The entry of a share-partition (of the topic `topic`), created (unloaded) on first use.
    pub fn entry(&self, key: &SpKey, topic: &str) -> Arc<SpEntry> {
        let mut entries = self.entries.lock();
        if let Some(e) = entries.get(key) {
            return Arc::clone(e);
        }
        let entry = Arc::new(SpEntry {
            key: key.clone(),
            topic: topic.to_string(),
            state: tokio::sync::Mutex::new(None),
            changed: Notify::new(),
            lock_timeouts: AtomicU64::new(0),
        });
        entries.insert(key.clone(), Arc::clone(&entry));
        entry
    }

    /// The entry if this broker has it (acknowledgements go only to share-partitions a fetch
    /// loaded here).
    pub fn existing(&self, key: &SpKey) -> Option<Arc<SpEntry>> {
        self.entries.lock().get(key).cloned()
    }

    /// Every entry, for the lock-expiry sweep and the metrics.
    pub fn all(&self) -> Vec<Arc<SpEntry>> {
        self.entries.lock().values().cloned().collect()
    }

    /// Forgets the share-partitions `keep` refuses (their topic deleted, their partition led
    /// elsewhere now): a fetch that comes back loads them afresh from the share coordinator.
    pub fn retain(&self, keep: impl Fn(&SpKey) -> bool) {
        self.entries.lock().retain(|key, _| keep(key));
    }
}
