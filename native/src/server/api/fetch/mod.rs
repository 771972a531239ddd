//! Fetch (v4-18) for consumers and followers, with long polling: when fewer than `min_bytes`
//! are available the request waits on the partitions' progress watches until enough arrive or
//! `max_wait_ms` passes. Record data is answered as file regions (sendfile).
//!
//! Fetch sessions (KIP-227, `crate::server::fetch_session`) decide which partitions a request
//! reads and which its response carries: a full request reads what it names and opens a
//! session; an incremental one reads every partition of its session and answers only those
//! with something new. From v13 topics are named by id (KIP-516). From v16 a partition answered
//! NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH names its leader and that leader's endpoint
//! (KIP-951).
//!
//! Who fetches decides what is read: followers (replica id >= 0) read the leader up to its log
//! end and their fetch offset is their log end offset; consumers read the leader up to the high
//! watermark (or the last stable offset); Kafka's debugging consumer (replica id -2, used by
//! `ferrolog verify-replicas`) reads any replica, leader or follower, up to its high watermark.

mod read;
mod respond;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use kafka_protocol::messages::fetch_request::{FetchTopic, ForgottenTopic};
use kafka_protocol::messages::FetchRequest;
use tokio::sync::watch;

use self::read::{Plan, Target};
use self::respond::{error_reply, finish, hint_leaders, throttled_reply, Answer};
use super::{Call, Reply, Tally};
use crate::acl::{Operation, ResourceType, Session, CLUSTER_NAME};
use crate::error::ErrorCode;
use crate::log::now_ms;
use crate::protocol::fetch_writer::FetchPartitionOut;
use crate::protocol::{decode_request, Chunk};
use crate::quota::{user_of, QuotaType};
use crate::replica::{Partition, Progress, Registry};
use crate::server::fetch_session::{
    Context, FetchMetadata, FetchParams, PartitionKey, TopicRef, INVALID_SESSION_ID,
};
use crate::server::Broker;

/// Fetch v16 added KIP-951's leader hints.
const LEADER_HINT_VERSION: i16 = 16;
const READ_COMMITTED: i8 = 1;
/// Kafka's `DEBUGGING_CONSUMER_ID`: a consumer allowed to read from followers.
const DEBUGGING_CONSUMER: i32 = -2;

/// What the response does with the session once the partitions are read.
enum Mode {
    Sessionless,
    Full,
    Incremental { session_id: i32, epoch: i32 },
}

pub async fn handle(call: Call<'_>) -> Reply {
    let (broker, peek, frame, tally, session, listener) = call.into_parts();
    let started = Instant::now();
    let (header, request) = match decode_request::<FetchRequest>(frame) {
        Ok(decoded) => decoded,
        Err(_) => return Reply::Close,
    };
    let client_id = header.client_id.as_ref().map_or("", |c| c.as_str());
    let version = peek.api_version;
    // v15 moved the replica id into a tagged ReplicaState (KIP-903).
    let replica_id = if version >= 15 {
        request.replica_state.replica_id.0
    } else {
        request.replica_id.0
    };
    let follower = (replica_id >= 0).then_some(replica_id);
    let wanted = requested(version, &request.topics);
    let forgotten = forgotten(version, &request.forgotten_topics_data);
    let meta = FetchMetadata {
        session_id: request.session_id,
        epoch: request.session_epoch,
    };
    let context =
        broker
            .fetch_sessions
            .lock()
            .new_context(version, meta, &wanted, &forgotten, now_ms());
    let (mode, to_read) = match context {
        Context::Error(e) => return error_reply(tally, peek, e, INVALID_SESSION_ID),
        Context::Sessionless => (Mode::Sessionless, wanted),
        Context::Full => (Mode::Full, wanted),
        Context::Incremental {
            session_id,
            epoch,
            partitions,
        } => (Mode::Incremental { session_id, epoch }, partitions),
    };
    // Replication is not subject to client quotas. A consumer under one reads at most what
    // its quota allows over the window, so a single response cannot earn an endless throttle.
    let principal = session.principal_arc();
    let user = user_of(&principal);
    let quota_cap = match follower {
        Some(_) => None,
        None => broker
            .quotas
            .max_value_in_quota_window(QuotaType::Fetch, user, client_id),
    };
    // As Kafka: the broker's fetch.max.bytes bounds every fetch, followers' too.
    let asked = request.max_bytes.min(broker.config.fetch_max_bytes);
    let max_bytes = quota_cap.map_or(asked, |cap| asked.min(cap.min(f64::from(i32::MAX)) as i32));
    // As Kafka: a follower needs CLUSTER_ACTION on the cluster, a consumer READ on each topic.
    let cluster_action = follower.is_some()
        && session.authorize(
            &broker.authorizer,
            Operation::ClusterAction,
            ResourceType::Cluster,
            CLUSTER_NAME,
        );
    let plan = Plan {
        version,
        follower,
        any_replica: replica_id == DEBUGGING_CONSUMER,
        read_committed: request.isolation_level == READ_COMMITTED,
        max_bytes,
        targets: to_read
            .into_iter()
            .map(|(key, params)| Target {
                partition: authorized(
                    broker,
                    session,
                    follower.is_some(),
                    cluster_action,
                    &key,
                    resolve(&broker.partitions, &key),
                ),
                key,
                params,
            })
            .collect(),
    };
    let max_wait = Duration::from_millis(request.max_wait_ms.max(0) as u64);
    let min_bytes = request.min_bytes.min(max_bytes).max(0) as usize;
    let (mut outs, waited) = read_until_ready(&plan, max_wait, min_bytes).await;
    // The request quota meters the time spent reading, not the long poll's wait; followers
    // are exempt (a cluster action in Kafka).
    let request_throttle_ms = match follower {
        Some(_) => 0,
        None => broker.quotas.record_request_time(
            user,
            client_id,
            started.elapsed().saturating_sub(waited),
            now_ms(),
        ),
    };
    if quota_cap.is_some() {
        let bytes: usize = outs
            .iter()
            .filter_map(|o| o.records.as_ref())
            .map(Chunk::len)
            .sum();
        let now = now_ms();
        let quotas = &broker.quotas;
        let throttle_ms = quotas.record_and_get_throttle_time_ms(
            QuotaType::Fetch,
            user,
            client_id,
            bytes as f64,
            now,
        );
        if throttle_ms > 0 {
            // Over quota: no data for the throttle time (what was read is not counted), as
            // Kafka answers; the session, if any, stays as it was.
            quotas.unrecord(QuotaType::Fetch, user, client_id, bytes as f64, now);
            return throttled_reply(peek, &mode, throttle_ms.max(request_throttle_ms));
        }
    }
    let node_endpoints = if version >= LEADER_HINT_VERSION {
        hint_leaders(broker, listener, &plan, &mut outs)
    } else {
        Vec::new()
    };
    let answer = Answer {
        outs,
        node_endpoints,
        throttle_ms: request_throttle_ms,
    };
    finish(broker, peek, plan, mode, answer, tally)
}

