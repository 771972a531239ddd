//! A memory-mapped file of fixed-size entries: the storage under the offset and time indexes.
//!
//! The file is preallocated (sparse) to its maximum size while its segment is active, so an
//! append is a store into the map, and trimmed to its entries when the segment rolls or the log
//! closes, so that a reopened index knows its length from the file size. A new segment's index
//! has no file until its first entry: an idle partition's indexes cost no inode, no map and no
//! page (Kafka's indexes are lazy too). This is the only place in the log module with `unsafe`
//! code.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use memmap2::MmapMut;

/// Maps `file` read-write.
#[allow(unsafe_code)]
fn map(file: &File) -> io::Result<MmapMut> {
    // SAFETY: memmap2 requires that no one else truncates or rewrites the file while it is
    // mapped. Index files live in a partition directory that only this broker's log owns; the
    // log never shrinks a file without dropping its map first (`resize` unmaps, resizes,
    // remaps), and a deleted segment's map stays valid because unlinking does not truncate.
    let mmap = unsafe { MmapMut::map_mut(file) }?;
    // No readahead on faults: an index is read and written an entry at a time, and most of a
    // preallocated one is a hole; with the default advice, the first touch of a page reads
    // ahead (and zeroes) up to megabytes of the hole around it, which costs CPU and resident
    // memory for every partition. Measured with perf: 67% of a 1,000-partition shutdown went
    // to that readahead when sealing each active segment's time index.
    if !mmap.is_empty() {
        mmap.advise(memmap2::Advice::Random)?;
    }
    Ok(mmap)
}

#[derive(Debug)]
pub(crate) struct IndexFile {
    path: PathBuf,
    /// No file descriptor is kept, as in Kafka: the map stays valid after its file is closed,
    /// so an index costs no open file. Resizing and fsyncing open the path for the moment.
    /// None while the file does not exist yet (see `ensure_file`).
    mmap: Option<MmapMut>,
    /// The length the file has, or will be created with: the preallocated size while its
    /// segment is active, its entries once trimmed.
    capacity: usize,
    entry_size: usize,
    entries: usize,
    /// Bytes from the start of the file whose blocks are known to be allocated (`reserve`).
    reserved: usize,
}

/// Allocates the blocks of `len` bytes at `offset` of the file at `path` (`fallocate`, keeping
/// its size). A file system that cannot (EOPNOTSUPP) counts as done.
#[allow(unsafe_code)]
fn allocate(path: &Path, offset: usize, len: usize) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let file = open_rw(path)?;
    // SAFETY: a plain system call on a file descriptor we own for the call's duration.
    let rc = unsafe {
        libc::fallocate(
            file.as_raw_fd(),
            0,
            offset as libc::off_t,
            len as libc::off_t,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EOPNOTSUPP) {
        return Ok(());
    }
    Err(e)
}

