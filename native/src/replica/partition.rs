//! One local replica: its log handle and replication state.

use std::collections::HashMap;

use bytes::BytesMut;
use parking_lot::RwLock;
use tokio::sync::watch;

use crate::error::ErrorCode;
use crate::log::manager::LogHandle;
use crate::log::{FetchSlice, LeaderAppend};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Opened but not yet assigned: serves no traffic.
    None,
    Leader,
    Follower,
}

/// The offsets waiters care about: acks=all waits on the high watermark, consumer long polls
/// on the high watermark, follower long polls on the log end offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub high_watermark: i64,
    pub log_end_offset: i64,
}

#[derive(Debug)]
struct ReplicaState {
    role: Role,
    leader_epoch: i32,
    isr: Vec<i32>,
    replicas: Vec<i32>,
    /// Log end offset of each replica as last seen (self: the log's own); the high watermark is
    /// the minimum over the ISR. Followers' entries arrive with replication.
    leo: HashMap<i32, i64>,
}

#[derive(Debug)]
pub struct Partition {
    topic: String,
    index: i32,
    topic_id: [u8; 16],
    node_id: i32,
    log: LogHandle,
    /// Lock order: `state` before `log`, everywhere (appends and role changes hold both).
    state: RwLock<ReplicaState>,
    /// Wakes delayed produces and long-poll fetches whenever the HW or LEO moves (purgatory).
    progress: watch::Sender<Progress>,
}

impl Partition {
    pub fn new(topic: &str, index: i32, topic_id: [u8; 16], node_id: i32, log: LogHandle) -> Self {
        let progress = {
            let l = log.read();
            Progress {
                high_watermark: l.high_watermark(),
                log_end_offset: l.log_end_offset(),
            }
        };
        Partition {
            topic: topic.to_string(),
            index,
            topic_id,
            node_id,
            log,
            state: RwLock::new(ReplicaState {
                role: Role::None,
                leader_epoch: -1,
                isr: Vec::new(),
                replicas: Vec::new(),
                leo: HashMap::new(),
            }),
            progress: watch::channel(progress).0,
        }
    }

    pub fn topic(&self) -> &str {
        &self.topic
    }
    pub fn index(&self) -> i32 {
        self.index
    }
    pub fn topic_id(&self) -> [u8; 16] {
        self.topic_id
    }
    pub fn log(&self) -> &LogHandle {
        &self.log
    }
    pub fn role(&self) -> Role {
        self.state.read().role
    }
    pub fn leader_epoch(&self) -> i32 {
        self.state.read().leader_epoch
    }
    pub fn isr(&self) -> Vec<i32> {
        self.state.read().isr.clone()
    }
    pub fn replicas(&self) -> Vec<i32> {
        self.state.read().replicas.clone()
    }

    pub fn progress(&self) -> Progress {
        *self.progress.borrow()
    }

    pub fn subscribe(&self) -> watch::Receiver<Progress> {
        self.progress.subscribe()
    }

    /// The leader epoch if this replica leads, else NOT_LEADER_OR_FOLLOWER.
    pub fn leader_epoch_if_leader(&self) -> Result<i32, ErrorCode> {
        let st = self.state.read();
        if st.role == Role::Leader {
            Ok(st.leader_epoch)
        } else {
            Err(ErrorCode::NotLeaderOrFollower)
        }
    }

    /// KIP-320: a request's view of the leader epoch against ours (-1: the client does not
    /// know it, no check). Returns our epoch when this replica leads.
    pub fn check_leader_epoch(&self, requested: i32) -> Result<i32, ErrorCode> {
        let ours = self.leader_epoch_if_leader()?;
        if requested < 0 || requested == ours {
            Ok(ours)
        } else if requested < ours {
            Err(ErrorCode::FencedLeaderEpoch)
        } else {
            Err(ErrorCode::UnknownLeaderEpoch)
        }
    }

    /// Makes this replica the leader at `epoch`, recording where the epoch starts.
    pub fn become_leader(
        &self,
        epoch: i32,
        isr: Vec<i32>,
        replicas: Vec<i32>,
    ) -> std::io::Result<()> {
        let mut st = self.state.write();
        let mut log = self.log.write();
        if log.latest_epoch().is_none_or(|latest| latest < epoch) {
            log.assign_epoch_start(epoch)?;
        }
        st.role = Role::Leader;
        st.leader_epoch = epoch;
        st.isr = isr;
        st.replicas = replicas;
        st.leo.clear();
        st.leo.insert(self.node_id, log.log_end_offset());
        let progress = Self::advance_hw(&st, self.node_id, &mut log);
        drop(log);
        drop(st);
        self.progress.send_replace(progress);
        Ok(())
    }

