//! One segment: `<base offset>.log` with its offset and time indexes.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::epoch_cache::EpochCache;
use super::index::{OffsetIndex, TimeIndex, OFFSET_ENTRY, TIME_ENTRY};
use super::index_file::{open_rw, IndexFile};
use super::scan::{ChunkReader, HeaderScan};
use super::txn_index::TxnIndex;
use super::LogConfig;
use crate::record::batch::{crc_is_valid, BatchHeader, HEADER_SIZE};
use crate::record::records::walk;

/// Something a flush fsyncs: an open file, or one opened by its path for the moment (the
/// indexes keep no descriptor). A file deleted meanwhile needs no sync.
#[derive(Debug)]
pub(crate) enum SyncTarget {
    File(Arc<File>),
    Path(PathBuf),
}

impl SyncTarget {
    pub(crate) fn sync(&self) -> io::Result<()> {
        match self {
            SyncTarget::File(file) => file.sync_data(),
            SyncTarget::Path(path) => match File::open(path) {
                Ok(file) => file.sync_data(),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(e),
            },
        }
    }
}

/// `<base offset, 20 digits>.<ext>`, Kafka's naming.
pub(crate) fn file_name(base_offset: i64, ext: &str) -> String {
    format!("{base_offset:020}.{ext}")
}

#[derive(Debug)]
pub(crate) struct Segment {
    pub(crate) base_offset: i64,
    /// Shared with fetches in flight: they sendfile from it outside the log's lock, and an
    /// unlinked segment stays readable through it.
    pub(crate) file: Arc<File>,
    pub(crate) log_path: PathBuf,
    /// Bytes of whole batches; appends go here.
    pub(crate) size: u64,
    /// Last offset + 1, or the base offset when empty.
    pub(crate) next_offset: i64,
    pub(crate) index: OffsetIndex,
    pub(crate) time_index: TimeIndex,
    pub(crate) txn_index: TxnIndex,
    /// Bytes appended since the last index entry: indexes are sparse (index.interval.bytes).
    bytes_since_index: u64,
    /// Largest batch MaxTimestamp (-1: none), for retention and ListOffsets -3.
    pub(crate) max_timestamp: i64,
    pub(crate) offset_of_max_timestamp: i64,
    /// Wall-clock time of the first append (or, after a reopen, the first batch's timestamp
    /// capped at the time of opening): segment.ms counts from it.
    pub(crate) first_append_ms: Option<i64>,
}

fn index_sizes(config: &LogConfig) -> (usize, usize) {
    let bytes = config.segment_index_bytes as usize;
    (
        bytes / OFFSET_ENTRY * OFFSET_ENTRY,
        bytes / TIME_ENTRY * TIME_ENTRY,
    )
}

impl Segment {
    /// A new, empty, active segment (any leftover files of that name are emptied).
    pub(crate) fn create(dir: &Path, base_offset: i64, config: &LogConfig) -> io::Result<Segment> {
        let log_path = dir.join(file_name(base_offset, "log"));
        let file = open_rw(&log_path)?;
        file.set_len(0)?;
        for ext in ["index", "timeindex", "txnindex"] {
            let p = dir.join(file_name(base_offset, ext));
            if p.exists() {
                std::fs::remove_file(p)?;
            }
        }
        Self::assemble(
            dir,
            base_offset,
            file,
            log_path,
            (0, 0),
            index_sizes(config),
        )
    }

    fn assemble(
        dir: &Path,
        base_offset: i64,
        file: File,
        log_path: PathBuf,
        entries: (usize, usize),
        sizes: (usize, usize),
    ) -> io::Result<Segment> {
        let size = file.metadata()?.len();
        let index = OffsetIndex::open(
            &dir.join(file_name(base_offset, "index")),
            base_offset,
            entries.0,
            sizes.0,
        )?;
        let time_index = TimeIndex::open(
            &dir.join(file_name(base_offset, "timeindex")),
            base_offset,
            entries.1,
            sizes.1,
        )?;
        let txn_index = TxnIndex::load(&dir.join(file_name(base_offset, "txnindex")))?;
        Ok(Segment {
            base_offset,
            file: Arc::new(file),
            log_path,
            size,
            next_offset: base_offset,
            index,
            time_index,
            txn_index,
            bytes_since_index: 0,
            max_timestamp: -1,
            offset_of_max_timestamp: base_offset,
            first_append_ms: None,
        })
    }

