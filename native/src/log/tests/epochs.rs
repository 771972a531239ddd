use tempfile::tempdir;

use super::*;

#[test]
fn end_offset_for_epoch_follows_kafka() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    assert_eq!(log.end_offset_for_epoch(0), None, "empty cache: undefined");
    log.assign_epoch_start(1).unwrap();
    log.append_as_leader(batch(3, 1, NOW), 1, NOW).unwrap(); // epoch 1: 0..3
    log.assign_epoch_start(3).unwrap();
    log.append_as_leader(batch(2, 1, NOW), 3, NOW).unwrap(); // epoch 3: 3..5
    log.append_as_leader(batch(2, 1, NOW), 5, NOW).unwrap(); // epoch 5 from a batch: 5..7
    assert_eq!(log.epoch_entries(), vec![(1, 0), (3, 3), (5, 5)]);
    assert_eq!(log.latest_epoch(), Some(5));
    assert_eq!(
        log.end_offset_for_epoch(5),
        Some((5, 7)),
        "latest epoch: the log end"
    );
    assert_eq!(log.end_offset_for_epoch(3), Some((3, 5)));
    assert_eq!(
        log.end_offset_for_epoch(4),
        Some((3, 5)),
        "unknown epoch: the largest below it"
    );
    assert_eq!(log.end_offset_for_epoch(1), Some((1, 3)));
    assert_eq!(
        log.end_offset_for_epoch(0),
        Some((0, 0)),
        "older than all: Kafka's answer"
    );
    assert_eq!(
        log.end_offset_for_epoch(6),
        None,
        "newer than all: undefined"
    );
    // Repeating the latest epoch later changes nothing.
    log.assign_epoch_start(5).unwrap();
    assert_eq!(log.epoch_entries(), vec![(1, 0), (3, 3), (5, 5)]);
}

#[test]
fn epoch_cache_is_persisted_and_truncated_with_the_log() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    log.append_as_leader(batch(3, 1, NOW), 1, NOW).unwrap();
    log.append_as_leader(batch(3, 1, NOW), 2, NOW).unwrap();
    log.append_as_leader(batch(3, 1, NOW), 4, NOW).unwrap();
    let text = std::fs::read_to_string(dir.path().join("leader-epoch-checkpoint")).unwrap();
    assert_eq!(text, "0\n3\n1 0\n2 3\n4 6\n");
    log.truncate_to(5).unwrap();
    assert_eq!(log.log_end_offset(), 3);
    assert_eq!(log.epoch_entries(), vec![(1, 0)]);
    log.set_high_watermark(3);
    log.delete_records_before(2).unwrap();
    assert_eq!(log.epoch_entries(), vec![(1, 2)]);
    drop(log);
    let log = Log::open(dir.path(), LogConfig::default(), 0, 2, 3).unwrap();
    assert_eq!(log.epoch_entries(), vec![(1, 2)]);
    assert_eq!(log.end_offset_for_epoch(1), Some((1, 3)));
}

#[test]
fn a_lower_epoch_at_a_later_offset_replaces_conflicting_entries() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    log.assign_epoch_start(5).unwrap();
    log.append_as_leader(batch(2, 1, NOW), 5, NOW).unwrap();
    // A new leader with epoch 6 at offset 2, then (as after an unclean election) epoch 4 is
    // assigned at offset 2: everything at or above it goes.
    log.assign_epoch_start(6).unwrap();
    log.assign_epoch_start(4).unwrap();
    assert_eq!(log.epoch_entries(), vec![(4, 2)]);
}

#[test]
fn recovery_rebuilds_epochs_that_the_checkpoint_lost() {
    // The checkpoint is written without an fsync: a power loss may leave it behind the log.
    // Recovery assigns the epochs of the batches it rescans, as Kafka's does.
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    log.append_as_leader(batch(3, 1, NOW), 1, NOW).unwrap();
    log.append_as_leader(batch(3, 1, NOW), 2, NOW).unwrap();
    log.append_as_leader(batch(3, 1, NOW), 4, NOW).unwrap();
    drop(log); // a crash
    std::fs::remove_file(dir.path().join("leader-epoch-checkpoint")).unwrap();
    let log = Log::open(dir.path(), LogConfig::default(), 0, 0, 0).unwrap();
    assert_eq!(log.epoch_entries(), vec![(1, 0), (2, 3), (4, 6)]);
}

#[test]
fn a_flush_makes_the_epoch_checkpoint_durable_once() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    log.append_as_leader(batch(3, 1, NOW), 1, NOW).unwrap();
    assert!(log.flush_plan().syncs_epochs());
    log.flush().unwrap();
    assert!(!log.flush_plan().syncs_epochs());
    log.append_as_leader(batch(3, 1, NOW), 2, NOW).unwrap();
    assert!(log.flush_plan().syncs_epochs());
}
