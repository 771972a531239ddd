//! The follower's side of a fetch session with its leader (Kafka's `FetchSessionHandler`, as
//! its replica fetcher uses it): the first fetch names every partition and opens a session;
//! later ones send only the partitions whose fetch position changed, added or left, and the
//! leader answers only the partitions with something new. Any session error, a response that
//! does not fit the session, or a lost connection starts over with a full fetch.

use std::collections::{HashMap, HashSet};

use super::Key;
use crate::error::ErrorCode;
use crate::protocol::fetch_session::{
    next_epoch, FetchMetadata, FetchParams, INITIAL_EPOCH, INVALID_SESSION_ID,
};

#[derive(Debug)]
pub(super) struct FetchSession {
    /// What the next request carries (Kafka's `nextMetadata`).
    next: FetchMetadata,
    /// The session's partitions as the leader knows them: what was last sent for each.
    partitions: HashMap<Key, FetchParams>,
}

/// One request's worth of the session.
#[derive(Debug)]
pub(super) struct Prepared {
    pub metadata: FetchMetadata,
    /// The partitions to name, in the order given to [`FetchSession::prepare`].
    pub send: Vec<(Key, FetchParams)>,
    pub forget: Vec<Key>,
}

/// What became of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answer {
    /// Apply the partitions it carries; the others have nothing new.
    Apply,
    /// The session broke (a session error or a response that does not fit it): apply
    /// nothing; the next fetch is full and may follow at once.
    Restart,
    /// Any other top-level error: apply nothing, back off.
    Failed,
}

impl FetchSession {
    pub fn new() -> Self {
        FetchSession {
            next: FetchMetadata::INITIAL,
            partitions: HashMap::new(),
        }
    }

    /// The request for fetching `wanted` (every partition to fetch now).
    pub fn prepare(&mut self, wanted: Vec<(Key, FetchParams)>) -> Prepared {
        if self.next.is_full() {
            self.partitions = wanted.iter().cloned().collect();
            return Prepared {
                metadata: self.next,
                send: wanted,
                forget: Vec::new(),
            };
        }
        let keep: HashSet<&Key> = wanted.iter().map(|(k, _)| k).collect();
        let mut forget = Vec::new();
        self.partitions.retain(|key, _| {
            let stays = keep.contains(key);
            if !stays {
                forget.push(key.clone());
            }
            stays
        });
        let mut send = Vec::new();
        for (key, params) in wanted {
            if self.partitions.insert(key.clone(), params) != Some(params) {
                send.push((key, params));
            }
        }
        Prepared {
            metadata: self.next,
            send,
            forget,
        }
    }