    /// Opens an existing segment trusting its data. Returns false as the second value when the
    /// data does not parse to the end (or the indexes are inconsistent): the caller must then
    /// `recover` it. With `will_recover` the caller recovers it anyway: nothing is read, above
    /// all not the index files, which a crash leaves preallocated, so that reading their last
    /// entry would fault in (and zero) pages of a hole.
    pub(crate) fn load(
        dir: &Path,
        base_offset: i64,
        config: &LogConfig,
        active: bool,
        will_recover: bool,
    ) -> io::Result<(Segment, bool)> {
        let log_path = dir.join(file_name(base_offset, "log"));
        let file = open_rw(&log_path)?;
        // A segment without data may have no index files (they are created with their first
        // entry); one with data and a missing index is rebuilt.
        let empty = file.metadata()?.len() == 0;
        let entries_of = |ext: &str, entry_size: usize| -> io::Result<Option<usize>> {
            let path = dir.join(file_name(base_offset, ext));
            match IndexFile::entries_in_file(&path, entry_size)? {
                None if empty && !path.exists() => Ok(Some(0)),
                found => Ok(found),
            }
        };
        let entries = if will_recover {
            (None, None)
        } else {
            (
                entries_of("index", OFFSET_ENTRY)?,
                entries_of("timeindex", TIME_ENTRY)?,
            )
        };
        let (Some(offset_entries), Some(time_entries)) = entries else {
            let seg = Self::assemble(
                dir,
                base_offset,
                file,
                log_path,
                (0, 0),
                index_sizes(config),
            )?;
            return Ok((seg, false));
        };
        let sizes = if active { index_sizes(config) } else { (0, 0) };
        let mut seg = Self::assemble(
            dir,
            base_offset,
            file,
            log_path,
            (offset_entries, time_entries),
            sizes,
        )?;
        if !seg.index.is_consistent(seg.size) || !seg.time_index.is_consistent() {
            return Ok((seg, false));
        }
        let ok = seg.load_tail()?;
        if ok && active {
            seg.first_append_ms = seg.first_batch_timestamp()?;
        }
        Ok((seg, ok))
    }

    /// Recomputes next offset, max timestamp and the index interval counter by scanning from
    /// the last index entries to the end. False if the data stops parsing before `size`.
    fn load_tail(&mut self) -> io::Result<bool> {
        let mut from = self.index.last().map_or(0, |(_, p)| p);
        if let Some((ts, offset)) = self.time_index.last() {
            from = from.min(self.index.lookup(offset).1);
            self.max_timestamp = ts;
            self.offset_of_max_timestamp = offset;
        }
        let last_indexed = self.index.last().map_or(0, |(_, p)| p);
        let mut scan = HeaderScan::new(&self.file, from, self.size);
        while let Some((pos, h)) = scan.next_batch()? {
            self.next_offset = h.last_offset() + 1;
            if h.max_timestamp > self.max_timestamp {
                let bytes = scan
                    .batch_bytes(pos, h.total_size())?
                    .expect("the scan read it");
                (self.max_timestamp, self.offset_of_max_timestamp) = max_timestamp_of(&h, bytes);
            }
        }
        self.bytes_since_index = scan.pos - last_indexed;
        Ok(scan.pos == self.size)
    }

    fn first_batch_timestamp(&self) -> io::Result<Option<i64>> {
        let now = super::now_ms();
        let mut reader = ChunkReader::new(&self.file, self.size, HEADER_SIZE);
        Ok(reader.header(0)?.map(|h| {
            if h.max_timestamp >= 0 {
                h.max_timestamp.min(now)
            } else {
                now
            }
        }))
    }