    /// Sets the ISR (the control plane's ISR policy); the high watermark may move.
    pub fn set_isr(&self, isr: Vec<i32>) {
        let mut st = self.state.write();
        st.isr = isr;
        if st.role != Role::Leader {
            return;
        }
        let mut log = self.log.write();
        let progress = Self::advance_hw(&st, self.node_id, &mut log);
        drop(log);
        drop(st);
        self.progress.send_replace(progress);
    }

    /// A follower fetched from `fetch_offset`: everything before it is on that replica, so it
    /// is the replica's log end offset, and the high watermark may advance.
    pub fn record_follower_fetch(&self, replica: i32, fetch_offset: i64) {
        let mut st = self.state.write();
        if st.role != Role::Leader || replica == self.node_id || !st.replicas.contains(&replica) {
            return;
        }
        st.leo.insert(replica, fetch_offset);
        let mut log = self.log.write();
        let progress = Self::advance_hw(&st, self.node_id, &mut log);
        drop(log);
        drop(st);
        self.progress.send_if_modified(|p| {
            let changed = *p != progress;
            *p = progress;
            changed
        });
    }

    /// Stops serving: waiters see NOT_LEADER_OR_FOLLOWER on their next check.
    pub fn make_inactive(&self) {
        self.state.write().role = Role::None;
        self.progress.send_modify(|_| {});
    }

    /// HW = min LEO over the ISR; members whose LEO is not known yet hold it where it is, and
    /// it never moves backwards on the leader.
    fn advance_hw(st: &ReplicaState, node_id: i32, log: &mut crate::log::Log) -> Progress {
        let leo = log.log_end_offset();
        let current = log.high_watermark();
        let mut min = leo;
        for replica in &st.isr {
            let their = if *replica == node_id {
                Some(leo)
            } else {
                st.leo.get(replica).copied()
            };
            min = min.min(their.unwrap_or(current));
        }
        if min > current {
            log.set_high_watermark(min);
        }
        Progress {
            high_watermark: log.high_watermark(),
            log_end_offset: leo,
        }
    }

    /// Appends one producer batch as leader and advances the high watermark. `acks == -1`
    /// first checks the ISR against `min.insync.replicas`.
    pub fn append_as_leader(
        &self,
        batch: BytesMut,
        acks: i16,
        now_ms: i64,
    ) -> Result<LeaderAppend, ErrorCode> {
        self.append_with(acks, |log, epoch| {
            log.append_as_leader(batch, epoch, now_ms)
        })
    }

    /// Appends a transaction marker (COMMIT or ABORT) for `producer_id` as leader, as
    /// WriteTxnMarkers does; the high watermark and the last stable offset move with it.
    pub fn append_marker(
        &self,
        producer_id: i64,
        producer_epoch: i16,
        coordinator_epoch: i32,
        commit: bool,
        now_ms: i64,
    ) -> Result<LeaderAppend, ErrorCode> {
        self.append_with(-1, |log, epoch| {
            log.append_marker(
                producer_id,
                producer_epoch,
                coordinator_epoch,
                commit,
                epoch,
                now_ms,
            )
        })
    }

    /// Runs one leader append under the partition's locks and wakes whoever waits on the
    /// offsets it moves.
    fn append_with<F>(&self, acks: i16, append: F) -> Result<LeaderAppend, ErrorCode>
    where
        F: FnOnce(&mut crate::log::Log, i32) -> Result<LeaderAppend, ErrorCode>,
    {
        let mut st = self.state.write();
        if st.role != Role::Leader {
            return Err(ErrorCode::NotLeaderOrFollower);
        }
        let mut log = self.log.write();
        if acks == -1 && (st.isr.len() as i32) < log.config().min_insync_replicas {
            return Err(ErrorCode::NotEnoughReplicas);
        }
        let appended = append(&mut log, st.leader_epoch)?;
        let leo = log.log_end_offset();
        st.leo.insert(self.node_id, leo);
        let progress = Self::advance_hw(&st, self.node_id, &mut log);
        drop(log);
        drop(st);
        self.progress.send_if_modified(|p| {
            let changed = *p != progress;
            *p = progress;
            changed
        });
        Ok(appended)
    }

    /// Reads from `offset` up to `max_offset` (exclusive).
    pub fn read(
        &self,
        offset: i64,
        max_bytes: u32,
        max_offset: i64,
        min_one: bool,
    ) -> Result<FetchSlice, ErrorCode> {
        self.log.read().read(offset, max_bytes, max_offset, min_one)
    }

    /// Waits until the high watermark passes `offset` (the batch is committed), the replica
    /// stops leading, or `deadline`. Returns whether it was committed.
    pub async fn wait_committed(
        &self,
        last_offset: i64,
        deadline: tokio::time::Instant,
    ) -> Result<(), ErrorCode> {
        let mut rx = self.subscribe();
        loop {
            if rx.borrow_and_update().high_watermark > last_offset {
                return Ok(());
            }
            self.leader_epoch_if_leader()?;
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => continue,
                _ => return Err(ErrorCode::RequestTimedOut),
            }
        }
    }
}
