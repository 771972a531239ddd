//! KIP-101's two failure scenarios, replayed with real brokers: neither loses a committed
//! record nor leaves the replicas diverged, because followers truncate by leader epoch
//! (OffsetForLeaderEpoch) rather than to their own high watermark.

use super::cluster::{produce, wait_in_sync, wait_until, Node};
use crate::replica::fetcher::Phase;

fn truncations(node: &Node) -> u64 {
    let p = node
        .server()
        .broker()
        .partitions
        .get(super::cluster::T, 0)
        .expect("open");
    let n = p.log().read().truncations;
    n
}

/// Leader 1 and follower 2, both in the ISR at epoch 1; 2 long-polls for 5 s, so it holds
/// the last batch well before it hears that the batch is committed.
fn committed_tail_with_a_stale_follower_hw() -> (Node, Node, Vec<u8>) {
    let a = Node::start(1);
    let b = Node::start_with(2, &[("replica.fetch.wait.max.ms", "5000")]);
    a.open(&[]);
    b.open(&[]);
    a.lead(1, &[1, 2], &[1, 2]);
    b.follow(&a, 1, &[1, 2]);
    let mut producer = a.connect();
    assert_eq!(produce(&mut producer, 1, -1, 10_000), (0, 0));
    assert_eq!(produce(&mut producer, 1, -1, 10_000), (0, 1));
    assert_eq!(a.offsets(), (2, 2), "both records are committed");
    wait_until("2 has both records", || b.offsets().0 == 2);
    assert!(
        b.offsets().1 < 2,
        "2's high watermark lags: {:?}",
        b.offsets()
    );
    let log = a.log_bytes();
    (a, b, log)
}

#[test]
fn kip101_scenario1_a_restarted_follower_does_not_truncate_to_its_stale_high_watermark() {
    let (a, mut b, committed) = committed_tail_with_a_stale_follower_hw();
    b.restart_with(&[("replica.fetch.wait.max.ms", "100")]);
    b.open(&[]);
    assert!(
        b.offsets().1 < 2,
        "the checkpointed high watermark is the stale one"
    );
    // 1 is re-elected at epoch 2; 2 follows it and checks its tail by epoch: epoch 1 ends at
    // offset 2 on the leader too, so nothing is cut
    a.lead(2, &[1, 2], &[1, 2]);
    b.follow(&a, 2, &[1, 2]);
    wait_until("2 fetches", || {
        b.server().broker().fetchers.state_of(super::cluster::T, 0) == Some((1, Phase::Fetching))
    });
    wait_in_sync(&a, &b);
    assert_eq!(truncations(&b), 0, "the follower never cut its tail");
    // 1 is lost now: 2 leads, with both committed records
    drop(a);
    b.lead(3, &[2], &[1, 2]);
    assert_eq!(b.log_bytes(), committed);
}

#[test]
fn kip101_scenario1_the_leader_is_lost_before_the_restarted_follower_refetches() {
    let (mut a, mut b, committed) = committed_tail_with_a_stale_follower_hw();
    b.restart_with(&[("replica.fetch.wait.max.ms", "100")]);
    b.open(&[]);
    // 2 follows 1 again but 1 dies before 2 reaches it: 2 must not have cut its log to its
    // high watermark meanwhile
    a.stop();
    b.follow(&a, 1, &[1, 2]);
    std::thread::sleep(std::time::Duration::from_millis(200));
    b.lead(2, &[2], &[1, 2]);
    assert_eq!(b.log_bytes(), committed, "no committed record lost");
    // 1 returns as a follower of 2 and keeps the same records (epoch 1 ends at 2 on both)
    a.restart();
    a.open(&[]);
    a.follow(&b, 2, &[1, 2]);
    assert_eq!(produce(&mut b.connect(), 3, -1, 10_000), (0, 2));
    wait_in_sync(&b, &a);
    assert_eq!(truncations(&a), 0);
    assert_eq!(&a.log_bytes()[..committed.len()], &committed[..]);
    assert_eq!(a.epochs(), vec![(1, 0), (2, 2)]);
}

#[test]
fn kip101_scenario2_replicas_restarting_with_different_tails_converge_on_the_new_leader() {
    let (mut a, mut b) = (Node::start(1), Node::start(2));
    a.open(&[]);
    b.open(&[]);
    a.lead(1, &[1, 2], &[1, 2]);
    b.follow(&a, 1, &[1, 2]);
    let mut producer = a.connect();
    assert_eq!(produce(&mut producer, 1, -1, 10_000), (0, 0));
    wait_in_sync(&a, &b);
    // 2 goes down; 1 takes a tail at offsets 1-3 that nobody else has (acks=1), then goes
    // down too
    b.stop();
    for offset in 1..4 {
        assert_eq!(produce(&mut producer, 1, 1, 10_000), (0, offset));
    }
    drop(producer);
    a.stop();
    // 2 comes back first and leads at epoch 2, writing other records at the same offsets
    b.restart();
    b.open(&[]);
    b.lead(2, &[2], &[1, 2]);
    assert_eq!(produce(&mut b.connect(), 2, 1, 10_000), (0, 1));
    // 1 comes back as its follower: its epoch-1 tail past offset 1 goes, 2's data wins
    a.restart();
    a.open(&[]);
    assert_eq!(a.offsets().0, 4);
    a.follow(&b, 2, &[1, 2]);
    wait_in_sync(&b, &a);
    assert_eq!(a.offsets(), (3, 3));
    assert_eq!(
        a.epochs(),
        vec![(1, 0), (2, 1)],
        "truncated to the epoch boundary"
    );
    assert!(truncations(&a) > 0);
}
