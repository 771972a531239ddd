//! Fetch sessions (KIP-227) through the wire: full fetches open sessions, incremental ones
//! carry and answer only what changed, session errors follow Kafka, and v13+ names topics by
//! id (KIP-516).

use bytes::Bytes;
use kafka_protocol::messages::fetch_request::{
    FetchPartition, FetchTopic, ForgottenTopic, ReplicaState,
};
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::{
    ApiKey, BrokerId, FetchRequest, FetchResponse, ProduceRequest, ProduceResponse, TopicName,
};
use kafka_protocol::protocol::StrBytes;

use super::{batch, Client, TestBroker};
use crate::error::ErrorCode;
use crate::properties::{self, table::topic};

const TOPIC: &str = "many";
const PARTITIONS: i32 = 20;
const TOPIC_ID: [u8; 16] = [0x5e; 16];

fn name(topic: &str) -> TopicName {
    TopicName(StrBytes::from_string(topic.to_string()))
}

/// A broker leading `many-0..20` (topic id `TOPIC_ID`) besides `events-0`.
fn start(extra: &[(&str, &str)]) -> TestBroker {
    let broker = TestBroker::start(extra);
    for p in 0..PARTITIONS {
        broker
            .server
            .open_partition(TOPIC, p, TOPIC_ID, &properties::defaults(topic::ALL))
            .expect("open");
        broker
            .server
            .become_leader(TOPIC, p, 1, vec![1], vec![1])
            .expect("lead");
    }
    broker
}

fn produce(client: &mut Client, partition: i32, records: usize) {
    let request = ProduceRequest::default()
        .with_acks(1)
        .with_timeout_ms(5000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(name(TOPIC))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(partition)
                .with_records(Some(Bytes::from(batch(
                    records,
                    1_700_000_000_000,
                ))))])]);
    let r: ProduceResponse = client.call(ApiKey::Produce, 11, &request);
    assert_eq!(r.responses[0].partition_responses[0].error_code, 0);
}

fn partition(index: i32, offset: i64) -> FetchPartition {
    FetchPartition::default()
        .with_partition(index)
        .with_fetch_offset(offset)
        .with_current_leader_epoch(-1)
        .with_partition_max_bytes(1 << 20)
}

/// A fetch of `many` at `offsets[i]` for partition i, in session `(id, epoch)`.
fn request(version: i16, session: (i32, i32), partitions: Vec<FetchPartition>) -> FetchRequest {
    let mut topic = FetchTopic::default().with_partitions(partitions);
    if version >= 13 {
        topic = topic.with_topic_id(TOPIC_ID.to_vec().try_into().expect("16 bytes"));
    } else {
        topic = topic.with_topic(name(TOPIC));
    }
    let topics = if topic.partitions.is_empty() {
        vec![]
    } else {
        vec![topic]
    };
    FetchRequest::default()
        .with_replica_id(BrokerId(-1))
        .with_max_wait_ms(0)
        .with_min_bytes(0)
        .with_max_bytes(1 << 20)
        .with_session_id(session.0)
        .with_session_epoch(session.1)
        .with_topics(topics)
}

fn all_from_zero() -> Vec<FetchPartition> {
    (0..PARTITIONS).map(|p| partition(p, 0)).collect()
}

/// `(partition, high watermark, record bytes)` of every partition in the response.
fn answered(r: &FetchResponse) -> Vec<(i32, i64, usize)> {
    r.responses
        .iter()
        .flat_map(|t| t.partitions.iter())
        .map(|p| {
            let bytes = p.records.as_ref().map_or(0, Bytes::len);
            (p.partition_index, p.high_watermark, bytes)
        })
        .collect()
}

fn open_session(client: &mut Client, version: i16) -> i32 {
    let r: FetchResponse = client.call(
        ApiKey::Fetch,
        version,
        &request(version, (0, 0), all_from_zero()),
    );
    assert_eq!(r.error_code, 0);
    assert_eq!(
        answered(&r).len(),
        PARTITIONS as usize,
        "a full fetch answers everything"
    );
    assert_ne!(r.session_id, 0, "a session was opened");
    r.session_id
}

#[test]
fn idle_incremental_fetches_answer_nothing_and_changes_alone() {
    let broker = start(&[]);
    let mut consumer = broker.connect();
    let mut producer = broker.connect();
    let id = open_session(&mut consumer, 12);

    let r: FetchResponse = consumer.call(ApiKey::Fetch, 12, &request(12, (id, 1), vec![]));
    assert_eq!((r.error_code, r.session_id), (0, id));
    assert!(
        r.responses.is_empty(),
        "nothing changed: {:?}",
        answered(&r)
    );

    // new data in partition 7 only: the response carries that partition alone
    produce(&mut producer, 7, 3);
    let r: FetchResponse = consumer.call(ApiKey::Fetch, 12, &request(12, (id, 2), vec![]));
    let got = answered(&r);
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].0, got[0].1), (7, 3));
    assert!(got[0].2 > 0, "records from the cached offset 0");

    // the consumer moves partition 7 to offset 3: nothing new anywhere
    let r: FetchResponse = consumer.call(
        ApiKey::Fetch,
        12,
        &request(12, (id, 3), vec![partition(7, 3)]),
    );
    assert!(r.responses.is_empty(), "{:?}", answered(&r));

    // a plain sessionless fetch alongside still answers everything it names
    let r: FetchResponse = consumer.call(ApiKey::Fetch, 12, &request(12, (0, -1), all_from_zero()));
    assert_eq!((r.session_id, answered(&r).len()), (0, PARTITIONS as usize));
}

