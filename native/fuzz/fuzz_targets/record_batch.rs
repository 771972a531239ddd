//! A record batch as Produce validates it and as the Fetch-side decoders read it. The first
//! two bytes are knobs (Produce version, topic settings, and whether to re-seal the batch's
//! length and CRC after the fuzzer's change), so that mutations reach the checks past the CRC.
#![no_main]

use bytes::BytesMut;
use ferrolog_native::record::batch::update_crc;
use ferrolog_native::record::columns::{decode_columns, DecodeOptions};
use ferrolog_native::record::records::decode_batch;
use ferrolog_native::record::validate::{
    validate_batch, validate_produce_records, TargetCompression, TimestampType, ValidationConfig,
};
use libfuzzer_sys::fuzz_target;

const TARGETS: [TargetCompression; 6] = [
    TargetCompression::Producer,
    TargetCompression::Uncompressed,
    TargetCompression::Gzip,
    TargetCompression::Snappy,
    TargetCompression::Lz4,
    TargetCompression::Zstd,
];
// baseOffset (8) + batchLength (4) + partitionLeaderEpoch (4) + magic (1) + crc (4)
const CRC_END: usize = 21;

fuzz_target!(|data: &[u8]| {
    let [knobs, settings, rest @ ..] = data else {
        return;
    };
    let mut batch = rest.to_vec();
    if knobs & 0x80 != 0 && batch.len() >= CRC_END {
        let length = (batch.len() - 12) as i32;
        batch[8..12].copy_from_slice(&length.to_be_bytes());
        update_crc(&mut batch);
    }
    let version = (knobs & 0x0f) as i16;
    let window = if settings & 2 != 0 {
        3_600_000
    } else {
        i64::MAX
    };
    let _ = validate_produce_records(&batch, version);
    let config = ValidationConfig {
        max_message_bytes: 1 << 20,
        timestamp_type: if settings & 1 != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        },
        timestamp_before_max_ms: window,
        timestamp_after_max_ms: window,
        target_compression: TARGETS[(settings >> 2) as usize % TARGETS.len()],
        compacted: settings & 0x80 != 0,
    };
    let _ = validate_batch(BytesMut::from(&batch[..]), &config, 1_700_000_000_000);
    let _ = decode_batch(&batch, 1 << 20);
    let options = DecodeOptions {
        start: 0,
        end: i64::MAX,
        include_headers: true,
        verify_crc: knobs & 0x40 != 0,
        aborted: (knobs & 0x20 != 0).then(|| vec![(1, 0)]),
        max_decompressed: 1 << 20,
    };
    let _ = decode_columns(&batch, &options);
});
