//! One share-partition: which records of a partition a share group has in flight, and where
//! it has got to, as Kafka's `SharePartition` keeps them.
//!
//! Offsets below the start offset are done with. Offsets from the start up to the end offset
//! (the next one never handed out) are in flight, as ranges with one state, delivery count and,
//! while acquired, one owner and lock deadline. Acquiring hands out records that became
//! available again first (released, or their lock timed out), then new ones from the end,
//! whole log batches at a time, until the window holds `max_in_flight` records. An
//! acknowledgement must come from the member holding the records; ACCEPT makes them done,
//! RELEASE makes them available again (archived once delivered `delivery_limit` times),
//! REJECT archives them, RENEW extends the lock. Done records at the start of the window move
//! the start offset on.

use std::collections::BTreeMap;

use super::records::{AckError, AckType, AcquireMode, Limits, LogBatch, RecordState, StateBatch};

#[derive(Clone, Debug, PartialEq, Eq)]
struct Range {
    last: i64,
    state: RecordState,
    delivery_count: u16,
    /// The member holding an acquired range, and until when.
    owner: Option<(u64, u64)>,
}

#[derive(Clone, Debug)]
pub struct SharePartition {
    start: i64,
    end: i64,
    ranges: BTreeMap<i64, Range>,
    limits: Limits,
}

impl SharePartition {
    /// A share-partition as its share coordinator had it: the start offset and the in-flight
    /// ranges persisted. Records that were acquired when it was written are available again
    /// (their holder's lock is gone with the leader that gave it).
    pub fn load(start: i64, batches: &[StateBatch], limits: Limits) -> SharePartition {
        let mut ranges = BTreeMap::new();
        let mut end = start;
        for b in batches {
            let first = b.first_offset.max(start);
            if b.last_offset < first {
                continue;
            }
            let range = Range {
                last: b.last_offset,
                state: RecordState::from_code(b.state),
                delivery_count: b.delivery_count.max(0) as u16,
                owner: None,
            };
            ranges.insert(first, range);
            end = end.max(b.last_offset + 1);
        }
        let mut partition = SharePartition {
            start,
            end,
            ranges,
            limits,
        };
        partition.advance();
        partition
    }

    pub fn start_offset(&self) -> i64 {
        self.start
    }

    pub fn end_offset(&self) -> i64 {
        self.end
    }

    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// Whether the window has room for more records from the log.
    pub fn can_acquire_new(&self) -> bool {
        self.end - self.start < self.limits.max_in_flight
    }

    /// Acquires for `member` until `now + lock_ms`: first the available ranges of the window
    /// (up to `max_records` records), then, from the log batches at the end
    /// (`(base offset, last offset)` in order, the first at or below `end_offset`), whole
    /// batches while the window has room and fewer than `max_records` were acquired. Returns
    /// the ranges acquired and their delivery counts, in offset order.
    pub fn acquire(
        &mut self,
        member: u64,
        now: u64,
        max_records: i64,
        log_batches: &[(i64, i64)],
    ) -> Vec<(i64, i64, u16)> {
        let batches: Vec<LogBatch> = log_batches
            .iter()
            .map(|&(base, last)| LogBatch {
                base,
                last,
                aborted: false,
            })
            .collect();
        let mode = AcquireMode::Batches { batch_size: 1 };
        self.acquire_within(member, now, max_records, mode, i64::MAX, &batches)
    }

    /// The offset a read for this share-partition starts at: the first available record of
    /// the window, else the end of the window.
    pub fn fetch_offset(&self) -> i64 {
        self.ranges
            .iter()
            .find(|(_, r)| r.state == RecordState::Available)
            .map_or(self.end, |(first, _)| *first)
    }

