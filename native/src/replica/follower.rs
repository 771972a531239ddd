//! The follower side of a replica: what the fetcher reads from it and the writes it makes.
//! Every write names the leader epoch the fetcher works for and is refused once the replica
//! has moved on (a newer epoch, or no longer a follower), so a response still in flight from
//! an old leader can never land in the log.

use super::partition::{Partition, Progress, Role};
use crate::error::ErrorCode;
use crate::record::batch::iter_batches;

/// Where a follower's log stands, for building its next request to the leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FollowerPosition {
    pub log_start_offset: i64,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    /// The epoch of the last batch (the leader-epoch cache's latest entry).
    pub latest_epoch: Option<i32>,
}

impl Partition {
    pub fn follower_position(&self) -> FollowerPosition {
        let log = self.log.read();
        FollowerPosition {
            log_start_offset: log.log_start_offset(),
            log_end_offset: log.log_end_offset(),
            high_watermark: log.high_watermark(),
            latest_epoch: log.latest_epoch(),
        }
    }

    /// Our own end offset for `epoch` (the largest epoch <= it and where it ends).
    pub fn end_offset_for_epoch(&self, epoch: i32) -> Option<(i32, i64)> {
        self.log.read().end_offset_for_epoch(epoch)
    }

    /// Runs `f` on the log if this replica still follows at `epoch`, then publishes progress.
    fn as_follower<T>(
        &self,
        epoch: i32,
        f: impl FnOnce(&mut crate::log::Log) -> Result<T, ErrorCode>,
    ) -> Result<T, ErrorCode> {
        let st = self.state.read();
        if st.role != Role::Follower || st.leader_epoch != epoch {
            return Err(ErrorCode::FencedLeaderEpoch);
        }
        let mut log = self.log.write();
        if log.refuses_io() {
            // Also when there is nothing to append: an offline replica must not look caught up.
            return Err(ErrorCode::KafkaStorageError);
        }
        let out = f(&mut log)?;
        let progress = Progress {
            high_watermark: log.high_watermark(),
            log_end_offset: log.log_end_offset(),
        };
        drop(log);
        drop(st);
        self.publish(progress);
        Ok(out)
    }

    /// Appends what the leader sent byte for byte (CRC-checked; offsets and epochs as given,
    /// the epoch cache following the batches), then takes the leader's high watermark (never
    /// past our own end) and log start offset. Returns the new log end offset.
    pub fn append_as_follower(
        &self,
        epoch: i32,
        records: &[u8],
        leader_hw: i64,
        leader_log_start: i64,
        now_ms: i64,
    ) -> Result<i64, ErrorCode> {
        self.as_follower(epoch, |log| {
            if let Some(Ok((first, _))) = iter_batches(records).next() {
                // A log restarted at the leader's log start inside a batch gets that whole
                // batch back, starting below our end: with nothing written yet, start the
                // log at the batch instead (Kafka's UnexpectedAppendOffsetException case).
                let leo = log.log_end_offset();
                if log.size_bytes() == 0 && first.base_offset < leo && first.last_offset() >= leo {
                    log.truncate_fully_and_start_at(first.base_offset)
                        .map_err(|e| log.io_failed(e))?;
                }
            }
            if !records.is_empty() {
                log.append_as_follower(records, now_ms)?;
                self.metrics.replication_bytes_in.add(records.len() as u64);
            }
            if leader_hw >= 0 {
                log.set_high_watermark(leader_hw.min(log.log_end_offset()));
            }
            // The leader's retention or DeleteRecords moved its start: follow it, never past
            // what we know is committed.
            let start = leader_log_start.min(log.high_watermark());
            if start > log.log_start_offset() {
                log.delete_records_before(start)?;
            }
            Ok(log.log_end_offset())
        })
    }

    /// Truncates to `offset` (KIP-101/279: an epoch boundary the leader confirmed); returns
    /// the new log end offset.
    pub fn truncate_as_follower(&self, epoch: i32, offset: i64) -> Result<i64, ErrorCode> {
        self.as_follower(epoch, |log| {
            if offset < log.log_end_offset() {
                ::log::info!(
                    "{}-{}: truncating from {} to {offset} (leader epoch {epoch})",
                    self.topic(),
                    self.index(),
                    log.log_end_offset()
                );
                log.truncate_to(offset.max(0))
                    .map_err(|e| log.io_failed(e))?;
            }
            Ok(log.log_end_offset())
        })
    }

    /// Empties the log and restarts it at the leader's log start offset (we fell behind it).
    pub fn restart_as_follower_at(&self, epoch: i32, offset: i64) -> Result<(), ErrorCode> {
        self.as_follower(epoch, |log| {
            ::log::info!(
                "{}-{}: log end {} is below the leader's start {offset}: starting over there",
                self.topic(),
                self.index(),
                log.log_end_offset()
            );
            log.truncate_fully_and_start_at(offset)
                .map_err(|e| log.io_failed(e))
        })
    }
}
