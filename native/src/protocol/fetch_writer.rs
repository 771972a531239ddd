//! The Fetch response (v4-12) written by hand as chunks, so that record data is never copied:
//! each partition's records are a file region that the connection sends with sendfile.
//!
//! Field order and encodings follow `FetchResponse.json`; v12 is the first flexible version
//! (compact arrays/strings/bytes and a tag section after every struct). The tagged fields of
//! a partition (diverging epoch, current leader, snapshot id) keep their defaults and are
//! therefore not written.

use bytes::{BufMut, BytesMut};

use super::{put_response_header, response_header_version, Chunk, Response, FETCH};

/// One partition of a Fetch response.
#[derive(Debug, Clone)]
pub struct FetchPartitionOut {
    pub partition_index: i32,
    pub error_code: i16,
    pub high_watermark: i64,
    pub last_stable_offset: i64,
    pub log_start_offset: i64,
    /// `(producer_id, first_offset)`; None (null on the wire) for read_uncommitted.
    pub aborted_transactions: Option<Vec<(i64, i64)>>,
    pub preferred_read_replica: i32,
    /// The batches; None or an empty chunk is written as zero-length records.
    pub records: Option<Chunk>,
}

impl FetchPartitionOut {
    /// A partition answered with an error and no records.
    pub fn error(partition_index: i32, error_code: i16) -> Self {
        FetchPartitionOut {
            partition_index,
            error_code,
            high_watermark: -1,
            last_stable_offset: -1,
            log_start_offset: -1,
            aborted_transactions: None,
            preferred_read_replica: -1,
            records: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct FetchTopicOut {
    pub topic: String,
    pub partitions: Vec<FetchPartitionOut>,
}

/// The top level of a Fetch response.
#[derive(Debug, Clone, Default)]
pub struct FetchResponseOut {
    pub throttle_time_ms: i32,
    pub error_code: i16,
    pub session_id: i32,
    pub topics: Vec<FetchTopicOut>,
}

/// Accumulates small fields in one buffer and cuts it only where a file region goes.
struct ChunkWriter {
    done: Vec<Piece>,
    cur: BytesMut,
    flexible: bool,
}

enum Piece {
    Buf(BytesMut),
    Chunk(Chunk),
}

impl ChunkWriter {
    fn array_len(&mut self, n: usize) {
        if self.flexible {
            put_uvarint(&mut self.cur, n as u32 + 1);
        } else {
            self.cur.put_i32(n as i32);
        }
    }

    fn null_array(&mut self) {
        if self.flexible {
            self.cur.put_u8(0);
        } else {
            self.cur.put_i32(-1);
        }
    }

    fn string(&mut self, s: &str) {
        if self.flexible {
            put_uvarint(&mut self.cur, s.len() as u32 + 1);
        } else {
            self.cur.put_i16(s.len() as i16);
        }
        self.cur.put_slice(s.as_bytes());
    }

    fn tags(&mut self) {
        if self.flexible {
            self.cur.put_u8(0);
        }
    }

    fn records(&mut self, records: Option<&Chunk>) {
        let len = records.map_or(0, Chunk::len);
        if self.flexible {
            put_uvarint(&mut self.cur, len as u32 + 1);
        } else {
            self.cur.put_i32(len as i32);
        }
        match records {
            Some(Chunk::Bytes(b)) if !b.is_empty() => self.cur.put_slice(b),
            Some(chunk @ Chunk::File { .. }) if len > 0 => {
                let buf = std::mem::replace(&mut self.cur, BytesMut::with_capacity(256));
                self.done.push(Piece::Buf(buf));
                self.done.push(Piece::Chunk(chunk.clone()));
            }
            _ => {}
        }
    }

    /// Patches the size prefix (the first 4 bytes) and returns the chunks.
    fn finish(mut self) -> Response {
        self.done.push(Piece::Buf(self.cur));
        let total: usize = self
            .done
            .iter()
            .map(|p| match p {
                Piece::Buf(b) => b.len(),
                Piece::Chunk(c) => c.len(),
            })
            .sum();
        let size = (total - 4) as i32;
        let mut out = Vec::with_capacity(self.done.len());
        for (i, piece) in self.done.into_iter().enumerate() {
            match piece {
                Piece::Buf(mut b) => {
                    if i == 0 {
                        b[..4].copy_from_slice(&size.to_be_bytes());
                    }
                    if !b.is_empty() {
                        out.push(Chunk::Bytes(b.freeze()));
                    }
                }
                Piece::Chunk(c) => out.push(c),
            }
        }
        out
    }
}

fn put_uvarint(buf: &mut BytesMut, mut v: u32) {
    while v >= 0x80 {
        buf.put_u8((v as u8) | 0x80);
        v >>= 7;
    }
    buf.put_u8(v as u8);
}

/// Writes the whole response (size prefix, header, body) for Fetch `version` (4-12).
pub fn write_fetch_response(
    version: i16,
    correlation_id: i32,
    response: &FetchResponseOut,
) -> Response {
    let mut w = ChunkWriter {
        done: Vec::new(),
        cur: BytesMut::with_capacity(256),
        flexible: version >= 12,
    };
    w.cur.put_i32(0);
    put_response_header(
        &mut w.cur,
        correlation_id,
        response_header_version(FETCH, version),
    );
    w.cur.put_i32(response.throttle_time_ms);
    if version >= 7 {
        w.cur.put_i16(response.error_code);
        w.cur.put_i32(response.session_id);
    }
    w.array_len(response.topics.len());
    for topic in &response.topics {
        w.string(&topic.topic);
        w.array_len(topic.partitions.len());
        for p in &topic.partitions {
            w.cur.put_i32(p.partition_index);
            w.cur.put_i16(p.error_code);
            w.cur.put_i64(p.high_watermark);
            w.cur.put_i64(p.last_stable_offset);
            if version >= 5 {
                w.cur.put_i64(p.log_start_offset);
            }
            match &p.aborted_transactions {
                None => w.null_array(),
                Some(list) => {
                    w.array_len(list.len());
                    for (producer_id, first_offset) in list {
                        w.cur.put_i64(*producer_id);
                        w.cur.put_i64(*first_offset);
                        w.tags();
                    }
                }
            }
            if version >= 11 {
                w.cur.put_i32(p.preferred_read_replica);
            }
            w.records(p.records.as_ref());
            w.tags();
        }
        w.tags();
    }
    w.tags();
    w.finish()
}
