//! The response of a Fetch once its partitions are read: the leader hints (KIP-951), the
//! session settled (which partitions an incremental response carries), the meters, and the
//! chunks written.

use super::read::{Plan, Target};
use super::{Mode, Reply, Tally};
use crate::error::ErrorCode;
use crate::log::now_ms;
use crate::protocol::fetch_writer::{
    write_fetch_response, FetchPartitionOut, FetchResponseOut, FetchTopicOut,
};
use crate::protocol::HeaderPeek;
use crate::server::fetch_session::{Finish, Outcome, Sent, TopicRef, INVALID_SESSION_ID};
use crate::server::leader_hints::{LeaderHints, NodeEndpoint};
use crate::server::Broker;

/// What a read answered, before the session settles which partitions the response carries.
pub(super) struct Answer {
    pub outs: Vec<FetchPartitionOut>,
    pub node_endpoints: Vec<NodeEndpoint>,
    pub throttle_ms: i64,
}

/// KIP-951: each NOT_LEADER_OR_FOLLOWER's or FENCED_LEADER_EPOCH's leader, and those
/// leaders' endpoints on `listener`.
pub(super) fn hint_leaders(
    broker: &Broker,
    listener: &str,
    plan: &Plan,
    outs: &mut [FetchPartitionOut],
) -> Vec<NodeEndpoint> {
    let mut hints = LeaderHints::new(&broker.live_brokers, listener);
    for (target, out) in plan.targets.iter().zip(outs.iter_mut()) {
        let refused = [ErrorCode::NotLeaderOrFollower, ErrorCode::FencedLeaderEpoch]
            .iter()
            .any(|e| e.code() == out.error_code);
        if let (true, Ok(partition)) = (refused, &target.partition) {
            out.current_leader = hints.current_leader(partition);
        }
    }
    hints.into_endpoints()
}

/// The empty answer of a fetch over its byte-rate quota.
pub(super) fn throttled_reply(peek: HeaderPeek, mode: &Mode, throttle_ms: i64) -> Reply {
    let session_id = match mode {
        Mode::Incremental { session_id, .. } => *session_id,
        Mode::Sessionless | Mode::Full => INVALID_SESSION_ID,
    };
    let response = FetchResponseOut {
        throttle_time_ms: i32::try_from(throttle_ms).unwrap_or(i32::MAX),
        session_id,
        ..Default::default()
    };
    let chunks = write_fetch_response(peek.api_version, peek.correlation_id, &response);
    Reply::sent_then_muted(chunks, throttle_ms)
}

/// Settles the session and writes the response: everything for full and sessionless
/// fetches, only what changed for incremental ones.
pub(super) fn finish(
    broker: &Broker,
    peek: HeaderPeek,
    plan: Plan,
    mode: Mode,
    answer: Answer,
    tally: &mut Tally,
) -> Reply {
    let Answer {
        outs,
        node_endpoints,
        throttle_ms,
    } = answer;
    count(&plan, &outs, tally);
    let outcomes: Vec<Outcome> = outs.iter().map(outcome).collect();
    let (session_id, answered) = match mode {
        Mode::Sessionless | Mode::Full => (INVALID_SESSION_ID, None),
        Mode::Incremental { session_id, epoch } => {
            let keys = plan.targets.iter().map(|t| &t.key);
            let settled = broker.fetch_sessions.lock().finish_incremental(
                session_id,
                epoch,
                keys.zip(outcomes.iter().copied()),
            );
            match settled {
                Ok(answered) => (session_id, Some(answered)),
                // Evicted or closed while this request waited: everything, sessionless.
                Err(Finish::Gone) => (INVALID_SESSION_ID, None),
                Err(Finish::EpochMoved) => {
                    return error_reply(
                        tally,
                        peek,
                        ErrorCode::InvalidFetchSessionEpoch,
                        session_id,
                    )
                }
            }
        }
    };
    let mut response = FetchResponseOut {
        throttle_time_ms: i32::try_from(throttle_ms).unwrap_or(i32::MAX),
        session_id,
        topics: by_topic(&plan.targets, outs, answered.as_deref()),
        node_endpoints,
        ..Default::default()
    };
    if let Mode::Full = mode {
        let cached = plan
            .targets
            .into_iter()
            .zip(outcomes)
            .map(|(t, o)| (t.key, t.params, o));
        response.session_id = broker.fetch_sessions.lock().create_session(
            now_ms(),
            plan.follower.is_some(),
            plan.version >= 13,
            cached,
        );
    }
    let chunks = write_fetch_response(peek.api_version, peek.correlation_id, &response);
    Reply::sent_then_muted(chunks, throttle_ms)
}

/// Kafka's fetch meters: a consumer's bytes and requests per topic, a follower's bytes as
/// replication, and every partition's error code.
fn count(plan: &Plan, outs: &[FetchPartitionOut], tally: &mut Tally) {
    for (target, out) in plan.targets.iter().zip(outs) {
        tally.add(out.error_code);
        let Ok(partition) = &target.partition else {
            continue;
        };
        let metrics = partition.metrics();
        let bytes = out.records.as_ref().map_or(0, |r| r.len() as u64);
        if plan.follower.is_some() {
            metrics.replication_bytes_out.add(bytes);
            continue;
        }
        metrics.fetch_requests.add(1);
        metrics.bytes_out.add(bytes);
        if out.error_code != 0 {
            metrics.failed_fetch_requests.add(1);
        }
    }
}

fn outcome(out: &FetchPartitionOut) -> Outcome {
    Outcome {
        sent: Sent {
            high_watermark: out.high_watermark,
            last_stable_offset: out.last_stable_offset,
            log_start_offset: out.log_start_offset,
        },
        has_records: out.records.as_ref().is_some_and(|r| !r.is_empty()),
        error: out.error_code != 0,
        diverging: out.diverging_epoch.is_some(),
    }
}

/// The answered partitions grouped into topics, consecutive partitions of a topic together
/// (as Kafka's FetchResponse does).
fn by_topic(
    targets: &[Target],
    outs: Vec<FetchPartitionOut>,
    answered: Option<&[bool]>,
) -> Vec<FetchTopicOut> {
    let mut topics: Vec<FetchTopicOut> = Vec::new();
    let mut last: Option<&TopicRef> = None;
    for (i, (target, out)) in targets.iter().zip(outs).enumerate() {
        if answered.is_some_and(|a| !a[i]) {
            continue;
        }
        if last != Some(&target.key.topic) {
            let (topic, topic_id) = match &target.key.topic {
                TopicRef::Name(name) => (name.to_string(), [0; 16]),
                TopicRef::Id(id) => (String::new(), *id),
            };
            topics.push(FetchTopicOut {
                topic,
                topic_id,
                partitions: Vec::new(),
            });
            last = Some(&target.key.topic);
        }
        topics.last_mut().expect("pushed").partitions.push(out);
    }
    topics
}

/// A response with only a top-level error (a session error).
pub(super) fn error_reply(
    tally: &mut Tally,
    peek: HeaderPeek,
    error: ErrorCode,
    session_id: i32,
) -> Reply {
    tally.add(error.code());
    let response = FetchResponseOut {
        error_code: error.code(),
        session_id,
        ..Default::default()
    };
    Reply::Send(write_fetch_response(
        peek.api_version,
        peek.correlation_id,
        &response,
    ))
}
