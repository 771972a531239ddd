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
}

impl Default for LogConfig {
    /// Kafka's defaults.
    fn default() -> Self {
        todo!("log::config::default")
    }
}

impl LogConfig {
    /// Parses the resolved config; unknown keys are ignored, bad values are an error naming
    /// the key.
    pub fn from_map(map: &HashMap<String, String>) -> Result<LogConfig, String> {
        let _ = map;
        todo!("log::config::from_map")
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
