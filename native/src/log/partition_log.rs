//! One partition's log: its segments, offsets, leader epochs and producer state; the append and
//! read paths. Opening and recovery are in `recovery.rs`, truncation, retention and flushing in
//! `maintenance.rs`.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::BytesMut;

use super::epoch_cache::EpochCache;
use super::segment::Segment;
use super::txn_index::track_batch;
use super::{LogConfig, LogDirFailure};
use crate::error::ErrorCode;
use crate::record::batch::{crc_is_valid, iter_batches, BatchHeader};
use crate::record::producer::{AppendOrigin, ProducerStateManager};
use crate::record::rejected::Rejected;
use crate::record::validate::{assign_offsets, validate_batch};

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
/// `length == 0`. The file stays readable if its segment is deleted meanwhile (retention,
/// DeleteRecords); only a truncation (a follower truncating, recovery) can shorten it, so a
/// sender must treat a short sendfile as an error (Kafka closes the connection then).
#[derive(Debug, Clone)]
pub struct FetchSlice {
    pub file: Option<Arc<File>>,
    pub position: u64,
    pub length: u32,
}

impl FetchSlice {
    pub fn empty() -> FetchSlice {
        FetchSlice {
            file: None,
            position: 0,
            length: 0,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    /// The slice's bytes read into memory (for readers other than a socket's sendfile).
    pub fn to_vec(&self) -> std::io::Result<Vec<u8>> {
        use std::os::unix::fs::FileExt;
        let mut out = vec![0u8; self.length as usize];
        if let Some(file) = &self.file {
            file.read_exact_at(&mut out, self.position)?;
        }
        Ok(out)
    }
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
    pub(crate) config: LogConfig,
    /// Sorted by base offset, never empty; the last one is the active segment.
    pub(crate) segments: Vec<Segment>,
    pub(crate) log_start_offset: i64,
    pub(crate) high_watermark: i64,
    /// Everything below it is fsynced; recovery after a crash starts from its segment.
    pub(crate) recovery_point: i64,
    pub(crate) epochs: EpochCache,
    pub(crate) producers: ProducerStateManager,
    /// Producers whose next transaction the coordinator confirmed includes this partition
    /// (producer id -> epoch), until its marker (KIP-890; see `transactions.rs`).
    pub(crate) verified_txns: HashMap<i64, i16>,
    pub(crate) size_bytes: u64,
    /// Records appended since the last flush, for flush.messages.
    pub(crate) unflushed_messages: i64,
    pub(crate) last_flush_ms: i64,
    /// Counts segment files created; the directory needs an fsync while it is ahead of
    /// `dir_synced`.
    pub(crate) dir_generation: u64,
    pub(crate) dir_synced: u64,
    /// False while the partition directory's own entry in the log directory, and its
    /// `partition.metadata`, were created in this run and not yet fsynced (creation does no
    /// fsync, as in Kafka; the first flush does).
    pub(crate) dir_entry_synced: bool,
    /// Counts truncations, so a flush that ran without the lock knows whether its end offset
    /// still means what it did.
    pub(crate) truncations: u64,
    /// Compaction: offsets below this were cleaned in this run (`min.cleanable.dirty.ratio`).
    pub(crate) cleaned_through: i64,
    /// Compaction: the earliest delete horizon of a tombstone still in the log (i64::MAX:
    /// none known), so its expiry triggers a cleaning even without new dirty bytes.
    pub(crate) tombstone_horizon: i64,
    /// Closed logs refuse appends: their indexes are trimmed and a snapshot is written.
    pub(crate) closed: bool,
    /// Its log directory's health (`dir_failure`): an I/O error here takes the directory
    /// offline, and an offline directory's logs refuse appends and reads.
    pub(crate) dir_failure: Arc<LogDirFailure>,
}

impl Log {
    /// An I/O failure of this log, as the client sees it: KAFKA_STORAGE_ERROR. It takes the
    /// log directory offline (Kafka's LogDirFailureChannel): whatever state the failed write
    /// left behind is never appended after or served. The cause is logged there because the
    /// code is all that travels on.
    pub(crate) fn io_failed(&self, e: std::io::Error) -> ErrorCode {
        self.dir_failure
            .fail(&e, self.dir.parent().unwrap_or(&self.dir))
    }

    /// Whether the log refuses appends and reads: closed (deleted), or its directory is
    /// offline.
    pub fn refuses_io(&self) -> bool {
        self.closed || self.dir_failure.is_offline()
    }

    /// Whether this log's directory went offline after an I/O error (until the restart).
    pub fn is_offline(&self) -> bool {
        self.dir_failure.is_offline()
    }

    /// Shares `failure` as this log's directory health (the log manager's, per directory).
    pub(crate) fn set_dir_failure(&mut self, failure: Arc<LogDirFailure>) {
        self.dir_failure = failure;
    }

    /// Opens or creates the log in `dir`, recovering from `recovery_point`: every batch after
    /// it is CRC-checked and a torn tail is truncated; indexes and producer state are rebuilt.
    /// `recovery_point == i64::MAX` means the log was closed cleanly: nothing is rescanned
    /// unless its files do not parse.
    /// One `Log` per directory per process: two would map the same index files.
    pub fn open(
        dir: &Path,
        config: LogConfig,
        recovery_point: i64,
        log_start_offset: i64,
        high_watermark: i64,
    ) -> std::io::Result<Log> {
        super::recovery::open(
            dir,
            config,
            recovery_point,
            log_start_offset,
            high_watermark,
        )
    }

    /// Validates, checks producer state, assigns offsets from the log end offset, stamps
    /// `leader_epoch`, appends, updates indexes and producer state.
    pub fn append_as_leader(
        &mut self,
        batch: BytesMut,
        leader_epoch: i32,
        now_ms: i64,
    ) -> Result<LeaderAppend, ErrorCode> {
        self.append_from(
            batch,
            leader_epoch,
            now_ms,
            AppendOrigin::Client { verify_txn: false },
        )
        .map_err(|r| r.code)
    }

    /// [`Log::append_as_leader`] for a batch from `origin` (a coordinator's batches are not
    /// checked for sequence).
    pub fn append_from(
        &mut self,
        batch: BytesMut,
        leader_epoch: i32,
        now_ms: i64,
        origin: AppendOrigin,
    ) -> Result<LeaderAppend, Rejected> {
        if self.refuses_io() {
            return Err(ErrorCode::KafkaStorageError.into());
        }
        let validated = validate_batch(batch, &self.config.validation(), now_ms)?;
        let mut header = validated.header;
        if header.has_producer_id() {
            if let Some(dup) = self.producers.check_from(&header, origin)? {
                // A retried batch answers as the first did, verified or not.
                return Ok(LeaderAppend {
                    base_offset: dup.base_offset,
                    last_offset: dup.last_offset,
                    log_append_time: if validated.log_append_time >= 0 {
                        dup.timestamp
                    } else {
                        -1
                    },
                    log_start_offset: self.log_start_offset,
                    duplicate: true,
                });
            }
            if origin == (AppendOrigin::Client { verify_txn: true })
                && self.needs_txn_verification(&header)
            {
                return Err(ErrorCode::InvalidTxnState.into());
            }
        }
        let base_offset = self.log_end_offset();
        let mut bytes = validated.bytes;
        assign_offsets(&mut bytes, base_offset, leader_epoch);
        header.base_offset = base_offset;
        header.partition_leader_epoch = leader_epoch;
        header.max_timestamp = validated.max_timestamp;
        let offset_of_max = base_offset + i64::from(validated.offset_delta_of_max_timestamp);
        self.append_batch(
            &bytes,
            &header,
            validated.max_timestamp,
            offset_of_max,
            now_ms,
        )
        .map_err(|e| self.io_failed(e))?;
        if header.has_producer_id() {
            self.producers.update(&header, now_ms);
        }
        self.flush_if_many_unflushed()?;
        Ok(LeaderAppend {
            base_offset,
            last_offset: header.last_offset(),
            log_append_time: validated.log_append_time,
            log_start_offset: self.log_start_offset,
            duplicate: false,
        })
    }

    /// Appends batches fetched from the leader byte for byte (offsets and epochs as the leader
    /// wrote them). A partial batch at the end, normal in a fetch response, is ignored.
    /// Returns the first and last offsets appended, None when `records` held no whole batch.
    /// CORRUPT_MESSAGE for a bad CRC; OFFSET_OUT_OF_RANGE when a batch starts below the log end
    /// (the follower must truncate first).
    pub fn append_as_follower(
        &mut self,
        records: &[u8],
        now_ms: i64,
    ) -> Result<Option<(i64, i64)>, ErrorCode> {
        if self.refuses_io() {
            return Err(ErrorCode::KafkaStorageError);
        }
        let mut appended = None;
        for item in iter_batches(records) {
            let Ok((header, bytes)) = item else { break };
            if !crc_is_valid(bytes) {
                return Err(ErrorCode::CorruptMessage);
            }
            if header.base_offset < self.log_end_offset() {
                return Err(ErrorCode::OffsetOutOfRange);
            }
            self.append_batch(
                bytes,
                &header,
                header.max_timestamp,
                header.base_offset,
                now_ms,
            )
            .map_err(|e| self.io_failed(e))?;
            self.track_appended(&header, bytes, header.max_timestamp)
                .map_err(|e| self.io_failed(e))?;
            let first = appended.map_or(header.base_offset, |(f, _)| f);
            appended = Some((first, header.last_offset()));
        }
        self.flush_if_many_unflushed()?;
        Ok(appended)
    }

    /// Producer and transaction state (and the aborted-transaction index) for a batch just
    /// written to the active segment by `append_batch`.
    pub(crate) fn track_appended(
        &mut self,
        header: &BatchHeader,
        bytes: &[u8],
        append_time_ms: i64,
    ) -> std::io::Result<()> {
        let active = self
            .segments
            .last_mut()
            .expect("a log always has a segment");
        track_batch(
            &mut self.producers,
            &mut active.txn_index,
            header,
            bytes,
            append_time_ms,
            true,
        )
    }

    /// The one write path: roll if needed, record a new leader epoch, write, count for
    /// flush.messages.
    pub(crate) fn append_batch(
        &mut self,
        bytes: &[u8],
        header: &BatchHeader,
        max_ts: i64,
        offset_of_max: i64,
        now_ms: i64,
    ) -> std::io::Result<()> {
        if self
            .active()
            .should_roll(bytes.len(), header.last_offset(), now_ms, &self.config)
        {
            self.roll()?;
        }
        let epoch = header.partition_leader_epoch;
        if epoch >= 0
            && self
                .epochs
                .latest_epoch()
                .is_none_or(|latest| latest < epoch)
        {
            self.epochs.assign(epoch, header.base_offset)?;
        }
        let config = &self.config;
        let active = self
            .segments
            .last_mut()
            .expect("a log always has a segment");
        active.append(bytes, header, max_ts, offset_of_max, now_ms, config)?;
        self.size_bytes += bytes.len() as u64;
        self.unflushed_messages = self
            .unflushed_messages
            .saturating_add(i64::from(header.last_offset_delta) + 1);
        Ok(())
    }

    /// flush.messages. Called once the append is complete (producer state included), so a
    /// failed fsync cannot leave a written batch unrecorded for a retry to duplicate.
    pub(crate) fn flush_if_many_unflushed(&mut self) -> Result<(), ErrorCode> {
        if self.unflushed_messages >= self.config.flush_messages {
            self.flush().map_err(|e| self.io_failed(e))?;
        }
        Ok(())
    }

    pub(crate) fn active(&self) -> &Segment {
        self.segments.last().expect("a log always has a segment")
    }

    /// Batches starting at the one that contains `offset`, whole batches only, ending before
    /// `max_offset` (exclusive, the high watermark for consumers); at least one batch when
    /// `min_one` even if larger than `max_bytes`. OFFSET_OUT_OF_RANGE outside
    /// [log start, log end]. The slice never spans two segments: the next read continues.
    pub fn read(
        &self,
        offset: i64,
        max_bytes: u32,
        max_offset: i64,
        min_one: bool,
    ) -> Result<FetchSlice, ErrorCode> {
        if self.is_offline() {
            // As Kafka: an offline directory's partitions serve nothing, not even what was
            // written before the failure.
            return Err(ErrorCode::KafkaStorageError);
        }
        if offset < self.log_start_offset || offset > self.log_end_offset() {
            return Err(ErrorCode::OffsetOutOfRange);
        }
        // Consumers at the tail poll here constantly: answer without touching the segment.
        if offset >= max_offset || offset == self.log_end_offset() {
            return Ok(FetchSlice::empty());
        }
        let first = self
            .segments
            .partition_point(|s| s.base_offset <= offset)
            .saturating_sub(1);
        for seg in &self.segments[first..] {
            if let Some(slice) = seg
                .read_slice(offset, max_bytes, max_offset, min_one)
                .map_err(|e| self.io_failed(e))?
            {
                return Ok(slice);
            }
        }
        Ok(FetchSlice::empty())
    }

    /// The first offset whose timestamp is >= `timestamp`, with that record's timestamp and its
    /// batch's leader epoch; None if every record is older. Records are walked (compressed
    /// batches decompressed); under LogAppendTime the batch's first offset is the answer.
    /// The caller bounds the answer by the high watermark or the last stable offset.
    pub fn offset_for_timestamp(&self, timestamp: i64) -> Option<TimestampOffset> {
        // Generous but finite: a lookup must not be a decompression bomb.
        let limit = (self.config.max_message_bytes.max(1 << 20) as usize).saturating_mul(64);
        for seg in self
            .segments
            .iter()
            .filter(|s| s.max_timestamp >= timestamp && s.next_offset > self.log_start_offset)
        {
            match seg.find_timestamp(timestamp, self.log_start_offset, limit) {
                Ok(Some((offset, ts, epoch))) => {
                    return Some(TimestampOffset {
                        offset,
                        timestamp: ts,
                        leader_epoch: epoch,
                    })
                }
                Ok(None) => {}
                Err(e) => {
                    ::log::error!("timestamp lookup in {} failed: {e}", self.dir.display());
                    return None;
                }
            }
        }
        None
    }

    /// The largest timestamp in the log and its offset (ListOffsets -3, MAX_TIMESTAMP).
    pub fn max_timestamp(&self) -> Option<TimestampOffset> {
        let mut best: Option<&Segment> = None;
        for seg in &self.segments {
            if seg.max_timestamp >= 0 && best.is_none_or(|b| seg.max_timestamp > b.max_timestamp) {
                best = Some(seg);
            }
        }
        best.map(|seg| TimestampOffset {
            offset: seg.offset_of_max_timestamp,
            timestamp: seg.max_timestamp,
            leader_epoch: self
                .epochs
                .epoch_for(seg.offset_of_max_timestamp)
                .unwrap_or(-1),
        })
    }

    pub fn log_start_offset(&self) -> i64 {
        self.log_start_offset
    }
    pub fn log_end_offset(&self) -> i64 {
        self.active().next_offset
    }
    pub fn high_watermark(&self) -> i64 {
        self.high_watermark
    }
    /// Sets the high watermark (clamped to [log start, log end]).
    pub fn set_high_watermark(&mut self, hw: i64) {
        self.high_watermark = hw.clamp(self.log_start_offset, self.log_end_offset());
    }
    pub fn recovery_point(&self) -> i64 {
        self.recovery_point
    }
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }
    pub fn segment_count(&self) -> usize {
        self.segments.len()
    }
    /// Base offsets of the segments, oldest first.
    pub fn segment_base_offsets(&self) -> Vec<i64> {
        self.segments.iter().map(|s| s.base_offset).collect()
    }
    pub fn config(&self) -> &LogConfig {
        &self.config
    }
    pub fn set_config(&mut self, config: LogConfig) {
        self.config = config;
    }

    /// Records that `epoch` starts at the current log end offset (leader-epoch checkpoint).
    pub fn assign_epoch_start(&mut self, epoch: i32) -> std::io::Result<()> {
        let leo = self.log_end_offset();
        self.epochs.assign(epoch, leo)
    }
    pub fn latest_epoch(&self) -> Option<i32> {
        self.epochs.latest_epoch()
    }
    /// OffsetsForLeaderEpoch: the largest epoch <= `epoch` and the offset where it ends (the
    /// next epoch's start, or the log end offset for the latest epoch). None when `epoch` is
    /// unknown and newer than every epoch in the cache (UNDEFINED_EPOCH_OFFSET).
    pub fn end_offset_for_epoch(&self, epoch: i32) -> Option<(i32, i64)> {
        self.epochs.end_offset_for(epoch, self.log_end_offset())
    }
    /// The (epoch, start offset) entries of the leader-epoch cache.
    pub fn epoch_entries(&self) -> Vec<(i32, i64)> {
        self.epochs.entries().to_vec()
    }
}
