//! Idempotent-producer state per partition: producer id, epoch and the last five batches'
//! sequences (Kafka's `ProducerStateManager`), plus each producer's open transaction.
//! Rules: `../shared/kafka-protocol/README.md`, section 5 item 4. Snapshot files are in
//! `producer_snapshot.rs`.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::Path;

use super::batch::{BatchHeader, NO_SEQUENCE};
use crate::error::ErrorCode;

/// Batches remembered per producer: the clients' `max.in.flight.requests.per.connection`
/// limit for idempotence, so any retry of an in-flight batch is recognised.
pub const NUM_BATCHES_TO_RETAIN: usize = 5;

/// Epoch of a producer entry whose epoch is not known (Kafka's NO_PRODUCER_EPOCH).
pub const NO_PRODUCER_EPOCH: i16 = -1;

/// Who appends a batch. A coordinator (the group coordinator writing a transactional offset
/// commit) writes its batches with sequence 0 each time: as Kafka's `AppendOrigin.COORDINATOR`,
/// only their epoch is checked, not their sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppendOrigin {
    /// A producer's batch. With `verify_txn` (KIP-890) the first batch of a transaction is
    /// appended only once the transaction coordinator confirmed the partition is in it
    /// ([`crate::log::Log::mark_txn_verified`]).
    Client {
        verify_txn: bool,
    },
    Coordinator,
}

/// An earlier batch that a retried produce duplicates: answer with its offsets, append nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DuplicateBatch {
    pub base_offset: i64,
    pub last_offset: i64,
    pub timestamp: i64,
}

/// What is remembered of one appended batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchMetadata {
    pub first_seq: i32,
    pub last_seq: i32,
    pub first_offset: i64,
    pub last_offset: i64,
    pub timestamp: i64,
}

/// One producer's state in this partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerEntry {
    pub epoch: i16,
    /// Oldest first, at most `NUM_BATCHES_TO_RETAIN`.
    pub batches: VecDeque<BatchMetadata>,
    /// Epoch of the transaction coordinator that wrote this producer's last marker; kept for
    /// the snapshot format and for fencing stale coordinators.
    pub coordinator_epoch: i32,
    /// First offset of the producer's open transaction: bounds the last stable offset.
    pub current_txn_first_offset: Option<i64>,
    /// Timestamp of the last batch or marker, for producer-id expiration.
    pub last_timestamp: i64,
    /// Offset of the last batch or marker: truncation below it makes the entry stale.
    pub last_offset: i64,
}

impl ProducerEntry {
    fn new(epoch: i16) -> ProducerEntry {
        ProducerEntry {
            epoch,
            batches: VecDeque::with_capacity(NUM_BATCHES_TO_RETAIN),
            coordinator_epoch: -1,
            current_txn_first_offset: None,
            last_timestamp: -1,
            last_offset: -1,
        }
    }

    pub fn last_seq(&self) -> i32 {
        self.batches.back().map_or(NO_SEQUENCE, |b| b.last_seq)
    }

    fn find_duplicate(&self, header: &BatchHeader) -> Option<DuplicateBatch> {
        let (first, last) = (header.base_sequence, header.last_sequence());
        self.batches
            .iter()
            .find(|b| b.first_seq == first && b.last_seq == last)
            .map(|b| DuplicateBatch {
                base_offset: b.first_offset,
                last_offset: b.last_offset,
                timestamp: b.timestamp,
            })
    }

    fn set_epoch(&mut self, epoch: i16) {
        if epoch != self.epoch {
            self.epoch = epoch;
            self.batches.clear();
        }
    }
}

