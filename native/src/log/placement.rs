//! Where the partition logs live: the state of each log directory (its partitions, the
//! offsets checkpointed for those not opened yet, whether it is offline) and the choice of a
//! directory for a partition, as Kafka's log manager makes it: an offline directory's
//! partitions stay offline, a new partition goes to the online directory with the fewest.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::dir_files::{partition_dir_name, write_partition_metadata};
use super::manager::{Key, LogHandle};
use super::{Log, LogConfig, LogDirFailure};

#[derive(Debug, Default)]
pub(super) struct Offsets {
    pub(super) high_watermark: HashMap<Key, i64>,
    pub(super) recovery_point: HashMap<Key, i64>,
    pub(super) log_start: HashMap<Key, i64>,
}

#[derive(Debug)]
pub(super) struct LogDir {
    pub(super) path: PathBuf,
    /// The directory held the clean-shutdown marker at startup: its logs need no recovery.
    pub(super) clean_at_start: bool,
    /// Partitions whose directory is here, open or not (placement counts them).
    pub(super) partitions: HashSet<Key>,
    /// Partitions present when the broker started (the clean marker vouches only for them).
    pub(super) at_start: HashSet<Key>,
    /// Partitions opened (and so recovered) in this run: after an unclean start the
    /// clean-shutdown marker may only be written once every partition found was opened, as
    /// the marker vouches for all of the directory.
    pub(super) opened: HashSet<Key>,
    /// Checkpointed offsets of partitions not opened yet.
    pub(super) unopened: Offsets,
    /// Offline after an I/O error (shared with its logs): nothing is written here again.
    pub(super) failure: Arc<LogDirFailure>,
}

impl LogDir {
    pub(super) fn is_offline(&self) -> bool {
        self.failure.is_offline()
    }
}

/// The error of an operation refused because its log directory is offline.
pub(super) fn offline_error(path: &Path) -> io::Error {
    io::Error::other(format!("log directory {} is offline", path.display()))
}

#[derive(Debug, Default)]
pub(super) struct State {
    pub(super) dirs: Vec<LogDir>,
    pub(super) logs: HashMap<Key, (LogHandle, usize)>,
    /// Partitions being opened (recovered) outside the lock right now.
    pub(super) opening: HashSet<Key>,
    /// Set by `shutdown`: no log opens after it (a bulk open still running stops).
    pub(super) closing: bool,
    /// Where AlterReplicaLogDirs asked a partition not hosted yet to be created.
    pub(super) preferred: HashMap<Key, usize>,
}

/// Where and how to open one partition, decided under the manager's lock.
pub(super) struct OpenPlan {
    pub(super) dir: usize,
    pub(super) path: PathBuf,
    pub(super) recovery_point: i64,
    pub(super) log_start: i64,
    pub(super) high_watermark: i64,
}

/// A partition already in an offline directory cannot open; a new one goes where
/// AlterReplicaLogDirs asked, else to the online directory holding the fewest partitions (none
/// online: an error).
pub(super) fn plan_open(state: &mut State, key: &Key) -> io::Result<OpenPlan> {
    let d = match state.dirs.iter().position(|d| d.partitions.contains(key)) {
        Some(d) if state.dirs[d].is_offline() => return Err(offline_error(&state.dirs[d].path)),
        Some(d) => d,
        None => match state.preferred.remove(key) {
            Some(d) if !state.dirs[d].is_offline() => d,
            _ => (0..state.dirs.len())
                .filter(|&d| !state.dirs[d].is_offline())
                .min_by_key(|&d| state.dirs[d].partitions.len())
                .ok_or_else(|| io::Error::other("every log directory is offline"))?,
        },
    };
    let dir = &mut state.dirs[d];
    // Counted at once, so that partitions placed while this one opens spread over the dirs.
    dir.partitions.insert(key.clone());
    let recovery_point = if dir.clean_at_start && dir.at_start.contains(key) {
        i64::MAX
    } else {
        dir.unopened.recovery_point.get(key).copied().unwrap_or(0)
    };
    Ok(OpenPlan {
        dir: d,
        path: dir.path.join(partition_dir_name(&key.0, key.1)),
        recovery_point,
        log_start: dir.unopened.log_start.get(key).copied().unwrap_or(0),
        high_watermark: dir.unopened.high_watermark.get(key).copied().unwrap_or(0),
    })
}

/// Creates the directory if needed, checks or writes `partition.metadata`, opens the log.
pub(super) fn open_log(plan: &OpenPlan, topic_id: [u8; 16], config: LogConfig) -> io::Result<Log> {
    let created = match std::fs::create_dir(&plan.path) {
        Ok(()) => true,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
        Err(e) => return Err(e),
    };
    let wrote_metadata = write_partition_metadata(&plan.path, topic_id)?;
    let mut log = Log::open(
        &plan.path,
        config,
        plan.recovery_point,
        plan.log_start,
        plan.high_watermark,
    )?;
    if created || wrote_metadata {
        log.mark_new_dir();
    }
    Ok(log)
}
