use std::collections::HashMap;

use tempfile::tempdir;

use super::*;
use crate::log::cleaner::{SwapStep, FAIL_AFTER};
use crate::record::records::decode_batch;

fn compacted() -> LogConfig {
    LogConfig {
        compact: true,
        delete: false,
        ..small_config()
    }
}

fn keyed(codec: Codec, records: &[(&str, Option<&str>)], ts: i64) -> BytesMut {
    let mut b = BatchBuilder::new(codec);
    for (k, v) in records {
        b = b.record(Record::new(Some(k.as_bytes()), v.map(str::as_bytes), ts));
    }
    BytesMut::from(&b.build()[..])
}

/// Every record in the log as (offset, key, value).
fn records(log: &Log) -> Vec<(i64, String, Option<String>)> {
    let mut out = Vec::new();
    let mut offset = log.log_start_offset();
    while offset < log.log_end_offset() {
        let slice = log.read(offset, 1 << 20, i64::MAX, true).unwrap();
        let bytes = slice_bytes(&slice);
        if bytes.is_empty() {
            break;
        }
        for item in iter_batches(&bytes) {
            let (h, b) = item.unwrap();
            assert!(crc_is_valid(b));
            let (_, recs) = decode_batch(b, 1 << 24).unwrap();
            for r in recs {
                let key = String::from_utf8(r.key.unwrap()).unwrap();
                out.push((
                    h.base_offset + i64::from(r.offset_delta),
                    key,
                    r.value.map(|v| String::from_utf8(v).unwrap()),
                ));
            }
            offset = h.last_offset() + 1;
        }
    }
    out
}

#[test]
fn compaction_keeps_the_latest_value_per_key_below_the_active_segment() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), compacted());
    let mut last: HashMap<String, (i64, String)> = HashMap::new();
    for round in 0..40 {
        let codec = if round % 3 == 0 {
            Codec::Gzip
        } else {
            Codec::None
        };
        let recs: Vec<(String, String)> = (0..3)
            .map(|i| (format!("key{}", (round + i) % 7), format!("v{round}-{i}")))
            .collect();
        let refs: Vec<(&str, Option<&str>)> = recs
            .iter()
            .map(|(k, v)| (k.as_str(), Some(v.as_str())))
            .collect();
        let a = log
            .append_as_leader(keyed(codec, &refs, NOW), 0, NOW)
            .unwrap();
        for (i, (k, v)) in recs.into_iter().enumerate() {
            last.insert(k, (a.base_offset + i as i64, v));
        }
    }
    let before = records(&log);
    log.set_high_watermark(log.log_end_offset());
    let active_base = *log.segment_base_offsets().last().unwrap();
    let stats = log.compact(NOW).unwrap();
    assert!(stats.records_removed > 0 && stats.bytes_after < stats.bytes_before);
    let after = records(&log);
    // Below the active segment only the latest record per key survives, at its own offset.
    let (cleaned, active): (Vec<_>, Vec<_>) =
        after.iter().cloned().partition(|r| r.0 < active_base);
    for (offset, key, value) in &cleaned {
        let (last_offset, _) = &last[key];
        let shadowed_in_active = active.iter().any(|r| &r.1 == key);
        assert!(
            offset == last_offset || shadowed_in_active,
            "{key} at {offset} should be gone"
        );
        assert!(before.contains(&(*offset, key.clone(), value.clone())));
    }
    // The active segment is untouched; every key keeps its latest value.
    assert_eq!(
        active,
        before
            .iter()
            .filter(|r| r.0 >= active_base)
            .cloned()
            .collect::<Vec<_>>()
    );
    for (key, (offset, value)) in &last {
        assert!(after.contains(&(*offset, key.clone(), Some(value.clone()))));
    }
    // Reads by offset still land on the right batch, also in offset gaps.
    for offset in 0..log.log_end_offset() {
        let got = batches_in(&log.read(offset, 1, i64::MAX, true).unwrap());
        assert!(got[0].last_offset() >= offset);
    }
    // And the log reopens, clean or not, with the same content.
    let lines = after.clone();
    drop(log);
    let log = Log::open(dir.path(), compacted(), 0, 0, 0).unwrap();
    assert_eq!(records(&log), lines);
}

