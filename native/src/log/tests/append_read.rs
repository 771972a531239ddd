use tempfile::tempdir;

use super::*;
use crate::error::ErrorCode;

#[test]
fn appends_assign_consecutive_offsets_and_read_back() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    let a = log.append_as_leader(batch(3, 10, NOW), 5, NOW).unwrap();
    let b = log.append_as_leader(batch(2, 10, NOW), 5, NOW).unwrap();
    assert_eq!((a.base_offset, a.last_offset, a.duplicate), (0, 2, false));
    assert_eq!((b.base_offset, b.last_offset), (3, 4));
    assert_eq!(a.log_append_time, -1);
    assert_eq!(log.log_end_offset(), 5);
    let slice = log.read(0, 1 << 20, i64::MAX, false).unwrap();
    let headers = batches_in(&slice);
    assert_eq!(headers.len(), 2);
    assert_eq!(headers[1].base_offset, 3);
    assert_eq!(headers[1].partition_leader_epoch, 5);
    assert_eq!(log.size_bytes(), u64::from(slice.length));
}

#[test]
fn read_inside_a_batch_returns_the_whole_batch() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    log.append_as_leader(batch(5, 10, NOW), 0, NOW).unwrap();
    log.append_as_leader(batch(5, 10, NOW), 0, NOW).unwrap();
    let headers = batches_in(&log.read(7, 1 << 20, i64::MAX, false).unwrap());
    assert_eq!(
        headers.iter().map(|h| h.base_offset).collect::<Vec<_>>(),
        vec![5]
    );
}

#[test]
fn reads_across_segment_rolls_and_index_entries() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), small_config());
    let mut expected = Vec::new();
    for i in 0..100 {
        let a = log
            .append_as_leader(batch(1 + i % 3, 50, NOW + i as i64), 1, NOW)
            .unwrap();
        expected.push((a.base_offset, a.last_offset));
    }
    assert!(log.segment_count() > 5, "2 KiB segments must have rolled");
    // Every segment but the active one respects segment.bytes.
    assert_eq!(read_all(&log), expected);
    // A read at any offset starts at the batch holding it.
    for &(base, last) in &expected {
        for offset in base..=last {
            let first = batches_in(&log.read(offset, 1, i64::MAX, true).unwrap())[0];
            assert_eq!(first.base_offset, base, "read at {offset}");
        }
    }
    let files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".log"))
        .collect();
    assert_eq!(files.len(), log.segment_count());
    assert!(files.contains(&"00000000000000000000.log".to_owned()));
}

#[test]
fn read_is_bounded_by_max_offset_exclusive() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    for _ in 0..4 {
        log.append_as_leader(batch(3, 10, NOW), 0, NOW).unwrap(); // 0-2, 3-5, 6-8, 9-11
    }
    let bases = |s: &FetchSlice| {
        batches_in(s)
            .iter()
            .map(|h| h.base_offset)
            .collect::<Vec<_>>()
    };
    assert_eq!(bases(&log.read(0, 1 << 20, 6, false).unwrap()), vec![0, 3]);
    // A batch straddling max_offset is left out: its last offset is not below it.
    assert_eq!(bases(&log.read(0, 1 << 20, 5, false).unwrap()), vec![0]);
    assert!(log.read(3, 1 << 20, 5, true).unwrap().is_empty());
    assert!(log.read(6, 1 << 20, 6, true).unwrap().is_empty());
}

#[test]
fn read_is_bounded_by_max_bytes_and_min_one() {
    let dir = tempdir().unwrap();
    let mut log = open(
        dir.path(),
        LogConfig {
            index_interval_bytes: 100,
            ..LogConfig::default()
        },
    );
    let mut sizes = Vec::new();
    for _ in 0..20 {
        let before = log.size_bytes();
        log.append_as_leader(batch(2, 40, NOW), 0, NOW).unwrap();
        sizes.push((log.size_bytes() - before) as u32);
    }
    let one = sizes[0];
    let s = log.read(0, one * 3 + one / 2, i64::MAX, false).unwrap();
    assert_eq!(batches_in(&s).len(), 3);
    assert_eq!(s.length, one * 3);
    // Too small for one batch: nothing, unless min_one.
    assert!(log.read(0, one - 1, i64::MAX, false).unwrap().is_empty());
    let s = log.read(4, one - 1, i64::MAX, true).unwrap();
    assert_eq!(
        batches_in(&s)
            .iter()
            .map(|h| h.base_offset)
            .collect::<Vec<_>>(),
        vec![4]
    );
    assert_eq!(s.length, one);
    // A bound far into the segment uses the index and still ends on a batch boundary.
    let s = log.read(2, one * 15 + 7, i64::MAX, false).unwrap();
    assert_eq!(batches_in(&s).len(), 15);
}

