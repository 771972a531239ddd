//! Batches written by another client library, checked byte for byte: kafka-python 3.0.12's
//! `DefaultRecordBatchBuilder` (producer id 1000, epoch 2, base sequence 5, three records),
//! once per codec; its snappy is xerial-framed. The raw-snappy case recompresses the
//! uncompressed records section with python-snappy's raw `compress`, which is what librdkafka
//! sends.

use bytes::BytesMut;

use super::batch::{self, BatchHeader, HEADER_SIZE, LENGTH, LOG_OVERHEAD};
use super::builder::{BatchBuilder, Record};
use super::compression::Codec;
use super::records::decode_batch;
use super::validate::{validate_batch, TargetCompression, TimestampType, ValidationConfig};

const NONE: &[&str] = &[
    "0000000000000000000000cc0000000002093b2f600000000000020000018bcfe568000000018bcfe5680200",
    "000000000003e800020000000500000003660000000a6b65792d305076616c75652d302076616c75652d3020",
    "76616c75652d302076616c75652d302076616c75652d3020005c000202015076616c75652d312076616c7565",
    "2d312076616c75652d312076616c75652d312076616c75652d3120006e0004040a6b65792d325076616c7565",
    "2d322076616c75652d322076616c75652d322076616c75652d322076616c75652d32200202680278",
];
const GZIP: &[&str] = &[
    "0000000000000000000000780000000002fa1128790001000000020000018bcfe568000000018bcfe5680200",
    "000000000003e8000200000005000000031f8b08006663016b02ff4b636060e0ca4eadd43508284bcc294dd5",
    "3550204433c43030313142951b2a10a219f2185858c0561841f5182910a2999832982a000b24a23a9b000000",
];
const SNAPPY: &[&str] = &[
    "00000000000000000000008700000000024fd6ea570002000000020000018bcfe568000000018bcfe5680200",
    "000000000003e80002000000050000000382534e41505059000000000100000001000000429b014866000000",
    "0a6b65792d305076616c75652d30207e080014005c000202010d2f00310d2f66080010006e00040405630032",
    "0d3400320d34660800100202680278",
];
const LZ4: &[&str] = &[
    "00000000000000000000008b000000000287c91eaa0003000000020000018bcfe568000000018bcfe5680200",
    "000000000003e80002000000050000000304224d1868409b000000000000008d43000000ff04660000000a6b",
    "65792d305076616c75652d302008000d63005c000202012f0013312f000f08000751006e0004046300133234",
    "00133234000f08000750020268027800000000",
];
const ZSTD: &[&str] = &[
    "0000000000000000000000750000000002e047f3af0004000000020000018bcfe568000000018bcfe5680200",
    "000000000003e80002000000050000000328b52ffd209bdd01006402660000000a6b65792d305076616c7565",
    "2d3020005c0002020131006e000404323202026802780800c00270078e994178600d3826950b0f2f76",
];
const RAWSNAPPY_SECTION: &[&str] = &[
    "9b0148660000000a6b65792d305076616c75652d30207e080014005c000202010d2f00310d2f66080010006e",
    "000404056300320d3400320d34660800100202680278",
];

fn unhex(parts: &[&str]) -> Vec<u8> {
    let s: String = parts.concat();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn config(target: TargetCompression) -> ValidationConfig {
    ValidationConfig {
        max_message_bytes: 1 << 20,
        timestamp_type: TimestampType::CreateTime,
        timestamp_before_max_ms: i64::MAX,
        timestamp_after_max_ms: i64::MAX,
        target_compression: target,
        compacted: false,
    }
}

/// The records kafka-python was given.
fn expected() -> Vec<Record> {
    (0..3)
        .map(|i| {
            let value = format!("value-{i} ").repeat(5).into_bytes();
            let key = (i != 1).then(|| format!("key-{i}").into_bytes());
            let headers = if i == 2 {
                vec![("h".to_string(), Some(b"x".to_vec()))]
            } else {
                vec![]
            };
            Record {
                key,
                value: Some(value),
                headers,
                timestamp: 1_700_000_000_000 + i,
            }
        })
        .collect()
}

fn raw_snappy_batch() -> Vec<u8> {
    let mut bytes = unhex(NONE)[..HEADER_SIZE].to_vec();
    bytes.extend_from_slice(&unhex(RAWSNAPPY_SECTION));
    let length = (bytes.len() - LOG_OVERHEAD) as i32;
    bytes[LENGTH..LENGTH + 4].copy_from_slice(&length.to_be_bytes());
    bytes[batch::ATTRIBUTES + 1] = Codec::Snappy as u8;
    batch::update_crc(&mut bytes);
    bytes
}

fn all() -> Vec<(Codec, Vec<u8>)> {
    vec![
        (Codec::None, unhex(NONE)),
        (Codec::Gzip, unhex(GZIP)),
        (Codec::Snappy, unhex(SNAPPY)),
        (Codec::Lz4, unhex(LZ4)),
        (Codec::Zstd, unhex(ZSTD)),
        (Codec::Snappy, raw_snappy_batch()),
    ]
}

#[test]
fn our_uncompressed_batch_is_byte_identical_to_kafka_pythons() {
    let mut b = BatchBuilder::new(Codec::None).producer(1000, 2, 5);
    b.records = expected();
    // Only PartitionLeaderEpoch may differ (outside the CRC): kafka-python writes 0, the
    // Java client and we write -1 (NO_PARTITION_LEADER_EPOCH).
    let mut ours = b.build();
    batch::set_partition_leader_epoch(&mut ours, 0);
    assert_eq!(ours, unhex(NONE));
}

#[test]
fn other_clients_batches_validate_unchanged_and_decode() {
    for (codec, bytes) in all() {
        let h = BatchHeader::parse(&bytes).unwrap();
        assert_eq!(h.compression(), codec as u8);
        let v = validate_batch(
            BytesMut::from(&bytes[..]),
            &config(TargetCompression::Producer),
            0,
        )
        .unwrap();
        assert_eq!(&v.bytes[..], &bytes[..], "{codec:?}");
        assert_eq!(v.max_timestamp, 1_700_000_000_002);
        let (_, records) = decode_batch(&bytes, 1 << 20).unwrap();
        let got: Vec<Record> = records
            .into_iter()
            .map(|r| Record {
                key: r.key,
                value: r.value,
                headers: r.headers,
                timestamp: r.timestamp,
            })
            .collect();
        assert_eq!(got, expected(), "{codec:?}");
    }
}

#[test]
fn other_clients_batches_recompress_to_every_codec() {
    for (_, bytes) in all() {
        for target in [
            TargetCompression::Uncompressed,
            TargetCompression::Gzip,
            TargetCompression::Snappy,
            TargetCompression::Lz4,
            TargetCompression::Zstd,
        ] {
            let v = validate_batch(BytesMut::from(&bytes[..]), &config(target), 0).unwrap();
            assert!(batch::crc_is_valid(&v.bytes));
            let (h, records) = decode_batch(&v.bytes, 1 << 20).unwrap();
            assert_eq!(
                (h.producer_id, h.producer_epoch, h.base_sequence),
                (1000, 2, 5)
            );
            assert_eq!(records.len(), 3);
            assert_eq!(records[2].headers, expected()[2].headers);
        }
    }
}
