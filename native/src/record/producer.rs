//! Idempotent-producer state per partition: producer id, epoch and the last five batches'
//! sequences (Kafka's `ProducerStateManager`). (Interface fixed; bodies being implemented.)

use std::path::Path;

use super::batch::BatchHeader;
use crate::error::ErrorCode;

/// An earlier batch that a retried produce duplicates: answer with its offsets, append nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DuplicateBatch {
    pub base_offset: i64,
    pub last_offset: i64,
    pub timestamp: i64,
}

#[derive(Debug, Default)]
pub struct ProducerStateManager {}

impl ProducerStateManager {
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks a batch about to be appended as leader: `Ok(None)` to append it,
    /// `Ok(Some(dup))` for a retried duplicate, or Kafka's error for gaps and stale epochs.
    pub fn check(&self, header: &BatchHeader) -> Result<Option<DuplicateBatch>, ErrorCode> {
        let _ = header;
        todo!("record::producer::check")
    }

    /// Records an appended batch (as leader, as follower, or replayed during recovery);
    /// `header.base_offset` is the assigned offset.
    pub fn update(&mut self, header: &BatchHeader, append_time_ms: i64) {
        let _ = (header, append_time_ms);
        todo!("record::producer::update")
    }

    /// Forgets state for batches at or above `offset` (log truncation).
    pub fn truncate_to(&mut self, offset: i64) {
        let _ = offset;
        todo!("record::producer::truncate_to")
    }

    /// Writes `<offset>.snapshot` (20-digit name) in `dir`.
    pub fn write_snapshot(&self, dir: &Path, offset: i64) -> std::io::Result<()> {
        let _ = (dir, offset);
        todo!("record::producer::write_snapshot")
    }

    /// Loads the newest valid snapshot at or below `max_offset`; returns the state and the
    /// offset to replay the log from (0 when there is none).
    pub fn load_snapshot(dir: &Path, max_offset: i64) -> std::io::Result<(Self, i64)> {
        let _ = (dir, max_offset);
        todo!("record::producer::load_snapshot")
    }
}