#[test]
fn tombstones_stay_for_delete_retention_ms_then_go() {
    let dir = tempdir().unwrap();
    let config = LogConfig {
        delete_retention_ms: 1000,
        ..compacted()
    };
    let mut log = open(dir.path(), config);
    for _ in 0..10 {
        log.append_as_leader(
            keyed(Codec::None, &[("a", Some("1")), ("b", Some("2"))], NOW),
            0,
            NOW,
        )
        .unwrap();
    }
    log.append_as_leader(keyed(Codec::None, &[("a", None)], NOW), 0, NOW)
        .unwrap();
    log.roll().unwrap();
    log.append_as_leader(keyed(Codec::None, &[("c", Some("3"))], NOW), 0, NOW)
        .unwrap();
    log.set_high_watermark(log.log_end_offset());
    log.compact(NOW + 500).unwrap();
    let keys: Vec<(String, Option<String>)> =
        records(&log).into_iter().map(|r| (r.1, r.2)).collect();
    assert_eq!(
        keys,
        vec![
            ("b".into(), Some("2".into())),
            ("a".into(), None),
            ("c".into(), Some("3".into()))
        ]
    );
    log.compact(NOW + 5000).unwrap();
    let keys: Vec<String> = records(&log).into_iter().map(|r| r.1).collect();
    assert_eq!(keys, vec!["b", "c"]);
}

#[test]
fn an_idempotent_batch_emptied_by_compaction_keeps_its_producer_state() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), compacted());
    let idem = |seq: i32, value: &str| {
        let b = BatchBuilder::new(Codec::Lz4)
            .producer(5, 0, seq)
            .record(Record::new(Some(b"k"), Some(value.as_bytes()), NOW));
        BytesMut::from(&b.build()[..])
    };
    log.append_as_leader(idem(0, "old"), 0, NOW).unwrap();
    log.roll().unwrap();
    let second = log.append_as_leader(idem(1, "new"), 0, NOW).unwrap();
    log.roll().unwrap();
    log.set_high_watermark(log.log_end_offset());
    let stats = log.compact(NOW).unwrap();
    assert_eq!(stats.records_removed, 1);
    let first = batches_in(&log.read(0, 1000, i64::MAX, true).unwrap())[0];
    assert_eq!(
        (first.base_offset, first.records_count, first.compression()),
        (0, 0, 0)
    );
    drop(log);
    let mut log = Log::open(dir.path(), compacted(), 0, 0, 0).unwrap();
    assert_eq!(
        log.append_as_leader(idem(1, "new"), 0, NOW)
            .unwrap()
            .base_offset,
        second.base_offset
    );
    assert_eq!(
        records(&log),
        vec![(1, "k".to_owned(), Some("new".to_owned()))]
    );
}

#[test]
fn maybe_compact_waits_for_enough_dirty_bytes() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), compacted());
    for i in 0..60 {
        let v = format!("{i}");
        log.append_as_leader(
            keyed(Codec::None, &[("same", Some(v.as_str()))], NOW),
            0,
            NOW,
        )
        .unwrap();
    }
    log.set_high_watermark(log.log_end_offset());
    assert!(log.maybe_compact(NOW).unwrap().is_some());
    assert!(
        log.maybe_compact(NOW).unwrap().is_none(),
        "nothing new since"
    );
    let mut delete_only = LogConfig {
        compact: false,
        ..compacted()
    };
    delete_only.delete = true;
    log.set_config(delete_only);
    assert!(log.maybe_compact(NOW).unwrap().is_none());
}

