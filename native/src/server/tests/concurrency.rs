//! Producers, a long-polling consumer and control-plane snapshots at once: everything
//! completes (no lock-order deadlock) and every acknowledged record is readable in order.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use kafka_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_protocol::messages::{ApiKey, FetchResponse, ProduceRequest, ProduceResponse, TopicName};
use kafka_protocol::protocol::StrBytes;

use super::produce_fetch::fetch_request;
use super::{batch, TestBroker, TOPIC};
use crate::record::batch::iter_batches;

#[test]
fn concurrent_producers_consumer_and_snapshots() {
    let broker = Arc::new(TestBroker::start(&[]));
    let done = Arc::new(AtomicBool::new(false));
    let snapshots = {
        let (broker, done) = (Arc::clone(&broker), Arc::clone(&done));
        std::thread::spawn(move || {
            let mut n = 0;
            while !done.load(Ordering::Acquire) {
                assert_eq!(broker.server.partition_states().len(), 1);
                n += 1;
            }
            n
        })
    };
    let producers: Vec<_> = (0..4)
        .map(|_| {
            let broker = Arc::clone(&broker);
            std::thread::spawn(move || {
                let mut client = broker.connect();
                for _ in 0..100 {
                    let request = ProduceRequest::default()
                        .with_acks(-1)
                        .with_timeout_ms(5000)
                        .with_topic_data(vec![TopicProduceData::default()
                            .with_name(TopicName(StrBytes::from_static_str(TOPIC)))
                            .with_partition_data(vec![PartitionProduceData::default()
                                .with_records(Some(Bytes::from(batch(5, 1_700_000_000_000))))])]);
                    let r: ProduceResponse = client.call(ApiKey::Produce, 11, &request);
                    assert_eq!(r.responses[0].partition_responses[0].error_code, 0);
                }
            })
        })
        .collect();
    let mut consumer = broker.connect();
    let mut offset = 0i64;
    while offset < 2000 {
        let r: FetchResponse =
            consumer.call(ApiKey::Fetch, 12, &fetch_request(TOPIC, offset, 2000, 1));
        let records = r.responses[0].partitions[0]
            .records
            .clone()
            .unwrap_or_default();
        for b in iter_batches(&records) {
            let (header, _) = b.expect("whole batches");
            assert_eq!(header.base_offset, offset, "contiguous offsets");
            offset = header.last_offset() + 1;
        }
    }
    for p in producers {
        p.join().expect("producer");
    }
    done.store(true, Ordering::Release);
    assert!(snapshots.join().expect("snapshots") > 0);
    assert_eq!(offset, 2000);
}
