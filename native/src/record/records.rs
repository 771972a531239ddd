//! Reading the records section of a v2 batch: a zero-copy walker for validation and an owned
//! decoder for tests, tools and the control plane.
//!
//! Record layout (`../shared/kafka-protocol/README.md`, section 4): length varint, then
//! attributes int8, timestamp delta varlong, offset delta varint, key, value, headers.
//! Malformed records are INVALID_RECORD, as Kafka's `DefaultRecord.readFrom` reports them.

use super::batch::{BatchHeader, HEADER_SIZE, LOG_OVERHEAD};
use super::compression::{decompress, Codec};
use super::varint::{read_varint, read_varlong};
use crate::error::ErrorCode;

/// The smallest possible record: a length byte plus six one-byte fields.
pub const MIN_RECORD_SIZE: usize = 7;

/// One record, borrowed from an uncompressed records section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordRef<'a> {
    pub timestamp_delta: i64,
    pub offset_delta: i32,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    pub headers_count: i32,
    /// Attributes and timestamp delta, as encoded: kept so a record can be re-encoded with
    /// another offset delta without touching any other byte.
    pub prefix: &'a [u8],
    /// Everything after the offset delta (key, value, headers), as encoded.
    pub suffix: &'a [u8],
}

impl RecordRef<'_> {
    /// The record's headers, decoded (the walker has already checked their framing).
    pub fn headers(&self) -> Vec<(String, Option<Vec<u8>>)> {
        let mut out = Vec::with_capacity(self.headers_count.max(0) as usize);
        let mut pos = 0;
        // Skip key and value to reach the headers.
        for _ in 0..2 {
            let _ = read_bytes(self.suffix, &mut pos);
        }
        let _ = read_varint(self.suffix, &mut pos);
        for _ in 0..self.headers_count {
            let key = read_bytes(self.suffix, &mut pos)
                .ok()
                .flatten()
                .unwrap_or_default();
            let value = read_bytes(self.suffix, &mut pos).ok().flatten();
            out.push((
                String::from_utf8_lossy(key).into_owned(),
                value.map(<[u8]>::to_vec),
            ));
        }
        out
    }
}

/// Reads a varint length (-1 = null) and that many bytes.
fn read_bytes<'a>(buf: &'a [u8], pos: &mut usize) -> Result<Option<&'a [u8]>, ErrorCode> {
    let len = read_varint(buf, pos).ok_or(ErrorCode::InvalidRecord)?;
    if len == -1 {
        return Ok(None);
    }
    if len < 0 || len as usize > buf.len() - *pos {
        return Err(ErrorCode::InvalidRecord);
    }
    let bytes = &buf[*pos..*pos + len as usize];
    *pos += len as usize;
    Ok(Some(bytes))
}

/// Parses one record body (the bytes after its length varint); it must be consumed exactly.
fn parse_body(body: &[u8]) -> Result<RecordRef<'_>, ErrorCode> {
    let mut pos = 1; // attributes: unused in v2
    if body.is_empty() {
        return Err(ErrorCode::InvalidRecord);
    }
    let timestamp_delta = read_varlong(body, &mut pos).ok_or(ErrorCode::InvalidRecord)?;
    let prefix_end = pos;
    let offset_delta = read_varint(body, &mut pos).ok_or(ErrorCode::InvalidRecord)?;
    let suffix_start = pos;
    let key = read_bytes(body, &mut pos)?;
    let value = read_bytes(body, &mut pos)?;
    let headers_count = read_varint(body, &mut pos).ok_or(ErrorCode::InvalidRecord)?;
    if headers_count < 0 {
        return Err(ErrorCode::InvalidRecord);
    }
    for _ in 0..headers_count {
        // A header key may not be null; a header value may.
        if read_bytes(body, &mut pos)?.is_none() {
            return Err(ErrorCode::InvalidRecord);
        }
        read_bytes(body, &mut pos)?;
    }
    if pos != body.len() {
        return Err(ErrorCode::InvalidRecord);
    }
    Ok(RecordRef {
        timestamp_delta,
        offset_delta,
        key,
        value,
        headers_count,
        prefix: &body[..prefix_end],
        suffix: &body[suffix_start..],
    })
}

/// Iterates the records of an uncompressed records section in place. Yields an error (and
/// stops) at the first malformed record; trailing bytes after a well-formed record are read
/// as the next record, so a caller that counts records sees them.
pub fn walk(section: &[u8]) -> impl Iterator<Item = Result<RecordRef<'_>, ErrorCode>> {
    let mut pos = 0usize;
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed || pos >= section.len() {
            return None;
        }
        let result = (|| {
            let len = read_varint(section, &mut pos).ok_or(ErrorCode::InvalidRecord)?;
            if len < 0 || len as usize > section.len() - pos {
                return Err(ErrorCode::InvalidRecord);
            }
            let body = &section[pos..pos + len as usize];
            pos += len as usize;
            parse_body(body)
        })();
        failed = result.is_err();
        Some(result)
    })
}

