//! The fetcher task of one leader: connect, then rounds of truncation (OffsetForLeaderEpoch
//! v4) and fetching (Fetch v12, in an incremental fetch session) over the partitions that
//! follow that leader.

use std::collections::HashMap;
use std::io;
use std::sync::Arc;

use kafka_protocol::messages::fetch_request::{FetchPartition, FetchTopic, ForgottenTopic};
use kafka_protocol::messages::fetch_response::PartitionData;
use kafka_protocol::messages::offset_for_leader_epoch_request::{
    OffsetForLeaderPartition, OffsetForLeaderTopic,
};
use kafka_protocol::messages::{
    ApiKey, BrokerId, FetchRequest, FetchResponse, OffsetForLeaderEpochRequest,
    OffsetForLeaderEpochResponse, TopicName,
};
use kafka_protocol::protocol::StrBytes;
use tokio::sync::watch;
use tokio::time::Instant;

use super::session::{Answer, FetchSession};
use super::truncation::truncation_for;
use super::{Ask, Entry, FetcherConfig, Key, Phase, Shared};
use crate::client::BrokerConnection;
use crate::error::ErrorCode;
use crate::protocol::fetch_session::FetchParams;

const FETCH_VERSION: i16 = 12;
const OFFSET_FOR_LEADER_EPOCH_VERSION: i16 = 4;

pub(super) struct Leader {
    pub id: i32,
    pub host: String,
    pub port: u16,
}

async fn stopped(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|stop| *stop).await;
}

pub(super) async fn run(
    shared: Arc<Shared>,
    leader: Leader,
    config: FetcherConfig,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut conn: Option<BrokerConnection> = None;
    // One session with the leader for the task's life, as Kafka's fetcher thread keeps one.
    let mut session = FetchSession::new();
    // Consecutive failed rounds: a leader down for long is reported now and then, not at
    // every retry.
    let mut failures = 0u32;
    loop {
        if *shutdown.borrow() {
            return;
        }
        let ready = shared.ready(Instant::now());
        if ready.truncating.is_empty() && ready.fetching.is_empty() {
            let retry = ready.next_retry;
            tokio::select! {
                _ = stopped(&mut shutdown) => return,
                _ = shared.changed.notified() => {}
                _ = async {
                    match retry {
                        Some(at) => tokio::time::sleep_until(at).await,
                        None => std::future::pending().await,
                    }
                } => {}
            }
            continue;
        }
        let round = async {
            if conn.is_none() {
                let client_id = format!("ferrolog-replica-fetcher-{}", config.node_id);
                conn = Some(
                    BrokerConnection::connect(
                        &leader.host,
                        leader.port,
                        client_id,
                        config.socket_timeout,
                        &config.security,
                    )
                    .await?,
                );
            }
            let c = conn.as_mut().expect("connected");
            if !ready.truncating.is_empty() {
                truncate_round(c, &shared, ready.truncating, &config).await
            } else {
                fetch_round(c, &shared, ready.fetching, &config, &mut session).await
            }
        };
        let result = tokio::select! {
            _ = stopped(&mut shutdown) => return,
            result = round => result,
        };
        if result.is_ok() {
            failures = 0;
        }
        if let Err(e) = result {
            if failures.is_multiple_of(60) {
                log::warn!(
                    "replica fetcher for leader {} at {}:{}: {e}; retrying ({failures} failed before)",
                    leader.id,
                    leader.host,
                    leader.port
                );
            }
            failures = failures.saturating_add(1);
            conn = None;
            tokio::select! {
                _ = stopped(&mut shutdown) => return,
                _ = tokio::time::sleep(config.backoff) => {}
            }
        }
    }
}

