//! ListOffsets (v1-11): earliest, latest (HW, or LSO for read_committed), max timestamp (v7)
//! and by timestamp, only ever answering offsets consumers may read. Only the leader answers
//! (NOT_LEADER_OR_FOLLOWER elsewhere), except to Kafka's debugging consumer (replica id -2),
//! which any replica answers from its own log. The tiered-storage timestamps are answered as
//! a Kafka broker without remote storage answers them: earliest-local (v8) is the earliest,
//! latest-tiered (v9) and earliest-pending-upload (v11) are no offset (-1) without an error;
//! v10's timeout only bounds remote lookups, which there are none of. A special timestamp older than its version, or a
//! negative one Kafka does not know, is UNSUPPORTED_VERSION.

use kafka_protocol::messages::list_offsets_response::{
    ListOffsetsPartitionResponse, ListOffsetsTopicResponse,
};
use kafka_protocol::messages::{ListOffsetsRequest, ListOffsetsResponse};

use super::{Call, Reply};
use crate::acl::{Operation, ResourceType};
use crate::error::ErrorCode;
use crate::protocol::decode_request;
use crate::replica::Partition;

const LATEST: i64 = -1;
const EARLIEST: i64 = -2;
const MAX_TIMESTAMP: i64 = -3;
const EARLIEST_LOCAL: i64 = -4;
const LATEST_TIERED: i64 = -5;
const EARLIEST_PENDING_UPLOAD: i64 = -6;

/// The first version that may ask for each special timestamp (Kafka's
/// `timestampMinSupportedVersion`); None for a negative timestamp Kafka does not know.
fn first_version(timestamp: i64) -> Option<i16> {
    match timestamp {
        LATEST | EARLIEST => Some(0),
        MAX_TIMESTAMP => Some(7),
        EARLIEST_LOCAL => Some(8),
        LATEST_TIERED => Some(9),
        EARLIEST_PENDING_UPLOAD => Some(11),
        t if t >= 0 => Some(0),
        _ => None,
    }
}

/// `(offset, timestamp, leader_epoch)` for one partition.
fn lookup(
    p: &Partition,
    any_replica: bool,
    version: i16,
    read_committed: bool,
    current_leader_epoch: i32,
    timestamp: i64,
) -> Result<(i64, i64, i32), ErrorCode> {
    if first_version(timestamp).is_none_or(|first| version < first) {
        return Err(ErrorCode::UnsupportedVersion);
    }
    let requested = if version >= 4 {
        current_leader_epoch
    } else {
        -1
    };
    let epoch = if any_replica {
        p.check_epoch_any_replica(requested)?
    } else {
        p.check_leader_epoch(requested)?
    };
    let log = p.log().read();
    // Only offsets the asking consumer could fetch: below the HW, or below the last stable
    // offset for read_committed (ListOffsets v2+).
    let fetchable = if read_committed {
        log.last_stable_offset()
    } else {
        log.high_watermark()
    };
    let committed = |found: Option<crate::log::TimestampOffset>| match found {
        Some(t) if t.offset < fetchable => (t.offset, t.timestamp, t.leader_epoch),
        _ => (-1, -1, -1),
    };
    Ok(match timestamp {
        LATEST => (fetchable, -1, epoch),
        // Without remote storage the local log is the whole log.
        EARLIEST | EARLIEST_LOCAL => (
            log.log_start_offset(),
            -1,
            epoch_of(&log, log.log_start_offset()),
        ),
        LATEST_TIERED | EARLIEST_PENDING_UPLOAD => (-1, -1, -1),
        MAX_TIMESTAMP => committed(log.max_timestamp()),
        ts => committed(log.offset_for_timestamp(ts)),
    })
}

/// The leader epoch that wrote `offset`: the earliest epoch whose end lies past it. Walks the
/// epoch cache backwards through `end_offset_for_epoch`, one step per epoch.
fn epoch_of(log: &crate::log::Log, offset: i64) -> i32 {
    let Some(mut epoch) = log.latest_epoch() else {
        return -1;
    };
    while epoch > 0 {
        match log.end_offset_for_epoch(epoch - 1) {
            Some((previous, end)) if end > offset && previous < epoch => epoch = previous,
            _ => break,
        }
    }
    epoch
}

pub fn handle(call: Call<'_>) -> Reply {
    let (broker, peek, frame, tally, session, _) = call.into_parts();
    let version = peek.api_version;
    let request = match decode_request::<ListOffsetsRequest>(frame) {
        Ok((_, request)) => request,
        Err(_) => return Reply::Close,
    };
    let read_committed = version >= 2 && request.isolation_level == 1;
    let any_replica = request.replica_id.0 == -2;
    let topics = request
        .topics
        .into_iter()
        .map(|t| {
            // As Kafka: DESCRIBE on the topic, else TOPIC_AUTHORIZATION_FAILED for each of its
            // partitions.
            let authorized = session.authorize(
                &broker.authorizer,
                Operation::Describe,
                ResourceType::Topic,
                t.name.0.as_str(),
            );
            let partitions = t
                .partitions
                .iter()
                .map(|lp| {
                    let out = ListOffsetsPartitionResponse::default()
                        .with_partition_index(lp.partition_index);
                    let found = match broker.partitions.get(t.name.0.as_str(), lp.partition_index) {
                        _ if !authorized => Err(ErrorCode::TopicAuthorizationFailed),
                        None => Err(ErrorCode::UnknownTopicOrPartition),
                        Some(p) => lookup(
                            &p,
                            any_replica,
                            version,
                            read_committed,
                            lp.current_leader_epoch,
                            lp.timestamp,
                        ),
                    };
                    match found {
                        Ok((offset, timestamp, epoch)) => out
                            .with_offset(offset)
                            .with_timestamp(timestamp)
                            .with_leader_epoch(if version >= 4 { epoch } else { -1 }),
                        Err(e) => out.with_error_code(e.code()),
                    }
                })
                .collect();
            ListOffsetsTopicResponse::default()
                .with_name(t.name)
                .with_partitions(partitions)
        })
        .collect();
    let response = ListOffsetsResponse::default().with_topics(topics);
    let partitions = response.topics.iter().flat_map(|t| &t.partitions);
    let codes = partitions.map(|p| p.error_code);
    Reply::counted(tally, codes, &peek, &response)
}
