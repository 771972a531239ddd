//! Taking a Produce request apart before anything is appended: its record slices by topic
//! (named, or by id from v13), owned without a copy where nothing else shares the frame, and
//! Kafka's authorization of them.

use std::collections::HashMap;

use bytes::{Bytes, BytesMut};
use kafka_protocol::messages::ProduceRequest;

use super::produce::PartitionRecords;
use crate::acl::{Operation, ResourceType, Session};
use crate::error::ErrorCode;
use crate::record::batch::ATTR_TRANSACTIONAL;
use crate::server::Broker;

/// A Produce request's records by topic: named (v3-12), or by id (v13) with the name it has
/// here; the ids of v13 that name no topic hosted here.
pub(super) struct Taken {
    pub(super) transactional_id: Option<String>,
    pub(super) topics: Vec<(String, PartitionRecords)>,
    pub(super) ids: HashMap<String, [u8; 16]>,
    pub(super) unknown_ids: Vec<([u8; 16], Vec<i32>)>,
}

/// Takes the record slices out and lets go of everything else that shares the frame (topic
/// names, the transactional id), so a single-partition request's batch is owned without a
/// copy and validated in place.
/// `name_of` maps a v13 topic id to the name of the topic hosted here.
pub(super) fn take_records(
    version: i16,
    mut request: ProduceRequest,
    name_of: impl Fn(&[u8; 16]) -> Option<String>,
) -> Taken {
    let topic_data = std::mem::take(&mut request.topic_data);
    let transactional_id = request.transactional_id.take().map(|id| id.0.to_string());
    drop(request);
    let mut taken = Taken {
        transactional_id,
        topics: Vec::with_capacity(topic_data.len()),
        ids: HashMap::new(),
        unknown_ids: Vec::new(),
    };
    for t in topic_data {
        let partitions: PartitionRecords = t
            .partition_data
            .into_iter()
            .map(|p| (p.index, p.records))
            .collect();
        if version < 13 {
            taken.topics.push((t.name.0.to_string(), partitions));
            continue;
        }
        let id = *t.topic_id.as_bytes();
        match name_of(&id) {
            Some(name) => {
                taken.ids.insert(name.clone(), id);
                taken.topics.push((name, partitions));
            }
            // As Kafka: no name, so nothing to authorize or append.
            None => taken
                .unknown_ids
                .push((id, partitions.into_iter().map(|(i, _)| i).collect())),
        }
    }
    taken
}

/// Kafka's checks of a produce: WRITE on the transactional id when a batch is transactional
/// (else every partition is refused with TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then WRITE on
/// each topic. Takes the refused topics out of `topics` and answers them with their error.
pub(super) fn authorize(
    broker: &Broker,
    session: &mut Session,
    transactional_id: Option<&str>,
    topics: &mut Vec<(String, PartitionRecords)>,
) -> Vec<(String, Vec<i32>, ErrorCode)> {
    let authorizer = &broker.authorizer;
    let transactional = topics
        .iter()
        .flat_map(|(_, partitions)| partitions)
        .any(|(_, records)| records.as_deref().is_some_and(first_batch_transactional));
    let txn_refused = transactional
        && !transactional_id.is_some_and(|id| {
            session.authorize(
                authorizer,
                Operation::Write,
                ResourceType::TransactionalId,
                id,
            )
        });
    let mut refused = Vec::new();
    let mut kept = Vec::with_capacity(topics.len());
    for (topic, partitions) in std::mem::take(topics) {
        let error = if txn_refused {
            ErrorCode::TransactionalIdAuthorizationFailed
        } else if session.authorize(authorizer, Operation::Write, ResourceType::Topic, &topic) {
            kept.push((topic, partitions));
            continue;
        } else {
            ErrorCode::TopicAuthorizationFailed
        };
        refused.push((
            topic,
            partitions.into_iter().map(|(i, _)| i).collect(),
            error,
        ));
    }
    *topics = kept;
    refused
}

/// Whether the first batch of a partition's records is transactional (Kafka's
/// `hasTransactionalRecords` looks at the first batch of each partition): the attributes'
/// transactional bit of a v2 batch header.
fn first_batch_transactional(records: &[u8]) -> bool {
    const MAGIC: usize = 16;
    const ATTRIBUTES: usize = 21;
    records.len() > ATTRIBUTES + 1
        && records[MAGIC] == 2
        && i16::from_be_bytes([records[ATTRIBUTES], records[ATTRIBUTES + 1]]) & ATTR_TRANSACTIONAL
            != 0
}

/// The request's record bytes as an owned buffer: without a copy when nothing else shares the
/// frame any more (a single-partition request), with one otherwise.
pub(super) fn into_owned(records: Bytes) -> BytesMut {
    records
        .try_into_mut()
        .unwrap_or_else(|shared| BytesMut::from(&shared[..]))
}

#[cfg(test)]
mod tests {
    use bytes::{Bytes, BytesMut};
    use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
    use kafka_protocol::messages::{ApiKey, ProduceRequest, RequestHeader, TopicName};
    use kafka_protocol::protocol::{Encodable, StrBytes};

    use super::{into_owned, take_records};
    use crate::protocol::decode_request;

    fn frame(partitions: i32) -> Bytes {
        let request = ProduceRequest::default()
            .with_transactional_id(Some(StrBytes::from_static_str("txn").into()))
            .with_acks(1)
            .with_topic_data(vec![TopicProduceData::default()
                .with_name(TopicName(StrBytes::from_static_str("t")))
                .with_partition_data(
                    (0..partitions)
                        .map(|i| {
                            PartitionProduceData::default()
                                .with_index(i)
                                .with_records(Some(Bytes::from_static(&[7; 100])))
                        })
                        .collect(),
                )]);
        let header = RequestHeader::default()
            .with_request_api_key(ApiKey::Produce as i16)
            .with_request_api_version(9)
            .with_client_id(Some(StrBytes::from_static_str("c")));
        let mut buf = BytesMut::new();
        header.encode(&mut buf, 2).expect("header");
        request.encode(&mut buf, 9).expect("body");
        buf.freeze()
    }

    #[test]
    fn a_lone_batch_is_owned_without_a_copy() {
        let frame = frame(1);
        let range = frame.as_ptr() as usize..frame.as_ptr() as usize + frame.len();
        let (_, request) = decode_request::<ProduceRequest>(frame).expect("decodes");
        let mut topics = take_records(9, request, |_| None).topics;
        let records = topics[0].1.pop().and_then(|(_, r)| r).expect("records");
        let owned = into_owned(records);
        assert!(
            range.contains(&(owned.as_ptr() as usize)),
            "the frame's own bytes"
        );
        assert_eq!(&owned[..], &[7; 100]);
    }

    #[test]
    fn shared_batches_are_copied() {
        let (_, request) = decode_request::<ProduceRequest>(frame(2)).expect("decodes");
        let mut topics = take_records(9, request, |_| None).topics;
        let (_, first) = topics[0].1.remove(0);
        assert_eq!(&into_owned(first.expect("records"))[..], &[7; 100]);
    }
}
