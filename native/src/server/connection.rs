//! One client connection: framing, routing, and Kafka's one-request-in-flight rule (the
//! channel is muted until the response is written), which keeps responses in request order.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::api::{self, Reply, Tally};
use super::request_log::{self, Requester};
use super::transport::Transport;
use super::{stopped, Broker};
use crate::acl::Session;
use crate::control::{ControlReply, ControlRequest};
use crate::protocol::{peek_header, route, Route};

/// Who is at the other end of a connection, for the control plane.
#[derive(Debug, Clone)]
pub struct Peer {
    pub address: SocketAddr,
    /// The listener the connection came in through.
    pub listener: Arc<str>,
    /// Kafka's principal: `User:ANONYMOUS`, or from the client certificate under TLS.
    pub principal: Arc<str>,
}

/// Serves the connection until the peer leaves, a request is malformed, the idle timeout
/// passes, or the broker shuts down.
pub async fn serve<S: Transport>(broker: &Arc<Broker>, mut stream: S, who: Peer, id: u64) {
    let mut shutdown = broker.shutdown.subscribe();
    if *shutdown.borrow() {
        return;
    }
    let peer = who.address.to_string();
    // The principal's cached ACL decisions, for the natively served APIs.
    let mut session = Session::new(Arc::clone(&who.principal), who.address.ip().to_string());
    // Clients name themselves once per connection; read only for the request log.
    let mut client_id: Option<String> = None;
    loop {
        let frame = tokio::select! {
            _ = stopped(&mut shutdown) => return,
            frame = read_frame(&mut stream, broker) => frame,
        };
        let Some(frame) = frame else { return };
        let Some(peek) = peek_header(&frame) else {
            return;
        };
        if client_id.is_none() {
            client_id = request_log::client_id(&frame).map(str::to_owned);
        }
        let requester = Requester {
            api_key: peek.api_key,
            api_version: peek.api_version,
            client_id: client_id.as_deref(),
            peer: &peer,
        };
        let next = tokio::select! {
            _ = stopped(&mut shutdown) => return,
            next = handle(broker, &mut stream, requester, &who, &mut session, id, frame) => next,
        };
        if let Next::Mute(throttle) = next {
            // Not reading is what mutes: the client's next request waits in the socket.
            tokio::select! {
                _ = stopped(&mut shutdown) => return,
                () = tokio::time::sleep(throttle) => {}
            }
        }
        if let Next::Close = next {
            log::debug!(
                "closing {peer} after api {} v{}",
                peek.api_key,
                peek.api_version
            );
            return;
        }
    }
}

/// Reads one size-prefixed frame; None closes the connection (EOF, idle, or a bad size).
async fn read_frame<S: Transport>(stream: &mut S, broker: &Broker) -> Option<Bytes> {
    let idle = broker.config.idle_timeout;
    let size = match tokio::time::timeout(idle, stream.read_i32()).await {
        Ok(Ok(size)) => size,
        _ => return None,
    };
    // Smaller than api key + version + correlation id cannot be a request.
    if !(8..=broker.config.max_request_bytes).contains(&size) {
        return None;
    }
    match tokio::time::timeout(idle, read_body(stream, size as usize)).await {
        Ok(Ok(buf)) => Some(buf.freeze()),
        _ => None,
    }
}

/// Up-front allocation for a frame body; larger frames grow as their bytes actually arrive.
const INITIAL_FRAME_ALLOCATION: usize = 1 << 20;

/// Reads exactly `size` bytes. Memory follows the bytes received rather than the size the
/// peer claims, so connections announcing 100 MB frames and sending nothing cost little.
async fn read_body<S: Transport>(stream: &mut S, size: usize) -> std::io::Result<BytesMut> {
    let mut buf = BytesMut::with_capacity(size.min(INITIAL_FRAME_ALLOCATION));
    while buf.len() < size {
        if buf.len() == buf.capacity() {
            buf.reserve((size - buf.len()).min(buf.len()));
        }
        let want = size - buf.len();
        if stream.read_buf(&mut (&mut buf).limit(want)).await? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
    }
    Ok(buf)
}

