//! The Fetch response (v4-18) written by hand as chunks, so that record data is never copied:
//! each partition's records are a file region that the connection sends with sendfile.
//!
//! Field order and encodings follow `FetchResponse.json`; v12 is the first flexible version
//! (compact arrays/strings/bytes and a tag section after every struct), v13 names topics by
//! id instead of by name, v16 adds the leaders' endpoints (KIP-951) as a top-level tagged
//! field. A partition's snapshot id (tag 2) keeps its default and is therefore not written.

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
    /// v12+ (tag 0): the follower's log diverges from ours; `(epoch, end_offset)` tells it
    /// where to truncate.
    pub diverging_epoch: Option<(i32, i64)>,
    /// v12+ (tag 1), set from v16 (KIP-951): `(leader_id, leader_epoch)` with a
    /// NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH.
    pub current_leader: Option<(i32, i32)>,
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
            diverging_epoch: None,
            current_leader: None,
            records: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct FetchTopicOut {
    /// Written up to v12.
    pub topic: String,
    /// Written from v13.
    pub topic_id: [u8; 16],
    pub partitions: Vec<FetchPartitionOut>,
}

/// The top level of a Fetch response.
#[derive(Debug, Clone, Default)]
pub struct FetchResponseOut {
    pub throttle_time_ms: i32,
    pub error_code: i16,
    pub session_id: i32,
    pub topics: Vec<FetchTopicOut>,
    /// v16+ (tag 0): the endpoints of the leaders the partitions name.
    pub node_endpoints: Vec<NodeEndpoint>,
}

/// One broker's endpoint on one listener, as a response's NodeEndpoints carry it (Fetch v16+,
/// Produce v10+).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeEndpoint {
    pub node_id: i32,
    pub host: String,
    pub port: i32,
    pub rack: Option<String>,
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

    fn nullable_string(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.string(s),
            None if self.flexible => self.cur.put_u8(0),
            None => self.cur.put_i16(-1),
        }
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

/// A flexible partition's tag section: the diverging epoch (tag 0) and the current leader
/// (tag 1), each when set, in tag order.
fn partition_tags(buf: &mut BytesMut, p: &FetchPartitionOut) {
    let count = u8::from(p.diverging_epoch.is_some()) + u8::from(p.current_leader.is_some());
    buf.put_u8(count);
    if let Some((epoch, end_offset)) = p.diverging_epoch {
        // tag 0, 13 bytes of EpochEndOffset (with its own empty tags)
        buf.put_slice(&[0, 13]);
        buf.put_i32(epoch);
        buf.put_i64(end_offset);
        buf.put_u8(0);
    }
    if let Some((leader_id, leader_epoch)) = p.current_leader {
        // tag 1, 9 bytes of LeaderIdAndEpoch (with its own empty tags)
        buf.put_slice(&[1, 9]);
        buf.put_i32(leader_id);
        buf.put_i32(leader_epoch);
        buf.put_u8(0);
    }
}

