//! A topic's resolved log config, parsed from Kafka's property names.

use std::collections::HashMap;

use crate::record::validate::{TargetCompression, TimestampType, ValidationConfig};

#[derive(Debug, Clone)]
pub struct LogConfig {
    pub segment_bytes: u64,
    pub segment_ms: i64,
    pub segment_index_bytes: u32,
    pub index_interval_bytes: u32,
    /// -1: keep forever.
    pub retention_ms: i64,
    /// -1: no size limit.
    pub retention_bytes: i64,
    pub max_message_bytes: i32,
    pub timestamp_type: TimestampType,
    pub timestamp_before_max_ms: i64,
    pub timestamp_after_max_ms: i64,
    pub compression: TargetCompression,
    pub compact: bool,
    pub delete: bool,
    /// Flush after this many messages; i64::MAX: leave it to the page cache.
    pub flush_messages: i64,
    pub flush_ms: i64,
    pub min_insync_replicas: i32,
    /// Compacted topics: how long a tombstone (null value) stays readable after it is written.
    pub delete_retention_ms: i64,
    /// Compacted topics: clean once this share of the cleanable bytes is new since the last
    /// cleaning.
    pub min_cleanable_dirty_ratio: f64,
}

impl Default for LogConfig {
    /// Kafka's defaults (3.6+ for the timestamp bounds).
    fn default() -> Self {
        const WEEK_MS: i64 = 7 * 24 * 60 * 60 * 1000;
        LogConfig {
            segment_bytes: 1 << 30,
            segment_ms: WEEK_MS,
            segment_index_bytes: 10 * 1024 * 1024,
            index_interval_bytes: 4096,
            retention_ms: WEEK_MS,
            retention_bytes: -1,
            max_message_bytes: 1_048_588,
            timestamp_type: TimestampType::CreateTime,
            timestamp_before_max_ms: i64::MAX,
            timestamp_after_max_ms: 3_600_000,
            compression: TargetCompression::Producer,
            compact: false,
            delete: true,
            flush_messages: i64::MAX,
            flush_ms: i64::MAX,
            min_insync_replicas: 1,
            delete_retention_ms: 24 * 60 * 60 * 1000,
            min_cleanable_dirty_ratio: 0.5,
        }
    }
}

fn parse<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .trim()
        .parse()
        .map_err(|_| format!("invalid value {value:?} for {key}"))
}

fn at_least<T: PartialOrd + std::fmt::Display + Copy>(
    key: &str,
    value: T,
    min: T,
) -> Result<T, String> {
    if value < min {
        return Err(format!("{key} must be at least {min}, got {value}"));
    }
    Ok(value)
}

impl LogConfig {
    /// Parses the resolved config; unknown keys are ignored, bad values are an error naming
    /// the key.
    pub fn from_map(map: &HashMap<String, String>) -> Result<LogConfig, String> {
        let mut c = LogConfig::default();
        for (key, value) in map {
            let v = value.as_str();
            match key.as_str() {
                // Kafka's own floor: a segment must hold at least one maximal batch header.
                "segment.bytes" => c.segment_bytes = at_least(key, parse::<u64>(key, v)?, 14)?,
                "segment.ms" => c.segment_ms = at_least(key, parse(key, v)?, 1)?,
                "segment.index.bytes" => c.segment_index_bytes = at_least(key, parse(key, v)?, 12)?,
                "index.interval.bytes" => c.index_interval_bytes = parse(key, v)?,
                "retention.ms" => c.retention_ms = at_least(key, parse(key, v)?, -1)?,
                "retention.bytes" => c.retention_bytes = parse(key, v)?,
                "max.message.bytes" => c.max_message_bytes = at_least(key, parse(key, v)?, 0)?,
                "message.timestamp.type" => {
                    c.timestamp_type = match v.trim() {
                        "CreateTime" => TimestampType::CreateTime,
                        "LogAppendTime" => TimestampType::LogAppendTime,
                        _ => return Err(format!("invalid value {v:?} for {key}")),
                    }
                }
                "message.timestamp.before.max.ms" => {
                    c.timestamp_before_max_ms = at_least(key, parse(key, v)?, 0)?
                }
                "message.timestamp.after.max.ms" => {
                    c.timestamp_after_max_ms = at_least(key, parse(key, v)?, 0)?
                }
                "compression.type" => {
                    c.compression = match v.trim().to_ascii_lowercase().as_str() {
                        "producer" => TargetCompression::Producer,
                        "uncompressed" | "none" => TargetCompression::Uncompressed,
                        "gzip" => TargetCompression::Gzip,
                        "snappy" => TargetCompression::Snappy,
                        "lz4" => TargetCompression::Lz4,
                        "zstd" => TargetCompression::Zstd,
                        _ => return Err(format!("invalid value {v:?} for {key}")),
                    }
                }
                "cleanup.policy" => {
                    let (mut compact, mut delete) = (false, false);
                    for policy in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                        match policy {
                            "compact" => compact = true,
                            "delete" => delete = true,
                            _ => return Err(format!("invalid value {v:?} for {key}")),
                        }
                    }
                    c.compact = compact;
                    c.delete = delete;
                }
                "flush.messages" => c.flush_messages = at_least(key, parse(key, v)?, 1)?,
                "flush.ms" => c.flush_ms = at_least(key, parse(key, v)?, 0)?,
                "min.insync.replicas" => c.min_insync_replicas = at_least(key, parse(key, v)?, 1)?,
                "delete.retention.ms" => c.delete_retention_ms = at_least(key, parse(key, v)?, 0)?,
                "min.cleanable.dirty.ratio" => {
                    let ratio: f64 = parse(key, v)?;
                    if !(0.0..=1.0).contains(&ratio) {
                        return Err(format!("{key} must be between 0 and 1, got {v}"));
                    }
                    c.min_cleanable_dirty_ratio = ratio;
                }
                _ => {}
            }
        }
        Ok(c)
    }

    pub fn validation(&self) -> ValidationConfig {
        ValidationConfig {
            max_message_bytes: self.max_message_bytes,
            timestamp_type: self.timestamp_type,
            timestamp_before_max_ms: self.timestamp_before_max_ms,
            timestamp_after_max_ms: self.timestamp_after_max_ms,
            target_compression: self.compression,
            compacted: self.compact,
        }
    }
}