/// `next` follows `last`, wrapping from i32::MAX to 0 as Kafka's sequences do.
fn in_sequence(last: i32, next: i32) -> bool {
    (last != i32::MAX && next == last.wrapping_add(1)) || (last == i32::MAX && next == 0)
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ProducerStateManager {
    pub(super) producers: HashMap<i64, ProducerEntry>,
    /// Open transactions by first offset (offset -> producer id): the smallest key is the
    /// first unstable offset.
    pub(super) ongoing: BTreeMap<i64, i64>,
}

impl ProducerStateManager {
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks a batch about to be appended as leader: `Ok(None)` to append it,
    /// `Ok(Some(dup))` for a retried duplicate, or Kafka's error for gaps and stale epochs.
    pub fn check(&self, header: &BatchHeader) -> Result<Option<DuplicateBatch>, ErrorCode> {
        self.check_from(header, AppendOrigin::Client { verify_txn: false })
    }

    /// [`ProducerStateManager::check`] for a batch from `origin`.
    pub fn check_from(
        &self,
        header: &BatchHeader,
        origin: AppendOrigin,
    ) -> Result<Option<DuplicateBatch>, ErrorCode> {
        if !header.has_producer_id() {
            return Ok(None);
        }
        // Unknown producer (new, or its state expired or was removed by retention, KIP-360):
        // any epoch and sequence is accepted.
        let Some(entry) = self.producers.get(&header.producer_id) else {
            return Ok(None);
        };
        if header.producer_epoch < entry.epoch {
            return Err(ErrorCode::InvalidProducerEpoch);
        }
        if header.is_control() || origin == AppendOrigin::Coordinator {
            return Ok(None);
        }
        if header.producer_epoch == entry.epoch {
            if let Some(dup) = entry.find_duplicate(header) {
                return Ok(Some(dup));
            }
        }
        if header.producer_epoch != entry.epoch {
            if header.base_sequence != 0 && entry.epoch != NO_PRODUCER_EPOCH {
                return Err(ErrorCode::OutOfOrderSequenceNumber);
            }
        } else if entry.epoch != NO_PRODUCER_EPOCH
            && !in_sequence(entry.last_seq(), header.base_sequence)
        {
            return Err(ErrorCode::OutOfOrderSequenceNumber);
        }
        if !header.is_transactional() && entry.current_txn_first_offset.is_some() {
            return Err(ErrorCode::InvalidTxnState);
        }
        Ok(None)
    }

    /// Records an appended batch (as leader, as follower, or replayed during recovery);
    /// `header.base_offset` is the assigned offset. The remembered timestamp is the batch's
    /// MaxTimestamp, or `append_time_ms` when the batch carries none.
    pub fn update(&mut self, header: &BatchHeader, append_time_ms: i64) {
        if !header.has_producer_id() {
            return;
        }
        let timestamp = if header.max_timestamp >= 0 {
            header.max_timestamp
        } else {
            append_time_ms
        };
        let entry = self
            .producers
            .entry(header.producer_id)
            .or_insert_with(|| ProducerEntry::new(header.producer_epoch));
        entry.set_epoch(header.producer_epoch);
        entry.last_timestamp = timestamp;
        entry.last_offset = header.last_offset();
        if header.is_control() {
            if let Some(first) = entry.current_txn_first_offset.take() {
                self.ongoing.remove(&first);
            }
            return;
        }
        if entry.batches.len() == NUM_BATCHES_TO_RETAIN {
            entry.batches.pop_front();
        }
        entry.batches.push_back(BatchMetadata {
            first_seq: header.base_sequence,
            last_seq: header.last_sequence(),
            first_offset: header.base_offset,
            last_offset: header.last_offset(),
            timestamp,
        });
        if header.is_transactional() && entry.current_txn_first_offset.is_none() {
            entry.current_txn_first_offset = Some(header.base_offset);
            self.ongoing.insert(header.base_offset, header.producer_id);
        }
    }

    /// Checks a transaction marker written by the coordinator: a stale producer epoch is
    /// INVALID_PRODUCER_EPOCH, a marker from an older coordinator than the producer's last
    /// one is TRANSACTION_COORDINATOR_FENCED. Under transaction version 2 (its coordinator
    /// bumps the epoch as it ends the transaction) the marker's epoch must be newer than the
    /// producer's, or the same again for a marker written twice (no transaction open, or the
    /// last epoch), as Kafka 4's `checkProducerEpoch` has it.
    pub fn check_marker(
        &self,
        header: &BatchHeader,
        coordinator_epoch: i32,
        transaction_version: i8,
    ) -> Result<(), ErrorCode> {
        let Some(entry) = self.producers.get(&header.producer_id) else {
            return Ok(());
        };
        let epoch = header.producer_epoch;
        let stale = if transaction_version >= 2 {
            let again = epoch == entry.epoch
                && (entry.current_txn_first_offset.is_none() || epoch == i16::MAX);
            epoch <= entry.epoch && !again
        } else {
            epoch < entry.epoch
        };
        if stale {
            return Err(ErrorCode::InvalidProducerEpoch);
        }
        if coordinator_epoch < entry.coordinator_epoch {
            return Err(ErrorCode::TransactionCoordinatorFenced);
        }
        Ok(())
    }

    /// Records an appended transaction marker and the epoch of the coordinator that wrote it;
    /// returns the first offset of the transaction it ends (for the aborted-transaction
    /// index), if one was open.
    pub fn update_marker(
        &mut self,
        header: &BatchHeader,
        coordinator_epoch: i32,
        append_time_ms: i64,
    ) -> Option<i64> {
        let first = self.current_txn_first_offset(header.producer_id);
        self.update(header, append_time_ms);
        self.set_coordinator_epoch(header.producer_id, coordinator_epoch);
        first
    }

    /// Records the coordinator epoch of a transaction marker (read from its control record,
    /// which `update` does not parse).
    pub fn set_coordinator_epoch(&mut self, producer_id: i64, coordinator_epoch: i32) {
        if let Some(entry) = self.producers.get_mut(&producer_id) {
            entry.coordinator_epoch = coordinator_epoch;
        }
    }

    /// Forgets state for batches at or above `offset` (log truncation). A producer whose
    /// every remembered batch is cut is forgotten entirely (its next batch is then accepted
    /// with any sequence, as after expiration). Exact state is restored by loading the
    /// newest snapshot at or below `offset` and replaying the log from it.
    pub fn truncate_to(&mut self, offset: i64) {
        self.producers.retain(|_, entry| {
            if entry.last_offset < offset {
                return true;
            }
            entry.batches.retain(|b| b.first_offset < offset);
            if entry
                .current_txn_first_offset
                .is_some_and(|first| first >= offset)
            {
                entry.current_txn_first_offset = None;
            }
            match entry.batches.back() {
                Some(b) => {
                    entry.last_offset = b.last_offset;
                    true
                }
                None => entry.current_txn_first_offset.is_some(),
            }
        });
        self.rebuild_ongoing();
    }

    pub(super) fn rebuild_ongoing(&mut self) {
        self.ongoing = self
            .producers
            .iter()
            .filter_map(|(pid, e)| e.current_txn_first_offset.map(|first| (first, *pid)))
            .collect();
    }

    /// Drops producers idle since before `now_ms - max_age_ms` (`producer.id.expiration.ms`)
    /// that have no open transaction.
    pub fn remove_expired(&mut self, now_ms: i64, max_age_ms: i64) {
        let horizon = now_ms.saturating_sub(max_age_ms);
        self.producers
            .retain(|_, e| e.current_txn_first_offset.is_some() || e.last_timestamp >= horizon);
    }

    /// Every producer with state here, by id.
    pub fn iter(&self) -> impl Iterator<Item = (i64, &ProducerEntry)> {
        self.producers.iter().map(|(id, entry)| (*id, entry))
    }

    pub fn entry(&self, producer_id: i64) -> Option<&ProducerEntry> {
        self.producers.get(&producer_id)
    }

    pub fn len(&self) -> usize {
        self.producers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.producers.is_empty()
    }

    /// First offset of the producer's open transaction: what an abort marker's entry in
    /// the aborted-transaction index starts at. Read it before `update` closes it.
    pub fn current_txn_first_offset(&self, producer_id: i64) -> Option<i64> {
        self.producers.get(&producer_id)?.current_txn_first_offset
    }

    /// Smallest first offset of any open transaction: the last stable offset is the minimum
    /// of this and the high watermark.
    pub fn first_unstable_offset(&self) -> Option<i64> {
        self.ongoing.keys().next().copied()
    }

    /// Writes `<offset>.snapshot` (20-digit name) in `dir`.
    pub fn write_snapshot(&self, dir: &Path, offset: i64) -> std::io::Result<()> {
        super::producer_snapshot::write(self, dir, offset, true)
    }

    /// As `write_snapshot`, without an fsync: for a caller that syncs the file system after.
    pub fn write_snapshot_unsynced(&self, dir: &Path, offset: i64) -> std::io::Result<()> {
        super::producer_snapshot::write(self, dir, offset, false)
    }

    /// Deletes the snapshots above `offset`, which a truncation to `offset` invalidates.
    pub fn delete_snapshots_above(dir: &Path, offset: i64) -> std::io::Result<usize> {
        super::producer_snapshot::delete_snapshots_above(dir, offset)
    }

    /// Loads the newest valid snapshot at or below `max_offset`; returns the state and the
    /// offset to replay the log from (0 when there is none).
    pub fn load_snapshot(dir: &Path, max_offset: i64) -> std::io::Result<(Self, i64)> {
        super::producer_snapshot::load(dir, max_offset)
    }
}

#[cfg(test)]
#[path = "producer_tests.rs"]
mod tests;
