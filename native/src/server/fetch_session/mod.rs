//! The broker's fetch session cache (KIP-227, Kafka's `FetchSession.scala`).
//!
//! A fetcher of many partitions sends them all once (a full fetch, epoch 0); the broker caches
//! them as a session and answers with its id. Later requests (incremental, epoch 1, 2, ...)
//! carry only the partitions whose fetch position changed and the ones to forget, and their
//! responses leave out every partition with nothing new: no records, the same high watermark,
//! last stable offset and log start offset, no error. An idle consumer of a thousand partitions
//! then exchanges a few dozen bytes per fetch instead of tens of kilobytes.
//!
//! Pure bookkeeping, no I/O and no clock: the Fetch handler passes the time in and reads the
//! partitions itself. One lock (the handler's) covers the whole cache; Kafka shards its cache
//! eight ways to spread JVM lock contention, which costs it eviction choices across shards.
//!
//! A session costs its partition map (about 150 bytes a partition) and nothing while idle; at
//! most `max.incremental.fetch.session.cache.slots` sessions exist, and new ones evict old ones
//! by Kafka's preference: a session unused for two minutes first, then (for a follower) any
//! consumer session, then a session created over two minutes ago with fewer partitions.

mod partition_map;

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::error::ErrorCode;
pub use crate::protocol::fetch_session::{
    next_epoch, FetchMetadata, FetchParams, FINAL_EPOCH, INITIAL_EPOCH, INVALID_SESSION_ID,
};

pub use partition_map::{CachedPartition, PartitionMap};

/// Kafka's `MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS`: how long a session is safe from
/// eviction after its last use, and after its creation from smaller newcomers.
pub const EVICTION_MS: i64 = 120_000;

/// How a request names a topic: by name before Fetch v13, by topic id from v13 (KIP-516).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TopicRef {
    Name(Arc<str>),
    Id([u8; 16]),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PartitionKey {
    pub topic: TopicRef,
    pub partition: i32,
}

/// What the fetcher was last told about a partition. The high watermark is -1 after an error,
/// so the partition is answered again once the error is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sent {
    pub high_watermark: i64,
    pub last_stable_offset: i64,
    pub log_start_offset: i64,
}

/// One partition's answer, as far as the session cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    pub sent: Sent,
    pub has_records: bool,
    /// Errors are always answered, and remembered as a high watermark of -1 so the partition
    /// is answered again once the error is gone.
    pub error: bool,
    /// A diverging epoch (the follower must truncate) is always answered.
    pub diverging: bool,
}

impl Outcome {
    /// What the session remembers having sent.
    fn remembered(&self) -> Sent {
        let mut sent = self.sent;
        if self.error {
            sent.high_watermark = -1;
        }
        sent
    }
}

/// How to serve a request (Kafka's `FetchContext`).
#[derive(Debug, PartialEq, Eq)]
pub enum Context {
    /// Answer only this error, with no partitions and no session.
    Error(ErrorCode),
    /// Read and answer the request's partitions; no session.
    Sessionless,
    /// Read and answer the request's partitions, then try to cache them as a new session
    /// ([`FetchSessionCache::create_session`]).
    Full,
    /// Read every partition of the session, in its order; answer the ones that changed
    /// ([`FetchSessionCache::finish_incremental`]).
    Incremental {
        session_id: i32,
        /// The session's epoch after this request: the response is good only if no other
        /// request of the session came in between.
        epoch: i32,
        partitions: Vec<(PartitionKey, FetchParams)>,
    },
}

/// Why an incremental response cannot use its session any more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// Another request of the session came first: INVALID_FETCH_SESSION_EPOCH.
    EpochMoved,
    /// Evicted or closed meanwhile: answer everything, without a session.
    Gone,
}

#[derive(Debug)]
struct Session {
    id: i32,
    /// Followers' sessions: only other followers' sessions may evict them while they are
    /// young.
    privileged: bool,
    uses_topic_ids: bool,
    creation_ms: i64,
    last_used_ms: i64,
    /// The epoch the session's next request must carry.
    epoch: i32,
    partitions: PartitionMap,
    /// The size the eviction sets know the session by (Kafka's `cachedSize`).
    cached_size: usize,
}

impl Session {
    fn evictable_key(&self) -> (bool, usize, i32) {
        (self.privileged, self.cached_size, self.id)
    }
}

