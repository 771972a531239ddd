//! Leader and followers as separate in-process brokers: replication byte for byte, acks=all,
//! high-watermark propagation, reads from followers, reconnection.

use kafka_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use kafka_protocol::messages::{
    ApiKey, BrokerId, FetchResponse, ListOffsetsRequest, ListOffsetsResponse, ProduceResponse,
    TopicName,
};
use kafka_protocol::protocol::StrBytes;

use super::cluster::{produce, produce_request, wait_in_sync, wait_until, Node, T};
use super::produce_fetch::fetch_request;
use super::Client;
use crate::error::ErrorCode;
use crate::record::builder::{BatchBuilder, Record};
use crate::record::compression::Codec;
use crate::replica::fetcher::Phase;
use crate::server::MarkerRequest;

/// (error, high watermark, records) of a Fetch v12 as `replica_id`.
fn fetch_as(client: &mut Client, replica_id: i32, offset: i64) -> (i16, i64, Vec<u8>) {
    let mut r = fetch_request(T, offset, 0, 1);
    r.replica_id = BrokerId(replica_id);
    let f: FetchResponse = client.call(ApiKey::Fetch, 12, &r);
    let p = &f.responses[0].partitions[0];
    (
        p.error_code,
        p.high_watermark,
        p.records.clone().unwrap_or_default().to_vec(),
    )
}

fn list_latest(client: &mut Client, replica_id: i32) -> (i16, i64) {
    let request = ListOffsetsRequest::default()
        .with_replica_id(BrokerId(replica_id))
        .with_topics(vec![ListOffsetsTopic::default()
            .with_name(TopicName(StrBytes::from_static_str(T)))
            .with_partitions(vec![ListOffsetsPartition::default()
                .with_partition_index(0)
                .with_current_leader_epoch(-1)
                .with_timestamp(-1)])]);
    let r: ListOffsetsResponse = client.call(ApiKey::ListOffsets, 7, &request);
    let p = &r.topics[0].partitions[0];
    (p.error_code, p.offset)
}

/// Leader 1 with followers 2 and 3, all in the ISR at epoch 1.
fn three_nodes() -> (Node, Node, Node) {
    let (a, b, c) = (Node::start(1), Node::start(2), Node::start(3));
    for n in [&a, &b, &c] {
        n.open(&[]);
    }
    a.lead(1, &[1, 2, 3], &[1, 2, 3]);
    b.follow(&a, 1, &[1, 2, 3]);
    c.follow(&a, 1, &[1, 2, 3]);
    (a, b, c)
}

#[test]
fn followers_replicate_byte_for_byte_and_learn_the_high_watermark() {
    let (a, b, c) = three_nodes();
    let mut producer = a.connect();
    for n in [1, 5, 200, 3] {
        let (error, _) = produce(&mut producer, n, -1, 10_000);
        assert_eq!(
            error, 0,
            "acks=all completes once the followers have the batch"
        );
    }
    // acks=all answered: the high watermark covers every batch
    assert_eq!(a.offsets(), (209, 209));
    wait_in_sync(&a, &b);
    wait_in_sync(&a, &c);
    assert_eq!(b.epochs(), a.epochs(), "epoch caches follow the batches");

    let states = a.server().replica_states();
    assert_eq!(
        states
            .iter()
            .map(|s| (s.replica_id, s.log_end_offset))
            .collect::<Vec<_>>(),
        vec![(2, 209), (3, 209)]
    );
    assert!(states.iter().all(|s| s.last_caught_up_ms > 0));
    let (sa, sb) = (a.state(), b.state());
    assert_eq!(
        (sa.role, sa.leader_id, sa.isr.clone()),
        ("leader", 1, vec![1, 2, 3])
    );
    assert_eq!((sb.role, sb.leader_id, sb.leader_epoch), ("follower", 1, 1));
    assert_eq!(sb.replicas, vec![1, 2, 3]);
    assert!(
        b.server().replica_states().is_empty(),
        "followers track nobody"
    );
    assert_eq!(
        b.server().broker().fetchers.state_of(T, 0),
        Some((1, Phase::Fetching))
    );
}

#[test]
fn followers_serve_only_replica_reads() {
    let (a, b, _c) = three_nodes();
    let mut producer = a.connect();
    assert_eq!(produce(&mut producer, 4, -1, 10_000).0, 0);
    wait_in_sync(&a, &b);
    let mut client = b.connect();
    // producers and consumers are sent to the leader
    let r: ProduceResponse = client.call(ApiKey::Produce, 9, &produce_request(1, 1, 1000));
    assert_eq!(
        r.responses[0].partition_responses[0].error_code,
        ErrorCode::NotLeaderOrFollower.code()
    );
    assert_eq!(
        fetch_as(&mut client, -1, 0).0,
        ErrorCode::NotLeaderOrFollower.code()
    );
    assert_eq!(
        list_latest(&mut client, -1).0,
        ErrorCode::NotLeaderOrFollower.code()
    );
    // Kafka's debugging consumer (-2) reads any replica up to its high watermark
    let (error, hw, records) = fetch_as(&mut client, -2, 0);
    assert_eq!((error, hw), (0, 4));
    assert_eq!(records, a.log_bytes());
    assert_eq!(list_latest(&mut client, -2), (0, 4));
}

