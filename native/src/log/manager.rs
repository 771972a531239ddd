//! All partition logs of a broker across its log directories, and the per-directory
//! checkpoint files.
//!
//! Logs are opened when the control plane asks for them (it knows each topic's config), not at
//! startup; the checkpointed offsets of partitions not opened yet are kept and written back so
//! an early checkpoint does not forget them.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

use super::checkpoint::{read_offsets, sync_dir, write_offsets};
use super::{Log, LogConfig};

/// A shared handle to one partition's log.
pub type LogHandle = Arc<RwLock<Log>>;

pub const HIGH_WATERMARK_CHECKPOINT: &str = "replication-offset-checkpoint";
pub const RECOVERY_POINT_CHECKPOINT: &str = "recovery-point-offset-checkpoint";
pub const LOG_START_CHECKPOINT: &str = "log-start-offset-checkpoint";
pub const CLEAN_SHUTDOWN_FILE: &str = ".kafka_cleanshutdown";
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
}

#[derive(Debug, Default)]
struct State {
    dirs: Vec<LogDir>,
    logs: HashMap<Key, (LogHandle, usize)>,
}

/// Kafka's default `producer.id.expiration.ms`: one day.
pub const DEFAULT_PRODUCER_ID_EXPIRATION_MS: i64 = 86_400_000;

#[derive(Debug)]
pub struct LogManager {
    pub dirs: Vec<PathBuf>,
    state: RwLock<State>,
    /// `producer.id.expiration.ms`, a broker setting: `tick` forgets producers idle longer.
    producer_id_expiration_ms: AtomicI64,
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
        for path in &dirs {
            std::fs::create_dir_all(path)?;
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
            });
        }
        Ok(LogManager {
            dirs,
            state: RwLock::new(state),
            producer_id_expiration_ms: AtomicI64::new(DEFAULT_PRODUCER_ID_EXPIRATION_MS),
        })
    }

    /// Opens (recovering) or creates `<topic>-<partition>`; writes `partition.metadata` with
    /// the topic id. Idempotent. A directory holding another topic id is an error
    /// (INCONSISTENT_TOPIC_ID: a topic deleted and recreated while this broker was away).
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
        if let Some((handle, _)) = self.state.read().logs.get(&key) {
            return Ok(Arc::clone(handle));
        }
        let mut state = self.state.write();
        if let Some((handle, _)) = state.logs.get(&key) {
            return Ok(Arc::clone(handle));
        }
        let d = match state.dirs.iter().position(|d| d.partitions.contains(&key)) {
            Some(d) => d,
            None => (0..state.dirs.len())
                .min_by_key(|&d| state.dirs[d].partitions.len())
                .expect("at least one dir"),
        };
        let dir = &mut state.dirs[d];
        let path = dir.path.join(partition_dir_name(topic, partition));
        if !path.exists() {
            std::fs::create_dir_all(&path)?;
            // The new directory's entry in the log directory must survive a power loss too.
            sync_dir(&dir.path)?;
        }
        write_partition_metadata(&path, topic_id)?;
        let recovery_point = if dir.clean_at_start && dir.at_start.contains(&key) {
            i64::MAX
        } else {
            dir.unopened.recovery_point.get(&key).copied().unwrap_or(0)
        };
        let log_start = dir.unopened.log_start.get(&key).copied().unwrap_or(0);
        let hw = dir.unopened.high_watermark.get(&key).copied().unwrap_or(0);
        let log = Log::open(&path, config, recovery_point, log_start, hw)?;
        dir.partitions.insert(key.clone());
        dir.opened.insert(key.clone());
        dir.unopened.recovery_point.remove(&key);
        dir.unopened.log_start.remove(&key);
        dir.unopened.high_watermark.remove(&key);
        let handle = Arc::new(RwLock::new(log));
        state.logs.insert(key, (Arc::clone(&handle), d));
        Ok(handle)
    }

    /// Sets `producer.id.expiration.ms`.
    pub fn set_producer_id_expiration_ms(&self, ms: i64) {
        self.producer_id_expiration_ms.store(ms, Ordering::Relaxed);
    }

    pub fn get(&self, topic: &str, partition: i32) -> Option<LogHandle> {
        self.state
            .read()
            .logs
            .get(&(topic.to_owned(), partition))
            .map(|(h, _)| Arc::clone(h))
    }

    /// Every open log, for iteration by the caller.
    pub fn logs(&self) -> Vec<(String, i32, LogHandle)> {
        self.state
            .read()
            .logs
            .iter()
            .map(|((t, p), (h, _))| (t.clone(), *p, Arc::clone(h)))
            .collect()
    }

    /// Closes and deletes the partition's directory. The log refuses appends from then on;
    /// fetches in flight keep reading their open segment files.
    pub fn delete(&self, topic: &str, partition: i32) -> std::io::Result<()> {
        let key = (topic.to_owned(), partition);
        let mut state = self.state.write();
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

    /// The directory that holds the partition.
    pub fn dir_of(&self, topic: &str, partition: i32) -> Option<PathBuf> {
        let key = (topic.to_owned(), partition);
        let state = self.state.read();
        let dir = state.dirs.iter().find(|d| d.partitions.contains(&key))?;
        Some(dir.path.join(partition_dir_name(topic, partition)))
    }

    /// Writes the high-watermark, recovery-point and log-start-offset checkpoints of every
    /// directory (temp file, fsync, rename).
    pub fn checkpoint(&self) -> std::io::Result<()> {
        let state = self.state.read();
        for (d, dir) in state.dirs.iter().enumerate() {
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
            write_offsets(&dir.path.join(LOG_START_CHECKPOINT), &ls)?;
        }
        Ok(())
    }

    /// Periodic work: roll by time, retention, compaction, flush by `flush.ms`. Returns
    /// segments deleted.
    /// Every log is visited even if one fails; the first error is returned.
    pub fn tick(&self, now_ms: i64) -> std::io::Result<usize> {
        let handles: Vec<LogHandle> = self
            .state
            .read()
            .logs
            .values()
            .map(|(h, _)| Arc::clone(h))
            .collect();
        let mut deleted = 0;
        let mut first_error = None;
        for handle in handles {
            if let Err(e) = self.tick_one(&handle, now_ms, &mut deleted) {
                ::log::error!(
                    "periodic work on {} failed: {e}",
                    handle.read().dir.display()
                );
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(deleted), Err)
    }

    fn tick_one(&self, handle: &LogHandle, now_ms: i64, deleted: &mut usize) -> io::Result<()> {
        let plan = {
            let mut log = handle.write();
            if log.is_closed() {
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
        let handles: Vec<LogHandle> = self
            .state
            .read()
            .logs
            .values()
            .map(|(h, _)| Arc::clone(h))
            .collect();
        for handle in handles {
            handle.write().close()?;
        }
        self.checkpoint()?;
        for dir in &self.state.read().dirs {
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

/// Writes `partition.metadata` if absent; refuses a directory that holds another topic id.
fn write_partition_metadata(dir: &Path, topic_id: [u8; 16]) -> io::Result<()> {
    let path = dir.join(PARTITION_METADATA);
    let id = topic_id_string(topic_id);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let stored = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("topic_id:"))
                .map(str::trim);
            match stored {
                Some(s) if s == id => Ok(()),
                _ => Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}: topic id {stored:?} is not {id}", path.display()),
                )),
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            write_atomically(&path, &format!("version: 0\ntopic_id: {id}\n"))
        }
        Err(e) => Err(e),
    }
}
