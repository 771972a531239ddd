//! All partition logs of a broker across its log directories, and the per-directory
//! checkpoint files.
//!
//! Logs are opened when the control plane asks for them (it knows each topic's config), not at
//! startup; the checkpointed offsets of partitions not opened yet are kept and written back so
//! an early checkpoint does not forget them.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

use super::checkpoint::{read_offsets, sync_dir, sync_file_system, write_offsets};
use super::{Log, LogConfig, LogDirFailure};
use crate::properties;

/// A shared handle to one partition's log.
pub type LogHandle = Arc<RwLock<Log>>;

pub const HIGH_WATERMARK_CHECKPOINT: &str = "replication-offset-checkpoint";
pub const RECOVERY_POINT_CHECKPOINT: &str = "recovery-point-offset-checkpoint";
pub const LOG_START_CHECKPOINT: &str = "log-start-offset-checkpoint";
pub const CLEAN_SHUTDOWN_FILE: &str = ".kafka_cleanshutdown";
/// Kafka's lock file: the process that holds an exclusive lock on it owns the directory.
pub const LOCK_FILE: &str = ".lock";
pub const META_PROPERTIES: &str = "meta.properties";
pub const PARTITION_METADATA: &str = "partition.metadata";

type Key = (String, i32);

#[derive(Debug, Default)]
struct Offsets {
    high_watermark: HashMap<Key, i64>,
    recovery_point: HashMap<Key, i64>,
    log_start: HashMap<Key, i64>,
}

#[derive(Debug)]
struct LogDir {
    path: PathBuf,
    /// The directory held the clean-shutdown marker at startup: its logs need no recovery.
    clean_at_start: bool,
    /// Partitions whose directory is here, open or not (placement counts them).
    partitions: HashSet<Key>,
    /// Partitions present when the broker started (the clean marker vouches only for them).
    at_start: HashSet<Key>,
    /// Partitions opened (and so recovered) in this run: after an unclean start the
    /// clean-shutdown marker may only be written once every partition found was opened, as
    /// the marker vouches for all of the directory.
    opened: HashSet<Key>,
    /// Checkpointed offsets of partitions not opened yet.
    unopened: Offsets,
    /// Offline after an I/O error (shared with its logs): nothing is written here again.
    failure: Arc<LogDirFailure>,
}

impl LogDir {
    fn is_offline(&self) -> bool {
        self.failure.is_offline()
    }
}

/// The error of an operation refused because its log directory is offline.
fn offline_error(path: &Path) -> io::Error {
    io::Error::other(format!("log directory {} is offline", path.display()))
}

#[derive(Debug, Default)]
struct State {
    dirs: Vec<LogDir>,
    logs: HashMap<Key, (LogHandle, usize)>,
    /// Partitions being opened (recovered) outside the lock right now.
    opening: HashSet<Key>,
    /// Set by `shutdown`: no log opens after it (a bulk open still running stops).
    closing: bool,
}

/// Where and how to open one partition, decided under the manager's lock.
struct OpenPlan {
    dir: usize,
    path: PathBuf,
    recovery_point: i64,
    log_start: i64,
    high_watermark: i64,
}

