//! Finding things in a segment: the slice a read sends, the batch holding an offset, batch
//! boundaries for a bounded read, the first record at or after a timestamp. Each starts
//! from an index entry and scans a few headers forward.

use std::io;
use std::sync::Arc;

use super::partition_log::FetchSlice;
use super::scan::{ChunkReader, HeaderScan};
use super::segment::Segment;
use crate::record::batch::{BatchHeader, HEADER_SIZE};
use crate::record::compression::{decompress, Codec};
use crate::record::records::walk;

/// Where a timestamp lookup landed: the offset, its timestamp, the batch's leader epoch.
pub(crate) type TimestampHit = (i64, i64, i32);

impl Segment {
    /// The slice of this segment for a read at `offset` (`Log::read`); None when every batch
    /// in it is below `offset`.
    pub(crate) fn read_slice(
        &self,
        offset: i64,
        max_bytes: u32,
        max_offset: i64,
        min_one: bool,
    ) -> io::Result<Option<FetchSlice>> {
        let Some((start, first)) = self.find_batch(offset)? else {
            return Ok(None);
        };
        if first.last_offset() >= max_offset {
            return Ok(Some(FetchSlice::empty()));
        }
        let end_by_offset = if max_offset >= self.next_offset {
            self.size
        } else {
            self.position_of(max_offset)?
        };
        let limit = start + u64::from(max_bytes);
        let mut end = if end_by_offset <= limit {
            end_by_offset
        } else {
            self.boundary_before(start, limit)?
        };
        if end == start && min_one {
            end = start + first.total_size() as u64;
        }
        if end == start {
            return Ok(Some(FetchSlice::empty()));
        }
        Ok(Some(FetchSlice {
            file: Some(Arc::clone(&self.file)),
            position: start,
            length: (end - start) as u32,
        }))
    }

    /// Position and header of the first batch whose last offset is >= `offset`.
    pub(crate) fn find_batch(&self, offset: i64) -> io::Result<Option<(u64, BatchHeader)>> {
        let (_, from) = self.index.lookup(offset);
        let mut scan = HeaderScan::new(&self.file, from, self.size);
        while let Some((pos, h)) = scan.next_batch()? {
            if h.last_offset() >= offset {
                return Ok(Some((pos, h)));
            }
        }
        Ok(None)
    }

    /// The position of the first batch whose last offset is >= `offset` (the size if none).
    pub(crate) fn position_of(&self, offset: i64) -> io::Result<u64> {
        Ok(self.find_batch(offset)?.map_or(self.size, |(pos, _)| pos))
    }

    /// The last batch boundary at or before `limit`, not before `start` (a boundary).
    pub(crate) fn boundary_before(&self, start: u64, limit: u64) -> io::Result<u64> {
        let (_, indexed) = self.index.lookup_position(limit);
        let mut scan = HeaderScan::new(&self.file, indexed.max(start), self.size);
        let mut end = scan.pos;
        while let Some((pos, h)) = scan.next_batch()? {
            if pos + h.total_size() as u64 > limit {
                break;
            }
            end = pos + h.total_size() as u64;
        }
        Ok(end)
    }

    /// The first record at or after `min_offset` whose timestamp is >= `target`, as Kafka
    /// answers ListOffsets: records are walked (compressed batches decompressed, at most
    /// `decompress_limit` bytes). Under LogAppendTime every record carries the batch time, so
    /// the batch's first offset is the answer; a batch that cannot be decompressed answers with
    /// its first offset and MaxTimestamp.
    pub(crate) fn find_timestamp(
        &self,
        target: i64,
        min_offset: i64,
        decompress_limit: usize,
    ) -> io::Result<Option<TimestampHit>> {
        let from_offset = self.time_index.lookup(target).max(min_offset);
        let (_, from) = self.index.lookup(from_offset);
        let mut reader = ChunkReader::new(&self.file, self.size, 4096);
        let mut pos = from;
        while let Some(h) = reader.header(pos)? {
            let at = pos;
            pos += h.total_size() as u64;
            if h.last_offset() < min_offset || h.max_timestamp < target {
                continue;
            }
            let whole_batch = (
                h.base_offset.max(min_offset),
                h.max_timestamp,
                h.partition_leader_epoch,
            );
            if h.is_log_append_time() {
                return Ok(Some(whole_batch));
            }
            let bytes = reader
                .get(at, h.total_size())?
                .expect("header checked the length");
            let inflated;
            let section = match Codec::from_attributes(h.attributes) {
                Ok(Codec::None) => &bytes[HEADER_SIZE..],
                Ok(codec) => match decompress(codec, &bytes[HEADER_SIZE..], decompress_limit) {
                    Ok(v) => {
                        inflated = v;
                        &inflated[..]
                    }
                    Err(_) => return Ok(Some(whole_batch)),
                },
                Err(_) => return Ok(Some(whole_batch)),
            };
            for r in walk(section).map_while(Result::ok) {
                let offset = h.base_offset + i64::from(r.offset_delta);
                let ts = h.base_timestamp + r.timestamp_delta;
                if offset >= min_offset && ts >= target {
                    return Ok(Some((offset, ts, h.partition_leader_epoch)));
                }
            }
        }
        Ok(None)
    }
}