/// Writes the whole response (size prefix, header, body) for Fetch `version` (4-18).
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
        if version >= 13 {
            w.cur.put_slice(&topic.topic_id);
        } else {
            w.string(&topic.topic);
        }
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
            if w.flexible {
                partition_tags(&mut w.cur, p);
            }
        }
        w.tags();
    }
    if version >= 16 && !response.node_endpoints.is_empty() {
        // one tagged field: tag 0, the endpoints as a compact array, sized first
        let mut endpoints = ChunkWriter {
            done: Vec::new(),
            cur: BytesMut::with_capacity(64),
            flexible: true,
        };
        endpoints.array_len(response.node_endpoints.len());
        for e in &response.node_endpoints {
            endpoints.cur.put_i32(e.node_id);
            endpoints.string(&e.host);
            endpoints.cur.put_i32(e.port);
            endpoints.nullable_string(e.rack.as_deref());
            endpoints.tags();
        }
        w.cur.put_slice(&[1, 0]);
        put_uvarint(&mut w.cur, endpoints.cur.len() as u32);
        w.cur.put_slice(&endpoints.cur);
    } else {
        w.tags();
    }
    w.finish()
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::unix::fs::FileExt;
    use std::sync::Arc;

    use bytes::{Buf, Bytes};
    use kafka_protocol::messages::FetchResponse;
    use kafka_protocol::protocol::Decodable;

    use super::*;

    /// The response as one buffer, file regions read in place of sendfile.
    fn inline(chunks: &[Chunk]) -> Vec<u8> {
        let mut out = Vec::new();
        for c in chunks {
            match c {
                Chunk::Bytes(b) => out.extend_from_slice(b),
                Chunk::File {
                    file,
                    position,
                    length,
                } => {
                    let mut buf = vec![0; *length as usize];
                    file.read_exact_at(&mut buf, *position)
                        .expect("read region");
                    out.extend_from_slice(&buf);
                }
            }
        }
        out
    }

    fn sample() -> (FetchResponseOut, Vec<u8>) {
        let mut tmp = tempfile::tempfile().expect("tempfile");
        let data: Vec<u8> = (0..200u8).collect();
        tmp.write_all(&data).expect("write");
        let file = Arc::new(tmp);
        let response = FetchResponseOut {
            throttle_time_ms: 5,
            error_code: 0,
            session_id: 77_777,
            topics: vec![
                FetchTopicOut {
                    topic: "alpha".into(),
                    topic_id: [0xa1; 16],
                    partitions: vec![
                        FetchPartitionOut {
                            partition_index: 0,
                            error_code: 0,
                            high_watermark: 42,
                            last_stable_offset: 41,
                            log_start_offset: 3,
                            aborted_transactions: Some(vec![(7, 9)]),
                            preferred_read_replica: -1,
                            diverging_epoch: Some((4, 30)),
                            current_leader: Some((1, 4)),
                            records: Some(Chunk::File {
                                file: Arc::clone(&file),
                                position: 10,
                                length: 50,
                            }),
                        },
                        FetchPartitionOut {
                            current_leader: Some((2, 9)),
                            ..FetchPartitionOut::error(1, 6)
                        },
                    ],
                },
                FetchTopicOut {
                    topic: "beta".into(),
                    topic_id: [0xb2; 16],
                    partitions: vec![FetchPartitionOut {
                        records: Some(Chunk::Bytes(Bytes::from_static(b"inline"))),
                        ..FetchPartitionOut::error(2, 0)
                    }],
                },
            ],
            node_endpoints: vec![
                NodeEndpoint {
                    node_id: 2,
                    host: "h2".into(),
                    port: 9093,
                    rack: Some("r2".into()),
                },
                NodeEndpoint {
                    node_id: 3,
                    host: "h3".into(),
                    port: 9094,
                    rack: None,
                },
            ],
        };
        (response, data[10..60].to_vec())
    }

    #[test]
    fn decodes_with_kafka_protocol_at_every_served_version() {
        let (response, region) = sample();
        for version in 4..=18i16 {
            let bytes = inline(&write_fetch_response(version, 77, &response));
            let mut buf = Bytes::from(bytes);
            assert_eq!(buf.get_i32() as usize, buf.len(), "size prefix v{version}");
            assert_eq!(buf.get_i32(), 77);
            if version >= 12 {
                assert_eq!(buf.get_u8(), 0, "response header tags");
            }
            let decoded = FetchResponse::decode(&mut buf, version).expect("decodes");
            assert!(!buf.has_remaining(), "trailing bytes at v{version}");
            assert_eq!(decoded.throttle_time_ms, 5);
            if version >= 7 {
                assert_eq!(decoded.session_id, 77_777);
            }
            assert_eq!(decoded.responses.len(), 2);
            let alpha = &decoded.responses[0];
            if version >= 13 {
                assert_eq!(alpha.topic_id.as_bytes(), &[0xa1; 16]);
                assert_eq!(decoded.responses[1].topic_id.as_bytes(), &[0xb2; 16]);
            } else {
                assert_eq!(alpha.topic.0.as_str(), "alpha");
            }
            let p0 = &alpha.partitions[0];
            assert_eq!(
                (p0.partition_index, p0.error_code, p0.high_watermark),
                (0, 0, 42)
            );
            assert_eq!(p0.last_stable_offset, 41);
            if version >= 5 {
                assert_eq!(p0.log_start_offset, 3);
            }
            let aborted = p0.aborted_transactions.as_ref().expect("non-null");
            assert_eq!((aborted[0].producer_id.0, aborted[0].first_offset), (7, 9));
            assert_eq!(p0.records.as_deref(), Some(&region[..]));
            if version >= 12 {
                assert_eq!(
                    (p0.diverging_epoch.epoch, p0.diverging_epoch.end_offset),
                    (4, 30)
                );
            }
            let p1 = &alpha.partitions[1];
            assert_eq!(p1.diverging_epoch.epoch, -1);
            if version >= 12 {
                let leaders = [&p0.current_leader, &p1.current_leader];
                let leaders = leaders.map(|l| (l.leader_id.0, l.leader_epoch));
                assert_eq!(leaders, [(1, 4), (2, 9)]);
            }
            let endpoints: Vec<_> = decoded
                .node_endpoints
                .iter()
                .map(|e| (e.node_id.0, e.host.as_str(), e.port, e.rack.as_deref()))
                .collect();
            if version >= 16 {
                let want = vec![(2, "h2", 9093, Some("r2")), (3, "h3", 9094, None)];
                assert_eq!(endpoints, want);
            } else {
                assert!(endpoints.is_empty());
            }
            assert_eq!((p1.partition_index, p1.error_code), (1, 6));
            assert!(p1.aborted_transactions.is_none());
            assert_eq!(p1.records.as_deref(), Some(&b""[..]));
            if version >= 11 {
                assert_eq!(p1.preferred_read_replica.0, -1);
            }
            assert_eq!(
                decoded.responses[1].partitions[0].records.as_deref(),
                Some(&b"inline"[..])
            );
        }
    }

    #[test]
    fn file_regions_stay_separate_chunks() {
        let (response, _) = sample();
        let chunks = write_fetch_response(12, 1, &response);
        let files = chunks
            .iter()
            .filter(|c| matches!(c, Chunk::File { .. }))
            .count();
        assert_eq!(files, 1);
        assert_eq!(chunks.len(), 3, "bytes, file, bytes");
    }
}
