//! Moving a partition's log to another of the broker's log directories while it serves
//! (AlterReplicaLogDirs), as Kafka's ReplicaAlterLogDirsThread does on a ZooKeeper-mode broker.
//!
//! A future log, `<topic>-<partition>.<id>-future` in the destination, is filled from the
//! current log byte for byte, batch by batch, by one mover thread, at most
//! `replica.alter.log.dirs.io.max.bytes.per.second`. Each step first follows what happened to
//! the current log since the last one: a truncation (the future is cut where the two diverge,
//! by leader epoch, as a follower is) or a new log start. Once the future has caught up, the
//! rest is copied under the log's write lock and the future takes the current log's place
//! inside the same handle: the partition's replica, its fetch sessions and its waiters go on
//! with the new log, and a fetch in flight still reads the old files it holds open.
//!
//! Crash safety goes beyond Kafka's: before the future is renamed into place it gets a
//! `PROMOTED_MARKER`, removed once the old directory is renamed away. A start that finds the
//! partition in two directories keeps the one with the marker (Kafka stops there with
//! "Duplicate log directories" for an operator to choose). A future found at start resumes
//! when its partition opens.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, MutexGuard};

use super::dir_files::{partition_dir_name, random_id, PARTITION_METADATA};
use super::future_log::{copy_chunk, follow, promote, FUTURE_SUFFIX};
use super::manager::{Key, LogHandle, LogManager};
use super::placement::State;
use super::Log;
use crate::error::ErrorCode;

/// What one step copies at most (also bounded by the rate, so a throttled step stays short).
const CHUNK_BYTES: u32 = 1 << 20;
/// Kafka's limit on a directory name (`logFutureDirName` longer fails with INVALID_TOPIC).
const MAX_DIR_NAME: usize = 255;

/// A partition's log being built in another log directory.
#[derive(Debug)]
pub(super) struct Future {
    pub(super) log: Log,
    /// The destination: an index into the manager's directories.
    pub(super) dir: usize,
}

/// The futures and the mover thread's settings.
#[derive(Debug)]
pub(super) struct Mover {
    /// Copied in key order, one partition at a time, as Kafka's thread does: each move
    /// finishes as early as it can.
    futures: Mutex<BTreeMap<Key, Future>>,
    /// Futures found at start, resumed when their partition opens: (directory, path).
    found: Mutex<HashMap<Key, (usize, PathBuf)>>,
    work: Condvar,
    /// Bytes per second; 0 or less: no limit.
    rate: AtomicI64,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Default for Mover {
    fn default() -> Mover {
        Mover {
            futures: Mutex::default(),
            found: Mutex::default(),
            work: Condvar::new(),
            rate: AtomicI64::new(0),
            thread: Mutex::default(),
        }
    }
}

/// One future log as DescribeLogDirs lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FutureLogInfo {
    pub topic: String,
    pub partition: i32,
    /// The destination log directory.
    pub log_dir: PathBuf,
    pub size_bytes: u64,
    /// How far the future's end is behind the current log's (Kafka's OffsetLag of a future).
    pub offset_lag: i64,
}

impl Mover {
    pub(super) fn record_found(&self, key: Key, dir: usize, path: PathBuf) {
        if let Some((_, older)) = self.found.lock().insert(key, (dir, path)) {
            // Two futures of one partition (a move redirected before a crash): keep one.
            let _ = std::fs::remove_dir_all(older);
        }
    }
}

impl LogManager {
    /// Starts the mover thread; moves requested before it starts wait for it.
    pub fn start_mover(self: &Arc<Self>) {
        let mut thread = self.mover.thread.lock();
        if thread.is_none() {
            let manager = Arc::clone(self);
            *thread = Some(
                std::thread::Builder::new()
                    .name("ferrolog-alter-log-dirs".into())
                    .spawn(move || manager.run_mover())
                    .expect("a thread starts"),
            );
        }
    }

    /// `replica.alter.log.dirs.io.max.bytes.per.second` (None: no limit).
    pub fn set_alter_log_dirs_rate(&self, bytes_per_second: Option<i64>) {
        self.mover
            .rate
            .store(bytes_per_second.unwrap_or(0), Ordering::Relaxed);
        self.wake_mover();
    }

