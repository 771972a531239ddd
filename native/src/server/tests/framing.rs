use kafka_protocol::messages::ApiKey;

use super::TestBroker;
use crate::properties::{self, table::server};

#[test]
fn bad_sizes_close_the_connection() {
    let broker = TestBroker::start(&[("socket.request.max.bytes", "1000")]);
    for size in [-1i32, 0, 7, 1001, i32::MAX] {
        let mut client = broker.connect();
        client.send_raw(&size.to_be_bytes());
        assert!(client.is_closed(), "size {size}");
    }
}

#[test]
fn truncated_and_garbage_requests_close_the_connection() {
    let broker = TestBroker::start(&[]);
    // a produce whose body stops short
    let mut client = broker.connect();
    let mut frame = vec![0, 0, 0, 20, 0, 0, 0, 9, 0, 0, 0, 1];
    frame.extend_from_slice(&[0xff; 12]);
    client.send_raw(&frame);
    assert!(client.is_closed());
    // a frame shorter than its size, then the peer stops writing
    let mut client = broker.connect();
    client.send_raw(&[0, 0, 0, 100, 0, 1, 0, 12]);
    client
        .stream
        .shutdown(std::net::Shutdown::Write)
        .expect("shutdown");
    assert!(client.is_closed());
    // the broker is still serving
    let mut client = broker.connect();
    let _: kafka_protocol::messages::ListOffsetsResponse = client.call(
        ApiKey::ListOffsets,
        7,
        &kafka_protocol::messages::ListOffsetsRequest::default(),
    );
}

#[test]
fn unsupported_versions_of_native_apis_close_the_connection() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    // Produce v14, past the generated codec too: the header alone, written by hand.
    let header: [u8; 10] = [0, 0, 0, 14, 0, 0, 0, 1, 0xff, 0xff];
    client.send_raw(&[&10i32.to_be_bytes()[..], &header].concat());
    assert!(client.is_closed());
}

#[test]
fn connections_over_the_cap_are_closed() {
    let broker = TestBroker::start(&[("max.connections", "1")]);
    let mut first = broker.connect();
    std::thread::sleep(std::time::Duration::from_millis(100));
    let mut second = broker.connect();
    assert!(second.is_closed());
    let _: kafka_protocol::messages::ListOffsetsResponse = first.call(
        ApiKey::ListOffsets,
        7,
        &kafka_protocol::messages::ListOffsetsRequest::default(),
    );
}

#[test]
fn connections_over_an_addresss_limit_are_closed_until_one_ends() {
    let broker = TestBroker::start(&[
        ("max.connections.per.ip", "1"),
        ("max.connections.per.ip.overrides", "127.0.0.1:2"),
    ]);
    let pause = || std::thread::sleep(std::time::Duration::from_millis(150));
    let first = broker.connect();
    pause();
    let mut second = broker.connect();
    pause();
    let mut third = broker.connect();
    assert!(
        third.is_closed(),
        "a third from 127.0.0.1, whose override is 2"
    );
    drop(first);
    pause();
    let mut fourth = broker.connect();
    pause();
    for client in [&mut second, &mut fourth] {
        let _: kafka_protocol::messages::ListOffsetsResponse = client.call(
            ApiKey::ListOffsets,
            7,
            &kafka_protocol::messages::ListOffsetsRequest::default(),
        );
    }
}

#[test]
fn idle_connections_are_closed() {
    let broker = TestBroker::start(&[("connections.max.idle.ms", "200")]);
    let mut client = broker.connect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(client.is_closed());
}

#[test]
fn absurd_array_counts_close_the_connection_without_allocating() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    // Fetch v4 header (client id "t"), then replica id, max wait, min bytes, max bytes,
    // isolation level, and a topics array claiming i32::MAX entries.
    let mut frame = vec![0, 1, 0, 4, 0, 0, 0, 1, 0, 1, b't'];
    frame.extend_from_slice(&(-1i32).to_be_bytes());
    frame.extend_from_slice(&0i32.to_be_bytes());
    frame.extend_from_slice(&1i32.to_be_bytes());
    frame.extend_from_slice(&1000i32.to_be_bytes());
    frame.push(0);
    frame.extend_from_slice(&i32::MAX.to_be_bytes());
    let mut out = (frame.len() as i32).to_be_bytes().to_vec();
    out.extend_from_slice(&frame);
    client.send_raw(&out);
    assert!(client.is_closed());
    let mut again = broker.connect();
    let _: kafka_protocol::messages::ListOffsetsResponse = again.call(
        ApiKey::ListOffsets,
        7,
        &kafka_protocol::messages::ListOffsetsRequest::default(),
    );
}

#[test]
fn listens_on_ipv6() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = properties::with_defaults(
        server::ALL,
        &[
            ("listeners", "PLAINTEXT://[::1]:0"),
            ("log.dirs", dir.path().to_str().expect("utf-8")),
        ],
    );
    let server = crate::server::Server::new(&config).expect("server");
    match server.start() {
        Ok(port) => assert!(std::net::TcpStream::connect(("::1", port)).is_ok()),
        // hosts without IPv6 cannot bind ::1 at all
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::AddrNotAvailable, "{e}"),
    }
    server.shutdown().expect("shutdown");
}
