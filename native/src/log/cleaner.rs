//! Log compaction (`cleanup.policy=compact`): keep the last record per key, drop tombstones
//! once `delete.retention.ms` has passed since the cleaner first saw them.
//!
//! A simple whole-range cleaner run under the log's write lock (the internal topics it exists
//! for are small): the cleanable range is every segment but the active one, wholly below the
//! high watermark. Pass one maps each key to its latest offset in that range; pass two rewrites
//! each segment that loses records, oldest first (so a tombstone never goes before the values it
//! shadows). Batches keep their base offset and last offset delta, so offsets never move and
//! retained records are copied byte for byte (recompressed with the batch's codec when it was
//! compressed). Left alone: transactional and control batches (aborted data must not shadow
//! committed data, and markers must stay), and records without a key. A batch of an idempotent
//! producer that loses every record stays as an empty batch, so its producer's sequence state
//! survives, as in Kafka.
//!
//! Tombstones follow Kafka's delete horizon (KIP-534): the first cleaning that keeps a batch
//! with tombstones stamps it with `now + delete.retention.ms` (the batch's base timestamp,
//! with the delete-horizon attribute; record timestamp deltas are rewritten so every record
//! keeps its timestamp), and a later cleaning after that horizon drops them. A consumer that
//! starts reading from the beginning within `delete.retention.ms` therefore sees every
//! deletion, whatever the records' own timestamps.
//!
//! The swap of a segment is crash-safe (Kafka's `.cleaned`/`.swap` scheme): the new data is
//! written and fsynced as `<base>.log.cleaned`, renamed to `<base>.log.swap` (the commit
//! point), the old indexes are removed, and the swap file is renamed over `<base>.log`; the
//! indexes are then rebuilt from the new data. Opening a log removes a `.cleaned` file (the
//! old segment is intact) and completes a `.swap` (the stale indexes go, the segment is
//! recovered, which rebuilds them): either way every offset reads as before or as after.
//! Readers in flight keep their handle on the old file, so they see a consistent view too.

use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::partition_log::Log;
use super::scan::ChunkReader;
use super::segment::{file_name, Segment};
use crate::record::batch::{
    update_crc, BatchHeader, ATTRIBUTES, ATTR_COMPRESSION_MASK, ATTR_DELETE_HORIZON,
    BASE_TIMESTAMP, HEADER_SIZE, LENGTH, RECORDS_COUNT,
};
use crate::record::compression::{compress, decompress, Codec};
use crate::record::records::walk;
use crate::record::validate::MAX_DECOMPRESSED_BYTES;
use crate::record::varint::{read_varint, read_varlong, write_varint, write_varlong};

/// The steps of a segment swap, in order. Tests make a cleaning stop after one of them, as a
/// crash there would, and check that reopening the log loses nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SwapStep {
    CleanedWritten,
    Swapped,
    IndexesRemoved,
    Renamed,
}

#[cfg(test)]
thread_local! {
    pub(crate) static FAIL_AFTER: std::cell::Cell<Option<SwapStep>> =
        const { std::cell::Cell::new(None) };
}

fn reached(step: SwapStep) -> io::Result<()> {
    #[cfg(test)]
    if FAIL_AFTER.with(std::cell::Cell::get) == Some(step) {
        return Err(io::Error::other(format!("injected crash after {step:?}")));
    }
    let _ = step;
    Ok(())
}

const CLEANED: &str = "cleaned";
const SWAP: &str = "swap";

