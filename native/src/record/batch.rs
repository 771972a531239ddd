//! The RecordBatch v2 header: fixed offsets, read and patched in place.
//!
//! A batch stays opaque bytes on the hot path; only its 61-byte header is read, and the broker
//! rewrites BaseOffset, PartitionLeaderEpoch and (for LogAppendTime) MaxTimestamp + attributes
//! in place. Layout: `../shared/kafka-protocol/README.md`, section 4.

use crate::error::ErrorCode;

pub const BASE_OFFSET: usize = 0;
pub const LENGTH: usize = 8;
pub const PARTITION_LEADER_EPOCH: usize = 12;
pub const MAGIC: usize = 16;
pub const CRC: usize = 17;
pub const ATTRIBUTES: usize = 21;
pub const LAST_OFFSET_DELTA: usize = 23;
pub const BASE_TIMESTAMP: usize = 27;
pub const MAX_TIMESTAMP: usize = 35;
pub const PRODUCER_ID: usize = 43;
pub const PRODUCER_EPOCH: usize = 51;
pub const BASE_SEQUENCE: usize = 53;
pub const RECORDS_COUNT: usize = 57;
/// Size of the header; records start here.
pub const HEADER_SIZE: usize = 61;
/// BaseOffset + Length: the part of the header before the Length field's count starts.
pub const LOG_OVERHEAD: usize = 12;

pub const ATTR_COMPRESSION_MASK: i16 = 0x07;
pub const ATTR_TIMESTAMP_TYPE: i16 = 0x08;
pub const ATTR_TRANSACTIONAL: i16 = 0x10;
pub const ATTR_CONTROL: i16 = 0x20;
pub const ATTR_DELETE_HORIZON: i16 = 0x40;

pub const NO_PRODUCER_ID: i64 = -1;
pub const NO_SEQUENCE: i32 = -1;

fn i16_at(b: &[u8], at: usize) -> i16 {
    i16::from_be_bytes([b[at], b[at + 1]])
}
fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn i64_at(b: &[u8], at: usize) -> i64 {
    i64::from_be_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// The decoded fixed header of one batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchHeader {
    pub base_offset: i64,
    /// Bytes after the Length field: the whole batch is `length + 12` bytes.
    pub length: i32,
    pub partition_leader_epoch: i32,
    pub magic: i8,
    pub crc: u32,
    pub attributes: i16,
    pub last_offset_delta: i32,
    pub base_timestamp: i64,
    pub max_timestamp: i64,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub records_count: i32,
}

impl BatchHeader {
    /// Reads the header at the start of `buf`. Checks only that the header fits and that the
    /// magic is 2; the caller checks the declared length against what it has.
    pub fn parse(buf: &[u8]) -> Result<BatchHeader, ErrorCode> {
        if buf.len() < HEADER_SIZE {
            return Err(ErrorCode::CorruptMessage);
        }
        let magic = buf[MAGIC] as i8;
        if magic != 2 {
            return Err(ErrorCode::UnsupportedForMessageFormat);
        }
        Ok(BatchHeader {
            base_offset: i64_at(buf, BASE_OFFSET),
            length: i32_at(buf, LENGTH),
            partition_leader_epoch: i32_at(buf, PARTITION_LEADER_EPOCH),
            magic,
            crc: u32::from_be_bytes(buf[CRC..CRC + 4].try_into().expect("4 bytes")),
            attributes: i16_at(buf, ATTRIBUTES),
            last_offset_delta: i32_at(buf, LAST_OFFSET_DELTA),
            base_timestamp: i64_at(buf, BASE_TIMESTAMP),
            max_timestamp: i64_at(buf, MAX_TIMESTAMP),
            producer_id: i64_at(buf, PRODUCER_ID),
            producer_epoch: i16_at(buf, PRODUCER_EPOCH),
            base_sequence: i32_at(buf, BASE_SEQUENCE),
            records_count: i32_at(buf, RECORDS_COUNT),
        })
    }

    /// Total size of the batch on the wire and on disk.
    /// A negative Length reads as a huge size (through u32) so that it never fits a buffer
    /// and never overflows.
    pub fn total_size(&self) -> usize {
        self.length as u32 as usize + LOG_OVERHEAD
    }
    pub fn last_offset(&self) -> i64 {
        self.base_offset + i64::from(self.last_offset_delta)
    }
    pub fn compression(&self) -> u8 {
        (self.attributes & ATTR_COMPRESSION_MASK) as u8
    }
    pub fn is_transactional(&self) -> bool {
        self.attributes & ATTR_TRANSACTIONAL != 0
    }
    pub fn is_control(&self) -> bool {
        self.attributes & ATTR_CONTROL != 0
    }
    pub fn is_log_append_time(&self) -> bool {
        self.attributes & ATTR_TIMESTAMP_TYPE != 0
    }
    pub fn has_producer_id(&self) -> bool {
        self.producer_id != NO_PRODUCER_ID
    }
    /// Last sequence of the batch, wrapping at i32::MAX as Kafka does.
    pub fn last_sequence(&self) -> i32 {
        if self.base_sequence == NO_SEQUENCE {
            return NO_SEQUENCE;
        }
        let last = i64::from(self.base_sequence) + i64::from(self.last_offset_delta);
        if last > i64::from(i32::MAX) {
            (last - i64::from(i32::MAX) - 1) as i32
        } else {
            last as i32
        }
    }
}

/// CRC-32C over bytes 21..end, as stored in the CRC field.
pub fn compute_crc(batch: &[u8]) -> u32 {
    crc32c::crc32c(&batch[ATTRIBUTES..])
}

/// Whether the stored CRC matches the batch's bytes.
pub fn crc_is_valid(batch: &[u8]) -> bool {
    batch.len() >= HEADER_SIZE
        && BatchHeader::parse(batch)
            .map(|h| h.crc == compute_crc(batch))
            .unwrap_or(false)
}

pub fn set_base_offset(batch: &mut [u8], offset: i64) {
    batch[BASE_OFFSET..BASE_OFFSET + 8].copy_from_slice(&offset.to_be_bytes());
}

pub fn set_partition_leader_epoch(batch: &mut [u8], epoch: i32) {
    batch[PARTITION_LEADER_EPOCH..PARTITION_LEADER_EPOCH + 4].copy_from_slice(&epoch.to_be_bytes());
}

/// Rewrites the CRC field after a change to bytes it covers (attributes, timestamps).
pub fn update_crc(batch: &mut [u8]) {
    let crc = compute_crc(batch);
    batch[CRC..CRC + 4].copy_from_slice(&crc.to_be_bytes());
}

/// Splits a buffer of concatenated batches into (header, bytes) pairs. Stops with an error at
/// the first batch whose header or declared length does not fit in `buf`.
pub fn iter_batches(buf: &[u8]) -> impl Iterator<Item = Result<(BatchHeader, &[u8]), ErrorCode>> {
    let mut pos = 0usize;
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed || pos >= buf.len() {
            return None;
        }
        let rest = &buf[pos..];
        let result = match BatchHeader::parse(rest) {
            Ok(h) if h.length < (HEADER_SIZE - LOG_OVERHEAD) as i32 => {
                Err(ErrorCode::CorruptMessage)
            }
            Ok(h) if h.total_size() > rest.len() => Err(ErrorCode::CorruptMessage),
            Ok(h) => {
                let size = h.total_size();
                pos += size;
                Ok((h, &rest[..size]))
            }
            Err(e) => Err(e),
        };
        if result.is_err() {
            failed = true;
        }
        Some(result)
    })
}
