//! Sequence, epoch, duplicate and transaction rules, and snapshot files.

use super::*;
use crate::record::builder::{control_batch, BatchBuilder, Record};
use crate::record::compression::Codec;
use crate::record::producer_snapshot::{
    self, delete_snapshots_above, snapshot_offsets, snapshot_path,
};

/// The header of a batch from producer `pid` with `n` records, appended at `offset`.
fn batch(pid: i64, epoch: i16, seq: i32, n: usize, offset: i64) -> BatchHeader {
    let mut b = BatchBuilder::new(Codec::None).producer(pid, epoch, seq);
    b.records = (0..n)
        .map(|i| Record::new(None, Some(b"v"), 1000 + i as i64))
        .collect();
    let mut bytes = b.build();
    crate::record::validate::assign_offsets(&mut bytes, offset, 0);
    BatchHeader::parse(&bytes).unwrap()
}

fn txn_batch(pid: i64, epoch: i16, seq: i32, n: usize, offset: i64) -> BatchHeader {
    BatchHeader {
        attributes: crate::record::batch::ATTR_TRANSACTIONAL,
        ..batch(pid, epoch, seq, n, offset)
    }
}

fn marker(pid: i64, epoch: i16, offset: i64) -> BatchHeader {
    let mut bytes = control_batch(pid, epoch, true, 5, 2000);
    crate::record::validate::assign_offsets(&mut bytes, offset, 0);
    BatchHeader::parse(&bytes).unwrap()
}

/// Producer 1 at epoch 3 has appended seq 0..=9 at offsets 100..=109 (two batches).
fn state() -> ProducerStateManager {
    let mut s = ProducerStateManager::new();
    s.update(&batch(1, 3, 0, 5, 100), 0);
    s.update(&batch(1, 3, 5, 5, 105), 0);
    s
}

#[test]
fn sequence_and_epoch_table() {
    use ErrorCode::{InvalidProducerEpoch, OutOfOrderSequenceNumber};
    let s = state();
    type Case = (
        &'static str,
        BatchHeader,
        Result<Option<DuplicateBatch>, ErrorCode>,
    );
    let cases: &[Case] = &[
        ("next in sequence", batch(1, 3, 10, 2, 0), Ok(None)),
        ("gap", batch(1, 3, 11, 1, 0), Err(OutOfOrderSequenceNumber)),
        (
            "overlap, not a duplicate",
            batch(1, 3, 7, 3, 0),
            Err(OutOfOrderSequenceNumber),
        ),
        (
            "older epoch",
            batch(1, 2, 10, 1, 0),
            Err(InvalidProducerEpoch),
        ),
        ("newer epoch from 0", batch(1, 4, 0, 1, 0), Ok(None)),
        (
            "newer epoch not from 0",
            batch(1, 4, 10, 1, 0),
            Err(OutOfOrderSequenceNumber),
        ),
        (
            "unknown producer, any sequence",
            batch(2, 0, 12345, 1, 0),
            Ok(None),
        ),
        ("no producer id", batch(-1, -1, -1, 1, 0), Ok(None)),
        (
            "duplicate of the first batch",
            batch(1, 3, 0, 5, 0),
            Ok(Some(DuplicateBatch {
                base_offset: 100,
                last_offset: 104,
                timestamp: 1004,
            })),
        ),
        (
            "duplicate of the last batch",
            batch(1, 3, 5, 5, 0),
            Ok(Some(DuplicateBatch {
                base_offset: 105,
                last_offset: 109,
                timestamp: 1004,
            })),
        ),
        (
            "same first sequence, other last",
            batch(1, 3, 5, 4, 0),
            Err(OutOfOrderSequenceNumber),
        ),
        (
            "duplicate sequences under a newer epoch",
            batch(1, 4, 5, 5, 0),
            Err(OutOfOrderSequenceNumber),
        ),
    ];
    for (name, header, want) in cases {
        assert_eq!(&s.check(header), want, "{name}");
    }
}

#[test]
fn only_the_last_five_batches_are_remembered() {
    let mut s = ProducerStateManager::new();
    for i in 0..7 {
        s.update(&batch(1, 0, i * 2, 2, 10 + i64::from(i) * 2), 0);
    }
    assert_eq!(s.entry(1).unwrap().batches.len(), NUM_BATCHES_TO_RETAIN);
    assert!(s.check(&batch(1, 0, 4, 2, 0)).unwrap().is_some());
    // Evicted: no longer recognised, and not in sequence either.
    assert_eq!(
        s.check(&batch(1, 0, 2, 2, 0)),
        Err(ErrorCode::OutOfOrderSequenceNumber)
    );
}