    /// Checks every batch (shape, CRC, increasing offsets from `expected_offset`), rebuilds both
    /// indexes and truncates the file at the first bad batch. Returns whether it truncated.
    ///
    /// Like Kafka's, it also assigns the leader epochs of the batches it checks to `epochs`
    /// (an epoch newer than the latest known starts at its first batch), so the epoch
    /// checkpoint needs no fsync of its own for what recovery rescans.
    pub(crate) fn recover(
        &mut self,
        config: &LogConfig,
        expected_offset: i64,
        active: bool,
        epochs: &mut EpochCache,
    ) -> io::Result<bool> {
        let (ix, tx) = index_sizes(config);
        self.index.storage().reset(ix)?;
        self.time_index.storage().reset(tx)?;
        let file_len = self.file.metadata()?.len();
        self.size = 0;
        self.next_offset = self.base_offset;
        self.bytes_since_index = 0;
        self.max_timestamp = -1;
        self.offset_of_max_timestamp = self.base_offset;
        let file = Arc::clone(&self.file);
        let mut reader = ChunkReader::new(&file, file_len, 1 << 20);
        let mut pos = 0u64;
        let mut expected = expected_offset.max(self.base_offset);
        while let Some(h) = reader.header(pos)? {
            if h.base_offset < expected || h.last_offset() - self.base_offset > i64::from(i32::MAX)
            {
                break;
            }
            let bytes = reader
                .get(pos, h.total_size())?
                .expect("header checked the length");
            if !crc_is_valid(bytes) {
                break;
            }
            let (max_ts, offset_of_max) = max_timestamp_of(&h, bytes);
            self.prepare_index_entry(config)?;
            self.on_appended(pos, &h, max_ts, offset_of_max, config);
            let epoch = h.partition_leader_epoch;
            if epoch >= 0 && epochs.latest_epoch().is_none_or(|latest| epoch > latest) {
                epochs.assign(epoch, h.base_offset)?;
            }
            pos += h.total_size() as u64;
            expected = h.last_offset() + 1;
        }
        let truncated = pos < file_len;
        if truncated {
            self.file.set_len(pos)?;
        }
        if !active {
            self.seal()?;
        }
        self.first_append_ms = if active {
            self.first_batch_timestamp()?
        } else {
            None
        };
        Ok(truncated)
    }

    /// Whether appending a batch of `len` bytes ending at `last_offset` needs a new segment.
    pub(crate) fn should_roll(
        &self,
        len: usize,
        last_offset: i64,
        now_ms: i64,
        config: &LogConfig,
    ) -> bool {
        if self.size == 0 {
            return false;
        }
        let end = self.size + len as u64;
        end > config.segment_bytes
            || end > i32::MAX as u64
            || self.index.storage_ref().is_full()
            || self.time_index.storage_ref().is_full()
            || last_offset - self.base_offset > i64::from(i32::MAX)
            || self.is_expired(now_ms, config)
    }

    pub(crate) fn is_expired(&self, now_ms: i64, config: &LogConfig) -> bool {
        self.size > 0
            && self
                .first_append_ms
                .is_some_and(|t| now_ms.saturating_sub(t) >= config.segment_ms)
    }

    /// Writes one batch (offsets already assigned) at the end: a single `pwrite`.
    pub(crate) fn append(
        &mut self,
        bytes: &[u8],
        header: &BatchHeader,
        max_timestamp: i64,
        offset_of_max_timestamp: i64,
        now_ms: i64,
        config: &LogConfig,
    ) -> io::Result<()> {
        let pos = self.size;
        self.prepare_index_entry(config)?;
        if let Err(e) = self.file.write_all_at(bytes, pos) {
            // Never leave half a batch where the next append would land after it.
            let _ = self.file.set_len(pos);
            return Err(e);
        }
        self.on_appended(pos, header, max_timestamp, offset_of_max_timestamp, config);
        self.first_append_ms.get_or_insert(now_ms);
        Ok(())
    }

    /// Creates the index files before the batch whose entries will be their first is written
    /// (see `on_appended`), so that failing to create them fails the append cleanly.
    fn prepare_index_entry(&mut self, config: &LogConfig) -> io::Result<()> {
        if self.bytes_since_index > u64::from(config.index_interval_bytes) {
            self.index.storage().ensure_file()?;
            self.time_index.storage().ensure_file()?;
        }
        Ok(())
    }

