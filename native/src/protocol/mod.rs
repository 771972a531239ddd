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
    // Share groups (KIP-932); v2 adds the record-limit acquire mode (KIP-1206) and RENEW
    // (KIP-1222), read by `decode_request_added`.
    (SHARE_FETCH, 1, 2),
    (SHARE_ACKNOWLEDGE, 1, 2),
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

/// Responses whose fields are an older version's although their requests' are not (the new
/// request fields are read by `decode_request_added` or by hand): `(api_key, version, layout)`.
const SAME_RESPONSE_LAYOUT: &[(i16, i16, i16)] = &[
    // WriteTxnMarkers 2 adds each marker's transaction version to the request only.
    (WRITE_TXN_MARKERS, 2, 1),
    // ShareFetch 2 adds the acquire mode and IsRenewAck to the request only.
    (SHARE_FETCH, 2, 1),
];

/// The version whose layout a response of `api_version` of `api_key` has on the wire.
fn response_layout(api_key: i16, api_version: i16) -> i16 {
    SAME_RESPONSE_LAYOUT
        .iter()
        .find(|(key, version, _)| *key == api_key && *version == api_version)
        .map_or_else(
            || layout_version(api_key, api_version),
            |(_, _, layout)| *layout,
        )
}

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

/// Decodes a request whose version may only add fixed-width fields to an older version's
/// (`skim::added_fields`: ShareFetch and ShareAcknowledge v2, which the codec crate does not
/// know): the body without them is decoded as the older version, and the added bytes are
/// returned for the handler to read (empty at a version the crate knows).
pub fn decode_request_added<R: Decodable + HeaderVersion>(
    frame: Bytes,
) -> Result<(RequestHeader, R, Bytes), DecodeError> {
    let (header, body) = split_request(frame)?;
    let (key, version) = (header.request_api_key, header.request_api_version);
    let (mut rest, layout, added) = match skim::added_fields(key, version, &body) {
        Some((older, at, width)) => {
            let mut rest = BytesMut::with_capacity(body.len() - width);
            rest.extend_from_slice(&body[..at]);
            rest.extend_from_slice(&body[at + width..]);
            (rest.freeze(), older, body.slice(at..at + width))
        }
        None => (body, layout_version(key, version), Bytes::new()),
    };
    let request = R::decode(&mut rest, layout).map_err(|e| DecodeError(format!("body: {e}")))?;
    Ok((header, request, added))
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
    body.encode(&mut buf, response_layout(api_key, api_version))
        .map_err(|e| DecodeError(format!("encode: {e}")))?;
    let size = (buf.len() - 4) as i32;
    buf[..4].copy_from_slice(&size.to_be_bytes());
    Ok(buf.freeze())
}

