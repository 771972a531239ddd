//! Fetched record batches decoded straight into Arrow-layout column buffers, for consumers
//! (the PySpark data source) that hand records on as Arrow record batches.
//!
//! The buffers follow the Arrow columnar format so that Python can wrap them without a copy:
//! little-endian fixed-width values, i32 offsets for variable-width data, validity bitmaps
//! with the least significant bit first. Doing the per-record work here keeps Python at one
//! call per fetch response instead of one per record.
//!
//! What a consumer must not see is dropped here: control batches, records of aborted
//! transactions (for read_committed, from the Fetch response's aborted-transactions list, the
//! way Kafka's consumer filters them), records outside `[start, end)`, and a trailing partial
//! batch (Fetch may cut the last batch at `max_bytes`).

use std::collections::{BTreeMap, HashSet};

use super::batch::{compute_crc, BatchHeader, HEADER_SIZE, LOG_OVERHEAD};
use super::compression::{decompress_into, Codec};
use super::records::{control_marker, walk};
use crate::error::ErrorCode;

/// A variable-width binary column: Arrow's `binary`/`utf8` layout.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct BinaryColumn {
    /// `len + 1` little-endian i32 offsets into `data`.
    pub offsets: Vec<u8>,
    pub data: Vec<u8>,
    /// One bit per value, set when not null.
    pub validity: Vec<u8>,
    pub null_count: usize,
    len: usize,
}

impl BinaryColumn {
    fn new() -> Self {
        BinaryColumn {
            offsets: 0i32.to_le_bytes().to_vec(),
            ..Default::default()
        }
    }

    fn push(&mut self, value: Option<&[u8]>) -> Result<(), ErrorCode> {
        if self.len.is_multiple_of(8) {
            self.validity.push(0);
        }
        match value {
            Some(v) => {
                self.data.extend_from_slice(v);
                *self.validity.last_mut().expect("pushed above") |= 1 << (self.len % 8);
            }
            None => self.null_count += 1,
        }
        // Arrow's binary type has 32-bit offsets: a column over 2 GiB cannot be built.
        let end = i32::try_from(self.data.len()).map_err(|_| ErrorCode::RecordListTooLarge)?;
        self.offsets.extend_from_slice(&end.to_le_bytes());
        self.len += 1;
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The decoded records of one partition's fetched bytes, column by column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    /// i64 little-endian.
    pub offsets: Vec<u8>,
    /// Microseconds since the epoch, i64 little-endian (Spark's timestamp unit).
    pub timestamps: Vec<u8>,
    /// i32 little-endian: 0 CreateTime, 1 LogAppendTime (Spark's `timestampType`).
    pub timestamp_types: Vec<u8>,
    pub keys: BinaryColumn,
    pub values: BinaryColumn,
    /// Per record, i32 offsets into the header entries; null (validity bit clear) when the
    /// record has no headers, as Spark's Kafka source gives them.
    pub header_offsets: Vec<u8>,
    pub header_validity: Vec<u8>,
    pub header_null_count: usize,
    pub header_keys: BinaryColumn,
    pub header_values: BinaryColumn,
    pub rows: usize,
    /// The offset to fetch next: past the last complete batch seen (even one that was
    /// skipped: a control batch, an aborted transaction), or `start` if there was none.
    pub next_offset: i64,
}

/// What to keep of the fetched bytes.
#[derive(Debug, Clone, Default)]
pub struct DecodeOptions {
    /// First offset to keep (records before it are in the first batch returned by Fetch).
    pub start: i64,
    /// Offset past the last record to keep.
    pub end: i64,
    pub include_headers: bool,
    pub verify_crc: bool,
    /// `Some` for read_committed: the Fetch response's aborted transactions,
    /// (producer id, first offset).
    pub aborted: Option<Vec<(i64, i64)>>,
    /// Bound of one batch's decompressed size.
    pub max_decompressed: usize,
}

impl Columns {
    fn new(start: i64) -> Self {
        Columns {
            offsets: Vec::new(),
            timestamps: Vec::new(),
            timestamp_types: Vec::new(),
            keys: BinaryColumn::new(),
            values: BinaryColumn::new(),
            header_offsets: 0i32.to_le_bytes().to_vec(),
            header_validity: Vec::new(),
            header_null_count: 0,
            header_keys: BinaryColumn::new(),
            header_values: BinaryColumn::new(),
            rows: 0,
            next_offset: start,
        }
    }
}

/// Tracks which producers' transactional batches are aborted, as the fetched log is walked in
/// offset order: an aborted transaction becomes active when the walk reaches its first offset
/// and ends at that producer's ABORT marker.
struct AbortFilter {
    /// first offset -> producer ids whose aborted transaction starts there.
    pending: BTreeMap<i64, Vec<i64>>,
    active: HashSet<i64>,
}

impl AbortFilter {
    fn new(aborted: &[(i64, i64)]) -> Self {
        let mut pending: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
        for &(producer_id, first_offset) in aborted {
            pending.entry(first_offset).or_default().push(producer_id);
        }
        AbortFilter {
            pending,
            active: HashSet::new(),
        }
    }