/// At open: completes the swaps a crash interrupted after their commit point (a
/// `<base>.log.swap` file holds the whole cleaned segment). The segment's stale indexes are
/// removed, so opening rebuilds them from the new data. `.cleaned` files (before the commit
/// point) are left to the caller, which deletes them.
pub(crate) fn finish_interrupted_swaps(dir: &Path) -> io::Result<()> {
    let mut finished = false;
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(stem) = name.strip_suffix(".log.swap") else {
            continue;
        };
        let Ok(base) = stem.parse::<i64>() else {
            continue;
        };
        remove_indexes(dir, base)?;
        std::fs::rename(&path, dir.join(file_name(base, "log")))?;
        ::log::warn!(
            "{}: completed the interrupted compaction of segment {base}",
            dir.display()
        );
        finished = true;
    }
    if finished {
        super::checkpoint::sync_dir(dir)?;
    }
    Ok(())
}

fn remove_indexes(dir: &Path, base: i64) -> io::Result<()> {
    for ext in ["index", "timeindex"] {
        match std::fs::remove_file(dir.join(file_name(base, ext))) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// A record re-encoded with its timestamp delta against `new_base` instead of `old_base`.
fn rebase_record(raw: &[u8], old_base: i64, new_base: i64) -> Option<Vec<u8>> {
    let mut pos = 0usize;
    read_varint(raw, &mut pos)?;
    let attributes = *raw.get(pos)?;
    pos += 1;
    let delta = read_varlong(raw, &mut pos)?;
    let mut body = vec![attributes];
    write_varlong(&mut body, old_base + delta - new_base);
    body.extend_from_slice(&raw[pos..]);
    let mut out = Vec::with_capacity(body.len() + 5);
    write_varint(&mut out, i32::try_from(body.len()).ok()?);
    out.extend_from_slice(&body);
    Some(out)
}

/// What one cleaning did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CleanStats {
    pub segments_rewritten: usize,
    pub records_removed: u64,
    pub bytes_before: u64,
    pub bytes_after: u64,
}

/// One record of an uncompressed records section: offset delta, key, tombstone, raw bytes.
struct RawRecord<'a> {
    offset_delta: i32,
    key: Option<&'a [u8]>,
    tombstone: bool,
    raw: &'a [u8],
}

/// The records of a section with their raw bytes; None if any record is malformed.
fn raw_records(section: &[u8]) -> Option<Vec<RawRecord<'_>>> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < section.len() {
        let start = pos;
        let len = usize::try_from(read_varint(section, &mut pos)?).ok()?;
        let end = pos.checked_add(len).filter(|&e| e <= section.len())?;
        let raw = &section[start..end];
        let record = walk(raw).next()?.ok()?;
        out.push(RawRecord {
            offset_delta: record.offset_delta,
            key: record.key,
            tombstone: record.value.is_none(),
            raw,
        });
        pos = end;
    }
    Some(out)
}

/// A batch's records section, decompressed if needed; None when it cannot be read (the batch
/// is then kept as it is).
fn records_section(h: &BatchHeader, bytes: &[u8]) -> Option<(Codec, Vec<u8>)> {
    let codec = Codec::from_attributes(h.attributes).ok()?;
    let section = &bytes[HEADER_SIZE..];
    match codec {
        Codec::None => Some((codec, section.to_vec())),
        _ => decompress(codec, section, MAX_DECOMPRESSED_BYTES)
            .ok()
            .map(|plain| (codec, plain)),
    }
}

fn cleanable(h: &BatchHeader) -> bool {
    !h.is_control() && !h.is_transactional()
}

