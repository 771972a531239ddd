//! All partition logs of a broker across its log directories, and the per-directory
//! checkpoint files. (Interface fixed; bodies being implemented.)

use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::RwLock;

use super::{Log, LogConfig};

/// A shared handle to one partition's log.
pub type LogHandle = Arc<RwLock<Log>>;

#[derive(Debug)]
pub struct LogManager {
    pub dirs: Vec<PathBuf>,
}

impl LogManager {
    /// Opens the log directories (creating them), reading their checkpoint files.
    pub fn new(dirs: Vec<PathBuf>) -> std::io::Result<LogManager> {
        let _ = dirs;
        todo!("log::LogManager::new")
    }

    /// Opens (recovering) or creates `<topic>-<partition>`; writes `partition.metadata` with
    /// the topic id. Idempotent.
    pub fn open_or_create(
        &self,
        topic: &str,
        partition: i32,
        topic_id: [u8; 16],
        config: LogConfig,
    ) -> std::io::Result<LogHandle> {
        let _ = (topic, partition, topic_id, config);
        todo!()
    }

    pub fn get(&self, topic: &str, partition: i32) -> Option<LogHandle> {
        let _ = (topic, partition);
        todo!()
    }

    /// Closes and deletes the partition's directory.
    pub fn delete(&self, topic: &str, partition: i32) -> std::io::Result<()> {
        let _ = (topic, partition);
        todo!()
    }

    /// The directory that holds the partition.
    pub fn dir_of(&self, topic: &str, partition: i32) -> Option<PathBuf> {
        let _ = (topic, partition);
        todo!()
    }

    /// Writes the high-watermark, recovery-point and log-start-offset checkpoints of every
    /// directory (temp file, fsync, rename).
    pub fn checkpoint(&self) -> std::io::Result<()> {
        todo!()
    }

    /// Periodic work: roll by time, retention, flush by `flush.ms`. Returns segments deleted.
    pub fn tick(&self, now_ms: i64) -> std::io::Result<usize> {
        let _ = now_ms;
        todo!()
    }

    /// Closes every log (flush, producer snapshots), writes checkpoints and the clean-shutdown
    /// marker.
    pub fn shutdown(&self) -> std::io::Result<()> {
        todo!()
    }
}