    /// As [`acquire`](Self::acquire), but only offsets up to `upto` (what one read of the
    /// log from [`fetch_offset`](Self::fetch_offset) brought, so that every record acquired
    /// is in the response), and the log batches of aborted transactions are archived rather
    /// than acquired (read_committed); `mode` says how new records are cut and joined.
    pub fn acquire_within(
        &mut self,
        member: u64,
        now: u64,
        max_records: i64,
        mode: AcquireMode,
        upto: i64,
        log_batches: &[LogBatch],
    ) -> Vec<(i64, i64, u16)> {
        let deadline = now + self.limits.lock_ms;
        let mut out = Vec::new();
        let mut count = 0i64;
        let available: Vec<i64> = self
            .ranges
            .iter()
            .filter(|(first, r)| r.state == RecordState::Available && **first <= upto)
            .map(|(first, _)| *first)
            .collect();
        for first in available {
            if count >= max_records {
                break;
            }
            let last = self.ranges[&first]
                .last
                .min(upto)
                .min(first + (max_records - count) - 1);
            self.split(first, last);
            let range = self.ranges.get_mut(&first).expect("split keeps the first");
            range.state = RecordState::Acquired;
            range.delivery_count = range.delivery_count.saturating_add(1);
            range.owner = Some((member, deadline));
            out.push((first, last, range.delivery_count));
            count += last - first + 1;
        }
        // The first offset of the range this call acquired last from the log, while later
        // adjacent batches may join it.
        let mut joining: Option<i64> = None;
        for b in log_batches {
            if count >= max_records || !self.can_acquire_new() || b.last > upto {
                break;
            }
            if b.last < self.end {
                continue;
            }
            let first = b.base.max(self.end);
            if let (Some(open), AcquireMode::Batches { batch_size }, false) =
                (joining, mode, b.aborted)
            {
                let adjacent = self.ranges.get(&open).is_some_and(|r| r.last + 1 == first);
                if adjacent && first - open < batch_size {
                    self.ranges.get_mut(&open).expect("joining").last = b.last;
                    if let Some(last) = out.last_mut() {
                        last.1 = b.last;
                    }
                    count += b.last - first + 1;
                    self.end = b.last + 1;
                    continue;
                }
            }
            joining = (!b.aborted).then_some(first);
            let range = if b.aborted {
                Range {
                    last: b.last,
                    state: RecordState::Archived,
                    delivery_count: 0,
                    owner: None,
                }
            } else {
                let last = if mode == AcquireMode::Exact {
                    b.last.min(first + (max_records - count) - 1)
                } else {
                    b.last
                };
                if last < b.last {
                    let rest = Range {
                        last: b.last,
                        state: RecordState::Available,
                        delivery_count: 0,
                        owner: None,
                    };
                    self.ranges.insert(last + 1, rest);
                }
                out.push((first, last, 1));
                count += last - first + 1;
                Range {
                    last,
                    state: RecordState::Acquired,
                    delivery_count: 1,
                    owner: Some((member, deadline)),
                }
            };
            self.ranges.insert(first, range);
            self.end = b.last + 1;
        }
        out.sort_unstable();
        self.advance();
        out
    }

    /// The log no longer holds records below `offset` (retention, DeleteRecords): they are
    /// done with, whatever their state.
    pub fn skip_to(&mut self, offset: i64) {
        if offset <= self.start {
            return;
        }
        let below: Vec<i64> = self.ranges.range(..offset).map(|(f, _)| *f).collect();
        for first in below {
            let range = self.ranges.remove(&first).expect("listed");
            if range.last >= offset {
                self.ranges.insert(offset, range);
            }
        }
        self.start = offset;
        self.end = self.end.max(offset);
        self.advance();
    }

    /// Applies `member`'s acknowledgement of `first..=last`; every offset must be held by it
    /// (GAP and RENEW too), else nothing changes.
    pub fn acknowledge(
        &mut self,
        member: u64,
        first: i64,
        last: i64,
        ack: AckType,
        now: u64,
    ) -> Result<(), AckError> {
        if first > last || first < self.start || last >= self.end {
            return Err(AckError::InvalidRecordState);
        }
        let overlapping = self.ranges.range(..=last).rev().map(|(_, r)| r);
        for range in overlapping.take_while(|r| r.last >= first) {
            let held = range.owner.map(|(m, _)| m) == Some(member);
            if range.state != RecordState::Acquired || !held {
                return Err(AckError::InvalidRecordState);
            }
        }
        // Every offset of first..=last must be in some range (no holes).
        let mut at = first;
        for (&start, range) in self.ranges.range(..=last) {
            if range.last < at {
                continue;
            }
            if start > at {
                return Err(AckError::InvalidRecordState);
            }
            at = range.last + 1;
            if at > last {
                break;
            }
        }
        if at <= last {
            return Err(AckError::InvalidRecordState);
        }
        self.split(first, last);
        let limit = self.limits.delivery_limit;
        let lock_ms = self.limits.lock_ms;
        for (_, range) in self.ranges.range_mut(first..=last) {
            match ack {
                AckType::Accept | AckType::Gap => release_to(range, RecordState::Acknowledged),
                AckType::Reject => release_to(range, RecordState::Archived),
                AckType::Release => release_available(range, limit),
                AckType::Renew => range.owner = Some((member, now + lock_ms)),
            }
        }
        self.advance();
        Ok(())
    }

