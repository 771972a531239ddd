use std::sync::Arc;

use bytes::Bytes;

use super::Reply;
use crate::protocol::HeaderPeek;
use crate::server::Broker;

pub fn handle(broker: &Arc<Broker>, peek: HeaderPeek, frame: Bytes) -> Reply {
    let _ = (broker, peek, frame);
    Reply::Close
}
