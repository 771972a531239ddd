//! The files of a log directory besides the partitions' own: Kafka's names for the offset
//! checkpoints and the clean-shutdown marker, `meta.properties` (directory id, node id), the
//! `.lock` that keeps a second broker out, each partition's `partition.metadata`, and the
//! `<topic>-<partition>` directory names.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

use super::checkpoint::{read_offsets, sync_dir};
use super::manager::Key;

pub const HIGH_WATERMARK_CHECKPOINT: &str = "replication-offset-checkpoint";
pub const RECOVERY_POINT_CHECKPOINT: &str = "recovery-point-offset-checkpoint";
pub const LOG_START_CHECKPOINT: &str = "log-start-offset-checkpoint";
pub const CLEAN_SHUTDOWN_FILE: &str = ".kafka_cleanshutdown";
/// Kafka's lock file: the process that holds an exclusive lock on it owns the directory.
pub const LOCK_FILE: &str = ".lock";
pub const META_PROPERTIES: &str = "meta.properties";
pub const PARTITION_METADATA: &str = "partition.metadata";

/// Whether the log directory at `path` was shut down cleanly: it has the clean-shutdown marker,
/// or holds no partition (a new directory). Asked before the broker opens its directories,
/// which takes the marker away.
pub fn shut_down_cleanly(path: &Path) -> io::Result<bool> {
    if !path.exists() || path.join(CLEAN_SHUTDOWN_FILE).exists() {
        return Ok(true);
    }
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        let name = entry.file_name();
        if entry.file_type()?.is_dir() && parse_partition_dir(&name.to_string_lossy()).is_some() {
            return Ok(false);
        }
    }
    Ok(true)
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
pub(super) fn is_valid_topic_name(topic: &str) -> bool {
    !topic.is_empty()
        && topic.len() <= 249
        && topic != "."
        && topic != ".."
        && topic
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
}

/// `<topic>-<partition>` back to its parts.
pub(super) fn parse_partition_dir(name: &str) -> Option<Key> {
    let (topic, partition) = name.rsplit_once('-')?;
    let partition: i32 = partition.parse().ok()?;
    (!topic.is_empty() && partition >= 0).then(|| (topic.to_owned(), partition))
}

pub(super) fn partition_dir_name(topic: &str, partition: i32) -> String {
    format!("{topic}-{partition}")
}

/// Writes `contents` to `path` durably (temp file, fsync, rename, directory fsync).
pub(super) fn write_atomically(path: &Path, contents: &str) -> io::Result<()> {
    let tmp = path.with_extension("tmp");
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

pub(super) fn read_checkpoint(path: &Path) -> HashMap<Key, i64> {
    read_offsets(path).unwrap_or_else(|e| {
        // Losing a checkpoint costs a longer recovery, never data: start from scratch.
        ::log::warn!("ignoring unreadable checkpoint {}: {e}", path.display());
        HashMap::new()
    })
}

/// A random-enough directory id without a random-number crate: std's hasher keys are random
/// per process.
pub(super) fn random_id() -> [u8; 16] {
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
pub(super) fn lock_dir(dir: &Path) -> io::Result<std::fs::File> {
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

pub(super) fn ensure_meta_properties(dir: &Path, node_id: Option<i32>) -> io::Result<()> {
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

/// Writes `partition.metadata` if absent (returns true then, the file not yet fsynced: the
/// log's first flush does it); refuses a directory that holds another topic id.
pub(super) fn write_partition_metadata(dir: &Path, topic_id: [u8; 16]) -> io::Result<bool> {
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