#[test]
fn reads_outside_the_log_are_out_of_range_and_the_end_is_empty() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    log.append_as_leader(batch(2, 10, NOW), 0, NOW).unwrap();
    assert!(log.read(2, 1000, i64::MAX, true).unwrap().is_empty());
    assert_eq!(
        log.read(3, 1000, i64::MAX, true).unwrap_err(),
        ErrorCode::OffsetOutOfRange
    );
    assert_eq!(
        log.read(-1, 1000, i64::MAX, true).unwrap_err(),
        ErrorCode::OffsetOutOfRange
    );
}

#[test]
fn invalid_batches_are_refused_and_not_appended() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    let mut bad = batch(2, 10, NOW);
    let last = bad.len() - 1;
    bad[last] ^= 0xff;
    assert_eq!(
        log.append_as_leader(bad, 0, NOW).unwrap_err(),
        ErrorCode::CorruptMessage
    );
    let config = LogConfig {
        max_message_bytes: 100,
        ..LogConfig::default()
    };
    log.set_config(config);
    assert_eq!(
        log.append_as_leader(batch(5, 50, NOW), 0, NOW).unwrap_err(),
        ErrorCode::MessageTooLarge
    );
    assert_eq!(log.log_end_offset(), 0);
    assert_eq!(log.size_bytes(), 0);
}

#[test]
fn retried_idempotent_batch_is_a_duplicate_with_the_original_offsets() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    let idem = |seq: i32| {
        let b = BatchBuilder::new(Codec::None)
            .producer(42, 0, seq)
            .record(Record::new(None, Some(b"a"), NOW))
            .record(Record::new(None, Some(b"b"), NOW));
        BytesMut::from(&b.build()[..])
    };
    log.append_as_leader(batch(1, 1, NOW), 0, NOW).unwrap();
    let first = log.append_as_leader(idem(0), 0, NOW).unwrap();
    let again = log.append_as_leader(idem(0), 0, NOW).unwrap();
    assert!(again.duplicate);
    assert_eq!(
        (again.base_offset, again.last_offset),
        (first.base_offset, first.last_offset)
    );
    assert_eq!(log.log_end_offset(), 3);
    assert_eq!(
        log.append_as_leader(idem(5), 0, NOW).unwrap_err(),
        ErrorCode::OutOfOrderSequenceNumber
    );
}

#[test]
fn log_append_time_is_stamped_and_reported() {
    let dir = tempdir().unwrap();
    let config = LogConfig {
        timestamp_type: crate::record::validate::TimestampType::LogAppendTime,
        ..LogConfig::default()
    };
    let mut log = open(dir.path(), config);
    let a = log
        .append_as_leader(batch(2, 10, NOW - 5000), 0, NOW)
        .unwrap();
    assert_eq!(a.log_append_time, NOW);
    let h = batches_in(&log.read(0, 1000, i64::MAX, true).unwrap())[0];
    assert!(h.is_log_append_time());
    assert_eq!(h.max_timestamp, NOW);
    assert_eq!(log.max_timestamp().unwrap().timestamp, NOW);
}

#[test]
fn timestamp_lookup_finds_the_first_record_at_or_after() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), small_config());
    // Batch i holds 3 records at NOW + 10*i, +1, +2.
    for i in 0..60 {
        log.append_as_leader(batch(3, 30, NOW + 10 * i), 0, NOW + 1000)
            .unwrap();
    }
    for i in 0..60i64 {
        for d in 0..3 {
            let hit = log.offset_for_timestamp(NOW + 10 * i + d).unwrap();
            assert_eq!((hit.offset, hit.timestamp), (3 * i + d, NOW + 10 * i + d));
        }
        // Between batches: the next batch's first record.
        if i < 59 {
            let hit = log.offset_for_timestamp(NOW + 10 * i + 5).unwrap();
            assert_eq!(hit.offset, 3 * (i + 1));
        }
    }
    assert_eq!(log.offset_for_timestamp(0).unwrap().offset, 0);
    assert!(log.offset_for_timestamp(NOW + 10_000).is_none());
    let max = log.max_timestamp().unwrap();
    assert_eq!((max.offset, max.timestamp), (179, NOW + 592));
}

