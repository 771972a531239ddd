//! Every error path of produce validation, and the rewrites it makes.

use bytes::BytesMut;

use super::*;
use crate::record::batch::{crc_is_valid, ATTR_CONTROL, RECORDS_COUNT};
use crate::record::builder::{
    assemble, control_batch, encode_record, BatchBuilder, BatchFields, Record,
};
use crate::record::compression::compress_raw_snappy;
use crate::record::records::decode_batch;
use crate::record::rejected::RecordRule;

const NOW: i64 = 1_700_000_000_000;
const CODECS: [Codec; 5] = Codec::ALL;

fn config() -> ValidationConfig {
    ValidationConfig {
        max_message_bytes: 1 << 20,
        timestamp_type: TimestampType::CreateTime,
        timestamp_before_max_ms: i64::MAX,
        timestamp_after_max_ms: i64::MAX,
        target_compression: TargetCompression::Producer,
        compacted: false,
    }
}

fn records(n: usize) -> Vec<Record> {
    (0..n)
        .map(|i| {
            let ts = NOW - 100 + (i as i64 % 3) * 10;
            Record::new(Some(format!("k{i}").as_bytes()), Some(&[i as u8; 50]), ts)
        })
        .collect()
}

fn built(codec: Codec, n: usize) -> Vec<u8> {
    let mut b = BatchBuilder::new(codec).producer(7, 1, 0);
    b.records = records(n);
    b.build()
}

/// A batch whose records carry the given offset deltas, for malformed-offset cases.
fn with_offset_deltas(codec: Codec, deltas: &[i32]) -> Vec<u8> {
    let mut section = Vec::new();
    for (r, &d) in records(deltas.len()).iter().zip(deltas) {
        encode_record(&mut section, r, d, r.timestamp - NOW);
    }
    let payload = if codec == Codec::None {
        section
    } else {
        compress(codec, &section)
    };
    let n = deltas.len() as i32;
    let fields = BatchFields {
        attributes: codec.attribute_bits(),
        last_offset_delta: n - 1,
        base_timestamp: NOW,
        max_timestamp: NOW,
        producer_id: -1,
        producer_epoch: -1,
        base_sequence: -1,
        records_count: n,
    };
    assemble(&fields, &payload)
}

fn validate(bytes: &[u8], config: &ValidationConfig) -> Result<ValidatedBatch, ErrorCode> {
    validate_batch(BytesMut::from(bytes), config, NOW).map_err(|r| r.code)
}

/// Patches a big-endian field under the CRC and re-signs the batch.
fn patch(bytes: &mut [u8], at: usize, value: &[u8]) {
    bytes[at..at + value.len()].copy_from_slice(value);
    batch::update_crc(bytes);
}

#[test]
fn valid_batches_are_kept_byte_for_byte() {
    for codec in CODECS {
        let bytes = built(codec, 10);
        let v = validate(&bytes, &config()).unwrap();
        assert_eq!(&v.bytes[..], &bytes[..], "{codec:?}");
        assert_eq!(v.max_timestamp, NOW - 100 + 20);
        assert_eq!(v.offset_delta_of_max_timestamp, 2);
        assert_eq!(v.log_append_time, -1);
        assert_eq!(v.header.records_count, 10);
    }
}

#[test]
fn raw_snappy_batches_from_librdkafka_validate() {
    let plain = built(Codec::None, 5);
    let mut bytes = plain[..HEADER_SIZE].to_vec();
    bytes.extend_from_slice(&compress_raw_snappy(&plain[HEADER_SIZE..]));
    let length = (bytes.len() - LOG_OVERHEAD) as i32;
    bytes[LENGTH..LENGTH + 4].copy_from_slice(&length.to_be_bytes());
    patch(
        &mut bytes,
        ATTRIBUTES,
        &Codec::Snappy.attribute_bits().to_be_bytes(),
    );
    let v = validate(&bytes, &config()).unwrap();
    assert_eq!(&v.bytes[..], &bytes[..]);
}

