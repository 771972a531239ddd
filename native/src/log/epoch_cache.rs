//! The leader-epoch cache (`leader-epoch-checkpoint`): the offset at which each leader epoch
//! started, for OffsetsForLeaderEpoch and follower truncation (KIP-101/279).

use std::io;
use std::path::{Path, PathBuf};

use super::checkpoint;

pub const CHECKPOINT_FILE: &str = "leader-epoch-checkpoint";

#[derive(Debug)]
pub(crate) struct EpochCache {
    path: PathBuf,
    /// (epoch, start offset), both strictly increasing.
    entries: Vec<(i32, i64)>,
    /// Counts writes of the file; it is durable while `synced` equals it.
    written: u64,
    synced: u64,
}

impl EpochCache {
    pub(crate) fn load(dir: &Path) -> io::Result<EpochCache> {
        let path = dir.join(CHECKPOINT_FILE);
        let mut entries = Vec::new();
        for line in checkpoint::read_lines(&path)?.unwrap_or_default() {
            let mut parts = line.split_whitespace();
            let parsed = (
                parts.next().and_then(|e| e.parse().ok()),
                parts.next().and_then(|o| o.parse().ok()),
            );
            let (Some(epoch), Some(offset)) = parsed else {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}: bad entry", path.display()),
                ));
            };
            entries.push((epoch, offset));
        }
        Ok(EpochCache {
            path,
            entries,
            written: 0,
            synced: 0,
        })
    }

    /// Writes the file without an fsync, as Kafka does since KAFKA-15046: a become-leader for
    /// thousands of partitions must not cost an fsync each. The log's next flush syncs it
    /// (`unsynced`, before the data it describes), and recovery rebuilds the entries of the
    /// batches it rescans, so a power loss before then loses nothing the log still holds.
    fn persist(&mut self) -> io::Result<()> {
        let lines: Vec<String> = self
            .entries
            .iter()
            .map(|(e, o)| format!("{e} {o}"))
            .collect();
        checkpoint::write_lines_unsynced(&self.path, &lines, false)?;
        self.written += 1;
        Ok(())
    }

    /// The file and the write count a flush must sync, if it is not durable yet.
    pub(crate) fn unsynced(&self) -> Option<(PathBuf, u64)> {
        (self.written != self.synced).then(|| (self.path.clone(), self.written))
    }

    /// A flush synced the file as of write `written`.
    pub(crate) fn mark_synced(&mut self, written: u64) {
        self.synced = self.synced.max(written);
    }

    pub(crate) fn entries(&self) -> &[(i32, i64)] {
        &self.entries
    }

    pub(crate) fn latest_epoch(&self) -> Option<i32> {
        self.entries.last().map(|&(e, _)| e)
    }

    /// Records that `epoch` starts at `start_offset`, as Kafka's `LeaderEpochFileCache.assign`:
    /// a repeat of the latest epoch at a later offset changes nothing; otherwise entries that
    /// conflict (epoch or start offset not below the new one) are replaced.
    pub(crate) fn assign(&mut self, epoch: i32, start_offset: i64) -> io::Result<()> {
        if epoch < 0 || start_offset < 0 {
            return Ok(());
        }
        if let Some(&(e, o)) = self.entries.last() {
            if e == epoch && start_offset >= o {
                return Ok(());
            }
        }
        self.entries.retain(|&(e, o)| e < epoch && o < start_offset);
        self.entries.push((epoch, start_offset));
        self.persist()
    }

    /// OffsetsForLeaderEpoch: the largest epoch <= `epoch` and the start offset of the next
    /// epoch (`log_end_offset` for the latest one). None when `epoch` is newer than any known
    /// or the cache is empty (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET).
    pub(crate) fn end_offset_for(&self, epoch: i32, log_end_offset: i64) -> Option<(i32, i64)> {
        if epoch < 0 {
            return None;
        }
        if self.latest_epoch() == Some(epoch) {
            return Some((epoch, log_end_offset));
        }
        let higher = self.entries.iter().position(|&(e, _)| e > epoch)?;
        let next_start = self.entries[higher].1;
        match higher.checked_sub(1) {
            Some(floor) => Some((self.entries[floor].0, next_start)),
            // Older than every known epoch: Kafka answers with the requested epoch itself.
            None => Some((epoch, next_start)),
        }
    }

    /// The epoch of the batch at `offset` (the latest epoch starting at or before it).
    pub(crate) fn epoch_for(&self, offset: i64) -> Option<i32> {
        self.entries
            .iter()
            .rev()
            .find(|&&(_, o)| o <= offset)
            .map(|&(e, _)| e)
    }

    /// Log truncated to `end_offset`: forget epochs that start at or after it.
    pub(crate) fn truncate_from_end(&mut self, end_offset: i64) -> io::Result<()> {
        if self.entries.last().is_some_and(|&(_, o)| o >= end_offset) {
            self.entries.retain(|&(_, o)| o < end_offset);
            self.persist()?;
        }
        Ok(())
    }

    /// Log start moved to `start_offset`: epochs wholly before it go, and the epoch in force
    /// there now starts there.
    pub(crate) fn truncate_from_start(&mut self, start_offset: i64) -> io::Result<()> {
        let before = self
            .entries
            .iter()
            .take_while(|&&(_, o)| o <= start_offset)
            .count();
        if before == 0 || (before == 1 && self.entries[0].1 == start_offset) {
            return Ok(());
        }
        let epoch = self.entries[before - 1].0;
        self.entries.drain(..before);
        self.entries.insert(0, (epoch, start_offset));
        self.persist()
    }

    /// Drops every entry (the log was emptied and restarted).
    pub(crate) fn clear(&mut self) -> io::Result<()> {
        if !self.entries.is_empty() {
            self.entries.clear();
            self.persist()?;
        }
        Ok(())
    }
}
