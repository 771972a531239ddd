//! The bridge to the Python control plane: every request the native core does not serve is
//! queued here as a raw frame; Python drains the queue when an eventfd wakes its event loop,
//! and answers each request by its handle.
//!
//! The queue is bounded (`queued.max.requests`): when Python falls behind, connections wait to
//! enqueue (backpressure), nothing is dropped. A connection that goes away while its request is
//! pending removes its handle (see [`PendingReply`]), so a late `respond` is a no-op.

mod eventfd;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use parking_lot::Mutex;
use tokio::sync::{mpsc, oneshot};

pub use eventfd::EventFd;

/// One request for Python, as it arrived.
#[derive(Debug, Clone)]
pub struct ControlRequest {
    pub handle: u64,
    pub connection_id: u64,
    pub api_key: i16,
    pub api_version: i16,
    pub correlation_id: i32,
    pub peer: String,
    /// The listener the request came in through (Metadata answers with its endpoints).
    pub listener: Arc<str>,
    /// The connection's principal (`User:ANONYMOUS`, or a client certificate's).
    pub principal: Arc<str>,
    /// Where the connection is in its SASL authentication.
    pub sasl: SaslPhase,
    /// Authenticated with a delegation token (Kafka's `KafkaPrincipal.tokenAuthenticated`):
    /// such a connection may not ask for delegation tokens itself.
    pub token_authenticated: bool,
    /// Header and body, without the size prefix; a bare SASL token in [`SaslPhase::Token`].
    pub frame: Bytes,
}

/// Where a connection stands in SASL authentication (the states of Kafka's
/// `SaslServerAuthenticator` that the control plane needs to tell apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaslPhase {
    /// Authenticated, or a listener without SASL: a SaslHandshake now is out of place.
    Done,
    /// Not yet authenticated: ApiVersions, SaslHandshake and SaslAuthenticate only.
    Handshake,
    /// After a SaslHandshake v0: the frame is a bare SASL token, without a request header,
    /// and so is the answer.
    Token,
}

/// What a connection does once a SASL response is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaslStep {
    /// More tokens to exchange, in the same phase.
    Continue,
    /// The client will send bare tokens next (SaslHandshake v0).
    ExpectTokens,
    /// Authenticated as this principal (with a delegation token: `by_token`): every request
    /// is served from now on, for `lifetime` when the credential expires (a token's).
    Authenticated {
        principal: Arc<str>,
        by_token: bool,
        lifetime: Option<Duration>,
    },
    /// Refused: the connection closes after the response (Kafka's answer to a failed
    /// authentication).
    Failed,
}

/// Python's answer to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlReply {
    /// Response header + body, without the size prefix.
    Respond(Bytes),
    /// A response whose client went over its request quota: sent, then the connection reads
    /// nothing for the throttle time (KIP-219).
    RespondThenMute(Bytes, Duration),
    /// The answer to a SASL request (or bare token) and what the connection does next.
    Sasl(Bytes, SaslStep),
    Close,
}

#[derive(Debug)]
pub struct ControlBridge {
    tx: mpsc::Sender<ControlRequest>,
    rx: Mutex<mpsc::Receiver<ControlRequest>>,
    pending: Mutex<HashMap<u64, oneshot::Sender<ControlReply>>>,
    next_handle: AtomicU64,
    wakeup: EventFd,
    /// True while Python may be asleep on the eventfd: the next enqueue must signal it. Lets
    /// a burst of requests cost one eventfd write instead of one each.
    armed: AtomicBool,
}

/// The connection's side of a queued request; dropping it (connection gone) forgets the
/// handle.
#[derive(Debug)]
pub struct PendingReply {
    bridge: Arc<ControlBridge>,
    handle: u64,
    rx: oneshot::Receiver<ControlReply>,
}

impl PendingReply {
    /// Waits for Python's reply; a closed bridge (shutdown) answers Close.
    pub async fn wait(&mut self) -> ControlReply {
        (&mut self.rx).await.unwrap_or(ControlReply::Close)
    }
}

impl Drop for PendingReply {
    fn drop(&mut self) {
        self.bridge.pending.lock().remove(&self.handle);
    }
}

