//! WriteTxnMarkers (v1-2): a transaction coordinator (another broker's, or a tool's) has this
//! partition leader append COMMIT or ABORT markers, and hears once they are committed
//! (acks=all). Served here so that a marker never passes through Python: the request is
//! authorized (CLUSTER_ACTION), every marker appended before one wait covers them all, and a
//! marker committed in `__consumer_offsets` is reported to the group coordinator, which ends
//! the producer's pending transactional offset commits there.
//!
//! Each partition answers on its own, as Kafka's: UNKNOWN_TOPIC_OR_PARTITION or
//! NOT_LEADER_OR_FOLLOWER where this broker does not lead it, INVALID_PRODUCER_EPOCH or
//! TRANSACTION_COORDINATOR_FENCED for a stale marker. v2 gives each marker its transaction's
//! version: under version 2 (KIP-890 part 2) the marker's epoch must be newer than the
//! producer's. The codec crate knows only v1, so the request is read here (v2 adds one int8
//! per marker); v2's response is v1's.

use std::sync::Arc;

use bytes::{Buf, Bytes};
use kafka_protocol::messages::write_txn_markers_response::{
    WritableTxnMarkerPartitionResult, WritableTxnMarkerResult, WritableTxnMarkerTopicResult,
};
use kafka_protocol::messages::{ProducerId, TopicName, WriteTxnMarkersResponse};
use kafka_protocol::protocol::StrBytes;

use super::{Call, Reply};
use crate::acl::{Operation, ResourceType, CLUSTER_NAME};
use crate::error::ErrorCode;
use crate::protocol::split_request;
use crate::server::commands::{append_marker, markers_committed, MarkerRequest};
use crate::server::completions::MarkerWritten;
use crate::server::Broker;

/// Where the group coordinator keeps offsets: a marker there ends pending offset commits.
const CONSUMER_OFFSETS: &str = "__consumer_offsets";

/// One marker of the request, with its partitions by topic.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Marker {
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub commit: bool,
    pub topics: Vec<(String, Vec<i32>)>,
    pub coordinator_epoch: i32,
    pub transaction_version: i8,
}

impl Marker {
    fn partition_count(&self) -> usize {
        self.topics.iter().map(|(_, p)| p.len()).sum()
    }
}

pub async fn handle(call: Call<'_>) -> Reply {
    let (broker, peek, frame, tally, session, _) = call.into_parts();
    let Some(markers) = split_request(frame)
        .ok()
        .and_then(|(_, body)| read_markers(body, peek.api_version))
    else {
        return Reply::Close;
    };
    // A broker's API: Kafka refuses every marker of a principal without CLUSTER_ACTION.
    let allowed = session.authorize(
        &broker.authorizer,
        Operation::ClusterAction,
        ResourceType::Cluster,
        CLUSTER_NAME,
    );
    let codes = if allowed {
        write(broker, &markers).await
    } else {
        let refused = ErrorCode::ClusterAuthorizationFailed.code();
        markers
            .iter()
            .map(|m| vec![refused; m.partition_count()])
            .collect()
    };
    let response = answer(&markers, &codes);
    Reply::counted(tally, codes.into_iter().flatten(), &peek, &response)
}

/// Appends every marker, then waits for all of them at once; each partition's error code
/// (0: written and committed), marker by marker.
async fn write(broker: &Arc<Broker>, markers: &[Marker]) -> Vec<Vec<i16>> {
    let requests: Vec<MarkerRequest> = markers
        .iter()
        .flat_map(|m| {
            m.topics.iter().flat_map(move |(topic, partitions)| {
                partitions.iter().map(move |&partition| MarkerRequest {
                    topic: topic.clone(),
                    partition,
                    producer_id: m.producer_id,
                    producer_epoch: m.producer_epoch,
                    coordinator_epoch: m.coordinator_epoch,
                    commit: m.commit,
                    transaction_version: m.transaction_version,
                })
            })
        })
        .collect();
    let appended = requests
        .iter()
        .map(|r| append_marker(&broker.partitions, r))
        .collect();
    let outcomes = markers_committed(appended).await;
    let written: Vec<MarkerWritten> = requests
        .iter()
        .zip(&outcomes)
        .filter(|(r, outcome)| outcome.is_ok() && r.topic == CONSUMER_OFFSETS)
        .map(|(r, _)| (r.partition, r.producer_id, r.commit))
        .collect();
    if !written.is_empty() {
        broker.completions.markers_written(written);
    }
    let mut codes = outcomes.into_iter().map(|o| match o {
        Ok(_) => 0,
        Err(e) => e.error_code().code(),
    });
    markers
        .iter()
        .map(|m| codes.by_ref().take(m.partition_count()).collect())
        .collect()
}

fn answer(markers: &[Marker], codes: &[Vec<i16>]) -> WriteTxnMarkersResponse {
    let results = markers
        .iter()
        .zip(codes)
        .map(|(m, codes)| {
            let mut codes = codes.iter();
            let topics = m
                .topics
                .iter()
                .map(|(name, partitions)| {
                    let partitions = partitions
                        .iter()
                        .map(|&p| {
                            WritableTxnMarkerPartitionResult::default()
                                .with_partition_index(p)
                                .with_error_code(*codes.next().expect("a code per partition"))
                        })
                        .collect();
                    WritableTxnMarkerTopicResult::default()
                        .with_name(TopicName(StrBytes::from_string(name.clone())))
                        .with_partitions(partitions)
                })
                .collect();
            WritableTxnMarkerResult::default()
                .with_producer_id(ProducerId(m.producer_id))
                .with_topics(topics)
        })
        .collect();
    WriteTxnMarkersResponse::default().with_markers(results)
}

