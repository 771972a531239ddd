//! Partition logs on disk: segments, indexes, recovery, retention, checkpoints.
//! (Interface fixed; bodies being implemented.)

pub mod config;
pub mod manager;
pub mod partition_log;

pub use config::LogConfig;
pub use manager::LogManager;
pub use partition_log::{FetchSlice, LeaderAppend, Log, TimestampOffset};
