//! Followers fetch in an incremental fetch session (KIP-227) with their leader: one session per
//! follower, and a session the leader lost (evicted, closed, or gone with a restart) is
//! replaced by a new full fetch without losing a record.
use bytes::Bytes;
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::{ApiKey, ProduceRequest, ProduceResponse, TopicName};
use kafka_protocol::protocol::StrBytes;

use super::cluster::{wait_until, Node};
use super::{batch, Client};
use crate::properties::{self, table::topic};

const S: &str = "sessions";
const PARTITIONS: i32 = 8;

/// Leader 1 and follower 2 of `sessions-0..8`, both in the ISR.
fn pair(leader_extra: &[(&str, &str)]) -> (Node, Node) {
    let (a, b) = (Node::start_with(1, leader_extra), Node::start(2));
    for n in [&a, &b] {
        open(n);
    }
    lead(&a);
    let port = a.server().port().expect("listening");
    for p in 0..PARTITIONS {
        b.server()
            .become_follower(S, p, 1, 1, "127.0.0.1", port, vec![1, 2])
            .expect("follow");
    }
    (a, b)
}

fn open(n: &Node) {
    for p in 0..PARTITIONS {
        n.server()
            .open_partition(S, p, [4; 16], &properties::defaults(topic::ALL))
            .expect("open");
    }
}

fn lead(a: &Node) {
    for p in 0..PARTITIONS {
        a.server()
            .become_leader(S, p, 1, vec![1, 2], vec![1, 2])
            .expect("lead");
    }
}

/// acks=all: answered only once the follower fetched the batch.
fn produce(client: &mut Client, partition: i32) -> i16 {
    let request = ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(10_000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(TopicName(StrBytes::from_static_str(S)))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(partition)
                .with_records(Some(Bytes::from(batch(
                    3,
                    crate::server::now_ms(),
                ))))])]);
    let r: ProduceResponse = client.call(ApiKey::Produce, 9, &request);
    r.responses[0].partition_responses[0].error_code
}

/// (log end offset, high watermark) of every partition.
fn offsets(n: &Node) -> Vec<(i64, i64)> {
    let mut states: Vec<_> = n
        .server()
        .partition_states()
        .into_iter()
        .filter(|s| s.topic == S)
        .map(|s| (s.partition, s.log_end_offset, s.high_watermark))
        .collect();
    states.sort_unstable();
    states.into_iter().map(|(_, leo, hw)| (leo, hw)).collect()
}

fn wait_in_sync(a: &Node, b: &Node) {
    wait_until(
        "the follower holds every partition's log and high watermark",
        || offsets(a) == offsets(b),
    );
}

/// (sessions, cached partitions) of `n`'s fetch session cache.
fn sessions(n: &Node) -> (usize, usize) {
    let cache = n.server().broker().fetch_sessions.lock();
    (cache.len(), cache.total_partitions())
}

#[test]
fn a_follower_fetches_every_partition_in_one_session() {
    let (a, b) = pair(&[]);
    let mut producer = a.connect();
    for p in 0..PARTITIONS {
        assert_eq!(produce(&mut producer, p), 0, "partition {p}");
    }
    wait_in_sync(&a, &b);
    assert_eq!(sessions(&a), (1, PARTITIONS as usize));
    // a change to one partition reaches the follower through the same session
    assert_eq!(produce(&mut producer, 5), 0);
    wait_in_sync(&a, &b);
    assert_eq!(offsets(&b)[5], (6, 6));
    let cache = a.server().broker().fetch_sessions.lock();
    assert_eq!((cache.len(), cache.evictions()), (1, 0));
}

#[test]
fn a_session_the_leader_lost_is_replaced() {
    let (a, b) = pair(&[]);
    let mut producer = a.connect();
    assert_eq!(produce(&mut producer, 0), 0);
    wait_in_sync(&a, &b);
    // the leader drops the session (as an eviction would): the follower's next incremental
    // fetch gets FETCH_SESSION_ID_NOT_FOUND and opens a new session with a full fetch
    let ids = a.server().broker().fetch_sessions.lock().session_ids();
    assert_eq!(ids.len(), 1);
    assert!(a.server().broker().fetch_sessions.lock().remove(ids[0]));
    assert_eq!(produce(&mut producer, 1), 0);
    wait_in_sync(&a, &b);
    wait_until("a new session", || sessions(&a) == (1, PARTITIONS as usize));
    let new = a.server().broker().fetch_sessions.lock().session_ids();
    assert_ne!(new, ids);
}

#[test]
fn a_restarted_leader_gets_a_new_session() {
    let (mut a, b) = pair(&[]);
    let mut producer = a.connect();
    assert_eq!(produce(&mut producer, 2), 0);
    wait_in_sync(&a, &b);
    a.restart();
    open(&a);
    lead(&a);
    let mut producer = a.connect();
    assert_eq!(produce(&mut producer, 2), 0);
    assert_eq!(produce(&mut producer, 7), 0);
    wait_in_sync(&a, &b);
    assert_eq!(sessions(&a), (1, PARTITIONS as usize));
}

#[test]
fn without_session_slots_followers_fetch_in_full() {
    let (a, b) = pair(&[("max.incremental.fetch.session.cache.slots", "0")]);
    let mut producer = a.connect();
    for p in [0, 3, 3, 6] {
        assert_eq!(produce(&mut producer, p), 0);
    }
    wait_in_sync(&a, &b);
    assert_eq!(sessions(&a), (0, 0));
}
