//! The sparse offset index (`.index`) and time index (`.timeindex`) of one segment.
//!
//! Offset index entries are `i32 relative offset, i32 file position` (big-endian, as Kafka
//! writes them); ours point at a batch's *base* offset, so a lookup lands on the batch that
//! holds the target when that batch is indexed. Time index entries are `i64 timestamp, i32
//! relative offset` with strictly increasing timestamps: an entry (T, O) says every record before
//! offset O is older than T.

use std::io;
use std::path::Path;

use super::index_file::IndexFile;

pub(crate) const OFFSET_ENTRY: usize = 8;
pub(crate) const TIME_ENTRY: usize = 12;

fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// Binary search for the last entry `n` in `0..len` with `key(n) <= target`.
fn floor_entry(len: usize, target: i64, key: impl Fn(usize) -> i64) -> Option<usize> {
    let (mut lo, mut hi) = (0usize, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if key(mid) <= target {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo.checked_sub(1)
}

#[derive(Debug)]
pub(crate) struct OffsetIndex {
    pub(crate) base_offset: i64,
    file: IndexFile,
}

impl OffsetIndex {
    pub(crate) fn open(
        path: &Path,
        base_offset: i64,
        entries: usize,
        size_bytes: usize,
    ) -> io::Result<Self> {
        Ok(OffsetIndex {
            base_offset,
            file: IndexFile::open(path, OFFSET_ENTRY, entries, size_bytes)?,
        })
    }

    /// Entry `n` as (absolute offset, position).
    pub(crate) fn get(&self, n: usize) -> (i64, u64) {
        let e = self.file.entry(n);
        (
            self.base_offset + i64::from(i32_at(e, 0)),
            i32_at(e, 4) as u32 as u64,
        )
    }

    pub(crate) fn append(&mut self, offset: i64, position: u64) {
        let mut e = [0u8; OFFSET_ENTRY];
        e[..4].copy_from_slice(&((offset - self.base_offset) as i32).to_be_bytes());
        e[4..].copy_from_slice(&(position as u32).to_be_bytes());
        self.file.push(&e);
    }

    /// The last indexed batch at or before `offset`: where a scan for it starts.
    pub(crate) fn lookup(&self, offset: i64) -> (i64, u64) {
        match floor_entry(self.file.len(), offset, |n| self.get(n).0) {
            Some(n) => self.get(n),
            None => (self.base_offset, 0),
        }
    }

    /// The last indexed batch starting at or before `position`.
    pub(crate) fn lookup_position(&self, position: u64) -> (i64, u64) {
        match floor_entry(self.file.len(), position as i64, |n| self.get(n).1 as i64) {
            Some(n) => self.get(n),
            None => (self.base_offset, 0),
        }
    }

    pub(crate) fn last(&self) -> Option<(i64, u64)> {
        self.file.len().checked_sub(1).map(|n| self.get(n))
    }

    /// Drops the entries for offsets at or above `offset`.
    pub(crate) fn truncate_to(&mut self, offset: i64) {
        let keep = floor_entry(self.file.len(), offset - 1, |n| self.get(n).0).map_or(0, |n| n + 1);
        self.file.truncate(keep);
    }

    /// Kafka's load-time sanity check, O(1) so that opening many segments stays cheap: the
    /// last entry lies past the first and inside the log. A zero-filled tail (an untrimmed
    /// preallocated file) fails it. Like Kafka, this trusts the middle of an index that was
    /// written before the recovery point; every segment recovery rebuilds its indexes.
    pub(crate) fn is_consistent(&self, log_size: u64) -> bool {
        let Some((last_offset, last_position)) = self.last() else {
            return true;
        };
        let (first_offset, first_position) = self.get(0);
        let grows =
            self.file.len() == 1 || (last_offset > first_offset && last_position > first_position);
        first_offset >= self.base_offset && grows && last_position < log_size
    }

    pub(crate) fn storage(&mut self) -> &mut IndexFile {
        &mut self.file
    }
    pub(crate) fn storage_ref(&self) -> &IndexFile {
        &self.file
    }
}

#[derive(Debug)]
pub(crate) struct TimeIndex {
    pub(crate) base_offset: i64,
    file: IndexFile,
}

impl TimeIndex {
    pub(crate) fn open(
        path: &Path,
        base_offset: i64,
        entries: usize,
        size_bytes: usize,
    ) -> io::Result<Self> {
        Ok(TimeIndex {
            base_offset,
            file: IndexFile::open(path, TIME_ENTRY, entries, size_bytes)?,
        })
    }

    /// Entry `n` as (timestamp, absolute offset).
    pub(crate) fn get(&self, n: usize) -> (i64, i64) {
        let e = self.file.entry(n);
        let ts = i64::from_be_bytes(e[..8].try_into().expect("8 bytes"));
        (ts, self.base_offset + i64::from(i32_at(e, 8)))
    }

    pub(crate) fn last(&self) -> Option<(i64, i64)> {
        self.file.len().checked_sub(1).map(|n| self.get(n))
    }

    /// Appends (timestamp, offset) if the timestamp is newer than the last entry's.
    pub(crate) fn maybe_append(&mut self, timestamp: i64, offset: i64) {
        if self.file.is_full() {
            return;
        }
        if let Some((last_ts, last_offset)) = self.last() {
            if timestamp <= last_ts || offset <= last_offset {
                return;
            }
        }
        let mut e = [0u8; TIME_ENTRY];
        e[..8].copy_from_slice(&timestamp.to_be_bytes());
        e[8..].copy_from_slice(&((offset - self.base_offset) as i32).to_be_bytes());
        self.file.push(&e);
    }

    /// The offset where a scan for the first record at or after `timestamp` starts.
    pub(crate) fn lookup(&self, timestamp: i64) -> i64 {
        match floor_entry(self.file.len(), timestamp, |n| self.get(n).0) {
            Some(n) => self.get(n).1,
            None => self.base_offset,
        }
    }

    pub(crate) fn truncate_to(&mut self, offset: i64) {
        let mut keep = self.file.len();
        while keep > 0 && self.get(keep - 1).1 >= offset {
            keep -= 1;
        }
        self.file.truncate(keep);
    }

    pub(crate) fn is_consistent(&self) -> bool {
        let Some((last_ts, last_offset)) = self.last() else {
            return true;
        };
        let (first_ts, first_offset) = self.get(0);
        let grows = self.file.len() == 1 || (last_ts > first_ts && last_offset > first_offset);
        first_offset >= self.base_offset && grows
    }

    pub(crate) fn storage(&mut self) -> &mut IndexFile {
        &mut self.file
    }
    pub(crate) fn storage_ref(&self) -> &IndexFile {
        &self.file
    }
}
