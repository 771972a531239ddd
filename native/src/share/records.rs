//! The values a share-partition takes in and gives out: record states and acknowledgement
//! types with their wire and persisted codes, the log batches a read found, the persisted
//! state batches, and the group's limits.

/// Kafka's record states, with the codes `__share_group_state` stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordState {
    Available = 0,
    Acquired = 1,
    Acknowledged = 2,
    Archived = 4,
}

impl RecordState {
    /// A persisted state code; ARCHIVING (3, a dead-letter hand-off in progress) is taken as
    /// ARCHIVED: ferrolog has no dead-letter queue, and the record is not delivered again.
    pub fn from_code(code: i8) -> RecordState {
        match code {
            0 | 1 => RecordState::Available,
            2 => RecordState::Acknowledged,
            _ => RecordState::Archived,
        }
    }

    pub(super) fn is_done(self) -> bool {
        matches!(self, RecordState::Acknowledged | RecordState::Archived)
    }
}

/// ShareAcknowledge's acknowledgement types (KIP-932; RENEW is KIP-1222's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckType {
    /// Offsets that hold no record (compacted away, transaction markers): done with.
    Gap = 0,
    Accept = 1,
    Release = 2,
    Reject = 3,
    Renew = 4,
}

impl AckType {
    pub fn from_code(code: i8) -> Option<AckType> {
        Some(match code {
            0 => AckType::Gap,
            1 => AckType::Accept,
            2 => AckType::Release,
            3 => AckType::Reject,
            4 => AckType::Renew,
            _ => return None,
        })
    }
}

/// A batch of the log as a read found it: its offsets, and whether it belongs to an aborted
/// transaction (read_committed archives those rather than handing them out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogBatch {
    pub base: i64,
    pub last: i64,
    pub aborted: bool,
}

/// How a fetch acquires new records from the log (ShareFetch v2's ShareAcquireMode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AcquireMode {
    /// batch_optimized: whole log batches, the last one past the record limit; adjacent ones
    /// joined into acquired ranges of up to `batch_size` records (the request's BatchSize).
    Batches { batch_size: i64 },
    /// record_limit (KIP-1206): never more than the record limit, the rest of a log batch
    /// entering the window as available.
    Exact,
}

/// A range of offsets in one state, as `__share_group_state` keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateBatch {
    pub first_offset: i64,
    pub last_offset: i64,
    pub state: i8,
    pub delivery_count: i16,
}

/// The group's settings a share-partition applies (Kafka's names).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// share.record.lock.duration.ms
    pub lock_ms: u64,
    /// share.delivery.count.limit
    pub delivery_limit: u16,
    /// share.partition.max.record.locks: most records in flight.
    pub max_in_flight: i64,
}

/// An acknowledgement refused: the offsets are not all acquired by that member (Kafka's
/// INVALID_RECORD_STATE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckError {
    InvalidRecordState,
}
