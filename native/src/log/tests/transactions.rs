use tempfile::tempdir;

use super::*;
use crate::error::ErrorCode;
use crate::log::AbortedTxn;

fn txn_batch(producer_id: i64, seq: i32, records: usize) -> BytesMut {
    let mut b = BatchBuilder::new(Codec::None).producer(producer_id, 0, seq);
    b.transactional = true;
    for _ in 0..records {
        b = b.record(Record::new(None, Some(b"t"), NOW));
    }
    BytesMut::from(&b.build()[..])
}

/// Producer 1 commits offsets 1-2, producer 2 aborts 3-4 and 7 (markers at 6 and 8).
fn two_transactions(log: &mut Log) {
    log.append_as_leader(batch(1, 1, NOW), 0, NOW).unwrap(); // 0
    log.append_as_leader(txn_batch(1, 0, 2), 0, NOW).unwrap(); // 1-2
    log.append_as_leader(txn_batch(2, 0, 2), 0, NOW).unwrap(); // 3-4
    log.set_high_watermark(log.log_end_offset());
    assert_eq!(
        log.last_stable_offset(),
        1,
        "producer 1's transaction is open"
    );
    log.append_marker(1, 0, 0, true, 0, 0, NOW).unwrap(); // 5
    log.set_high_watermark(log.log_end_offset());
    assert_eq!(
        log.last_stable_offset(),
        3,
        "producer 2's transaction is still open"
    );
    log.append_marker(2, 0, 0, false, 0, 0, NOW).unwrap(); // 6
    log.append_as_leader(txn_batch(2, 2, 1), 0, NOW).unwrap(); // 7
    log.append_marker(2, 0, 0, false, 0, 0, NOW).unwrap(); // 8
    log.set_high_watermark(log.log_end_offset());
    assert_eq!(log.last_stable_offset(), 9);
}

const ABORTED: [AbortedTxn; 2] = [
    AbortedTxn {
        producer_id: 2,
        first_offset: 3,
        last_offset: 6,
        last_stable_offset: 7,
    },
    AbortedTxn {
        producer_id: 2,
        first_offset: 7,
        last_offset: 8,
        last_stable_offset: 9,
    },
];

#[test]
fn markers_end_transactions_and_aborts_are_indexed() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    two_transactions(&mut log);
    assert_eq!(log.aborted_transactions(0, 9), ABORTED);
    assert_eq!(log.aborted_transactions(7, 9), ABORTED[1..]);
    assert_eq!(log.aborted_transactions(0, 3), []);
    let file = std::fs::read(dir.path().join("00000000000000000000.txnindex")).unwrap();
    assert_eq!(file.len(), 2 * 34);
    assert_eq!(&file[..2], &[0, 0], "version 0");
    // The marker is a control batch at its own offset.
    let marker = batches_in(&log.read(6, 1000, i64::MAX, true).unwrap())[0];
    assert!(marker.is_control() && marker.is_transactional());
    assert_eq!((marker.base_offset, marker.producer_id), (6, 2));
}

#[test]
fn stale_markers_are_fenced() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    log.append_as_leader(txn_batch(1, 0, 1), 0, NOW).unwrap();
    log.append_marker(1, 0, 5, true, 0, 0, NOW).unwrap();
    assert_eq!(
        log.append_marker(1, 0, 4, false, 0, 0, NOW).unwrap_err(),
        ErrorCode::TransactionCoordinatorFenced
    );
}

#[test]
fn aborted_transactions_survive_reopen_clean_or_not_and_follow_truncation() {
    for clean in [true, false] {
        let dir = tempdir().unwrap();
        let mut log = open(dir.path(), small_config());
        two_transactions(&mut log);
        if clean {
            log.close().unwrap();
        }
        drop(log);
        if !clean {
            std::fs::remove_file(dir.path().join("00000000000000000000.txnindex")).unwrap();
        }
        let rp = if clean { i64::MAX } else { 0 };
        let mut log = Log::open(dir.path(), small_config(), rp, 0, 9).unwrap();
        assert_eq!(log.aborted_transactions(0, 9), ABORTED, "clean: {clean}");
        assert_eq!(log.last_stable_offset(), 9);
        log.truncate_to(8).unwrap();
        assert_eq!(log.aborted_transactions(0, 9), ABORTED[..1]);
        log.set_high_watermark(8);
        assert_eq!(
            log.last_stable_offset(),
            7,
            "the truncated transaction is open again"
        );
    }
}

#[test]
fn followers_index_the_aborts_they_replicate() {
    let leader_dir = tempdir().unwrap();
    let follower_dir = tempdir().unwrap();
    let mut leader = open(leader_dir.path(), LogConfig::default());
    two_transactions(&mut leader);
    let mut follower = open(follower_dir.path(), LogConfig::default());
    let bytes = slice_bytes(&leader.read(0, 1 << 20, i64::MAX, true).unwrap());
    follower.append_as_follower(&bytes, NOW).unwrap();
    assert_eq!(follower.aborted_transactions(0, 9), ABORTED);
}