#[test]
fn forgotten_partitions_are_no_longer_read() {
    let broker = start(&[]);
    let mut consumer = broker.connect();
    let mut producer = broker.connect();
    let id = open_session(&mut consumer, 12);
    let mut forget = request(12, (id, 1), vec![]);
    forget.forgotten_topics_data = vec![ForgottenTopic::default()
        .with_topic(name(TOPIC))
        .with_partitions(vec![2, 3])];
    let r: FetchResponse = consumer.call(ApiKey::Fetch, 12, &forget);
    assert_eq!((r.error_code, r.session_id), (0, id));
    produce(&mut producer, 2, 1);
    produce(&mut producer, 4, 1);
    let r: FetchResponse = consumer.call(ApiKey::Fetch, 12, &request(12, (id, 2), vec![]));
    let got: Vec<i32> = answered(&r).iter().map(|p| p.0).collect();
    assert_eq!(got, vec![4], "partition 2 was forgotten");
}

#[test]
fn session_errors_and_closing() {
    let broker = start(&[]);
    let mut consumer = broker.connect();
    let id = open_session(&mut consumer, 12);
    let r: FetchResponse = consumer.call(ApiKey::Fetch, 12, &request(12, (id, 5), vec![]));
    assert_eq!(r.error_code, ErrorCode::InvalidFetchSessionEpoch.code());
    assert_eq!((r.session_id, r.responses.len()), (0, 0));
    let r: FetchResponse = consumer.call(ApiKey::Fetch, 12, &request(12, (id ^ 1, 1), vec![]));
    assert_eq!(r.error_code, ErrorCode::FetchSessionIdNotFound.code());
    let r: FetchResponse = consumer.call(ApiKey::Fetch, 13, &request(13, (id, 1), vec![]));
    assert_eq!(r.error_code, ErrorCode::FetchSessionTopicIdError.code());
    // close it (epoch -1): answered sessionless, and the session is gone
    let r: FetchResponse = consumer.call(
        ApiKey::Fetch,
        12,
        &request(12, (id, -1), vec![partition(0, 0)]),
    );
    assert_eq!((r.error_code, r.session_id, answered(&r).len()), (0, 0, 1));
    let r: FetchResponse = consumer.call(ApiKey::Fetch, 12, &request(12, (id, 1), vec![]));
    assert_eq!(r.error_code, ErrorCode::FetchSessionIdNotFound.code());
}

#[test]
fn topic_ids_from_v13() {
    let broker = start(&[]);
    let mut consumer = broker.connect();
    let mut producer = broker.connect();
    produce(&mut producer, 1, 2);
    for version in [13, 14, 15] {
        let id = open_session(&mut consumer, version);
        let r: FetchResponse = consumer.call(
            ApiKey::Fetch,
            version,
            &request(version, (0, -1), all_from_zero()),
        );
        assert_eq!(r.responses[0].topic_id.as_bytes(), &TOPIC_ID);
        let p1 = &r.responses[0].partitions[1];
        assert_eq!(
            (
                p1.high_watermark,
                p1.records.as_ref().map(Bytes::len).is_some_and(|n| n > 0)
            ),
            (2, true)
        );
        // partition 1 returned its two records: the consumer moves on past them
        let moved = request(version, (id, 1), vec![partition(1, 2)]);
        let r: FetchResponse = consumer.call(ApiKey::Fetch, version, &moved);
        assert_eq!((r.error_code, r.session_id), (0, id));
        let got: Vec<i32> = answered(&r).iter().map(|p| p.0).collect();
        assert!(got.is_empty(), "v{version}: {got:?}");
    }
    // an id nobody here knows, and a known topic's missing partition
    let mut unknown = request(13, (0, -1), vec![partition(0, 0)]);
    unknown.topics[0].topic_id = [9u8; 16].to_vec().try_into().expect("16 bytes");
    let r: FetchResponse = consumer.call(ApiKey::Fetch, 13, &unknown);
    assert_eq!(
        r.responses[0].partitions[0].error_code,
        ErrorCode::UnknownTopicId.code()
    );
    let r: FetchResponse = consumer.call(
        ApiKey::Fetch,
        13,
        &request(13, (0, -1), vec![partition(99, 0)]),
    );
    assert_eq!(
        r.responses[0].partitions[0].error_code,
        ErrorCode::UnknownTopicOrPartition.code()
    );
    // a deleted topic: its id is forgotten with it
    for p in 0..PARTITIONS {
        broker.server.delete_partition(TOPIC, p).expect("delete");
    }
    let r: FetchResponse = consumer.call(
        ApiKey::Fetch,
        13,
        &request(13, (0, -1), vec![partition(0, 0)]),
    );
    assert_eq!(
        r.responses[0].partitions[0].error_code,
        ErrorCode::UnknownTopicId.code()
    );
}