#[test]
fn segments_emptied_by_compaction_are_skipped_by_reads_and_dropped_at_open() {
    let dir = tempdir().unwrap();
    let mut log = open(dir.path(), compacted());
    for i in 0..80 {
        let v = format!("{i}");
        log.append_as_leader(keyed(Codec::None, &[("x", Some(v.as_str()))], NOW), 0, NOW)
            .unwrap();
    }
    log.roll().unwrap();
    log.set_high_watermark(log.log_end_offset());
    let segments = log.segment_count();
    log.compact(NOW).unwrap();
    assert_eq!(
        records(&log),
        vec![(79, "x".to_owned(), Some("79".to_owned()))]
    );
    let got = batches_in(&log.read(0, 1000, i64::MAX, true).unwrap());
    assert_eq!(got[0].base_offset, 79);
    assert_eq!(log.log_end_offset(), 80);
    drop(log);
    let mut log = Log::open(dir.path(), compacted(), 0, 0, 0).unwrap();
    assert!(log.segment_count() < segments);
    assert_eq!(
        log.log_start_offset(),
        0,
        "the emptied first segment keeps the log start"
    );
    assert_eq!(
        records(&log),
        vec![(79, "x".to_owned(), Some("79".to_owned()))]
    );
    assert_eq!(
        log.append_as_leader(keyed(Codec::None, &[("y", Some("1"))], NOW), 0, NOW)
            .unwrap()
            .base_offset,
        80
    );
}

/// A log with shadowed values and a tombstone below the active segment, ready to clean.
fn dirty_log(dir: &Path) -> Log {
    let mut log = open(dir, compacted());
    for round in 0..30 {
        let v = format!("v{round}");
        let k = format!("key{}", round % 4);
        log.append_as_leader(
            keyed(Codec::None, &[(k.as_str(), Some(v.as_str()))], NOW),
            0,
            NOW,
        )
        .unwrap();
    }
    log.append_as_leader(keyed(Codec::None, &[("key1", None)], NOW), 0, NOW)
        .unwrap();
    log.roll().unwrap();
    log.append_as_leader(keyed(Codec::None, &[("tail", Some("t"))], NOW), 0, NOW)
        .unwrap();
    log.set_high_watermark(log.log_end_offset());
    log
}

/// Every offset reads the batch that holds it or the next one (indexes match the data).
fn assert_reads_line_up(log: &Log) {
    for offset in 0..log.log_end_offset() {
        let got = batches_in(&log.read(offset, 1, i64::MAX, true).unwrap());
        assert!(got[0].last_offset() >= offset, "read at {offset} went back");
        assert!(
            got[0].base_offset <= offset || !records(log).iter().any(|r| r.0 == offset),
            "read at {offset} skipped a record"
        );
    }
}

#[test]
fn a_crash_at_any_step_of_the_swap_loses_nothing() {
    for step in [
        SwapStep::CleanedWritten,
        SwapStep::Swapped,
        SwapStep::IndexesRemoved,
        SwapStep::Renamed,
    ] {
        let dir = tempdir().unwrap();
        let mut log = dirty_log(dir.path());
        let before = records(&log);
        let reference = {
            let copy = tempdir().unwrap();
            let mut l = dirty_log(copy.path());
            l.compact(NOW).unwrap();
            (records(&l), copy)
        };
        FAIL_AFTER.with(|f| f.set(Some(step)));
        let result = log.compact(NOW);
        FAIL_AFTER.with(|f| f.set(None));
        assert!(result.is_err(), "{step:?}: the injected crash happened");
        // The process dies here: the files stay as they are. Everything was flushed, so the
        // recovery point is the log end and no segment is rescanned unless open must.
        let end = log.log_end_offset();
        drop(log);
        let mut log = Log::open(dir.path(), compacted(), end, 0, 0).unwrap();
        let reopened = records(&log);
        // Segments cleaned before the crash stay cleaned, the one being swapped is either old
        // or new: every record is an original at its offset, and every survivor of a full
        // cleaning is there.
        assert!(
            reopened.iter().all(|r| before.contains(r)),
            "{step:?}: a record changed"
        );
        assert!(
            reference.0.iter().all(|r| reopened.contains(r)),
            "{step:?}: a record that compaction keeps was lost"
        );
        assert_reads_line_up(&log);
        let leftovers: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".cleaned") || n.ends_with(".swap"))
            .collect();
        assert!(leftovers.is_empty(), "{step:?}: {leftovers:?} left behind");
        // Cleaning again from there reaches the same state as an uninterrupted cleaning.
        log.set_high_watermark(log.log_end_offset());
        log.compact(NOW).unwrap();
        assert_eq!(records(&log), reference.0, "{step:?}");
        assert_reads_line_up(&log);
        reference.1.close().unwrap();
    }
}

