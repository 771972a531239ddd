//! ShareFetch and ShareAcknowledge (KIP-932), served natively: the partition leader hands a
//! share group's records to its members and takes their acknowledgements, with the state of
//! each share-partition (`crate::share`) kept here and persisted by the share coordinators
//! (`persist`). Python sees a group's state writes (joined, one request per round trip) and
//! a share-partition's first read, never a fetched or acknowledged batch.
//!
//! What both share: the request's checks in Kafka's order, the acknowledgements (piggybacked
//! on a ShareFetch or in a ShareAcknowledge), and releasing a member's records when its
//! session closes.

pub mod acknowledge;
mod acquire;
pub mod fetch;
mod persist;

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use kafka_protocol::messages::GroupId;
use kafka_protocol::protocol::StrBytes;

use crate::acl::{Operation, ResourceType, Session};
use crate::error::ErrorCode;
use crate::log::now_ms;
use crate::replica::Partition;
use crate::server::Broker;
use crate::share::manager::member_key;
use crate::share::session::TopicPartition;
use crate::share::{AckType, SpEntry, SpKey};

/// Kafka's limit on a member id's length (a UUID's).
const MAX_MEMBER_ID: usize = 36;
/// How often lock timeouts are looked for: locks last at least a second (Kafka's bound on
/// `group.share.record.lock.duration.ms`), 30 s by default.
const SWEEP_INTERVAL: Duration = Duration::from_millis(250);

/// The group and member of a share request once Kafka's request-wide checks pass, else the
/// top-level error: share groups off (UNSUPPORTED_VERSION), no group (INVALID_REQUEST), no
/// READ on the group, a missing or overlong member id (INVALID_REQUEST).
fn checked(
    broker: &Broker,
    session: &mut Session,
    group: &Option<GroupId>,
    member: &Option<StrBytes>,
) -> Result<(Arc<str>, Arc<str>), ErrorCode> {
    if !broker.share.enabled() {
        return Err(ErrorCode::UnsupportedVersion);
    }
    let group = group.as_ref().ok_or(ErrorCode::InvalidRequest)?.0.as_str();
    let member = member.as_ref().map(|m| m.as_str());
    if !session.authorize(
        &broker.authorizer,
        Operation::Read,
        ResourceType::Group,
        group,
    ) {
        return Err(ErrorCode::GroupAuthorizationFailed);
    }
    match member {
        Some(m) if !m.is_empty() && m.chars().count() <= MAX_MEMBER_ID => {
            Ok((Arc::from(group), Arc::from(m)))
        }
        _ => Err(ErrorCode::InvalidRequest),
    }
}

/// The partition a share request names, if this broker has it and the principal may read it.
fn resolve(
    broker: &Broker,
    session: &mut Session,
    tp: &TopicPartition,
) -> Result<Arc<Partition>, ErrorCode> {
    let partition = broker.partitions.get_by_id(&tp.0, tp.1)?;
    if !session.authorize(
        &broker.authorizer,
        Operation::Read,
        ResourceType::Topic,
        partition.topic(),
    ) {
        return Err(ErrorCode::TopicAuthorizationFailed);
    }
    Ok(partition)
}

/// One acknowledgement batch: offsets and their types (one for the whole range, or one per
/// offset).
pub(super) struct AckBatch {
    pub first: i64,
    pub last: i64,
    pub types: Vec<i8>,
}

impl AckBatch {
    fn new(first: i64, last: i64, types: &[i8]) -> AckBatch {
        AckBatch {
            first,
            last,
            types: types.to_vec(),
        }
    }
}

/// Items by topic id, topics in the order first seen.
pub(super) fn by_topic<T>(
    items: impl IntoIterator<Item = ([u8; 16], T)>,
) -> Vec<([u8; 16], Vec<T>)> {
    let mut topics: Vec<([u8; 16], Vec<T>)> = Vec::new();
    for (topic_id, item) in items {
        match topics.iter_mut().find(|(t, _)| *t == topic_id) {
            Some((_, list)) => list.push(item),
            None => topics.push((topic_id, vec![item])),
        }
    }
    topics
}

/// Kafka's `validateAcknowledgementBatches`: INVALID_REQUEST for a range backwards or before
/// the previous one's end, no types, a count of types that is neither one nor the range's
/// length, or an unknown type (RENEW only in a v2 request that says IsRenewAck).
fn valid(batches: &[AckBatch], renew: bool) -> bool {
    let highest = if renew {
        AckType::Renew
    } else {
        AckType::Reject
    } as i8;
    let mut previous_last: Option<i64> = None;
    for b in batches {
        if b.first > b.last || previous_last.is_some_and(|p| b.first < p) {
            return false;
        }
        let span = (b.last - b.first).saturating_add(1);
        if b.types.is_empty() || (b.types.len() > 1 && b.types.len() as i64 != span) {
            return false;
        }
        if b.types.iter().any(|&t| !(0..=highest).contains(&t)) {
            return false;
        }
        previous_last = Some(b.last);
    }
    true
}