/// The request's partitions, in its order. Topic names are shared by their partitions.
fn requested(version: i16, topics: &[FetchTopic]) -> Vec<(PartitionKey, FetchParams)> {
    let mut wanted = Vec::new();
    for t in topics {
        let topic = topic_ref(version, t.topic.0.as_str(), t.topic_id.as_bytes());
        for p in &t.partitions {
            let params = FetchParams {
                fetch_offset: p.fetch_offset,
                log_start_offset: p.log_start_offset,
                max_bytes: p.partition_max_bytes,
                current_leader_epoch: p.current_leader_epoch,
                last_fetched_epoch: p.last_fetched_epoch,
            };
            let key = PartitionKey {
                topic: topic.clone(),
                partition: p.partition,
            };
            wanted.push((key, params));
        }
    }
    wanted
}

fn forgotten(version: i16, topics: &[ForgottenTopic]) -> Vec<PartitionKey> {
    topics
        .iter()
        .flat_map(|t| {
            let topic = topic_ref(version, t.topic.0.as_str(), t.topic_id.as_bytes());
            t.partitions.iter().map(move |&partition| PartitionKey {
                topic: topic.clone(),
                partition,
            })
        })
        .collect()
}

fn topic_ref(version: i16, name: &str, id: &[u8; 16]) -> TopicRef {
    if version >= 13 {
        TopicRef::Id(*id)
    } else {
        TopicRef::Name(Arc::from(name))
    }
}

fn resolve(registry: &Registry, key: &PartitionKey) -> Result<Arc<Partition>, ErrorCode> {
    match &key.topic {
        TopicRef::Name(name) => registry
            .get(name, key.partition)
            .ok_or(ErrorCode::UnknownTopicOrPartition),
        TopicRef::Id(id) => registry.get_by_id(id, key.partition),
    }
}

/// `resolved` if the fetcher may read the partition, else TOPIC_AUTHORIZATION_FAILED. An
/// unknown topic id is answered as such first, as Kafka does (it has no name to check).
fn authorized(
    broker: &Broker,
    session: &mut Session,
    follower: bool,
    cluster_action: bool,
    key: &PartitionKey,
    resolved: Result<Arc<Partition>, ErrorCode>,
) -> Result<Arc<Partition>, ErrorCode> {
    if !broker.authorizer.enabled() {
        return resolved;
    }
    let allowed = if follower {
        cluster_action
    } else {
        let name = match (&key.topic, &resolved) {
            (TopicRef::Name(name), _) => Some(&**name),
            (TopicRef::Id(_), Ok(partition)) => Some(partition.topic()),
            (TopicRef::Id(_), Err(_)) => None,
        };
        name.is_none_or(|name| {
            session.authorize(
                &broker.authorizer,
                Operation::Read,
                ResourceType::Topic,
                name,
            )
        })
    };
    if allowed {
        resolved
    } else {
        Err(ErrorCode::TopicAuthorizationFailed)
    }
}

/// Reads until `min_bytes` are there, a partition fails, or `max_wait` passes.
async fn read_until_ready(
    plan: &Plan,
    max_wait: Duration,
    min_bytes: usize,
) -> (Vec<FetchPartitionOut>, Duration) {
    let mut waited = Duration::ZERO;
    let deadline = tokio::time::Instant::now() + max_wait;
    // Subscribe before the first read so a produce landing between the read and the wait is
    // not missed.
    let mut watches: Vec<watch::Receiver<Progress>> = plan
        .targets
        .iter()
        .filter_map(|t| t.partition.as_ref().ok().map(|p| p.subscribe()))
        .collect();
    let mut first = true;
    loop {
        for w in watches.iter_mut() {
            w.mark_unchanged();
        }
        let pass = plan.read_all(first);
        first = false;
        if pass.bytes >= min_bytes
            || pass.any_error
            || watches.is_empty()
            || tokio::time::Instant::now() >= deadline
        {
            return (pass.partitions, waited);
        }
        let wait_began = Instant::now();
        let timed_out = tokio::time::timeout_at(deadline, any_changed(&mut watches))
            .await
            .is_err();
        waited += wait_began.elapsed();
        if timed_out {
            return (plan.read_all(false).partitions, waited);
        }
    }
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