/// Calls `f` with each batch of a segment.
fn for_each_batch(
    seg: &Segment,
    mut f: impl FnMut(&BatchHeader, &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mut reader = ChunkReader::new(&seg.file, seg.size, 1 << 20);
    let mut pos = 0u64;
    while let Some(h) = reader.header(pos)? {
        let bytes = reader
            .get(pos, h.total_size())?
            .expect("header checked the length");
        f(&h, bytes)?;
        pos += h.total_size() as u64;
    }
    Ok(())
}

impl Log {
    /// Segments that may be cleaned: all but the active one, wholly below the high watermark.
    fn cleanable_segments(&self) -> usize {
        let mut n = 0;
        while n + 1 < self.segments.len() && self.segments[n + 1].base_offset <= self.high_watermark
        {
            n += 1;
        }
        n
    }

    /// Cleans if the topic is compacted and at least `min.cleanable.dirty.ratio` of the
    /// cleanable bytes were written since the last cleaning.
    pub fn maybe_compact(&mut self, now_ms: i64) -> io::Result<Option<CleanStats>> {
        if !self.config.compact || self.closed {
            return Ok(None);
        }
        let n = self.cleanable_segments();
        let total: u64 = self.segments[..n].iter().map(|s| s.size).sum();
        let dirty: u64 = self.segments[..n]
            .iter()
            .filter(|s| s.next_offset > self.cleaned_through)
            .map(|s| s.size)
            .sum();
        let horizon_passed = self.tombstone_horizon <= now_ms;
        if !horizon_passed
            && (dirty == 0 || (dirty as f64) < self.config.min_cleanable_dirty_ratio * total as f64)
        {
            return Ok(None);
        }
        self.compact(now_ms).map(Some)
    }

    /// Compacts the cleanable segments now, whatever the dirty ratio.
    pub fn compact(&mut self, now_ms: i64) -> io::Result<CleanStats> {
        let n = self.cleanable_segments();
        let mut latest: HashMap<Vec<u8>, i64> = HashMap::new();
        for seg in &self.segments[..n] {
            for_each_batch(seg, |h, bytes| {
                if !cleanable(h) {
                    return Ok(());
                }
                if let Some((_, section)) = records_section(h, bytes) {
                    for r in raw_records(&section).unwrap_or_default() {
                        if let Some(key) = r.key {
                            latest.insert(key.to_vec(), h.base_offset + i64::from(r.offset_delta));
                        }
                    }
                }
                Ok(())
            })?;
        }
        let mut stats = CleanStats::default();
        let mut horizon = i64::MAX;
        for i in 0..n {
            let (removed, before, after) = self.clean_segment(i, &latest, now_ms, &mut horizon)?;
            if removed > 0 {
                stats.segments_rewritten += 1;
                stats.records_removed += removed;
            }
            stats.bytes_before += before;
            stats.bytes_after += after;
        }
        if n > 0 {
            self.cleaned_through = self.segments[n - 1].next_offset;
        }
        self.tombstone_horizon = horizon;
        Ok(stats)
    }

    /// Rewrites segment `i` without its shadowed records and expired tombstones, stamping
    /// the delete horizon on batches whose tombstones stay; returns (records removed, bytes
    /// before, bytes after). `horizon` is lowered to the earliest horizon left in the segment.
    fn clean_segment(
        &mut self,
        i: usize,
        latest: &HashMap<Vec<u8>, i64>,
        now_ms: i64,
        horizon: &mut i64,
    ) -> io::Result<(u64, u64, u64)> {
        let seg = &self.segments[i];
        let (base, before, log_path) = (seg.base_offset, seg.size, seg.log_path.clone());
        let cleaned_path = self
            .dir
            .join(format!("{}.{CLEANED}", file_name(base, "log")));
        let swap_path = self.dir.join(format!("{}.{SWAP}", file_name(base, "log")));
        let new_horizon = now_ms.saturating_add(self.config.delete_retention_ms);
        let mut out = BufWriter::new(std::fs::File::create(&cleaned_path)?);
        let mut removed = 0u64;
        let mut stamped = 0u64;
        for_each_batch(seg, |h, bytes| {
            let Some((codec, section)) = records_section(h, bytes).filter(|_| cleanable(h)) else {
                return out.write_all(bytes);
            };
            let Some(records) = raw_records(&section) else {
                return out.write_all(bytes);
            };
            let stamped_before = h.attributes & ATTR_DELETE_HORIZON != 0;
            let expired = stamped_before && h.base_timestamp <= now_ms;
            let keep = |r: &RawRecord<'_>| match r.key {
                None => true,
                Some(key) => {
                    let offset = h.base_offset + i64::from(r.offset_delta);
                    latest.get(key) == Some(&offset) && !(r.tombstone && expired)
                }
            };
            let kept: Vec<&RawRecord<'_>> = records.iter().filter(|r| keep(r)).collect();
            removed += (records.len() - kept.len()) as u64;
            let has_tombstones = kept.iter().any(|r| r.tombstone);
            let stamp = has_tombstones && !stamped_before;
            if has_tombstones {
                *horizon = (*horizon).min(if stamp { new_horizon } else { h.base_timestamp });
            }
            if kept.len() == records.len() && !stamp {
                return out.write_all(bytes);
            }
            if kept.is_empty() && !h.has_producer_id() {
                return Ok(());
            }
            let base_timestamp = if stamp { new_horizon } else { h.base_timestamp };
            let mut plain: Vec<u8> = Vec::new();
            for r in &kept {
                if stamp {
                    let Some(rebased) = rebase_record(r.raw, h.base_timestamp, new_horizon) else {
                        return out.write_all(bytes);
                    };
                    plain.extend_from_slice(&rebased);
                } else {
                    plain.extend_from_slice(r.raw);
                }
            }
            stamped += u64::from(stamp);
            let mut attributes = h.attributes;
            if stamp {
                attributes |= ATTR_DELETE_HORIZON;
            }
            let payload = if kept.is_empty() {
                // An empty batch carries no codec: there is nothing to decompress.
                attributes &= !ATTR_COMPRESSION_MASK;
                Vec::new()
            } else if codec == Codec::None {
                plain
            } else {
                compress(codec, &plain)
            };
            let mut batch = Vec::with_capacity(HEADER_SIZE + payload.len());
            batch.extend_from_slice(&bytes[..HEADER_SIZE]);
            batch.extend_from_slice(&payload);
            let length = (batch.len() - LENGTH - 4) as i32;
            batch[LENGTH..LENGTH + 4].copy_from_slice(&length.to_be_bytes());
            batch[ATTRIBUTES..ATTRIBUTES + 2].copy_from_slice(&attributes.to_be_bytes());
            batch[RECORDS_COUNT..RECORDS_COUNT + 4]
                .copy_from_slice(&(kept.len() as i32).to_be_bytes());
            batch[BASE_TIMESTAMP..BASE_TIMESTAMP + 8]
                .copy_from_slice(&base_timestamp.to_be_bytes());
            update_crc(&mut batch);
            out.write_all(&batch)
        })?;
        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        if removed == 0 && stamped == 0 {
            drop(file);
            std::fs::remove_file(&cleaned_path)?;
            return Ok((0, before, before));
        }
        file.sync_all()?;
        drop(file);
        reached(SwapStep::CleanedWritten)?;
        // The commit point: from here on, opening the log completes the swap.
        std::fs::rename(&cleaned_path, &swap_path)?;
        super::checkpoint::sync_dir(&self.dir)?;
        reached(SwapStep::Swapped)?;
        remove_indexes(&self.dir, base)?;
        super::checkpoint::sync_dir(&self.dir)?;
        reached(SwapStep::IndexesRemoved)?;
        std::fs::rename(&swap_path, &log_path)?;
        super::checkpoint::sync_dir(&self.dir)?;
        reached(SwapStep::Renamed)?;
        let expected = if i == 0 {
            base
        } else {
            self.segments[i - 1].next_offset
        };
        let (mut fresh, _) = Segment::load(&self.dir, base, &self.config, false, true)?;
        fresh.recover(&self.config, expected, false, &mut self.epochs)?;
        // The segment may be below the recovery point, where indexes are trusted at open.
        for target in fresh.sync_targets() {
            target.sync()?;
        }
        let after = fresh.size;
        self.size_bytes = self.size_bytes - before + after;
        self.segments[i] = fresh;
        Ok((removed, before, after))
    }
}
