//! A connection to a leader broker, speaking the Kafka protocol as any client would: one
//! request in flight, size-prefixed frames, requests and responses through `kafka-protocol`.

use std::io;
use std::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use kafka_protocol::messages::{ApiKey, RequestHeader, ResponseHeader};
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, StrBytes};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Larger responses are refused as garbage rather than allocated.
const MAX_RESPONSE_BYTES: usize = 1 << 30;

pub struct LeaderConnection {
    stream: TcpStream,
    client_id: StrBytes,
    next_correlation: i32,
    timeout: Duration,
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

impl LeaderConnection {
    pub async fn connect(
        host: &str,
        port: u16,
        client_id: String,
        timeout: Duration,
    ) -> io::Result<LeaderConnection> {
        let stream = tokio::time::timeout(timeout, TcpStream::connect((host, port)))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connect timed out"))??;
        stream.set_nodelay(true)?;
        Ok(LeaderConnection {
            stream,
            client_id: StrBytes::from_string(client_id),
            next_correlation: 0,
            timeout,
        })
    }

    /// Sends `request` and waits for its response; `timeout` bounds the whole exchange on top
    /// of whatever the request itself may wait on the leader (`extra`).
    pub async fn call<Req, Resp>(
        &mut self,
        key: ApiKey,
        version: i16,
        request: &Req,
        extra: Duration,
    ) -> io::Result<Resp>
    where
        Req: Encodable + HeaderVersion,
        Resp: Decodable + HeaderVersion,
    {
        let correlation_id = self.next_correlation;
        self.next_correlation = self.next_correlation.wrapping_add(1);
        let header = RequestHeader::default()
            .with_request_api_key(key as i16)
            .with_request_api_version(version)
            .with_correlation_id(correlation_id)
            .with_client_id(Some(self.client_id.clone()));
        let mut buf = BytesMut::with_capacity(256);
        buf.put_i32(0);
        header
            .encode(&mut buf, Req::header_version(version))
            .map_err(|e| invalid(format!("encode header: {e}")))?;
        request
            .encode(&mut buf, version)
            .map_err(|e| invalid(format!("encode {key:?}: {e}")))?;
        let size = (buf.len() - 4) as i32;
        buf[..4].copy_from_slice(&size.to_be_bytes());
        let limit = self.timeout + extra;
        let exchange = async {
            self.stream.write_all(&buf).await?;
            self.read_frame().await
        };
        let mut frame = tokio::time::timeout(limit, exchange)
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "leader did not answer"))??;
        let header = ResponseHeader::decode(&mut frame, Resp::header_version(version))
            .map_err(|e| invalid(format!("response header: {e}")))?;
        if header.correlation_id != correlation_id {
            return Err(invalid(format!(
                "correlation id {} for request {correlation_id}",
                header.correlation_id
            )));
        }
        let response =
            Resp::decode(&mut frame, version).map_err(|e| invalid(format!("{key:?}: {e}")))?;
        if frame.has_remaining() {
            return Err(invalid(format!("{key:?}: trailing bytes")));
        }
        Ok(response)
    }

    async fn read_frame(&mut self) -> io::Result<Bytes> {
        let size = self.stream.read_i32().await?;
        let size = usize::try_from(size)
            .ok()
            .filter(|s| *s >= 4 && *s <= MAX_RESPONSE_BYTES)
            .ok_or_else(|| invalid(format!("response size {size}")))?;
        let mut body = vec![0u8; size];
        self.stream.read_exact(&mut body).await?;
        Ok(Bytes::from(body))
    }
}
