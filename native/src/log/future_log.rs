//! A future log's own steps (see `dir_move`): following the current log, copying from it,
//! taking its place, and what a start does with the directories an interrupted move left.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::checkpoint::sync_dir;
use super::dir_files::partition_dir_name;
use super::dir_move::Future;
use super::manager::Key;
use super::placement::State;
use super::{now_ms, Log};
use crate::record::batch::iter_batches;

/// Inside a future log renamed into place, until the replaced directory is renamed away.
pub(super) const PROMOTED_MARKER: &str = ".ferrolog-promoted";
pub(super) const FUTURE_SUFFIX: &str = "-future";

/// `<topic>-<partition>.<id>-future` back to the partition.
pub(super) fn parse_future_dir(name: &str) -> Option<Key> {
    let (partition_dir, _id) = name.strip_suffix(FUTURE_SUFFIX)?.rsplit_once('.')?;
    super::dir_files::parse_partition_dir(partition_dir)
}

/// Brings the future in line with what happened to the current log since the last step: a
/// truncation cuts the future where the two diverge (by leader epoch, as a follower's rule),
/// a new log start past the future's end starts it over there.
pub(super) fn follow(current: &Log, future: &mut Log) -> io::Result<()> {
    let end = future.log_end_offset();
    if end > future.log_start_offset() {
        let keep = match future.latest_epoch() {
            Some(epoch) => match current.end_offset_for_epoch(epoch) {
                Some((_, current_end)) => current_end.min(end),
                None => current.log_start_offset(),
            },
            None => end,
        };
        let keep = keep.min(current.log_end_offset());
        if keep < end {
            future.truncate_to(keep)?;
        }
    }
    if current.log_start_offset() > future.log_end_offset() {
        future.truncate_fully_and_start_at(current.log_start_offset())?;
    }
    Ok(())
}

/// Appends the batches from the future's end, up to `max_bytes`; the bytes copied.
pub(super) fn copy_chunk(current: &Log, future: &mut Log, max_bytes: u32) -> io::Result<u64> {
    let from = future.log_end_offset();
    let slice = current
        .read(from, max_bytes, current.log_end_offset(), true)
        .map_err(|code| io::Error::other(format!("reading the current log at {from}: {code:?}")))?;
    if slice.is_empty() {
        return Err(io::Error::other(format!(
            "nothing to read at {from} below the end {}",
            current.log_end_offset()
        )));
    }
    let bytes = slice.to_vec()?;
    let first = iter_batches(&bytes)
        .next()
        .and_then(Result::ok)
        .map(|(header, _)| header.base_offset);
    if let Some(base) = first {
        if future.size_bytes() == 0 && base != future.log_end_offset() {
            // An empty future starts where the current log's first batch does (below its
            // start when that is inside a batch).
            future.truncate_fully_and_start_at(base)?;
        }
    }
    future
        .append_as_follower(&bytes, now_ms())
        .map_err(|code| io::Error::other(format!("appending to the future log: {code:?}")))?;
    let end = future.log_end_offset();
    future.log_start_offset = future
        .log_start_offset
        .max(current.log_start_offset().min(end));
    future.high_watermark = current.high_watermark().clamp(future.log_start_offset, end);
    Ok(bytes.len() as u64)
}

