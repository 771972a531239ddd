use tempfile::tempdir;

use super::*;
use crate::error::ErrorCode;

const HOUR: i64 = 3_600_000;

#[test]
fn retention_by_time_deletes_old_segments_but_not_the_active_one_nor_past_the_hw() {
    let dir = tempdir().unwrap();
    let config = LogConfig {
        retention_ms: HOUR,
        ..small_config()
    };
    let mut log = open(dir.path(), config);
    // Old data (two hours ago), then recent data.
    for _ in 0..30 {
        log.append_as_leader(batch(2, 60, NOW - 2 * HOUR), 0, NOW)
            .unwrap();
    }
    let old_end = log.log_end_offset();
    log.roll().unwrap();
    for _ in 0..30 {
        log.append_as_leader(batch(2, 60, NOW), 0, NOW).unwrap();
    }
    // Nothing is deleted above the high watermark.
    assert_eq!(log.apply_retention(NOW).unwrap(), 0);
    log.set_high_watermark(log.log_end_offset());
    let before = log.segment_count();
    let deleted = log.apply_retention(NOW).unwrap();
    assert!(deleted > 0);
    assert_eq!(log.segment_count(), before - deleted);
    assert_eq!(log.log_start_offset(), old_end);
    assert_eq!(log.segment_base_offsets()[0], old_end);
    assert_eq!(
        log.read(0, 100, i64::MAX, true).unwrap_err(),
        ErrorCode::OffsetOutOfRange
    );
    assert_eq!(read_all(&log).first().unwrap().0, old_end);
    // Everything expired: the active segment stays.
    log.apply_retention(NOW + 10 * HOUR).unwrap();
    assert_eq!(log.segment_count(), 1);
}

#[test]
fn retention_by_size_keeps_at_most_retention_bytes() {
    let dir = tempdir().unwrap();
    let config = LogConfig {
        retention_bytes: 5000,
        retention_ms: -1,
        ..small_config()
    };
    let mut log = open(dir.path(), config);
    for _ in 0..100 {
        log.append_as_leader(batch(2, 60, NOW), 0, NOW).unwrap();
    }
    log.set_high_watermark(log.log_end_offset());
    let total = log.size_bytes();
    let deleted = log.apply_retention(NOW).unwrap();
    assert!(deleted > 0);
    assert!(
        log.size_bytes() <= 5000 + 2048,
        "at most one segment over the limit"
    );
    assert!(log.size_bytes() < total);
    let data_on_disk: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    assert_eq!(data_on_disk, log.size_bytes());
    assert_eq!(read_all(&log).last().unwrap().1, 199);
}

#[test]
fn compact_only_topics_are_not_deleted_by_retention() {
    let dir = tempdir().unwrap();
    let config = LogConfig {
        retention_bytes: 0,
        compact: true,
        delete: false,
        ..small_config()
    };
    let mut log = open(dir.path(), config);
    for _ in 0..50 {
        log.append_as_leader(batch(2, 60, NOW), 0, NOW).unwrap();
    }
    log.set_high_watermark(log.log_end_offset());
    assert_eq!(log.apply_retention(NOW + 100 * HOUR).unwrap(), 0);
}

#[test]
fn roll_by_time_from_the_first_append() {
    let dir = tempdir().unwrap();
    let config = LogConfig {
        segment_ms: HOUR,
        ..LogConfig::default()
    };
    let mut log = open(dir.path(), config);
    log.maybe_roll(NOW).unwrap();
    assert_eq!(log.segment_count(), 1, "an empty segment never rolls");
    log.append_as_leader(batch(1, 1, NOW), 0, NOW).unwrap();
    log.maybe_roll(NOW + HOUR - 1).unwrap();
    assert_eq!(log.segment_count(), 1);
    log.maybe_roll(NOW + HOUR).unwrap();
    assert_eq!(log.segment_base_offsets(), vec![0, 1]);
    // An append after segment.ms rolls too.
    log.append_as_leader(batch(1, 1, NOW), 0, NOW + HOUR)
        .unwrap();
    log.append_as_leader(batch(1, 1, NOW), 0, NOW + 2 * HOUR)
        .unwrap();
    assert_eq!(log.segment_base_offsets(), vec![0, 1, 2]);
}

#[test]
fn roll_when_the_index_is_full() {
    // 32 bytes: room for 4 offset-index entries (and 2 time-index entries), an entry every
    // batch. 4, Kafka's smallest segment.index.bytes: room for none, so every batch starts a
    // segment of its own and reads and recovery scan.
    for (index_bytes, fewest_segments) in [(32, 4), (4, 20)] {
        let dir = tempdir().unwrap();
        let config = LogConfig {
            segment_index_bytes: index_bytes,
            index_interval_bytes: 1,
            ..LogConfig::default()
        };
        let mut log = open(dir.path(), config.clone());
        for i in 0..20 {
            log.append_as_leader(batch(1, 10, NOW + i), 0, NOW).unwrap();
        }
        assert!(log.segment_count() >= fewest_segments, "{index_bytes}");
        let all = read_all(&log);
        assert_eq!(all.len(), 20);
        log.close().unwrap();
        drop(log);
        let log = Log::open(dir.path(), config.clone(), i64::MAX, 0, 0).unwrap();
        assert_eq!(read_all(&log), all);
        drop(log);
        // And from the start, as after a crash.
        let log = Log::open(dir.path(), config, 0, 0, 0).unwrap();
        assert_eq!(read_all(&log), all, "{index_bytes}");
    }
}

