//! ShareFetch (key 78, v1-2): a share group member's fetch. The session is settled first (Kafka's
//! share session epochs), piggybacked acknowledgements are applied and written, then each
//! share-partition of the session acquires records for the member: those available again
//! first, then whole log batches from the end of its window, within what one read of the log
//! brought (so every record acquired is in the response). With nothing to acquire the request
//! waits, up to MaxWaitMs, for new records or for records released, acknowledged or timed out.
//! v2 (KIP-1206, KIP-1222): the record_limit acquire mode (never more than MaxRecords, the
//! rest of a batch left available), and RENEW acknowledgements, whose fetch fetches nothing (a
//! long poll would eat the time the renewed locks give).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use bytes::Bytes;
use kafka_protocol::messages::share_fetch_response::{
    AcquiredRecords, LeaderIdAndEpoch, PartitionData, ShareFetchableTopicResponse,
};
use kafka_protocol::messages::{ShareFetchRequest, ShareFetchResponse};
use kafka_protocol::protocol::StrBytes;
use uuid::Uuid;

use super::acquire::{acquire_one, reset_offset};
use super::{apply_acks, by_topic, checked, release, resolve, written, AckBatch};
use crate::error::ErrorCode;
use crate::log::now_ms;
use crate::protocol::decode_request_added;
use crate::quota::{user_of, QuotaType};
use crate::replica::Partition;
use crate::server::api::{Call, Reply};
use crate::server::Broker;
use crate::share::manager::member_key;
use crate::share::session::TopicPartition;
use crate::share::{AcquireMode, GroupSettings, Loaded, SharePartition, SpEntry, SpKey};

/// A share-partition of the session, ready to acquire from, or why not.
type Target = (
    TopicPartition,
    Result<(Arc<Partition>, Arc<SpEntry>), ErrorCode>,
);

/// One share-partition's answer.
#[derive(Default)]
pub(super) struct Out {
    pub error: Option<ErrorCode>,
    pub records: Bytes,
    pub acquired: Vec<(i64, i64, u16)>,
    pub leader: Option<(i32, i32)>,
}