#[test]
fn follower_fetches_at_v15_name_the_replica_in_its_state() {
    let broker = start(&[]);
    broker
        .server
        .become_leader(TOPIC, 0, 2, vec![1, 2], vec![1, 2])
        .expect("replicated");
    let mut producer = broker.connect();
    produce(&mut producer, 0, 2);
    let mut follower = broker.connect();
    let mut r = request(15, (0, -1), vec![partition(0, 2)]);
    r.replica_state = ReplicaState::default().with_replica_id(BrokerId(2));
    let f: FetchResponse = follower.call(ApiKey::Fetch, 15, &r);
    assert_eq!(
        f.responses[0].partitions[0].high_watermark, 2,
        "the follower's fetch offset moved the high watermark"
    );
}

#[test]
fn cache_slots_bound_the_sessions_and_followers_come_first() {
    let broker = start(&[("max.incremental.fetch.session.cache.slots", "1")]);
    let mut first = broker.connect();
    let mut second = broker.connect();
    let consumer = open_session(&mut first, 12);
    // no slot left, and the only session is a young consumer's: no session for another one
    let r: FetchResponse = second.call(ApiKey::Fetch, 12, &request(12, (0, 0), all_from_zero()));
    assert_eq!((r.error_code, r.session_id), (0, 0));
    assert_eq!(answered(&r).len(), PARTITIONS as usize);
    // a follower's full fetch evicts the consumer's session
    let mut as_follower = request(12, (0, 0), vec![partition(0, 0)]);
    as_follower.replica_id = BrokerId(2);
    broker
        .server
        .become_leader(TOPIC, 0, 2, vec![1, 2], vec![1, 2])
        .expect("replicated");
    let r: FetchResponse = second.call(ApiKey::Fetch, 12, &as_follower);
    assert_ne!(r.session_id, 0, "privileged");
    let r: FetchResponse = first.call(ApiKey::Fetch, 12, &request(12, (consumer, 1), vec![]));
    assert_eq!(r.error_code, ErrorCode::FetchSessionIdNotFound.code());
    let none = start(&[("max.incremental.fetch.session.cache.slots", "0")]);
    let mut c = none.connect();
    let r: FetchResponse = c.call(ApiKey::Fetch, 12, &request(12, (0, 0), all_from_zero()));
    assert_eq!(r.session_id, 0);
}

#[test]
fn produce_names_topics_by_id_from_v13() {
    let broker = start(&[]);
    let mut producer = broker.connect();
    let by_id = |id: [u8; 16], partition: i32| {
        ProduceRequest::default()
            .with_acks(1)
            .with_timeout_ms(5000)
            .with_topic_data(vec![TopicProduceData::default()
                .with_topic_id(id.to_vec().try_into().expect("16 bytes"))
                .with_partition_data(vec![PartitionProduceData::default()
                    .with_index(partition)
                    .with_records(Some(Bytes::from(batch(3, 1_700_000_000_000))))])])
    };
    let r: ProduceResponse = producer.call(ApiKey::Produce, 13, &by_id(TOPIC_ID, 4));
    let topic = &r.responses[0];
    assert_eq!(topic.topic_id.as_bytes(), &TOPIC_ID);
    let p = &topic.partition_responses[0];
    assert_eq!((p.index, p.error_code, p.base_offset), (4, 0, 0));
    // Appended to that partition: a fetch by name finds the three records.
    let mut consumer = broker.connect();
    let r: FetchResponse = consumer.call(
        ApiKey::Fetch,
        12,
        &request(12, (0, -1), vec![partition(4, 0)]),
    );
    assert_eq!(r.responses[0].partitions[0].high_watermark, 3);
    // An id no topic here has: UNKNOWN_TOPIC_ID, the id echoed, nothing written.
    let r: ProduceResponse = producer.call(ApiKey::Produce, 13, &by_id([9; 16], 0));
    let topic = &r.responses[0];
    assert_eq!(topic.topic_id.as_bytes(), &[9; 16]);
    let p = &topic.partition_responses[0];
    assert_eq!(
        (p.index, p.error_code),
        (0, ErrorCode::UnknownTopicId.code())
    );
    // v12 names topics as before.
    let request12 = ProduceRequest::default()
        .with_acks(1)
        .with_timeout_ms(5000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(name(TOPIC))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(4)
                .with_records(Some(Bytes::from(batch(2, 1_700_000_000_000))))])]);
    let r: ProduceResponse = producer.call(ApiKey::Produce, 12, &request12);
    assert_eq!(r.responses[0].name.0.as_str(), TOPIC);
    assert_eq!(r.responses[0].partition_responses[0].base_offset, 3);
}
