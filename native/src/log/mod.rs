//! Partition logs on disk: segments, indexes, recovery, retention, checkpoints.
//!
//! Layout and formats follow Kafka's (`../shared/kafka-protocol/README.md`, section 6), so a
//! partition directory reads like Kafka's: `<base offset>.log/.index/.timeindex`,
//! `leader-epoch-checkpoint`, `partition.metadata`, producer snapshots; per log directory the
//! offset checkpoints and the clean-shutdown marker (`manager`).

pub mod checkpoint;
pub mod config;
mod epoch_cache;
mod index;
mod index_file;
mod maintenance;
pub mod manager;
pub mod partition_log;
mod recovery;
mod scan;
mod segment;
mod segment_read;

pub use config::LogConfig;
pub use maintenance::FlushPlan;
pub use manager::LogManager;
pub use partition_log::{FetchSlice, LeaderAppend, Log, TimestampOffset};

/// Wall-clock milliseconds since the epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests;