#[test]
fn tombstones_count_their_retention_from_the_first_cleaning_not_their_timestamp() {
    let dir = tempdir().unwrap();
    let config = LogConfig {
        delete_retention_ms: 1000,
        ..compacted()
    };
    let mut log = open(dir.path(), config);
    let day_old = NOW - 86_400_000;
    for _ in 0..10 {
        log.append_as_leader(keyed(Codec::None, &[("a", Some("1"))], day_old), 0, NOW)
            .unwrap();
    }
    log.append_as_leader(
        keyed(Codec::Gzip, &[("b", Some("2")), ("a", None)], day_old),
        0,
        NOW,
    )
    .unwrap();
    log.roll().unwrap();
    log.append_as_leader(keyed(Codec::None, &[("c", Some("3"))], NOW), 0, NOW)
        .unwrap();
    log.set_high_watermark(log.log_end_offset());
    // A day-old tombstone is kept by its first cleaning: retention starts now.
    log.compact(NOW).unwrap();
    let keys = |log: &Log| -> Vec<(i64, String, Option<String>)> { records(log) };
    assert_eq!(
        keys(&log),
        vec![
            (10, "b".into(), Some("2".into())),
            (11, "a".into(), None),
            (12, "c".into(), Some("3".into()))
        ]
    );
    // The stamped batch keeps its records' timestamps.
    let slice = log.read(10, 1 << 20, i64::MAX, true).unwrap();
    let bytes = slice_bytes(&slice);
    let (h, b) = iter_batches(&bytes).next().unwrap().unwrap();
    assert_ne!(h.attributes & crate::record::batch::ATTR_DELETE_HORIZON, 0);
    assert_eq!(h.base_timestamp, NOW + 1000);
    let (_, recs) = decode_batch(b, 1 << 24).unwrap();
    for r in recs {
        assert_eq!(r.timestamp, day_old);
    }
    // Nothing new was written, yet the passing horizon makes the log cleanable again.
    assert!(log.maybe_compact(NOW + 999).unwrap().is_none());
    assert!(log.maybe_compact(NOW + 1000).unwrap().is_some());
    assert_eq!(
        keys(&log),
        vec![
            (10, "b".into(), Some("2".into())),
            (12, "c".into(), Some("3".into()))
        ]
    );
}

#[test]
fn compact_delete_both_expires_old_segments_and_compacts_the_rest() {
    let dir = tempdir().unwrap();
    let config = LogConfig {
        delete: true,
        retention_ms: 60_000,
        ..compacted()
    };
    let mut log = open(dir.path(), config);
    let old = NOW - 3_600_000;
    for i in 0..20 {
        let v = format!("old{i}");
        log.append_as_leader(keyed(Codec::None, &[("a", Some(v.as_str()))], old), 0, NOW)
            .unwrap();
    }
    log.roll().unwrap();
    let first_new = log.log_end_offset();
    for i in 0..40 {
        let v = format!("new{i}");
        let k = if i % 2 == 0 { "b" } else { "c" };
        log.append_as_leader(keyed(Codec::None, &[(k, Some(v.as_str()))], NOW), 0, NOW)
            .unwrap();
    }
    log.roll().unwrap();
    log.set_high_watermark(log.log_end_offset());
    assert!(log.apply_retention(NOW).unwrap() > 0);
    assert_eq!(
        log.log_start_offset(),
        first_new,
        "retention deleted the old segments"
    );
    log.compact(NOW).unwrap();
    assert_eq!(
        records(&log),
        vec![
            (first_new + 38, "b".to_owned(), Some("new38".to_owned())),
            (first_new + 39, "c".to_owned(), Some("new39".to_owned()))
        ]
    );
}