#[test]
fn batch_shape_errors() {
    let good = built(Codec::None, 3);
    let mut b = good.clone();
    b[..8].copy_from_slice(&5i64.to_be_bytes());
    assert_eq!(
        validate(&b, &config()).unwrap_err(),
        ErrorCode::InvalidRecord
    );

    let small = ValidationConfig {
        max_message_bytes: good.len() as i32 - 1,
        ..config()
    };
    assert_eq!(
        validate(&good, &small).unwrap_err(),
        ErrorCode::MessageTooLarge
    );

    let mut b = good.clone();
    *b.last_mut().unwrap() ^= 1;
    assert_eq!(
        validate(&b, &config()).unwrap_err(),
        ErrorCode::CorruptMessage
    );

    let mut b = good.clone();
    b.push(0);
    assert_eq!(
        validate(&b, &config()).unwrap_err(),
        ErrorCode::CorruptMessage
    );
    assert_eq!(
        validate(&good[..40], &config()).unwrap_err(),
        ErrorCode::CorruptMessage
    );

    let mut b = good.clone();
    b[batch::MAGIC] = 1;
    assert_eq!(
        validate(&b, &config()).unwrap_err(),
        ErrorCode::UnsupportedForMessageFormat
    );
}

#[test]
fn count_and_offset_delta_errors() {
    let good = built(Codec::None, 3);
    let mut b = good.clone();
    patch(&mut b, RECORDS_COUNT, &2i32.to_be_bytes());
    assert_eq!(
        validate(&b, &config()).unwrap_err(),
        ErrorCode::InvalidRecord
    );

    // Header consistent (2 records declared) but three encoded.
    let mut b = good.clone();
    patch(&mut b, RECORDS_COUNT, &2i32.to_be_bytes());
    patch(&mut b, batch::LAST_OFFSET_DELTA, &1i32.to_be_bytes());
    assert_eq!(
        validate(&b, &config()).unwrap_err(),
        ErrorCode::InvalidRecord
    );

    // Four declared, three encoded.
    let mut b = good.clone();
    patch(&mut b, RECORDS_COUNT, &4i32.to_be_bytes());
    patch(&mut b, batch::LAST_OFFSET_DELTA, &3i32.to_be_bytes());
    assert_eq!(
        validate(&b, &config()).unwrap_err(),
        ErrorCode::InvalidRecord
    );

    let empty = BatchBuilder::new(Codec::None).build();
    assert_eq!(
        validate(&empty, &config()).unwrap_err(),
        ErrorCode::InvalidRecord
    );

    let unordered = with_offset_deltas(Codec::None, &[0, 2, 1]);
    assert_eq!(
        validate(&unordered, &config()).unwrap_err(),
        ErrorCode::InvalidRecord
    );
    assert!(validate(&with_offset_deltas(Codec::None, &[0, 1, 2]), &config()).is_ok());
}

#[test]
fn truncated_record_inside_a_signed_batch_is_invalid() {
    let good = built(Codec::None, 2);
    let mut b = good[..good.len() - 3].to_vec();
    let length = (b.len() - LOG_OVERHEAD) as i32;
    patch(&mut b, LENGTH, &length.to_be_bytes());
    assert_eq!(
        validate(&b, &config()).unwrap_err(),
        ErrorCode::InvalidRecord
    );
}

#[test]
fn compressed_batches_with_wrong_inner_offsets_are_renumbered() {
    for codec in [Codec::Gzip, Codec::Lz4] {
        let b = with_offset_deltas(codec, &[5, 9, 9, 1]);
        let v = validate(&b, &config()).unwrap();
        assert!(crc_is_valid(&v.bytes));
        let (_, recs) = decode_batch(&v.bytes, 1 << 20).unwrap();
        let deltas: Vec<i32> = recs.iter().map(|r| r.offset_delta).collect();
        assert_eq!(deltas, [0, 1, 2, 3]);
        let want = records(4);
        for (got, want) in recs.iter().zip(&want) {
            assert_eq!(
                (&got.key, &got.value, got.timestamp),
                (&want.key, &want.value, want.timestamp)
            );
        }
    }
}

#[test]
fn producer_rules() {
    let control = control_batch(7, 1, true, 3, NOW);
    assert_eq!(
        validate(&control, &config()).unwrap_err(),
        ErrorCode::InvalidRecord
    );
    // A data batch with the control bit alone is refused the same way.
    let mut b = built(Codec::None, 2);
    patch(&mut b, ATTRIBUTES, &ATTR_CONTROL.to_be_bytes());
    assert_eq!(
        validate(&b, &config()).unwrap_err(),
        ErrorCode::InvalidRecord
    );

    let mut b = built(Codec::None, 2);
    patch(&mut b, batch::BASE_SEQUENCE, &(-1i32).to_be_bytes());
    assert_eq!(
        validate(&b, &config()).unwrap_err(),
        ErrorCode::InvalidRecord
    );
}

#[test]
fn unknown_codec_is_unsupported() {
    let mut b = built(Codec::None, 1);
    patch(&mut b, ATTRIBUTES, &6i16.to_be_bytes());
    assert_eq!(
        validate(&b, &config()).unwrap_err(),
        ErrorCode::UnsupportedCompressionType
    );
}

