//! Produce (v3-13): validate, append as leader, and for acks=all wait for the high watermark.
//! From v10 a NOT_LEADER_OR_FOLLOWER names the leader and its endpoint (KIP-951).
//! From v12 the producer uses transaction version 2 (KIP-890): the leader has the coordinator
//! add a transactional batch's partition (`txn_verify`); v13 names topics by id (KIP-516).
//! Taking the request apart and authorizing it: `produce_records`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use kafka_protocol::messages::produce_response::{
    BatchIndexAndErrorMessage, LeaderIdAndEpoch, NodeEndpoint, PartitionProduceResponse,
    TopicProduceResponse,
};
use kafka_protocol::messages::{BrokerId, ProduceRequest, ProduceResponse, TopicName};
use kafka_protocol::protocol::StrBytes;

use super::produce_records::{authorize, into_owned, take_records, Taken};
use super::{mute_for, txn_verify, Call, Reply};
use crate::acl::Session;
use crate::error::ErrorCode;
use crate::log::now_ms;
use crate::protocol::{decode_request, encode_response, PRODUCE};
use crate::quota::{user_of, QuotaType};
use crate::record::rejected::Rejected;
use crate::record::validate::validate_produce_records;
use crate::replica::Partition;
use crate::server::leader_hints::LeaderHints;
use crate::server::Broker;

/// Produce v10 added KIP-951's leader hints.
const LEADER_HINT_VERSION: i16 = 10;

struct Outcome {
    index: i32,
    error: ErrorCode,
    base_offset: i64,
    log_append_time: i64,
    log_start_offset: i64,
    /// For acks=all: the partition and the last offset that must be committed.
    wait: Option<(Arc<Partition>, i64)>,
    /// Produce v8+ (KIP-467): the records that broke a per-record rule, and Kafka's summary
    /// of them; Kafka sends no message for other errors.
    record_errors: Vec<(i32, String)>,
    error_message: Option<String>,
    /// KIP-951: (leader id, leader epoch) with a NOT_LEADER_OR_FOLLOWER.
    current_leader: Option<(i32, i32)>,
}

impl Outcome {
    fn error(index: i32, error: ErrorCode) -> Outcome {
        Outcome {
            index,
            error,
            base_offset: -1,
            log_append_time: -1,
            log_start_offset: -1,
            wait: None,
            record_errors: Vec::new(),
            error_message: None,
            current_leader: None,
        }
    }

    /// The same error for each of `indexes`.
    fn errors(indexes: Vec<i32>, error: ErrorCode) -> Vec<Outcome> {
        indexes
            .into_iter()
            .map(|i| Outcome::error(i, error))
            .collect()
    }

    /// A batch refused for its records: each one's error, and the log start offset as Kafka
    /// reports it with them.
    fn rejected(partition: &Partition, rejected: &Rejected) -> Outcome {
        let (topic, index) = (partition.topic(), partition.index());
        Outcome {
            log_start_offset: partition.log().read().log_start_offset(),
            record_errors: rejected.record_errors(topic, index),
            error_message: rejected.message(topic, index),
            ..Outcome::error(index, rejected.code)
        }
    }
}

fn produce_one(
    broker: &Broker,
    topic: &str,
    index: i32,
    records: Option<Bytes>,
    acks: i16,
    version: i16,
    verify_txn: bool,
) -> Outcome {
    let Some(partition) = broker.partitions.get(topic, index) else {
        return Outcome::error(index, ErrorCode::UnknownTopicOrPartition);
    };
    let metrics = partition.metrics();
    metrics.produce_requests.add(1);
    let records = records.unwrap_or_default();
    let size = records.len() as u64;
    let failed = |e: ErrorCode| {
        metrics.failed_produce_requests.add(1);
        // Kafka's BytesRejected counts only batches over max.message.bytes.
        if e == ErrorCode::MessageTooLarge {
            metrics.bytes_rejected.add(size);
        }
        Outcome::error(index, e)
    };
    if let Err(e) = partition.leader_epoch_if_leader() {
        return failed(e);
    }
    if let Err(e) = validate_produce_records(&records, version) {
        return failed(e);
    }
    if !matches!(acks, -1..=1) {
        return failed(ErrorCode::InvalidRequiredAcks);
    }
    match partition.append_from_producer(into_owned(records), acks, now_ms(), verify_txn) {
        Ok(appended) => {
            metrics.bytes_in.add(size);
            let offsets = appended.last_offset - appended.base_offset + 1;
            metrics.messages_in.add(offsets.max(0) as u64);
            Outcome {
                index,
                error: ErrorCode::None,
                base_offset: appended.base_offset,
                log_append_time: appended.log_append_time,
                log_start_offset: appended.log_start_offset,
                wait: (acks == -1).then(|| (Arc::clone(&partition), appended.last_offset)),
                ..Outcome::error(index, ErrorCode::None)
            }
        }
        Err(rejected) if !rejected.records.is_empty() => {
            failed(rejected.code);
            Outcome::rejected(&partition, &rejected)
        }
        Err(rejected) => failed(rejected.code),
    }
}