#[test]
fn sequences_wrap_at_i32_max() {
    let mut s = ProducerStateManager::new();
    s.update(&batch(1, 0, i32::MAX - 1, 2, 0), 0);
    assert_eq!(s.entry(1).unwrap().last_seq(), i32::MAX);
    assert_eq!(s.check(&batch(1, 0, 0, 1, 0)), Ok(None));
    assert_eq!(
        s.check(&batch(1, 0, 1, 1, 0)),
        Err(ErrorCode::OutOfOrderSequenceNumber)
    );
    // A batch that itself wraps.
    let mut s = ProducerStateManager::new();
    s.update(&batch(1, 0, i32::MAX, 3, 0), 0);
    assert_eq!(s.entry(1).unwrap().last_seq(), 1);
    assert_eq!(s.check(&batch(1, 0, 2, 1, 0)), Ok(None));
    assert!(s.check(&batch(1, 0, i32::MAX, 3, 0)).unwrap().is_some());
}

#[test]
fn a_new_epoch_resets_the_remembered_batches() {
    let mut s = state();
    s.update(&batch(1, 4, 0, 1, 110), 0);
    assert_eq!(s.entry(1).unwrap().epoch, 4);
    assert_eq!(s.entry(1).unwrap().batches.len(), 1);
    assert_eq!(s.check(&batch(1, 4, 1, 1, 0)), Ok(None));
    assert_eq!(
        s.check(&batch(1, 3, 10, 1, 0)),
        Err(ErrorCode::InvalidProducerEpoch)
    );
}

#[test]
fn transactions_track_the_first_unstable_offset() {
    let mut s = ProducerStateManager::new();
    assert_eq!(s.first_unstable_offset(), None);
    s.update(&txn_batch(1, 0, 0, 2, 10), 0);
    s.update(&txn_batch(2, 0, 0, 1, 12), 0);
    s.update(&txn_batch(1, 0, 2, 1, 13), 0);
    assert_eq!(s.first_unstable_offset(), Some(10));
    assert_eq!(s.current_txn_first_offset(1), Some(10));
    // A non-transactional write while the transaction is open.
    assert_eq!(
        s.check(&batch(1, 0, 3, 1, 0)),
        Err(ErrorCode::InvalidTxnState)
    );
    assert_eq!(s.check(&txn_batch(1, 0, 3, 1, 0)), Ok(None));
    // Markers from an older epoch are fenced; the current one closes the transaction.
    s.update(&marker(1, 0, 14), 0);
    s.set_coordinator_epoch(1, 5);
    assert_eq!(s.first_unstable_offset(), Some(12));
    assert_eq!(s.current_txn_first_offset(1), None);
    assert_eq!(s.check(&batch(1, 0, 3, 1, 0)), Ok(None));
    s.update(&marker(2, 0, 15), 0);
    assert_eq!(s.first_unstable_offset(), None);
    assert_eq!(s.entry(1).unwrap().coordinator_epoch, 5);
}

#[test]
fn stale_markers_are_fenced() {
    let mut s = ProducerStateManager::new();
    s.update(&txn_batch(1, 3, 0, 1, 7), 0);
    assert_eq!(
        s.check(&marker(1, 2, 8)),
        Err(ErrorCode::InvalidProducerEpoch)
    );
    assert_eq!(s.check(&marker(1, 3, 8)), Ok(None));
    assert_eq!(
        s.check_marker(&marker(1, 2, 8), 0, 0),
        Err(ErrorCode::InvalidProducerEpoch)
    );
    assert_eq!(s.update_marker(&marker(1, 3, 8), 4, 0), Some(7));
    assert_eq!(
        s.check_marker(&marker(1, 3, 9), 3, 0),
        Err(ErrorCode::TransactionCoordinatorFenced)
    );
    assert_eq!(s.check_marker(&marker(1, 3, 9), 4, 0), Ok(()));
    assert_eq!(
        s.check_marker(&marker(99, 0, 9), 0, 0),
        Ok(()),
        "unknown producer"
    );
    assert_eq!(
        s.update_marker(&marker(1, 3, 9), 4, 0),
        None,
        "no transaction open"
    );
}

