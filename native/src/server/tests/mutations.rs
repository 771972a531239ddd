//! Mutated requests thrown at a live server: every one is answered, ignored or closed, and the
//! broker keeps serving (a panic would only end a task; an abort would end the test process).

use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use kafka_protocol::messages::offset_for_leader_epoch_request::{
    OffsetForLeaderPartition, OffsetForLeaderTopic,
};
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::*;
use kafka_protocol::protocol::{Encodable, HeaderVersion, StrBytes};

use super::produce_fetch::fetch_request;
use super::{batch, TestBroker, TOPIC};

fn frame<R: Encodable + HeaderVersion>(key: ApiKey, version: i16, body: &R) -> Vec<u8> {
    let header = RequestHeader::default()
        .with_request_api_key(key as i16)
        .with_request_api_version(version)
        .with_correlation_id(1)
        .with_client_id(Some(StrBytes::from_static_str("fuzz")));
    let mut buf = BytesMut::new();
    header
        .encode(&mut buf, R::header_version(version))
        .expect("header");
    body.encode(&mut buf, version).expect("body");
    buf.to_vec()
}

fn seeds() -> Vec<Vec<u8>> {
    let name = || TopicName(StrBytes::from_static_str(TOPIC));
    let mut out = Vec::new();
    for v in 3..=11 {
        let produce = ProduceRequest::default()
            .with_acks(1)
            .with_timeout_ms(100)
            .with_topic_data(vec![TopicProduceData::default()
                .with_name(name())
                .with_partition_data(vec![PartitionProduceData::default()
                    .with_records(Some(Bytes::from(batch(3, 1_700_000_000_000))))])]);
        out.push(frame(ApiKey::Produce, v, &produce));
    }
    for v in 4..=12 {
        out.push(frame(ApiKey::Fetch, v, &fetch_request(TOPIC, 0, 0, 1)));
    }
    for v in 1..=7 {
        let lo = ListOffsetsRequest::default().with_topics(vec![ListOffsetsTopic::default()
            .with_name(name())
            .with_partitions(vec![ListOffsetsPartition::default().with_timestamp(-1)])]);
        out.push(frame(ApiKey::ListOffsets, v, &lo));
    }
    for v in 2..=4 {
        let e = OffsetForLeaderEpochRequest::default().with_topics(vec![
            OffsetForLeaderTopic::default()
                .with_topic(name())
                .with_partitions(vec![
                    OffsetForLeaderPartition::default().with_leader_epoch(1)
                ]),
        ]);
        out.push(frame(ApiKey::OffsetForLeaderEpoch, v, &e));
    }
    out
}

/// xorshift: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn mutated_requests_never_take_the_broker_down() {
    let broker = TestBroker::start(&[("connections.max.idle.ms", "2000")]);
    let seeds = seeds();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut client = broker.connect();
    let mut answered = 0;
    for round in 0..1500 {
        let mut f = seeds[rng.below(seeds.len())].clone();
        // keep api key and version so the request reaches the native decoders
        for _ in 0..1 + rng.below(4) {
            let at = 4 + rng.below(f.len() - 4);
            match rng.below(3) {
                0 => f[at] ^= 1 << rng.below(8),
                1 => f[at] = [0x00, 0xff, 0x7f, 0x80][rng.below(4)],
                _ => f.truncate(at.max(8)),
            }
        }
        let mut out = BytesMut::with_capacity(f.len() + 4);
        out.put_i32(f.len() as i32);
        out.put_slice(&f);
        client
            .stream
            .set_read_timeout(Some(Duration::from_millis(100)))
            .expect("timeout");
        let sent = std::io::Write::write_all(&mut client.stream, &out).is_ok();
        if sent && client.read_frame().is_some() {
            answered += 1;
        } else {
            // closed, or still waiting (a mutated long poll): start over on a new connection
            client = broker.connect();
        }
        if round % 300 == 0 {
            let mut probe = broker.connect();
            let _: ListOffsetsResponse =
                probe.call(ApiKey::ListOffsets, 7, &ListOffsetsRequest::default());
        }
    }
    let mut probe = broker.connect();
    let _: ListOffsetsResponse = probe.call(ApiKey::ListOffsets, 7, &ListOffsetsRequest::default());
    // the mutations must reach past the decoders often enough to test the handlers too
    assert!(
        answered > 150,
        "only {answered} mutated requests were answered"
    );
}
