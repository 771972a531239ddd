//! A topic's resolved log config, parsed from Kafka's property names through the generated
//! table ([`crate::properties`]): the names, bounds and allowed values are the control plane's.

use std::collections::HashMap;

use crate::properties::{self, table::topic, Props};
use crate::record::validate::{TargetCompression, TimestampType, ValidationConfig};

#[derive(Debug, Clone)]
pub struct LogConfig {
    /// `internal.segment.bytes` when set (Kafka's test-only override, below segment.bytes'
    /// floor), else `segment.bytes`: as Kafka's `LogConfig.segmentSize()`.
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

/// Kafka's defaults from the one table: for tests, which build configs as
/// `LogConfig { field: .., ..LogConfig::default() }`. The broker never uses it: the control
/// plane passes every property.
#[cfg(test)]
impl Default for LogConfig {
    fn default() -> Self {
        LogConfig::from_map(&properties::defaults(topic::ALL)).expect("the table's defaults")
    }
}

impl LogConfig {
    /// Parses a topic's resolved config: every property this reads must be there, with a
    /// value within the table's bounds, and nothing else.
    pub fn from_map(map: &HashMap<String, String>) -> Result<LogConfig, String> {
        properties::parse(map, Self::read)
    }

    /// The topic properties [`LogConfig::from_map`] reads.
    pub fn property_names() -> Result<Vec<&'static str>, String> {
        properties::names_read(topic::ALL, Self::read)
    }

    fn read(p: &mut Props<'_>) -> Result<LogConfig, String> {
        let policies = p.list(&topic::CLEANUP_POLICY)?;
        Ok(LogConfig {
            segment_bytes: {
                let public: u64 = p.integer(&topic::SEGMENT_BYTES)?;
                p.optional_integer(&topic::INTERNAL_SEGMENT_BYTES)?
                    .unwrap_or(public)
            },
            segment_ms: p.integer(&topic::SEGMENT_MS)?,
            segment_index_bytes: p.integer(&topic::SEGMENT_INDEX_BYTES)?,
            index_interval_bytes: p.integer(&topic::INDEX_INTERVAL_BYTES)?,
            retention_ms: p.integer(&topic::RETENTION_MS)?,
            retention_bytes: p.integer(&topic::RETENTION_BYTES)?,
            max_message_bytes: p.integer(&topic::MAX_MESSAGE_BYTES)?,
            timestamp_type: timestamp_type(p.text(&topic::MESSAGE_TIMESTAMP_TYPE)?)?,
            timestamp_before_max_ms: p.integer(&topic::MESSAGE_TIMESTAMP_BEFORE_MAX_MS)?,
            timestamp_after_max_ms: p.integer(&topic::MESSAGE_TIMESTAMP_AFTER_MAX_MS)?,
            compression: target_compression(p.text(&topic::COMPRESSION_TYPE)?)?,
            compact: policies.contains(&"compact"),
            delete: policies.contains(&"delete"),
            flush_messages: p.integer(&topic::FLUSH_MESSAGES)?,
            flush_ms: p.integer(&topic::FLUSH_MS)?,
            min_insync_replicas: p.integer(&topic::MIN_INSYNC_REPLICAS)?,
            delete_retention_ms: p.integer(&topic::DELETE_RETENTION_MS)?,
            min_cleanable_dirty_ratio: p.double(&topic::MIN_CLEANABLE_DIRTY_RATIO)?,
        })
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

// The table's choices are checked before these; a choice added to the table without a match
// arm here is an error, not a silent fallback.

fn timestamp_type(name: &str) -> Result<TimestampType, String> {
    match name {
        "CreateTime" => Ok(TimestampType::CreateTime),
        "LogAppendTime" => Ok(TimestampType::LogAppendTime),
        _ => Err(format!(
            "message.timestamp.type {name:?} is not implemented"
        )),
    }
}

fn target_compression(name: &str) -> Result<TargetCompression, String> {
    match name {
        "producer" => Ok(TargetCompression::Producer),
        "uncompressed" => Ok(TargetCompression::Uncompressed),
        "gzip" => Ok(TargetCompression::Gzip),
        "snappy" => Ok(TargetCompression::Snappy),
        "lz4" => Ok(TargetCompression::Lz4),
        "zstd" => Ok(TargetCompression::Zstd),
        _ => Err(format!("compression.type {name:?} is not implemented")),
    }
}
