//! OffsetForLeaderEpoch (v2-4): the end offset of a leader epoch, from the leader-epoch cache,
//! so followers and consumers truncate or validate by epoch rather than by a stale HW.

use kafka_protocol::messages::offset_for_leader_epoch_response::{
    EpochEndOffset, OffsetForLeaderTopicResult,
};
use kafka_protocol::messages::{OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse};

use super::{Call, Reply};
use crate::acl::{Operation, ResourceType, CLUSTER_NAME};
use crate::error::ErrorCode;
use crate::protocol::decode_request;

pub fn handle(call: Call<'_>) -> Reply {
    let (broker, peek, frame, tally, session, _) = call.into_parts();
    let request = match decode_request::<OffsetForLeaderEpochRequest>(frame) {
        Ok((_, request)) => request,
        Err(_) => return Reply::Close,
    };
    // As Kafka since KIP-320: CLUSTER_ACTION (a follower) answers every topic, otherwise
    // DESCRIBE on each topic (a consumer validating its position).
    let cluster_action = session.authorize(
        &broker.authorizer,
        Operation::ClusterAction,
        ResourceType::Cluster,
        CLUSTER_NAME,
    );
    let topics = request
        .topics
        .into_iter()
        .map(|t| {
            let authorized = cluster_action
                || session.authorize(
                    &broker.authorizer,
                    Operation::Describe,
                    ResourceType::Topic,
                    t.topic.0.as_str(),
                );
            let partitions = t
                .partitions
                .iter()
                .map(|req| {
                    let out = EpochEndOffset::default().with_partition(req.partition);
                    let found = match broker.partitions.get(t.topic.0.as_str(), req.partition) {
                        _ if !authorized => Err(ErrorCode::TopicAuthorizationFailed),
                        None => Err(ErrorCode::UnknownTopicOrPartition),
                        Some(p) => p
                            .check_leader_epoch(req.current_leader_epoch)
                            .map(|_| p.log().read().end_offset_for_epoch(req.leader_epoch)),
                    };
                    match found {
                        // Unknown epoch: UNDEFINED_EPOCH / UNDEFINED_EPOCH_OFFSET, no error.
                        Ok(None) => out,
                        Ok(Some((epoch, end_offset))) => {
                            out.with_leader_epoch(epoch).with_end_offset(end_offset)
                        }
                        Err(e) => out.with_error_code(e.code()),
                    }
                })
                .collect();
            OffsetForLeaderTopicResult::default()
                .with_topic(t.topic)
                .with_partitions(partitions)
        })
        .collect();
    let response = OffsetForLeaderEpochResponse::default().with_topics(topics);
    let partitions = response.topics.iter().flat_map(|t| &t.partitions);
    let codes = partitions.map(|p| p.error_code);
    Reply::counted(tally, codes, &peek, &response)
}