#[test]
fn a_version_2_marker_needs_a_newer_epoch_and_the_next_transaction_starts_at_sequence_0() {
    let mut s = ProducerStateManager::new();
    s.update(&txn_batch(1, 3, 0, 2, 7), 0);
    // The coordinator bumped the epoch (3 -> 4) as it ended the transaction.
    for stale in [2, 3] {
        assert_eq!(
            s.check_marker(&marker(1, stale, 9), 0, 2),
            Err(ErrorCode::InvalidProducerEpoch),
            "epoch {stale} under transaction version 2"
        );
    }
    assert_eq!(
        s.check_marker(&marker(1, 3, 9), 0, 0),
        Ok(()),
        "version 0 rule"
    );
    assert_eq!(s.check_marker(&marker(1, 4, 9), 0, 2), Ok(()));
    assert_eq!(s.update_marker(&marker(1, 4, 9), 0, 0), Some(7));
    // Written again (no transaction open at that epoch now): accepted.
    assert_eq!(s.check_marker(&marker(1, 4, 10), 0, 2), Ok(()));
    // The producer's next transaction, on the marker's epoch, from sequence 0.
    assert_eq!(s.check(&txn_batch(1, 4, 0, 1, 11)), Ok(None));
    assert_eq!(
        s.check(&txn_batch(1, 4, 5, 1, 11)),
        Err(ErrorCode::OutOfOrderSequenceNumber)
    );
    s.update(&txn_batch(1, 4, 0, 1, 11), 0);
    // With that transaction open, the same epoch is no longer a repeat.
    assert_eq!(
        s.check_marker(&marker(1, 4, 12), 0, 2),
        Err(ErrorCode::InvalidProducerEpoch)
    );
}

#[test]
fn truncation_forgets_batches_at_and_above_the_offset() {
    let mut s = state();
    s.update(&txn_batch(2, 0, 0, 1, 110), 0);
    s.truncate_to(105);
    assert_eq!(s.entry(1).unwrap().batches.len(), 1);
    assert_eq!(
        s.check(&batch(1, 3, 5, 5, 0)),
        Ok(None),
        "the truncated batch may be written again"
    );
    assert!(s.entry(2).is_none());
    assert_eq!(s.first_unstable_offset(), None);
    s.truncate_to(0);
    assert!(s.is_empty());
}

#[test]
fn expired_producers_are_dropped_unless_in_a_transaction() {
    let mut s = ProducerStateManager::new();
    s.update(&batch(1, 0, 0, 1, 0), 0); // timestamp 1000
    s.update(&txn_batch(2, 0, 0, 1, 1), 0);
    s.remove_expired(10_000, 5_000);
    assert!(s.entry(1).is_none());
    assert!(s.entry(2).is_some());
}

#[test]
fn snapshots_round_trip_the_last_batch_and_the_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = state();
    s.update(&txn_batch(2, 7, i32::MAX, 3, 110), 0);
    s.set_coordinator_epoch(1, 9);
    s.write_snapshot(dir.path(), 113).unwrap();
    assert!(snapshot_path(dir.path(), 113).ends_with("00000000000000000113.snapshot"));

    let (loaded, offset) = ProducerStateManager::load_snapshot(dir.path(), i64::MAX).unwrap();
    assert_eq!(offset, 113);
    let e1 = loaded.entry(1).unwrap();
    assert_eq!(
        (e1.epoch, e1.coordinator_epoch, e1.batches.len()),
        (3, 9, 1)
    );
    assert_eq!(loaded.check(&batch(1, 3, 10, 1, 0)), Ok(None));
    assert!(
        loaded.check(&batch(1, 3, 5, 5, 0)).unwrap().is_some(),
        "last batch still a duplicate"
    );
    let e2 = loaded.entry(2).unwrap();
    assert_eq!(
        (e2.batches[0].first_seq, e2.batches[0].last_seq),
        (i32::MAX, 1)
    );
    assert_eq!(loaded.first_unstable_offset(), Some(110));
}

#[test]
fn load_skips_corrupt_and_newer_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    state().write_snapshot(dir.path(), 10).unwrap();
    let mut newer = state();
    newer.update(&batch(1, 3, 10, 1, 110), 0);
    newer.write_snapshot(dir.path(), 111).unwrap();
    newer.write_snapshot(dir.path(), 200).unwrap();
    std::fs::write(dir.path().join("junk.snapshot"), b"x").unwrap();

    // Flip a byte under the CRC of the 200 snapshot.
    let path = snapshot_path(dir.path(), 200);
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();

    let (s, offset) = ProducerStateManager::load_snapshot(dir.path(), i64::MAX).unwrap();
    assert_eq!(offset, 111);
    assert_eq!(s.entry(1).unwrap().last_seq(), 10);
    let (_, offset) = ProducerStateManager::load_snapshot(dir.path(), 110).unwrap();
    assert_eq!(offset, 10);
    let (s, offset) = ProducerStateManager::load_snapshot(dir.path(), 5).unwrap();
    assert_eq!((offset, s.is_empty()), (0, true));

    assert_eq!(delete_snapshots_above(dir.path(), 10).unwrap(), 2);
    assert_eq!(snapshot_offsets(dir.path()).unwrap(), [10]);
}

#[test]
fn a_missing_directory_has_no_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let (s, offset) = ProducerStateManager::load_snapshot(&dir.path().join("gone"), 100).unwrap();
    assert_eq!((offset, s.is_empty()), (0, true));
}

