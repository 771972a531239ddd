//! Follower truncation beyond the simple case: KIP-279's walk back over epochs the leader
//! never had, and a follower that fell behind the leader's log start.

use super::cluster::{produce, wait_in_sync, Node, T};

#[test]
fn kip279_a_follower_walks_back_over_epochs_the_leader_never_had() {
    let (mut a, mut b) = (Node::start(1), Node::start(2));
    a.open(&[]);
    b.open(&[]);
    a.lead(1, &[1, 2], &[1, 2]);
    b.follow(&a, 1, &[1, 2]);
    assert_eq!(produce(&mut a.connect(), 1, -1, 10_000), (0, 0));
    wait_in_sync(&a, &b);
    // 2 goes down; 1 leads on alone at epoch 3 and writes offsets 1-2, then goes down
    b.stop();
    a.lead(3, &[1], &[1, 2]);
    let mut producer = a.connect();
    assert_eq!(produce(&mut producer, 1, 1, 10_000), (0, 1));
    assert_eq!(produce(&mut producer, 1, 1, 10_000), (0, 2));
    drop(producer);
    a.stop();
    // 2 comes back and leads at epochs 2 then 4, writing other records at offsets 1-2
    b.restart();
    b.open(&[]);
    b.lead(2, &[2], &[1, 2]);
    assert_eq!(produce(&mut b.connect(), 1, 1, 10_000), (0, 1));
    b.lead(4, &[2], &[1, 2]);
    assert_eq!(produce(&mut b.connect(), 1, 1, 10_000), (0, 2));
    assert_eq!(b.epochs(), vec![(1, 0), (2, 1), (4, 2)]);
    // 1 follows 2: asked about its epoch 3, 2 answers "epoch 2 ends at 2"; 1 has no epoch
    // 2, its epoch 1 ends at 1, so it cuts there and asks about epoch 1: "ends at 1". Cutting
    // only to 2 would keep 1's epoch-3 record at offset 1 and leave the replicas diverged.
    a.restart();
    a.open(&[]);
    assert_eq!(a.epochs(), vec![(1, 0), (3, 1)]);
    a.follow(&b, 4, &[1, 2]);
    wait_in_sync(&b, &a);
    assert_eq!(a.epochs(), vec![(1, 0), (2, 1), (4, 2)]);
}

#[test]
fn a_follower_that_led_past_the_epoch_it_shares_with_its_leader_drops_that_suffix() {
    let (a, b) = (Node::start(1), Node::start(2));
    a.open(&[]);
    b.open(&[]);
    a.lead(1, &[1], &[1, 2]);
    b.follow(&a, 1, &[1, 2]);
    let mut to_a = a.connect();
    for offset in 0..5 {
        assert_eq!(produce(&mut to_a, 1, 1, 10_000), (0, offset));
    }
    super::cluster::wait_until("2 has 0-4", || b.offsets().0 == 5);
    // 2 leads alone at epoch 3 (1 cut off) and writes offsets 5-7 that nobody copies, while
    // 1, still leading at epoch 1 as far as it knows, writes other records at 5-6
    b.lead(3, &[2], &[1, 2]);
    let mut to_b = b.connect();
    for offset in 5..8 {
        assert_eq!(produce(&mut to_b, 1, 1, 10_000), (0, offset));
    }
    for offset in 5..7 {
        assert_eq!(produce(&mut to_a, 1, 1, 10_000), (0, offset));
    }
    // 1 leads again at epoch 4; 2 follows. Asked about epoch 3, 1 answers "epoch 1 ends at
    // 7"; 2's own epoch 1 ends at 5, so 2 cuts there. Cutting at 7 would keep 2's epoch-3
    // records at 5-6, and every fetch would be told the same diverging epoch again.
    a.lead(4, &[1], &[1, 2]);
    b.follow(&a, 4, &[1, 2]);
    assert_eq!(produce(&mut to_a, 1, 1, 10_000), (0, 7));
    wait_in_sync(&a, &b);
    assert_eq!(b.epochs(), vec![(1, 0), (4, 7)]);
}