/// A partition already in an offline directory cannot open; a new one goes to the online
/// directory holding the fewest partitions (none online: an error).
fn plan_open(state: &mut State, key: &Key) -> io::Result<OpenPlan> {
    let d = match state.dirs.iter().position(|d| d.partitions.contains(key)) {
        Some(d) if state.dirs[d].is_offline() => return Err(offline_error(&state.dirs[d].path)),
        Some(d) => d,
        None => (0..state.dirs.len())
            .filter(|&d| !state.dirs[d].is_offline())
            .min_by_key(|&d| state.dirs[d].partitions.len())
            .ok_or_else(|| io::Error::other("every log directory is offline"))?,
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
fn open_log(plan: &OpenPlan, topic_id: [u8; 16], config: LogConfig) -> io::Result<Log> {
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

#[derive(Debug)]
pub struct LogManager {
    pub dirs: Vec<PathBuf>,
    state: parking_lot::Mutex<State>,
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

/// Kafka's textual topic id: base64url without padding (`Uuid.toString`).
pub fn topic_id_string(id: [u8; 16]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(22);
    for chunk in id.chunks(3) {
        let mut n = 0u32;
        for (i, b) in chunk.iter().enumerate() {
            n |= u32::from(*b) << (16 - 8 * i);
        }
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Kafka's rule for topic names; checked here too because the name becomes a path.
fn is_valid_topic_name(topic: &str) -> bool {
    !topic.is_empty()
        && topic.len() <= 249
        && topic != "."
        && topic != ".."
        && topic
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
}

/// `<topic>-<partition>` back to its parts.
fn parse_partition_dir(name: &str) -> Option<Key> {
    let (topic, partition) = name.rsplit_once('-')?;
    let partition: i32 = partition.parse().ok()?;
    (!topic.is_empty() && partition >= 0).then(|| (topic.to_owned(), partition))
}

fn partition_dir_name(topic: &str, partition: i32) -> String {
    format!("{topic}-{partition}")
}

/// Writes `contents` to `path` durably (temp file, fsync, rename, directory fsync).
fn write_atomically(path: &Path, contents: &str) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

fn read_checkpoint(path: &Path) -> HashMap<Key, i64> {
    read_offsets(path).unwrap_or_else(|e| {
        // Losing a checkpoint costs a longer recovery, never data: start from scratch.
        ::log::warn!("ignoring unreadable checkpoint {}: {e}", path.display());
        HashMap::new()
    })
}

/// A random-enough directory id without a random-number crate: std's hasher keys are random
/// per process.
fn random_id() -> [u8; 16] {
    use std::hash::{BuildHasher, Hasher};
    let mut id = [0u8; 16];
    for (i, half) in id.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(super::now_ms() as u64 ^ u64::from(std::process::id()) ^ i as u64);
        half.copy_from_slice(&h.finish().to_be_bytes());
    }
    id
}

/// Takes `dir`'s `.lock` as Kafka does, so a second broker (or a second log manager in this
/// process) started on the same directory fails at once instead of recovering, truncating and
/// appending to logs another broker is writing.
fn lock_dir(dir: &Path) -> io::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(LOCK_FILE))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(io::Error::new(
            io::ErrorKind::ResourceBusy,
            format!(
                "Failed to acquire lock on file {LOCK_FILE} in {}. A Kafka instance in another \
                 process or thread is using this directory.",
                dir.display()
            ),
        )),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

fn ensure_meta_properties(dir: &Path, node_id: Option<i32>) -> io::Result<()> {
    let path = dir.join(META_PROPERTIES);
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let Some(text) = existing else {
        let mut props = format!("version=1\ndirectory.id={}\n", topic_id_string(random_id()));
        if let Some(id) = node_id {
            props.push_str(&format!("node.id={id}\n"));
        }
        return write_atomically(&path, &props);
    };
    let stored = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("node.id="))
        .map(str::trim);
    match (stored, node_id) {
        (Some(s), Some(id)) if s != id.to_string() => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: node.id {s} does not match the configured node.id {id}",
                path.display()
            ),
        )),
        (None, Some(id)) => {
            write_atomically(&path, &format!("{}\nnode.id={id}\n", text.trim_end()))
        }
        _ => Ok(()),
    }
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
        for path in &dirs {
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
        Ok(LogManager {
            dirs,
            state: parking_lot::Mutex::new(state),
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
        let opened = open_log(&plan, topic_id, config);
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
        state.logs.insert(key, (Arc::clone(&handle), plan.dir));
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

/// Writes `partition.metadata` if absent (returns true then, the file not yet fsynced: the
/// log's first flush does it); refuses a directory that holds another topic id.
fn write_partition_metadata(dir: &Path, topic_id: [u8; 16]) -> io::Result<bool> {
    let path = dir.join(PARTITION_METADATA);
    let id = topic_id_string(topic_id);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let stored = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("topic_id:"))
                .map(str::trim);
            match stored {
                Some(s) if s == id => Ok(false),
                _ => Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}: topic id {stored:?} is not {id}", path.display()),
                )),
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // Written whole then renamed, so a crash leaves no torn file behind.
            let tmp = path.with_extension("tmp");
            std::fs::write(&tmp, format!("version: 0\ntopic_id: {id}\n"))?;
            std::fs::rename(&tmp, &path)?;
            Ok(true)
        }
        Err(e) => Err(e),
    }
}
