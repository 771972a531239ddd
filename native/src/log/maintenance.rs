//! Changing a log's extent: rolling, DeleteRecords, follower truncation, retention; and
//! making it durable: flush and close.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use super::checkpoint::sync_dir;
use super::partition_log::Log;
use super::segment::{Segment, SyncTarget};
use crate::error::ErrorCode;
use crate::record::producer::ProducerStateManager;

/// Offsets of the producer snapshots (`<20 digits>.snapshot`) in `dir`, sorted.
pub(crate) fn list_snapshots(dir: &Path) -> io::Result<Vec<i64>> {
    crate::record::producer_snapshot::snapshot_offsets(dir)
}

pub(crate) fn delete_snapshots(dir: &Path, doomed: impl Fn(i64) -> bool) -> io::Result<()> {
    crate::record::producer_snapshot::delete_where(dir, doomed).map(drop)
}

/// The fsyncs of one flush (see `Log::flush_plan`).
#[derive(Debug)]
pub struct FlushPlan {
    files: Vec<SyncTarget>,
    /// The partition directory, when segment files were created since it was last synced.
    dir: Option<PathBuf>,
    /// The leader-epoch checkpoint and its write count, when not yet durable.
    epochs: Option<(PathBuf, u64)>,
    /// The partition directory, when it is new: its entry in the log directory and its
    /// `partition.metadata` are synced too.
    new_dir: Option<PathBuf>,
    end_offset: i64,
    dir_generation: u64,
    truncations: u64,
}

impl FlushPlan {
    /// Whether the plan syncs the leader-epoch checkpoint (for tests).
    pub fn syncs_epochs(&self) -> bool {
        self.epochs.is_some()
    }

    /// The fsyncs; safe without the log's lock (a segment deleted meanwhile is still open).
    pub fn execute(&self) -> io::Result<()> {
        // The epoch checkpoint first: once data of a new epoch is durable, its entry must be
        // too (recovery rescans only what lies after the recovery point).
        if let Some((path, _)) = &self.epochs {
            File::open(path)?.sync_all()?;
        }
        for target in &self.files {
            target.sync()?;
        }
        if let Some(dir) = &self.new_dir {
            File::open(dir.join(super::manager::PARTITION_METADATA))?.sync_all()?;
        }
        if let Some(dir) = &self.dir {
            sync_dir(dir)?;
        }
        if let Some(parent) = self.new_dir.as_deref().and_then(Path::parent) {
            sync_dir(parent)?;
        }
        Ok(())
    }
}

impl Log {
    /// Starts a new active segment at the log end offset (nothing happens if the active one
    /// is empty); snapshots producer state there, as Kafka does at each roll.
    pub fn roll(&mut self) -> io::Result<()> {
        let leo = self.log_end_offset();
        let active = self
            .segments
            .last_mut()
            .expect("a log always has a segment");
        if active.size == 0 {
            return Ok(());
        }
        active.seal()?;
        self.segments
            .push(Segment::create(&self.dir, leo, &self.config)?);
        self.dir_generation += 1;
        self.producers.write_snapshot(&self.dir, leo)
    }

    /// Rolls the active segment if it is older than `segment.ms`.
    pub fn maybe_roll(&mut self, now_ms: i64) -> io::Result<()> {
        if self.active().is_expired(now_ms, &self.config) {
            self.roll()?;
        }
        Ok(())
    }

    /// Moves the log start offset forward (DeleteRecords); deletes segments wholly before it.
    /// OFFSET_OUT_OF_RANGE beyond the high watermark. Returns the new log start offset.
    pub fn delete_records_before(&mut self, offset: i64) -> Result<i64, ErrorCode> {
        if offset > self.high_watermark || offset < 0 {
            return Err(ErrorCode::OffsetOutOfRange);
        }
        if offset > self.log_start_offset {
            self.log_start_offset = offset;
            self.epochs
                .truncate_from_start(offset)
                .map_err(|e| self.io_failed(e))?;
            while self.segments.len() > 1 && self.segments[1].base_offset <= offset {
                self.delete_oldest_segment()
                    .map_err(|e| self.io_failed(e))?;
            }
        }
        Ok(self.log_start_offset)
    }

    fn delete_oldest_segment(&mut self) -> io::Result<()> {
        let seg = self.segments.remove(0);
        self.size_bytes -= seg.size;
        seg.delete_files()?;
        let first = self.segments[0].base_offset;
        delete_snapshots(&self.dir, |o| o < first)
    }