#[test]
fn acks_all_waits_for_every_isr_member() {
    let (a, b, mut c) = three_nodes();
    let mut producer = a.connect();
    assert_eq!(produce(&mut producer, 2, -1, 10_000).0, 0);
    wait_in_sync(&a, &c);
    c.stop();
    // 3 is still in the ISR but gone: nothing commits
    let (error, _) = produce(&mut producer, 2, -1, 300);
    assert_eq!(error, ErrorCode::RequestTimedOut.code());
    wait_until("2 has the batch", || b.offsets().0 == 4);
    assert_eq!(a.offsets(), (4, 2), "the leader's HW waits for 3");
    // acks=1 does not wait
    assert_eq!(produce(&mut producer, 1, 1, 1000), (0, 4));
    // the ISR policy drops 3: the waiting data commits
    let stale = a.server().set_isr(T, 0, vec![1, 2], 0).unwrap_err();
    assert!(stale.to_string().contains("FencedLeaderEpoch"), "{stale}");
    a.server().set_isr(T, 0, vec![1, 2], 1).expect("set isr");
    wait_until("the HW passes the batches", || a.offsets() == (5, 5));
    assert_eq!(produce(&mut producer, 1, -1, 10_000), (0, 5));
    wait_in_sync(&a, &b);
}

#[test]
fn a_follower_reconnects_when_its_leader_returns() {
    let (mut a, b) = (Node::start(1), Node::start(2));
    a.open(&[]);
    b.open(&[]);
    a.lead(1, &[1, 2], &[1, 2]);
    b.follow(&a, 1, &[1, 2]);
    assert_eq!(produce(&mut a.connect(), 3, -1, 10_000).0, 0);
    wait_in_sync(&a, &b);
    a.stop();
    std::thread::sleep(std::time::Duration::from_millis(300));
    a.restart();
    a.open(&[]);
    a.lead(1, &[1, 2], &[1, 2]);
    assert_eq!(produce(&mut a.connect(), 2, -1, 10_000), (0, 3));
    wait_in_sync(&a, &b);
}

#[test]
fn a_new_leader_replaces_the_old_one_for_its_followers() {
    let (a, b, c) = three_nodes();
    assert_eq!(produce(&mut a.connect(), 2, -1, 10_000).0, 0);
    wait_in_sync(&a, &c);
    // 2 takes over at epoch 2; 1 and 3 follow it
    b.lead(2, &[1, 2, 3], &[1, 2, 3]);
    a.follow(&b, 2, &[1, 2, 3]);
    c.follow(&b, 2, &[1, 2, 3]);
    assert!(a
        .server()
        .broker()
        .fetchers
        .state_of(T, 0)
        .is_some_and(|(l, _)| l == 2));
    assert!(
        b.server().broker().fetchers.state_of(T, 0).is_none(),
        "leaders do not fetch"
    );
    let mut producer = b.connect();
    assert_eq!(produce(&mut producer, 3, -1, 10_000), (0, 2));
    wait_in_sync(&b, &a);
    wait_in_sync(&b, &c);
    assert_eq!(a.epochs(), vec![(1, 0), (2, 2)]);
}

#[test]
fn followers_keep_the_transaction_state_of_what_they_replicate() {
    let (a, b, _c) = three_nodes();
    let mut batch = BatchBuilder::new(Codec::Zstd);
    batch.producer_id = 7;
    batch.producer_epoch = 0;
    batch.base_sequence = 0;
    batch.transactional = true;
    batch.records = (0..3)
        .map(|i| Record {
            key: None,
            value: Some(vec![i; 100]),
            headers: vec![],
            timestamp: crate::log::now_ms(),
        })
        .collect();
    assert_eq!(a.server().append(T, 0, &batch.build()).expect("append"), 0);
    wait_in_sync(&a, &b);
    assert_eq!(
        b.state().last_stable_offset,
        0,
        "the open transaction holds the LSO"
    );
    a.server()
        .write_marker(&MarkerRequest {
            topic: T.into(),
            partition: 0,
            producer_id: 7,
            producer_epoch: 0,
            coordinator_epoch: 0,
            commit: false,
            transaction_version: 0,
        })
        .expect("abort marker");
    assert_eq!(produce(&mut a.connect(), 1, -1, 10_000), (0, 4));
    wait_in_sync(&a, &b);
    let aborted = |n: &Node| {
        let p = n.server().broker().partitions.get(T, 0).expect("open");
        let log = p.log().read();
        let list: Vec<(i64, i64)> = log
            .aborted_transactions(0, log.log_end_offset())
            .iter()
            .map(|t| (t.producer_id, t.first_offset))
            .collect();
        (list, log.last_stable_offset())
    };
    assert_eq!(aborted(&b), (vec![(7, 0)], 5));
    assert_eq!(aborted(&b), aborted(&a));
}
