//! Validation of a produced batch as Kafka's `LogValidator` does it, and in-place offset
//! assignment. Rules and error codes: `../shared/kafka-protocol/README.md`, section 5.
//!
//! The batch stays the producer's bytes whenever possible: an uncompressed batch is validated
//! by walking its records in place; a compressed one is decompressed (the record count and
//! offset deltas can only be checked that way, Kafka does the same) but written unchanged
//! unless the topic's codec differs or its inner offsets are wrong.

use bytes::BytesMut;

use super::batch::{self, BatchHeader, ATTRIBUTES, ATTR_COMPRESSION_MASK, ATTR_TIMESTAMP_TYPE};
use super::batch::{HEADER_SIZE, LENGTH, LOG_OVERHEAD, MAX_TIMESTAMP};
use super::compression::{compress, decompress_into, Codec};
use super::records::{walk, RecordRef, MIN_RECORD_SIZE};
use super::rejected::{RecordRule, Rejected};
use super::varint::{varint_len, write_varint};
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

impl TargetCompression {
    /// The codec a batch sent with `source` is stored with.
    pub fn resolve(self, source: Codec) -> Codec {
        match self {
            TargetCompression::Producer => source,
            TargetCompression::Uncompressed => Codec::None,
            TargetCompression::Gzip => Codec::Gzip,
            TargetCompression::Snappy => Codec::Snappy,
            TargetCompression::Lz4 => Codec::Lz4,
            TargetCompression::Zstd => Codec::Zstd,
        }
    }
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

/// Bound on a compressed batch's decompressed records. Kafka has none; a broker on bytes
/// from the network needs one, and legitimate batches (at most `max.message.bytes`
/// compressed, 1 MiB by default) stay far below it.
pub const MAX_DECOMPRESSED_BYTES: usize = 64 << 20;

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
/// Produce v0-2 may carry only legacy message sets, which ferrolog does not store: a non-v2
/// batch there is UNSUPPORTED_FOR_MESSAGE_FORMAT, while v3+ answers INVALID_RECORD as Kafka's
/// `ProduceRequest.validateRecords` does.
pub fn validate_produce_records(records: &[u8], produce_version: i16) -> Result<(), ErrorCode> {
    // Kafka's batch iterator sees no batch at all when even the header is incomplete.
    if records.len() < HEADER_SIZE {
        return Err(ErrorCode::InvalidRecord);
    }
    if records[batch::MAGIC] != 2 {
        return Err(if produce_version >= 3 {
            ErrorCode::InvalidRecord
        } else {
            ErrorCode::UnsupportedForMessageFormat
        });
    }
    let header = BatchHeader::parse(records)?;
    if header.length < (HEADER_SIZE - LOG_OVERHEAD) as i32 {
        return Err(ErrorCode::CorruptMessage);
    }
    if produce_version < 7 && header.compression() == Codec::Zstd as u8 {
        return Err(ErrorCode::UnsupportedCompressionType);
    }
    // Exactly one batch, and exactly the declared bytes: a second batch or a torn tail are
    // both refused rather than silently trimmed.
    if header.total_size() != records.len() {
        return Err(ErrorCode::InvalidRecord);
    }
    Ok(())
}

/// What the walk over a batch's records found.
struct RecordsSummary {
    max_timestamp: i64,
    offset_delta_of_max: i32,
    /// Inner offset deltas are exactly 0..n-1.
    offsets_in_order: bool,
}

/// The record's timestamp, or the per-record rule it breaks (Kafka checks the key first).
fn check_record(
    r: &RecordRef<'_>,
    base_timestamp: i64,
    config: &ValidationConfig,
    now_ms: i64,
) -> Result<i64, RecordRule> {
    if config.compacted && r.key.is_none() {
        return Err(RecordRule::MissingKey);
    }
    let timestamp = base_timestamp.wrapping_add(r.timestamp_delta);
    // -1 (NO_TIMESTAMP) is exempt, as in Kafka; the difference is taken in i128 so extreme
    // producer timestamps cannot overflow.
    if config.timestamp_type == TimestampType::CreateTime && timestamp != -1 {
        let diff = i128::from(now_ms) - i128::from(timestamp);
        if diff > i128::from(config.timestamp_before_max_ms)
            || -diff > i128::from(config.timestamp_after_max_ms)
        {
            return Err(RecordRule::Timestamp {
                timestamp,
                offset: i64::from(r.offset_delta),
                low: now_ms.saturating_sub(config.timestamp_before_max_ms),
                high: now_ms.saturating_add(config.timestamp_after_max_ms),
            });
        }
    }
    Ok(timestamp)
}

/// Walks every record once: framing, count, per-record rules and the max timestamp. Framing
/// errors stop the walk; per-record rules are collected over the whole batch, as Kafka
/// reports every offending record (KIP-467).
/// `strict_offsets`: an out-of-order offset delta is an error rather than a reason to rebuild.
fn check_records(
    section: &[u8],
    header: &BatchHeader,
    config: &ValidationConfig,
    now_ms: i64,
    strict_offsets: bool,
) -> Result<RecordsSummary, Rejected> {
    let mut summary = RecordsSummary {
        max_timestamp: -1,
        offset_delta_of_max: 0,
        offsets_in_order: true,
    };
    let mut broken = Vec::new();
    let mut count = 0i32;
    for record in walk(section) {
        let r = record?;
        if count == header.records_count {
            return Err(ErrorCode::InvalidRecord.into());
        }
        if r.offset_delta != count {
            if strict_offsets {
                return Err(ErrorCode::InvalidRecord.into());
            }
            summary.offsets_in_order = false;
        }
        match check_record(&r, header.base_timestamp, config, now_ms) {
            Ok(timestamp) if timestamp > summary.max_timestamp => {
                summary.max_timestamp = timestamp;
                summary.offset_delta_of_max = count;
            }
            Ok(_) => {}
            Err(rule) => broken.push((count, rule)),
        }
        count += 1;
    }
    if count != header.records_count {
        return Err(ErrorCode::InvalidRecord.into());
    }
    if !broken.is_empty() {
        return Err(Rejected::for_records(broken));
    }
    Ok(summary)
}

pub fn validate_batch(
    mut batch: BytesMut,
    config: &ValidationConfig,
    now_ms: i64,
) -> Result<ValidatedBatch, Rejected> {
    let header = BatchHeader::parse(&batch)?;
    if header.length < (HEADER_SIZE - LOG_OVERHEAD) as i32 || header.total_size() != batch.len() {
        return Err(ErrorCode::CorruptMessage.into());
    }
    // The order of Kafka's `analyzeAndValidateRecords`: offset, size, then CRC.
    if header.base_offset != 0 {
        return Err(ErrorCode::InvalidRecord.into());
    }
    if batch.len() > config.max_message_bytes.max(0) as usize {
        return Err(ErrorCode::MessageTooLarge.into());
    }
    if header.crc != batch::compute_crc(&batch) {
        return Err(ErrorCode::CorruptMessage.into());
    }
    check_batch_fields(&header)?;
    let codec = Codec::from_attributes(header.attributes)?;
    let target = config.target_compression.resolve(codec);
    let section = &batch[HEADER_SIZE..];
    if codec == Codec::None && header.records_count as usize > section.len() / MIN_RECORD_SIZE {
        return Err(ErrorCode::InvalidRecord.into());
    }

    let log_append_time = match config.timestamp_type {
        TimestampType::LogAppendTime => now_ms,
        TimestampType::CreateTime => -1,
    };
    let (summary, rebuilt) = if codec == Codec::None {
        let summary = check_records(section, &header, config, now_ms, true)?;
        let rebuilt = (target != Codec::None).then(|| rebuild(&batch, section, target));
        (summary, rebuilt)
    } else {
        with_scratch(|plain| {
            decompress_into(codec, section, MAX_DECOMPRESSED_BYTES, plain)?;
            let summary = check_records(plain, &header, config, now_ms, false)?;
            let rebuilt = if !summary.offsets_in_order {
                Some(rebuild(&batch, &renumber(plain), target))
            } else if target != codec {
                Some(rebuild(&batch, plain, target))
            } else {
                None
            };
            Ok::<_, Rejected>((summary, rebuilt))
        })?
    };
    if let Some(bytes) = rebuilt {
        if bytes.len() > config.max_message_bytes.max(0) as usize {
            return Err(ErrorCode::MessageTooLarge.into());
        }
        // Vec -> Bytes -> BytesMut reuses the allocation (the Bytes is unique).
        batch = BytesMut::from(bytes::Bytes::from(bytes));
    }

    let (max_timestamp, offset_delta_of_max) = if log_append_time >= 0 {
        (log_append_time, header.last_offset_delta)
    } else {
        (summary.max_timestamp, summary.offset_delta_of_max)
    };
    set_max_timestamp(&mut batch, max_timestamp, log_append_time >= 0);
    let header = BatchHeader::parse(&batch)?;
    Ok(ValidatedBatch {
        bytes: batch,
        header,
        max_timestamp,
        offset_delta_of_max_timestamp: offset_delta_of_max,
        log_append_time,
    })
}

thread_local! {
    /// Decompressed records of the batch being validated, reused across batches on the same
    /// (tokio worker) thread: a compressed batch is always inflated, and a fresh buffer that
    /// grows by doubling costs about as much copying again as the output itself.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Above this the scratch buffer is released after use, so one huge batch does not pin its
/// memory to a thread for good.
const SCRATCH_KEEP_BYTES: usize = 4 << 20;

fn with_scratch<T>(f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
    // Taken out of the cell rather than borrowed, so that a nested call (none today) would
    // get a fresh buffer instead of a borrow panic.
    let mut buf = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let result = f(&mut buf);
    if buf.capacity() <= SCRATCH_KEEP_BYTES {
        SCRATCH.with(|s| *s.borrow_mut() = buf);
    }
    result
}

/// Kafka's `LogValidator.validateBatch` rules for client batches.
fn check_batch_fields(header: &BatchHeader) -> Result<(), ErrorCode> {
    let count_from_offsets = i64::from(header.last_offset_delta) + 1;
    if count_from_offsets <= 0
        || header.records_count <= 0
        || count_from_offsets != i64::from(header.records_count)
    {
        return Err(ErrorCode::InvalidRecord);
    }
    if header.is_control() {
        return Err(ErrorCode::InvalidRecord);
    }
    if header.has_producer_id() && header.base_sequence < 0 {
        return Err(ErrorCode::InvalidRecord);
    }
    // Clients write CreateTime; the broker alone sets LogAppendTime.
    if header.is_log_append_time() {
        return Err(ErrorCode::InvalidTimestamp);
    }
    Ok(())
}

/// Re-encodes a records section with offset deltas 0..n-1, every other byte unchanged.
/// The section was already walked successfully, so every record parses.
fn renumber(section: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(section.len() + 16);
    for (i, record) in walk(section).flatten().enumerate() {
        let i = i as i32;
        let body = record.prefix.len() + varint_len(i) + record.suffix.len();
        write_varint(&mut out, body as i32);
        out.extend_from_slice(record.prefix);
        write_varint(&mut out, i);
        out.extend_from_slice(record.suffix);
    }
    out
}

/// The batch's header (producer fields, sequence, flags, timestamps kept) around `plain`
/// records compressed with `target`. The CRC is set by the caller's final patch.
fn rebuild(batch: &[u8], plain: &[u8], target: Codec) -> Vec<u8> {
    let payload = if target == Codec::None {
        None
    } else {
        Some(compress(target, plain))
    };
    let records = payload.as_deref().unwrap_or(plain);
    let mut out = Vec::with_capacity(HEADER_SIZE + records.len());
    out.extend_from_slice(&batch[..HEADER_SIZE]);
    out.extend_from_slice(records);
    let length = (out.len() - LOG_OVERHEAD) as i32;
    out[LENGTH..LENGTH + 4].copy_from_slice(&length.to_be_bytes());
    let attributes = (i16::from_be_bytes([out[ATTRIBUTES], out[ATTRIBUTES + 1]])
        & !ATTR_COMPRESSION_MASK)
        | target.attribute_bits();
    out[ATTRIBUTES..ATTRIBUTES + 2].copy_from_slice(&attributes.to_be_bytes());
    batch::update_crc(&mut out);
    out
}

/// Sets MaxTimestamp (and the LogAppendTime bit) as Kafka's `setMaxTimestamp` does,
/// recomputing the CRC only when a covered byte actually changed.
fn set_max_timestamp(batch: &mut [u8], max_timestamp: i64, log_append_time: bool) {
    let attributes = i16::from_be_bytes([batch[ATTRIBUTES], batch[ATTRIBUTES + 1]]);
    let new_attributes = if log_append_time {
        attributes | ATTR_TIMESTAMP_TYPE
    } else {
        attributes & !ATTR_TIMESTAMP_TYPE
    };
    let current = i64::from_be_bytes(
        batch[MAX_TIMESTAMP..MAX_TIMESTAMP + 8]
            .try_into()
            .expect("8 bytes"),
    );
    if current == max_timestamp && attributes == new_attributes {
        return;
    }
    batch[ATTRIBUTES..ATTRIBUTES + 2].copy_from_slice(&new_attributes.to_be_bytes());
    batch[MAX_TIMESTAMP..MAX_TIMESTAMP + 8].copy_from_slice(&max_timestamp.to_be_bytes());
    batch::update_crc(batch);
}

/// Sets BaseOffset and PartitionLeaderEpoch in place (both outside the CRC).
pub fn assign_offsets(batch: &mut [u8], base_offset: i64, partition_leader_epoch: i32) {
    super::batch::set_base_offset(batch, base_offset);
    super::batch::set_partition_leader_epoch(batch, partition_leader_epoch);
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
