//! A connection to another broker over the inter-broker listener, speaking the Kafka protocol
//! as any client would: TLS and SASL first when the listener has them, then one request in
//! flight, size-prefixed frames, requests and responses through `kafka-protocol`.

use std::io;
use std::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use kafka_protocol::messages::{ApiKey, RequestHeader, ResponseHeader};
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, StrBytes};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::TlsConnector;

use super::{sasl, InterBrokerSecurity};

/// Larger responses are refused as garbage rather than allocated.
const MAX_RESPONSE_BYTES: usize = 1 << 30;

/// The byte stream under a connection: TCP, or TLS over TCP. Boxed: a dynamic call per read
/// or write is nothing next to the fetch it carries, and it keeps the fetcher free of a type
/// parameter.
trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

pub struct BrokerConnection {
    stream: Box<dyn Stream>,
    client_id: StrBytes,
    next_correlation: i32,
    timeout: Duration,
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

impl BrokerConnection {
    /// Connects to `host:port` with the inter-broker listener's `security`: the TLS handshake
    /// and the SASL exchange are done when this returns. `timeout` bounds each step.
    pub async fn connect(
        host: &str,
        port: u16,
        client_id: String,
        timeout: Duration,
        security: &InterBrokerSecurity,
    ) -> io::Result<BrokerConnection> {
        let timed_out = |what: &str| io::Error::new(io::ErrorKind::TimedOut, what.to_string());
        let tcp = tokio::time::timeout(timeout, TcpStream::connect((host, port)))
            .await
            .map_err(|_| timed_out("connect timed out"))??;
        tcp.set_nodelay(true)?;
        let stream: Box<dyn Stream> = match security.tls()? {
            None => Box::new(tcp),
            Some(config) => {
                let name = ServerName::try_from(host.to_string()).map_err(|e| {
                    io::Error::new(io::ErrorKind::InvalidInput, format!("host {host}: {e}"))
                })?;
                let handshake = TlsConnector::from(config).connect(name, tcp);
                let tls = tokio::time::timeout(timeout, handshake)
                    .await
                    .map_err(|_| timed_out("TLS handshake timed out"))?
                    .map_err(|e| io::Error::new(e.kind(), format!("TLS handshake: {e}")))?;
                Box::new(tls)
            }
        };
        let mut conn = BrokerConnection {
            stream,
            client_id: StrBytes::from_string(client_id),
            next_correlation: 0,
            timeout,
        };
        if let Some(credentials) = security.sasl()? {
            sasl::authenticate(&mut conn, credentials).await?;
        }
        Ok(conn)
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
            // TLS holds records back until flushed; a no-op on TCP.
            self.stream.flush().await?;
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