    /// Locks that ran out make their records available again (or archived past the delivery
    /// limit); returns how many records they held (0: none ran out).
    pub fn expire_locks(&mut self, now: u64) -> i64 {
        let limit = self.limits.delivery_limit;
        let mut expired = 0;
        for (first, range) in self.ranges.iter_mut() {
            if matches!(range.owner, Some((_, deadline)) if deadline <= now) {
                release_available(range, limit);
                expired += range.last - first + 1;
            }
        }
        if expired > 0 {
            self.advance();
        }
        expired
    }

    /// Kafka's InFlightMessageCount and InFlightBatchCount: the records of the window (from
    /// the start offset to the end, acknowledged ones not yet passed included) and the ranges
    /// they are kept in.
    pub fn in_flight(&self) -> (i64, usize) {
        let records = self
            .ranges
            .iter()
            .map(|(first, r)| r.last - first + 1)
            .sum();
        (records, self.ranges.len())
    }

    /// A member left the group: what it held is available again.
    pub fn release_member(&mut self, member: u64) -> bool {
        let limit = self.limits.delivery_limit;
        let mut changed = false;
        for range in self.ranges.values_mut() {
            if range.owner.map(|(m, _)| m) == Some(member) {
                release_available(range, limit);
                changed = true;
            }
        }
        if changed {
            self.advance();
        }
        changed
    }

    /// The state to persist: the window's ranges (acquired ones as available, with their
    /// delivery counts, so a record in flight at a crash is delivered again, counted).
    pub fn state_batches(&self) -> Vec<StateBatch> {
        let mut out: Vec<StateBatch> = Vec::with_capacity(self.ranges.len());
        for (&first, range) in &self.ranges {
            let state = match range.state {
                RecordState::Acquired => RecordState::Available,
                other => other,
            } as i8;
            let count = range.delivery_count.min(i16::MAX as u16) as i16;
            match out.last_mut() {
                Some(prev)
                    if prev.last_offset + 1 == first
                        && prev.state == state
                        && prev.delivery_count == count =>
                {
                    prev.last_offset = range.last;
                }
                _ => out.push(StateBatch {
                    first_offset: first,
                    last_offset: range.last,
                    state,
                    delivery_count: count,
                }),
            }
        }
        out
    }

    /// Records of the window already done with (acknowledged or archived): Kafka's
    /// deliveryCompleteCount, which a share group's lag leaves out.
    pub fn delivery_complete(&self) -> i64 {
        self.ranges
            .iter()
            .filter(|(_, r)| r.state.is_done())
            .map(|(first, r)| r.last - first + 1)
            .sum()
    }

    /// Records in flight that are acquired now.
    pub fn acquired_count(&self) -> i64 {
        self.ranges
            .iter()
            .filter(|(_, r)| r.state == RecordState::Acquired)
            .map(|(first, r)| r.last - first + 1)
            .sum()
    }

    /// Cuts ranges so that `first` starts one and `last` ends one.
    fn split(&mut self, first: i64, last: i64) {
        for at in [first, last + 1] {
            let found = self
                .ranges
                .range(..at)
                .next_back()
                .map(|(s, r)| (*s, r.clone()));
            if let Some((start, range)) = found {
                if start < at && range.last >= at {
                    self.ranges.get_mut(&start).expect("found").last = at - 1;
                    self.ranges.insert(at, range);
                }
            }
        }
    }

    /// Moves the start offset past the done ranges at the start of the window, and past the
    /// offsets before them that hold no record (gaps in the log were never acquired).
    fn advance(&mut self) {
        while let Some((&first, range)) = self.ranges.iter().next() {
            self.start = self.start.max(first);
            if !range.state.is_done() {
                break;
            }
            self.start = range.last + 1;
            self.ranges.remove(&first);
        }
        if self.ranges.is_empty() {
            self.start = self.start.max(self.end);
        }
    }
}

fn release_to(range: &mut Range, state: RecordState) {
    range.state = state;
    range.owner = None;
}

/// Available again, unless it was delivered `limit` times: archived then.
fn release_available(range: &mut Range, limit: u16) {
    let state = if range.delivery_count >= limit {
        RecordState::Archived
    } else {
        RecordState::Available
    };
    release_to(range, state);
}

#[cfg(test)]
#[path = "partition_tests.rs"]
mod tests;
