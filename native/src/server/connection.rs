//! One client connection: framing, routing, and Kafka's one-request-in-flight rule (the
//! channel is muted until the response is written), which keeps responses in request order.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::api::{self, Reply};
use super::{sendfile, stopped, Broker};
use crate::control::{ControlReply, ControlRequest};
use crate::protocol::{peek_header, route, Route};

/// Serves the connection until the peer leaves, a request is malformed, the idle timeout
/// passes, or the broker shuts down.
pub async fn serve(broker: &Arc<Broker>, mut stream: TcpStream, peer: SocketAddr, id: u64) {
    let _ = stream.set_nodelay(true);
    let mut shutdown = broker.shutdown.subscribe();
    if *shutdown.borrow() {
        return;
    }
    let peer = peer.to_string();
    loop {
        let frame = tokio::select! {
            _ = stopped(&mut shutdown) => return,
            frame = read_frame(&mut stream, broker) => frame,
        };
        let Some(frame) = frame else { return };
        let Some(peek) = peek_header(&frame) else {
            return;
        };
        let next = tokio::select! {
            _ = stopped(&mut shutdown) => return,
            next = handle(broker, &mut stream, &peer, id, frame) => next,
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
async fn read_frame(stream: &mut TcpStream, broker: &Broker) -> Option<Bytes> {
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
async fn read_body(stream: &mut TcpStream, size: usize) -> std::io::Result<BytesMut> {
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
async fn handle(
    broker: &Arc<Broker>,
    stream: &mut TcpStream,
    peer: &str,
    id: u64,
    frame: Bytes,
) -> Next {
    let Some(peek) = peek_header(&frame) else {
        return Next::Close;
    };
    let idle = broker.config.idle_timeout;
    match route(peek.api_key, peek.api_version) {
        Route::Unsupported => Next::Close,
        Route::Native => match api::dispatch(broker, peek, frame).await {
            Reply::Send(chunks) => written(idle, sendfile::write_chunks(stream, &chunks))
                .await
                .into(),
            Reply::SendThenMute(chunks, throttle) => {
                if written(idle, sendfile::write_chunks(stream, &chunks)).await {
                    Next::Mute(throttle)
                } else {
                    Next::Close
                }
            }
            Reply::Nothing => Next::Read,
            Reply::Mute(throttle) => Next::Mute(throttle),
            Reply::Close => Next::Close,
        },
        Route::Control => {
            let request = ControlRequest {
                handle: 0,
                connection_id: id,
                api_key: peek.api_key,
                api_version: peek.api_version,
                correlation_id: peek.correlation_id,
                peer: peer.to_string(),
                frame,
            };
            let mut pending = broker.control.submit(request).await;
            match pending.wait().await {
                ControlReply::Respond(body) => {
                    let mut out = BytesMut::with_capacity(4 + body.len());
                    out.put_i32(body.len() as i32);
                    out.put_slice(&body);
                    written(idle, stream.write_all(&out)).await.into()
                }
                ControlReply::Close => Next::Close,
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
