//! Property tests across the module: what the builder writes validates and decodes back;
//! corrupted or random input is refused without a panic.

use bytes::BytesMut;
use proptest::prelude::*;

use super::batch::{self, BatchHeader, HEADER_SIZE, PARTITION_LEADER_EPOCH};
use super::builder::{BatchBuilder, Record};
use super::compression::Codec;
use super::records::{control_marker, decode_batch, walk};
use super::validate::{
    validate_batch, validate_produce_records, TargetCompression, TimestampType, ValidationConfig,
};

const NOW: i64 = 1_700_000_000_000;

fn config(target: TargetCompression) -> ValidationConfig {
    ValidationConfig {
        max_message_bytes: 8 << 20,
        timestamp_type: TimestampType::CreateTime,
        timestamp_before_max_ms: i64::MAX,
        timestamp_after_max_ms: i64::MAX,
        target_compression: target,
        compacted: false,
    }
}

fn codec() -> impl Strategy<Value = Codec> {
    (0i16..5).prop_map(|c| Codec::from_attributes(c).unwrap())
}

fn target() -> impl Strategy<Value = TargetCompression> {
    prop_oneof![
        Just(TargetCompression::Producer),
        Just(TargetCompression::Uncompressed),
        Just(TargetCompression::Gzip),
        Just(TargetCompression::Snappy),
        Just(TargetCompression::Lz4),
        Just(TargetCompression::Zstd),
    ]
}

fn bytes(max: usize) -> impl Strategy<Value = Option<Vec<u8>>> {
    proptest::option::of(proptest::collection::vec(any::<u8>(), 0..max))
}

fn record() -> impl Strategy<Value = Record> {
    (
        bytes(20),
        bytes(200),
        proptest::collection::vec(("[a-z]{0,8}", bytes(10)), 0..3),
        -1_000_000i64..1_000_000,
    )
        .prop_map(|(key, value, headers, dt)| Record {
            key,
            value,
            headers,
            timestamp: NOW + dt,
        })
}

fn builder() -> impl Strategy<Value = BatchBuilder> {
    (
        codec(),
        proptest::collection::vec(record(), 1..20),
        proptest::option::of((0i64..1 << 40, 0i16..100, 0i32..i32::MAX)),
        any::<bool>(),
    )
        .prop_map(|(codec, records, producer, transactional)| {
            let mut b = BatchBuilder::new(codec);
            if let Some((pid, epoch, seq)) = producer {
                b = b.producer(pid, epoch, seq);
                b.transactional = transactional;
            }
            b.records = records;
            b
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn built_batches_validate_and_decode_back(
        b in builder(),
        target in target(),
        lat in any::<bool>(),
    ) {
        let bytes = b.build();
        prop_assert_eq!(validate_produce_records(&bytes, 9), Ok(()));
        let mut cfg = config(target);
        if lat {
            cfg.timestamp_type = TimestampType::LogAppendTime;
        }
        let v = validate_batch(BytesMut::from(&bytes[..]), &cfg, NOW).unwrap();
        let max = if lat { NOW } else { b.records.iter().map(|r| r.timestamp).max().unwrap() };
        prop_assert_eq!(v.max_timestamp, max);
        prop_assert_eq!(v.header.max_timestamp, max);
        prop_assert_eq!(v.header.is_log_append_time(), lat);
        prop_assert!(batch::crc_is_valid(&v.bytes));
        if target == TargetCompression::Producer && !lat {
            prop_assert_eq!(&v.bytes[..], &bytes[..]);
        }
        if target == TargetCompression::Producer {
            prop_assert_eq!(&v.bytes[HEADER_SIZE..], &bytes[HEADER_SIZE..]);
        }
        let (h, records) = decode_batch(&v.bytes, 1 << 24).unwrap();
        prop_assert_eq!((h.producer_id, h.base_sequence), (b.producer_id, b.base_sequence));
        prop_assert_eq!(h.is_transactional(), b.transactional);
        prop_assert_eq!(records.len(), b.records.len());
        for (i, (got, want)) in records.iter().zip(&b.records).enumerate() {
            prop_assert_eq!(got.offset_delta, i as i32);
            prop_assert_eq!(got.timestamp, want.timestamp);
            prop_assert_eq!(&got.key, &want.key);
            prop_assert_eq!(&got.value, &want.value);
            prop_assert_eq!(&got.headers, &want.headers);
        }
    }

    /// Any changed byte is caught (by the CRC, the offset or length checks) except in the
    /// PartitionLeaderEpoch, which is outside the CRC by design.
    #[test]
    fn flipped_bytes_are_refused(b in builder(), at in any::<prop::sample::Index>(), x in 1u8..) {
        let mut bytes = b.build();
        let i = at.index(bytes.len());
        bytes[i] ^= x;
        let cfg = config(TargetCompression::Producer);
        let result = validate_batch(BytesMut::from(&bytes[..]), &cfg, NOW);
        if (PARTITION_LEADER_EPOCH..PARTITION_LEADER_EPOCH + 4).contains(&i) {
            prop_assert!(result.is_ok());
        } else {
            prop_assert!(result.is_err(), "flip at {} accepted", i);
        }
    }

    /// Garbage under a valid CRC reaches the record walker and the codecs: errors only.
    #[test]
    fn re_signed_garbage_never_panics(
        b in builder(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let mut bytes = b.build();
        for (at, x) in flips {
            let i = HEADER_SIZE + at.index(bytes.len() - HEADER_SIZE);
            bytes[i] ^= x;
        }
        batch::update_crc(&mut bytes);
        let cfg = config(TargetCompression::Uncompressed);
        let _ = validate_batch(BytesMut::from(&bytes[..]), &cfg, NOW);
        let _ = decode_batch(&bytes, 1 << 20);
    }

    #[test]
    fn random_bytes_never_panic(
        data in proptest::collection::vec(any::<u8>(), 0..300),
        version in 0i16..12,
    ) {
        let _ = validate_produce_records(&data, version);
        let cfg = config(TargetCompression::Producer);
        let _ = validate_batch(BytesMut::from(&data[..]), &cfg, NOW);
        let _ = decode_batch(&data, 1 << 16);
        let _ = BatchHeader::parse(&data);
        let _ = control_marker(&data);
        for b in batch::iter_batches(&data) {
            if b.is_err() {
                break;
            }
        }
        for r in walk(&data) {
            if r.is_err() {
                break;
            }
        }
    }
}