/// The swap, with the future complete and both locks held: the future is made durable,
/// marked, renamed into place; the current directory renamed away; the log reopened from its
/// new place into the current log's handle. Returns the replaced directory, to delete.
pub(super) fn promote(
    state: &mut State,
    key: &Key,
    current: &mut Log,
    f: &mut Future,
) -> io::Result<PathBuf> {
    let name = partition_dir_name(&key.0, key.1);
    let (log_start, high_watermark) = (current.log_start_offset(), current.high_watermark());
    f.log.log_start_offset = log_start;
    f.log.high_watermark = high_watermark;
    f.log.close()?;
    let future_dir = f.log.dir.clone();
    let marker = std::fs::File::create(future_dir.join(PROMOTED_MARKER))?;
    marker.sync_all()?;
    sync_dir(&future_dir)?;
    let dest_parent = state.dirs[f.dir].path.clone();
    let target = dest_parent.join(&name);
    std::fs::rename(&future_dir, &target)?;
    sync_dir(&dest_parent)?;
    let source = current.dir.clone();
    let source_parent = source.parent().unwrap_or(Path::new(".")).to_path_buf();
    let id = future_dir
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(FUTURE_SUFFIX))
        .and_then(|n| n.rsplit_once('.'))
        .map_or("moved", |(_, id)| id)
        .to_owned();
    let doomed = source_parent.join(format!("{name}.{id}-delete"));
    if let Err(e) = std::fs::rename(&source, &doomed).and_then(|()| sync_dir(&source_parent)) {
        // Both directories hold the partition; the marker tells the next start which to keep.
        return Err(io::Error::other(format!("{}: {e}", source.display())));
    }
    // From here the current log's files are in the renamed-away directory: should the new
    // one not open, the source directory goes offline so nothing is appended there, and the
    // next start serves the complete copy in `target`.
    let reopened = std::fs::remove_file(target.join(PROMOTED_MARKER))
        .and_then(|()| sync_dir(&target))
        .and_then(|()| {
            Log::open(
                &target,
                current.config.clone(),
                i64::MAX,
                log_start,
                high_watermark,
            )
        });
    let mut log = match reopened {
        Ok(log) => log,
        Err(e) => {
            let message = e.to_string();
            current.io_failed(e);
            return Err(io::Error::other(message));
        }
    };
    log.set_dir_failure(Arc::clone(&state.dirs[f.dir].failure));
    if let Some(epoch) = current.latest_epoch() {
        // A leader records its epoch when it starts leading, before any batch of it.
        if log.latest_epoch().is_none_or(|e| e < epoch) {
            log.assign_epoch_start(epoch)?;
        }
    }
    log.verified_txns = std::mem::take(&mut current.verified_txns);
    let mut replaced = std::mem::replace(current, log);
    replaced.closed = true;
    drop(replaced);
    let from = state.logs.get(key).map(|(_, d)| *d);
    if let Some(from) = from {
        state.dirs[from].partitions.remove(key);
        state.dirs[from].opened.remove(key);
    }
    state.dirs[f.dir].partitions.insert(key.clone());
    state.dirs[f.dir].opened.insert(key.clone());
    if let Some(entry) = state.logs.get_mut(key) {
        entry.1 = f.dir;
    }
    Ok(doomed)
}

/// At start, a partition found in two directories: the one a promotion marked is kept, the
/// other deleted; without a marker the start fails, as Kafka's does.
pub(super) fn resolve_duplicates(state: &mut State) -> io::Result<()> {
    let mut seen: HashMap<Key, usize> = HashMap::new();
    let mut duplicates = Vec::new();
    for (d, dir) in state.dirs.iter().enumerate() {
        for key in &dir.partitions {
            if let Some(first) = seen.insert(key.clone(), d) {
                duplicates.push((key.clone(), first, d));
            }
        }
    }
    for (key, a, b) in duplicates {
        let name = partition_dir_name(&key.0, key.1);
        let promoted = |d: usize| {
            state.dirs[d]
                .path
                .join(&name)
                .join(PROMOTED_MARKER)
                .exists()
        };
        let (keep, drop_from) = match (promoted(a), promoted(b)) {
            (true, false) => (a, b),
            (false, true) => (b, a),
            _ => {
                return Err(io::Error::other(format!(
                    "Duplicate log directories for {name} are found in both {} and {}. \
                     Recover the broker by deleting one of the two directories for this \
                     partition.",
                    state.dirs[a].path.display(),
                    state.dirs[b].path.display()
                )))
            }
        };
        let stale = state.dirs[drop_from].path.join(&name);
        ::log::warn!(
            "{name}: a move to {} was interrupted after its swap; deleting {}",
            state.dirs[keep].path.display(),
            stale.display()
        );
        std::fs::remove_dir_all(&stale)?;
        let stale_dir = &mut state.dirs[drop_from];
        stale_dir.partitions.remove(&key);
        stale_dir.at_start.remove(&key);
    }
    for dir in &state.dirs {
        for key in &dir.partitions {
            let marker = dir
                .path
                .join(partition_dir_name(&key.0, key.1))
                .join(PROMOTED_MARKER);
            if marker.exists() {
                std::fs::remove_file(&marker)?;
            }
        }
    }
    Ok(())
}
