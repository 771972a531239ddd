//! One partition's log. (Interface fixed; bodies being implemented.)

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::BytesMut;

use super::LogConfig;
use crate::error::ErrorCode;

/// Result of an append as leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaderAppend {
    pub base_offset: i64,
    pub last_offset: i64,
    /// -1 unless the topic uses LogAppendTime.
    pub log_append_time: i64,
    pub log_start_offset: i64,
    /// True when the batch was a retried duplicate and was not appended again.
    pub duplicate: bool,
}

/// A byte range of a segment file holding whole batches, for sendfile. Empty when
/// `length == 0`.
#[derive(Debug, Clone)]
pub struct FetchSlice {
    pub file: Option<Arc<File>>,
    pub position: u64,
    pub length: u32,
}

/// An answer to ListOffsets by timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimestampOffset {
    pub offset: i64,
    pub timestamp: i64,
    pub leader_epoch: i32,
}

#[derive(Debug)]
pub struct Log {
    pub dir: PathBuf,
}

impl Log {
    /// Opens or creates the log in `dir`, recovering from `recovery_point`: every batch after
    /// it is CRC-checked and a torn tail is truncated; indexes and producer state are rebuilt.
    pub fn open(dir: &Path, config: LogConfig, recovery_point: i64, log_start_offset: i64, high_watermark: i64) -> std::io::Result<Log> {
        let _ = (dir, config, recovery_point, log_start_offset, high_watermark);
        todo!("log::Log::open")
    }

    /// Validates, checks producer state, assigns offsets from the log end offset, stamps
    /// `leader_epoch`, appends, updates indexes and producer state.
    pub fn append_as_leader(&mut self, batch: BytesMut, leader_epoch: i32, now_ms: i64) -> Result<LeaderAppend, ErrorCode> {
        let _ = (batch, leader_epoch, now_ms);
        todo!("log::Log::append_as_leader")
    }

    /// Batches starting at the one that contains `offset`, whole batches only, ending before
    /// `max_offset` (exclusive, the high watermark for consumers); at least one batch when
    /// `min_one` even if larger than `max_bytes`. OFFSET_OUT_OF_RANGE outside
    /// [log start, log end].
    pub fn read(&self, offset: i64, max_bytes: u32, max_offset: i64, min_one: bool) -> Result<FetchSlice, ErrorCode> {
        let _ = (offset, max_bytes, max_offset, min_one);
        todo!("log::Log::read")
    }

    /// The first offset whose timestamp is >= `timestamp`, with its batch's timestamp and
    /// leader epoch; None if every record is older.
    pub fn offset_for_timestamp(&self, timestamp: i64) -> Option<TimestampOffset> {
        let _ = timestamp;
        todo!("log::Log::offset_for_timestamp")
    }

    /// The largest timestamp in the log and its offset (ListOffsets -3, MAX_TIMESTAMP).
    pub fn max_timestamp(&self) -> Option<TimestampOffset> {
        todo!("log::Log::max_timestamp")
    }

    pub fn log_start_offset(&self) -> i64 {
        todo!()
    }
    pub fn log_end_offset(&self) -> i64 {
        todo!()
    }
    pub fn high_watermark(&self) -> i64 {
        todo!()
    }
    /// Sets the high watermark (clamped to [log start, log end]).
    pub fn set_high_watermark(&mut self, hw: i64) {
        let _ = hw;
        todo!()
    }
    pub fn recovery_point(&self) -> i64 {
        todo!()
    }
    pub fn size_bytes(&self) -> u64 {
        todo!()
    }
    pub fn config(&self) -> &LogConfig {
        todo!()
    }
    pub fn set_config(&mut self, config: LogConfig) {
        let _ = config;
        todo!()
    }

    /// Records that `epoch` starts at the current log end offset (leader-epoch checkpoint).
    pub fn assign_epoch_start(&mut self, epoch: i32) -> std::io::Result<()> {
        let _ = epoch;
        todo!()
    }
    pub fn latest_epoch(&self) -> Option<i32> {
        todo!()
    }
    /// OffsetsForLeaderEpoch: the largest epoch <= `epoch` and the offset where it ends.
    pub fn end_offset_for_epoch(&self, epoch: i32) -> Option<(i32, i64)> {
        let _ = epoch;
        todo!()
    }

    /// Moves the log start offset forward (DeleteRecords); deletes segments wholly before it.
    pub fn delete_records_before(&mut self, offset: i64) -> Result<i64, ErrorCode> {
        let _ = offset;
        todo!()
    }
    /// Removes everything at and after `offset` (follower truncation).
    pub fn truncate_to(&mut self, offset: i64) -> std::io::Result<()> {
        let _ = offset;
        todo!()
    }
    /// Deletes segments past `retention.ms` / `retention.bytes`; returns how many went.
    pub fn apply_retention(&mut self, now_ms: i64) -> std::io::Result<usize> {
        let _ = now_ms;
        todo!()
    }
    /// Rolls the active segment if it is older than `segment.ms`.
    pub fn maybe_roll(&mut self, now_ms: i64) -> std::io::Result<()> {
        let _ = now_ms;
        todo!()
    }
    /// fsyncs everything up to the log end offset and moves the recovery point there.
    pub fn flush(&mut self) -> std::io::Result<()> {
        todo!()
    }
    /// Flushes, writes the producer snapshot; the log is then clean.
    pub fn close(&mut self) -> std::io::Result<()> {
        todo!()
    }
}
