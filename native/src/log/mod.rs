//! Partition logs on disk: segments, indexes, recovery, retention, checkpoints.
//!
//! Layout and formats follow Kafka's (`../shared/kafka-protocol/README.md`, section 6), so a
//! partition directory reads like Kafka's: `<base offset>.log/.index/.timeindex`,
//! `leader-epoch-checkpoint`, `partition.metadata`, producer snapshots; per log directory the
//! offset checkpoints and the clean-shutdown marker (`manager`).
//!
//! Also here: compaction (`cleaner`, for `cleanup.policy=compact`) and the transaction
//! side of storage (`transactions`, `txn_index`: markers, the `.txnindex` of aborted
//! transactions, the last stable offset).
//!
//! Choices that differ from Kafka or that Kafka leaves implicit:
//! - Offset index entries point at a batch's base offset (Kafka's at its last offset), so a
//!   lookup for an offset inside an indexed batch lands on that batch.
//! - `segment.ms` counts from the wall-clock time of the segment's first append (after a
//!   reopen: its first batch's timestamp, capped at the time of opening), so `tick` can roll
//!   idle partitions and retention can then delete them.
//! - A timestamp lookup walks records, decompressing compressed batches, so it answers with the
//!   exact first record at or after the target, as Kafka does.
//! - `Log::open` with a recovery point of `i64::MAX` means "closed cleanly": nothing is
//!   rescanned unless a file does not parse. `LogManager` passes it after a clean shutdown.
//! - A read returns whole batches from one segment; the next read continues in the next one.
//!
//! Locking: a log sits behind a `parking_lot::RwLock` (`manager::LogHandle`). Appends and
//! maintenance take the write lock; a read takes the read lock only to compute a `FetchSlice`
//! (an `Arc<File>`, a position, a length) that is then sent with sendfile without any lock.
//! Periodic fsyncs (`flush.ms`) also run without the lock (`Log::flush_plan`).

pub mod checkpoint;
mod cleaner;
pub mod config;
pub mod dir_failure;
mod dir_files;
mod dir_move;
mod epoch_cache;
mod future_log;
mod index;
mod index_file;
mod maintenance;
pub mod manager;
pub mod partition_log;
mod placement;
mod recovery;
pub(crate) mod scan;
mod segment;
mod segment_read;
mod transactions;
mod txn_index;

pub use cleaner::CleanStats;
pub use config::LogConfig;
pub use dir_failure::LogDirFailure;
pub use dir_files::shut_down_cleanly;
pub use dir_move::FutureLogInfo;
pub use maintenance::FlushPlan;
pub use manager::LogManager;
pub use partition_log::{FetchSlice, LeaderAppend, Log, TimestampOffset};
pub use txn_index::AbortedTxn;

/// Wall-clock milliseconds since the epoch: segment times, flush times, LogAppendTime, the
/// ISR's caught-up times. The one clock of the crate.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests;