#[test]
fn create_time_bounds() {
    let b = built(Codec::None, 3); // timestamps NOW-100 ..= NOW-80
    let before = ValidationConfig {
        timestamp_before_max_ms: 99,
        ..config()
    };
    assert_eq!(
        validate(&b, &before).unwrap_err(),
        ErrorCode::InvalidTimestamp
    );
    let before_ok = ValidationConfig {
        timestamp_before_max_ms: 100,
        ..config()
    };
    assert!(validate(&b, &before_ok).is_ok());

    let future = BatchBuilder::new(Codec::Zstd)
        .record(Record::new(Some(b"k"), None, NOW + 50))
        .build();
    let after = ValidationConfig {
        timestamp_after_max_ms: 49,
        ..config()
    };
    assert_eq!(
        validate(&future, &after).unwrap_err(),
        ErrorCode::InvalidTimestamp
    );

    let none = BatchBuilder::new(Codec::None)
        .record(Record::new(None, Some(b"v"), -1))
        .build();
    let strict = ValidationConfig {
        timestamp_before_max_ms: 0,
        timestamp_after_max_ms: 0,
        ..config()
    };
    assert!(validate(&none, &strict).is_ok());

    let extreme = BatchBuilder::new(Codec::None)
        .record(Record::new(None, None, i64::MIN))
        .build();
    assert_eq!(
        validate(&extreme, &strict).unwrap_err(),
        ErrorCode::InvalidTimestamp
    );
}

#[test]
fn client_log_append_time_batches_are_refused() {
    let mut b = built(Codec::None, 1);
    patch(&mut b, ATTRIBUTES, &ATTR_TIMESTAMP_TYPE.to_be_bytes());
    assert_eq!(
        validate(&b, &config()).unwrap_err(),
        ErrorCode::InvalidTimestamp
    );
}

#[test]
fn compacted_topics_need_keys() {
    let compacted = ValidationConfig {
        compacted: true,
        ..config()
    };
    assert!(validate(&built(Codec::Snappy, 3), &compacted).is_ok());
    let keyless = BatchBuilder::new(Codec::Snappy)
        .record(Record::new(None, Some(b"v"), NOW))
        .build();
    assert_eq!(
        validate(&keyless, &compacted).unwrap_err(),
        ErrorCode::InvalidRecord
    );
    assert!(validate(&keyless, &config()).is_ok());
}

#[test]
fn every_record_breaking_a_rule_is_reported_with_its_index() {
    let config = ValidationConfig {
        compacted: true,
        timestamp_before_max_ms: 60_000,
        timestamp_after_max_ms: 3_600_000,
        ..config()
    };
    for codec in CODECS {
        let batch = BatchBuilder::new(codec)
            .record(Record::new(Some(b"k"), Some(b"ok"), NOW))
            .record(Record::new(None, Some(b"keyless"), NOW))
            .record(Record::new(Some(b"k"), Some(b"old"), NOW - 3_600_000))
            .record(Record::new(None, Some(b"both"), NOW - 3_600_000))
            .build();
        let rejected = validate_batch(BytesMut::from(&batch[..]), &config, NOW).unwrap_err();
        // A timestamp error anywhere makes the batch's error INVALID_TIMESTAMP; a record
        // breaking both rules reports its key first, as Kafka's validateRecord.
        assert_eq!(rejected.code, ErrorCode::InvalidTimestamp, "{codec:?}");
        let old = RecordRule::Timestamp {
            timestamp: NOW - 3_600_000,
            offset: 2,
            low: NOW - 60_000,
            high: NOW + 3_600_000,
        };
        assert_eq!(
            rejected.records,
            vec![
                (1, RecordRule::MissingKey),
                (2, old),
                (3, RecordRule::MissingKey)
            ],
            "{codec:?}"
        );
    }
}

#[test]
fn log_append_time_sets_max_timestamp_and_the_attribute() {
    let lat = ValidationConfig {
        timestamp_type: TimestampType::LogAppendTime,
        ..config()
    };
    for codec in [Codec::None, Codec::Zstd] {
        let bytes = built(codec, 4);
        let v = validate(&bytes, &lat).unwrap();
        assert!(crc_is_valid(&v.bytes));
        assert!(v.header.is_log_append_time());
        assert_eq!(
            (v.header.max_timestamp, v.max_timestamp, v.log_append_time),
            (NOW, NOW, NOW)
        );
        assert_eq!(v.offset_delta_of_max_timestamp, 3);
        assert_eq!(
            &v.bytes[HEADER_SIZE..],
            &bytes[HEADER_SIZE..],
            "records untouched"
        );
    }
}