/// Opens `path` for reading and writing, creating it empty if missing, never truncating.
pub(crate) fn open_rw(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

impl IndexFile {
    /// Opens the file, or, when there is none and no entries are expected, an index whose file
    /// is created by `ensure_file`. `entries` of the existing content are taken as valid (the
    /// caller checks them); the file is then sized to `size_bytes` (rounded down to entries).
    pub(crate) fn open(
        path: &Path,
        entry_size: usize,
        entries: usize,
        size_bytes: usize,
    ) -> io::Result<IndexFile> {
        let mut index = IndexFile {
            path: path.to_path_buf(),
            mmap: None,
            capacity: size_bytes / entry_size * entry_size,
            entry_size,
            entries: 0,
            reserved: 0,
        };
        if entries == 0 && !path.exists() {
            return Ok(index);
        }
        let file = open_rw(path)?;
        index.mmap = Some(map(&file)?);
        index.resize_open(&file, size_bytes.max(entries * entry_size))?;
        index.entries = entries.min(index.max_entries());
        Ok(index)
    }

    /// Creates and maps the file if it does not exist yet, at its capacity (a sparse hole).
    pub(crate) fn ensure_file(&mut self) -> io::Result<()> {
        if self.mmap.is_none() {
            let file = open_rw(&self.path)?;
            file.set_len(self.capacity as u64)?;
            self.mmap = Some(map(&file)?);
        }
        Ok(())
    }

    /// Entries a file of the current length holds (the length of a trimmed index); None when
    /// the length is not a whole number of entries or there is no file.
    pub(crate) fn entries_in_file(path: &Path, entry_size: usize) -> io::Result<Option<usize>> {
        match std::fs::metadata(path) {
            Ok(m) if m.len() % entry_size as u64 == 0 => {
                Ok(Some((m.len() / entry_size as u64) as usize))
            }
            Ok(_) => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub(crate) fn resize(&mut self, size_bytes: usize) -> io::Result<()> {
        let size = size_bytes / self.entry_size * self.entry_size;
        match &self.mmap {
            None => {
                self.capacity = size;
                Ok(())
            }
            Some(mmap) if mmap.len() == size => Ok(()),
            Some(_) => {
                let file = open_rw(&self.path)?;
                self.resize_open(&file, size)
            }
        }
    }

    fn resize_open(&mut self, file: &File, size_bytes: usize) -> io::Result<()> {
        let size = size_bytes / self.entry_size * self.entry_size;
        self.capacity = size;
        let mapped = self.mmap.as_ref().map_or(0, |m| m.len());
        if size as u64 == file.metadata()?.len() && size == mapped {
            return Ok(());
        }
        // Unmap before shrinking: touching a mapped page past the end of a file is SIGBUS.
        self.mmap = None;
        self.reserved = self.reserved.min(size);
        file.set_len(size as u64)?;
        self.mmap = Some(map(file)?);
        self.entries = self.entries.min(self.max_entries());
        Ok(())
    }

    /// Forgets every entry and gives the file's blocks back: the file is cut to nothing and
    /// extended again to `size_bytes`, a sparse hole that costs no disk and no page until an
    /// entry is written. Recovery rebuilds an index this way: zeroing a preallocated index
    /// that a crash left at full size would write every one of its pages.
    pub(crate) fn reset(&mut self, size_bytes: usize) -> io::Result<()> {
        self.entries = 0;
        self.resize(0)?;
        self.resize(size_bytes)
    }

    /// Shrinks the file to its entries (segment rolled or log closing). With `keep_file`, an
    /// index that has no file yet gets an empty one, so that a reopened segment with data
    /// finds its (empty) index rather than rebuilding it.
    pub(crate) fn trim(&mut self, keep_file: bool) -> io::Result<()> {
        self.resize(self.entries * self.entry_size)?;
        if keep_file {
            self.ensure_file()?;
        }
        Ok(())
    }

    pub(crate) fn max_entries(&self) -> usize {
        self.capacity / self.entry_size
    }
    pub(crate) fn len(&self) -> usize {
        self.entries
    }
    pub(crate) fn is_full(&self) -> bool {
        self.entries >= self.max_entries()
    }
    /// Whether the file exists (has been created by `ensure_file` or was there at opening).
    pub(crate) fn has_file(&self) -> bool {
        self.mmap.is_some()
    }
    pub(crate) fn entry(&self, n: usize) -> &[u8] {
        let mapped = self.mmap.as_deref().unwrap_or_default();
        &mapped[n * self.entry_size..(n + 1) * self.entry_size]
    }
    /// Appends one entry; the caller checks `is_full` first and creates the file beforehand
    /// (`ensure_file`), so that failing to create it fails before its batch is written. An
    /// entry for an index without a file is left out: entries are sparse by design, and a
    /// lookup then scans from the entry before.
    ///
    /// The page an entry lands on is allocated first (`reserve`): the file is a sparse hole,
    /// and a store into a hole of a full file system (a full tmpfs) is SIGBUS, which would kill
    /// the broker. An entry that cannot get its page is left out too, as above; the batch
    /// write that follows meets the same full disk and takes the directory offline cleanly.
    pub(crate) fn push(&mut self, entry: &[u8]) {
        debug_assert_eq!(entry.len(), self.entry_size);
        debug_assert!(self.mmap.is_some(), "ensure_file comes before push");
        let at = self.entries * self.entry_size;
        if let Err(e) = self.reserve(at + self.entry_size) {
            ::log::warn!("index entry left out of {}: {e}", self.path.display());
            return;
        }
        if let Some(mmap) = self.mmap.as_mut() {
            mmap[at..at + self.entry_size].copy_from_slice(entry);
            self.entries += 1;
        }
    }
    /// Keeps the first `entries` entries; the rest of the file is zeroed so that a preallocated
    /// tail never holds stale entries.
    pub(crate) fn truncate(&mut self, entries: usize) {
        if entries < self.entries {
            let from = entries * self.entry_size;
            let to = self.entries * self.entry_size;
            if let Some(mmap) = self.mmap.as_mut() {
                mmap[from..to].fill(0);
            }
            self.entries = entries;
        }
    }
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Allocates the file's blocks up to `end` bytes (a page at a time), so that stores into
    /// the map there cannot fault on a full file system.
    fn reserve(&mut self, end: usize) -> io::Result<()> {
        if end <= self.reserved {
            return Ok(());
        }
        const PAGE: usize = 4096;
        let to = end
            .div_ceil(PAGE)
            .saturating_mul(PAGE)
            .min(self.capacity)
            .max(end);
        allocate(&self.path, self.reserved, to - self.reserved)?;
        self.reserved = to;
        Ok(())
    }
}
