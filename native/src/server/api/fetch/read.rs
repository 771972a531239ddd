//! One read pass of a Fetch request over its partitions: what each partition answers now.

use std::sync::Arc;

use crate::error::ErrorCode;
use crate::log::now_ms;
use crate::protocol::fetch_writer::FetchPartitionOut;
use crate::protocol::Chunk;
use crate::replica::Partition;
use crate::server::fetch_session::{FetchParams, PartitionKey};

/// A partition to read: what is asked, and its replica if it is hosted here (else the error
/// that says why not).
pub(super) struct Target {
    pub key: PartitionKey,
    pub params: FetchParams,
    pub partition: Result<Arc<Partition>, ErrorCode>,
}

/// The request reduced to what a read pass needs.
pub(super) struct Plan {
    pub version: i16,
    /// The fetching replica's id for follower fetches; None for consumers.
    pub follower: Option<i32>,
    /// Replica id -2: any replica answers, not only the leader.
    pub any_replica: bool,
    pub read_committed: bool,
    pub max_bytes: i32,
    /// In the order they are read: the request's, or the session's for incremental fetches.
    pub targets: Vec<Target>,
}

/// One pass: every target's answer, the record bytes they carry, and whether any failed.
pub(super) struct Pass {
    pub partitions: Vec<FetchPartitionOut>,
    pub bytes: usize,
    pub any_error: bool,
}

impl Plan {
    /// `first` is the request's first pass: only it records a follower's fetch offset.
    pub fn read_all(&self, first: bool) -> Pass {
        let mut pass = Pass {
            partitions: Vec::with_capacity(self.targets.len()),
            bytes: 0,
            any_error: false,
        };
        for target in &self.targets {
            let remaining = (self.max_bytes.max(0) as usize).saturating_sub(pass.bytes);
            let out = match &target.partition {
                Err(e) => FetchPartitionOut::error(target.key.partition, e.code()),
                Ok(p) => self.read_one(p, target, remaining, pass.bytes == 0, first),
            };
            pass.bytes += out.records.as_ref().map_or(0, Chunk::len);
            pass.any_error |= out.error_code != 0;
            pass.partitions.push(out);
        }
        pass
    }

    fn read_one(
        &self,
        p: &Partition,
        t: &Target,
        remaining: usize,
        min_one: bool,
        first: bool,
    ) -> FetchPartitionOut {
        let w = &t.params;
        let index = t.key.partition;
        let requested_epoch = if self.version >= 9 {
            w.current_leader_epoch
        } else {
            -1
        };
        let epoch_check = if self.any_replica {
            p.check_epoch_any_replica(requested_epoch)
        } else {
            p.check_leader_epoch(requested_epoch)
        };
        if let Err(e) = epoch_check {
            return FetchPartitionOut::error(index, e.code());
        }
        let (log_start, leo, hw, lso) = {
            let log = p.log().read();
            (
                log.log_start_offset(),
                log.log_end_offset(),
                log.high_watermark(),
                log.last_stable_offset(),
            )
        };
        // Followers replicate everything; consumers see only committed data, and
        // read_committed consumers only decided transactions (up to the last stable offset).
        let max_offset = match (self.follower, self.read_committed) {
            (Some(_), _) => leo,
            (None, true) => lso,
            (None, false) => hw,
        };
        let mut out = FetchPartitionOut {
            partition_index: index,
            error_code: 0,
            high_watermark: hw,
            last_stable_offset: lso,
            log_start_offset: log_start,
            aborted_transactions: self.read_committed.then(Vec::new),
            preferred_read_replica: -1,
            diverging_epoch: None,
            current_leader: None,
            records: None,
        };
        if self.version >= 12 && w.last_fetched_epoch >= 0 {
            // The fetcher's log must agree with ours up to its fetch offset: if our log ends
            // that epoch earlier (or never had it), it has to truncate first (KIP-595's check,
            // as Kafka's Partition.fetchRecords does it).
            let ours = p.log().read().end_offset_for_epoch(w.last_fetched_epoch);
            let (epoch, end_offset) = ours.unwrap_or((-1, -1));
            if epoch < w.last_fetched_epoch || end_offset < w.fetch_offset {
                out.diverging_epoch = Some((epoch, end_offset));
                return out;
            }
        }
        if w.fetch_offset < log_start || w.fetch_offset > leo {
            out.error_code = ErrorCode::OffsetOutOfRange.code();
            return out;
        }
        if let (Some(replica), true) = (self.follower, first) {
            // Only a fetch that agrees with our log says where the follower's log ends.
            p.record_follower_fetch(replica, w.fetch_offset, now_ms());
            out.high_watermark = p.log().read().high_watermark();
        }
        if w.fetch_offset >= max_offset {
            return out;
        }
        let limit = (w.max_bytes.max(0) as usize).min(remaining) as u32;
        match p.read(w.fetch_offset, limit, max_offset, min_one) {
            Ok(slice) => {
                if let (Some(file), true) = (slice.file, slice.length > 0) {
                    out.records = Some(Chunk::File {
                        file,
                        position: slice.position,
                        length: slice.length,
                    });
                }
            }
            Err(e) => out.error_code = e.code(),
        }
        if self.read_committed && out.records.is_some() {
            // Bounded by the LSO rather than the end of the returned data: an entry past the
            // data is ignored by consumers, which take each response's list on its own.
            let aborted = p
                .log()
                .read()
                .aborted_transactions(w.fetch_offset, max_offset);
            out.aborted_transactions = Some(
                aborted
                    .iter()
                    .map(|t| (t.producer_id, t.first_offset))
                    .collect(),
            );
        }
        out
    }
}