    /// Moves the partition's log to the log directory `dest` (AlterReplicaLogDirs). Ok(true)
    /// once the move runs, or is not needed (the log is there: a move elsewhere is cancelled);
    /// Ok(false) when the partition is not hosted here: `dest` is kept for when it is created.
    /// Refusals carry Kafka's error code for the answer.
    pub fn alter_dir(
        &self,
        topic: &str,
        partition: i32,
        dest: &Path,
    ) -> Result<bool, (ErrorCode, String)> {
        let key: Key = (topic.to_owned(), partition);
        let name = partition_dir_name(topic, partition);
        if format!("{name}.{}{FUTURE_SUFFIX}", "0".repeat(32)).len() > MAX_DIR_NAME {
            return Err((
                ErrorCode::InvalidTopicException,
                format!("The future replica dir of {name} would exceed {MAX_DIR_NAME} bytes"),
            ));
        }
        let mut futures = self.mover.futures.lock();
        let mut state = self.state.lock();
        let Some(d) = state.dirs.iter().position(|dir| same_dir(&dir.path, dest)) else {
            return Err((
                ErrorCode::LogDirNotFound,
                format!("Log dir {} is not found in the config.", dest.display()),
            ));
        };
        if state.dirs[d].is_offline() {
            return Err((
                ErrorCode::KafkaStorageError,
                format!("Log directory {} is offline", dest.display()),
            ));
        }
        if futures.get(&key).is_some_and(|f| f.dir == d) {
            return Ok(true); // asked again: the move goes on
        }
        if let Some(cancelled) = futures.remove(&key) {
            ::log::info!(
                "{name}: the move to {} is cancelled",
                cancelled.log.dir.display()
            );
            discard(cancelled.log);
        }
        let Some((handle, current)) = state.logs.get(&key).map(|(h, d)| (Arc::clone(h), *d)) else {
            state.preferred.insert(key, d);
            return Ok(false);
        };
        if current == d {
            return Ok(true);
        }
        if state.dirs.iter().any(|dir| dir.is_offline()) {
            return Err((
                ErrorCode::KafkaStorageError,
                "No future log is created while a log directory is offline".into(),
            ));
        }
        let future = create_future(&state, &handle, d, &name)
            .map_err(|e| (ErrorCode::KafkaStorageError, format!("{name}: {e}")))?;
        ::log::info!(
            "{name}: moving from {} to {}",
            state.dirs[current].path.display(),
            dest.display()
        );
        drop(state);
        futures.insert(key, future);
        self.mover.work.notify_all();
        Ok(true)
    }

    /// The future logs, with how far each is behind its current log.
    pub fn future_logs(&self) -> Vec<FutureLogInfo> {
        let futures = self.mover.futures.lock();
        let state = self.state.lock();
        futures
            .iter()
            .map(|((topic, partition), f)| {
                let current_end = state
                    .logs
                    .get(&(topic.clone(), *partition))
                    .map_or(-1, |(h, _)| h.read().log_end_offset());
                FutureLogInfo {
                    topic: topic.clone(),
                    partition: *partition,
                    log_dir: state.dirs[f.dir].path.clone(),
                    size_bytes: f.log.size_bytes(),
                    offset_lag: if current_end < 0 {
                        -1
                    } else {
                        (current_end - f.log.log_end_offset()).max(0)
                    },
                }
            })
            .collect()
    }

    /// Called once the partition's current log is open: a future found at start goes on.
    pub(super) fn resume_move(&self, key: &Key, config: &super::LogConfig) {
        let Some((dir, path)) = self.mover.found.lock().remove(key) else {
            return;
        };
        let mut futures = self.mover.futures.lock();
        let (failure, current) = {
            let state = self.state.lock();
            let current = state.logs.get(key).map(|(_, d)| *d);
            (Arc::clone(&state.dirs[dir].failure), current)
        };
        if current == Some(dir) {
            let _ = std::fs::remove_dir_all(&path);
            return;
        }
        // The future was never checkpointed: recovered whole.
        match Log::open(&path, config.clone(), 0, 0, 0) {
            Ok(mut log) => {
                log.set_dir_failure(failure);
                ::log::info!("{}: resuming the move to {}", path.display(), dir);
                futures.insert(key.clone(), Future { log, dir });
                self.mover.work.notify_all();
            }
            Err(e) => {
                ::log::warn!("{}: unreadable future log dropped: {e}", path.display());
                let _ = std::fs::remove_dir_all(&path);
            }
        }
    }

    /// Drops the partition's future, and one found at start (the partition is deleted).
    pub(super) fn cancel_move(&self, key: &Key) {
        if let Some(future) = self.mover.futures.lock().remove(key) {
            discard(future.log);
        }
        if let Some((_, path)) = self.mover.found.lock().remove(key) {
            let _ = std::fs::remove_dir_all(path);
        }
    }

    /// Stops the mover: each future is closed where it is, to resume at the next start.
    pub(super) fn stop_mover(&self) {
        self.wake_mover();
        let thread = self.mover.thread.lock().take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
        for (_, mut future) in std::mem::take(&mut *self.mover.futures.lock()) {
            if let Err(e) = future.log.close() {
                ::log::warn!("{}: not closed: {e}", future.log.dir.display());
            }
        }
    }

