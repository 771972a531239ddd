//! Share sessions (KIP-932), as Kafka's `ShareSessionCache` keeps them: one per (group,
//! member), holding the share-partitions the member fetches and the epoch its next request
//! must carry. Epoch 0 opens (or replaces) a session, -1 closes it, any other must match.
//! A session belongs to the connection that opened it; when that connection closes, the
//! session goes and so do the member's locks.

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::ErrorCode;

/// A share-partition by topic id and partition index.
pub type TopicPartition = ([u8; 16], i32);

pub const INITIAL_EPOCH: i32 = 0;
pub const FINAL_EPOCH: i32 = -1;

#[derive(Debug)]
struct Session {
    epoch: i32,
    partitions: Vec<TopicPartition>,
    connection_id: u64,
}

/// What a ShareFetch reads once its session is settled.
#[derive(Debug, PartialEq, Eq)]
pub struct FetchContext {
    /// Every partition of the session, in its order (none when closing).
    pub partitions: Vec<TopicPartition>,
    /// Answered even without records: all of them for a new session, the newly added ones
    /// for an incremental request.
    pub announce: Vec<TopicPartition>,
    /// The request closes the session (epoch -1): it fetches nothing, and the member's
    /// records are released once its acknowledgements are applied.
    pub closing: bool,
}

#[derive(Debug, Default)]
pub struct ShareSessions {
    sessions: HashMap<(Arc<str>, Arc<str>), Session>,
}

fn next_epoch(epoch: i32) -> i32 {
    if epoch == i32::MAX {
        1
    } else {
        epoch + 1
    }
}

impl ShareSessions {
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Settles a ShareFetch's session: opens one at epoch 0 (replacing the member's old one,
    /// whose records stay acquired until their locks run out, as Kafka's), adds and forgets
    /// partitions of an incremental one whose epoch matches, or finds the one to close.
    #[allow(clippy::too_many_arguments)]
    pub fn fetch(
        &mut self,
        group: &Arc<str>,
        member: &Arc<str>,
        epoch: i32,
        connection_id: u64,
        requested: &[TopicPartition],
        forgotten: &[TopicPartition],
        max_sessions: usize,
    ) -> Result<FetchContext, ErrorCode> {
        let key = (Arc::clone(group), Arc::clone(member));
        match epoch {
            INITIAL_EPOCH => {
                if !self.sessions.contains_key(&key) && self.sessions.len() >= max_sessions {
                    return Err(ErrorCode::ShareSessionLimitReached);
                }
                let mut partitions = Vec::with_capacity(requested.len());
                for tp in requested {
                    if !partitions.contains(tp) {
                        partitions.push(*tp);
                    }
                }
                self.sessions.insert(
                    key,
                    Session {
                        epoch: 1,
                        partitions: partitions.clone(),
                        connection_id,
                    },
                );
                Ok(FetchContext {
                    announce: partitions.clone(),
                    partitions,
                    closing: false,
                })
            }
            FINAL_EPOCH => {
                let session = self
                    .sessions
                    .get(&key)
                    .ok_or(ErrorCode::ShareSessionNotFound)?;
                Ok(FetchContext {
                    partitions: session.partitions.clone(),
                    announce: Vec::new(),
                    closing: true,
                })
            }
            _ => {
                let session = self
                    .sessions
                    .get_mut(&key)
                    .ok_or(ErrorCode::ShareSessionNotFound)?;
                if session.epoch != epoch {
                    return Err(ErrorCode::InvalidShareSessionEpoch);
                }
                session.partitions.retain(|tp| !forgotten.contains(tp));
                let mut announce = Vec::new();
                for tp in requested {
                    if !session.partitions.contains(tp) {
                        session.partitions.push(*tp);
                        announce.push(*tp);
                    }
                }
                session.epoch = next_epoch(session.epoch);
                Ok(FetchContext {
                    partitions: session.partitions.clone(),
                    announce,
                    closing: false,
                })
            }
        }
    }

