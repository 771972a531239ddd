//! The native partition state: each local replica's log, role, leader epoch, ISR and the
//! replicas' log end offsets, from which the high watermark follows. Python decides roles and
//! ISRs (`become_leader`, `become_follower`, `set_isr`); this module applies them and serves
//! the data path from them: `leader` tracks followers and the high watermark, `follower`
//! applies what a leader sends, and `fetcher` runs the replica fetchers that pull it.

pub mod fetcher;
mod follower;
mod leader;
mod partition;

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::RwLock;

use crate::error::ErrorCode;
use crate::metrics::TopicMetrics;

pub use follower::FollowerPosition;
pub use leader::FollowerState;
pub use partition::{Partition, Progress, Role, RoleError};

/// All local replicas, `topic -> partition -> Partition`, swapped entry by entry by the
/// control plane's commands and read by every request.
#[derive(Debug, Default)]
pub struct Registry {
    topics: RwLock<HashMap<String, TopicEntry>>,
    /// Topic id -> name, for Fetch v13+ (KIP-516). Written under `topics`' write lock.
    names: RwLock<HashMap<[u8; 16], String>>,
}

/// A topic's local partitions and the counters they share.
#[derive(Debug, Default)]
struct TopicEntry {
    parts: HashMap<i32, Arc<Partition>>,
    metrics: Arc<TopicMetrics>,
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn get(&self, topic: &str, partition: i32) -> Option<Arc<Partition>> {
        self.topics
            .read()
            .get(topic)?
            .parts
            .get(&partition)
            .cloned()
    }

    /// The name of the topic with id `topic_id`, if a partition of it is hosted here.
    pub fn name_of(&self, topic_id: &[u8; 16]) -> Option<String> {
        self.names.read().get(topic_id).cloned()
    }

    /// The partition of the topic with id `topic_id`: UNKNOWN_TOPIC_ID if no partition of
    /// that topic is hosted here, UNKNOWN_TOPIC_OR_PARTITION if others are.
    pub fn get_by_id(
        &self,
        topic_id: &[u8; 16],
        partition: i32,
    ) -> Result<Arc<Partition>, ErrorCode> {
        // Both read locks, in the writers' order: no copy of the name per lookup.
        let topics = self.topics.read();
        let names = self.names.read();
        let parts = names
            .get(topic_id)
            .and_then(|n| topics.get(n))
            .ok_or(ErrorCode::UnknownTopicId)?;
        parts
            .parts
            .get(&partition)
            .filter(|p| p.topic_id() == *topic_id)
            .cloned()
            .ok_or(ErrorCode::UnknownTopicOrPartition)
    }

    /// Adds `p` unless the partition is already registered; returns the registered one.
    pub fn insert_if_absent(&self, mut p: Partition) -> Arc<Partition> {
        let mut topics = self.topics.write();
        let entry = topics.entry(p.topic().to_string()).or_default();
        p.metrics = Arc::clone(&entry.metrics);
        let registered = Arc::clone(entry.parts.entry(p.index()).or_insert_with(|| Arc::new(p)));
        if registered.topic_id() != [0; 16] {
            self.names
                .write()
                .insert(registered.topic_id(), registered.topic().to_string());
        }
        registered
    }

    pub fn remove(&self, topic: &str, partition: i32) -> Option<Arc<Partition>> {
        let mut topics = self.topics.write();
        let parts = &mut topics.get_mut(topic)?.parts;
        let removed = parts.remove(&partition);
        if let Some(r) = &removed {
            if !parts.values().any(|p| p.topic_id() == r.topic_id()) {
                let mut names = self.names.write();
                if names.get(&r.topic_id()).is_some_and(|n| n == topic) {
                    names.remove(&r.topic_id());
                }
            }
        }
        if parts.is_empty() {
            topics.remove(topic);
        }
        removed
    }

    /// Every partition of `topic` (for config updates).
    pub fn topic_partitions(&self, topic: &str) -> Vec<Arc<Partition>> {
        self.topics
            .read()
            .get(topic)
            .map(|entry| entry.parts.values().cloned().collect())
            .unwrap_or_default()
    }

    pub fn all(&self) -> Vec<Arc<Partition>> {
        self.topics
            .read()
            .values()
            .flat_map(|entry| entry.parts.values().cloned())
            .collect()
    }

    /// Each hosted topic's counters, for a scrape.
    pub fn topic_metrics(&self) -> Vec<(String, Arc<TopicMetrics>)> {
        self.topics
            .read()
            .iter()
            .map(|(name, entry)| (name.clone(), Arc::clone(&entry.metrics)))
            .collect()
    }
}

/// A snapshot of one local replica.
#[derive(Debug, Clone)]
pub struct PartitionState {
    pub topic: String,
    pub partition: i32,
    pub topic_id: [u8; 16],
    pub is_leader: bool,
    /// "leader", "follower" or "none".
    pub role: &'static str,
    pub leader_epoch: i32,
    /// -1: no leader known.
    pub leader_id: i32,
    pub isr: Vec<i32>,
    pub replicas: Vec<i32>,
    pub last_stable_offset: i64,
    pub log_start_offset: i64,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    pub size_bytes: u64,
    pub segment_count: usize,
    /// The topic's `min.insync.replicas`.
    pub min_insync_replicas: i32,
    pub log_dir: String,
}