    fn run_mover(&self) {
        loop {
            let mut futures = self.mover.futures.lock();
            while futures.is_empty() && !self.state.lock().closing {
                self.mover
                    .work
                    .wait_for(&mut futures, Duration::from_secs(1));
            }
            if self.state.lock().closing {
                return;
            }
            let key = futures.keys().next().cloned().expect("not empty");
            let handle = self.get(&key.0, key.1);
            let future = futures.get_mut(&key).expect("present");
            let rate = self.mover.rate.load(Ordering::Relaxed);
            let chunk = if rate > 0 {
                CHUNK_BYTES
                    .min(u32::try_from(rate).unwrap_or(u32::MAX))
                    .max(1)
            } else {
                CHUNK_BYTES
            };
            let outcome = match handle {
                None => Err(io::Error::other("the partition is no longer hosted here")),
                Some(handle) => self.step(&key, future, &handle, chunk),
            };
            match outcome {
                Ok(Step::Copied(bytes)) => {
                    if rate > 0 {
                        let pause = Duration::from_secs_f64(bytes as f64 / rate as f64);
                        self.throttle(&mut futures, Instant::now() + pause);
                    }
                }
                Ok(Step::Promoted(doomed)) => {
                    futures.remove(&key);
                    drop(futures);
                    if let Err(e) = std::fs::remove_dir_all(&doomed) {
                        ::log::warn!("{} not deleted: {e}", doomed.display());
                    }
                }
                Err(e) => {
                    let future = futures.remove(&key).expect("present");
                    ::log::error!(
                        "{}-{}: the move to {} failed and is dropped: {e}",
                        key.0,
                        key.1,
                        future.log.dir.display()
                    );
                    discard(future.log);
                }
            }
        }
    }

    /// Wakes the mover to look again. Under its lock, as it checks before it waits: the
    /// wake-up cannot fall between the two.
    fn wake_mover(&self) {
        let _futures = self.mover.futures.lock();
        self.mover.work.notify_all();
    }

    /// Waits until `until`, or until the mover stops or the limit is lifted.
    fn throttle(&self, futures: &mut MutexGuard<'_, BTreeMap<Key, Future>>, until: Instant) {
        while Instant::now() < until
            && !self.state.lock().closing
            && self.mover.rate.load(Ordering::Relaxed) > 0
        {
            self.mover.work.wait_until(futures, until);
        }
    }

    /// One step of a move: a chunk copied, or the future promoted.
    fn step(&self, key: &Key, f: &mut Future, handle: &LogHandle, chunk: u32) -> io::Result<Step> {
        let started = Instant::now();
        {
            let current = handle.read();
            follow(&current, &mut f.log)?;
            if f.log.log_end_offset() < current.log_end_offset() {
                let copied = copy_chunk(&current, &mut f.log, chunk)?;
                return Ok(Step::Copied(copied));
            }
        }
        // Caught up a moment ago: what arrived since is copied under the locks, then the
        // future takes the current log's place. The manager's lock comes first, as in
        // `checkpoint`.
        let mut state = self.state.lock();
        let mut current = handle.write();
        follow(&current, &mut f.log)?;
        while f.log.log_end_offset() < current.log_end_offset() {
            let end = f.log.log_end_offset();
            copy_chunk(&current, &mut f.log, CHUNK_BYTES)?;
            if f.log.log_end_offset() <= end {
                return Err(io::Error::other(format!("no progress at {end}")));
            }
        }
        let doomed = promote(&mut state, key, &mut current, f)?;
        ::log::info!(
            "{}-{}: moved to {} (the last step held the log for {} ms)",
            key.0,
            key.1,
            state.dirs[f.dir].path.display(),
            started.elapsed().as_millis()
        );
        Ok(Step::Promoted(doomed))
    }
}

enum Step {
    Copied(u64),
    /// The replaced directory, to delete.
    Promoted(PathBuf),
}

/// Whether two spellings name the same configured directory (Kafka compares absolute paths).
fn same_dir(configured: &Path, asked: &Path) -> bool {
    std::path::absolute(configured).ok().as_deref() == Some(asked)
}

fn create_future(state: &State, handle: &LogHandle, dir: usize, name: &str) -> io::Result<Future> {
    let current = handle.read();
    let id: String = random_id().iter().map(|b| format!("{b:02x}")).collect();
    let path = state.dirs[dir]
        .path
        .join(format!("{name}.{id}{FUTURE_SUFFIX}"));
    std::fs::create_dir(&path)?;
    let created = std::fs::copy(
        current.dir.join(PARTITION_METADATA),
        path.join(PARTITION_METADATA),
    )
    .and_then(|_| Log::open(&path, current.config.clone(), 0, 0, 0));
    match created {
        Ok(mut log) => {
            log.set_dir_failure(Arc::clone(&state.dirs[dir].failure));
            Ok(Future { log, dir })
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&path);
            Err(e)
        }
    }
}

/// Closes a future and deletes its directory.
fn discard(mut log: Log) {
    log.closed = true;
    let dir = log.dir.clone();
    drop(log);
    if let Err(e) = std::fs::remove_dir_all(&dir) {
        ::log::warn!("{} not deleted: {e}", dir.display());
    }
}
