//! Producer-state snapshot files, `<20-digit offset>.snapshot`, in Kafka's format
//! (`ProducerSnapshot.json`, `../shared/kafka-protocol/README.md` section 6): int16 version 1,
//! uint32 CRC-32C over everything from byte 6, int32 entry count, then per producer its id,
//! epoch, last sequence, last offset, offset delta, timestamp, coordinator epoch and the
//! first offset of its open transaction (-1 for none). Only the last batch per producer is
//! kept, as in Kafka, so duplicate detection after a restart covers one batch.

use std::collections::VecDeque;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::producer::{BatchMetadata, ProducerEntry, ProducerStateManager};

const VERSION: i16 = 1;
const CRC_END: usize = 6;
const ENTRY_SIZE: usize = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8;
pub const SUFFIX: &str = ".snapshot";

pub fn snapshot_path(dir: &Path, offset: i64) -> PathBuf {
    dir.join(format!("{offset:020}{SUFFIX}"))
}

/// Offsets of the snapshot files in `dir`, ascending. Names that are not 20 digits plus the
/// suffix are not ours and are ignored.
pub fn snapshot_offsets(dir: &Path) -> io::Result<Vec<i64>> {
    let mut offsets = Vec::new();
    for entry in fs::read_dir(dir)? {
        let name = entry?.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(SUFFIX)) else {
            continue;
        };
        if stem.len() == 20 && stem.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(offset) = stem.parse::<i64>() {
                offsets.push(offset);
            }
        }
    }
    offsets.sort_unstable();
    Ok(offsets)
}

/// Deletes snapshots above `offset` (log truncation to `offset`); returns how many.
pub fn delete_snapshots_above(dir: &Path, offset: i64) -> io::Result<usize> {
    delete_where(dir, |o| o > offset)
}

/// Deletes snapshots below `offset` (segments before it were deleted); returns how many.
pub fn delete_snapshots_below(dir: &Path, offset: i64) -> io::Result<usize> {
    delete_where(dir, |o| o < offset)
}

