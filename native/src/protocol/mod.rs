//! The wire side of the natively served APIs, sans-IO: request headers, the version table,
//! response framing, and the hand-written Fetch response (so record data can leave by sendfile).
//!
//! Requests are decoded and the small responses encoded with the `kafka-protocol` crate (it is
//! generated from Kafka's own schemas); only the Fetch response is written by hand, as a list of
//! byte buffers and file regions.

pub mod fetch_session;
pub mod fetch_writer;
mod skim;

use std::fs::File;
use std::sync::Arc;

use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::messages::{ApiKey, RequestHeader};
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion};

// The keys of the natively served APIs, from the codec crate's enum (generated from Kafka's
// schemas, as the control plane's `ApiKey` is).
pub const PRODUCE: i16 = ApiKey::Produce as i16;
pub const FETCH: i16 = ApiKey::Fetch as i16;
pub const LIST_OFFSETS: i16 = ApiKey::ListOffsets as i16;
pub const OFFSET_FOR_LEADER_EPOCH: i16 = ApiKey::OffsetForLeaderEpoch as i16;
pub const WRITE_TXN_MARKERS: i16 = ApiKey::WriteTxnMarkers as i16;
pub const SHARE_FETCH: i16 = ApiKey::ShareFetch as i16;
pub const SHARE_ACKNOWLEDGE: i16 = ApiKey::ShareAcknowledge as i16;

/// The APIs the native core serves and the versions it implements completely:
/// `(api_key, min, max)`. ApiVersions (answered by Python) advertises exactly these.
pub const NATIVE_API_VERSIONS: &[(i16, i16, i16)] = &[
    (PRODUCE, 3, 13),
    (FETCH, 4, 18),
    (LIST_OFFSETS, 1, 11),
    (OFFSET_FOR_LEADER_EPOCH, 2, 4),
    (WRITE_TXN_MARKERS, 1, 2),
    // Share groups (KIP-932) at the versions the codec crate knows; a 4.4 share consumer
    // asks for v1 when v2 is not listed.
    (SHARE_FETCH, 1, 1),
    (SHARE_ACKNOWLEDGE, 1, 1),
];

/// Where a request goes once its first 8 bytes are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Served natively at a supported version.
    Native,
    /// A natively served API at a version outside the range: Kafka closes the connection.
    Unsupported,
    /// Everything else: the Python control plane.
    Control,
}

pub fn route(api_key: i16, api_version: i16) -> Route {
    match NATIVE_API_VERSIONS.iter().find(|(k, _, _)| *k == api_key) {
        Some((_, min, max)) if (*min..=*max).contains(&api_version) => Route::Native,
        Some(_) => Route::Unsupported,
        None => Route::Control,
    }
}

/// The first fields of every request header, read without decoding the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderPeek {
    pub api_key: i16,
    pub api_version: i16,
    pub correlation_id: i32,
}

/// Reads api key, version and correlation id; None if the frame is too short to hold them.
pub fn peek_header(frame: &[u8]) -> Option<HeaderPeek> {
    if frame.len() < 8 {
        return None;
    }
    Some(HeaderPeek {
        api_key: i16::from_be_bytes([frame[0], frame[1]]),
        api_version: i16::from_be_bytes([frame[2], frame[3]]),
        correlation_id: i32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]),
    })
}

/// A malformed request: the connection is closed (Kafka's answer to bytes it cannot parse).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed request: {}", self.0)
    }
}

impl std::error::Error for DecodeError {}

/// Decodes the header and the body of a natively served request. `frame` is the whole request
/// without its size prefix; record data in the body stays a zero-copy slice of it.
/// Versions whose fields are those of an older version, only what a value means having
/// changed: `(api_key, version, layout)`. The generated codec stops at the older one, so the
/// body is decoded and encoded as `layout`, the header as the version itself.
const SAME_LAYOUT: &[(i16, i16, i16)] = &[
    // ListOffsets 11 (KIP-1023) only adds the timestamp -6 (earliest pending upload).
    (LIST_OFFSETS, 11, 10),
];

/// The version whose layout `api_version` of `api_key` has on the wire.
pub fn layout_version(api_key: i16, api_version: i16) -> i16 {
    SAME_LAYOUT
        .iter()
        .find(|(key, version, _)| *key == api_key && *version == api_version)
        .map_or(api_version, |(_, _, layout)| *layout)
}