/// Each partition's index and record bytes.
pub(super) type PartitionRecords = Vec<(i32, Option<Bytes>)>;

/// Waits for every acks=all partition of one request at once, each answer decided the moment
/// it is known, as Kafka's delayed produce does. Waited one after another, a batch committed
/// while an earlier partition of the request still waited was answered NOT_LEADER_OR_FOLLOWER
/// if the leadership moved meanwhile: librdkafka takes that answer as "not persisted", and an
/// idempotent producer that bumps its epoch before the retry writes the batch again.
async fn wait_committed(results: &mut [(String, Vec<Outcome>)], deadline: tokio::time::Instant) {
    let mut waiting: Vec<(usize, usize)> = Vec::new();
    for (t, (_, outcomes)) in results.iter().enumerate() {
        for (i, o) in outcomes.iter().enumerate() {
            if o.wait.is_some() {
                waiting.push((t, i));
            }
        }
    }
    if let [(t, i)] = waiting[..] {
        // One partition (the common request): nothing else to wait for, no task needed.
        let o = &mut results[t].1[i];
        if let Some((partition, last_offset)) = o.wait.take() {
            o.error = answer(partition.wait_committed(last_offset, deadline).await);
        }
        return;
    }
    let mut waits = tokio::task::JoinSet::new();
    for (t, i) in waiting {
        let o = &mut results[t].1[i];
        if let Some((partition, last_offset)) = o.wait.take() {
            // Until its wait answers: a wait that cannot answer never reads as a success.
            o.error = ErrorCode::RequestTimedOut;
            waits.spawn(
                async move { (t, i, partition.wait_committed(last_offset, deadline).await) },
            );
        }
    }
    while let Some(joined) = waits.join_next().await {
        if let Ok((t, i, waited)) = joined {
            results[t].1[i].error = answer(waited);
        }
    }
}

fn answer(waited: Result<(), ErrorCode>) -> ErrorCode {
    waited.err().unwrap_or(ErrorCode::None)
}

/// A topic's part of the response: named up to v12, by id from v13.
fn topic_response(
    version: i16,
    name: String,
    id: [u8; 16],
    outcomes: Vec<Outcome>,
) -> TopicProduceResponse {
    let topic = if version >= 13 {
        TopicProduceResponse::default().with_topic_id(id.to_vec().try_into().unwrap_or_default())
    } else {
        TopicProduceResponse::default().with_name(TopicName(StrBytes::from_string(name)))
    };
    topic.with_partition_responses(
        outcomes
            .into_iter()
            .map(|o| partition_response(version, o))
            .collect(),
    )
}

fn partition_response(version: i16, o: Outcome) -> PartitionProduceResponse {
    let response = PartitionProduceResponse::default()
        .with_index(o.index)
        .with_error_code(o.error.code())
        .with_base_offset(o.base_offset)
        .with_log_append_time_ms(o.log_append_time)
        .with_log_start_offset(if version >= 5 { o.log_start_offset } else { -1 });
    if version < 8 {
        return response;
    }
    let response = match o.current_leader {
        Some((leader_id, leader_epoch)) => response.with_current_leader(
            LeaderIdAndEpoch::default()
                .with_leader_id(BrokerId(leader_id))
                .with_leader_epoch(leader_epoch),
        ),
        None => response,
    };
    response
        .with_record_errors(
            o.record_errors
                .into_iter()
                .map(|(batch_index, message)| {
                    BatchIndexAndErrorMessage::default()
                        .with_batch_index(batch_index)
                        .with_batch_index_error_message(Some(StrBytes::from_string(message)))
                })
                .collect(),
        )
        .with_error_message(o.error_message.map(StrBytes::from_string))
}

/// KIP-951: each NOT_LEADER_OR_FOLLOWER's leader, and those leaders' endpoints on `listener`.
fn hint_leaders(
    broker: &Broker,
    listener: &str,
    results: &mut [(String, Vec<Outcome>)],
) -> Vec<NodeEndpoint> {
    let mut hints = LeaderHints::new(&broker.live_brokers, listener);
    for (topic, outcomes) in results.iter_mut() {
        for o in outcomes.iter_mut() {
            if o.error != ErrorCode::NotLeaderOrFollower {
                continue;
            }
            if let Some(partition) = broker.partitions.get(topic, o.index) {
                o.current_leader = hints.current_leader(&partition);
            }
        }
    }
    hints
        .into_endpoints()
        .into_iter()
        .map(|e| {
            NodeEndpoint::default()
                .with_node_id(BrokerId(e.node_id))
                .with_host(StrBytes::from_string(e.host))
                .with_port(e.port)
                .with_rack(e.rack.map(StrBytes::from_string))
        })
        .collect()
}

