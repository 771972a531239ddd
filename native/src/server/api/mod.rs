//! The natively served APIs, one handler per file behind one dispatch table.

mod fetch;
mod list_offsets;
mod offset_for_leader_epoch;
mod produce;
mod produce_records;
mod share;
mod txn_verify;
mod write_txn_markers;

pub use share::{connection_closed as share_connection_closed, sweep_share_locks};
pub use txn_verify::NATIVE_PEER;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use super::Broker;
use crate::acl::Session;
use crate::protocol::{self, HeaderPeek, Response};
use kafka_protocol::protocol::{Encodable, HeaderVersion};

/// What a handler wants done with the connection.
#[derive(Debug)]
pub enum Reply {
    Send(Response),
    /// A client over its quota: the response goes out at once (carrying the throttle time),
    /// then the connection reads nothing more for that long (KIP-219), so a client that
    /// ignores the throttle time is held to its quota all the same.
    SendThenMute(Response, Duration),
    /// acks=0 produce: no response at all.
    Nothing,
    /// acks=0 produce over its quota: no response, and the connection muted.
    Mute(Duration),
    /// A malformed request (or an acks=0 produce that failed): drop the connection.
    Close,
}

/// The error codes of one response, one per partition (NONE included), for the request
/// metrics and the request log.
#[derive(Debug, Default)]
pub struct Tally(Vec<(i16, u64)>);

impl Tally {
    pub fn add(&mut self, code: i16) {
        match self.0.iter_mut().find(|(c, _)| *c == code) {
            Some((_, n)) => *n += 1,
            None => self.0.push((code, 1)),
        }
    }

    pub fn counts(&self) -> &[(i16, u64)] {
        &self.0
    }
}

impl Reply {
    fn from_encoded(encoded: Result<Bytes, protocol::DecodeError>) -> Reply {
        match encoded {
            Ok(bytes) => Reply::Send(vec![protocol::Chunk::Bytes(bytes)]),
            Err(e) => {
                log::error!("{e}");
                Reply::Close
            }
        }
    }
}

impl Reply {
    /// `response` to the request `peek` describes, at its version, once its partitions' error
    /// `codes` are counted in `tally`.
    fn counted<M: Encodable + HeaderVersion>(
        tally: &mut Tally,
        codes: impl IntoIterator<Item = i16>,
        peek: &HeaderPeek,
        response: &M,
    ) -> Reply {
        Reply::counted_added(tally, codes, peek, response, &[])
    }

    /// [`Reply::counted`] for a version whose response adds fixed-width fields the codec crate
    /// does not know: `added` holds their bytes (`protocol::encode_response_added`).
    fn counted_added<M: Encodable + HeaderVersion>(
        tally: &mut Tally,
        codes: impl IntoIterator<Item = i16>,
        peek: &HeaderPeek,
        response: &M,
        added: &[u8],
    ) -> Reply {
        for code in codes {
            tally.add(code);
        }
        Reply::from_encoded(protocol::encode_response_added(
            peek.api_key,
            peek.api_version,
            peek.correlation_id,
            response,
            added,
        ))
    }
}

/// The throttle time a quota meter answered, as a mute duration (None: not throttled).
pub(super) fn mute_for(throttle_ms: i64) -> Option<Duration> {
    (throttle_ms > 0).then(|| Duration::from_millis(throttle_ms as u64))
}

impl Reply {
    /// This reply, then `throttle_ms` of muting if the client earned any.
    fn muted_for(self, throttle_ms: i64) -> Reply {
        match self {
            Reply::Send(chunks) => Reply::sent_then_muted(chunks, throttle_ms),
            other => other,
        }
    }

    /// The response, then `throttle_ms` of muting if the client earned any.
    fn sent_then_muted(chunks: Vec<protocol::Chunk>, throttle_ms: i64) -> Reply {
        match mute_for(throttle_ms) {
            Some(mute) => Reply::SendThenMute(chunks, mute),
            None => Reply::Send(chunks),
        }
    }
}

/// One request, as every handler takes it.
pub struct Call<'a> {
    pub broker: &'a Arc<Broker>,
    /// The request's header as peeked from `frame` (api key, version, correlation id).
    pub peek: HeaderPeek,
    /// The whole request (header and body), without its size prefix.
    pub frame: Bytes,
    /// Where the response's error codes are counted, one per partition.
    pub tally: &'a mut Tally,
    /// The connection's principal and host, for the authorizer.
    pub session: &'a mut Session,
    /// The listener the request came in through, whose endpoints leader hints name.
    pub listener: &'a str,
    /// The connection's id: share sessions belong to the connection that opened them.
    pub connection_id: u64,
}

impl<'a> Call<'a> {
    /// (broker, peek, frame, tally, session, listener): what a handler works with.
    fn into_parts(self) -> Parts<'a> {
        let c = self;
        (c.broker, c.peek, c.frame, c.tally, c.session, c.listener)
    }
}

type Parts<'a> = (
    &'a Arc<Broker>,
    HeaderPeek,
    Bytes,
    &'a mut Tally,
    &'a mut Session,
    &'a str,
);

pub async fn dispatch(call: Call<'_>) -> Reply {
    match call.peek.api_key {
        protocol::PRODUCE => produce::handle(call).await,
        protocol::FETCH => fetch::handle(call).await,
        protocol::LIST_OFFSETS => list_offsets::handle(call),
        protocol::OFFSET_FOR_LEADER_EPOCH => offset_for_leader_epoch::handle(call),
        protocol::WRITE_TXN_MARKERS => write_txn_markers::handle(call).await,
        protocol::SHARE_FETCH => share::fetch::handle(call).await,
        protocol::SHARE_ACKNOWLEDGE => share::acknowledge::handle(call).await,
        _ => Reply::Close,
    }
}

/// Asks the control plane a Kafka request of the broker's own (from [`NATIVE_PEER`], through
/// no listener) and decodes its answer; None when it closed the request or answered something
/// unreadable.
pub(crate) async fn ask_control<Req, Resp>(
    broker: &Broker,
    api_key: i16,
    version: i16,
    request: &Req,
) -> Option<Resp>
where
    Req: Encodable + HeaderVersion,
    Resp: kafka_protocol::protocol::Decodable + HeaderVersion,
{
    use crate::control::{ControlReply, ControlRequest, SaslPhase};
    use kafka_protocol::messages::{RequestHeader, ResponseHeader};
    use kafka_protocol::protocol::{Decodable, StrBytes};

    let header = RequestHeader::default()
        .with_request_api_key(api_key)
        .with_request_api_version(version)
        .with_client_id(Some(StrBytes::from_static_str(NATIVE_PEER)));
    let mut frame = bytes::BytesMut::new();
    header
        .encode(&mut frame, Req::header_version(version))
        .ok()?;
    request.encode(&mut frame, version).ok()?;
    let mut pending = broker
        .control
        .submit(ControlRequest {
            handle: 0,
            connection_id: 0,
            api_key,
            api_version: version,
            correlation_id: 0,
            peer: NATIVE_PEER.to_string(),
            listener: "".into(),
            principal: crate::tls::principal::ANONYMOUS_PRINCIPAL.into(),
            sasl: SaslPhase::Done,
            token_authenticated: false,
            frame: frame.freeze(),
        })
        .await;
    let ControlReply::Respond(mut body) = pending.wait().await else {
        return None;
    };
    ResponseHeader::decode(&mut body, Resp::header_version(version)).ok()?;
    Resp::decode(&mut body, version).ok()
}
