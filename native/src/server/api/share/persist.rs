//! Share-partition state to and from the share coordinators (Kafka's persister), through the
//! control plane: a ReadShareGroupState when a share-partition is loaded, a
//! WriteShareGroupState when acknowledgements, releases or lock timeouts changed it. The
//! control plane finds each share-partition's coordinator, on this broker or another.
//!
//! Writes are joined per group: while one WriteShareGroupState of a group is out, the
//! share-partitions changed meanwhile wait, and the next request carries them all, each as it
//! is when that request is built. So the control plane sees one request per round trip of a
//! group however many acknowledgements arrive, and an acknowledgement is answered only once a
//! write that includes it is on the share coordinator's log.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use kafka_protocol::messages::read_share_group_state_request::{self as read_req};
use kafka_protocol::messages::write_share_group_state_request::{self as write_req};
use kafka_protocol::messages::{
    ApiKey, ReadShareGroupStateRequest, ReadShareGroupStateResponse, WriteShareGroupStateRequest,
    WriteShareGroupStateResponse,
};
use kafka_protocol::protocol::StrBytes;
use tokio::sync::oneshot;
use uuid::Uuid;

use super::by_topic;
use crate::error::ErrorCode;
use crate::server::api::ask_control;
use crate::server::Broker;
use crate::share::manager::WriteCodes;
use crate::share::{SpEntry, SpKey, StateBatch};

const READ: i16 = ApiKey::ReadShareGroupState as i16;
const WRITE: i16 = ApiKey::WriteShareGroupState as i16;
/// Kafka's share.coordinator.write.timeout.ms, doubled for the hop through the control plane.
const TIMEOUT: Duration = Duration::from_secs(10);

/// A share-partition's state as its share coordinator keeps it.
pub(super) struct ReadState {
    pub state_epoch: i32,
    /// -1: never read from (share.auto.offset.reset applies).
    pub start_offset: i64,
    pub batches: Vec<StateBatch>,
}

/// What a share-partition answers when its share coordinator refused or could not be asked
/// (Kafka's `SharePartition.fetchPersisterError`).
pub(super) fn persister_error(code: i16) -> ErrorCode {
    match ErrorCode::from_code(code) {
        Some(
            ErrorCode::NotCoordinator
            | ErrorCode::CoordinatorNotAvailable
            | ErrorCode::CoordinatorLoadInProgress,
        ) => ErrorCode::CoordinatorNotAvailable,
        Some(ErrorCode::FencedLeaderEpoch | ErrorCode::FencedStateEpoch) => {
            ErrorCode::NotLeaderOrFollower
        }
        Some(e @ (ErrorCode::GroupIdNotFound | ErrorCode::UnknownTopicOrPartition)) => e,
        _ => ErrorCode::UnknownServerError,
    }
}

/// The state of each of a group's share-partitions, read for a leader at `leader_epoch`.
pub(super) async fn read(
    broker: &Broker,
    group: &Arc<str>,
    asks: &[(SpKey, i32)],
) -> HashMap<SpKey, Result<ReadState, ErrorCode>> {
    let topics = by_topic(
        asks.iter()
            .map(|(k, epoch)| (k.topic_id, (k.partition, *epoch))),
    );
    let request = ReadShareGroupStateRequest::default()
        .with_group_id(StrBytes::from_string(group.to_string()))
        .with_topics(
            topics
                .into_iter()
                .map(|(topic_id, partitions)| {
                    read_req::ReadStateData::default()
                        .with_topic_id(Uuid::from_bytes(topic_id))
                        .with_partitions(
                            partitions
                                .into_iter()
                                .map(|(p, epoch)| {
                                    read_req::PartitionData::default()
                                        .with_partition(p)
                                        .with_leader_epoch(epoch)
                                })
                                .collect(),
                        )
                })
                .collect(),
        );
    let asked = ask_control::<_, ReadShareGroupStateResponse>(broker, READ, 0, &request);
    let answer = tokio::time::timeout(TIMEOUT, asked).await.ok().flatten();
    let mut out: HashMap<SpKey, Result<ReadState, ErrorCode>> = HashMap::new();
    for result in answer.map(|a| a.results).unwrap_or_default() {
        let topic_id: [u8; 16] = *result.topic_id.as_bytes();
        for p in result.partitions {
            let key = SpKey {
                group: Arc::clone(group),
                topic_id,
                partition: p.partition,
            };
            let state = if p.error_code != 0 {
                Err(persister_error(p.error_code))
            } else {
                Ok(ReadState {
                    state_epoch: p.state_epoch,
                    start_offset: p.start_offset,
                    batches: p
                        .state_batches
                        .iter()
                        .map(|b| StateBatch {
                            first_offset: b.first_offset,
                            last_offset: b.last_offset,
                            state: b.delivery_state,
                            delivery_count: b.delivery_count,
                        })
                        .collect(),
                })
            };
            out.insert(key, state);
        }
    }
    for (key, _) in asks {
        out.entry(key.clone())
            .or_insert(Err(ErrorCode::CoordinatorNotAvailable));
    }
    out
}

