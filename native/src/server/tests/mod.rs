//! End-to-end tests of the server through its public surface: a real listener on a temp dir,
//! requests built with kafka-protocol and `BatchBuilder`, responses decoded the same way.

mod cluster;
mod concurrency;
mod control_bridge;
mod fetch_sessions;
mod framing;
mod mutations;
mod offsets;
mod produce_fetch;
mod replication;
mod replication_cluster;
mod replication_faults;
mod replication_isr;
mod replication_sessions;
mod replication_truncation;
mod transactions;
mod txn_verification;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use kafka_protocol::messages::{ApiKey, RequestHeader};
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, StrBytes};

use super::Server;
use crate::properties::{self, table::server, table::topic};
use crate::record::builder::{BatchBuilder, Record};
use crate::record::compression::Codec;

pub(super) const TOPIC: &str = "events";

pub(super) struct TestBroker {
    pub server: Server,
    _dir: tempfile::TempDir,
}

impl TestBroker {
    /// A started server with `events-0` led by this node at epoch 1.
    pub fn start(extra: &[(&str, &str)]) -> TestBroker {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut config = properties::with_defaults(
            server::ALL,
            &[
                ("node.id", "1"),
                ("listeners", "PLAINTEXT://127.0.0.1:0"),
                ("log.dirs", dir.path().to_str().expect("utf-8 path")),
            ],
        );
        for (k, v) in extra {
            config.insert(k.to_string(), v.to_string());
        }
        let server = Server::new(&config).expect("server");
        server.start().expect("start");
        let broker = TestBroker { server, _dir: dir };
        broker.add_partition(TOPIC, 0, &[]);
        broker
    }

    pub fn add_partition(&self, topic: &str, partition: i32, config: &[(&str, &str)]) {
        let config = properties::with_defaults(topic::ALL, config);
        self.server
            .open_partition(topic, partition, [7; 16], &config)
            .expect("open");
        self.server
            .become_leader(topic, partition, 1, vec![1], vec![1])
            .expect("lead");
    }

    pub fn connect(&self) -> Client {
        let port = self.server.port().expect("started");
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        Client {
            stream,
            next_correlation: 1,
        }
    }
}

pub(super) struct Client {
    pub stream: TcpStream,
    next_correlation: i32,
}

impl Client {
    pub fn new(stream: TcpStream) -> Client {
        Client {
            stream,
            next_correlation: 1,
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("write");
    }

    /// Sends a request; returns its correlation id.
    pub fn send<R: Encodable + HeaderVersion>(
        &mut self,
        key: ApiKey,
        version: i16,
        body: &R,
    ) -> i32 {
        let correlation_id = self.next_correlation;
        self.next_correlation += 1;
        let header = RequestHeader::default()
            .with_request_api_key(key as i16)
            .with_request_api_version(version)
            .with_correlation_id(correlation_id)
            .with_client_id(Some(StrBytes::from_static_str("test")));
        let mut buf = BytesMut::new();
        buf.put_i32(0);
        header
            .encode(&mut buf, R::header_version(version))
            .expect("header");
        let layout = crate::protocol::layout_version(key as i16, version);
        body.encode(&mut buf, layout).expect("body");
        let size = (buf.len() - 4) as i32;
        buf[..4].copy_from_slice(&size.to_be_bytes());
        self.send_raw(&buf);
        correlation_id
    }

    /// Reads one response frame (without the size prefix); None at EOF.
    pub fn read_frame(&mut self) -> Option<Bytes> {
        let mut size = [0u8; 4];
        self.stream.read_exact(&mut size).ok()?;
        let mut body = vec![0u8; i32::from_be_bytes(size) as usize];
        self.stream.read_exact(&mut body).ok()?;
        Some(Bytes::from(body))
    }

    /// Reads and decodes a response, checking its correlation id.
    pub fn receive<M: Decodable + HeaderVersion>(
        &mut self,
        version: i16,
        correlation_id: i32,
    ) -> M {
        let mut frame = self.read_frame().expect("a response");
        assert_eq!(
            frame.get_i32(),
            correlation_id,
            "responses in request order"
        );
        if M::header_version(version) >= 1 {
            assert_eq!(frame.get_u8(), 0, "empty header tags");
        }
        let body = M::decode(&mut frame, version).expect("decodes");
        assert!(!frame.has_remaining(), "no trailing bytes");
        body
    }

    pub fn call<R: Encodable + HeaderVersion, M: Decodable + HeaderVersion>(
        &mut self,
        key: ApiKey,
        version: i16,
        body: &R,
    ) -> M {
        let id = self.send(key, version, body);
        self.receive(crate::protocol::layout_version(key as i16, version), id)
    }

    /// True when the server has closed the connection.
    pub fn is_closed(&mut self) -> bool {
        let mut byte = [0u8; 1];
        matches!(self.stream.read(&mut byte), Ok(0) | Err(_))
    }
}

/// A batch of `n` small records as a producer sends it.
pub(super) fn batch(n: usize, timestamp: i64) -> Vec<u8> {
    let mut b = BatchBuilder::new(Codec::None);
    b.records = (0..n)
        .map(|i| Record {
            key: Some(format!("k{i}").into_bytes()),
            value: Some(format!("value-{i}").into_bytes()),
            headers: vec![],
            timestamp: timestamp + i as i64,
        })
        .collect();
    b.build()
}
