//! One share-partition's part of a ShareFetch: read the log from where the share-partition
//! needs records (the first available one, else the end of its window), acquire within what
//! the read brought, and answer the bytes of the batches that hold what was acquired.

use std::os::unix::fs::FileExt;

use bytes::Bytes;

use super::fetch::{Budget, Out};
use crate::error::ErrorCode;
use crate::log::now_ms;
use crate::log::scan::HeaderScan;
use crate::record::batch::{BatchHeader, HEADER_SIZE};
use crate::replica::Partition;
use crate::share::{AutoReset, GroupSettings, Loaded, LogBatch};

/// share.auto.offset.reset for a share-partition never read from: the log start, the high
/// watermark, or the first record of the last `by_duration`.
pub(super) fn reset_offset(p: &Partition, reset: AutoReset) -> i64 {
    let log = p.log().read();
    let hw = log.high_watermark();
    match reset {
        AutoReset::Earliest => log.log_start_offset(),
        AutoReset::Latest => hw,
        AutoReset::ByDuration(ms) => log
            .offset_for_timestamp(now_ms() - ms)
            .map_or(hw, |found| found.offset.min(hw)),
    }
}

pub(super) fn acquire_one(
    p: &Partition,
    loaded: &mut Loaded,
    owner: u64,
    now: u64,
    settings: GroupSettings,
    budget: Budget,
    min_one: bool,
) -> Out {
    let failed = |e: ErrorCode| Out {
        error: Some(e),
        leader: Some(p.leader()),
        ..Out::default()
    };
    match p.check_leader_epoch(-1) {
        Ok(epoch) if epoch == loaded.leader_epoch => {}
        Ok(_) | Err(_) => return failed(ErrorCode::NotLeaderOrFollower),
    }
    let sp = &mut loaded.partition;
    sp.set_limits(settings.limits);
    let (log_start, max_offset) = {
        let log = p.log().read();
        let max = if settings.read_committed {
            log.last_stable_offset()
        } else {
            log.high_watermark()
        };
        (log.log_start_offset(), max)
    };
    sp.skip_to(log_start);
    let from = sp.fetch_offset();
    if from >= max_offset || (from >= sp.end_offset() && !sp.can_acquire_new()) {
        return Out::default();
    }
    let limit = budget.bytes.min(u32::MAX as usize) as u32;
    let slice = match p.read(from, limit, max_offset, min_one) {
        Ok(slice) => slice,
        Err(e) => return failed(e),
    };
    let Some(file) = slice.file.filter(|_| slice.length > 0) else {
        return Out::default();
    };
    // Read only as far as this fetch can acquire: the batches up to the one holding the
    // offset `max records` past the fetch offset, found by their headers. A consumer asking
    // for 50 MB and 500 records would otherwise have the whole slice copied for each fetch.
    let wanted_last = from.saturating_add(budget.records.max(1) - 1);
    let end = slice.position + u64::from(slice.length);
    let mut scan = HeaderScan::new(&file, slice.position, end);
    let mut upto_position = slice.position;
    loop {
        match scan.next_batch() {
            Ok(Some((at, h))) => {
                upto_position = at + h.total_size() as u64;
                if h.base_offset + i64::from(h.last_offset_delta) >= wanted_last {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                log::error!("share fetch of {}-{}: {e}", p.topic(), p.index());
                return failed(ErrorCode::KafkaStorageError);
            }
        }
    }
    let mut bytes = vec![0u8; (upto_position - slice.position) as usize];
    if let Err(e) = file.read_exact_at(&mut bytes, slice.position) {
        log::error!("share fetch of {}-{}: {e}", p.topic(), p.index());
        return failed(ErrorCode::KafkaStorageError);
    }
    let batches = batches_in(&bytes);
    let Some(upto) = batches.last().map(|b| b.last) else {
        return Out::default();
    };
    let aborted = if settings.read_committed {
        p.log().read().aborted_transactions(from, max_offset)
    } else {
        Vec::new()
    };
    let log_batches: Vec<LogBatch> = batches
        .iter()
        .map(|b| LogBatch {
            base: b.base,
            last: b.last,
            aborted: !b.control
                && b.producer.is_some_and(|pid| {
                    aborted.iter().any(|t| {
                        t.producer_id == pid && t.first_offset <= b.base && b.base <= t.last_offset
                    })
                }),
        })
        .collect();
    let acquired = sp.acquire_within(owner, now, budget.records, budget.mode, upto, &log_batches);
    let (Some(first), Some(last)) = (acquired.first(), acquired.last()) else {
        return Out::default();
    };
    // The batches from the one holding the first acquired offset to the one holding the
    // last: what lies between and is not acquired is sent too, and the client skips it.
    let (first, last) = (first.0, last.1);
    let start = batches
        .iter()
        .find(|b| b.last >= first)
        .map_or(0, |b| b.position);
    let end = batches
        .iter()
        .rev()
        .find(|b| b.base <= last)
        .map_or(bytes.len(), |b| b.position + b.size);
    let records = Bytes::from(bytes).slice(start..end.max(start));
    Out {
        error: None,
        records,
        acquired,
        leader: None,
    }
}

/// A batch of a read: where it lies in the bytes, its offsets, and what read_committed needs.
struct ReadBatch {
    position: usize,
    size: usize,
    base: i64,
    last: i64,
    control: bool,
    /// The producer of a transactional batch.
    producer: Option<i64>,
}

fn batches_in(bytes: &[u8]) -> Vec<ReadBatch> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at + HEADER_SIZE <= bytes.len() {
        let Ok(h) = BatchHeader::parse(&bytes[at..]) else {
            break;
        };
        let size = h.total_size();
        if size < HEADER_SIZE || at + size > bytes.len() {
            break;
        }
        out.push(ReadBatch {
            position: at,
            size,
            base: h.base_offset,
            last: h.base_offset + i64::from(h.last_offset_delta),
            control: h.is_control(),
            producer: h.is_transactional().then_some(h.producer_id),
        });
        at += size;
    }
    out
}