pub async fn handle(call: Call<'_>) -> Reply {
    let Call {
        broker,
        peek,
        frame,
        tally,
        session,
        connection_id,
        ..
    } = call;
    let started = Instant::now();
    let Ok((header, request, added)) = decode_request_added::<ShareFetchRequest>(frame) else {
        return Reply::Close;
    };
    let client_id = header
        .client_id
        .as_ref()
        .map_or("", |c| c.as_str())
        .to_string();
    let refuse = |tally: &mut _, error: ErrorCode, message: Option<String>| {
        let response = ShareFetchResponse::default()
            .with_error_code(error.code())
            .with_error_message(message.map(StrBytes::from_string));
        Reply::counted(tally, [error.code()], &peek, &response)
    };
    let top = |tally: &mut _, error: ErrorCode| refuse(tally, error, None);
    let (group, member) = match checked(broker, session, &request.group_id, &request.member_id) {
        Ok(names) => names,
        Err(e) => return top(tally, e),
    };
    let (exact, renew) = match mode(&added, &request) {
        Ok(mode) => mode,
        Err(message) => return refuse(tally, ErrorCode::InvalidRequest, Some(message)),
    };
    let mut requested = Vec::new();
    let mut acks = Vec::new();
    for t in &request.topics {
        let topic_id = *t.topic_id.as_bytes();
        for p in &t.partitions {
            let tp = (topic_id, p.partition_index);
            requested.push(tp);
            if !p.acknowledgement_batches.is_empty() {
                let batches = p
                    .acknowledgement_batches
                    .iter()
                    .map(|b| AckBatch::new(b.first_offset, b.last_offset, &b.acknowledge_types))
                    .collect();
                acks.push((tp, batches));
            }
        }
    }
    let forgotten: Vec<TopicPartition> = request
        .forgotten_topics_data
        .iter()
        .flat_map(|t| t.partitions.iter().map(|&p| (*t.topic_id.as_bytes(), p)))
        .collect();
    let epoch = request.share_session_epoch;
    if epoch == 0 && !acks.is_empty() {
        // A new session has nothing acquired to acknowledge.
        return top(tally, ErrorCode::InvalidRequest);
    }
    let max_wait = Duration::from_millis(request.max_wait_ms.max(0) as u64);
    let context = broker.share.sessions.lock().fetch(
        &group,
        &member,
        epoch,
        connection_id,
        &requested,
        &forgotten,
        broker.share.max_sessions(),
    );
    let context = match context {
        Ok(c) => c,
        Err(ErrorCode::ShareSessionLimitReached) => {
            // As Kafka: the refusal comes after the wait, so a client does not spin on it.
            tokio::time::sleep(max_wait).await;
            return top(tally, ErrorCode::ShareSessionLimitReached);
        }
        Err(e) => return top(tally, e),
    };
    let acked: Vec<TopicPartition> = acks.iter().map(|(tp, _)| *tp).collect();
    let applied = apply_acks(broker, session, &group, &member, acks, renew).await;
    if context.closing {
        broker.share.sessions.lock().close(&group, &member);
    }
    let settings = broker.share.settings(&group);
    let fetching = !context.closing && !renew && request.max_records > 0 && request.max_bytes > 0;
    // As Kafka: a client under a fetch quota gets at most what the quota allows over its window.
    let principal = session.principal_arc();
    let user = user_of(&principal);
    let quota_cap = broker
        .quotas
        .max_value_in_quota_window(QuotaType::Fetch, user, &client_id);
    let asked = request.max_bytes.min(broker.config.fetch_max_bytes).max(0);
    let bytes = quota_cap.map_or(asked, |cap| asked.min(cap.min(f64::from(i32::MAX)) as i32));
    let mut targets: Vec<Target> = Vec::new();
    if fetching {
        let mut order = context.partitions.clone();
        // Kafka rotates the partitions by the session epoch, so that a small MaxRecords does
        // not starve the last ones.
        if !order.is_empty() {
            let by = (epoch.max(0) as usize) % order.len();
            order.rotate_left(by);
        }
        targets = order
            .into_iter()
            .map(|tp| (tp, target(broker, session, &group, &tp)))
            .collect();
    }
    let mode = if exact {
        AcquireMode::Exact
    } else {
        AcquireMode::Batches {
            batch_size: i64::from(request.batch_size.max(1)),
        }
    };
    let budget = Budget {
        records: i64::from(request.max_records),
        bytes: bytes as usize,
        mode,
    };
    // The acknowledgements' write and the fetch go on together; the answer waits for both.
    let fetched = async {
        if targets.is_empty() {
            return (Vec::new(), Duration::ZERO);
        }
        load(broker, &group, settings, &mut targets).await;
        acquire_until_ready(&targets, &member, settings, budget, max_wait).await
    };
    let (ack_errors, (outs, waited)) = tokio::join!(written(broker, &group, applied), fetched);
    if context.closing {
        release(
            broker,
            Arc::clone(&group),
            Arc::clone(&member),
            context.partitions.clone(),
        );
    }
    let record_bytes: usize = outs.iter().map(|(_, o)| o.records.len()).sum();
    let now = now_ms();
    let quotas = &broker.quotas;
    let busy = started.elapsed().saturating_sub(waited);
    let throttle_ms = quotas
        .record_and_get_throttle_time_ms(
            QuotaType::Fetch,
            user,
            &client_id,
            record_bytes as f64,
            now,
        )
        .max(quotas.record_request_time(user, &client_id, busy, now));
    // A new session answers every partition; an incremental one those with records or an
    // error, the newly added and the acknowledged.
    let mut answered: Vec<(TopicPartition, Out)> = Vec::new();
    for (tp, out) in outs {
        let listed = epoch == 0 || context.announce.contains(&tp) || acked.contains(&tp);
        if listed || out.error.is_some() || !out.acquired.is_empty() {
            answered.push((tp, out));
        }
    }
    for tp in context.announce.iter().chain(acked.iter()) {
        if !answered.iter().any(|(t, _)| t == tp) {
            answered.push((*tp, Out::default()));
        }
    }
    let codes = answered
        .iter()
        .map(|(_, out)| out.error.map_or(0, ErrorCode::code))
        .collect::<Vec<_>>();
    let partitions = answered.into_iter().map(|(tp, out)| {
        let ack_error = ack_errors.get(&tp).copied().unwrap_or(ErrorCode::None);
        (tp.0, partition_data(tp.1, out, ack_error))
    });
    let topics = by_topic(partitions)
        .into_iter()
        .map(|(id, partitions)| {
            ShareFetchableTopicResponse::default()
                .with_topic_id(Uuid::from_bytes(id))
                .with_partitions(partitions)
        })
        .collect();
    // Unlike Kafka (which drops a throttled response's records and leaves them locked until
    // their locks time out, a delivery attempt lost), the records go out and the connection
    // is muted for the throttle time: the client is held to its quota all the same.
    let response = ShareFetchResponse::default()
        .with_throttle_time_ms(i32::try_from(throttle_ms).unwrap_or(i32::MAX))
        .with_acquisition_lock_timeout_ms(settings.limits.lock_ms.min(i32::MAX as u64) as i32)
        .with_responses(topics);
    Reply::counted(tally, codes, &peek, &response).muted_for(throttle_ms)
}

