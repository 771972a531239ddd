//! A segment's aborted-transaction index (`.txnindex`): one 34-byte entry per ABORT marker in
//! the segment, `i16 version (0), i64 producer id, i64 first offset, i64 last offset (the
//! marker), i64 last stable offset` (Kafka's `AbortedTxn`). READ_COMMITTED fetches return the
//! entries that overlap what they read, so consumers can drop aborted records.
//!
//! Entries are few (one per aborted transaction), so they are also kept in memory; the file is
//! only appended to, and rewritten on truncation.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::record::batch::BatchHeader;
use crate::record::producer::ProducerStateManager;
use crate::record::records::control_marker;

pub(crate) const ENTRY: usize = 34;

/// An aborted transaction: its producer and its offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbortedTxn {
    pub producer_id: i64,
    pub first_offset: i64,
    /// The offset of the ABORT marker.
    pub last_offset: i64,
    /// The last stable offset once the marker was written.
    pub last_stable_offset: i64,
}

impl AbortedTxn {
    fn encode(&self) -> [u8; ENTRY] {
        let mut e = [0u8; ENTRY];
        e[2..10].copy_from_slice(&self.producer_id.to_be_bytes());
        e[10..18].copy_from_slice(&self.first_offset.to_be_bytes());
        e[18..26].copy_from_slice(&self.last_offset.to_be_bytes());
        e[26..34].copy_from_slice(&self.last_stable_offset.to_be_bytes());
        e
    }

    fn decode(e: &[u8]) -> Option<AbortedTxn> {
        let i64_at = |at: usize| i64::from_be_bytes(e[at..at + 8].try_into().expect("8 bytes"));
        (e[..2] == [0, 0]).then(|| AbortedTxn {
            producer_id: i64_at(2),
            first_offset: i64_at(10),
            last_offset: i64_at(18),
            last_stable_offset: i64_at(26),
        })
    }
}

#[derive(Debug)]
pub(crate) struct TxnIndex {
    path: PathBuf,
    entries: Vec<AbortedTxn>,
    /// Opened on the first append: most segments never see an aborted transaction. Shared
    /// so a flush can fsync it without the log's lock.
    file: Option<Arc<File>>,
}

impl TxnIndex {
    /// Loads the index of a segment (empty if there is no file). A torn last entry is dropped.
    pub(crate) fn load(path: &Path) -> io::Result<TxnIndex> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let entries = bytes
            .chunks_exact(ENTRY)
            .map_while(AbortedTxn::decode)
            .collect();
        let mut index = TxnIndex {
            path: path.to_path_buf(),
            entries,
            file: None,
        };
        if bytes.len() != index.entries.len() * ENTRY {
            index.rewrite()?;
        }
        Ok(index)
    }

    pub(crate) fn entries(&self) -> &[AbortedTxn] {
        &self.entries
    }

    fn file(&mut self) -> io::Result<&File> {
        if self.file.is_none() {
            let f = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&self.path)?;
            self.file = Some(Arc::new(f));
        }
        Ok(self.file.as_ref().expect("just opened"))
    }

    pub(crate) fn append(&mut self, txn: AbortedTxn) -> io::Result<()> {
        let at = (self.entries.len() * ENTRY) as u64;
        self.file()?.write_all_at(&txn.encode(), at)?;
        self.entries.push(txn);
        Ok(())
    }

    fn rewrite(&mut self) -> io::Result<()> {
        let bytes: Vec<u8> = self.entries.iter().flat_map(|t| t.encode()).collect();
        let file = self.file()?;
        file.set_len(0)?;
        file.write_all_at(&bytes, 0)
    }

    /// Drops the entries of markers at or above `offset` (log truncation).
    pub(crate) fn truncate_to(&mut self, offset: i64) -> io::Result<()> {
        let before = self.entries.len();
        self.entries.retain(|t| t.last_offset < offset);
        if self.entries.len() != before {
            self.rewrite()?;
        }
        Ok(())
    }

    /// The file to fsync, if it was ever written.
    pub(crate) fn shared_file(&self) -> Option<Arc<File>> {
        self.file.clone()
    }

    /// Forgets every entry (the segment's transactions are being replayed).
    pub(crate) fn clear(&mut self) -> io::Result<()> {
        self.truncate_to(i64::MIN)
    }

    pub(crate) fn delete_file(&self) -> io::Result<()> {
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// Feeds one appended (or replayed) batch to producer state. For a transaction marker this
/// also ends the producer's transaction and, for an ABORT when `index_aborts`, adds the
/// aborted transaction to `index` (the marker's segment). `bytes` is the whole batch.
pub(crate) fn track_batch(
    producers: &mut ProducerStateManager,
    index: &mut TxnIndex,
    h: &BatchHeader,
    bytes: &[u8],
    append_time_ms: i64,
    index_aborts: bool,
) -> io::Result<()> {
    if !h.has_producer_id() {
        return Ok(());
    }
    let marker = if h.is_control() {
        control_marker(bytes).ok()
    } else {
        None
    };
    let Some(marker) = marker else {
        producers.update(h, append_time_ms);
        return Ok(());
    };
    let first = producers.update_marker(h, marker.coordinator_epoch, append_time_ms);
    match first {
        Some(first_offset) if !marker.commit && index_aborts => index.append(AbortedTxn {
            producer_id: h.producer_id,
            first_offset,
            last_offset: h.base_offset,
            last_stable_offset: producers
                .first_unstable_offset()
                .unwrap_or(h.base_offset + 1),
        }),
        _ => Ok(()),
    }
}