/// Applies a member's acknowledgements, partition by partition (all of a partition's or none),
/// writes what changed to the share coordinators, and answers each partition's error once the
/// write is done.
async fn acknowledge_all(
    broker: &Arc<Broker>,
    session: &mut Session,
    group: &Arc<str>,
    member: &str,
    acks: Vec<(TopicPartition, Vec<AckBatch>)>,
    renew: bool,
) -> HashMap<TopicPartition, ErrorCode> {
    let applied = apply_acks(broker, session, group, member, acks, renew).await;
    written(broker, group, applied).await
}

/// Acknowledgements applied in memory: each refused partition's error, and the share-partitions
/// they changed, whose new state is yet to be written.
pub(super) struct Applied {
    errors: HashMap<TopicPartition, ErrorCode>,
    changed: Vec<(TopicPartition, Arc<SpEntry>)>,
}

/// The first half of [`acknowledge_all`]: a ShareFetch fetches while the write goes out.
/// `renew`: the request's IsRenewAck.
async fn apply_acks(
    broker: &Arc<Broker>,
    session: &mut Session,
    group: &Arc<str>,
    member: &str,
    acks: Vec<(TopicPartition, Vec<AckBatch>)>,
    renew: bool,
) -> Applied {
    let owner = member_key(member);
    let renew_enabled = broker.share.settings(group).renew;
    let now = now_ms().max(0) as u64;
    let mut errors = HashMap::new();
    let mut changed: Vec<(TopicPartition, Arc<SpEntry>)> = Vec::new();
    for (tp, batches) in acks {
        if batches.is_empty() {
            errors.insert(tp, ErrorCode::None);
            continue;
        }
        if let Err(e) = broker.partitions.get_by_id(&tp.0, tp.1) {
            errors.insert(tp, e);
            continue;
        }
        if !valid(&batches, renew) {
            errors.insert(tp, ErrorCode::InvalidRequest);
            continue;
        }
        if let Err(e) = resolve(broker, session, &tp) {
            errors.insert(tp, e);
            continue;
        }
        let key = SpKey {
            group: Arc::clone(group),
            topic_id: tp.0,
            partition: tp.1,
        };
        let Some(entry) = broker.share.existing(&key) else {
            errors.insert(tp, ErrorCode::UnknownTopicOrPartition);
            continue;
        };
        let outcome = {
            let mut state = entry.state.lock().await;
            match state.as_mut() {
                None => Err(ErrorCode::UnknownTopicOrPartition),
                Some(loaded) => {
                    let before = loaded.partition.clone();
                    let applied = apply(&mut loaded.partition, owner, &batches, renew_enabled, now);
                    if applied.is_err() {
                        loaded.partition = before;
                    }
                    applied
                }
            }
        };
        // A renewal changes no state the share coordinator keeps (acquired is written as
        // available): nothing to write.
        let renewal = batches.iter().all(|b| {
            b.types
                .iter()
                .all(|&t| AckType::from_code(t) == Some(AckType::Renew))
        });
        match outcome {
            Ok(()) if renewal => {
                errors.insert(tp, ErrorCode::None);
            }
            Ok(()) => changed.push((tp, entry)),
            Err(e) => {
                errors.insert(tp, e);
            }
        }
    }
    Applied { errors, changed }
}

/// The second half of [`acknowledge_all`]: every partition's answer once the write is done.
async fn written(
    broker: &Arc<Broker>,
    group: &Arc<str>,
    applied: Applied,
) -> HashMap<TopicPartition, ErrorCode> {
    let Applied {
        mut errors,
        changed,
    } = applied;
    if !changed.is_empty() {
        let entries = changed.iter().map(|(_, e)| Arc::clone(e)).collect();
        let codes = persist::persist(broker, group, entries).await;
        for (tp, entry) in changed {
            let code = codes.get(&entry.key).copied().unwrap_or(0);
            let error = if code == 0 {
                ErrorCode::None
            } else {
                persist::persister_error(code)
            };
            entry.changed.notify_waiters();
            errors.insert(tp, error);
        }
    }
    errors
}

