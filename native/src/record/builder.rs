//! Builds RecordBatch v2 bytes: used by tests everywhere, by the control plane for internal
//! topics, and for transaction markers.

use super::batch::{self, ATTR_CONTROL, ATTR_TRANSACTIONAL, HEADER_SIZE, LOG_OVERHEAD};
use super::compression::{compress, Codec};
use super::varint::{varint_len, varlong_len, write_varint, write_varlong};

// The decoder lives beside the record walker; re-exported here for whoever builds and reads.
pub use super::records::{
    control_marker, decode_batch, decode_records, ControlMarker, DecodedRecord,
};

/// One record to put in a batch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(String, Option<Vec<u8>>)>,
    /// Absolute timestamp in milliseconds.
    pub timestamp: i64,
}

impl Record {
    pub fn new(key: Option<&[u8]>, value: Option<&[u8]>, timestamp: i64) -> Record {
        Record {
            key: key.map(<[u8]>::to_vec),
            value: value.map(<[u8]>::to_vec),
            headers: Vec::new(),
            timestamp,
        }
    }
}

#[derive(Debug, Clone)]
pub struct BatchBuilder {
    pub codec: Codec,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub transactional: bool,
    pub control: bool,
    pub records: Vec<Record>,
}

impl BatchBuilder {
    pub fn new(codec: Codec) -> Self {
        BatchBuilder {
            codec,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            transactional: false,
            control: false,
            records: Vec::new(),
        }
    }

    /// Sets the idempotent-producer fields.
    pub fn producer(mut self, producer_id: i64, producer_epoch: i16, base_sequence: i32) -> Self {
        self.producer_id = producer_id;
        self.producer_epoch = producer_epoch;
        self.base_sequence = base_sequence;
        self
    }

    pub fn record(mut self, record: Record) -> Self {
        self.records.push(record);
        self
    }

    /// The batch with BaseOffset 0 and a valid CRC, as a producer sends it. An empty builder
    /// gives a batch with no records (RecordsCount 0), which brokers reject: useful in tests.
    pub fn build(&self) -> Vec<u8> {
        let base_timestamp = self.records.first().map_or(-1, |r| r.timestamp);
        let max_timestamp = self.records.iter().map(|r| r.timestamp).max().unwrap_or(-1);
        let mut section = Vec::with_capacity(self.records.iter().map(estimated_size).sum());
        for (i, r) in self.records.iter().enumerate() {
            encode_record(
                &mut section,
                r,
                i as i32,
                r.timestamp.wrapping_sub(base_timestamp),
            );
        }
        let payload = if self.codec == Codec::None {
            section
        } else {
            compress(self.codec, &section)
        };
        let mut attributes = self.codec.attribute_bits();
        if self.transactional {
            attributes |= ATTR_TRANSACTIONAL;
        }
        if self.control {
            attributes |= ATTR_CONTROL;
        }
        assemble(
            &BatchFields {
                attributes,
                last_offset_delta: self.records.len() as i32 - 1,
                base_timestamp,
                max_timestamp,
                producer_id: self.producer_id,
                producer_epoch: self.producer_epoch,
                base_sequence: self.base_sequence,
                records_count: self.records.len() as i32,
            },
            &payload,
        )
    }
}

/// The header fields under the CRC, for assembling a batch around a records section.
#[derive(Debug, Clone, Copy)]
pub struct BatchFields {
    pub attributes: i16,
    pub last_offset_delta: i32,
    pub base_timestamp: i64,
    pub max_timestamp: i64,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub records_count: i32,
}

/// Writes a complete batch (BaseOffset 0, PartitionLeaderEpoch -1 as producers send them)
/// around an already encoded, possibly compressed, records section, with its CRC.
pub fn assemble(fields: &BatchFields, records: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_SIZE + records.len());
    out.extend_from_slice(&0i64.to_be_bytes());
    let length = (HEADER_SIZE - LOG_OVERHEAD + records.len()) as i32;
    out.extend_from_slice(&length.to_be_bytes());
    out.extend_from_slice(&(-1i32).to_be_bytes());
    out.push(2);
    out.extend_from_slice(&0u32.to_be_bytes());
    out.extend_from_slice(&fields.attributes.to_be_bytes());
    out.extend_from_slice(&fields.last_offset_delta.to_be_bytes());
    out.extend_from_slice(&fields.base_timestamp.to_be_bytes());
    out.extend_from_slice(&fields.max_timestamp.to_be_bytes());
    out.extend_from_slice(&fields.producer_id.to_be_bytes());
    out.extend_from_slice(&fields.producer_epoch.to_be_bytes());
    out.extend_from_slice(&fields.base_sequence.to_be_bytes());
    out.extend_from_slice(&fields.records_count.to_be_bytes());
    out.extend_from_slice(records);
    batch::update_crc(&mut out);
    out
}

fn bytes_len(b: Option<&[u8]>) -> usize {
    match b {
        None => varint_len(-1),
        Some(b) => varint_len(b.len() as i32) + b.len(),
    }
}

fn estimated_size(r: &Record) -> usize {
    32 + r.key.as_ref().map_or(0, Vec::len) + r.value.as_ref().map_or(0, Vec::len)
}

