//! The wire side of fetch sessions (KIP-227), shared by the broker's session cache
//! (`crate::server::fetch_session`) and the follower's session (`crate::replica::fetcher`):
//! Kafka's `FetchMetadata` and the per-partition fields a session remembers.

/// No session: the response carries no session, the request opens none.
pub const INVALID_SESSION_ID: i32 = 0;
/// A full fetch that opens a session (closing the one it names, if any).
pub const INITIAL_EPOCH: i32 = 0;
/// A full fetch that closes the session it names and opens none.
pub const FINAL_EPOCH: i32 = -1;

/// The epoch that follows `epoch` (Kafka's `FetchMetadata.nextEpoch`): wraps to 1, never back
/// to the initial epoch, and a closing epoch stays closing.
pub fn next_epoch(epoch: i32) -> i32 {
    if epoch < 0 {
        FINAL_EPOCH
    } else if epoch == i32::MAX {
        1
    } else {
        epoch + 1
    }
}

/// The session fields of a Fetch request (Kafka's `FetchMetadata`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchMetadata {
    pub session_id: i32,
    pub epoch: i32,
}

impl FetchMetadata {
    /// Neither in a session nor asking for one.
    pub const SESSIONLESS: FetchMetadata = FetchMetadata {
        session_id: INVALID_SESSION_ID,
        epoch: FINAL_EPOCH,
    };
    /// A full fetch asking for a new session.
    pub const INITIAL: FetchMetadata = FetchMetadata {
        session_id: INVALID_SESSION_ID,
        epoch: INITIAL_EPOCH,
    };

    pub fn is_full(&self) -> bool {
        self.epoch == INITIAL_EPOCH || self.epoch == FINAL_EPOCH
    }

    /// The next full fetch closes this session and asks for a new one (after an error).
    pub fn close_existing(self) -> FetchMetadata {
        FetchMetadata {
            session_id: self.session_id,
            epoch: INITIAL_EPOCH,
        }
    }
}

/// A partition's fields of a Fetch request: what a session remembers between requests, and
/// what an incremental request sends again only when it changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchParams {
    pub fetch_offset: i64,
    /// The fetcher's own log start offset (followers; -1 from consumers).
    pub log_start_offset: i64,
    pub max_bytes: i32,
    pub current_leader_epoch: i32,
    pub last_fetched_epoch: i32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs_follow_kafkas_sequence() {
        assert_eq!(next_epoch(INITIAL_EPOCH), 1);
        assert_eq!(next_epoch(41), 42);
        assert_eq!(next_epoch(i32::MAX), 1, "wraps past the initial epoch");
        assert_eq!(next_epoch(FINAL_EPOCH), FINAL_EPOCH);
        assert!(FetchMetadata::SESSIONLESS.is_full());
        assert!(FetchMetadata::INITIAL.is_full());
        let incremental = FetchMetadata {
            session_id: 5,
            epoch: 1,
        };
        assert!(!incremental.is_full());
        assert_eq!(incremental.close_existing().epoch, INITIAL_EPOCH);
        assert_eq!(incremental.close_existing().session_id, 5);
    }
}