/// Groups `(key, value)` pairs by topic name, keeping the order of first appearance.
fn by_topic<T>(items: impl IntoIterator<Item = (String, T)>) -> Vec<(String, Vec<T>)> {
    let mut out: Vec<(String, Vec<T>)> = Vec::new();
    for (topic, item) in items {
        match out.iter_mut().find(|(t, _)| *t == topic) {
            Some((_, v)) => v.push(item),
            None => out.push((topic, vec![item])),
        }
    }
    out
}

fn topic_name(topic: &str) -> TopicName {
    TopicName(StrBytes::from_string(topic.to_string()))
}

/// One OffsetForLeaderEpoch request for every partition that must truncate, then the
/// truncations it calls for.
async fn truncate_round(
    conn: &mut BrokerConnection,
    shared: &Shared,
    entries: Vec<(Key, Entry)>,
    config: &FetcherConfig,
) -> io::Result<()> {
    let mut asks: HashMap<Key, (Entry, i32)> = HashMap::new();
    for (key, entry) in entries {
        let asked = match entry.phase {
            Phase::Truncating(Ask::LeaderEnd) => entry.epoch,
            _ => {
                let pos = entry.partition.follower_position();
                match pos.latest_epoch {
                    Some(epoch) => epoch,
                    None => {
                        // No epoch to ask about (an empty log, or a lost epoch checkpoint):
                        // Kafka's fallback, keep only what is known to be committed.
                        let hw = pos.high_watermark;
                        apply_truncation(shared, &key, &entry, hw, true, config);
                        continue;
                    }
                }
            }
        };
        asks.insert(key, (entry, asked));
    }
    if asks.is_empty() {
        return Ok(());
    }
    let topics = by_topic(asks.iter().map(|((topic, index), (entry, asked))| {
        (
            topic.clone(),
            OffsetForLeaderPartition::default()
                .with_partition(*index)
                .with_current_leader_epoch(entry.epoch)
                .with_leader_epoch(*asked),
        )
    }));
    let request = OffsetForLeaderEpochRequest::default()
        .with_replica_id(BrokerId(config.node_id))
        .with_topics(
            topics
                .into_iter()
                .map(|(t, partitions)| {
                    OffsetForLeaderTopic::default()
                        .with_topic(topic_name(&t))
                        .with_partitions(partitions)
                })
                .collect(),
        );
    let response: OffsetForLeaderEpochResponse = conn
        .call(
            ApiKey::OffsetForLeaderEpoch,
            OFFSET_FOR_LEADER_EPOCH_VERSION,
            &request,
            std::time::Duration::ZERO,
        )
        .await?;
    for topic in response.topics {
        for answer in topic.partitions {
            let key = (topic.topic.0.to_string(), answer.partition);
            let Some((entry, _)) = asks.remove(&key) else {
                continue;
            };
            if answer.error_code != 0 {
                log::debug!(
                    "{}-{}: OffsetForLeaderEpoch error {}",
                    key.0,
                    key.1,
                    answer.error_code
                );
                shared.retry_later(&key, entry.epoch, config.backoff);
                continue;
            }
            let p = &entry.partition;
            let pos = p.follower_position();
            let (offset, complete) = match entry.phase {
                Phase::Truncating(Ask::LeaderEnd) => (answer.end_offset, true),
                _ => {
                    let t = truncation_for(
                        answer.leader_epoch,
                        answer.end_offset,
                        |e| p.end_offset_for_epoch(e),
                        pos.log_end_offset,
                        pos.high_watermark,
                    );
                    (t.offset, t.complete)
                }
            };
            apply_truncation(shared, &key, &entry, offset, complete, config);
        }
    }
    // Partitions the leader did not answer for: try again later.
    for (key, (entry, _)) in asks {
        shared.retry_later(&key, entry.epoch, config.backoff);
    }
    Ok(())
}

