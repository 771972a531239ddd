//! Reading a segment file: batch headers walked from a position (reads, index rebuilds,
//! recovery, timestamp lookups).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use crate::record::batch::{BatchHeader, HEADER_SIZE, LOG_OVERHEAD};

/// A window of a file read with `pread`, so walking headers costs one syscall per chunk
/// rather than one per batch.
pub(crate) struct ChunkReader<'a> {
    file: &'a File,
    /// Logical end of the file (the segment's size): bytes past it are never read.
    limit: u64,
    chunk: usize,
    buf: Vec<u8>,
    buf_pos: u64,
}

impl<'a> ChunkReader<'a> {
    pub(crate) fn new(file: &'a File, limit: u64, chunk: usize) -> Self {
        ChunkReader {
            file,
            limit,
            chunk,
            buf: Vec::new(),
            buf_pos: 0,
        }
    }

    /// The bytes `[at, at + len)`, or None when they run past the limit.
    pub(crate) fn get(&mut self, at: u64, len: usize) -> io::Result<Option<&[u8]>> {
        if at.saturating_add(len as u64) > self.limit {
            return Ok(None);
        }
        let cached = at >= self.buf_pos && at + len as u64 <= self.buf_pos + self.buf.len() as u64;
        if !cached {
            let want = (len.max(self.chunk) as u64).min(self.limit - at) as usize;
            self.buf.resize(want, 0);
            let mut filled = 0;
            while filled < want {
                match self
                    .file
                    .read_at(&mut self.buf[filled..], at + filled as u64)
                {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            self.buf.truncate(filled);
            self.buf_pos = at;
            if filled < len {
                return Ok(None);
            }
        }
        let from = (at - self.buf_pos) as usize;
        Ok(Some(&self.buf[from..from + len]))
    }

    /// The header of the batch at `at` if it is well-formed and the whole batch lies before
    /// the limit; None at the end or at a torn or corrupt header.
    pub(crate) fn header(&mut self, at: u64) -> io::Result<Option<BatchHeader>> {
        let Some(bytes) = self.get(at, HEADER_SIZE)? else {
            return Ok(None);
        };
        let Ok(h) = BatchHeader::parse(bytes) else {
            return Ok(None);
        };
        let sane = h.length >= (HEADER_SIZE - LOG_OVERHEAD) as i32 && h.last_offset_delta >= 0;
        if !sane || at + h.total_size() as u64 > self.limit {
            return Ok(None);
        }
        Ok(Some(h))
    }
}

/// Walks batch headers from a position to the limit.
pub(crate) struct HeaderScan<'a> {
    reader: ChunkReader<'a>,
    pub(crate) pos: u64,
}

impl<'a> HeaderScan<'a> {
    pub(crate) fn new(file: &'a File, from: u64, limit: u64) -> Self {
        HeaderScan {
            reader: ChunkReader::new(file, limit, 4096),
            pos: from,
        }
    }

    /// The bytes of a batch the scan has passed (from the position `next_batch` returned).
    pub(crate) fn batch_bytes(&mut self, at: u64, len: usize) -> io::Result<Option<&[u8]>> {
        self.reader.get(at, len)
    }

    /// The next batch as (position, header); `pos` then points past it.
    pub(crate) fn next_batch(&mut self) -> io::Result<Option<(u64, BatchHeader)>> {
        let at = self.pos;
        let h = self.reader.header(at)?;
        if let Some(h) = &h {
            self.pos += h.total_size() as u64;
        }
        Ok(h.map(|h| (at, h)))
    }
}