/// Deletes the snapshots whose offset is `doomed`; returns how many.
pub fn delete_where(dir: &Path, doomed: impl Fn(i64) -> bool) -> io::Result<usize> {
    let mut n = 0;
    for offset in snapshot_offsets(dir)?.into_iter().filter(|&o| doomed(o)) {
        match fs::remove_file(snapshot_path(dir, offset)) {
            Ok(()) => n += 1,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

pub fn encode(state: &ProducerStateManager) -> Vec<u8> {
    let mut pids: Vec<&i64> = state.producers.keys().collect();
    pids.sort_unstable();
    let mut out = Vec::with_capacity(CRC_END + 4 + pids.len() * ENTRY_SIZE);
    out.extend_from_slice(&VERSION.to_be_bytes());
    out.extend_from_slice(&0u32.to_be_bytes());
    out.extend_from_slice(&(pids.len() as i32).to_be_bytes());
    for pid in pids {
        let e = &state.producers[pid];
        let (last_seq, last_offset, delta, timestamp) = match e.batches.back() {
            Some(b) => (
                b.last_seq,
                b.last_offset,
                (b.last_offset - b.first_offset) as i32,
                e.last_timestamp,
            ),
            None => (-1, -1, 0, e.last_timestamp),
        };
        out.extend_from_slice(&pid.to_be_bytes());
        out.extend_from_slice(&e.epoch.to_be_bytes());
        out.extend_from_slice(&last_seq.to_be_bytes());
        out.extend_from_slice(&last_offset.to_be_bytes());
        out.extend_from_slice(&delta.to_be_bytes());
        out.extend_from_slice(&timestamp.to_be_bytes());
        out.extend_from_slice(&e.coordinator_epoch.to_be_bytes());
        out.extend_from_slice(&e.current_txn_first_offset.unwrap_or(-1).to_be_bytes());
    }
    let crc = crc32c::crc32c(&out[CRC_END..]);
    out[2..CRC_END].copy_from_slice(&crc.to_be_bytes());
    out
}

fn be<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    b[at..at + N].try_into().expect("caller checked the length")
}

/// Parses a snapshot; `None` for a bad version, CRC or size.
pub fn decode(bytes: &[u8]) -> Option<ProducerStateManager> {
    if bytes.len() < CRC_END + 4 || i16::from_be_bytes(be(bytes, 0)) != VERSION {
        return None;
    }
    if u32::from_be_bytes(be(bytes, 2)) != crc32c::crc32c(&bytes[CRC_END..]) {
        return None;
    }
    let count = i32::from_be_bytes(be(bytes, CRC_END));
    if count < 0 || bytes.len() != CRC_END + 4 + count as usize * ENTRY_SIZE {
        return None;
    }
    let mut state = ProducerStateManager::new();
    for chunk in bytes[CRC_END + 4..].chunks_exact(ENTRY_SIZE) {
        let pid = i64::from_be_bytes(be(chunk, 0));
        let epoch = i16::from_be_bytes(be(chunk, 8));
        let last_seq = i32::from_be_bytes(be(chunk, 10));
        let last_offset = i64::from_be_bytes(be(chunk, 14));
        let delta = i32::from_be_bytes(be(chunk, 22));
        let timestamp = i64::from_be_bytes(be(chunk, 26));
        let coordinator_epoch = i32::from_be_bytes(be(chunk, 34));
        let txn_first = i64::from_be_bytes(be(chunk, 38));
        let mut batches = VecDeque::new();
        if last_offset >= 0 && last_seq >= 0 {
            // Sequences wrap from i32::MAX to 0, like the batch's own last sequence.
            let first_seq = i64::from(last_seq) - i64::from(delta);
            let first_seq = if first_seq < 0 {
                first_seq + i64::from(i32::MAX) + 1
            } else {
                first_seq
            };
            batches.push_back(BatchMetadata {
                first_seq: first_seq as i32,
                last_seq,
                first_offset: last_offset - i64::from(delta),
                last_offset,
                timestamp,
            });
        }
        let entry = ProducerEntry {
            epoch,
            batches,
            coordinator_epoch,
            current_txn_first_offset: (txn_first >= 0).then_some(txn_first),
            last_timestamp: timestamp,
            last_offset: last_offset.max(txn_first),
        };
        state.producers.insert(pid, entry);
    }
    state.rebuild_ongoing();
    Some(state)
}

/// Writes the snapshot atomically: a temporary file, fsynced unless the caller syncs the whole
/// file system after (`sync`), renamed over the final name.
pub fn write(state: &ProducerStateManager, dir: &Path, offset: i64, sync: bool) -> io::Result<()> {
    let path = snapshot_path(dir, offset);
    let tmp = path.with_extension("snapshot.tmp");
    {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(&encode(state))?;
        if sync {
            f.sync_all()?;
        }
    }
    // No fsync of the directory (Kafka does none either): should a power loss undo the
    // rename, the snapshot is missing, and loading falls back to an older one and replays
    // the log from there. A snapshot is an optimisation of start-up, never the only copy.
    fs::rename(&tmp, &path)
}

/// The newest valid snapshot at or below `max_offset`. A snapshot that fails its CRC or does
/// not parse is skipped (logged), and the next older one is tried.
pub fn load(dir: &Path, max_offset: i64) -> io::Result<(ProducerStateManager, i64)> {
    let offsets = match snapshot_offsets(dir) {
        Ok(o) => o,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok((ProducerStateManager::new(), 0))
        }
        Err(e) => return Err(e),
    };
    for offset in offsets.into_iter().rev().filter(|&o| o <= max_offset) {
        let path = snapshot_path(dir, offset);
        match decode(&fs::read(&path)?) {
            Some(state) => return Ok((state, offset)),
            None => log::warn!("ignoring corrupt producer snapshot {}", path.display()),
        }
    }
    Ok((ProducerStateManager::new(), 0))
}
