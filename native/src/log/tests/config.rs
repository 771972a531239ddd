use std::collections::HashMap;

use crate::log::LogConfig;
use crate::properties::{self, table::topic};
use crate::record::validate::{TargetCompression, TimestampType};

/// A resolved topic config as the control plane passes it: the table's defaults, `pairs` on top.
fn map(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    properties::with_defaults(topic::ALL, pairs)
}

#[test]
fn defaults_are_kafkas() {
    let c = LogConfig::default();
    assert_eq!(c.segment_bytes, 1 << 30);
    assert_eq!(c.segment_ms, 604_800_000);
    assert_eq!(c.segment_index_bytes, 10 << 20);
    assert_eq!(c.index_interval_bytes, 4096);
    assert_eq!((c.retention_ms, c.retention_bytes), (604_800_000, -1));
    assert_eq!(c.max_message_bytes, 1_048_588);
    assert_eq!(c.timestamp_type, TimestampType::CreateTime);
    assert_eq!(
        (c.timestamp_before_max_ms, c.timestamp_after_max_ms),
        (i64::MAX, 3_600_000)
    );
    assert_eq!(c.compression, TargetCompression::Producer);
    assert!(c.delete && !c.compact);
    assert_eq!((c.flush_messages, c.flush_ms), (i64::MAX, i64::MAX));
    assert_eq!(c.min_insync_replicas, 1);
}

#[test]
fn from_map_parses_kafka_names() {
    let c = LogConfig::from_map(&map(&[
        ("segment.bytes", "1048576"),
        ("retention.ms", "-1"),
        ("retention.bytes", "1000"),
        ("message.timestamp.type", "LogAppendTime"),
        ("compression.type", "zstd"),
        ("cleanup.policy", "compact,delete"),
        ("min.insync.replicas", "2"),
        ("flush.messages", "1"),
    ]))
    .unwrap();
    assert_eq!(c.segment_bytes, 1 << 20);
    assert_eq!((c.retention_ms, c.retention_bytes), (-1, 1000));
    assert_eq!(c.timestamp_type, TimestampType::LogAppendTime);
    assert_eq!(c.compression, TargetCompression::Zstd);
    assert!(c.compact && c.delete);
    assert_eq!((c.min_insync_replicas, c.flush_messages), (2, 1));
    let compact = LogConfig::from_map(&map(&[("cleanup.policy", "compact")])).unwrap();
    assert!(compact.compact && !compact.delete);
}

#[test]
fn bad_values_name_the_key() {
    for (k, v) in [
        ("segment.bytes", "lots"),
        ("message.timestamp.type", "Now"),
        ("cleanup.policy", "shred"),
        ("min.insync.replicas", "0"),
        // The table's bounds and choices.
        ("segment.index.bytes", "3"),
        ("retention.ms", "-2"),
        ("segment.bytes", "1048575"),
        ("internal.segment.bytes", "13"),
        ("max.message.bytes", "2147483648"),
        ("compression.type", "none"),
        ("min.cleanable.dirty.ratio", "NaN"),
    ] {
        let err = LogConfig::from_map(&map(&[(k, v)])).unwrap_err();
        assert!(err.contains(k), "{err}");
    }
}

#[test]
fn compaction_settings_parse_and_are_checked() {
    let c = LogConfig::from_map(&map(&[
        ("delete.retention.ms", "5"),
        ("min.cleanable.dirty.ratio", "0.25"),
    ]))
    .unwrap();
    assert_eq!(
        (c.delete_retention_ms, c.min_cleanable_dirty_ratio),
        (5, 0.25)
    );
    assert_eq!(LogConfig::default().delete_retention_ms, 86_400_000);
    assert!(LogConfig::from_map(&map(&[("min.cleanable.dirty.ratio", "1.5")])).is_err());
}

#[test]
fn every_property_is_required_and_no_other_is_accepted() {
    let mut missing = map(&[]);
    missing.remove("segment.ms");
    let err = LogConfig::from_map(&missing).unwrap_err();
    assert!(err.contains("segment.ms is missing"), "{err}");
    // A topic property the control plane applies itself is not the native core's.
    let err =
        LogConfig::from_map(&map(&[("unclean.leader.election.enable", "false")])).unwrap_err();
    assert!(err.contains("unclean.leader.election.enable"), "{err}");
}

#[test]
fn segment_index_bytes_goes_down_to_kafkas_floor() {
    // 4: an index that holds no entry, so every batch starts a new segment (see retention.rs).
    let c = LogConfig::from_map(&map(&[("segment.index.bytes", "4")])).unwrap();
    assert_eq!(c.segment_index_bytes, 4);
}

#[test]
fn internal_segment_bytes_wins_over_segment_bytes_when_set() {
    // Kafka's test-only override: below segment.bytes' 1 MiB floor, as Kafka's own tests use.
    let c = LogConfig::from_map(&map(&[
        ("segment.bytes", "2097152"),
        ("internal.segment.bytes", "1024"),
    ]))
    .unwrap();
    assert_eq!(c.segment_bytes, 1024);
    let unset = LogConfig::from_map(&map(&[("segment.bytes", "2097152")])).unwrap();
    assert_eq!(unset.segment_bytes, 2 << 20);
}

#[test]
fn names_read_are_the_tables() {
    let mut names = LogConfig::property_names().unwrap();
    names.sort_unstable();
    assert_eq!(names, properties::sorted_names(topic::ALL));
}