/// One partition's acknowledgements, in order; the first refused stops them (the caller puts
/// the share-partition back as it was). RENEW with the group's share.renew.acknowledge.enable
/// off is INVALID_RECORD_STATE, as Kafka.
fn apply(
    partition: &mut crate::share::SharePartition,
    owner: u64,
    batches: &[AckBatch],
    renew_enabled: bool,
    now: u64,
) -> Result<(), ErrorCode> {
    let ack_type = |code: i8| match AckType::from_code(code) {
        None => Err(ErrorCode::InvalidRequest),
        Some(AckType::Renew) if !renew_enabled => Err(ErrorCode::InvalidRecordState),
        Some(ack) => Ok(ack),
    };
    for b in batches {
        if b.last >= partition.end_offset() {
            // Kafka: offsets beyond what was ever handed out.
            return Err(ErrorCode::InvalidRequest);
        }
        let start = partition.start_offset();
        if b.last < start {
            // Done with already (the start moved past them): nothing to do.
            continue;
        }
        if b.types.len() == 1 {
            let ack = ack_type(b.types[0])?;
            partition
                .acknowledge(owner, b.first.max(start), b.last, ack, now)
                .map_err(|_| ErrorCode::InvalidRecordState)?;
            continue;
        }
        for (i, &t) in b.types.iter().enumerate() {
            let offset = b.first + i as i64;
            if offset < partition.start_offset() {
                continue;
            }
            let ack = ack_type(t)?;
            partition
                .acknowledge(owner, offset, offset, ack, now)
                .map_err(|_| ErrorCode::InvalidRecordState)?;
        }
    }
    Ok(())
}

/// A member's session closed: what it holds in those share-partitions is available again
/// (archived at the delivery limit), and that is written. Not awaited by the response, as in
/// Kafka.
fn release(
    broker: &Arc<Broker>,
    group: Arc<str>,
    member: Arc<str>,
    partitions: Vec<TopicPartition>,
) {
    let broker = Arc::clone(broker);
    tokio::spawn(async move {
        let owner = member_key(&member);
        let mut changed = Vec::new();
        for tp in partitions {
            let key = SpKey {
                group: Arc::clone(&group),
                topic_id: tp.0,
                partition: tp.1,
            };
            let Some(entry) = broker.share.existing(&key) else {
                continue;
            };
            let released = match entry.state.lock().await.as_mut() {
                Some(loaded) => loaded.partition.release_member(owner),
                None => false,
            };
            if released {
                entry.changed.notify_waiters();
                changed.push(entry);
            }
        }
        if !changed.is_empty() {
            persist::persist(&broker, &group, changed).await;
        }
    });
}

/// A connection closed: the share sessions it opened go, and their members' records with
/// them.
pub fn connection_closed(broker: &Arc<Broker>, connection_id: u64) {
    if broker.share.sessions.lock().is_empty() {
        return;
    }
    let gone = broker
        .share
        .sessions
        .lock()
        .connection_closed(connection_id);
    for (group, member, partitions) in gone {
        release(broker, group, member, partitions);
    }
}

/// Runs until the broker stops: records whose acquisition lock ran out become available again
/// (or archived at the delivery limit), waiting fetches are woken, and the change is written.
pub async fn sweep_share_locks(broker: Arc<Broker>) {
    let mut tick = tokio::time::interval(SWEEP_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if broker.is_shutting_down() {
            return;
        }
        // Share-partitions of deleted topics, or of partitions another broker leads now, are
        // of no use here: forgotten (their state is the share coordinator's).
        broker.share.retain(|key| {
            broker
                .partitions
                .get_by_id(&key.topic_id, key.partition)
                .is_ok_and(|p| p.leader_epoch_if_leader().is_ok())
        });
        let now = now_ms().max(0) as u64;
        let mut by_group: HashMap<Arc<str>, Vec<Arc<SpEntry>>> = HashMap::new();
        for entry in broker.share.all() {
            let Ok(mut state) = entry.state.try_lock() else {
                continue;
            };
            let expired = state
                .as_mut()
                .map_or(0, |loaded| loaded.partition.expire_locks(now));
            drop(state);
            if expired > 0 {
                entry
                    .lock_timeouts
                    .fetch_add(expired as u64, Ordering::Relaxed);
                entry.changed.notify_waiters();
                by_group
                    .entry(Arc::clone(&entry.key.group))
                    .or_default()
                    .push(entry);
            }
        }
        for (group, entries) in by_group {
            let broker = Arc::clone(&broker);
            tokio::spawn(async move {
                persist::persist(&broker, &group, entries).await;
            });
        }
    }
}