fn partition_data(index: i32, out: Out, ack_error: ErrorCode) -> PartitionData {
    let error = out.error.unwrap_or(ErrorCode::None);
    let (leader_id, leader_epoch) = out.leader.unwrap_or((-1, -1));
    let acquired = out.acquired.iter().map(|&(first, last, count)| {
        AcquiredRecords::default()
            .with_first_offset(first)
            .with_last_offset(last)
            .with_delivery_count(count.min(i16::MAX as u16) as i16)
    });
    PartitionData::default()
        .with_partition_index(index)
        .with_error_code(error.code())
        .with_acknowledge_error_code(ack_error.code())
        .with_current_leader(
            LeaderIdAndEpoch::default()
                .with_leader_id(leader_id)
                .with_leader_epoch(leader_epoch),
        )
        .with_records(Some(out.records))
        .with_acquired_records(acquired.collect())
}

/// The share-partition of `tp` if this broker leads it and the principal may read it.
fn target(
    broker: &Broker,
    session: &mut crate::acl::Session,
    group: &Arc<str>,
    tp: &TopicPartition,
) -> Result<(Arc<Partition>, Arc<SpEntry>), ErrorCode> {
    let partition = resolve(broker, session, tp)?;
    partition.check_leader_epoch(-1)?;
    let key = SpKey {
        group: Arc::clone(group),
        topic_id: tp.0,
        partition: tp.1,
    };
    let entry = broker.share.entry(&key, partition.topic());
    Ok((partition, entry))
}

/// Reads the state of the share-partitions not loaded yet from their share coordinators, in
/// one request; those it fails for answer the error.
async fn load(broker: &Broker, group: &Arc<str>, settings: GroupSettings, targets: &mut [Target]) {
    let mut need: Vec<(usize, Arc<Partition>, Arc<SpEntry>)> = Vec::new();
    for (i, (_, t)) in targets.iter().enumerate() {
        if let Ok((p, entry)) = t {
            let stale = match entry.state.try_lock() {
                Ok(state) => match &*state {
                    None => true,
                    Some(loaded) => p.leader_epoch() != loaded.leader_epoch,
                },
                // Being loaded or used: taken in turn below.
                Err(_) => true,
            };
            if stale {
                need.push((i, Arc::clone(p), Arc::clone(entry)));
            }
        }
    }
    if need.is_empty() {
        return;
    }
    // One lock order for every loader, so two fetches cannot wait on each other.
    need.sort_by_key(|(_, _, e)| (e.key.topic_id, e.key.partition));
    let mut guards = Vec::with_capacity(need.len());
    for (i, p, entry) in &need {
        let mut guard = entry.state.lock().await;
        let epoch = p.leader_epoch();
        if guard.as_ref().is_some_and(|l| l.leader_epoch != epoch) {
            // Led again after another leader: its state is the share coordinator's.
            *guard = None;
        }
        if guard.is_none() {
            guards.push((*i, Arc::clone(p), entry.key.clone(), epoch, guard));
        }
    }
    if guards.is_empty() {
        return;
    }
    let asks: Vec<(SpKey, i32)> = guards
        .iter()
        .map(|(_, _, key, epoch, _)| (key.clone(), *epoch))
        .collect();
    let mut states = super::persist::read(broker, group, &asks).await;
    for (i, p, key, epoch, mut guard) in guards {
        match states.remove(&key) {
            Some(Ok(read)) => {
                let start = if read.start_offset < 0 {
                    reset_offset(&p, settings.auto_reset)
                } else {
                    read.start_offset
                };
                *guard = Some(Loaded {
                    partition: SharePartition::load(start, &read.batches, settings.limits),
                    state_epoch: read.state_epoch,
                    leader_epoch: epoch,
                });
            }
            Some(Err(e)) => targets[i].1 = Err(e),
            None => targets[i].1 = Err(ErrorCode::CoordinatorNotAvailable),
        }
    }
}

/// What a response may still carry: records to acquire, record bytes; and how new records
/// are acquired.
#[derive(Clone, Copy)]
pub(super) struct Budget {
    pub records: i64,
    pub bytes: usize,
    pub mode: AcquireMode,
}

/// ShareAcquireMode's batch_optimized and record_limit.
const BATCH_OPTIMIZED: u8 = 0;
const RECORD_LIMIT: u8 = 1;

