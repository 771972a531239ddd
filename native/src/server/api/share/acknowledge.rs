//! ShareAcknowledge (key 79, v1-2): a share group member's acknowledgements without a fetch.
//! The session's epoch must match (-1 closes it, releasing what the member still holds); each
//! partition is answered once its share-partition's new state is written. v2 (KIP-1222) may
//! RENEW locks when the request says IsRenewAck, and answers the lock duration they got.

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
use crate::protocol::decode_request_added;
use crate::quota::user_of;
use crate::server::api::{Call, Reply, Tally};

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
    let Ok((header, request, added)) = decode_request_added::<ShareAcknowledgeRequest>(frame)
    else {
        return Reply::Close;
    };
    let renew = added.first().is_some_and(|&b| b != 0);
    // v2's AcquisitionLockTimeoutMs: the group's lock duration, which a RENEW gave.
    let lock_ms = |group: Option<&str>| {
        let settings = group.map_or_else(Default::default, |g| broker.share.settings(g));
        settings.limits.lock_ms.min(i32::MAX as u64) as i32
    };
    let reply = |tally: &mut Tally, codes: Vec<i16>, response, lock_ms: i32| {
        Reply::counted_added(tally, codes, &peek, &response, &lock_ms.to_be_bytes())
    };
    let top = |tally: &mut _, error: ErrorCode| {
        let response = ShareAcknowledgeResponse::default().with_error_code(error.code());
        reply(tally, vec![error.code()], response, lock_ms(None))
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
    let errors = acknowledge_all(broker, session, &group, &member, acks, renew).await;
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
    reply(tally, codes, response, lock_ms(Some(&group))).muted_for(throttle_ms)
}
