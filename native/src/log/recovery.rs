//! Opening a log: load the segments, recover the ones after the recovery point (CRC, offsets,
//! torn tails), rebuild indexes, the epoch cache's tail and producer state.

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::Arc;

use super::epoch_cache::EpochCache;
use super::maintenance::{delete_snapshots, list_snapshots};
use super::partition_log::Log;
use super::scan::HeaderScan;
use super::segment::Segment;
use super::txn_index::track_batch;
use super::LogConfig;
use crate::record::producer::ProducerStateManager;

/// Base offsets of the segments in `dir`, sorted; removes leftovers of interrupted work
/// (`.deleted`, `.cleaned`, `.swap`, temp files) and indexes without a log.
fn list_segments(dir: &Path) -> io::Result<Vec<i64>> {
    super::cleaner::finish_interrupted_swaps(dir)?;
    let mut bases = Vec::new();
    let mut indexes = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let (stem, ext) = name.split_once('.').unwrap_or((name, ""));
        if ["deleted", "cleaned", "swap", "tmp"]
            .iter()
            .any(|s| ext.ends_with(s))
        {
            std::fs::remove_file(&path)?;
            continue;
        }
        let Ok(base) = stem.parse::<i64>() else {
            continue;
        };
        if stem.len() != 20 {
            continue;
        }
        match ext {
            "log" => bases.push(base),
            "index" | "timeindex" | "txnindex" => indexes.push((base, path)),
            _ => {}
        }
    }
    bases.sort_unstable();
    for (base, path) in indexes {
        if bases.binary_search(&base).is_err() {
            std::fs::remove_file(path)?;
        }
    }
    Ok(bases)
}

pub(crate) fn open(
    dir: &Path,
    config: LogConfig,
    recovery_point: i64,
    log_start_offset: i64,
    high_watermark: i64,
) -> io::Result<Log> {
    std::fs::create_dir_all(dir)?;
    let bases = list_segments(dir)?;
    let clean = recovery_point == i64::MAX;
    // Recovery starts with the segment that holds the recovery point.
    let recover_from = bases
        .partition_point(|&b| b <= recovery_point)
        .saturating_sub(1);
    let mut segments: Vec<Segment> = Vec::new();
    let mut recovered: Vec<usize> = Vec::new();
    let mut epochs = EpochCache::load(dir)?;
    for (i, &base) in bases.iter().enumerate() {
        let expected = segments.last().map(|s| s.next_offset);
        let last = i + 1 == bases.len();
        if expected.is_some_and(|e| base < e) {
            // Starts inside its predecessor: not something this broker writes. An empty one is
            // debris; one with data is refused, as Kafka does, rather than guessed at.
            let path = dir.join(super::segment::file_name(base, "log"));
            if std::fs::metadata(&path)?.len() == 0 {
                remove_segments(dir, &[base])?;
                continue;
            }
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: segment {base} overlaps its predecessor", dir.display()),
            ));
        }
        let will_recover = !clean && i >= recover_from;
        let (mut seg, loaded_ok) = Segment::load(dir, base, &config, last, will_recover)?;
        if !loaded_ok || will_recover {
            let truncated = seg.recover(&config, expected.unwrap_or(base), last, &mut epochs)?;
            recovered.push(segments.len());
            if truncated {
                ::log::warn!(
                    "{}: truncated a corrupt or torn tail in segment {base}",
                    dir.display()
                );
                remove_segments(dir, &bases[i + 1..])?;
                if !last {
                    seg.make_active(&config)?;
                }
                segments.push(seg);
                break;
            }
        }
        if seg.size == 0 && !last && !segments.is_empty() {
            // An empty segment between others (compaction emptied it) holds nothing. The first
            // one stays even when empty: its base offset is where the log starts.
            recovered.retain(|&r| r != segments.len());
            seg.delete_files()?;
            continue;
        }
        segments.push(seg);
    }
    if let Some(seg) = segments.last_mut() {
        seg.make_active(&config)?;
    }
    // The aborted transactions of recovered segments are found again by the replay below.
    let mut replayed_txns = Vec::new();
    for &i in &recovered {
        segments[i].txn_index.clear()?;
        replayed_txns.push(segments[i].base_offset);
    }
    // A segment file created here is made durable by the first flush (dir_generation).
    let created_segment = segments.is_empty();
    if created_segment {
        segments.push(Segment::create(dir, log_start_offset.max(0), &config)?);
    }
    let mut log = Log {
        dir: dir.to_path_buf(),
        size_bytes: segments.iter().map(|s| s.size).sum(),
        log_start_offset: log_start_offset.max(segments[0].base_offset),
        segments,
        config,
        high_watermark: 0,
        recovery_point: 0,
        epochs,
        producers: ProducerStateManager::new(),
        verified_txns: HashMap::new(),
        unflushed_messages: 0,
        last_flush_ms: super::now_ms(),
        dir_generation: u64::from(created_segment),
        dir_synced: 0,
        dir_entry_synced: true,
        truncations: 0,
        cleaned_through: 0,
        tombstone_horizon: i64::MAX,
        closed: false,
        dir_failure: std::sync::Arc::default(),
    };
    // Segments wholly below the log start (a crash after DeleteRecords was checkpointed but
    // before they were deleted) go now.
    while log.segments.len() > 1 && log.segments[1].base_offset <= log.log_start_offset {
        let seg = log.segments.remove(0);
        log.size_bytes -= seg.size;
        seg.delete_files()?;
    }
    if log.log_start_offset > log.log_end_offset() {
        // The checkpoint says data up to the log start was deleted, yet less is here.
        log.truncate_fully_and_start_at(log.log_start_offset)?;
    }
    let leo = log.log_end_offset();
    // As Kafka: the recovery point moves only when a flush makes data durable. What recovery
    // just validated may sit in the page cache alone, so after an unclean stop the point stays
    // where the checkpoint had it (and the next flush or clean shutdown moves it); this costs
    // no fsync per partition at start-up, and a second crash rescans the same tail.
    log.recovery_point = if clean && recovered.is_empty() {
        leo
    } else {
        let first_recovered = recovered
            .first()
            .map_or(leo, |&i| log.segments.get(i).map_or(leo, |s| s.base_offset));
        recovery_point.min(first_recovered).min(leo)
    };
    log.high_watermark = high_watermark.clamp(log.log_start_offset, leo);
    log.epochs.truncate_from_end(leo)?;
    log.epochs.truncate_from_start(log.log_start_offset)?;
    load_producer_state(&mut log, &replayed_txns)?;
    Ok(log)
}