    /// Whether a (non-control) transactional batch belongs to an aborted transaction.
    fn is_aborted(&mut self, header: &BatchHeader) -> bool {
        let last = header.last_offset();
        while let Some(entry) = self.pending.first_entry() {
            if *entry.key() > last {
                break;
            }
            self.active.extend(entry.remove());
        }
        self.active.contains(&header.producer_id)
    }

    fn on_marker(&mut self, header: &BatchHeader, commit: bool) {
        if !commit {
            self.active.remove(&header.producer_id);
        }
    }
}

/// Decodes concatenated v2 batches (a Fetch response's records) into columns.
pub fn decode_columns(buf: &[u8], opts: &DecodeOptions) -> Result<Columns, ErrorCode> {
    let mut out = Columns::new(opts.start);
    let mut filter = opts.aborted.as_deref().map(AbortFilter::new);
    let mut scratch = Vec::new();
    let mut pos = 0usize;
    while buf.len() - pos >= HEADER_SIZE {
        let rest = &buf[pos..];
        let header = BatchHeader::parse(rest)?;
        if header.length < (HEADER_SIZE - LOG_OVERHEAD) as i32 {
            return Err(ErrorCode::CorruptMessage);
        }
        if header.total_size() > rest.len() {
            break; // a partial batch cut by the fetch size: the next fetch starts at it
        }
        let batch = &rest[..header.total_size()];
        pos += batch.len();
        if opts.verify_crc && compute_crc(batch) != header.crc {
            return Err(ErrorCode::CorruptMessage);
        }
        if header.last_offset() < opts.start {
            continue;
        }
        if header.base_offset >= opts.end {
            break;
        }
        out.next_offset = (header.last_offset() + 1).min(opts.end);
        if header.is_control() {
            if let Some(f) = filter.as_mut() {
                if let Ok(marker) = control_marker(batch) {
                    f.on_marker(&header, marker.commit);
                }
            }
            continue;
        }
        if header.is_transactional() {
            if let Some(f) = filter.as_mut() {
                if f.is_aborted(&header) {
                    continue;
                }
            }
        }
        let section = &batch[HEADER_SIZE..];
        let codec = Codec::from_attributes(header.attributes)?;
        let section = if codec == Codec::None {
            section
        } else {
            decompress_into(codec, section, opts.max_decompressed, &mut scratch)?;
            &scratch[..]
        };
        append_batch(&mut out, &header, section, opts)?;
    }
    Ok(out)
}

fn append_batch(
    out: &mut Columns,
    header: &BatchHeader,
    section: &[u8],
    opts: &DecodeOptions,
) -> Result<(), ErrorCode> {
    let log_append = header.is_log_append_time();
    let timestamp_type = i32::from(log_append).to_le_bytes();
    for record in walk(section) {
        let r = record?;
        let offset = header.base_offset + i64::from(r.offset_delta);
        if offset < opts.start || offset >= opts.end {
            continue;
        }
        let millis = if log_append {
            header.max_timestamp
        } else {
            header.base_timestamp.wrapping_add(r.timestamp_delta)
        };
        out.offsets.extend_from_slice(&offset.to_le_bytes());
        out.timestamps
            .extend_from_slice(&millis.saturating_mul(1000).to_le_bytes());
        out.timestamp_types.extend_from_slice(&timestamp_type);
        out.keys.push(r.key)?;
        out.values.push(r.value)?;
        if opts.include_headers {
            push_headers(out, &r.headers())?;
        }
        out.rows += 1;
    }
    Ok(())
}

fn push_headers(out: &mut Columns, headers: &[(String, Option<Vec<u8>>)]) -> Result<(), ErrorCode> {
    if out.rows.is_multiple_of(8) {
        out.header_validity.push(0);
    }
    if headers.is_empty() {
        out.header_null_count += 1;
    } else {
        *out.header_validity.last_mut().expect("pushed above") |= 1 << (out.rows % 8);
    }
    for (key, value) in headers {
        out.header_keys.push(Some(key.as_bytes()))?;
        out.header_values.push(value.as_deref())?;
    }
    let end = i32::try_from(out.header_keys.len()).map_err(|_| ErrorCode::RecordListTooLarge)?;
    out.header_offsets.extend_from_slice(&end.to_le_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::batch::{set_base_offset, update_crc, ATTRIBUTES, ATTR_TIMESTAMP_TYPE};
    use crate::record::builder::{control_batch, BatchBuilder, Record};

    fn batch(base: i64, codec: Codec, records: Vec<Record>) -> Vec<u8> {
        let mut b = BatchBuilder::new(codec);
        b.records = records;
        let mut bytes = b.build();
        set_base_offset(&mut bytes, base);
        bytes
    }

    fn values(n: usize, first: u8) -> Vec<Record> {
        (0..n)
            .map(|i| Record::new(Some(b"k"), Some(&[first + i as u8]), 1_000 + i as i64))
            .collect()
    }

    fn opts(start: i64, end: i64) -> DecodeOptions {
        DecodeOptions {
            start,
            end,
            include_headers: true,
            verify_crc: true,
            aborted: None,
            max_decompressed: 1 << 20,
        }
    }

    fn i64s(b: &[u8]) -> Vec<i64> {
        b.chunks(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn i32s(b: &[u8]) -> Vec<i32> {
        b.chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn every_codec_decodes_to_the_same_columns() {
        for codec in Codec::ALL {
            let mut buf = batch(0, codec, values(3, 10));
            buf.extend(batch(3, codec, values(2, 20)));
            let c = decode_columns(&buf, &opts(0, i64::MAX)).unwrap();
            assert_eq!(c.rows, 5);
            assert_eq!(i64s(&c.offsets), [0, 1, 2, 3, 4]);
            assert_eq!(
                i64s(&c.timestamps),
                [1_000_000, 1_001_000, 1_002_000, 1_000_000, 1_001_000]
            );
            assert_eq!(c.values.data, [10, 11, 12, 20, 21]);
            assert_eq!(i32s(&c.values.offsets), [0, 1, 2, 3, 4, 5]);
            assert_eq!(c.keys.validity, [0b11111]);
            assert_eq!(c.next_offset, 5);
            // No record has headers: all null.
            assert_eq!(
                (c.header_null_count, c.header_validity.clone()),
                (5, vec![0])
            );
        }
    }

    #[test]
    fn nulls_and_headers() {
        let records = vec![
            Record {
                key: None,
                value: Some(b"v".to_vec()),
                headers: vec![("a".into(), Some(b"1".to_vec())), ("b".into(), None)],
                timestamp: 5,
            },
            Record::new(Some(b"key"), None, 6),
        ];
        let c = decode_columns(&batch(7, Codec::None, records), &opts(0, i64::MAX)).unwrap();
        assert_eq!((c.keys.validity[0], c.keys.null_count), (0b10, 1));
        assert_eq!((c.values.validity[0], c.values.null_count), (0b01, 1));
        assert_eq!(c.keys.data, b"key");
        assert_eq!(i32s(&c.header_offsets), [0, 2, 2]);
        assert_eq!(c.header_validity, [0b01]);
        assert_eq!(c.header_keys.data, b"ab");
        assert_eq!(c.header_values.validity, [0b01]);
        assert_eq!(i64s(&c.offsets), [7, 8]);
    }

    #[test]
    fn range_bounds_partial_batches_and_log_append_time() {
        let mut first = batch(0, Codec::None, values(4, 0));
        first[ATTRIBUTES + 1] |= ATTR_TIMESTAMP_TYPE as u8;
        update_crc(&mut first);
        let second = batch(4, Codec::None, values(4, 4));
        let mut buf = first.clone();
        buf.extend_from_slice(&second);
        let c = decode_columns(&buf, &opts(2, 6)).unwrap();
        assert_eq!(i64s(&c.offsets), [2, 3, 4, 5]);
        assert_eq!(i32s(&c.timestamp_types), [1, 1, 0, 0]);
        // LogAppendTime: every record takes the batch's max timestamp.
        assert_eq!(i64s(&c.timestamps)[..2], [1_003_000, 1_003_000]);
        assert_eq!(c.next_offset, 6);

        // A batch cut by the fetch size is left for the next fetch.
        let cut = &buf[..first.len() + 30];
        let c = decode_columns(cut, &opts(0, i64::MAX)).unwrap();
        assert_eq!((c.rows, c.next_offset), (4, 4));

        let mut corrupt = first;
        *corrupt.last_mut().unwrap() ^= 1;
        assert_eq!(
            decode_columns(&corrupt, &opts(0, i64::MAX)),
            Err(ErrorCode::CorruptMessage)
        );
    }

    #[test]
    fn read_committed_skips_aborted_transactions_and_markers() {
        let txn = |base: i64, pid: i64, first: u8| {
            let mut b = BatchBuilder::new(Codec::None).producer(pid, 0, 0);
            b.transactional = true;
            b.records = values(2, first);
            let mut bytes = b.build();
            set_base_offset(&mut bytes, base);
            bytes
        };
        let marker = |base: i64, pid: i64, commit: bool| {
            let mut bytes = control_batch(pid, 0, commit, 0, 9);
            set_base_offset(&mut bytes, base);
            bytes
        };
        // Producer 1 aborts [0, 2), producer 2 commits [2, 4), producer 1 commits [6, 8).
        let mut buf = txn(0, 1, 0);
        buf.extend(txn(2, 2, 2));
        buf.extend(marker(4, 1, false));
        buf.extend(marker(5, 2, true));
        buf.extend(txn(6, 1, 6));
        buf.extend(marker(8, 1, true));
        let committed = DecodeOptions {
            aborted: Some(vec![(1, 0)]),
            ..opts(0, i64::MAX)
        };
        let c = decode_columns(&buf, &committed).unwrap();
        assert_eq!(i64s(&c.offsets), [2, 3, 6, 7]);
        assert_eq!(c.next_offset, 9);
        let c = decode_columns(&buf, &opts(0, i64::MAX)).unwrap();
        assert_eq!(i64s(&c.offsets), [0, 1, 2, 3, 6, 7]);
    }
}