/// The markers of a request body (flexible, v1 and v2); None if it does not parse.
fn read_markers(mut body: Bytes, version: i16) -> Option<Vec<Marker>> {
    let count = compact_len(&mut body)?;
    let mut markers = Vec::new();
    for _ in 0..count {
        let producer_id = take(&mut body, 8)?.get_i64();
        let producer_epoch = take(&mut body, 2)?.get_i16();
        let commit = take(&mut body, 1)?.get_u8() != 0;
        let topic_count = compact_len(&mut body)?;
        let mut topics = Vec::new();
        for _ in 0..topic_count {
            let name_len = compact_len(&mut body)?;
            let name = String::from_utf8(take(&mut body, name_len)?.to_vec()).ok()?;
            let partition_count = compact_len(&mut body)?;
            let mut partitions = take(&mut body, partition_count.checked_mul(4)?)?;
            let partitions = (0..partition_count).map(|_| partitions.get_i32()).collect();
            skip_tags(&mut body)?;
            topics.push((name, partitions));
        }
        let coordinator_epoch = take(&mut body, 4)?.get_i32();
        let transaction_version = if version >= 2 {
            take(&mut body, 1)?.get_i8()
        } else {
            0
        };
        skip_tags(&mut body)?;
        markers.push(Marker {
            producer_id,
            producer_epoch,
            commit,
            topics,
            coordinator_epoch,
            transaction_version,
        });
    }
    skip_tags(&mut body)?;
    Some(markers)
}

fn take(body: &mut Bytes, n: usize) -> Option<Bytes> {
    (body.remaining() >= n).then(|| body.split_to(n))
}

fn uvarint(body: &mut Bytes) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..35).step_by(7) {
        let byte = take(body, 1)?.get_u8();
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// A compact array's or string's length (its varint is length + 1); a null is refused, as
/// none of this request's fields may be null.
fn compact_len(body: &mut Bytes) -> Option<usize> {
    usize::try_from(uvarint(body)?.checked_sub(1)?).ok()
}

fn skip_tags(body: &mut Bytes) -> Option<()> {
    for _ in 0..uvarint(body)? {
        uvarint(body)?;
        let size = usize::try_from(uvarint(body)?).ok()?;
        take(body, size)?;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use bytes::BytesMut;
    use kafka_protocol::messages::write_txn_markers_request::{
        WritableTxnMarker, WritableTxnMarkerTopic,
    };
    use kafka_protocol::messages::WriteTxnMarkersRequest;
    use kafka_protocol::protocol::Encodable;

    use super::*;

    /// Two markers as the codec crate writes v1, and, for v2, each marker's version inserted
    /// by hand.
    fn bodies() -> (Bytes, Bytes) {
        let marker = |pid: i64, partitions: Vec<i32>| {
            WritableTxnMarker::default()
                .with_producer_id(ProducerId(pid))
                .with_producer_epoch(3)
                .with_transaction_result(pid == 7)
                .with_coordinator_epoch(11)
                .with_topics(vec![WritableTxnMarkerTopic::default()
                    .with_name(TopicName(StrBytes::from_static_str("t")))
                    .with_partition_indexes(partitions)])
        };
        let request = WriteTxnMarkersRequest::default()
            .with_markers(vec![marker(7, vec![0, 2]), marker(8, vec![1])]);
        let mut v1 = BytesMut::new();
        request.encode(&mut v1, 1).expect("encodes");
        // Each marker ends with its coordinator epoch and its (empty) tag section, where v2's
        // version goes before the tags: the second marker's tags are the byte before the
        // body's, the first's are the byte before the second marker's 25 bytes.
        let mut v2 = v1.to_vec();
        let second_tags = v2.len() - 2;
        v2.insert(second_tags, 2);
        let second_len = 8 + 2 + 1 + 1 + (2 + 1 + 4 + 1) + 4 + 1;
        v2.insert(second_tags + 1 - second_len - 1, 2);
        (v1.freeze(), Bytes::from(v2))
    }

    #[test]
    fn reads_both_versions() {
        let (v1, v2) = bodies();
        let read = read_markers(v1, 1).expect("v1 parses");
        assert_eq!(read.len(), 2);
        assert_eq!(
            read[0],
            Marker {
                producer_id: 7,
                producer_epoch: 3,
                commit: true,
                topics: vec![("t".into(), vec![0, 2])],
                coordinator_epoch: 11,
                transaction_version: 0,
            }
        );
        assert_eq!((read[1].producer_id, read[1].commit), (8, false));
        let read2 = read_markers(v2, 2).expect("v2 parses");
        assert!(read2.iter().all(|m| m.transaction_version == 2));
        assert_eq!(read2[1].topics, vec![("t".into(), vec![1])]);
    }

    #[test]
    fn refuses_what_does_not_parse() {
        let (v1, v2) = bodies();
        for (body, version) in [(v1, 1), (v2, 2)] {
            for cut in 0..body.len() {
                assert!(
                    read_markers(body.slice(..cut), version).is_none(),
                    "cut {cut}"
                );
            }
        }
        // A null array (varint 0) where the markers go.
        assert!(read_markers(Bytes::from_static(&[0, 0]), 1).is_none());
    }
}
