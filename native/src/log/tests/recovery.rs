use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;

use tempfile::tempdir;

use super::*;

fn segment_files(dir: &Path, ext: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

/// Fills a log with `n` two-record batches over several segments; returns their offsets.
fn fill(log: &mut Log, n: usize) -> Vec<(i64, i64)> {
    (0..n)
        .map(|i| {
            log.append_as_leader(batch(2, 60, NOW + i as i64), 0, NOW)
                .unwrap()
        })
        .map(|a| (a.base_offset, a.last_offset))
        .collect()
}

#[test]
fn reopen_after_close_keeps_everything_and_continues() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), small_config());
    let mut expected = fill(&mut log, 40);
    log.set_high_watermark(50);
    log.close().unwrap();
    drop(log);
    // A clean reopen (recovery point "everything") trusts the files.
    let mut log = Log::open(dir.path(), small_config(), i64::MAX, 0, 50).unwrap();
    assert_eq!(log.log_end_offset(), 80);
    assert_eq!(log.high_watermark(), 50);
    assert_eq!(read_all(&log), expected);
    let a = log.append_as_leader(batch(1, 10, NOW), 0, NOW).unwrap();
    assert_eq!(a.base_offset, 80);
    expected.push((80, 80));
    assert_eq!(read_all(&log), expected);
    assert_eq!(log.offset_for_timestamp(NOW + 20).unwrap().offset, 39);
}

#[test]
fn unclean_reopen_rebuilds_indexes() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), small_config());
    let expected = fill(&mut log, 40);
    drop(log); // no close: indexes are left preallocated, as after a crash
    for index in segment_files(dir.path(), "index") {
        std::fs::remove_file(index).unwrap();
    }
    let mut log = Log::open(dir.path(), small_config(), 0, 0, 0).unwrap();
    assert_eq!(read_all(&log), expected);
    // As in Kafka, only a flush moves the recovery point past what recovery validated.
    assert_eq!(log.recovery_point(), 0);
    log.flush().unwrap();
    assert_eq!(log.recovery_point(), 80);
    for &(base, last) in &expected {
        let h = batches_in(&log.read(last, 1, i64::MAX, true).unwrap())[0];
        assert_eq!(h.base_offset, base);
    }
}

#[test]
fn torn_tail_is_truncated_and_appends_continue_after_it() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), LogConfig::default());
    let expected = fill(&mut log, 5);
    let size = log.size_bytes();
    drop(log);
    let last_log = segment_files(dir.path(), "log").pop().unwrap();
    let one = size / 5;
    OpenOptions::new()
        .write(true)
        .open(&last_log)
        .unwrap()
        .set_len(size - one / 2)
        .unwrap();
    let mut log = Log::open(dir.path(), LogConfig::default(), 0, 0, 100).unwrap();
    assert_eq!(read_all(&log), expected[..4]);
    assert_eq!(log.log_end_offset(), 8);
    assert_eq!(
        log.high_watermark(),
        8,
        "the high watermark is clamped to the log end"
    );
    assert_eq!(std::fs::metadata(&last_log).unwrap().len(), one * 4);
    assert_eq!(
        log.append_as_leader(batch(1, 1, NOW), 0, NOW)
            .unwrap()
            .base_offset,
        8
    );
}

#[test]
fn corrupt_batch_truncates_there_and_removes_later_segments() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), small_config());
    let expected = fill(&mut log, 60);
    let segments = log.segment_count();
    assert!(segments >= 4);
    drop(log);
    // Flip a byte in the body of the second batch of the second segment.
    let second = &segment_files(dir.path(), "log")[1];
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(second)
        .unwrap();
    let mut header = [0u8; 12];
    file.read_exact_at(&mut header, 0).unwrap();
    let first_len = 12 + u32::from_be_bytes(header[8..12].try_into().unwrap()) as u64;
    let mut byte = [0u8; 1];
    file.read_exact_at(&mut byte, first_len + 70).unwrap();
    file.write_all_at(&[byte[0] ^ 0x55], first_len + 70)
        .unwrap();
    let second_base: i64 = second
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap();

    let mut log = Log::open(dir.path(), small_config(), 0, 0, 0).unwrap();
    assert_eq!(log.segment_count(), 2);
    assert_eq!(segment_files(dir.path(), "log").len(), 2);
    assert_eq!(segment_files(dir.path(), "index").len(), 2);
    let kept: Vec<_> = expected
        .iter()
        .copied()
        .filter(|&(b, _)| b <= second_base)
        .collect();
    assert_eq!(read_all(&log), kept);
    assert_eq!(log.log_end_offset(), second_base + 2);
    let a = log.append_as_leader(batch(1, 1, NOW), 0, NOW).unwrap();
    assert_eq!(a.base_offset, second_base + 2);
}