    /// Settles a ShareAcknowledge's session: the epoch must match (and moves on), -1 finds
    /// the session to close; epoch 0 is not an acknowledgement's. Returns whether it closes.
    pub fn acknowledge(
        &mut self,
        group: &Arc<str>,
        member: &Arc<str>,
        epoch: i32,
    ) -> Result<bool, ErrorCode> {
        if epoch == INITIAL_EPOCH {
            return Err(ErrorCode::InvalidShareSessionEpoch);
        }
        let key = (Arc::clone(group), Arc::clone(member));
        let session = self
            .sessions
            .get_mut(&key)
            .ok_or(ErrorCode::ShareSessionNotFound)?;
        if epoch == FINAL_EPOCH {
            return Ok(true);
        }
        if session.epoch != epoch {
            return Err(ErrorCode::InvalidShareSessionEpoch);
        }
        session.epoch = next_epoch(session.epoch);
        Ok(false)
    }

    /// Removes the member's session; returns its partitions.
    pub fn close(&mut self, group: &Arc<str>, member: &Arc<str>) -> Vec<TopicPartition> {
        let key = (Arc::clone(group), Arc::clone(member));
        self.sessions
            .remove(&key)
            .map(|s| s.partitions)
            .unwrap_or_default()
    }

    /// Removes the sessions the connection opened; returns each one's group, member and
    /// partitions.
    pub fn connection_closed(
        &mut self,
        connection_id: u64,
    ) -> Vec<(Arc<str>, Arc<str>, Vec<TopicPartition>)> {
        let keys: Vec<_> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.connection_id == connection_id)
            .map(|(k, _)| k.clone())
            .collect();
        keys.into_iter()
            .filter_map(|k| {
                let s = self.sessions.remove(&k)?;
                Some((k.0, k.1, s.partitions))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> (Arc<str>, Arc<str>) {
        (Arc::from("g"), Arc::from("m"))
    }

    const A: TopicPartition = ([1; 16], 0);
    const B: TopicPartition = ([1; 16], 1);

    #[test]
    fn opens_moves_on_and_closes() {
        let (g, m) = names();
        let mut s = ShareSessions::default();
        let ctx = s.fetch(&g, &m, 0, 7, &[A], &[], 10).unwrap();
        assert_eq!(ctx.partitions, vec![A]);
        assert_eq!(ctx.announce, vec![A]);
        assert_eq!(
            s.fetch(&g, &m, 2, 7, &[], &[], 10),
            Err(ErrorCode::InvalidShareSessionEpoch)
        );
        let ctx = s.fetch(&g, &m, 1, 7, &[B], &[A], 10).unwrap();
        assert_eq!(ctx.partitions, vec![B]);
        assert_eq!(ctx.announce, vec![B]);
        assert_eq!(s.acknowledge(&g, &m, 2), Ok(false));
        assert_eq!(
            s.acknowledge(&g, &m, 2),
            Err(ErrorCode::InvalidShareSessionEpoch)
        );
        assert_eq!(
            s.acknowledge(&g, &m, 0),
            Err(ErrorCode::InvalidShareSessionEpoch)
        );
        assert!(s.fetch(&g, &m, -1, 7, &[], &[], 10).unwrap().closing);
        assert_eq!(s.close(&g, &m), vec![B]);
        assert_eq!(
            s.fetch(&g, &m, 3, 7, &[], &[], 10),
            Err(ErrorCode::ShareSessionNotFound)
        );
    }

    #[test]
    fn limits_sessions_and_forgets_a_closed_connection() {
        let (g, m) = names();
        let other: Arc<str> = Arc::from("n");
        let mut s = ShareSessions::default();
        s.fetch(&g, &m, 0, 7, &[A], &[], 1).unwrap();
        assert_eq!(
            s.fetch(&g, &other, 0, 8, &[A], &[], 1),
            Err(ErrorCode::ShareSessionLimitReached)
        );
        // The member's own session is replaced, not refused.
        s.fetch(&g, &m, 0, 9, &[B], &[], 1).unwrap();
        assert!(s.connection_closed(7).is_empty());
        let gone = s.connection_closed(9);
        assert_eq!(gone.len(), 1);
        assert_eq!(gone[0].2, vec![B]);
        assert!(s.is_empty());
    }
}