/// What the connection does after a request.
enum Next {
    Read,
    /// Reads nothing for this long (a client over its quota), then goes on.
    Mute(Duration),
    Close,
}

impl From<bool> for Next {
    fn from(keep_going: bool) -> Next {
        if keep_going {
            Next::Read
        } else {
            Next::Close
        }
    }
}

/// Handles one request.
async fn handle<S: Transport>(
    broker: &Arc<Broker>,
    stream: &mut S,
    who: Requester<'_>,
    conn: &Peer,
    session: &mut Session,
    id: u64,
    frame: Bytes,
) -> Next {
    let Some(peek) = peek_header(&frame) else {
        return Next::Close;
    };
    let idle = broker.config.idle_timeout;
    let started = Instant::now();
    let answered = |ok: bool| {
        if ok {
            broker.requests.record(peek.api_key, started.elapsed());
        }
        ok
    };
    match route(peek.api_key, peek.api_version) {
        Route::Unsupported => {
            broker
                .request_log
                .refused(who, "unknown API key or unsupported version");
            Next::Close
        }
        Route::Native => {
            let mut tally = Tally::default();
            let reply = api::dispatch(broker, peek, frame, &mut tally, session).await;
            broker.requests.errors(peek.api_key, tally.counts());
            broker.request_log.failed(who, tally.counts());
            match reply {
                Reply::Send(chunks) => {
                    answered(written(idle, stream.write_chunks(&chunks)).await).into()
                }
                Reply::SendThenMute(chunks, throttle) => {
                    if answered(written(idle, stream.write_chunks(&chunks)).await) {
                        Next::Mute(throttle)
                    } else {
                        Next::Close
                    }
                }
                Reply::Nothing => answered(true).into(),
                Reply::Mute(throttle) => {
                    answered(true);
                    Next::Mute(throttle)
                }
                Reply::Close => {
                    broker
                        .request_log
                        .refused(who, "malformed request, or an acks=0 produce that failed");
                    Next::Close
                }
            }
        }
        Route::Control => {
            let request = ControlRequest {
                handle: 0,
                connection_id: id,
                api_key: peek.api_key,
                api_version: peek.api_version,
                correlation_id: peek.correlation_id,
                peer: who.peer.to_string(),
                listener: Arc::clone(&conn.listener),
                principal: Arc::clone(&conn.principal),
                frame,
            };
            let mut pending = broker.control.submit(request).await;
            let (body, throttle) = match pending.wait().await {
                ControlReply::Respond(body) => (body, None),
                ControlReply::RespondThenMute(body, throttle) => (body, Some(throttle)),
                ControlReply::Close => return Next::Close,
            };
            let mut out = BytesMut::with_capacity(4 + body.len());
            out.put_i32(body.len() as i32);
            out.put_slice(&body);
            match (
                answered(written(idle, write_flushed(stream, &out)).await),
                throttle,
            ) {
                (false, _) => Next::Close,
                (true, Some(throttle)) => Next::Mute(throttle),
                (true, None) => Next::Read,
            }
        }
    }
}

/// Whether a response write completed; a peer that stops reading for the idle timeout loses
/// its connection rather than pinning the task forever.
async fn written<F>(idle: std::time::Duration, write: F) -> bool
where
    F: std::future::Future<Output = std::io::Result<()>>,
{
    matches!(tokio::time::timeout(idle, write).await, Ok(Ok(())))
}

/// Writes a whole buffer and flushes it: a no-op for TCP, the end of the TLS record for TLS.
async fn write_flushed<S: Transport>(stream: &mut S, bytes: &[u8]) -> std::io::Result<()> {
    stream.write_all(bytes).await?;
    stream.flush().await
}