pub async fn handle(call: Call<'_>) -> Reply {
    let (broker, peek, frame, tally, session, listener) = call.into_parts();
    let started = Instant::now();
    // What the request waits for (the transaction coordinator, replication) is not the
    // broker's time: the request quota leaves it out.
    let mut waited = Duration::ZERO;
    let version = peek.api_version;
    // Kafka meters the request's size, header included.
    let request_size = frame.len();
    let (header, request) = match decode_request::<ProduceRequest>(frame) {
        Ok(decoded) => decoded,
        Err(_) => return Reply::Close,
    };
    // Owned, and the header dropped: it shares the frame, whose batch is taken without a copy
    // only when nothing else holds the frame.
    let client_id = header
        .client_id
        .as_ref()
        .map_or_else(String::new, |c| c.to_string());
    drop(header);
    let acks = request.acks;
    let timeout = Duration::from_millis(request.timeout_ms.max(0) as u64);
    let Taken {
        transactional_id,
        mut topics,
        ids,
        unknown_ids,
    } = take_records(version, request, |id| broker.partitions.name_of(id));
    // Refused before anything else looks at the records (nothing is written).
    let unauthorized = if broker.authorizer.enabled() {
        authorize(broker, session, transactional_id.as_deref(), &mut topics)
    } else {
        Vec::new()
    };
    // Produce v12+ (transaction version 2): the leader adds the partitions, whatever the
    // verification setting says.
    let verify =
        broker.config.transaction_verification || version >= txn_verify::ADD_PRODUCE_VERSION;
    let verify_began = Instant::now();
    let refused = if verify {
        txn_verify::check_produce(
            broker,
            transactional_id.as_deref(),
            &topics,
            version,
            timeout,
        )
        .await
    } else {
        HashMap::new()
    };
    waited += verify_began.elapsed();
    let mut results: Vec<(String, Vec<Outcome>)> = Vec::with_capacity(topics.len());
    for (topic, partitions) in topics {
        let outcomes = partitions
            .into_iter()
            .map(
                |(index, records)| match refused.get(&(topic.clone(), index)) {
                    Some(&error) => Outcome::error(index, error),
                    None => produce_one(broker, &topic, index, records, acks, version, verify),
                },
            )
            .collect();
        results.push((topic, outcomes));
    }
    for (topic, indexes, error) in unauthorized {
        results.push((topic, Outcome::errors(indexes, error)));
    }
    let mut unknown: Vec<([u8; 16], Vec<Outcome>)> = unknown_ids
        .into_iter()
        .map(|(id, indexes)| (id, Outcome::errors(indexes, ErrorCode::UnknownTopicId)))
        .collect();

    if acks == -1 {
        let wait_began = Instant::now();
        wait_committed(&mut results, tokio::time::Instant::now() + timeout).await;
        waited += wait_began.elapsed();
    }

    let named = results.iter().map(|(_, os)| os);
    for o in named.chain(unknown.iter().map(|(_, os)| os)).flatten() {
        tally.add(o.error.code());
    }

    // As Kafka, once the request is complete: an acks=all produce is metered when it is
    // answered.
    let busy = started.elapsed().saturating_sub(waited);
    let throttle_ms = throttle(broker, session, &client_id, request_size, busy);
    let mute = mute_for(throttle_ms);

    if acks == 0 {
        // No response exists to carry an error, so Kafka closes the connection to make the
        // producer notice (and refresh its metadata).
        let failed = !unknown.is_empty()
            || results
                .iter()
                .any(|(_, os)| os.iter().any(|o| o.error != ErrorCode::None));
        return match (failed, mute) {
            (true, _) => Reply::Close,
            (false, Some(throttle)) => Reply::Mute(throttle),
            (false, None) => Reply::Nothing,
        };
    }

    let node_endpoints = if version >= LEADER_HINT_VERSION {
        hint_leaders(broker, listener, &mut results)
    } else {
        Vec::new()
    };
    let mut responses: Vec<TopicProduceResponse> = results
        .into_iter()
        .map(|(name, outcomes)| {
            let id = ids.get(&name).copied().unwrap_or_default();
            topic_response(version, name, id, outcomes)
        })
        .collect();
    responses.extend(
        unknown
            .drain(..)
            .map(|(id, outcomes)| topic_response(version, String::new(), id, outcomes)),
    );
    let response = ProduceResponse::default()
        .with_throttle_time_ms(i32::try_from(throttle_ms).unwrap_or(i32::MAX))
        .with_responses(responses)
        .with_node_endpoints(node_endpoints);
    let reply = Reply::from_encoded(encode_response(
        PRODUCE,
        version,
        peek.correlation_id,
        &response,
    ));
    match (reply, mute) {
        (Reply::Send(chunks), Some(throttle)) => Reply::SendThenMute(chunks, throttle),
        (reply, _) => reply,
    }
}

/// Meters a complete request against the client's produce byte rate and request time: the
/// larger of the two throttles, which the response carries and the connection is muted for,
/// as Kafka does.
fn throttle(
    broker: &Broker,
    session: &Session,
    client_id: &str,
    request_size: usize,
    busy: Duration,
) -> i64 {
    let now = now_ms();
    let user = user_of(session.principal());
    let byte_throttle_ms = broker.quotas.record_and_get_throttle_time_ms(
        QuotaType::Produce,
        user,
        client_id,
        request_size as f64,
        now,
    );
    let request_throttle_ms = broker
        .quotas
        .record_request_time(user, client_id, busy, now);
    byte_throttle_ms.max(request_throttle_ms)
}
