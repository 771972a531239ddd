//! Tests of the log through its public surface: `Log`, `LogManager`, `LogConfig`.

mod append_read;
mod compaction;
mod config;
mod dir_move;
mod epochs;
mod manager;
mod proptests;
mod recovery;
mod retention;
mod transactions;

use std::path::Path;

use bytes::BytesMut;

use super::{FetchSlice, Log, LogConfig};
use crate::record::batch::{crc_is_valid, iter_batches, BatchHeader};
use crate::record::builder::{BatchBuilder, Record};
use crate::record::compression::Codec;

/// A fixed "now" so timestamps and validation are deterministic.
pub(super) const NOW: i64 = 1_700_000_000_000;

/// A producer batch of `records` records of `value_len` bytes each, timestamps from `ts` on.
pub(super) fn batch(records: usize, value_len: usize, ts: i64) -> BytesMut {
    let mut b = BatchBuilder::new(Codec::None);
    for i in 0..records {
        let value = vec![b'v'; value_len];
        b = b.record(Record::new(
            Some(format!("k{i}").as_bytes()),
            Some(&value),
            ts + i as i64,
        ));
    }
    BytesMut::from(&b.build()[..])
}

/// Small segments and a dense index so tests cross segment and index boundaries.
pub(super) fn small_config() -> LogConfig {
    LogConfig {
        segment_bytes: 2048,
        index_interval_bytes: 256,
        ..LogConfig::default()
    }
}

pub(super) fn open(dir: &Path, config: LogConfig) -> Log {
    Log::open(dir, config, 0, 0, 0).expect("open log")
}

/// The bytes a fetch would send.
pub(super) fn slice_bytes(slice: &FetchSlice) -> Vec<u8> {
    slice.to_vec().expect("read slice")
}

/// Headers of the whole batches in a slice, each CRC-checked; the slice must hold nothing else.
pub(super) fn batches_in(slice: &FetchSlice) -> Vec<BatchHeader> {
    let bytes = slice_bytes(slice);
    let mut out = Vec::new();
    for item in iter_batches(&bytes) {
        let (h, b) = item.expect("slice holds whole batches");
        assert!(crc_is_valid(b), "stored batch has a valid CRC");
        out.push(h);
    }
    out
}

/// (base, last) offsets of every batch from the log start to the end, read the way a consumer
/// reads: one fetch after another.
pub(super) fn read_all(log: &Log) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    let mut offset = log.log_start_offset();
    while offset < log.log_end_offset() {
        let slice = log.read(offset, 1 << 20, i64::MAX, true).expect("read");
        let batches = batches_in(&slice);
        assert!(
            !batches.is_empty(),
            "read at {offset} below the log end returned nothing"
        );
        for h in batches {
            out.push((h.base_offset, h.last_offset()));
            offset = h.last_offset() + 1;
        }
    }
    out
}