/// One record, owned, with absolute offset delta and timestamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedRecord {
    pub offset_delta: i32,
    /// Absolute: the batch's base timestamp plus the record's delta.
    pub timestamp: i64,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(String, Option<Vec<u8>>)>,
}

/// Decodes an uncompressed records section; the record count must match the header's.
pub fn decode_records(
    header: &BatchHeader,
    section: &[u8],
) -> Result<Vec<DecodedRecord>, ErrorCode> {
    let mut out = Vec::with_capacity(header.records_count.clamp(0, 4096) as usize);
    for record in walk(section) {
        let r = record?;
        out.push(DecodedRecord {
            offset_delta: r.offset_delta,
            timestamp: header.base_timestamp.wrapping_add(r.timestamp_delta),
            key: r.key.map(<[u8]>::to_vec),
            value: r.value.map(<[u8]>::to_vec),
            headers: r.headers(),
        });
    }
    if out.len() != header.records_count.max(0) as usize {
        return Err(ErrorCode::InvalidRecord);
    }
    Ok(out)
}

/// Decodes a whole batch (decompressing its records if needed). `limit` bounds the
/// decompressed size.
pub fn decode_batch(
    batch: &[u8],
    limit: usize,
) -> Result<(BatchHeader, Vec<DecodedRecord>), ErrorCode> {
    let header = BatchHeader::parse(batch)?;
    if header.length < (HEADER_SIZE - LOG_OVERHEAD) as i32 || header.total_size() > batch.len() {
        return Err(ErrorCode::CorruptMessage);
    }
    let section = &batch[HEADER_SIZE..header.total_size()];
    let codec = Codec::from_attributes(header.attributes)?;
    let records = if codec == Codec::None {
        decode_records(&header, section)?
    } else {
        decode_records(&header, &decompress(codec, section, limit)?)?
    };
    Ok((header, records))
}

/// A transaction marker, the single record of a control batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlMarker {
    /// COMMIT (1) rather than ABORT (0).
    pub commit: bool,
    pub coordinator_epoch: i32,
}

/// Reads the marker of an (uncompressed) control batch.
pub fn control_marker(batch: &[u8]) -> Result<ControlMarker, ErrorCode> {
    let header = BatchHeader::parse(batch)?;
    if header.length < (HEADER_SIZE - LOG_OVERHEAD) as i32 || header.total_size() > batch.len() {
        return Err(ErrorCode::CorruptMessage);
    }
    if !header.is_control() {
        return Err(ErrorCode::InvalidRecord);
    }
    let record = walk(&batch[HEADER_SIZE..header.total_size()])
        .next()
        .ok_or(ErrorCode::InvalidRecord)??;
    let key = record.key.ok_or(ErrorCode::InvalidRecord)?;
    if key.len() < 4 {
        return Err(ErrorCode::InvalidRecord);
    }
    let kind = i16::from_be_bytes([key[2], key[3]]);
    let coordinator_epoch = match record.value {
        Some(v) if v.len() >= 6 => i32::from_be_bytes([v[2], v[3], v[4], v[5]]),
        _ => return Err(ErrorCode::InvalidRecord),
    };
    match kind {
        0 | 1 => Ok(ControlMarker {
            commit: kind == 1,
            coordinator_epoch,
        }),
        _ => Err(ErrorCode::InvalidRecord),
    }
}

/// A batch as a coordinator replaying its internal topic reads it: a transaction marker, or
/// the records of a data batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayBatch {
    pub header: BatchHeader,
    pub marker: Option<ControlMarker>,
    pub records: Vec<DecodedRecord>,
}

/// Every whole batch of `buf`, decompressed (`limit` bounds each); a partial last batch, as a
/// bounded read may end with, is left out. Corrupt data is an error.
pub fn replay_batches(buf: &[u8], limit: usize) -> Result<Vec<ReplayBatch>, ErrorCode> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while buf.len() - pos >= HEADER_SIZE {
        let header = BatchHeader::parse(&buf[pos..])?;
        if header.length < (HEADER_SIZE - LOG_OVERHEAD) as i32 {
            return Err(ErrorCode::CorruptMessage);
        }
        let end = pos + header.total_size();
        if end > buf.len() {
            break;
        }
        let batch = &buf[pos..end];
        out.push(if header.is_control() {
            ReplayBatch {
                header,
                marker: Some(control_marker(batch)?),
                records: Vec::new(),
            }
        } else {
            let (header, records) = decode_batch(batch, limit)?;
            ReplayBatch {
                header,
                marker: None,
                records,
            }
        });
        pos = end;
    }
    Ok(out)
}
