//! All partition logs of a broker across its log directories, and the per-directory
//! checkpoint files.
//!
//! Logs are opened when the control plane asks for them (it knows each topic's config), not at
//! startup; the checkpointed offsets of partitions not opened yet are kept and written back so
//! an early checkpoint does not forget them.

use std::collections::HashSet;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

use super::checkpoint::{sync_dir, sync_file_system, write_offsets};
use super::{Log, LogConfig};
use crate::properties;

/// A shared handle to one partition's log.
pub type LogHandle = Arc<RwLock<Log>>;

use super::dir_files::{
    ensure_meta_properties, is_valid_topic_name, lock_dir, parse_partition_dir, partition_dir_name,
    read_checkpoint, write_atomically,
};
pub use super::dir_files::{
    topic_id_string, CLEAN_SHUTDOWN_FILE, HIGH_WATERMARK_CHECKPOINT, LOCK_FILE,
    LOG_START_CHECKPOINT, META_PROPERTIES, PARTITION_METADATA, RECOVERY_POINT_CHECKPOINT,
};
use super::dir_move::Mover;
use super::future_log::{parse_future_dir, resolve_duplicates};
use super::placement::{open_log, plan_open, LogDir, Offsets, State};

pub(super) type Key = (String, i32);

#[derive(Debug)]
pub struct LogManager {
    pub dirs: Vec<PathBuf>,
    pub(super) state: parking_lot::Mutex<State>,
    /// Logs moving to another directory (AlterReplicaLogDirs).
    pub(super) mover: Mover,
    /// Signalled when a partition finishes opening (see `State::opening`).
    opened: parking_lot::Condvar,
    /// `producer.id.expiration.ms`, a broker setting: `tick` forgets producers idle longer.
    producer_id_expiration_ms: AtomicI64,
    /// `num.recovery.threads.per.data.dir`: threads per directory that open logs at start-up
    /// and close them at shutdown.
    threads_per_dir: AtomicUsize,
    /// Each directory's locked `.lock`, held for the manager's lifetime (the lock goes with the
    /// file when it is dropped, or with the process).
    _locks: Vec<std::fs::File>,
}

impl LogManager {
    /// Opens the log directories (creating them), reading their checkpoint files.
    pub fn new(dirs: Vec<PathBuf>) -> std::io::Result<LogManager> {
        Self::open_dirs(dirs, None)
    }

    /// As `new`, also recording `node_id` in each directory's `meta.properties` and refusing a
    /// directory that belongs to another node.
    pub fn with_node_id(dirs: Vec<PathBuf>, node_id: i32) -> std::io::Result<LogManager> {
        Self::open_dirs(dirs, Some(node_id))
    }

