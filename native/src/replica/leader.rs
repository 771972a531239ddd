//! The leader's view of its followers: each one's log end offset (its fetch offset) and when
//! it was last caught up, from which the high watermark and the control plane's ISR policy
//! follow.

use super::partition::{Partition, Progress, Role, RoleState};

/// What a leader knows of one follower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FollowerProgress {
    /// The follower's log end offset as of its last fetch; -1 until it fetches.
    pub(crate) log_end_offset: i64,
    /// Kafka's lastCaughtUpTimeMs: the latest time the follower was known to hold everything
    /// the leader had.
    pub(crate) last_caught_up_ms: i64,
    /// The leader's log end offset and the time of the follower's previous fetch.
    last_fetch_leader_leo: i64,
    last_fetch_ms: i64,
}

impl FollowerProgress {
    fn unknown(last_caught_up_ms: i64) -> Self {
        FollowerProgress {
            log_end_offset: -1,
            last_caught_up_ms,
            last_fetch_leader_leo: -1,
            last_fetch_ms: 0,
        }
    }

    /// Kafka's rule: a fetch at or past the leader's end offset means caught up now; one at or
    /// past where the leader ended at the previous fetch means caught up as of that fetch.
    fn fetched(&mut self, fetch_offset: i64, leader_leo: i64, now_ms: i64) {
        if fetch_offset >= leader_leo {
            self.last_caught_up_ms = self.last_caught_up_ms.max(now_ms);
        } else if self.last_fetch_leader_leo >= 0 && fetch_offset >= self.last_fetch_leader_leo {
            self.last_caught_up_ms = self.last_caught_up_ms.max(self.last_fetch_ms);
        }
        self.log_end_offset = fetch_offset;
        self.last_fetch_leader_leo = leader_leo;
        self.last_fetch_ms = now_ms;
    }
}

/// One follower of one partition this broker leads, for the ISR policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowerState {
    pub replica_id: i32,
    pub log_end_offset: i64,
    pub last_caught_up_ms: i64,
}

impl Partition {
    /// On a new leadership every follower's offset is unknown; ISR members count as caught up
    /// now so the ISR policy gives them a full `replica.lag.time.max.ms` (as Kafka's
    /// `resetReplicaState`). A leader re-elected at a newer epoch keeps what it knew.
    pub(super) fn reset_followers(&self, st: &mut RoleState, was_leader: bool, now_ms: i64) {
        if !was_leader {
            st.followers.clear();
        }
        let replicas = st.replicas.clone();
        st.followers
            .retain(|id, _| replicas.contains(id) && *id != self.node_id);
        for id in replicas.into_iter().filter(|id| *id != self.node_id) {
            let caught_up = if st.isr.contains(&id) { now_ms } else { 0 };
            st.followers
                .entry(id)
                .or_insert_with(|| FollowerProgress::unknown(caught_up));
        }
    }

    /// A follower fetched from `fetch_offset`: everything before it is on that replica, so it
    /// is the replica's log end offset, and the high watermark may advance. The caller has
    /// checked the fetch is valid (in range, no divergence).
    pub fn record_follower_fetch(&self, replica: i32, fetch_offset: i64, now_ms: i64) {
        let mut st = self.state.write();
        if st.role != Role::Leader || replica == self.node_id {
            return;
        }
        let mut log = self.log.write();
        let leader_leo = log.log_end_offset();
        let Some(follower) = st.followers.get_mut(&replica) else {
            return;
        };
        follower.fetched(fetch_offset, leader_leo, now_ms);
        let progress = self.advance_hw(&st, &mut log);
        drop(log);
        drop(st);
        self.publish(progress);
    }

    /// Every follower's progress (empty unless this replica leads).
    pub fn follower_states(&self) -> Vec<FollowerState> {
        let st = self.state.read();
        if st.role != Role::Leader {
            return Vec::new();
        }
        let mut out: Vec<FollowerState> = st
            .followers
            .iter()
            .map(|(id, f)| FollowerState {
                replica_id: *id,
                log_end_offset: f.log_end_offset,
                last_caught_up_ms: f.last_caught_up_ms,
            })
            .collect();
        out.sort_by_key(|f| f.replica_id);
        out
    }

    /// HW = min LEO over the ISR; members whose LEO is not known yet hold it where it is, and
    /// it never moves backwards on the leader. As Kafka 4.4's leaders (KIP-966), it does not
    /// move while the ISR is smaller than `min.insync.replicas` (at most the replica count):
    /// then every committed record is on each replica that left the ISR last, which is what
    /// lets the controller elect one of them (an eligible leader replica) without loss.
    pub(super) fn advance_hw(&self, st: &RoleState, log: &mut crate::log::Log) -> Progress {
        let leo = log.log_end_offset();
        let current = log.high_watermark();
        if st.under_min_isr(log.config().min_insync_replicas) {
            return Progress {
                high_watermark: current,
                log_end_offset: leo,
            };
        }
        let mut min = leo;
        for replica in st.isr.iter().filter(|r| **r != self.node_id) {
            let theirs = st
                .followers
                .get(replica)
                .map(|f| f.log_end_offset)
                .filter(|o| *o >= 0);
            min = min.min(theirs.unwrap_or(current));
        }
        if min > current {
            log.set_high_watermark(min);
        }
        Progress {
            high_watermark: log.high_watermark(),
            log_end_offset: leo,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FollowerProgress;

    #[test]
    fn caught_up_follows_kafkas_rule() {
        let mut f = FollowerProgress::unknown(0);
        f.fetched(5, 10, 1_000);
        assert_eq!(
            f.last_caught_up_ms, 0,
            "behind, and no earlier fetch to compare with"
        );
        // reached where the leader ended at the previous fetch: caught up as of then
        f.fetched(10, 12, 2_000);
        assert_eq!(f.last_caught_up_ms, 1_000);
        // still behind the previous end: no change
        f.fetched(11, 14, 3_000);
        assert_eq!(f.last_caught_up_ms, 1_000);
        // at the leader's end: caught up now
        f.fetched(14, 14, 4_000);
        assert_eq!((f.last_caught_up_ms, f.log_end_offset), (4_000, 14));
    }
}