/// v2's added fields: whether the acquire mode is record_limit and IsRenewAck, or the
/// top-level refusal (an unknown mode; a renewal that asks for records or a wait).
fn mode(added: &[u8], request: &ShareFetchRequest) -> Result<(bool, bool), String> {
    let (mode, renew) = match added {
        [mode, renew] => (*mode, *renew != 0),
        _ => (BATCH_OPTIMIZED, false),
    };
    if mode != BATCH_OPTIMIZED && mode != RECORD_LIMIT {
        return Err(format!("Unknown share acquire mode {mode}."));
    }
    if renew {
        // Kafka's words (KIP-1222).
        let fields = [
            ("maxBytes", request.max_bytes),
            ("minBytes", request.min_bytes),
            ("maxRecords", request.max_records),
            ("maxWaitMs", request.max_wait_ms),
        ];
        let wrong: String = fields
            .iter()
            .filter(|(_, value)| *value != 0)
            .map(|(name, _)| format!("{name} must be set to 0, "))
            .collect();
        if !wrong.is_empty() {
            return Err(format!("{wrong}if isRenewAck is true."));
        }
    }
    Ok((mode == RECORD_LIMIT, renew))
}

/// Acquires until some record is acquired, a share-partition fails, or `max_wait` passes,
/// waking when a partition's log grows or a share-partition's records change.
async fn acquire_until_ready(
    targets: &[Target],
    member: &str,
    settings: GroupSettings,
    budget: Budget,
    max_wait: Duration,
) -> (Vec<(TopicPartition, Out)>, Duration) {
    let owner = member_key(member);
    let deadline = tokio::time::Instant::now() + max_wait;
    let mut waited = Duration::ZERO;
    loop {
        // Listen before looking, so a change between the pass and the wait is not missed.
        let mut watches: Vec<_> = targets
            .iter()
            .filter_map(|(_, t)| t.as_ref().ok().map(|(p, _)| p.subscribe()))
            .collect();
        let mut notified: Vec<_> = targets
            .iter()
            .filter_map(|(_, t)| t.as_ref().ok().map(|(_, e)| Box::pin(e.changed.notified())))
            .collect();
        for n in notified.iter_mut() {
            n.as_mut().enable();
        }
        for w in watches.iter_mut() {
            w.mark_unchanged();
        }
        let outs = acquire_pass(targets, owner, settings, budget).await;
        let done = outs
            .iter()
            .any(|(_, o)| o.error.is_some() || !o.acquired.is_empty());
        if done || notified.is_empty() || tokio::time::Instant::now() >= deadline {
            return (outs, waited);
        }
        let mut waits: Vec<Pin<Box<dyn Future<Output = ()> + Send + '_>>> = Vec::new();
        for w in watches.iter_mut() {
            waits.push(Box::pin(async move {
                let _ = w.changed().await;
            }));
        }
        for n in notified {
            waits.push(Box::pin(n));
        }
        let any = std::future::poll_fn(move |cx| {
            for f in waits.iter_mut() {
                if f.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(());
                }
            }
            Poll::Pending
        });
        let wait_began = Instant::now();
        let timed_out = tokio::time::timeout_at(deadline, any).await.is_err();
        waited += wait_began.elapsed();
        if timed_out {
            return (acquire_pass(targets, owner, settings, budget).await, waited);
        }
    }
}

async fn acquire_pass(
    targets: &[Target],
    owner: u64,
    settings: GroupSettings,
    mut budget: Budget,
) -> Vec<(TopicPartition, Out)> {
    let now = now_ms().max(0) as u64;
    let mut outs = Vec::with_capacity(targets.len());
    let mut any_data = false;
    for (tp, target) in targets {
        let out = match target {
            Err(e) => Out {
                error: Some(*e),
                ..Out::default()
            },
            Ok((_, _)) if budget.records <= 0 || budget.bytes == 0 => Out::default(),
            Ok((p, entry)) => {
                let mut state = entry.state.lock().await;
                match state.as_mut() {
                    // Dropped since it was loaded (a failed write): read again next time.
                    None => Out::default(),
                    Some(loaded) => {
                        let expired = loaded.partition.expire_locks(now);
                        entry
                            .lock_timeouts
                            .fetch_add(expired.max(0) as u64, Ordering::Relaxed);
                        let out = acquire_one(p, loaded, owner, now, settings, budget, !any_data);
                        if out.error == Some(ErrorCode::NotLeaderOrFollower) {
                            *state = None;
                        }
                        out
                    }
                }
            }
        };
        let count: i64 = out.acquired.iter().map(|(f, l, _)| l - f + 1).sum();
        budget.records -= count;
        budget.bytes = budget.bytes.saturating_sub(out.records.len());
        any_data |= !out.records.is_empty();
        outs.push((*tp, out));
    }
    outs
}
