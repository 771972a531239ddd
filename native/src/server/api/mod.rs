//! The natively served APIs, one handler per file behind one dispatch table.

mod fetch;
mod list_offsets;
mod offset_for_leader_epoch;
mod produce;
mod produce_records;
mod txn_verify;
mod write_txn_markers;

pub use txn_verify::NATIVE_PEER;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use super::Broker;
use crate::acl::Session;
use crate::protocol::{self, HeaderPeek, Response};

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

/// The throttle time a quota meter answered, as a mute duration (None: not throttled).
pub(super) fn mute_for(throttle_ms: i64) -> Option<Duration> {
    (throttle_ms > 0).then(|| Duration::from_millis(throttle_ms as u64))
}

impl Reply {
    /// The response, then `throttle_ms` of muting if the client earned any.
    fn sent_then_muted(chunks: Vec<protocol::Chunk>, throttle_ms: i64) -> Reply {
        match mute_for(throttle_ms) {
            Some(mute) => Reply::SendThenMute(chunks, mute),
            None => Reply::Send(chunks),
        }
    }
}

/// `listener`: the one the request came in through, whose endpoints leader hints name.
pub async fn dispatch(
    broker: &Arc<Broker>,
    peek: HeaderPeek,
    frame: Bytes,
    tally: &mut Tally,
    session: &mut Session,
    listener: &str,
) -> Reply {
    match peek.api_key {
        protocol::PRODUCE => produce::handle(broker, peek, frame, tally, session, listener).await,
        protocol::FETCH => fetch::handle(broker, peek, frame, tally, session, listener).await,
        protocol::LIST_OFFSETS => list_offsets::handle(broker, peek, frame, tally, session),
        protocol::OFFSET_FOR_LEADER_EPOCH => {
            offset_for_leader_epoch::handle(broker, peek, frame, tally, session)
        }
        protocol::WRITE_TXN_MARKERS => {
            write_txn_markers::handle(broker, peek, frame, tally, session).await
        }
        _ => Reply::Close,
    }
}