fn apply_truncation(
    shared: &Shared,
    key: &Key,
    entry: &Entry,
    offset: i64,
    complete: bool,
    config: &FetcherConfig,
) {
    if offset < 0 {
        shared.retry_later(key, entry.epoch, config.backoff);
        return;
    }
    match entry.partition.truncate_as_follower(entry.epoch, offset) {
        Ok(_) => {
            let next = if complete {
                Phase::Fetching
            } else {
                Phase::Truncating(Ask::LatestEpoch)
            };
            shared.set_phase(key, entry.epoch, next);
        }
        // The partition moved on to another epoch or role; its new entry decides.
        Err(ErrorCode::FencedLeaderEpoch) => {}
        Err(e) => {
            log::warn!("{}-{}: truncation failed: {e:?}", key.0, key.1);
            shared.retry_later(key, entry.epoch, config.backoff);
        }
    }
}

/// One Fetch request for every partition that fetches, then the appends it brings. In the
/// session, the request names only the partitions whose position changed, and the response
/// carries only partitions with something new; the others wait for the next round.
async fn fetch_round(
    conn: &mut BrokerConnection,
    shared: &Shared,
    entries: Vec<(Key, Entry)>,
    config: &FetcherConfig,
    session: &mut FetchSession,
) -> io::Result<()> {
    let mut sent: HashMap<Key, (Entry, i64)> = HashMap::new();
    let mut wanted = Vec::with_capacity(entries.len());
    for (key, entry) in entries {
        let pos = entry.partition.follower_position();
        let params = FetchParams {
            fetch_offset: pos.log_end_offset,
            log_start_offset: pos.log_start_offset,
            max_bytes: config.max_bytes,
            current_leader_epoch: entry.epoch,
            last_fetched_epoch: pos.latest_epoch.unwrap_or(-1),
        };
        wanted.push((key.clone(), params));
        sent.insert(key, (entry, pos.log_end_offset));
    }
    let prepared = session.prepare(wanted);
    let partitions = prepared.send.iter().map(|((topic, index), p)| {
        let partition = FetchPartition::default()
            .with_partition(*index)
            .with_current_leader_epoch(p.current_leader_epoch)
            .with_fetch_offset(p.fetch_offset)
            .with_last_fetched_epoch(p.last_fetched_epoch)
            .with_log_start_offset(p.log_start_offset)
            .with_partition_max_bytes(p.max_bytes);
        (topic.clone(), partition)
    });
    let forgotten = prepared.forget.iter().map(|(t, index)| (t.clone(), *index));
    let request = FetchRequest::default()
        .with_replica_id(BrokerId(config.node_id))
        .with_max_wait_ms(config.wait_max.as_millis().min(i32::MAX as u128) as i32)
        .with_min_bytes(config.min_bytes)
        .with_max_bytes(config.response_max_bytes)
        .with_isolation_level(0)
        .with_session_id(prepared.metadata.session_id)
        .with_session_epoch(prepared.metadata.epoch)
        .with_topics(
            by_topic(partitions)
                .into_iter()
                .map(|(t, partitions)| {
                    FetchTopic::default()
                        .with_topic(topic_name(&t))
                        .with_partitions(partitions)
                })
                .collect(),
        )
        .with_forgotten_topics_data(
            by_topic(forgotten)
                .into_iter()
                .map(|(t, partitions)| {
                    ForgottenTopic::default()
                        .with_topic(topic_name(&t))
                        .with_partitions(partitions)
                })
                .collect(),
        );
    let response: FetchResponse = match conn
        .call(ApiKey::Fetch, FETCH_VERSION, &request, config.wait_max)
        .await
    {
        Ok(response) => response,
        Err(e) => {
            session.on_error();
            return Err(e);
        }
    };
    let answered: Vec<Key> = response
        .responses
        .iter()
        .flat_map(|t| {
            let topic = t.topic.0.to_string();
            t.partitions
                .iter()
                .map(move |p| (topic.clone(), p.partition_index))
        })
        .collect();
    match session.on_response(
        &prepared,
        response.error_code,
        response.session_id,
        answered.iter(),
    ) {
        Answer::Apply => {}
        Answer::Restart => {
            log::debug!(
                "fetch session with leader ended (error {}): starting a new one",
                response.error_code
            );
            return Ok(());
        }
        Answer::Failed => {
            for (key, (entry, _)) in &sent {
                shared.retry_later(key, entry.epoch, config.backoff);
            }
            return Ok(());
        }
    }
    for topic in response.responses {
        for data in topic.partitions {
            let key = (topic.topic.0.to_string(), data.partition_index);
            let Some((entry, fetch_offset)) = sent.remove(&key) else {
                continue;
            };
            if shared.is(&key, entry.epoch, Phase::Fetching) {
                on_partition_data(shared, &key, &entry, fetch_offset, &data, config);
            }
        }
    }
    Ok(())
}