fn write_bytes(out: &mut Vec<u8>, b: Option<&[u8]>) {
    match b {
        None => write_varint(out, -1),
        Some(b) => {
            write_varint(out, b.len() as i32);
            out.extend_from_slice(b);
        }
    }
}

/// Appends one encoded record (length varint included).
pub fn encode_record(out: &mut Vec<u8>, r: &Record, offset_delta: i32, timestamp_delta: i64) {
    let mut body_len = 1
        + varlong_len(timestamp_delta)
        + varint_len(offset_delta)
        + bytes_len(r.key.as_deref())
        + bytes_len(r.value.as_deref())
        + varint_len(r.headers.len() as i32);
    for (k, v) in &r.headers {
        body_len += bytes_len(Some(k.as_bytes())) + bytes_len(v.as_deref());
    }
    write_varint(out, body_len as i32);
    out.push(0);
    write_varlong(out, timestamp_delta);
    write_varint(out, offset_delta);
    write_bytes(out, r.key.as_deref());
    write_bytes(out, r.value.as_deref());
    write_varint(out, r.headers.len() as i32);
    for (k, v) in &r.headers {
        write_bytes(out, Some(k.as_bytes()));
        write_bytes(out, v.as_deref());
    }
}

/// Control record type of a transaction marker.
const ABORT: i16 = 0;
const COMMIT: i16 = 1;

/// A transaction marker (commit or abort) as the transaction coordinator writes it: one
/// control record, uncompressed, transactional and control bits set, BaseSequence -1.
pub fn control_batch(
    producer_id: i64,
    producer_epoch: i16,
    commit: bool,
    coordinator_epoch: i32,
    timestamp: i64,
) -> Vec<u8> {
    let mut key = Vec::with_capacity(4);
    key.extend_from_slice(&0i16.to_be_bytes());
    key.extend_from_slice(&(if commit { COMMIT } else { ABORT }).to_be_bytes());
    let mut value = Vec::with_capacity(6);
    value.extend_from_slice(&0i16.to_be_bytes());
    value.extend_from_slice(&coordinator_epoch.to_be_bytes());
    let mut b = BatchBuilder::new(Codec::None).producer(producer_id, producer_epoch, -1);
    b.transactional = true;
    b.control = true;
    b.record(Record {
        key: Some(key),
        value: Some(value),
        headers: Vec::new(),
        timestamp,
    })
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::batch::{crc_is_valid, BatchHeader};
    use crate::record::records::{control_marker, decode_batch};

    fn sample_records() -> Vec<Record> {
        vec![
            Record::new(Some(b"k1"), Some(b"v1"), 1_000),
            Record {
                key: None,
                value: None,
                headers: vec![("h".into(), Some(b"x".to_vec())), ("n".into(), None)],
                timestamp: 900,
            },
            Record::new(Some(b""), Some(&[7u8; 300]), 1_500),
        ]
    }

    #[test]
    fn built_batches_decode_to_their_records_with_every_codec() {
        for codec in Codec::ALL {
            let mut b = BatchBuilder::new(codec).producer(42, 3, 17);
            b.records = sample_records();
            let bytes = b.build();
            assert!(crc_is_valid(&bytes));
            let (h, records) = decode_batch(&bytes, 1 << 20).unwrap();
            assert_eq!(h.total_size(), bytes.len());
            assert_eq!((h.base_offset, h.partition_leader_epoch), (0, -1));
            assert_eq!(
                (h.producer_id, h.producer_epoch, h.base_sequence),
                (42, 3, 17)
            );
            assert_eq!((h.records_count, h.last_offset_delta), (3, 2));
            assert_eq!((h.base_timestamp, h.max_timestamp), (1_000, 1_500));
            assert_eq!(h.compression(), codec as u8);
            for (i, (got, want)) in records.iter().zip(sample_records()).enumerate() {
                assert_eq!(got.offset_delta, i as i32);
                assert_eq!(
                    (got.timestamp, &got.key, &got.value),
                    (want.timestamp, &want.key, &want.value)
                );
                assert_eq!(got.headers, want.headers);
            }
        }
    }

    #[test]
    fn known_record_bytes() {
        // key "a", value "b", no headers, deltas 0: length 8, then the body.
        let b = BatchBuilder::new(Codec::None).record(Record::new(Some(b"a"), Some(b"b"), 5));
        let bytes = b.build();
        assert_eq!(&bytes[HEADER_SIZE..], &[16, 0, 0, 0, 2, b'a', 2, b'b', 0]);
    }

    #[test]
    fn control_batches_carry_the_marker() {
        for commit in [true, false] {
            let bytes = control_batch(9, 2, commit, 7, 123);
            let h = BatchHeader::parse(&bytes).unwrap();
            assert!(h.is_control() && h.is_transactional());
            assert_eq!(
                (
                    h.producer_id,
                    h.producer_epoch,
                    h.base_sequence,
                    h.records_count
                ),
                (9, 2, -1, 1)
            );
            let m = control_marker(&bytes).unwrap();
            assert_eq!((m.commit, m.coordinator_epoch), (commit, 7));
        }
    }

    #[test]
    fn empty_builder_gives_an_empty_batch() {
        let h = BatchHeader::parse(&BatchBuilder::new(Codec::None).build()).unwrap();
        assert_eq!(
            (h.records_count, h.last_offset_delta, h.max_timestamp),
            (0, -1, -1)
        );
    }
}