#[test]
fn timestamp_lookup_in_compressed_batches_walks_records() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    for i in 0..3i64 {
        let mut b = BatchBuilder::new(Codec::Gzip);
        for r in 0..4 {
            b = b.record(Record::new(None, Some(b"value"), NOW + 100 * i + r));
        }
        log.append_as_leader(BytesMut::from(&b.build()[..]), 3, NOW + 1000)
            .unwrap();
    }
    let hit = log.offset_for_timestamp(NOW + 102).unwrap();
    assert_eq!(
        (hit.offset, hit.timestamp, hit.leader_epoch),
        (6, NOW + 102, 3)
    );
}

#[test]
fn follower_append_keeps_leader_offsets() {
    let leader_dir = tempdir().unwrap();
    let follower_dir = tempdir().unwrap();
    let mut leader = open(leader_dir.path(), small_config());
    let mut follower = open(follower_dir.path(), small_config());
    for i in 0..30 {
        leader
            .append_as_leader(batch(2, 40, NOW + i), 7, NOW)
            .unwrap();
    }
    while follower.log_end_offset() < leader.log_end_offset() {
        let slice = leader
            .read(follower.log_end_offset(), 500, i64::MAX, true)
            .unwrap();
        let mut bytes = slice_bytes(&slice);
        bytes.extend_from_slice(&[0, 0, 0]); // a partial batch, as fetch responses may end
        follower.append_as_follower(&bytes, NOW).unwrap().unwrap();
    }
    assert_eq!(read_all(&follower), read_all(&leader));
    assert_eq!(follower.latest_epoch(), Some(7));
    let stale = slice_bytes(&leader.read(0, 500, i64::MAX, true).unwrap());
    assert_eq!(
        follower.append_as_follower(&stale, NOW).unwrap_err(),
        ErrorCode::OffsetOutOfRange
    );
}

/// The index files have Kafka's layout: 8-byte (relative offset, position) entries pointing at
/// batch starts, 12-byte (timestamp, relative offset) entries with rising timestamps;
/// preallocated while active, trimmed to their entries when rolled or closed.
#[test]
fn index_files_have_kafkas_layout() {
    let dir = tempdir().unwrap();
    let config = LogConfig {
        segment_bytes: 8192,
        index_interval_bytes: 300,
        ..LogConfig::default()
    };
    let mut log = open(dir.path(), config);
    for i in 0..80 {
        log.append_as_leader(batch(2, 50, NOW + i), 0, NOW).unwrap();
    }
    let active = *log.segment_base_offsets().last().unwrap();
    let active_index = dir.path().join(format!("{active:020}.index"));
    assert_eq!(
        std::fs::metadata(&active_index).unwrap().len(),
        10 << 20,
        "preallocated"
    );
    log.close().unwrap();
    let mut checked = 0;
    for base in log.segment_base_offsets() {
        let data = std::fs::read(dir.path().join(format!("{base:020}.log"))).unwrap();
        let index = std::fs::read(dir.path().join(format!("{base:020}.index"))).unwrap();
        assert_eq!(index.len() % 8, 0);
        assert!(
            !index.is_empty(),
            "300-byte interval: several entries per segment"
        );
        for entry in index.chunks(8) {
            let rel = i32::from_be_bytes(entry[..4].try_into().unwrap());
            let pos = u32::from_be_bytes(entry[4..].try_into().unwrap()) as usize;
            let h = BatchHeader::parse(&data[pos..]).unwrap();
            assert_eq!(h.base_offset, base + i64::from(rel));
            checked += 1;
        }
        let time = std::fs::read(dir.path().join(format!("{base:020}.timeindex"))).unwrap();
        assert_eq!(time.len() % 12, 0);
        let stamps: Vec<i64> = time
            .chunks(12)
            .map(|e| i64::from_be_bytes(e[..8].try_into().unwrap()))
            .collect();
        assert!(stamps.windows(2).all(|w| w[0] < w[1]));
    }
    assert!(checked > 10);
}