    fn open_dirs(dirs: Vec<PathBuf>, node_id: Option<i32>) -> io::Result<LogManager> {
        if dirs.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no log directories",
            ));
        }
        let mut state = State::default();
        let mut locks = Vec::with_capacity(dirs.len());
        let mover = Mover::default();
        for (d, path) in dirs.iter().enumerate() {
            std::fs::create_dir_all(path)?;
            locks.push(lock_dir(path)?);
            ensure_meta_properties(path, node_id)?;
            let marker = path.join(CLEAN_SHUTDOWN_FILE);
            let clean_at_start = marker.exists();
            if clean_at_start {
                std::fs::remove_file(&marker)?;
                sync_dir(path)?;
            }
            let mut partitions = HashSet::new();
            for entry in std::fs::read_dir(path)? {
                let entry = entry?;
                if !entry.file_type()?.is_dir() {
                    continue;
                }
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.ends_with("-delete") {
                    // A deletion interrupted by a crash: finish it.
                    std::fs::remove_dir_all(entry.path())?;
                } else if let Some(key) = parse_future_dir(&name) {
                    // A move interrupted by the stop: it goes on once the partition opens.
                    mover.record_found(key, d, entry.path());
                } else if let Some(key) = parse_partition_dir(&name) {
                    partitions.insert(key);
                }
            }
            state.dirs.push(LogDir {
                path: path.clone(),
                clean_at_start,
                at_start: partitions.clone(),
                opened: HashSet::new(),
                partitions,
                unopened: Offsets {
                    high_watermark: read_checkpoint(&path.join(HIGH_WATERMARK_CHECKPOINT)),
                    recovery_point: read_checkpoint(&path.join(RECOVERY_POINT_CHECKPOINT)),
                    log_start: read_checkpoint(&path.join(LOG_START_CHECKPOINT)),
                },
                failure: Arc::default(),
            });
        }
        resolve_duplicates(&mut state)?;
        Ok(LogManager {
            dirs,
            state: parking_lot::Mutex::new(state),
            mover,
            opened: parking_lot::Condvar::new(),
            // The server sets both from the broker's config; until then, the table's defaults.
            producer_id_expiration_ms: AtomicI64::new(properties::default_of(
                &properties::table::server::PRODUCER_ID_EXPIRATION_MS,
            )),
            threads_per_dir: AtomicUsize::new(properties::default_of(
                &properties::table::server::NUM_RECOVERY_THREADS_PER_DATA_DIR,
            )),
            _locks: locks,
        })
    }

    /// Opens (recovering) or creates `<topic>-<partition>`; writes `partition.metadata` with
    /// the topic id. Idempotent. A directory holding another topic id is an error
    /// (INCONSISTENT_TOPIC_ID: a topic deleted and recreated while this broker was away).
    ///
    /// Recovery runs without the manager's lock, so several partitions open at once
    /// (`open_many`); a second caller for a partition being opened waits for the first.
    /// Nothing is fsynced here, as in Kafka: a new directory and its `partition.metadata` are
    /// made durable by the log's first flush (see `Log::flush_plan`), so creating thousands of
    /// partitions costs no fsync each.
    pub fn open_or_create(
        &self,
        topic: &str,
        partition: i32,
        topic_id: [u8; 16],
        config: LogConfig,
    ) -> std::io::Result<LogHandle> {
        if !is_valid_topic_name(topic) || partition < 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("invalid topic partition {topic:?} {partition}"),
            ));
        }
        let key = (topic.to_owned(), partition);
        if let Some((handle, _)) = self.state.lock().logs.get(&key) {
            return Ok(Arc::clone(handle));
        }
        let plan = {
            let mut state = self.state.lock();
            loop {
                if state.closing {
                    return Err(io::Error::other("the log manager is shutting down"));
                }
                if let Some((handle, _)) = state.logs.get(&key) {
                    return Ok(Arc::clone(handle));
                }
                if !state.opening.contains(&key) {
                    break;
                }
                self.opened.wait(&mut state);
            }
            let plan = plan_open(&mut state, &key)?;
            state.opening.insert(key.clone());
            plan
        };
        let opened = open_log(&plan, topic_id, config.clone());
        let mut state = self.state.lock();
        state.opening.remove(&key);
        self.opened.notify_all();
        let dir = &mut state.dirs[plan.dir];
        let mut log = match opened {
            Ok(log) => log,
            // A wrong topic id or a bad name is the request's fault; any other failure to
            // create or recover a log is the directory's, as in Kafka.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput
                ) =>
            {
                return Err(e)
            }
            Err(e) => {
                dir.failure.fail(&e, &dir.path);
                return Err(e);
            }
        };
        log.set_dir_failure(Arc::clone(&dir.failure));
        dir.partitions.insert(key.clone());
        dir.opened.insert(key.clone());
        dir.unopened.recovery_point.remove(&key);
        dir.unopened.log_start.remove(&key);
        dir.unopened.high_watermark.remove(&key);
        let handle = Arc::new(RwLock::new(log));
        state
            .logs
            .insert(key.clone(), (Arc::clone(&handle), plan.dir));
        drop(state);
        self.resume_move(&key, &config);
        Ok(handle)
    }

    /// Runs `work` over `items` on `num.recovery.threads.per.data.dir` threads for each log
    /// directory, as Kafka opens and closes logs; returns each outcome, in order. Callers use
    /// it to open many partitions at once (each one can be served as soon as it is open, by
    /// doing so inside `work`) and to close them all at shutdown.
    pub fn parallel<T: Sync, R: Send>(&self, items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
        let per_dir = self.threads_per_dir.load(Ordering::Relaxed);
        let threads = (per_dir * self.dirs.len()).min(items.len());
        if threads <= 1 {
            return items.iter().map(work).collect();
        }
        let next = AtomicUsize::new(0);
        let results: Vec<parking_lot::Mutex<Option<R>>> = items
            .iter()
            .map(|_| parking_lot::Mutex::new(None))
            .collect();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else {
                        break;
                    };
                    *results[i].lock() = Some(work(item));
                });
            }
        });
        results
            .into_iter()
            .map(|r| r.into_inner().expect("every item ran"))
            .collect()
    }

    /// Sets `num.recovery.threads.per.data.dir`.
    pub fn set_threads_per_dir(&self, threads: usize) {
        self.threads_per_dir
            .store(threads.max(1), Ordering::Relaxed);
    }

    /// Sets `producer.id.expiration.ms`.
    pub fn set_producer_id_expiration_ms(&self, ms: i64) {
        self.producer_id_expiration_ms.store(ms, Ordering::Relaxed);
    }

    pub fn get(&self, topic: &str, partition: i32) -> Option<LogHandle> {
        self.state
            .lock()
            .logs
            .get(&(topic.to_owned(), partition))
            .map(|(h, _)| Arc::clone(h))
    }

    /// Every open log, for iteration by the caller.
    pub fn logs(&self) -> Vec<(String, i32, LogHandle)> {
        self.state
            .lock()
            .logs
            .iter()
            .map(|((t, p), (h, _))| (t.clone(), *p, Arc::clone(h)))
            .collect()
    }

    /// Closes and deletes the partition's directory. The log refuses appends from then on;
    /// fetches in flight keep reading their open segment files.
    pub fn delete(&self, topic: &str, partition: i32) -> std::io::Result<()> {
        let key = (topic.to_owned(), partition);
        self.cancel_move(&key);
        let mut state = self.state.lock();
        if let Some((handle, _)) = state.logs.remove(&key) {
            handle.write().closed = true;
        }
        let mut doomed_dirs = Vec::new();
        for dir in &mut state.dirs {
            dir.unopened.recovery_point.remove(&key);
            dir.unopened.log_start.remove(&key);
            dir.unopened.high_watermark.remove(&key);
            if !dir.partitions.remove(&key) {
                continue;
            }
            let path = dir.path.join(partition_dir_name(topic, partition));
            // Renamed first so a crash mid-way leaves a `-delete` directory that startup
            // removes, never a half-deleted partition that would be opened again.
            let doomed = dir.path.join(format!(
                "{}.{}-delete",
                partition_dir_name(topic, partition),
                super::now_ms()
            ));
            std::fs::rename(&path, &doomed)?;
            sync_dir(&dir.path)?;
            doomed_dirs.push(doomed);
        }
        drop(state);
        // The slow part without the lock: other partitions' commands go on meanwhile.
        for doomed in doomed_dirs {
            std::fs::remove_dir_all(&doomed)?;
        }
        Ok(())
    }

    /// The log directories taken offline by an I/O error in this run.
    pub fn offline_dirs(&self) -> Vec<PathBuf> {
        let state = self.state.lock();
        state
            .dirs
            .iter()
            .filter(|d| d.is_offline())
            .map(|d| d.path.clone())
            .collect()
    }

    /// The directory that holds the partition.
    pub fn dir_of(&self, topic: &str, partition: i32) -> Option<PathBuf> {
        let key = (topic.to_owned(), partition);
        let state = self.state.lock();
        let dir = state.dirs.iter().find(|d| d.partitions.contains(&key))?;
        Some(dir.path.join(partition_dir_name(topic, partition)))
    }

    /// Writes the high-watermark, recovery-point and log-start-offset checkpoints of every
    /// online directory (temp file, fsync, rename). A directory whose checkpoint fails goes
    /// offline (the others are still written); the first error is returned.
    pub fn checkpoint(&self) -> std::io::Result<()> {
        let state = self.state.lock();
        let mut first_error = None;
        for (d, dir) in state.dirs.iter().enumerate() {
            if dir.is_offline() {
                continue;
            }
            if let Err(e) = Self::checkpoint_dir(&state, d, dir) {
                dir.failure.fail(&e, &dir.path);
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    fn checkpoint_dir(state: &State, d: usize, dir: &LogDir) -> io::Result<()> {
        let mut hw = dir.unopened.high_watermark.clone();
        let mut rp = dir.unopened.recovery_point.clone();
        let mut ls = dir.unopened.log_start.clone();
        for (key, (handle, _)) in state.logs.iter().filter(|(_, (_, ld))| *ld == d) {
            let log = handle.read();
            hw.insert(key.clone(), log.high_watermark());
            rp.insert(key.clone(), log.recovery_point());
            ls.insert(key.clone(), log.log_start_offset());
        }
        write_offsets(&dir.path.join(HIGH_WATERMARK_CHECKPOINT), &hw)?;
        write_offsets(&dir.path.join(RECOVERY_POINT_CHECKPOINT), &rp)?;
        write_offsets(&dir.path.join(LOG_START_CHECKPOINT), &ls)
    }

    /// Periodic work: roll by time, retention, compaction, flush by `flush.ms`. Returns
    /// segments deleted.
    /// Every log is visited even if one fails; the first error is returned.
    pub fn tick(&self, now_ms: i64) -> std::io::Result<usize> {
        let handles: Vec<LogHandle> = self
            .state
            .lock()
            .logs
            .values()
            .map(|(h, _)| Arc::clone(h))
            .collect();
        let mut deleted = 0;
        let mut first_error = None;
        for handle in handles {
            if let Err(e) = self.tick_one(&handle, now_ms, &mut deleted) {
                let log = handle.read();
                ::log::error!("periodic work on {} failed: {e}", log.dir.display());
                log.dir_failure
                    .fail(&e, log.dir.parent().unwrap_or(&log.dir));
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(deleted), Err)
    }

    fn tick_one(&self, handle: &LogHandle, now_ms: i64, deleted: &mut usize) -> io::Result<()> {
        let plan = {
            let mut log = handle.write();
            if log.refuses_io() {
                return Ok(());
            }
            log.maybe_roll(now_ms)?;
            *deleted += log.apply_retention(now_ms)?;
            log.maybe_compact(now_ms)?;
            log.expire_producers(
                now_ms,
                self.producer_id_expiration_ms.load(Ordering::Relaxed),
            );
            log.flush_due(now_ms).then(|| log.flush_plan())
        };
        // fsync without the lock: produce and fetch go on meanwhile.
        if let Some(plan) = plan {
            plan.execute()?;
            handle.write().complete_flush(&plan);
        }
        Ok(())
    }

    /// Closes every log (flush, producer snapshots), writes checkpoints and the clean-shutdown
    /// marker.
    pub fn shutdown(&self) -> std::io::Result<()> {
        let handles: Vec<LogHandle> = {
            let mut state = self.state.lock();
            state.closing = true;
            // A log still being recovered finishes first: it must not be half done when the
            // clean-shutdown marker is written.
            while !state.opening.is_empty() {
                self.opened.wait(&mut state);
            }
            state.logs.values().map(|(h, _)| Arc::clone(h)).collect()
        };
        self.stop_mover();
        // Every log is sealed and its producer snapshot written, then each log directory's
        // file system is synced once: a broker with thousands of partitions stops in one
        // write-back instead of several fsyncs per partition.
        let started = std::time::Instant::now();
        let mut plans = Vec::with_capacity(handles.len());
        for (handle, closed) in handles.iter().zip(self.parallel(&handles, |h| {
            let mut log = h.write();
            // Nothing is written to an offline directory, not even at shutdown.
            (!log.refuses_io())
                .then(|| log.close_unsynced(false))
                .transpose()
        })) {
            plans.push(closed.unwrap_or_else(|e| {
                // This log's directory goes offline (no clean-shutdown marker: the next
                // start recovers it); the others still close cleanly.
                let log = handle.read();
                log.dir_failure
                    .fail(&e, log.dir.parent().unwrap_or(&log.dir));
                None
            }));
        }
        let closed = started.elapsed();
        let online: Vec<PathBuf> = {
            let state = self.state.lock();
            state
                .dirs
                .iter()
                .filter(|d| !d.is_offline())
                .map(|d| d.path.clone())
                .collect()
        };
        for dir in &online {
            sync_file_system(dir)?;
        }
        ::log::info!(
            "closed {} logs in {} ms, synced their file systems in {} ms",
            handles.len(),
            closed.as_millis(),
            (started.elapsed() - closed).as_millis()
        );
        for (handle, plan) in handles.iter().zip(&plans) {
            if let Some(plan) = plan {
                handle.write().complete_flush(plan);
            }
        }
        self.checkpoint()?;
        for dir in &self.state.lock().dirs {
            if dir.is_offline() {
                ::log::warn!("{}: offline; no clean-shutdown marker", dir.path.display());
                continue;
            }
            let unrecovered = |k: &Key| dir.partitions.contains(k) && !dir.opened.contains(k);
            if !dir.clean_at_start && dir.at_start.iter().any(unrecovered) {
                ::log::info!("{}: some partitions were not opened since an unclean stop; no clean-shutdown marker", dir.path.display());
                continue;
            }
            write_atomically(
                &dir.path.join(CLEAN_SHUTDOWN_FILE),
                "{\"version\":0,\"brokerEpoch\":-1}",
            )?;
        }
        Ok(())
    }
}