#[derive(Debug)]
pub struct FetchSessionCache {
    max_entries: usize,
    eviction_ms: i64,
    sessions: HashMap<i32, Session>,
    /// `(last used, id)`, oldest first: the stale-session candidates.
    last_used: BTreeSet<(i64, i32)>,
    /// `(privileged, size, id)`, least valuable first, of the sessions anyone may evict
    /// (created more than `eviction_ms` ago) ...
    evictable_by_all: BTreeSet<(bool, usize, i32)>,
    /// ... and of the sessions a follower may evict (those plus every consumer session).
    evictable_by_privileged: BTreeSet<(bool, usize, i32)>,
    num_partitions: usize,
    evictions: u64,
    /// State of the session id generator (splitmix64).
    rng: u64,
}

impl FetchSessionCache {
    pub fn new(max_entries: usize, eviction_ms: i64, seed: u64) -> Self {
        FetchSessionCache {
            max_entries,
            eviction_ms,
            sessions: HashMap::new(),
            last_used: BTreeSet::new(),
            evictable_by_all: BTreeSet::new(),
            evictable_by_privileged: BTreeSet::new(),
            num_partitions: 0,
            evictions: 0,
            rng: seed,
        }
    }

    /// Sessions in the cache (Kafka's `NumIncrementalFetchSessions`).
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Partitions cached over all sessions (`NumIncrementalFetchPartitionsCached`).
    pub fn total_partitions(&self) -> usize {
        self.num_partitions
    }

    pub fn evictions(&self) -> u64 {
        self.evictions
    }

    pub fn session_ids(&self) -> Vec<i32> {
        self.sessions.keys().copied().collect()
    }

    /// Decides how to serve a request (Kafka's `FetchManager.newContext`). An incremental
    /// request updates its session here: its partitions are added or updated, the forgotten
    /// ones removed, and the epoch moves on.
    pub fn new_context(
        &mut self,
        version: i16,
        meta: FetchMetadata,
        wanted: &[(PartitionKey, FetchParams)],
        forgotten: &[PartitionKey],
        now_ms: i64,
    ) -> Context {
        if meta.is_full() {
            // A full request names the session it replaces, if any.
            if meta.session_id != INVALID_SESSION_ID {
                self.remove(meta.session_id);
            }
            return if meta.epoch == FINAL_EPOCH {
                Context::Sessionless
            } else {
                Context::Full
            };
        }
        let Some(session) = self.sessions.get_mut(&meta.session_id) else {
            return Context::Error(ErrorCode::FetchSessionIdNotFound);
        };
        if session.epoch != meta.epoch {
            return Context::Error(ErrorCode::InvalidFetchSessionEpoch);
        }
        if session.uses_topic_ids != (version >= 13) {
            return Context::Error(ErrorCode::FetchSessionTopicIdError);
        }
        for (key, params) in wanted {
            match session.partitions.get_mut(key) {
                Some(cached) => cached.params = *params,
                None => session.partitions.insert(CachedPartition {
                    key: key.clone(),
                    params: *params,
                    sent: Sent {
                        high_watermark: -1,
                        last_stable_offset: -1,
                        log_start_offset: -1,
                    },
                }),
            }
        }
        for key in forgotten {
            session.partitions.remove(key);
        }
        if session.partitions.is_empty() {
            self.remove(meta.session_id);
            return Context::Sessionless;
        }
        session.epoch = next_epoch(session.epoch);
        let epoch = session.epoch;
        let partitions = session
            .partitions
            .iter()
            .map(|c| (c.key.clone(), c.params))
            .collect();
        self.touch(meta.session_id, now_ms);
        Context::Incremental {
            session_id: meta.session_id,
            epoch,
            partitions,
        }
    }

    /// After a full fetch: caches its partitions as a new session if there is room or a less
    /// valuable session to evict. Returns the new session's id, or 0 (no session).
    pub fn create_session(
        &mut self,
        now_ms: i64,
        privileged: bool,
        uses_topic_ids: bool,
        partitions: impl ExactSizeIterator<Item = (PartitionKey, FetchParams, Outcome)>,
    ) -> i32 {
        let size = partitions.len();
        if self.sessions.len() >= self.max_entries && !self.try_evict(privileged, size, now_ms) {
            return INVALID_SESSION_ID;
        }
        let mut map = PartitionMap::with_capacity(size);
        for (key, params, outcome) in partitions {
            map.insert(CachedPartition {
                key,
                params,
                sent: outcome.remembered(),
            });
        }
        let id = self.new_session_id();
        self.sessions.insert(
            id,
            Session {
                id,
                privileged,
                uses_topic_ids,
                creation_ms: now_ms,
                last_used_ms: now_ms,
                epoch: next_epoch(INITIAL_EPOCH),
                partitions: map,
                cached_size: usize::MAX,
            },
        );
        self.touch(id, now_ms);
        id
    }

