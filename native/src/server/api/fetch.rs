//! Fetch (v4-12) for consumers and followers, with long polling: when fewer than `min_bytes`
//! are available the request waits on the partitions' progress watches until enough arrive or
//! `max_wait_ms` passes. Record data is answered as file regions (sendfile).
//!
//! Who fetches decides what is read: followers (replica id >= 0) read the leader up to its log
//! end and their fetch offset is their log end offset; consumers read the leader up to the high
//! watermark (or the last stable offset); Kafka's debugging consumer (replica id -2, used by
//! `ferrolog verify-replicas`) reads any replica, leader or follower, up to its high watermark.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use bytes::Bytes;
use kafka_protocol::messages::FetchRequest;
use tokio::sync::watch;

use super::Reply;
use crate::error::ErrorCode;
use crate::log::now_ms;
use crate::protocol::fetch_writer::{
    write_fetch_response, FetchPartitionOut, FetchResponseOut, FetchTopicOut,
};
use crate::protocol::{decode_request, Chunk, HeaderPeek};
use crate::replica::{Partition, Progress};
use crate::server::Broker;

const READ_COMMITTED: i8 = 1;
/// Kafka's `DEBUGGING_CONSUMER_ID`: a consumer allowed to read from followers.
const DEBUGGING_CONSUMER: i32 = -2;

struct Wanted {
    partition: i32,
    fetch_offset: i64,
    max_bytes: i32,
    current_leader_epoch: i32,
    /// v12+: the epoch of the last batch the fetcher holds (-1: none), for truncation checks.
    last_fetched_epoch: i32,
}

/// A partition to read and, if it is hosted here, its replica.
type Target = (Wanted, Option<Arc<Partition>>);

/// The request reduced to what a read pass needs.
struct Plan {
    version: i16,
    /// The fetching replica's id for follower fetches; None for consumers.
    follower: Option<i32>,
    /// Replica id -2: any replica answers, not only the leader.
    any_replica: bool,
    read_committed: bool,
    max_bytes: i32,
    topics: Vec<(String, Vec<Target>)>,
}

impl Plan {
    /// One pass over every partition: the response and how many record bytes it carries.
    /// `first` is the request's first pass: only it records a follower's fetch offset.
    fn read_all(&self, first: bool) -> (FetchResponseOut, usize, bool) {
        let mut total = 0usize;
        let mut any_error = false;
        let mut topics = Vec::with_capacity(self.topics.len());
        for (name, partitions) in &self.topics {
            let mut outs = Vec::with_capacity(partitions.len());
            for (wanted, partition) in partitions {
                let remaining = (self.max_bytes.max(0) as usize).saturating_sub(total);
                let out = match partition {
                    None => FetchPartitionOut::error(
                        wanted.partition,
                        ErrorCode::UnknownTopicOrPartition.code(),
                    ),
                    Some(p) => self.read_one(p, wanted, remaining, total == 0, first),
                };
                total += out.records.as_ref().map_or(0, Chunk::len);
                any_error |= out.error_code != 0;
                outs.push(out);
            }
            topics.push(FetchTopicOut {
                topic: name.clone(),
                partitions: outs,
            });
        }
        (
            FetchResponseOut {
                topics,
                ..Default::default()
            },
            total,
            any_error,
        )
    }

    fn read_one(
        &self,
        p: &Partition,
        w: &Wanted,
        remaining: usize,
        min_one: bool,
        first: bool,
    ) -> FetchPartitionOut {
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
            return FetchPartitionOut::error(w.partition, e.code());
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
            partition_index: w.partition,
            error_code: 0,
            high_watermark: hw,
            last_stable_offset: lso,
            log_start_offset: log_start,
            aborted_transactions: self.read_committed.then(Vec::new),
            preferred_read_replica: -1,
            diverging_epoch: None,
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

pub async fn handle(broker: &Arc<Broker>, peek: HeaderPeek, frame: Bytes) -> Reply {
    let request = match decode_request::<FetchRequest>(frame) {
        Ok((_, request)) => request,
        Err(_) => return Reply::Close,
    };
    let plan = Plan {
        version: peek.api_version,
        follower: (request.replica_id.0 >= 0).then_some(request.replica_id.0),
        any_replica: request.replica_id.0 == DEBUGGING_CONSUMER,
        read_committed: request.isolation_level == READ_COMMITTED,
        max_bytes: request.max_bytes,
        topics: request
            .topics
            .into_iter()
            .map(|t| {
                let name = t.topic.0.to_string();
                let parts = t
                    .partitions
                    .into_iter()
                    .map(|p| {
                        let partition = broker.partitions.get(&name, p.partition);
                        let wanted = Wanted {
                            partition: p.partition,
                            fetch_offset: p.fetch_offset,
                            max_bytes: p.partition_max_bytes,
                            current_leader_epoch: p.current_leader_epoch,
                            last_fetched_epoch: p.last_fetched_epoch,
                        };
                        (wanted, partition)
                    })
                    .collect();
                (name, parts)
            })
            .collect(),
    };
    let max_wait = Duration::from_millis(request.max_wait_ms.max(0) as u64);
    let deadline = tokio::time::Instant::now() + max_wait;
    let min_bytes = request.min_bytes.max(0) as usize;
    // Subscribe before the first read so a produce landing between the read and the wait is
    // not missed.
    let mut watches: Vec<watch::Receiver<Progress>> = plan
        .topics
        .iter()
        .flat_map(|(_, ps)| {
            ps.iter()
                .filter_map(|(_, p)| p.as_ref().map(|p| p.subscribe()))
        })
        .collect();
    let mut first = true;
    let response = loop {
        for w in watches.iter_mut() {
            w.mark_unchanged();
        }
        let (response, bytes, any_error) = plan.read_all(first);
        first = false;
        if bytes >= min_bytes
            || any_error
            || watches.is_empty()
            || tokio::time::Instant::now() >= deadline
        {
            break response;
        }
        if tokio::time::timeout_at(deadline, any_changed(&mut watches))
            .await
            .is_err()
        {
            break plan.read_all(false).0;
        }
    };
    Reply::Send(write_fetch_response(
        peek.api_version,
        peek.correlation_id,
        &response,
    ))
}

/// Resolves when any of the watches reports a change (or its partition is gone).
fn any_changed(watches: &mut [watch::Receiver<Progress>]) -> impl Future<Output = ()> + '_ {
    let mut futures: Vec<Pin<Box<dyn Future<Output = ()> + Send + '_>>> = watches
        .iter_mut()
        .map(|w| {
            Box::pin(async move {
                let _ = w.changed().await;
            }) as Pin<Box<_>>
        })
        .collect();
    std::future::poll_fn(move |cx| {
        for f in futures.iter_mut() {
            if f.as_mut().poll(cx).is_ready() {
                return Poll::Ready(());
            }
        }
        Poll::Pending
    })
}