#[test]
fn delete_records_moves_the_log_start_and_drops_whole_segments() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), small_config());
    for _ in 0..60 {
        log.append_as_leader(batch(2, 60, NOW), 0, NOW).unwrap();
    }
    log.set_high_watermark(100);
    assert_eq!(
        log.delete_records_before(101).unwrap_err(),
        ErrorCode::OffsetOutOfRange
    );
    let segments = log.segment_count();
    let bases = log.segment_base_offsets();
    assert_eq!(
        log.delete_records_before(bases[2] + 1).unwrap(),
        bases[2] + 1
    );
    assert_eq!(log.segment_count(), segments - 2);
    assert_eq!(log.log_start_offset(), bases[2] + 1);
    assert_eq!(
        log.read(bases[2], 100, i64::MAX, true).unwrap_err(),
        ErrorCode::OffsetOutOfRange
    );
    // The batch holding the new start is still served whole.
    let h = batches_in(&log.read(bases[2] + 1, 100, i64::MAX, true).unwrap())[0];
    assert_eq!(h.base_offset, bases[2]);
    // Moving backwards is a no-op.
    assert_eq!(log.delete_records_before(0).unwrap(), bases[2] + 1);
    // Survives a reopen through the log start offset the manager checkpoints.
    log.close().unwrap();
    drop(log);
    let log = Log::open(dir.path(), small_config(), i64::MAX, bases[2] + 1, 100).unwrap();
    assert_eq!(log.log_start_offset(), bases[2] + 1);
}

#[test]
fn truncate_to_removes_the_tail_and_appends_continue() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), small_config());
    for i in 0..60 {
        log.append_as_leader(batch(2, 60, NOW + i), 0, NOW).unwrap();
    }
    log.set_high_watermark(120);
    let bases = log.segment_base_offsets();
    let target = bases[2] + 4;
    log.truncate_to(target).unwrap();
    assert_eq!(log.log_end_offset(), target);
    assert_eq!(log.segment_base_offsets(), bases[..3]);
    assert_eq!(log.high_watermark(), target);
    assert_eq!(read_all(&log).last().unwrap().1, target - 1);
    // Mid-batch: the whole batch goes.
    log.truncate_to(target - 1).unwrap();
    assert_eq!(log.log_end_offset(), target - 2);
    assert_eq!(log.max_timestamp().unwrap().offset, target - 3);
    let a = log.append_as_leader(batch(2, 60, NOW), 0, NOW).unwrap();
    assert_eq!(a.base_offset, target - 2);
    // Below the first segment: the log restarts there.
    log.truncate_to(0).unwrap();
    assert_eq!(
        (
            log.log_start_offset(),
            log.log_end_offset(),
            log.segment_count()
        ),
        (0, 0, 1)
    );
    assert_eq!(
        log.append_as_leader(batch(1, 1, NOW), 0, NOW)
            .unwrap()
            .base_offset,
        0
    );
}

#[test]
fn flush_moves_the_recovery_point_and_flush_messages_triggers_it() {
    let dir = tempdir().unwrap();
    let mut log = open(
        dir.path(),
        LogConfig {
            flush_messages: 4,
            ..LogConfig::default()
        },
    );
    log.append_as_leader(batch(3, 1, NOW), 0, NOW).unwrap();
    assert_eq!(log.recovery_point(), 0);
    log.append_as_leader(batch(1, 1, NOW), 0, NOW).unwrap();
    assert_eq!(log.recovery_point(), 4);
    log.append_as_leader(batch(1, 1, NOW), 0, NOW).unwrap();
    log.flush().unwrap();
    assert_eq!(log.recovery_point(), 5);
}

#[test]
fn reopening_with_a_later_log_start_drops_segments_below_it() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), small_config());
    for _ in 0..60 {
        log.append_as_leader(batch(2, 60, NOW), 0, NOW).unwrap();
    }
    let bases = log.segment_base_offsets();
    drop(log);
    let log = Log::open(dir.path(), small_config(), 0, bases[3] + 1, 0).unwrap();
    assert_eq!(log.segment_base_offsets(), bases[3..]);
    assert_eq!(log.log_start_offset(), bases[3] + 1);
    assert!(!dir.path().join(format!("{:020}.log", bases[0])).exists());
}
