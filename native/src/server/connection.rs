//! One client connection: framing, routing, and Kafka's one-request-in-flight rule (the
//! channel is muted until the response is written), which keeps responses in request order.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::messages::ApiKey;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::api::{self, Reply, Tally};
use super::request_log::{self, Requester};
use super::request_memory::Grant;
use super::transport::Transport;
use super::{stopped, Broker};
use crate::acl;
use crate::control::{ControlReply, ControlRequest, SaslPhase, SaslStep};
use crate::protocol::{peek_header, route, HeaderPeek, Route};

/// Who is at the other end of a connection, for the control plane.
#[derive(Debug, Clone)]
pub struct Peer {
    pub address: SocketAddr,
    /// The listener the connection came in through.
    pub listener: Arc<str>,
    /// Kafka's principal: `User:ANONYMOUS`, or from the client certificate under TLS.
    pub principal: Arc<str>,
    /// Authenticated with a delegation token (SASL/SCRAM with `tokenauth`).
    pub token_authenticated: bool,
}

/// Serves the connection until the peer leaves, a request is malformed, the idle timeout
/// passes, or the broker shuts down. On a SASL listener (`sasl`) nothing but ApiVersions and
/// the SASL exchange is served until the client has authenticated.
pub async fn serve<S: Transport>(
    broker: &Arc<Broker>,
    mut stream: S,
    who: Peer,
    id: u64,
    sasl: bool,
) {
    let mut shutdown = broker.shutdown.subscribe();
    if *shutdown.borrow() {
        return;
    }
    let peer = who.address.to_string();
    let mut session = Session {
        // The principal's cached ACL decisions, for the natively served APIs.
        acl: acl::Session::new(Arc::clone(&who.principal), who.address.ip().to_string()),
        who,
        id,
        phase: if sasl {
            SaslPhase::Handshake
        } else {
            SaslPhase::Done
        },
        expires: None,
    };
    // Clients name themselves once per connection; read only for the request log.
    let mut client_id: Option<String> = None;
    loop {
        // Until authenticated, frames are held to Kafka's smaller SASL limit, and a bare
        // token may be shorter than any request header.
        let (min, max) = match session.phase {
            SaslPhase::Done => (8, broker.config.max_request_bytes),
            SaslPhase::Handshake => (8, broker.config.sasl_max_receive_bytes),
            SaslPhase::Token => (0, broker.config.sasl_max_receive_bytes),
        };
        let frame = tokio::select! {
            _ = stopped(&mut shutdown) => return,
            frame = read_frame(&mut stream, broker, min, max) => frame,
        };
        let Some((frame, memory)) = frame else { return };
        let peek = if session.phase == SaslPhase::Token {
            // A bare token answers the SaslHandshake v0 before it: a SaslAuthenticate in all
            // but its framing.
            HeaderPeek {
                api_key: SASL_AUTHENTICATE,
                api_version: 0,
                correlation_id: 0,
            }
        } else {
            let Some(peek) = peek_header(&frame) else {
                return;
            };
            if client_id.is_none() {
                client_id = request_log::client_id(&frame).map(str::to_owned);
            }
            peek
        };
        let requester = Requester::new(peek.api_key, peek.api_version, client_id.as_deref(), &peer);
        if session.phase == SaslPhase::Handshake
            && ![API_VERSIONS, SASL_HANDSHAKE, SASL_AUTHENTICATE].contains(&peek.api_key)
        {
            // Kafka's IllegalSaslStateException: the connection closes, nothing is served.
            broker
                .request_log
                .refused(requester, "request before SASL authentication");
            return;
        }
        if session
            .expires
            .is_some_and(|at| tokio::time::Instant::now() >= at)
        {
            broker
                .request_log
                .refused(requester, "SASL session expired");
            return;
        }
        let next = tokio::select! {
            _ = stopped(&mut shutdown) => return,
            next = handle(broker, &mut stream, requester, &mut session, peek, (frame, memory)) => next,
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

/// What a connection knows of itself across requests.
struct Session {
    who: Peer,
    id: u64,
    phase: SaslPhase,
    acl: acl::Session,
    /// When an authentication with an expiring credential (a delegation token) ends: the
    /// first request after it closes the connection, as Kafka's SocketServer does (ferrolog
    /// has no re-authentication, so the client connects and authenticates again).
    expires: Option<tokio::time::Instant>,
}

const API_VERSIONS: i16 = ApiKey::ApiVersions as i16;
const SASL_HANDSHAKE: i16 = ApiKey::SaslHandshake as i16;
const SASL_AUTHENTICATE: i16 = ApiKey::SaslAuthenticate as i16;

/// Reads one size-prefixed frame, its body once the request memory has room for it; None
/// closes the connection (EOF, idle, or a bad size). `min` is 8 for a request (api key,
/// version and correlation id at least), 0 for a bare SASL token.
async fn read_frame<S: Transport>(
    stream: &mut S,
    broker: &Broker,
    min: i32,
    max: i32,
) -> Option<(Bytes, Grant)> {
    let idle = broker.config.idle_timeout;
    let size = match tokio::time::timeout(idle, stream.read_i32()).await {
        Ok(Ok(size)) => size,
        _ => return None,
    };
    if !(min..=max).contains(&size) {
        return None;
    }
    // Not bounded by the idle timeout: waiting for memory is the broker's doing.
    let memory = broker.request_memory.take(size as usize).await;
    if size == 0 {
        return Some((Bytes::new(), memory));
    }
    match tokio::time::timeout(idle, read_body(stream, size as usize)).await {
        Ok(Ok(buf)) => Some((buf.freeze(), memory)),
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
    session: &mut Session,
    peek: HeaderPeek,
    (frame, memory): (Bytes, Grant),
) -> Next {
    let idle = broker.config.idle_timeout;
    let started = Instant::now();
    let answered = |ok: bool| {
        if ok {
            broker.requests.record(peek.api_key, started.elapsed());
        }
        ok
    };
    let route = if session.phase == SaslPhase::Token {
        Route::Control
    } else {
        route(peek.api_key, peek.api_version)
    };
    match route {
        Route::Unsupported => {
            broker
                .request_log
                .refused(who, "unknown API key or unsupported version");
            Next::Close
        }
        Route::Native => {
            let mut tally = Tally::default();
            let listener = &session.who.listener;
            let call = api::Call {
                broker,
                peek,
                frame,
                tally: &mut tally,
                session: &mut session.acl,
                listener,
                connection_id: session.id,
            };
            let reply = api::dispatch(call).await;
            // Handled: a produce's records are in the log now.
            drop(memory);
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
            // The control plane decodes the request at once: Kafka releases every request but
            // Produce's once it is parsed.
            drop(memory);
            let request = ControlRequest {
                handle: 0,
                connection_id: session.id,
                api_key: peek.api_key,
                api_version: peek.api_version,
                correlation_id: peek.correlation_id,
                peer: who.peer.to_string(),
                listener: Arc::clone(&session.who.listener),
                principal: Arc::clone(&session.who.principal),
                sasl: session.phase,
                token_authenticated: session.who.token_authenticated,
                frame,
            };
            let mut pending = broker.control.submit(request).await;
            let (body, throttle) = match pending.wait().await {
                ControlReply::Respond(body) => (body, None),
                ControlReply::RespondThenMute(body, throttle) => (body, Some(throttle)),
                ControlReply::Sasl(body, step) => {
                    let mut out = BytesMut::with_capacity(4 + body.len());
                    out.put_i32(body.len() as i32);
                    out.put_slice(&body);
                    if !answered(written(idle, write_flushed(stream, &out)).await) {
                        return Next::Close;
                    }
                    if step == SaslStep::Failed {
                        // Kafka's connection.failed.authentication.delay.ms: a client that
                        // reconnects at once cannot make the broker spin on its failures.
                        tokio::time::sleep(broker.config.failed_authentication_delay).await;
                    }
                    return session.advance(step);
                }
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

impl Session {
    /// Moves the SASL exchange on once its response is out.
    fn advance(&mut self, step: SaslStep) -> Next {
        match step {
            SaslStep::Continue => Next::Read,
            SaslStep::ExpectTokens => {
                self.phase = SaslPhase::Token;
                Next::Read
            }
            SaslStep::Authenticated {
                principal,
                by_token,
                lifetime,
            } => {
                self.expires = lifetime.map(|l| tokio::time::Instant::now() + l);
                let host = self.who.address.ip().to_string();
                self.acl = acl::Session::new(Arc::clone(&principal), host);
                self.who.principal = principal;
                self.who.token_authenticated = by_token;
                self.phase = SaslPhase::Done;
                Next::Read
            }
            SaslStep::Failed => Next::Close,
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
