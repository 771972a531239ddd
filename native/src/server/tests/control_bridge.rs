use std::time::{Duration, Instant};

use bytes::Bytes;

use super::TestBroker;
use crate::control::ControlRequest;
use crate::properties::{self, table::topic};

/// Polls the bridge the way the event loop does after an eventfd wakeup.
fn take_one(broker: &TestBroker) -> ControlRequest {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(r) = broker.server.broker().control.take_requests(16).pop() {
            return r;
        }
        assert!(Instant::now() < deadline, "no control request arrived");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn api_versions_frame(correlation_id: i32) -> Vec<u8> {
    // ApiVersions v0: key 18, version 0, correlation id, client id "t"; empty body
    let mut frame = vec![0, 18, 0, 0];
    frame.extend_from_slice(&correlation_id.to_be_bytes());
    frame.extend_from_slice(&[0, 1, b't']);
    let mut out = (frame.len() as i32).to_be_bytes().to_vec();
    out.extend_from_slice(&frame);
    out
}

#[test]
fn other_apis_go_to_python_and_back_in_order() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    client.send_raw(&api_versions_frame(41));
    let request = take_one(&broker);
    assert_eq!(
        (request.api_key, request.api_version, request.correlation_id),
        (18, 0, 41)
    );
    assert_eq!(&request.frame[..4], &[0, 18, 0, 0]);
    assert!(request.peer.starts_with("127.0.0.1:"));
    broker.server.broker().control.reply(
        request.handle,
        crate::control::ControlReply::Respond(Bytes::from_static(&[0, 0, 0, 41, 0, 0])),
    );
    assert_eq!(
        &client.read_frame().expect("response")[..],
        &[0, 0, 0, 41, 0, 0]
    );
    // a reply to a handle already answered is ignored
    broker
        .server
        .broker()
        .control
        .reply(request.handle, crate::control::ControlReply::Close);
}

#[test]
fn close_connection_and_gone_connections() {
    let broker = TestBroker::start(&[]);
    let mut client = broker.connect();
    client.send_raw(&api_versions_frame(1));
    let request = take_one(&broker);
    broker
        .server
        .broker()
        .control
        .reply(request.handle, crate::control::ControlReply::Close);
    assert!(client.is_closed());

    // a connection dropped by shutdown while Python holds its request
    let mut client = broker.connect();
    client.send_raw(&api_versions_frame(2));
    let request = take_one(&broker);
    broker.server.shutdown().expect("shutdown");
    assert!(client.is_closed());
    assert_eq!(broker.server.broker().control.pending_count(), 0);
    broker
        .server
        .broker()
        .control
        .reply(request.handle, crate::control::ControlReply::Close);
    broker.server.shutdown().expect("idempotent");
}

#[test]
fn commands_after_shutdown_fail_cleanly() {
    let broker = TestBroker::start(&[]);
    broker.server.shutdown().expect("shutdown");
    let batch = super::batch(1, 1);
    assert!(broker.server.append(super::TOPIC, 0, &batch).is_err());
    assert!(broker.server.read(super::TOPIC, 0, 0, 100).is_err());
    assert!(broker
        .server
        .open_partition("x", 0, [0; 16], &properties::defaults(topic::ALL))
        .is_err());
    assert!(
        broker.server.start().is_ok(),
        "already started: keeps its port"
    );
}