#[test]
fn recovery_point_limits_the_scan_but_a_torn_active_segment_is_still_caught() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), small_config());
    fill(&mut log, 60);
    log.flush().unwrap();
    let rp = log.recovery_point();
    assert_eq!(rp, log.log_end_offset());
    let expected = read_all(&log);
    fill(&mut log, 1);
    drop(log);
    let last = segment_files(dir.path(), "log").pop().unwrap();
    let len = std::fs::metadata(&last).unwrap().len();
    OpenOptions::new()
        .write(true)
        .open(&last)
        .unwrap()
        .set_len(len - 3)
        .unwrap();
    let log = Log::open(dir.path(), small_config(), rp, 0, 0).unwrap();
    assert_eq!(log.log_end_offset(), rp);
    assert_eq!(read_all(&log), expected);
}

#[test]
fn producer_state_survives_reopen() {
    let dir = tempdir().unwrap();
    let idem = |seq: i32| {
        let b = BatchBuilder::new(Codec::None)
            .producer(9, 1, seq)
            .record(Record::new(None, Some(b"x"), NOW));
        BytesMut::from(&b.build()[..])
    };
    let mut log = open(dir.path(), small_config());
    log.append_as_leader(idem(0), 0, NOW).unwrap();
    let second = log.append_as_leader(idem(1), 0, NOW).unwrap();
    drop(log); // unclean: state comes back by replaying the log
    let mut log = Log::open(dir.path(), small_config(), 0, 0, 0).unwrap();
    let dup = log.append_as_leader(idem(1), 0, NOW).unwrap();
    assert!(dup.duplicate);
    assert_eq!(dup.base_offset, second.base_offset);
    log.append_as_leader(idem(2), 0, NOW).unwrap();
    log.close().unwrap();
    drop(log);
    // Clean: state comes from the snapshot written at close.
    let mut log = Log::open(dir.path(), small_config(), i64::MAX, 0, 0).unwrap();
    assert!(log.append_as_leader(idem(2), 0, NOW).unwrap().duplicate);
    assert!(!log.append_as_leader(idem(3), 0, NOW).unwrap().duplicate);
}

#[test]
fn recovery_with_a_smaller_index_size_than_the_segment_was_written_with() {
    let dir = tempdir().unwrap();
    let roomy = LogConfig {
        index_interval_bytes: 1,
        segment_bytes: 1 << 20,
        ..LogConfig::default()
    };
    let mut log = open(dir.path(), roomy);
    let expected = fill(&mut log, 50);
    drop(log);
    let cramped = LogConfig {
        index_interval_bytes: 1,
        segment_index_bytes: 40,
        ..LogConfig::default()
    };
    let log = Log::open(dir.path(), cramped, 0, 0, 0).unwrap();
    assert_eq!(read_all(&log), expected);
    for &(base, last) in &expected {
        assert_eq!(
            batches_in(&log.read(last, 1, i64::MAX, true).unwrap())[0].base_offset,
            base
        );
    }
}

#[test]
fn an_empty_segment_between_others_is_dropped() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), small_config());
    let expected = fill(&mut log, 30);
    let bases = log.segment_base_offsets();
    drop(log);
    // A stray empty segment file in the middle (say, left by a tool).
    std::fs::File::create(dir.path().join(format!("{:020}.log", bases[1] + 1))).unwrap();
    let log = Log::open(dir.path(), small_config(), 0, 0, 0).unwrap();
    assert_eq!(log.segment_base_offsets(), bases);
    assert_eq!(read_all(&log), expected);
}