    /// Takes the response to `prepared`: its error, session id and the partitions it answers.
    pub fn on_response<'a>(
        &mut self,
        prepared: &Prepared,
        error_code: i16,
        session_id: i32,
        answered: impl Iterator<Item = &'a Key>,
    ) -> Answer {
        if error_code != 0 {
            self.next = if error_code == ErrorCode::FetchSessionIdNotFound.code() {
                FetchMetadata::INITIAL
            } else {
                prepared.metadata.close_existing()
            };
            return match ErrorCode::from_code(error_code) {
                Some(ErrorCode::FetchSessionIdNotFound | ErrorCode::InvalidFetchSessionEpoch) => {
                    Answer::Restart
                }
                _ => Answer::Failed,
            };
        }
        let answered: HashSet<&Key> = answered.collect();
        let full = prepared.metadata.is_full();
        // A full response answers exactly the session's partitions, an incremental one some.
        let fits = answered.iter().all(|k| self.partitions.contains_key(*k))
            && (!full || answered.len() == self.partitions.len());
        if !fits {
            self.next = if full {
                FetchMetadata::INITIAL
            } else {
                prepared.metadata.close_existing()
            };
            return Answer::Restart;
        }
        self.next = if session_id == INVALID_SESSION_ID {
            // none opened, or the leader closed ours
            FetchMetadata::INITIAL
        } else {
            let epoch = if full {
                INITIAL_EPOCH
            } else {
                prepared.metadata.epoch
            };
            FetchMetadata {
                session_id,
                epoch: next_epoch(epoch),
            }
        };
        Answer::Apply
    }

    /// The request failed on the connection: the next fetch replaces the session.
    pub fn on_error(&mut self) {
        self.next = self.next.close_existing();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(p: i32) -> Key {
        ("t".to_string(), p)
    }

    fn at(offset: i64) -> FetchParams {
        FetchParams {
            fetch_offset: offset,
            log_start_offset: 0,
            max_bytes: 1 << 20,
            current_leader_epoch: 3,
            last_fetched_epoch: 3,
        }
    }

    fn keys(prepared: &Prepared) -> Vec<i32> {
        prepared.send.iter().map(|(k, _)| k.1).collect()
    }

    #[test]
    fn full_then_only_changes() {
        let mut s = FetchSession::new();
        let first = s.prepare(vec![(key(0), at(5)), (key(1), at(7))]);
        assert_eq!(first.metadata, FetchMetadata::INITIAL);
        assert_eq!(keys(&first), vec![0, 1]);
        let all = [key(0), key(1)];
        assert_eq!(s.on_response(&first, 0, 42, all.iter()), Answer::Apply);

        // partition 0 moved on, 1 did not, 2 joined
        let second = s.prepare(vec![(key(0), at(6)), (key(1), at(7)), (key(2), at(0))]);
        assert_eq!(
            second.metadata,
            FetchMetadata {
                session_id: 42,
                epoch: 1
            }
        );
        assert_eq!(keys(&second), vec![0, 2]);
        assert!(second.forget.is_empty());
        assert_eq!(
            s.on_response(&second, 0, 42, [key(0)].iter()),
            Answer::Apply
        );

        // partition 1 left (it truncates, say): forgotten; nothing else changed
        let third = s.prepare(vec![(key(0), at(6)), (key(2), at(0))]);
        assert_eq!(third.metadata.epoch, 2);
        assert!(third.send.is_empty());
        assert_eq!(third.forget, vec![key(1)]);
        assert_eq!(s.on_response(&third, 0, 42, [].iter()), Answer::Apply);
        // it comes back: sent in full again
        let fourth = s.prepare(vec![(key(0), at(6)), (key(1), at(7)), (key(2), at(0))]);
        assert_eq!(keys(&fourth), vec![1]);
    }

    #[test]
    fn session_errors_start_over_with_a_full_fetch() {
        let mut s = FetchSession::new();
        let first = s.prepare(vec![(key(0), at(5))]);
        s.on_response(&first, 0, 42, [key(0)].iter());
        let second = s.prepare(vec![(key(0), at(5))]);
        let epoch = ErrorCode::InvalidFetchSessionEpoch.code();
        assert_eq!(s.on_response(&second, epoch, 0, [].iter()), Answer::Restart);
        // closes 42, opens another, naming every partition
        let third = s.prepare(vec![(key(0), at(5))]);
        assert_eq!(
            third.metadata,
            FetchMetadata {
                session_id: 42,
                epoch: 0
            }
        );
        assert_eq!(keys(&third), vec![0]);
        let gone = ErrorCode::FetchSessionIdNotFound.code();
        assert_eq!(s.on_response(&third, gone, 0, [].iter()), Answer::Restart);
        assert_eq!(
            s.prepare(vec![(key(0), at(5))]).metadata,
            FetchMetadata::INITIAL
        );
        // any other top-level error backs off, and the next fetch is full too
        let other = s.prepare(vec![(key(0), at(5))]);
        let unknown = ErrorCode::UnknownServerError.code();
        assert_eq!(s.on_response(&other, unknown, 0, [].iter()), Answer::Failed);
        assert!(s.prepare(vec![(key(0), at(5))]).metadata.is_full());
    }

    #[test]
    fn responses_that_do_not_fit_the_session_restart_it() {
        let mut s = FetchSession::new();
        let first = s.prepare(vec![(key(0), at(5)), (key(1), at(5))]);
        // a full response missing a partition
        assert_eq!(
            s.on_response(&first, 0, 42, [key(0)].iter()),
            Answer::Restart
        );
        let again = s.prepare(vec![(key(0), at(5)), (key(1), at(5))]);
        assert_eq!(again.metadata, FetchMetadata::INITIAL);
        s.on_response(&again, 0, 43, [key(0), key(1)].iter());
        let incremental = s.prepare(vec![(key(0), at(5)), (key(1), at(5))]);
        // an incremental response naming a partition outside the session
        assert_eq!(
            s.on_response(&incremental, 0, 43, [key(9)].iter()),
            Answer::Restart
        );
        assert_eq!(
            s.prepare(vec![(key(0), at(5))]).metadata,
            FetchMetadata {
                session_id: 43,
                epoch: 0
            }
        );
    }

    #[test]
    fn no_session_from_the_leader_means_full_fetches() {
        let mut s = FetchSession::new();
        let first = s.prepare(vec![(key(0), at(5))]);
        assert_eq!(s.on_response(&first, 0, 0, [key(0)].iter()), Answer::Apply);
        assert_eq!(
            s.prepare(vec![(key(0), at(5))]).metadata,
            FetchMetadata::INITIAL
        );
        // a lost connection after a session was opened: close it with the next full fetch
        let mut s = FetchSession::new();
        let first = s.prepare(vec![(key(0), at(5))]);
        s.on_response(&first, 0, 42, [key(0)].iter());
        s.on_error();
        let next = s.prepare(vec![(key(0), at(5))]);
        assert_eq!(
            next.metadata,
            FetchMetadata {
                session_id: 42,
                epoch: 0
            }
        );
        assert_eq!(keys(&next), vec![0]);
    }
}
