//! Transactions in the log: markers written by the transaction coordinator, the last stable
//! offset and the aborted transactions a READ_COMMITTED fetch needs.

use bytes::BytesMut;

use super::partition_log::{LeaderAppend, Log};
use super::txn_index::AbortedTxn;
use crate::error::ErrorCode;
use crate::record::batch::BatchHeader;
use crate::record::builder::control_batch;
use crate::record::validate::assign_offsets;

impl Log {
    /// Appends a COMMIT or ABORT marker for `producer_id` as leader (WriteTxnMarkers). A
    /// stale producer epoch is INVALID_PRODUCER_EPOCH (under transaction version 2, whose
    /// coordinator bumps the epoch for every marker, one not newer than the producer's is),
    /// an older coordinator TRANSACTION_COORDINATOR_FENCED. An ABORT goes into the
    /// aborted-transaction index.
    #[allow(clippy::too_many_arguments)]
    pub fn append_marker(
        &mut self,
        producer_id: i64,
        producer_epoch: i16,
        coordinator_epoch: i32,
        commit: bool,
        transaction_version: i8,
        leader_epoch: i32,
        now_ms: i64,
    ) -> Result<LeaderAppend, ErrorCode> {
        if self.refuses_io() {
            return Err(ErrorCode::KafkaStorageError);
        }
        let mut bytes = BytesMut::from(
            &control_batch(
                producer_id,
                producer_epoch,
                commit,
                coordinator_epoch,
                now_ms,
            )[..],
        );
        let mut header = BatchHeader::parse(&bytes)?;
        self.producers
            .check_marker(&header, coordinator_epoch, transaction_version)?;
        // The transaction ends here: a later batch of the producer starts a new one, which
        // the coordinator must confirm again (a late batch of this one must not reopen it).
        self.verified_txns.remove(&producer_id);
        let base_offset = self.log_end_offset();
        assign_offsets(&mut bytes, base_offset, leader_epoch);
        header.base_offset = base_offset;
        header.partition_leader_epoch = leader_epoch;
        self.append_batch(&bytes, &header, header.max_timestamp, base_offset, now_ms)
            .map_err(|e| self.io_failed(e))?;
        self.track_appended(&header, &bytes, now_ms)
            .map_err(|e| self.io_failed(e))?;
        self.flush_if_many_unflushed()?;
        Ok(LeaderAppend {
            base_offset,
            last_offset: base_offset,
            log_append_time: -1,
            log_start_offset: self.log_start_offset,
            duplicate: false,
        })
    }

    /// Whether a transactional batch would start a transaction on this partition that the
    /// coordinator has not confirmed (KIP-890): its producer has no transaction open here at
    /// its epoch, and none was verified for it since the producer's last marker. A batch of
    /// an older epoch than the producer's here is not asked about: its append refuses it
    /// (INVALID_PRODUCER_EPOCH), as Kafka's log does before it asks the coordinator.
    pub fn needs_txn_verification(&self, header: &BatchHeader) -> bool {
        if !header.is_transactional() || header.is_control() || !header.has_producer_id() {
            return false;
        }
        let entry = self.producers.entry(header.producer_id);
        if entry.is_some_and(|e| header.producer_epoch < e.epoch) {
            return false;
        }
        let open = entry.is_some_and(|e| {
            e.epoch == header.producer_epoch && e.current_txn_first_offset.is_some()
        });
        !open && self.verified_txns.get(&header.producer_id) != Some(&header.producer_epoch)
    }

    /// The coordinator confirmed that `producer_id`'s transaction at `producer_epoch`
    /// includes this partition: its batches may open the transaction here.
    pub fn mark_txn_verified(&mut self, producer_id: i64, producer_epoch: i16) {
        self.verified_txns.insert(producer_id, producer_epoch);
    }

    /// Forgets idle producers (`producer.id.expiration.ms`); open transactions stay.
    pub fn expire_producers(&mut self, now_ms: i64, max_age_ms: i64) {
        self.producers.remove_expired(now_ms, max_age_ms);
    }

    /// The last stable offset: below it every transaction is decided (READ_COMMITTED fetches
    /// and ListOffsets stop here). Never above the high watermark.
    pub fn last_stable_offset(&self) -> i64 {
        let hw = self.high_watermark;
        self.producers
            .first_unstable_offset()
            .map_or(hw, |first| first.min(hw))
    }

    /// Aborted transactions overlapping `[start, end)`, the range a READ_COMMITTED fetch
    /// returns, in marker order: the consumer drops their records.
    pub fn aborted_transactions(&self, start: i64, end: i64) -> Vec<AbortedTxn> {
        // A transaction's entry sits with its marker, which follows all of its records: the
        // segments before the one holding `start` cannot hold a marker at or after it.
        let first = self
            .segments
            .partition_point(|s| s.base_offset <= start)
            .saturating_sub(1);
        self.segments[first..]
            .iter()
            .flat_map(|s| s.txn_index.entries())
            .filter(|t| t.last_offset >= start && t.first_offset < end)
            .copied()
            .collect()
    }
}
