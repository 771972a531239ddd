//! The ISR's side of the data path: `min.insync.replicas`, `set_isr`, and epoch fencing of
//! role changes and fetches.

use kafka_protocol::messages::{ApiKey, BrokerId, FetchResponse, ProduceResponse};

use super::cluster::{produce, produce_request, wait_until, Node, T};
use super::produce_fetch::fetch_request;
use crate::error::ErrorCode;

#[test]
fn acks_all_is_refused_before_appending_when_the_isr_is_too_small() {
    let a = Node::start(1);
    a.open(&[("min.insync.replicas", "2")]);
    a.lead(1, &[1], &[1, 2]);
    let mut producer = a.connect();
    assert_eq!(
        produce(&mut producer, 2, -1, 1000).0,
        ErrorCode::NotEnoughReplicas.code()
    );
    assert_eq!(a.offsets(), (0, 0), "nothing appended");
    assert_eq!(
        produce(&mut producer, 2, 1, 1000),
        (0, 0),
        "acks=1 is not affected"
    );
}

/// KIP-966: under `min.insync.replicas` (counted up to the replica count) the leader appends
/// but does not commit, so the replica that left the ISR last holds every committed record.
#[test]
fn the_high_watermark_stays_while_the_isr_is_under_min_insync_replicas() {
    for (replicas, committed) in [(&[1, 2][..], 0), (&[1][..], 2)] {
        let a = Node::start(1);
        a.open(&[("min.insync.replicas", "2")]);
        a.lead(1, &[1], replicas);
        let mut producer = a.connect();
        assert_eq!(produce(&mut producer, 2, 1, 1000), (0, 0));
        assert_eq!(a.offsets(), (2, committed), "replicas {replicas:?}");
    }
}

#[test]
fn an_isr_shrinking_under_a_waiting_produce_leaves_it_uncommitted() {
    let a = Node::start(1);
    a.open(&[("min.insync.replicas", "2")]);
    a.lead(1, &[1, 2], &[1, 2]);
    let mut producer = a.connect();
    let id = producer.send(ApiKey::Produce, 9, &produce_request(2, -1, 1_000));
    wait_until("the batch is appended", || a.offsets().0 == 2);
    // follower 2 never fetched; the ISR policy removes it
    a.server().set_isr(T, 0, vec![1], 1).expect("set isr");
    let r: ProduceResponse = producer.receive(9, id);
    let p = &r.responses[0].partition_responses[0];
    assert_eq!(p.error_code, ErrorCode::RequestTimedOut.code());
    assert_eq!(
        a.offsets(),
        (2, 0),
        "stored, but an ISR under min.insync.replicas commits nothing"
    );
}

#[test]
fn acks_all_asking_more_replicas_than_the_partition_has_is_committed_by_all_it_has() {
    let a = Node::start(1);
    a.open(&[("min.insync.replicas", "3")]);
    a.lead(1, &[1], &[1]);
    let mut producer = a.connect();
    assert_eq!(produce(&mut producer, 2, -1, 1000), (0, 0));
    assert_eq!(a.offsets(), (2, 2));
}

#[test]
fn role_changes_from_an_older_epoch_are_refused() {
    let (a, b) = (Node::start(1), Node::start(2));
    a.open(&[]);
    b.open(&[]);
    a.lead(5, &[1, 2], &[1, 2]);
    b.follow(&a, 5, &[1, 2]);
    let fenced = |e: crate::server::CommandError| {
        assert!(e.to_string().contains("FencedLeaderEpoch"), "{e}");
    };
    fenced(
        a.server()
            .become_follower(T, 0, 4, 2, "127.0.0.1", 1, vec![1, 2])
            .unwrap_err(),
    );
    fenced(
        a.server()
            .become_leader(T, 0, 4, vec![1], vec![1, 2])
            .unwrap_err(),
    );
    fenced(
        b.server()
            .become_leader(T, 0, 4, vec![2], vec![1, 2])
            .unwrap_err(),
    );
    fenced(a.server().set_isr(T, 0, vec![1], 4).unwrap_err());
    let newer = a.server().set_isr(T, 0, vec![1], 6).unwrap_err();
    assert!(newer.to_string().contains("UnknownLeaderEpoch"), "{newer}");
    let follower = b.server().set_isr(T, 0, vec![2], 5).unwrap_err();
    assert!(
        follower.to_string().contains("NotLeaderOrFollower"),
        "{follower}"
    );
    assert_eq!((a.state().role, a.state().leader_epoch), ("leader", 5));
    assert_eq!((b.state().role, b.state().leader_epoch), ("follower", 5));
    // the same epoch again is a repeat, not a conflict
    b.follow(&a, 5, &[1, 2]);
}

#[test]
fn fetches_carrying_another_leader_epoch_are_fenced() {
    let a = Node::start(1);
    a.open(&[]);
    a.lead(5, &[1, 2], &[1, 2]);
    let mut client = a.connect();
    let mut ask = |epoch: i32| {
        let mut r = fetch_request(T, 0, 0, 1);
        r.replica_id = BrokerId(2);
        r.topics[0].partitions[0].current_leader_epoch = epoch;
        let f: FetchResponse = client.call(ApiKey::Fetch, 12, &r);
        f.responses[0].partitions[0].error_code
    };
    let follower_leo = || a.server().replica_states()[0].log_end_offset;
    assert_eq!(ask(4), ErrorCode::FencedLeaderEpoch.code());
    assert_eq!(ask(6), ErrorCode::UnknownLeaderEpoch.code());
    assert_eq!(
        follower_leo(),
        -1,
        "a fenced fetch says nothing about the follower's log"
    );
    assert_eq!(ask(5), 0);
    assert_eq!(follower_leo(), 0);
}

#[test]
fn a_new_leader_advances_its_high_watermark_only_as_followers_confirm() {
    let mut a = Node::start(1);
    a.open(&[]);
    a.lead(1, &[1], &[1, 2]);
    let mut producer = a.connect();
    assert_eq!(produce(&mut producer, 2, 1, 1000), (0, 0));
    assert_eq!(
        a.offsets(),
        (2, 2),
        "alone in the ISR, the leader commits by itself"
    );
    a.lead(2, &[1, 2], &[1, 2]);
    assert_eq!(produce(&mut producer, 1, 1, 1000), (0, 2));
    assert_eq!(a.offsets(), (3, 2), "2 has confirmed nothing");
    drop(producer);
    a.restart();
    a.open(&[]);
    a.lead(3, &[1, 2], &[1, 2]);
    assert_eq!(
        a.offsets(),
        (3, 2),
        "the checkpointed high watermark, not the log end"
    );
    let mut follower = a.connect();
    let mut r = fetch_request(T, 3, 0, 1);
    r.replica_id = BrokerId(2);
    r.topics[0].partitions[0].current_leader_epoch = 3;
    let f: FetchResponse = follower.call(ApiKey::Fetch, 12, &r);
    assert_eq!(f.responses[0].partitions[0].high_watermark, 3);
    assert_eq!(a.offsets(), (3, 3));
}