#[test]
fn a_follower_behind_the_leaders_log_start_starts_over_there() {
    let (a, mut b) = (Node::start(1), Node::start(2));
    a.open(&[]);
    b.open(&[]);
    a.lead(1, &[1, 2], &[1, 2]);
    b.follow(&a, 1, &[1, 2]);
    let mut producer = a.connect();
    for offset in 0..3 {
        assert_eq!(produce(&mut producer, 1, -1, 10_000), (0, offset));
    }
    wait_in_sync(&a, &b);
    b.stop();
    a.server().set_isr(T, 0, vec![1], 1).expect("set isr");
    for offset in 3..6 {
        assert_eq!(produce(&mut producer, 1, -1, 10_000), (0, offset));
    }
    assert_eq!(a.server().delete_records(T, 0, 5).expect("delete"), 5);
    b.restart();
    b.open(&[]);
    b.follow(&a, 1, &[1, 2]);
    wait_in_sync(&a, &b);
    assert_eq!(b.state().log_start_offset, 5);
    assert_eq!(b.offsets(), (6, 6));
}

#[test]
fn a_follower_told_of_a_diverging_epoch_in_a_fetch_truncates_and_continues() {
    let (a, b) = (Node::start(1), Node::start(2));
    a.open(&[]);
    b.open(&[]);
    a.lead(1, &[1, 2], &[1, 2]);
    b.follow(&a, 1, &[1, 2]);
    let mut producer = a.connect();
    for offset in 0..5 {
        assert_eq!(produce(&mut producer, 1, -1, 10_000), (0, offset));
    }
    wait_in_sync(&a, &b);
    // the leader loses its last two records (as an unflushed tail lost to a power cut): the
    // follower's next fetch, at 5 with last epoch 1, hears that epoch 1 ends at 3
    let p = a.server().broker().partitions.get(T, 0).expect("open");
    p.log().write().truncate_to(3).expect("truncate");
    super::cluster::wait_until("the follower truncated", || b.offsets().0 == 3);
    assert_eq!(produce(&mut producer, 2, 1, 10_000), (0, 3));
    wait_in_sync(&a, &b);
    assert_eq!(b.offsets().0, 5);
}

#[test]
fn a_follower_restarting_at_a_log_start_inside_a_batch_takes_the_whole_batch() {
    let (a, b) = (Node::start(1), Node::start(2));
    a.open(&[]);
    b.open(&[]);
    a.lead(1, &[1], &[1, 2]);
    let mut producer = a.connect();
    for offset in [0, 3, 6] {
        assert_eq!(produce(&mut producer, 3, -1, 10_000), (0, offset));
    }
    // the leader's log starts at 4, inside the batch 3-5; 2 has nothing and must start there
    assert_eq!(a.server().delete_records(T, 0, 4).expect("delete"), 4);
    b.follow(&a, 1, &[1, 2]);
    super::cluster::wait_until("2 caught up", || b.offsets() == (9, 9));
    let state = b.state();
    assert_eq!(
        state.log_start_offset, 4,
        "the leader's log start, once committed"
    );
}

#[test]
fn a_follower_without_epochs_past_its_leaders_end_truncates_to_the_leaders_end() {
    let (a, mut b) = (Node::start(1), Node::start(2));
    a.open(&[]);
    b.open(&[]);
    a.lead(1, &[1, 2], &[1, 2]);
    b.follow(&a, 1, &[1, 2]);
    let mut producer = a.connect();
    for offset in 0..5 {
        assert_eq!(produce(&mut producer, 1, -1, 10_000), (0, offset));
    }
    wait_in_sync(&a, &b);
    // 2 loses its leader-epoch checkpoint; 1 loses its last two records (as a lost unflushed
    // tail) but keeps leading
    b.stop();
    let p = a.server().broker().partitions.get(T, 0).expect("open");
    p.log().write().truncate_to(3).expect("truncate");
    drop(p);
    let dir = b.partition_dir();
    std::fs::remove_file(dir.join("leader-epoch-checkpoint")).expect("remove");
    b.restart();
    b.open(&[]);
    assert_eq!((b.offsets(), b.epochs()), ((5, 5), vec![]));
    // with no epoch to compare, 2 fetches at 5: out of range on the leader, whose end it
    // then asks for (OffsetForLeaderEpoch of the leader's epoch), and cuts its log there
    b.follow(&a, 1, &[1, 2]);
    super::cluster::wait_until("2 truncated", || b.offsets().0 == 3);
    assert_eq!(produce(&mut producer, 1, 1, 10_000), (0, 3));
    wait_in_sync(&a, &b);
}
