//! The control plane's replication commands: roles (`become_leader`, `become_follower`), the
//! ISR, and the leader's view of its followers for the ISR policy.

use super::{CommandError, Server};
use crate::error::ErrorCode;
use crate::log::now_ms;
use crate::replica::RoleError;

/// On a leader: one follower of one partition, for the ISR policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaState {
    pub topic: String,
    pub partition: i32,
    pub replica_id: i32,
    /// -1: never fetched.
    pub log_end_offset: i64,
    pub last_caught_up_ms: i64,
}

impl From<RoleError> for CommandError {
    fn from(e: RoleError) -> Self {
        match e {
            RoleError::StaleEpoch { .. } => {
                CommandError::Kafka(ErrorCode::FencedLeaderEpoch, e.to_string())
            }
            RoleError::Io(io) => CommandError::Io(io),
        }
    }
}

impl Server {
    /// Makes this broker the partition's leader at `leader_epoch`; it stops fetching for it.
    pub fn become_leader(
        &self,
        topic: &str,
        partition: i32,
        leader_epoch: i32,
        isr: Vec<i32>,
        replicas: Vec<i32>,
    ) -> Result<(), CommandError> {
        let p = self.partition(topic, partition)?;
        p.become_leader(leader_epoch, isr, replicas, now_ms())?;
        // After the role change: a fetcher round still in flight finds its epoch over and
        // drops what it brings.
        self.broker().fetchers.remove(topic, partition);
        Ok(())
    }

    /// Makes this broker a follower of `leader_id` (at `leader_host:leader_port`) at
    /// `leader_epoch`: produces are refused from now on, and the leader's fetcher truncates
    /// the log by epoch, then replicates.
    #[allow(clippy::too_many_arguments)]
    pub fn become_follower(
        &self,
        topic: &str,
        partition: i32,
        leader_epoch: i32,
        leader_id: i32,
        leader_host: &str,
        leader_port: u16,
        replicas: Vec<i32>,
    ) -> Result<(), CommandError> {
        let p = self.partition(topic, partition)?;
        if leader_id == self.broker().config.node_id {
            return Err(CommandError::Kafka(
                ErrorCode::InvalidRequest,
                "a replica cannot follow itself".into(),
            ));
        }
        p.become_follower(leader_epoch, leader_id, replicas)?;
        self.broker()
            .fetchers
            .add(leader_id, leader_host, leader_port, p, leader_epoch);
        Ok(())
    }

    /// On the leader: replaces the ISR for `leader_epoch` (FENCED_LEADER_EPOCH when older,
    /// UNKNOWN_LEADER_EPOCH when newer than ours); the high watermark is recomputed.
    pub fn set_isr(
        &self,
        topic: &str,
        partition: i32,
        isr: Vec<i32>,
        leader_epoch: i32,
    ) -> Result<(), CommandError> {
        let p = self.partition(topic, partition)?;
        p.set_isr(isr, leader_epoch)?;
        Ok(())
    }

    /// Every follower of every partition this broker leads.
    pub fn replica_states(&self) -> Vec<ReplicaState> {
        let mut out = Vec::new();
        for p in self.broker().partitions.all() {
            for f in p.follower_states() {
                out.push(ReplicaState {
                    topic: p.topic().to_string(),
                    partition: p.index(),
                    replica_id: f.replica_id,
                    log_end_offset: f.log_end_offset,
                    last_caught_up_ms: f.last_caught_up_ms,
                });
            }
        }
        out
    }
}