#[test]
fn snapshot_format_is_kafkas() {
    let mut s = ProducerStateManager::new();
    s.update(&batch(5, 1, 0, 2, 40), 0);
    let bytes = producer_snapshot::encode(&s);
    assert_eq!(&bytes[..2], &[0, 1]);
    assert_eq!(bytes.len(), 6 + 4 + 46);
    assert_eq!(&bytes[6..10], &1i32.to_be_bytes());
    assert_eq!(&bytes[10..18], &5i64.to_be_bytes());
    assert_eq!(&bytes[20..24], &1i32.to_be_bytes(), "last sequence");
    assert_eq!(&bytes[24..32], &41i64.to_be_bytes(), "last offset");
    assert_eq!(
        &bytes[48..56],
        &(-1i64).to_be_bytes(),
        "no open transaction"
    );
    assert_eq!(producer_snapshot::decode(&bytes), Some(s));
    for cut in [0, 5, 10, bytes.len() - 1] {
        assert_eq!(producer_snapshot::decode(&bytes[..cut]), None);
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone, Copy)]
    enum Op {
        Next,
        RetryLast,
        Gap,
        NewEpoch,
        OldEpoch,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => Just(Op::Next),
            2 => Just(Op::RetryLast),
            1 => Just(Op::Gap),
            1 => Just(Op::NewEpoch),
            1 => Just(Op::OldEpoch),
        ]
    }

    fn next_after(seq: i32) -> i32 {
        if seq == i32::MAX {
            0
        } else {
            seq + 1
        }
    }

    /// What each kind of batch must get, whatever came before, checked against a model that
    /// only knows each producer's epoch, next sequence and last batch.
    struct Known {
        epoch: i16,
        next_seq: i32,
        last: (i32, usize, i64),
    }

    proptest! {
        #[test]
        fn sequence_rules_hold_over_random_histories(
            ops in proptest::collection::vec((0i64..3, op(), 1usize..4), 1..60),
            start in prop_oneof![Just(0i32), Just(i32::MAX - 5)],
        ) {
            let mut s = ProducerStateManager::new();
            let mut known: std::collections::HashMap<i64, Known> = Default::default();
            let mut leo = 0i64;
            for (pid, op, n) in ops {
                let Some(k) = known.get(&pid) else {
                    // First batch of a producer: any sequence goes.
                    let h = batch(pid, 1, start, n, leo);
                    prop_assert_eq!(s.check(&h), Ok(None));
                    s.update(&h, 0);
                    let next_seq = next_after(h.last_sequence());
                    known.insert(pid, Known { epoch: 1, next_seq, last: (start, n, leo) });
                    leo += n as i64;
                    continue;
                };
                let (h, want) = match op {
                    Op::Next => (batch(pid, k.epoch, k.next_seq, n, leo), Ok(None)),
                    Op::RetryLast => {
                        let (seq, n, offset) = k.last;
                        let last_offset = offset + n as i64 - 1;
                        let timestamp = 1000 + n as i64 - 1;
                        let dup = DuplicateBatch { base_offset: offset, last_offset, timestamp };
                        (batch(pid, k.epoch, seq, n, leo), Ok(Some(dup)))
                    }
                    Op::Gap => {
                        let h = batch(pid, k.epoch, next_after(k.next_seq), n, leo);
                        (h, Err(ErrorCode::OutOfOrderSequenceNumber))
                    }
                    Op::NewEpoch => (batch(pid, k.epoch + 1, 0, n, leo), Ok(None)),
                    Op::OldEpoch => {
                        let h = batch(pid, k.epoch - 1, k.next_seq, n, leo);
                        (h, Err(ErrorCode::InvalidProducerEpoch))
                    }
                };
                prop_assert_eq!(s.check(&h), want, "{:?}", op);
                if want == Ok(None) {
                    s.update(&h, 0);
                    known.insert(pid, Known {
                        epoch: h.producer_epoch,
                        next_seq: next_after(h.last_sequence()),
                        last: (h.base_sequence, n, leo),
                    });
                    leo += n as i64;
                }
                prop_assert!(s.entry(pid).unwrap().batches.len() <= NUM_BATCHES_TO_RETAIN);
            }
            // A snapshot keeps enough to accept each producer's next batch and refuse a gap.
            let restored = producer_snapshot::decode(&producer_snapshot::encode(&s)).unwrap();
            for (pid, k) in &known {
                let next = batch(*pid, k.epoch, k.next_seq, 1, leo);
                prop_assert_eq!(restored.check(&next), Ok(None));
                prop_assert_eq!(
                    restored.check(&batch(*pid, k.epoch, next_after(k.next_seq), 1, leo)),
                    Err(ErrorCode::OutOfOrderSequenceNumber)
                );
            }
        }
    }
}