/// Writes the share-partitions' state (each as it is when the write goes out, joined with the
/// group's other pending changes); returns the error code each was answered with. A
/// share-partition whose write failed is dropped, to be read again from its share coordinator.
pub(crate) async fn persist(
    broker: &Arc<Broker>,
    group: &Arc<str>,
    entries: Vec<Arc<SpEntry>>,
) -> Arc<WriteCodes> {
    let rx = {
        let mut writes = broker.share.writes.lock();
        let pending = writes.entry(Arc::clone(group)).or_default();
        pending.entries.extend(entries);
        let (tx, rx) = oneshot::channel();
        pending.waiters.push(tx);
        if !pending.running {
            pending.running = true;
            tokio::spawn(write_loop(Arc::clone(broker), Arc::clone(group)));
        }
        rx
    };
    rx.await.unwrap_or_default()
}

async fn write_loop(broker: Arc<Broker>, group: Arc<str>) {
    loop {
        let (mut entries, waiters) = {
            let mut writes = broker.share.writes.lock();
            let Some(pending) = writes.get_mut(&group) else {
                return;
            };
            if pending.entries.is_empty() && pending.waiters.is_empty() {
                writes.remove(&group);
                return;
            }
            (
                std::mem::take(&mut pending.entries),
                std::mem::take(&mut pending.waiters),
            )
        };
        entries.sort_by(|a, b| {
            (a.key.topic_id, a.key.partition).cmp(&(b.key.topic_id, b.key.partition))
        });
        entries.dedup_by(|a, b| a.key == b.key);
        let codes = write(&broker, &group, &entries).await;
        for entry in &entries {
            if codes.get(&entry.key).is_some_and(|&c| c != 0) {
                *entry.state.lock().await = None;
                entry.changed.notify_waiters();
            }
        }
        let codes = Arc::new(codes);
        for waiter in waiters {
            let _ = waiter.send(Arc::clone(&codes));
        }
    }
}

async fn write(broker: &Broker, group: &Arc<str>, entries: &[Arc<SpEntry>]) -> WriteCodes {
    let mut codes = WriteCodes::new();
    let mut rows = Vec::with_capacity(entries.len());
    for entry in entries {
        let state = entry.state.lock().await;
        match &*state {
            Some(loaded) => {
                let p = &loaded.partition;
                let batches = p
                    .state_batches()
                    .into_iter()
                    .map(|b| {
                        write_req::StateBatch::default()
                            .with_first_offset(b.first_offset)
                            .with_last_offset(b.last_offset)
                            .with_delivery_state(b.state)
                            .with_delivery_count(b.delivery_count)
                    })
                    .collect();
                let row = write_req::PartitionData::default()
                    .with_partition(entry.key.partition)
                    .with_state_epoch(loaded.state_epoch)
                    .with_leader_epoch(loaded.leader_epoch)
                    .with_start_offset(p.start_offset())
                    .with_state_batches(batches);
                rows.push((entry.key.topic_id, row));
            }
            // Dropped since it changed (a failed write, another leader): the change is lost
            // with it, and its records are delivered again.
            None => {
                codes.insert(entry.key.clone(), ErrorCode::UnknownServerError.code());
            }
        }
    }
    if rows.is_empty() {
        return codes;
    }
    let request = WriteShareGroupStateRequest::default()
        .with_group_id(StrBytes::from_string(group.to_string()))
        .with_topics(
            by_topic(rows)
                .into_iter()
                .map(|(topic_id, partitions)| {
                    write_req::WriteStateData::default()
                        .with_topic_id(Uuid::from_bytes(topic_id))
                        .with_partitions(partitions)
                })
                .collect(),
        );
    let asked = ask_control::<_, WriteShareGroupStateResponse>(broker, WRITE, 0, &request);
    let answer = tokio::time::timeout(TIMEOUT, asked).await.ok().flatten();
    for result in answer.map(|a| a.results).unwrap_or_default() {
        let topic_id: [u8; 16] = *result.topic_id.as_bytes();
        for p in result.partitions {
            let key = SpKey {
                group: Arc::clone(group),
                topic_id,
                partition: p.partition,
            };
            codes.insert(key, p.error_code);
        }
    }
    for entry in entries {
        codes
            .entry(entry.key.clone())
            .or_insert(ErrorCode::CoordinatorNotAvailable.code());
    }
    codes
}