    /// Removes everything at and after `offset` (follower truncation). A batch that holds
    /// `offset` goes whole, so the log end may land below `offset`.
    pub fn truncate_to(&mut self, offset: i64) -> io::Result<()> {
        if offset >= self.log_end_offset() {
            return Ok(());
        }
        if offset <= self.segments[0].base_offset {
            return self.truncate_fully_and_start_at(offset.max(0));
        }
        while self.segments.last().is_some_and(|s| s.base_offset > offset) {
            let seg = self.segments.pop().expect("checked");
            self.size_bytes -= seg.size;
            seg.delete_files()?;
        }
        let active = self.segments.last_mut().expect("the first segment stays");
        let before = active.size;
        active.truncate_to(offset)?;
        active.make_active(&self.config)?;
        self.size_bytes = self.size_bytes - before + active.size;
        self.after_truncation()
    }

    /// Empties the log and restarts it at `offset` (a follower far behind the leader's start).
    pub fn truncate_fully_and_start_at(&mut self, offset: i64) -> io::Result<()> {
        let old = std::mem::take(&mut self.segments);
        let deleted = old.iter().try_for_each(Segment::delete_files);
        let created = deleted.and_then(|()| Segment::create(&self.dir, offset, &self.config));
        let segment = match created {
            Ok(segment) => segment,
            Err(e) => {
                // Keep serving reads from the files still open, refuse writes: the log must
                // never be left without a segment.
                self.segments = old;
                self.closed = true;
                return Err(e);
            }
        };
        drop(old);
        self.segments.push(segment);
        self.dir_generation += 1;
        self.size_bytes = 0;
        self.log_start_offset = offset;
        self.epochs.clear()?;
        self.producers = ProducerStateManager::new();
        delete_snapshots(&self.dir, |_| true)?;
        self.after_truncation()
    }

    fn after_truncation(&mut self) -> io::Result<()> {
        self.truncations += 1;
        // A truncated leader-to-be verifies its transactions afresh.
        self.verified_txns.clear();
        let leo = self.log_end_offset();
        self.log_start_offset = self.log_start_offset.min(leo);
        self.high_watermark = self.high_watermark.clamp(self.log_start_offset, leo);
        self.recovery_point = self.recovery_point.min(leo);
        self.epochs.truncate_from_end(leo)?;
        // The exact state at the new end (transactions whose markers went are open again):
        // the newest snapshot at or below it, then the log replayed from there.
        super::recovery::load_producer_state(self, &[])
    }

    /// Deletes segments past `retention.ms` (by their largest timestamp) and beyond
    /// `retention.bytes`, oldest first; never the active segment, never data at or above the
    /// high watermark. Returns how many went.
    pub fn apply_retention(&mut self, now_ms: i64) -> io::Result<usize> {
        if !self.config.delete {
            return Ok(0);
        }
        let mut deleted = 0;
        let deletable =
            |log: &Log| log.segments.len() > 1 && log.segments[1].base_offset <= log.high_watermark;
        if self.config.retention_ms >= 0 {
            while deletable(self)
                && now_ms.saturating_sub(largest_timestamp(&self.segments[0])?)
                    > self.config.retention_ms
            {
                self.delete_oldest_segment()?;
                deleted += 1;
            }
        }
        if self.config.retention_bytes >= 0 {
            let mut excess = self.size_bytes as i64 - self.config.retention_bytes;
            while deletable(self) && excess >= self.segments[0].size as i64 {
                excess -= self.segments[0].size as i64;
                self.delete_oldest_segment()?;
                deleted += 1;
            }
        }
        if deleted > 0 {
            self.log_start_offset = self.log_start_offset.max(self.segments[0].base_offset);
            self.epochs.truncate_from_start(self.log_start_offset)?;
        }
        Ok(deleted)
    }

    /// fsyncs everything up to the log end offset and moves the recovery point there.
    pub fn flush(&mut self) -> io::Result<()> {
        let plan = self.flush_plan();
        plan.execute()?;
        self.complete_flush(&plan);
        Ok(())
    }

