//! Validation of a produced batch as Kafka's `LogValidator` does it, and in-place offset
//! assignment. (Interface fixed; bodies being implemented.)

use bytes::BytesMut;

use super::batch::BatchHeader;
use crate::error::ErrorCode;

/// `message.timestamp.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimestampType {
    CreateTime,
    LogAppendTime,
}

/// A topic's `compression.type`: `producer` keeps what the producer sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetCompression {
    Producer,
    Uncompressed,
    Gzip,
    Snappy,
    Lz4,
    Zstd,
}

/// What validation needs from the topic's config.
#[derive(Debug, Clone)]
pub struct ValidationConfig {
    pub max_message_bytes: i32,
    pub timestamp_type: TimestampType,
    pub timestamp_before_max_ms: i64,
    pub timestamp_after_max_ms: i64,
    pub target_compression: TargetCompression,
    /// `cleanup.policy` contains `compact`: every record needs a key.
    pub compacted: bool,
}

/// A batch that passed validation, ready for offsets to be assigned.
#[derive(Debug)]
pub struct ValidatedBatch {
    /// The batch bytes: the producer's own (patched in place) or rebuilt when recompressed.
    pub bytes: BytesMut,
    pub header: BatchHeader,
    /// Largest timestamp in the batch (LogAppendTime: the append time).
    pub max_timestamp: i64,
    /// Offset delta of the record holding `max_timestamp`.
    pub offset_delta_of_max_timestamp: i32,
    /// The append time when the topic uses LogAppendTime, else -1.
    pub log_append_time: i64,
}

/// Request-level checks of Produce v3+: exactly one batch, magic 2, no zstd before v7.
pub fn validate_produce_records(records: &[u8], produce_version: i16) -> Result<(), ErrorCode> {
    let _ = (records, produce_version);
    todo!("record::validate::validate_produce_records")
}

/// Validates one producer batch (sizes, CRC, counts, offset deltas, timestamps, keys,
/// control/producer rules) and recompresses it if the topic's compression differs.
pub fn validate_batch(
    batch: BytesMut,
    config: &ValidationConfig,
    now_ms: i64,
) -> Result<ValidatedBatch, ErrorCode> {
    let _ = (batch, config, now_ms);
    todo!("record::validate::validate_batch")
}

/// Sets BaseOffset and PartitionLeaderEpoch in place (both outside the CRC).
pub fn assign_offsets(batch: &mut [u8], base_offset: i64, partition_leader_epoch: i32) {
    super::batch::set_base_offset(batch, base_offset);
    super::batch::set_partition_leader_epoch(batch, partition_leader_epoch);
}