    /// After an incremental fetch: which partitions the response carries (in the order
    /// given, which is the session's order the context handed out), remembering what it tells.
    /// Partitions that returned records move to the end of the session.
    pub fn finish_incremental<'a>(
        &mut self,
        session_id: i32,
        epoch: i32,
        outcomes: impl ExactSizeIterator<Item = (&'a PartitionKey, Outcome)>,
    ) -> Result<Vec<bool>, Finish> {
        let session = self.sessions.get_mut(&session_id).ok_or(Finish::Gone)?;
        // The same epoch means no request changed the session since its context: it holds
        // the partitions read, in the same order, so they are walked rather than looked up.
        if session.epoch != epoch || session.partitions.len() != outcomes.len() {
            return Err(Finish::EpochMoved);
        }
        let mut answered = Vec::with_capacity(outcomes.len());
        let mut moved = Vec::new();
        for (cached, (key, outcome)) in session.partitions.iter_mut().zip(outcomes) {
            debug_assert!(cached.key == *key, "session order changed within an epoch");
            let remembered = outcome.remembered();
            // Kafka compares the high watermark and log start offset; the last stable offset
            // too here, so a read_committed consumer never misses an LSO that moved alone.
            let changed = outcome.has_records
                || outcome.error
                || outcome.diverging
                || cached.sent != remembered;
            cached.sent = remembered;
            if outcome.has_records {
                moved.push(key);
            }
            answered.push(changed);
        }
        for key in moved {
            session.partitions.move_to_end(key);
        }
        Ok(answered)
    }

    /// Closes a session; true if it existed.
    pub fn remove(&mut self, session_id: i32) -> bool {
        let Some(session) = self.sessions.remove(&session_id) else {
            return false;
        };
        self.last_used.remove(&(session.last_used_ms, session.id));
        if session.cached_size != usize::MAX {
            let key = session.evictable_key();
            self.evictable_by_all.remove(&key);
            self.evictable_by_privileged.remove(&key);
            self.num_partitions -= session.cached_size;
        }
        true
    }

    /// Marks a session used now and files it in the eviction sets by its current size.
    fn touch(&mut self, session_id: i32, now_ms: i64) {
        let Some(session) = self.sessions.get_mut(&session_id) else {
            return;
        };
        self.last_used.remove(&(session.last_used_ms, session.id));
        session.last_used_ms = now_ms;
        self.last_used.insert((now_ms, session.id));
        if session.cached_size != usize::MAX {
            let key = session.evictable_key();
            self.evictable_by_all.remove(&key);
            self.evictable_by_privileged.remove(&key);
            self.num_partitions -= session.cached_size;
        }
        session.cached_size = session.partitions.len();
        self.num_partitions += session.cached_size;
        let key = session.evictable_key();
        let old = now_ms - session.creation_ms > self.eviction_ms;
        if !session.privileged || old {
            self.evictable_by_privileged.insert(key);
        }
        if old {
            self.evictable_by_all.insert(key);
        }
    }

    /// Makes room for a new session of `size` partitions (Kafka's `tryEvict`): a stale session
    /// goes first; otherwise the least valuable evictable one, if the newcomer is worth more.
    fn try_evict(&mut self, privileged: bool, size: usize, now_ms: i64) -> bool {
        let Some(&(last_used, id)) = self.last_used.first() else {
            return false;
        };
        let victim = if now_ms - last_used > self.eviction_ms {
            id
        } else {
            let evictable = if privileged {
                &self.evictable_by_privileged
            } else {
                &self.evictable_by_all
            };
            match evictable.first() {
                Some(&first) if (privileged, size, 0) >= first => first.2,
                _ => return false,
            }
        };
        self.remove(victim);
        self.evictions += 1;
        true
    }

    /// A random positive id that no session has.
    fn new_session_id(&mut self) -> i32 {
        loop {
            self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.rng;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            let id = (z & 0x7fff_ffff) as i32;
            if id != INVALID_SESSION_ID && !self.sessions.contains_key(&id) {
                return id;
            }
        }
    }
}

#[cfg(test)]
mod tests;