fn on_partition_data(
    shared: &Shared,
    key: &Key,
    entry: &Entry,
    fetch_offset: i64,
    data: &PartitionData,
    config: &FetcherConfig,
) {
    let p = &entry.partition;
    let diverging = &data.diverging_epoch;
    if data.error_code == 0 && (diverging.epoch >= 0 || diverging.end_offset >= 0) {
        // KIP-595's truncation on fetch: the leader saw our last epoch end earlier in its log.
        let pos = p.follower_position();
        let t = truncation_for(
            diverging.epoch,
            diverging.end_offset,
            |e| p.end_offset_for_epoch(e),
            pos.log_end_offset,
            pos.high_watermark,
        );
        apply_truncation(shared, key, entry, t.offset, t.complete, config);
        return;
    }
    match ErrorCode::from_code(data.error_code) {
        Some(ErrorCode::None) => {
            let records = data.records.as_deref().unwrap_or(&[]);
            let appended = p.append_as_follower(
                entry.epoch,
                records,
                data.high_watermark,
                data.log_start_offset,
                crate::log::now_ms(),
            );
            match appended {
                Ok(_) | Err(ErrorCode::FencedLeaderEpoch) => {}
                // A batch below our end: our log and the leader's disagree, check by epoch.
                Err(ErrorCode::OffsetOutOfRange) => {
                    shared.set_phase(key, entry.epoch, Phase::Truncating(Ask::LatestEpoch));
                }
                Err(ErrorCode::KafkaStorageError) => {
                    // Our log directory is offline: stop fetching, as Kafka removes the
                    // fetchers of offline partitions, so that the leader sees this replica
                    // fall behind and does not count it in sync again.
                    log::warn!("{}-{}: offline log directory, fetch stopped", key.0, key.1);
                    shared.partitions.lock().remove(key);
                }
                Err(e) => {
                    log::warn!("{}-{}: follower append failed: {e:?}", key.0, key.1);
                    shared.retry_later(key, entry.epoch, config.backoff);
                }
            }
        }
        Some(ErrorCode::OffsetOutOfRange) => {
            if data.log_start_offset > fetch_offset {
                // The leader deleted what we would fetch next: start over at its log start.
                match p.restart_as_follower_at(entry.epoch, data.log_start_offset) {
                    Ok(()) | Err(ErrorCode::FencedLeaderEpoch) => {}
                    Err(e) => {
                        log::warn!("{}-{}: restart failed: {e:?}", key.0, key.1);
                        shared.retry_later(key, entry.epoch, config.backoff);
                    }
                }
            } else {
                // Our log ends past the leader's (an unclean election): truncate to its end.
                shared.set_phase(key, entry.epoch, Phase::Truncating(Ask::LeaderEnd));
            }
        }
        // FENCED/UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION...:
        // the leader and we disagree on who leads; a newer instruction will come. Back off.
        _ => {
            log::debug!(
                "{}-{}: fetch error {} from the leader",
                key.0,
                key.1,
                data.error_code
            );
            shared.retry_later(key, entry.epoch, config.backoff);
        }
    }
}