impl ControlBridge {
    pub fn new(capacity: usize) -> std::io::Result<Arc<ControlBridge>> {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        Ok(Arc::new(ControlBridge {
            tx,
            rx: Mutex::new(rx),
            pending: Mutex::new(HashMap::new()),
            next_handle: AtomicU64::new(1),
            wakeup: EventFd::new()?,
            armed: AtomicBool::new(true),
        }))
    }

    pub fn wakeup_fd(&self) -> i32 {
        self.wakeup.raw_fd()
    }

    /// Queues a request (waiting while the queue is full) and returns the reply to wait on.
    /// `request.handle` is assigned here.
    pub async fn submit(self: &Arc<Self>, mut request: ControlRequest) -> PendingReply {
        let handle = self.next_handle.fetch_add(1, Ordering::Relaxed);
        request.handle = handle;
        let (reply_tx, reply_rx) = oneshot::channel();
        self.pending.lock().insert(handle, reply_tx);
        let pending = PendingReply {
            bridge: Arc::clone(self),
            handle,
            rx: reply_rx,
        };
        if self.tx.send(request).await.is_ok() && self.armed.swap(false, Ordering::AcqRel) {
            self.wakeup.signal();
        }
        pending
    }

    /// Drains up to `max` requests without blocking. An empty result clears the eventfd; the
    /// queue is checked once more after re-arming so a request racing with it is not missed.
    pub fn take_requests(&self, max: usize) -> Vec<ControlRequest> {
        let mut rx = self.rx.lock();
        let mut out = Vec::new();
        while out.len() < max {
            match rx.try_recv() {
                Ok(r) => out.push(r),
                Err(_) => break,
            }
        }
        if out.is_empty() {
            self.wakeup.clear();
            self.armed.store(true, Ordering::Release);
            if let Ok(r) = rx.try_recv() {
                out.push(r);
            }
        }
        out
    }

    /// Completes a request; a handle that is gone (answered, or its connection closed) is
    /// ignored.
    pub fn reply(&self, handle: u64, reply: ControlReply) {
        if let Some(tx) = self.pending.lock().remove(&handle) {
            let _ = tx.send(reply);
        }
    }

    /// Requests still waiting for an answer (for tests and metrics).
    pub fn pending_count(&self) -> usize {
        self.pending.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> ControlRequest {
        ControlRequest {
            handle: 0,
            connection_id: 1,
            api_key: 3,
            api_version: 12,
            correlation_id: 9,
            peer: "127.0.0.1:1".into(),
            listener: "PLAINTEXT".into(),
            principal: "User:ANONYMOUS".into(),
            sasl: SaslPhase::Done,
            token_authenticated: false,
            frame: Bytes::from_static(b"frame"),
        }
    }

    #[tokio::test]
    async fn submit_take_respond() {
        let bridge = ControlBridge::new(4).expect("eventfd");
        let mut pending = bridge.submit(request()).await;
        assert!(bridge.wakeup.is_readable());
        let taken = bridge.take_requests(10);
        assert_eq!(taken.len(), 1);
        assert_eq!(&taken[0].frame[..], b"frame");
        assert!(bridge.take_requests(10).is_empty());
        assert!(!bridge.wakeup.is_readable());
        bridge.reply(
            taken[0].handle,
            ControlReply::Respond(Bytes::from_static(b"ok")),
        );
        assert_eq!(
            pending.wait().await,
            ControlReply::Respond(Bytes::from_static(b"ok"))
        );
        // a second answer to the same handle is a no-op
        bridge.reply(taken[0].handle, ControlReply::Close);
    }

    #[tokio::test]
    async fn dropped_connection_forgets_its_handle() {
        let bridge = ControlBridge::new(4).expect("eventfd");
        let pending = bridge.submit(request()).await;
        assert_eq!(bridge.pending_count(), 1);
        drop(pending);
        assert_eq!(bridge.pending_count(), 0);
        let taken = bridge.take_requests(10);
        bridge.reply(taken[0].handle, ControlReply::Close);
    }

    #[tokio::test]
    async fn full_queue_waits_instead_of_dropping() {
        let bridge = ControlBridge::new(1).expect("eventfd");
        let _first = bridge.submit(request()).await;
        let b2 = Arc::clone(&bridge);
        let second = tokio::spawn(async move { b2.submit(request()).await });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(!second.is_finished());
        assert_eq!(bridge.take_requests(1).len(), 1);
        let _second = second.await.expect("task");
        assert_eq!(bridge.take_requests(10).len(), 1);
    }
}