    /// What a flush must fsync, taken under the read lock so that the fsyncs can then run
    /// without any lock (appends go on meanwhile); `complete_flush` moves the recovery point.
    pub fn flush_plan(&self) -> FlushPlan {
        let first = self
            .segments
            .partition_point(|s| s.next_offset <= self.recovery_point)
            .min(self.segments.len() - 1);
        // Everything below the recovery point is durable already: an idle log syncs no file.
        let unflushed = self.recovery_point < self.log_end_offset();
        let epochs = self.epochs.unsynced();
        FlushPlan {
            files: self.segments[first..]
                .iter()
                .filter(|_| unflushed)
                .flat_map(Segment::sync_targets)
                .collect(),
            // The epoch checkpoint is replaced by a rename: the directory holds its new entry.
            dir: (self.dir_generation != self.dir_synced || epochs.is_some())
                .then(|| self.dir.clone()),
            epochs,
            new_dir: (!self.dir_entry_synced).then(|| self.dir.clone()),
            end_offset: self.log_end_offset(),
            dir_generation: self.dir_generation,
            truncations: self.truncations,
        }
    }

    /// Records a flush done from `plan`. Ignored if the log was truncated meanwhile: offsets
    /// below the plan's end may since hold new, unflushed data.
    pub fn complete_flush(&mut self, plan: &FlushPlan) {
        if plan.truncations != self.truncations {
            return;
        }
        self.dir_synced = self.dir_synced.max(plan.dir_generation);
        self.dir_entry_synced |= plan.new_dir.is_some();
        if let Some((_, written)) = plan.epochs {
            self.epochs.mark_synced(written);
        }
        self.recovery_point = self.recovery_point.max(plan.end_offset);
        if plan.end_offset >= self.log_end_offset() {
            self.unflushed_messages = 0;
        }
        self.last_flush_ms = super::now_ms();
    }

    /// The directory and its `partition.metadata` were just created, unsynced: the next flush
    /// syncs them (and the directory's entry in the log directory).
    pub(crate) fn mark_new_dir(&mut self) {
        self.dir_entry_synced = false;
        self.dir_generation += 1;
    }

    /// Whether `flush.ms` has passed since the last flush and there is something to flush.
    pub fn flush_due(&self, now_ms: i64) -> bool {
        now_ms.saturating_sub(self.last_flush_ms) >= self.config.flush_ms
            && self.recovery_point < self.log_end_offset()
    }

    /// Flushes, writes the producer snapshot and trims the active segment's indexes; the log
    /// is then clean and refuses further appends.
    pub fn close(&mut self) -> io::Result<()> {
        if self.refuses_io() {
            return Ok(());
        }
        let plan = self.close_unsynced(true)?;
        plan.execute()?;
        self.complete_flush(&plan);
        Ok(())
    }

    /// Closes the log without syncing anything: the caller makes the returned plan durable —
    /// by executing it, or, when closing every log at shutdown, by one `syncfs` of the log
    /// directory's file system — then hands it to `complete_flush`.
    pub(crate) fn close_unsynced(&mut self, sync_snapshot: bool) -> io::Result<FlushPlan> {
        // Sealed before the flush, so the flush covers the trimmed indexes and their last time
        // index entry. An idle log has nothing to flush: had the trimmed sizes not reached
        // the disk, the next start finds the indexes longer than their entries, fails their
        // sanity check and rebuilds them, so they need no fsync of their own.
        self.segments
            .last_mut()
            .expect("a log always has a segment")
            .seal()?;
        let plan = self.flush_plan();
        let leo = self.log_end_offset();
        // The next start replays producer state from the newest snapshot: one at the log end
        // saves replaying the log. None is needed for an empty log, nor a second one at the
        // same offset (as Kafka skips a snapshot that is not at a new offset).
        let have = list_snapshots(&self.dir)?;
        if leo > self.log_start_offset && have.last() != Some(&leo) {
            if sync_snapshot {
                self.producers.write_snapshot(&self.dir, leo)?;
            } else {
                self.producers.write_snapshot_unsynced(&self.dir, leo)?;
            }
        }
        self.closed = true;
        Ok(plan)
    }

    pub fn is_closed(&self) -> bool {
        self.closed
    }
}

/// A segment's largest timestamp, or its file's modification time when no batch has one.
fn largest_timestamp(seg: &Segment) -> io::Result<i64> {
    if seg.max_timestamp >= 0 {
        return Ok(seg.max_timestamp);
    }
    let modified = seg.file.metadata()?.modified()?;
    Ok(modified
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64))
}
