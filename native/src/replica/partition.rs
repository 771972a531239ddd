//! One local replica: its log handle and replication state. The leader's bookkeeping of its
//! followers is in `leader.rs`, the follower's appends and truncations in `follower.rs`.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::BytesMut;
use parking_lot::RwLock;
use tokio::sync::watch;

use super::leader::FollowerProgress;
use crate::error::ErrorCode;
use crate::log::manager::LogHandle;
use crate::log::{FetchSlice, LeaderAppend};
use crate::metrics::TopicMetrics;
use crate::record::batch::BatchHeader;
use crate::record::producer::AppendOrigin;
use crate::record::rejected::Rejected;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Opened but not yet assigned: serves no traffic.
    None,
    Leader,
    Follower,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::None => "none",
            Role::Leader => "leader",
            Role::Follower => "follower",
        }
    }
}

/// The offsets waiters care about: acks=all waits on the high watermark, consumer long polls
/// on the high watermark, follower long polls on the log end offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub high_watermark: i64,
    pub log_end_offset: i64,
}

/// A role change the replica refused.
#[derive(Debug, thiserror::Error)]
pub enum RoleError {
    /// KIP-320: a command from an older leadership (delayed or replayed) must not roll the
    /// epoch back, or requests would pass the fencing they should fail.
    #[error("leader epoch {requested} is older than {current}")]
    StaleEpoch { requested: i32, current: i32 },
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Role, epoch and membership: what the control plane decided, plus what the leader learns
/// from its followers' fetches.
#[derive(Debug)]
pub(super) struct RoleState {
    pub(super) role: Role,
    pub(super) leader_epoch: i32,
    /// -1 while no leader is known.
    pub(super) leader_id: i32,
    pub(super) isr: Vec<i32>,
    pub(super) replicas: Vec<i32>,
    /// On a leader: every other replica's fetch progress.
    pub(super) followers: HashMap<i32, FollowerProgress>,
}

impl RoleState {
    /// Whether the ISR is smaller than `min.insync.replicas`, counted as Kafka's leaders count
    /// it (its `effectiveMinIsr`): at most the number of replicas, so a topic that asks for more
    /// than it has is not refused forever.
    pub(super) fn under_min_isr(&self, min_insync_replicas: i32) -> bool {
        let min = usize::try_from(min_insync_replicas).unwrap_or(0);
        self.isr.len() < min.min(self.replicas.len())
    }
}

#[derive(Debug)]
pub struct Partition {
    topic: String,
    index: i32,
    topic_id: [u8; 16],
    pub(super) node_id: i32,
    pub(super) log: LogHandle,
    /// Lock order: `state` before `log`, everywhere (appends and role changes hold both).
    pub(super) state: RwLock<RoleState>,
    /// Wakes delayed produces and long-poll fetches whenever the HW or LEO moves (purgatory).
    pub(super) progress: watch::Sender<Progress>,
    /// The topic's counters; the registry gives every partition of a topic the same ones.
    pub(super) metrics: Arc<TopicMetrics>,
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
            state: RwLock::new(RoleState {
                role: Role::None,
                leader_epoch: -1,
                leader_id: -1,
                isr: Vec::new(),
                replicas: Vec::new(),
                followers: HashMap::new(),
            }),
            progress: watch::channel(progress).0,
            metrics: Arc::default(),
        }
    }

    pub fn metrics(&self) -> &TopicMetrics {
        &self.metrics
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
    pub fn leader_id(&self) -> i32 {
        self.state.read().leader_id
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

    /// Publishes `progress`, waking waiters only when it changed.
    pub(super) fn publish(&self, progress: Progress) {
        self.progress.send_if_modified(|p| {
            let changed = *p != progress;
            *p = progress;
            changed
        });
    }

    /// The leader this replica knows of and its epoch: itself when it leads, the one it
    /// follows otherwise; (-1, -1) before it has a role.
    pub fn leader(&self) -> (i32, i32) {
        let st = self.state.read();
        match st.role {
            Role::None => (-1, -1),
            Role::Leader | Role::Follower => (st.leader_id, st.leader_epoch),
        }
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
        self.check_online()?;
        compare_epochs(requested, self.leader_epoch_if_leader()?)
    }

    /// A replica on an offline log directory answers every read with KAFKA_STORAGE_ERROR, as
    /// Kafka's offline partitions do, whatever role it last had: its log ends where the
    /// failure left it, so an offset or epoch it gave would send a client back (a consumer
    /// that read further on the new leader, told OFFSET_OUT_OF_RANGE, resets to the start).
    fn check_online(&self) -> Result<(), ErrorCode> {
        if self.log.read().is_offline() {
            return Err(ErrorCode::KafkaStorageError);
        }
        Ok(())
    }

    /// As [`Partition::check_leader_epoch`] for readers that may use any replica (Kafka's
    /// debugging consumer, replica id -2): a follower answers too.
    pub fn check_epoch_any_replica(&self, requested: i32) -> Result<i32, ErrorCode> {
        self.check_online()?;
        let ours = {
            let st = self.state.read();
            if st.role == Role::None {
                return Err(ErrorCode::NotLeaderOrFollower);
            }
            st.leader_epoch
        };
        compare_epochs(requested, ours)
    }

    /// Refuses an epoch older than the current one.
    fn check_not_stale(st: &RoleState, requested: i32) -> Result<(), RoleError> {
        if requested < st.leader_epoch {
            return Err(RoleError::StaleEpoch {
                requested,
                current: st.leader_epoch,
            });
        }
        Ok(())
    }

    /// Makes this replica the leader at `epoch`, recording where the epoch starts. The high
    /// watermark starts where it was (the checkpointed one after a restart) and only advances
    /// as the ISR's followers fetch.
    pub fn become_leader(
        &self,
        epoch: i32,
        isr: Vec<i32>,
        replicas: Vec<i32>,
        now_ms: i64,
    ) -> Result<(), RoleError> {
        let mut st = self.state.write();
        Self::check_not_stale(&st, epoch)?;
        let mut log = self.log.write();
        if log.latest_epoch().is_none_or(|latest| latest < epoch) {
            log.assign_epoch_start(epoch)?;
        }
        let was_leader = st.role == Role::Leader;
        st.role = Role::Leader;
        st.leader_epoch = epoch;
        st.leader_id = self.node_id;
        st.isr = isr;
        st.replicas = replicas;
        self.reset_followers(&mut st, was_leader, now_ms);
        let progress = self.advance_hw(&st, &mut log);
        drop(log);
        drop(st);
        self.progress.send_replace(progress);
        Ok(())
    }

    /// Makes this replica a follower of `leader_id` at `epoch`: produces are refused from now
    /// on and waiting acks=all produces fail. The log is left as it is; the fetcher truncates
    /// it by epoch before fetching.
    pub fn become_follower(
        &self,
        epoch: i32,
        leader_id: i32,
        replicas: Vec<i32>,
    ) -> Result<(), RoleError> {
        let mut st = self.state.write();
        Self::check_not_stale(&st, epoch)?;
        st.role = Role::Follower;
        st.leader_epoch = epoch;
        st.leader_id = leader_id;
        st.isr.clear();
        st.replicas = replicas;
        st.followers.clear();
        drop(st);
        // Wakes acks=all waiters so they see NOT_LEADER_OR_FOLLOWER now.
        self.progress.send_modify(|_| {});
        Ok(())
    }

    /// Sets the ISR (the control plane's ISR policy, after it stored it) and recomputes the
    /// high watermark. Only the leader of `epoch` takes it.
    pub fn set_isr(&self, isr: Vec<i32>, epoch: i32) -> Result<(), ErrorCode> {
        let mut st = self.state.write();
        if st.role != Role::Leader {
            return Err(ErrorCode::NotLeaderOrFollower);
        }
        compare_epochs(epoch, st.leader_epoch)?;
        st.isr = isr;
        let mut log = self.log.write();
        let progress = self.advance_hw(&st, &mut log);
        drop(log);
        drop(st);
        // Always wakes: a smaller ISR changes what waiting acks=all produces answer.
        self.progress.send_replace(progress);
        Ok(())
    }

    /// Stops serving: waiters see NOT_LEADER_OR_FOLLOWER on their next check.
    pub fn make_inactive(&self) {
        self.state.write().role = Role::None;
        self.progress.send_modify(|_| {});
    }

    /// Appends one producer batch as leader and advances the high watermark. `acks == -1`
    /// first checks the ISR against `min.insync.replicas`.
    pub fn append_as_leader(
        &self,
        batch: BytesMut,
        acks: i16,
        now_ms: i64,
    ) -> Result<LeaderAppend, ErrorCode> {
        self.append_from_producer(batch, acks, now_ms, false)
            .map_err(|r| r.code)
    }

    /// [`Partition::append_as_leader`] for a Produce request; with `verify_txn` the first
    /// batch of a transaction is refused (INVALID_TXN_STATE) unless the coordinator
    /// confirmed it ([`Partition::mark_txn_verified`]), checked under the log's lock.
    pub fn append_from_producer(
        &self,
        batch: BytesMut,
        acks: i16,
        now_ms: i64,
        verify_txn: bool,
    ) -> Result<LeaderAppend, Rejected> {
        self.append_with(acks, |log, epoch| {
            log.append_from(batch, epoch, now_ms, AppendOrigin::Client { verify_txn })
        })
    }

    /// Whether a Produce's transactional batch must first be verified with the transaction
    /// coordinator (KIP-890): it would open a transaction here nobody confirmed.
    pub fn needs_txn_verification(&self, header: &BatchHeader) -> bool {
        self.log.read().needs_txn_verification(header)
    }

    /// Records the coordinator's confirmation that the producer's transaction includes this
    /// partition, until the transaction's marker.
    pub fn mark_txn_verified(&self, producer_id: i64, producer_epoch: i16) {
        self.log
            .write()
            .mark_txn_verified(producer_id, producer_epoch);
    }

    /// Appends a coordinator's batch (acks=all) as leader: an internal topic's records, or a
    /// transactional offset commit, whose sequence is not checked.
    pub fn append_as_coordinator(
        &self,
        batch: BytesMut,
        now_ms: i64,
    ) -> Result<LeaderAppend, ErrorCode> {
        self.append_with(-1, |log, epoch| {
            log.append_from(batch, epoch, now_ms, AppendOrigin::Coordinator)
                .map_err(|r| r.code)
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
        transaction_version: i8,
        now_ms: i64,
    ) -> Result<LeaderAppend, ErrorCode> {
        self.append_with(-1, |log, epoch| {
            log.append_marker(
                producer_id,
                producer_epoch,
                coordinator_epoch,
                commit,
                transaction_version,
                epoch,
                now_ms,
            )
        })
    }

    /// Runs one leader append under the partition's locks and wakes whoever waits on the
    /// offsets it moves.
    fn append_with<F, E>(&self, acks: i16, append: F) -> Result<LeaderAppend, E>
    where
        F: FnOnce(&mut crate::log::Log, i32) -> Result<LeaderAppend, E>,
        E: From<ErrorCode>,
    {
        let st = self.state.write();
        if st.role != Role::Leader {
            return Err(ErrorCode::NotLeaderOrFollower.into());
        }
        let mut log = self.log.write();
        if acks == -1 && st.under_min_isr(log.config().min_insync_replicas) {
            return Err(ErrorCode::NotEnoughReplicas.into());
        }
        let appended = append(&mut log, st.leader_epoch)?;
        let progress = self.advance_hw(&st, &mut log);
        drop(log);
        drop(st);
        self.publish(progress);
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

    /// Waits until the high watermark passes `last_offset` (the batch is committed), the
    /// replica stops leading, or `deadline`. As Kafka's delayed produce, a batch committed by
    /// an ISR smaller than `min.insync.replicas` (it shrank during the wait) answers
    /// NOT_ENOUGH_REPLICAS_AFTER_APPEND: it is stored but not as safely as asked.
    pub async fn wait_committed(
        &self,
        last_offset: i64,
        deadline: tokio::time::Instant,
    ) -> Result<(), ErrorCode> {
        let mut rx = self.subscribe();
        loop {
            let committed = rx.borrow_and_update().high_watermark > last_offset;
            let under_min_isr = {
                let st = self.state.read();
                if st.role != Role::Leader {
                    return Err(ErrorCode::NotLeaderOrFollower);
                }
                let min_isr = self.log.read().config().min_insync_replicas;
                st.under_min_isr(min_isr)
            };
            if committed {
                return if under_min_isr {
                    Err(ErrorCode::NotEnoughReplicasAfterAppend)
                } else {
                    Ok(())
                };
            }
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => continue,
                _ => return Err(ErrorCode::RequestTimedOut),
            }
        }
    }
}

/// `requested` (-1: unknown to the requester, no check) against `ours`.
fn compare_epochs(requested: i32, ours: i32) -> Result<i32, ErrorCode> {
    if requested < 0 || requested == ours {
        Ok(ours)
    } else if requested < ours {
        Err(ErrorCode::FencedLeaderEpoch)
    } else {
        Err(ErrorCode::UnknownLeaderEpoch)
    }
}