/// [`encode_response`] for a version that only adds fixed-width fields to an older one's
/// (`skim::response_added_at`): encoded as the older version, `added` (the new fields' bytes)
/// put in their place.
pub fn encode_response_added<M: Encodable + HeaderVersion>(
    api_key: i16,
    api_version: i16,
    correlation_id: i32,
    body: &M,
    added: &[u8],
) -> Result<Bytes, DecodeError> {
    let Some(older) = skim::response_older(api_key, api_version) else {
        return encode_response(api_key, api_version, correlation_id, body);
    };
    let mut encoded = BytesMut::with_capacity(64);
    body.encode(&mut encoded, older)
        .map_err(|e| DecodeError(format!("encode: {e}")))?;
    let header_version = response_header_version(api_key, api_version);
    let mut buf = BytesMut::with_capacity(encoded.len() + added.len() + 16);
    buf.put_i32(0);
    put_response_header(&mut buf, correlation_id, header_version);
    let at = skim::response_added_at(api_key, api_version, &encoded).ok_or_else(|| {
        DecodeError("encode: the older response has no room for the added".into())
    })?;
    buf.extend_from_slice(&encoded[..at]);
    buf.extend_from_slice(added);
    buf.extend_from_slice(&encoded[at..]);
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

    /// A flexible request frame: header v2 (key, version, correlation 7, client "c", no tags).
    fn frame(key: i16, version: i16, body: &[u8]) -> Bytes {
        let mut f = BytesMut::new();
        f.put_i16(key);
        f.put_i16(version);
        f.put_i32(7);
        f.put_i16(1);
        f.put_u8(b'c');
        f.put_u8(0);
        f.extend_from_slice(body);
        f.freeze()
    }

    #[test]
    fn share_fetch_v2_reads_as_v1_with_its_added_fields() {
        use kafka_protocol::messages::ShareFetchRequest;
        use kafka_protocol::protocol::StrBytes;
        let v1 = ShareFetchRequest::default()
            .with_member_id(Some(StrBytes::from_static_str("m")))
            .with_max_records(5)
            .with_batch_size(3);
        let mut body = BytesMut::new();
        v1.encode(&mut body, 1).expect("encodes");
        // group (null), member "m", then six int32s: v2's two bytes go after them.
        let at = 1 + 2 + 24;
        let v2 = [&body[..at], &[1u8, 0][..], &body[at..]].concat();
        let (header, read, added) =
            decode_request_added::<ShareFetchRequest>(frame(SHARE_FETCH, 2, &v2)).expect("reads");
        assert_eq!(
            (header.request_api_version, read, &added[..]),
            (2, v1.clone(), &[1u8, 0][..])
        );
        let (_, read, added) =
            decode_request_added::<ShareFetchRequest>(frame(SHARE_FETCH, 1, &body)).expect("reads");
        assert_eq!((read, added.len()), (v1, 0));
        // v2 cut inside its added fields is refused.
        assert!(
            decode_request_added::<ShareFetchRequest>(frame(SHARE_FETCH, 2, &v2[..at + 1]))
                .is_err()
        );
    }

    #[test]
    fn responses_that_add_no_field_are_written_in_the_older_layout() {
        use kafka_protocol::messages::{ShareFetchResponse, WriteTxnMarkersResponse};
        let share = ShareFetchResponse::default().with_acquisition_lock_timeout_ms(30_000);
        assert_eq!(
            encode_response(SHARE_FETCH, 2, 9, &share).expect("v2"),
            encode_response(SHARE_FETCH, 1, 9, &share).expect("v1")
        );
        let markers = WriteTxnMarkersResponse::default();
        assert_eq!(
            encode_response(WRITE_TXN_MARKERS, 2, 9, &markers).expect("v2"),
            encode_response(WRITE_TXN_MARKERS, 1, 9, &markers).expect("v1")
        );
    }

    #[test]
    fn share_acknowledge_v2_response_has_the_lock_timeout_after_the_error_message() {
        use kafka_protocol::messages::ShareAcknowledgeResponse;
        use kafka_protocol::protocol::StrBytes;
        let response = ShareAcknowledgeResponse::default()
            .with_throttle_time_ms(3)
            .with_error_message(Some(StrBytes::from_static_str("no")));
        let added = 30_000i32.to_be_bytes();
        let v2 = encode_response_added(SHARE_ACKNOWLEDGE, 2, 9, &response, &added).expect("v2");
        let v1 = encode_response_added(SHARE_ACKNOWLEDGE, 1, 9, &response, &added).expect("v1");
        // size, correlation id, header tags; throttle, error code, "no" (length 2 + 1).
        let at = 4 + 4 + 1 + 4 + 2 + 3;
        assert_eq!(&v2[4..at], &v1[4..at]);
        assert_eq!(&v2[at..at + 4], &added);
        assert_eq!(&v2[at + 4..], &v1[at..]);
        assert_eq!(
            i32::from_be_bytes([v2[0], v2[1], v2[2], v2[3]]) as usize,
            v2.len() - 4
        );
    }
}