fn remove_segments(dir: &Path, bases: &[i64]) -> io::Result<()> {
    for &base in bases {
        for ext in ["log", "index", "timeindex", "txnindex"] {
            match std::fs::remove_file(dir.join(super::segment::file_name(base, ext))) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
    }
    Ok(())
}

/// Producer state: the newest snapshot at or below where it must be rebuilt from, then every
/// idempotent or transactional batch after it replayed from the segments. Segments whose base
/// is in `replayed_txns` were recovered: the replay refills their aborted-transaction indexes,
/// so it starts no later than the first of them.
pub(crate) fn load_producer_state(log: &mut Log, replayed_txns: &[i64]) -> io::Result<()> {
    let leo = log.log_end_offset();
    delete_snapshots(&log.dir, |offset| offset > leo)?;
    let rebuild_from = replayed_txns.first().copied().unwrap_or(leo).min(leo);
    let (mut producers, replay_from) = if list_snapshots(&log.dir)?.is_empty() {
        (ProducerStateManager::new(), log.log_start_offset)
    } else {
        ProducerStateManager::load_snapshot(&log.dir, rebuild_from)?
    };
    let replay_from = replay_from.max(log.log_start_offset);
    let first = log
        .segments
        .partition_point(|s| s.base_offset <= replay_from)
        .saturating_sub(1);
    for seg in &mut log.segments[first..] {
        let index_aborts = replayed_txns.contains(&seg.base_offset);
        let (_, from) = seg.index.lookup(replay_from);
        let file = Arc::clone(&seg.file);
        let mut scan = HeaderScan::new(&file, from, seg.size);
        while let Some((pos, h)) = scan.next_batch()? {
            if !h.has_producer_id() || h.base_offset < replay_from {
                continue;
            }
            let bytes = if h.is_control() {
                scan.batch_bytes(pos, h.total_size())?.unwrap_or_default()
            } else {
                &[]
            };
            track_batch(
                &mut producers,
                &mut seg.txn_index,
                &h,
                bytes,
                h.max_timestamp,
                index_aborts,
            )?;
        }
    }
    log.producers = producers;
    Ok(())
}