    fn on_appended(
        &mut self,
        pos: u64,
        h: &BatchHeader,
        max_ts: i64,
        offset_of_max: i64,
        config: &LogConfig,
    ) {
        if max_ts > self.max_timestamp {
            self.max_timestamp = max_ts;
            self.offset_of_max_timestamp = offset_of_max;
        }
        // A full index only happens here when recovery rebuilds a segment written with a
        // larger segment.index.bytes: later batches then go unindexed (found by scanning).
        let room = !self.index.storage_ref().is_full();
        if room && self.bytes_since_index > u64::from(config.index_interval_bytes) {
            self.index.append(h.base_offset, pos);
            self.time_index
                .maybe_append(self.max_timestamp, self.offset_of_max_timestamp);
            self.bytes_since_index = 0;
        }
        let len = h.total_size() as u64;
        self.bytes_since_index += len;
        self.size = pos + len;
        self.next_offset = h.last_offset() + 1;
    }

    /// The segment stops being active: record its max timestamp and trim the indexes.
    pub(crate) fn seal(&mut self) -> io::Result<()> {
        if self.max_timestamp >= 0 {
            self.time_index.storage().ensure_file()?;
            self.time_index
                .maybe_append(self.max_timestamp, self.offset_of_max_timestamp);
        }
        // A segment without data needs no index files (see `load`).
        let keep_files = self.size > 0;
        self.index.storage().trim(keep_files)?;
        self.time_index.storage().trim(keep_files)
    }

    /// Removes every batch from the one holding `offset` on; returns the new next offset.
    pub(crate) fn truncate_to(&mut self, offset: i64) -> io::Result<i64> {
        let Some((pos, h)) = self.find_batch(offset)? else {
            return Ok(self.next_offset);
        };
        self.file.set_len(pos)?;
        self.size = pos;
        self.index.truncate_to(h.base_offset);
        self.time_index.truncate_to(h.base_offset);
        self.txn_index.truncate_to(h.base_offset)?;
        self.next_offset = self.base_offset;
        self.max_timestamp = -1;
        self.offset_of_max_timestamp = self.base_offset;
        self.load_tail()?;
        if self.size == 0 {
            self.first_append_ms = None;
        }
        Ok(self.next_offset)
    }

    /// Resizes the indexes back to their preallocated size (a loaded segment becomes active).
    pub(crate) fn make_active(&mut self, config: &LogConfig) -> io::Result<()> {
        let (ix, tx) = index_sizes(config);
        self.index.storage().resize(ix)?;
        self.time_index.storage().resize(tx)?;
        if self.first_append_ms.is_none() {
            self.first_append_ms = self.first_batch_timestamp()?;
        }
        Ok(())
    }

    /// What to fsync for durability up to the segment's end.
    pub(crate) fn sync_targets(&self) -> Vec<SyncTarget> {
        let mut targets = vec![SyncTarget::File(Arc::clone(&self.file))];
        for index in [self.index.storage_ref(), self.time_index.storage_ref()] {
            if index.has_file() {
                targets.push(SyncTarget::Path(index.path().to_path_buf()));
            }
        }
        targets.extend(self.txn_index.shared_file().map(SyncTarget::File));
        targets
    }

    /// Unlinks the files; readers holding `file` keep reading it.
    pub(crate) fn delete_files(&self) -> io::Result<()> {
        for path in [
            &self.log_path,
            &self.index.storage_ref().path().to_path_buf(),
            &self.time_index.storage_ref().path().to_path_buf(),
        ] {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        self.txn_index.delete_file()
    }
}

/// A batch's max timestamp and the offset of the record that holds it (the base offset when
/// the records are compressed or all share the batch time: recovery does not decompress).
fn max_timestamp_of(h: &BatchHeader, bytes: &[u8]) -> (i64, i64) {
    if h.compression() != 0 || h.is_log_append_time() {
        return (h.max_timestamp, h.base_offset);
    }
    let at = walk(&bytes[HEADER_SIZE..])
        .map_while(Result::ok)
        .find(|r| h.base_timestamp + r.timestamp_delta == h.max_timestamp)
        .map_or(h.base_offset, |r| h.base_offset + i64::from(r.offset_delta));
    (h.max_timestamp, at)
}
