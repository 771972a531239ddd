//! Share groups' data path (KIP-932): the records of one partition as one share group sees
//! them, acquired by members a batch at a time, acknowledged one by one, released or timed out
//! and delivered again with a higher delivery count, archived past the delivery limit.
//!
//! `partition` is the state machine of one share-partition (`records` its values), pure (offsets, time and member in,
//! state out): the ShareFetch and ShareAcknowledge handlers (`server::api::share`) drive it
//! under the partition's lock, and its persisted form (`StateBatch`es and a start offset) is
//! what the share coordinator keeps in `__share_group_state`. `session` holds the share
//! sessions, `manager` the share-partitions this broker leads and the groups' settings.

pub mod manager;
pub mod partition;
pub mod records;
pub mod session;

pub use manager::{AutoReset, GroupSettings, Loaded, ShareManager, SpEntry, SpKey};
pub use partition::SharePartition;
pub use records::{AckError, AckType, AcquireMode, Limits, LogBatch, RecordState, StateBatch};