pub fn decode_request<R: Decodable + HeaderVersion>(
    frame: Bytes,
) -> Result<(RequestHeader, R), DecodeError> {
    let (header, mut body) = split_request(frame)?;
    let layout = layout_version(header.request_api_key, header.request_api_version);
    let body = R::decode(&mut body, layout).map_err(|e| DecodeError(format!("body: {e}")))?;
    Ok((header, body))
}

/// The header of a natively served request and its body, checked against its schema, for a
/// handler that reads the body itself (a version the codec crate does not know).
pub fn split_request(mut frame: Bytes) -> Result<(RequestHeader, Bytes), DecodeError> {
    let peek = peek_header(&frame).ok_or_else(|| DecodeError("short header".into()))?;
    let key = ApiKey::try_from(peek.api_key).map_err(|_| DecodeError("unknown api key".into()))?;
    let header_version = key.request_header_version(peek.api_version);
    let header = RequestHeader::decode(&mut frame, header_version)
        .map_err(|e| DecodeError(format!("header: {e}")))?;
    if !skim::body_is_sound(peek.api_key, peek.api_version, header_version >= 2, &frame) {
        return Err(DecodeError("body does not match its schema".into()));
    }
    Ok((header, frame))
}

/// The response header version of `api_key` at `api_version` (1 when flexible).
pub fn response_header_version(api_key: i16, api_version: i16) -> i16 {
    ApiKey::try_from(api_key)
        .map(|k| k.response_header_version(api_version))
        .unwrap_or(0)
}

/// Writes the response header: the correlation id, plus an empty tag section for v1.
pub fn put_response_header(buf: &mut BytesMut, correlation_id: i32, header_version: i16) {
    buf.put_i32(correlation_id);
    if header_version >= 1 {
        buf.put_u8(0);
    }
}

/// Encodes a whole response (size prefix, header, body) with the generated encoder.
pub fn encode_response<M: Encodable + HeaderVersion>(
    api_key: i16,
    api_version: i16,
    correlation_id: i32,
    body: &M,
) -> Result<Bytes, DecodeError> {
    let header_version = response_header_version(api_key, api_version);
    let mut buf = BytesMut::with_capacity(64);
    buf.put_i32(0);
    put_response_header(&mut buf, correlation_id, header_version);
    body.encode(&mut buf, layout_version(api_key, api_version))
        .map_err(|e| DecodeError(format!("encode: {e}")))?;
    let size = (buf.len() - 4) as i32;
    buf[..4].copy_from_slice(&size.to_be_bytes());
    Ok(buf.freeze())
}

/// A piece of a response on its way to the socket.
#[derive(Debug, Clone)]
pub enum Chunk {
    Bytes(Bytes),
    /// `length` bytes of `file` from `position`: record data sent with sendfile.
    File {
        file: Arc<File>,
        position: u64,
        length: u32,
    },
}

impl Chunk {
    pub fn len(&self) -> usize {
        match self {
            Chunk::Bytes(b) => b.len(),
            Chunk::File { length, .. } => *length as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A response as chunks, with the 4-byte size prefix included in the first chunk.
pub type Response = Vec<Chunk>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_by_key_and_version() {
        assert_eq!(route(PRODUCE, 3), Route::Native);
        assert_eq!(route(PRODUCE, 13), Route::Native);
        assert_eq!(route(PRODUCE, 2), Route::Unsupported);
        assert_eq!(route(PRODUCE, 14), Route::Unsupported);
        assert_eq!(route(FETCH, 18), Route::Native);
        assert_eq!(route(FETCH, 19), Route::Unsupported);
        assert_eq!(route(18, 3), Route::Control);
        assert_eq!(route(-5, 0), Route::Control);
    }

    #[test]
    fn peeks_header_fields() {
        let frame = [0, 1, 0, 12, 0, 0, 0, 7, 0xff];
        let peek = peek_header(&frame).expect("long enough");
        assert_eq!(
            (peek.api_key, peek.api_version, peek.correlation_id),
            (1, 12, 7)
        );
        assert!(peek_header(&frame[..7]).is_none());
    }
}
