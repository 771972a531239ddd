//! ShareAcknowledge (key 79, v1): a share group member's acknowledgements without a fetch.
//! The session's epoch must match (-1 closes it, releasing what the member still holds); each
//! partition is answered once its share-partition's new state is written.

use std::sync::Arc;
use std::time::Instant;

use kafka_protocol::messages::share_acknowledge_response::{
    LeaderIdAndEpoch, PartitionData, ShareAcknowledgeTopicResponse,
};
use kafka_protocol::messages::{ShareAcknowledgeRequest, ShareAcknowledgeResponse};
use uuid::Uuid;

use super::{acknowledge_all, by_topic, checked, release, AckBatch};
use crate::error::ErrorCode;
use crate::log::now_ms;
use crate::protocol::decode_request;
use crate::quota::user_of;
use crate::server::api::{Call, Reply};

pub async fn handle(call: Call<'_>) -> Reply {
    let Call {
        broker,
        peek,
        frame,
        tally,
        session,
        ..
    } = call;
    let started = Instant::now();
    let Ok((header, request)) = decode_request::<ShareAcknowledgeRequest>(frame) else {
        return Reply::Close;
    };
    let version = peek.api_version;
    let top = |tally: &mut _, error: ErrorCode| {
        let response = ShareAcknowledgeResponse::default().with_error_code(error.code());
        Reply::counted(tally, [error.code()], &peek, version, &response)
    };
    let (group, member) = match checked(broker, session, &request.group_id, &request.member_id) {
        Ok(names) => names,
        Err(e) => return top(tally, e),
    };
    let epoch = request.share_session_epoch;
    let settled = broker
        .share
        .sessions
        .lock()
        .acknowledge(&group, &member, epoch);
    let closing = match settled {
        Ok(closing) => closing,
        Err(e) => return top(tally, e),
    };
    let mut acks = Vec::new();
    for t in &request.topics {
        for p in &t.partitions {
            let batches: Vec<AckBatch> = p
                .acknowledgement_batches
                .iter()
                .map(|b| AckBatch::new(b.first_offset, b.last_offset, &b.acknowledge_types))
                .collect();
            acks.push(((*t.topic_id.as_bytes(), p.partition_index), batches));
        }
    }
    let order: Vec<_> = acks.iter().map(|(tp, _)| *tp).collect();
    let errors = acknowledge_all(broker, session, &group, &member, acks).await;
    if closing {
        let partitions = broker.share.sessions.lock().close(&group, &member);
        release(broker, Arc::clone(&group), Arc::clone(&member), partitions);
    }
    let codes: Vec<i16> = order
        .iter()
        .map(|tp| errors.get(tp).map_or(0, |e| e.code()))
        .collect();
    let partitions = order.into_iter().map(|tp| {
        let error = errors.get(&tp).copied().unwrap_or(ErrorCode::None);
        let (leader_id, leader_epoch) = match error {
            ErrorCode::NotLeaderOrFollower | ErrorCode::FencedLeaderEpoch => broker
                .partitions
                .get_by_id(&tp.0, tp.1)
                .map_or((-1, -1), |p| p.leader()),
            _ => (-1, -1),
        };
        let partition = PartitionData::default()
            .with_partition_index(tp.1)
            .with_error_code(error.code())
            .with_current_leader(
                LeaderIdAndEpoch::default()
                    .with_leader_id(leader_id)
                    .with_leader_epoch(leader_epoch),
            );
        (tp.0, partition)
    });
    let topics = by_topic(partitions)
        .into_iter()
        .map(|(id, partitions)| {
            ShareAcknowledgeTopicResponse::default()
                .with_topic_id(Uuid::from_bytes(id))
                .with_partitions(partitions)
        })
        .collect();
    // The request quota meters the time the request took, its write included (as Kafka).
    let client_id = header.client_id.as_ref().map_or("", |c| c.as_str());
    let principal = session.principal_arc();
    let throttle_ms = broker.quotas.record_request_time(
        user_of(&principal),
        client_id,
        started.elapsed(),
        now_ms(),
    );
    let response = ShareAcknowledgeResponse::default()
        .with_throttle_time_ms(i32::try_from(throttle_ms).unwrap_or(i32::MAX))
        .with_responses(topics);
    Reply::counted(tally, codes, &peek, version, &response).muted_for(throttle_ms)
}