/// Bytes the file system really holds for `path` (its allocated blocks), not its length.
fn allocated_bytes(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).unwrap().blocks() * 512
}

#[test]
fn recovering_a_crashed_preallocated_index_touches_only_its_entries() {
    // A crashed broker leaves its active segment's indexes preallocated at full size (10 MiB
    // here, Kafka's default). Recovery must rebuild them from the log and write only the pages
    // its entries need: filling the preallocated size would write 20 MiB per partition.
    let dir = tempdir().unwrap();
    let config = LogConfig {
        index_interval_bytes: 256,
        ..LogConfig::default()
    };
    let mut log = open(dir.path(), config.clone());
    let expected = fill(&mut log, 40);
    drop(log); // no close: as after SIGKILL
    let index = segment_files(dir.path(), "index").pop().unwrap();
    let time_index = segment_files(dir.path(), "timeindex").pop().unwrap();
    let preallocated = config.segment_index_bytes as u64 / 8 * 8;
    assert_eq!(std::fs::metadata(&index).unwrap().len(), preallocated);

    let mut log = Log::open(dir.path(), config.clone(), 0, 0, 0).unwrap();
    assert_eq!(read_all(&log), expected);
    let page = 4096;
    for path in [&index, &time_index] {
        let allocated = allocated_bytes(path);
        assert!(
            allocated <= 2 * page,
            "{} holds {allocated} bytes",
            path.display()
        );
    }
    // A lookup through the rebuilt index still lands on the right batch.
    let (base, last) = expected[20];
    assert_eq!(
        batches_in(&log.read(last, 1, i64::MAX, true).unwrap())[0].base_offset,
        base
    );

    // Closed cleanly, the active index is trimmed to its entries.
    log.close().unwrap();
    drop(log);
    let len = std::fs::metadata(&index).unwrap().len();
    assert!(len > 0 && len < 1024, "trimmed index is {len} bytes");
    assert!(allocated_bytes(&index) <= page);
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

#[test]
fn index_files_are_created_with_their_first_entry() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), small_config());
    let indexes = |dir: &Path| {
        [
            segment_files(dir, "index").len(),
            segment_files(dir, "timeindex").len(),
        ]
    };
    // An idle partition costs no index file, and none appears on a clean close or reopen.
    assert_eq!(indexes(dir.path()), [0, 0]);
    log.close().unwrap();
    drop(log);
    let mut log = Log::open(dir.path(), small_config(), i64::MAX, 0, 0).unwrap();
    assert_eq!(indexes(dir.path()), [0, 0]);
    // A batch below index.interval.bytes makes no entry, so still no file while active...
    log.append_as_leader(batch(1, 10, NOW), 0, NOW).unwrap();
    assert_eq!(indexes(dir.path()), [0, 0]);
    // ...but a segment with data keeps its index files when it is sealed: an empty offset
    // index and the time index's entry for its max timestamp.
    log.close().unwrap();
    drop(log);
    let offset_index = segment_files(dir.path(), "index");
    let time_index = segment_files(dir.path(), "timeindex");
    assert_eq!(file_len(&offset_index[0]), 0);
    assert_eq!(file_len(&time_index[0]), 12);
    // Reopened, the log goes on indexing: the entries appear with the data past the interval.
    let mut log = Log::open(dir.path(), small_config(), i64::MAX, 0, 1).unwrap();
    let mut expected = vec![(0, 0)];
    expected.extend(fill(&mut log, 40));
    assert_eq!(read_all(&log), expected);
    assert!(segment_files(dir.path(), "index").len() > 1);
    assert_eq!(log.offset_for_timestamp(NOW + 20).unwrap().offset, 40);
}

#[test]
fn a_missing_index_of_a_segment_with_data_is_rebuilt() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), small_config());
    let expected = fill(&mut log, 40);
    log.close().unwrap();
    drop(log);
    let sealed = segment_files(dir.path(), "index").remove(0);
    let entries = file_len(&sealed);
    assert!(entries > 0);
    std::fs::remove_file(&sealed).unwrap();
    let log = Log::open(dir.path(), small_config(), i64::MAX, 0, 80).unwrap();
    assert_eq!(read_all(&log), expected);
    assert_eq!(file_len(&sealed), entries);
}