#[test]
fn wrong_max_timestamp_from_the_producer_is_corrected() {
    let mut b = built(Codec::None, 3);
    patch(&mut b, MAX_TIMESTAMP, &0i64.to_be_bytes());
    let v = validate(&b, &config()).unwrap();
    assert_eq!(v.header.max_timestamp, NOW - 80);
    assert!(crc_is_valid(&v.bytes));
}

#[test]
fn recompression_to_the_topic_codec_keeps_producer_fields_and_records() {
    for (source, target, want) in [
        (Codec::None, TargetCompression::Gzip, Codec::Gzip),
        (Codec::Zstd, TargetCompression::Uncompressed, Codec::None),
        (Codec::Snappy, TargetCompression::Lz4, Codec::Lz4),
        (Codec::Lz4, TargetCompression::Zstd, Codec::Zstd),
    ] {
        let mut b = BatchBuilder::new(source).producer(77, 4, 1000);
        b.transactional = true;
        b.records = records(6);
        let bytes = b.build();
        let cfg = ValidationConfig {
            target_compression: target,
            ..config()
        };
        let v = validate(&bytes, &cfg).unwrap();
        assert!(crc_is_valid(&v.bytes));
        let (h, recs) = decode_batch(&v.bytes, 1 << 20).unwrap();
        assert_eq!(h.compression(), want as u8);
        assert_eq!(
            (h.producer_id, h.producer_epoch, h.base_sequence),
            (77, 4, 1000)
        );
        assert!(h.is_transactional());
        assert_eq!(v.header, h);
        let (_, original) = decode_batch(&bytes, 1 << 20).unwrap();
        assert_eq!(recs, original);
    }
    // Same codec as the topic's: kept as sent.
    let bytes = built(Codec::Lz4, 3);
    let cfg = ValidationConfig {
        target_compression: TargetCompression::Lz4,
        ..config()
    };
    assert_eq!(&validate(&bytes, &cfg).unwrap().bytes[..], &bytes[..]);
}

#[test]
fn recompression_that_outgrows_the_limit_is_too_large() {
    let mut b = BatchBuilder::new(Codec::Zstd);
    b.records = vec![Record::new(Some(b"k"), Some(&[0u8; 100_000]), NOW)];
    let bytes = b.build();
    let cfg = ValidationConfig {
        max_message_bytes: 10_000,
        target_compression: TargetCompression::Uncompressed,
        ..config()
    };
    assert!(bytes.len() < 10_000);
    assert_eq!(
        validate(&bytes, &cfg).unwrap_err(),
        ErrorCode::MessageTooLarge
    );
}

#[test]
fn produce_request_records() {
    let one = built(Codec::None, 2);
    assert_eq!(validate_produce_records(&one, 3), Ok(()));
    let mut two = one.clone();
    two.extend_from_slice(&one);
    assert_eq!(
        validate_produce_records(&two, 9),
        Err(ErrorCode::InvalidRecord)
    );
    let mut tail = one.clone();
    tail.extend_from_slice(&[0, 0, 0]);
    assert_eq!(
        validate_produce_records(&tail, 9),
        Err(ErrorCode::InvalidRecord)
    );
    assert_eq!(
        validate_produce_records(&one[..one.len() - 1], 9),
        Err(ErrorCode::InvalidRecord)
    );
    assert_eq!(
        validate_produce_records(&[], 9),
        Err(ErrorCode::InvalidRecord)
    );

    let mut legacy = one.clone();
    legacy[batch::MAGIC] = 1;
    assert_eq!(
        validate_produce_records(&legacy, 3),
        Err(ErrorCode::InvalidRecord)
    );
    assert_eq!(
        validate_produce_records(&legacy, 2),
        Err(ErrorCode::UnsupportedForMessageFormat)
    );

    let zstd = built(Codec::Zstd, 2);
    assert_eq!(
        validate_produce_records(&zstd, 6),
        Err(ErrorCode::UnsupportedCompressionType)
    );
    assert_eq!(validate_produce_records(&zstd, 7), Ok(()));
}

#[test]
fn assign_offsets_keeps_the_crc() {
    let mut b = built(Codec::Gzip, 3);
    assign_offsets(&mut b, 1234, 9);
    let h = BatchHeader::parse(&b).unwrap();
    assert_eq!(
        (h.base_offset, h.last_offset(), h.partition_leader_epoch),
        (1234, 1236, 9)
    );
    assert!(crc_is_valid(&b));
}
