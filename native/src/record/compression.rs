//! The four codecs of Kafka record batches (attributes bits 0-2).
//!
//! Every decoder here runs on bytes straight from the network, so each one is bounded by the
//! caller's `limit` (a decompression bomb is CORRUPT_MESSAGE, never an unbounded allocation)
//! and every failure is an error code, never a panic.

use std::io::{Read, Write};

use crate::error::ErrorCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    None = 0,
    Gzip = 1,
    Snappy = 2,
    Lz4 = 3,
    Zstd = 4,
}

impl Codec {
    /// Every codec a record batch may name.
    pub const ALL: [Codec; 5] = [
        Codec::None,
        Codec::Gzip,
        Codec::Snappy,
        Codec::Lz4,
        Codec::Zstd,
    ];

    pub fn from_attributes(attributes: i16) -> Result<Codec, ErrorCode> {
        match attributes & 0x07 {
            0 => Ok(Codec::None),
            1 => Ok(Codec::Gzip),
            2 => Ok(Codec::Snappy),
            3 => Ok(Codec::Lz4),
            4 => Ok(Codec::Zstd),
            _ => Err(ErrorCode::UnsupportedCompressionType),
        }
    }

    /// The codec's value in the attributes' low three bits.
    pub fn attribute_bits(self) -> i16 {
        self as i16
    }
}

/// The header the Java client's snappy-java `SnappyOutputStream` writes: magic, then the
/// format version and the minimum compatible version (both int32 1).
pub const XERIAL_MAGIC: &[u8; 8] = b"\x82SNAPPY\0";
const XERIAL_HEADER_LEN: usize = 16;
/// snappy-java's default block size: Java consumers size their buffers from it.
const XERIAL_BLOCK: usize = 32 * 1024;

/// Decompresses a batch's records section. Snappy accepts raw and xerial-framed input.
/// `limit` bounds the output (a decompression bomb is CORRUPT_MESSAGE, not an OOM).
pub fn decompress(codec: Codec, input: &[u8], limit: usize) -> Result<Vec<u8>, ErrorCode> {
    let mut out = Vec::new();
    decompress_into(codec, input, limit, &mut out)?;
    Ok(out)
}

/// `decompress` into a caller's buffer (cleared first), so a hot path can reuse one
/// allocation across batches. On error the buffer's contents are unspecified.
pub fn decompress_into(
    codec: Codec,
    input: &[u8],
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), ErrorCode> {
    out.clear();
    match codec {
        Codec::None => {
            if input.len() > limit {
                return Err(ErrorCode::CorruptMessage);
            }
            out.extend_from_slice(input);
            Ok(())
        }
        Codec::Gzip => read_bounded(
            flate2::read::MultiGzDecoder::new(input),
            input.len(),
            limit,
            out,
        ),
        Codec::Snappy => {
            if input.starts_with(XERIAL_MAGIC) {
                xerial_decompress(input, limit, out)
            } else {
                raw_snappy_append(input, limit, out)
            }
        }
        Codec::Lz4 => read_bounded(
            lz4_flex::frame::FrameDecoder::new(input),
            input.len(),
            limit,
            out,
        ),
        Codec::Zstd => {
            let mut decoder = zstd::stream::read::Decoder::with_buffer(input)
                .map_err(|_| ErrorCode::CorruptMessage)?;
            decoder
                .window_log_max(zstd_window_log_max(limit))
                .map_err(|_| ErrorCode::CorruptMessage)?;
            read_bounded(decoder, input.len(), limit, out)
        }
    }
}

/// A frame may declare a window (the buffer the decoder allocates up front) far larger than
/// its content. Output is capped at `limit`, so a window beyond it is never needed; the floor
/// of 2^23 keeps every window a standard compression level picks when the size is unknown.
fn zstd_window_log_max(limit: usize) -> u32 {
    let needed = usize::BITS - limit.saturating_sub(1).leading_zeros();
    needed.clamp(23, 27)
}

/// Reads a decoder to its end onto `out`, failing once it produces more than `limit` bytes.
fn read_bounded<R: Read>(
    reader: R,
    input_len: usize,
    limit: usize,
    out: &mut Vec<u8>,
) -> Result<(), ErrorCode> {
    // Batches compress 2-5x typically; start there rather than trusting any declared size.
    out.reserve(input_len.saturating_mul(4).min(limit).min(1 << 20));
    let mut bounded = reader.take(limit as u64 + 1);
    bounded
        .read_to_end(out)
        .map_err(|_| ErrorCode::CorruptMessage)?;
    if out.len() > limit {
        return Err(ErrorCode::CorruptMessage);
    }
    Ok(())
}

/// Decompresses one raw snappy block onto `out`, checking its declared length against what
/// `limit` still allows before allocating.
fn raw_snappy_append(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), ErrorCode> {
    let len = snap::raw::decompress_len(input).map_err(|_| ErrorCode::CorruptMessage)?;
    if len > limit.saturating_sub(out.len()) {
        return Err(ErrorCode::CorruptMessage);
    }
    let start = out.len();
    out.resize(start + len, 0);
    let written = snap::raw::Decoder::new()
        .decompress(input, &mut out[start..])
        .map_err(|_| ErrorCode::CorruptMessage)?;
    out.truncate(start + written);
    Ok(())
}

/// xerial framing: the 16-byte header, then `[int32 length, raw snappy block]*`.
fn xerial_decompress(input: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), ErrorCode> {
    if input.len() < XERIAL_HEADER_LEN {
        return Err(ErrorCode::CorruptMessage);
    }
    let mut rest = &input[XERIAL_HEADER_LEN..];
    while !rest.is_empty() {
        if rest.len() < 4 {
            return Err(ErrorCode::CorruptMessage);
        }
        let len = i32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]);
        rest = &rest[4..];
        if len < 0 || len as usize > rest.len() {
            return Err(ErrorCode::CorruptMessage);
        }
        let (block, tail) = rest.split_at(len as usize);
        raw_snappy_append(block, limit, out)?;
        rest = tail;
    }
    Ok(())
}

/// Compresses a records section (Snappy in xerial framing, as the Java client writes it).
pub fn compress(codec: Codec, input: &[u8]) -> Vec<u8> {
    match codec {
        Codec::None => input.to_vec(),
        Codec::Gzip => {
            let mut enc = flate2::write::GzEncoder::new(
                Vec::with_capacity(input.len() / 2 + 32),
                flate2::Compression::default(),
            );
            enc.write_all(input).expect("writing to a Vec cannot fail");
            enc.finish().expect("writing to a Vec cannot fail")
        }
        Codec::Snappy => xerial_compress(input),
        Codec::Lz4 => {
            // What the Java producer writes: 64 KiB independent blocks, no checksums but the
            // header's. Larger blocks would make every Java consumer allocate larger buffers.
            let info = lz4_flex::frame::FrameInfo::new()
                .block_size(lz4_flex::frame::BlockSize::Max64KB)
                .block_mode(lz4_flex::frame::BlockMode::Independent);
            let mut enc = lz4_flex::frame::FrameEncoder::with_frame_info(
                info,
                Vec::with_capacity(input.len() / 2 + 32),
            );
            enc.write_all(input).expect("writing to a Vec cannot fail");
            enc.finish().expect("writing to a Vec cannot fail")
        }
        // Level 3 is zstd's default and what the Java client uses unless configured.
        Codec::Zstd => zstd::bulk::compress(input, 3).expect("zstd compression of a buffer"),
    }
}

fn xerial_compress(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(XERIAL_HEADER_LEN + input.len() / 2 + 64);
    out.extend_from_slice(XERIAL_MAGIC);
    out.extend_from_slice(&1i32.to_be_bytes());
    out.extend_from_slice(&1i32.to_be_bytes());
    let mut encoder = snap::raw::Encoder::new();
    let mut block = vec![0u8; snap::raw::max_compress_len(XERIAL_BLOCK)];
    for chunk in input.chunks(XERIAL_BLOCK) {
        let n = encoder
            .compress(chunk, &mut block)
            .expect("block is sized by max_compress_len");
        out.extend_from_slice(&(n as i32).to_be_bytes());
        out.extend_from_slice(&block[..n]);
    }
    out
}

/// Raw (unframed) snappy, as librdkafka writes it. Used by tests and tools that need to
/// produce what librdkafka sends.
pub fn compress_raw_snappy(input: &[u8]) -> Vec<u8> {
    snap::raw::Encoder::new()
        .compress_vec(input)
        .expect("snappy compression of a buffer")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ALL: [Codec; 5] = Codec::ALL;

    fn sample(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i % 251) as u8 ^ (i / 7) as u8).collect()
    }

    #[test]
    fn every_codec_round_trips() {
        for codec in ALL {
            for n in [0, 1, 100, XERIAL_BLOCK, XERIAL_BLOCK * 3 + 17] {
                let data = sample(n);
                let packed = compress(codec, &data);
                assert_eq!(
                    decompress(codec, &packed, n).unwrap(),
                    data,
                    "{codec:?} {n}"
                );
            }
        }
    }

    #[test]
    fn snappy_is_written_xerial_and_read_both_ways() {
        let data = sample(100_000);
        let framed = compress(Codec::Snappy, &data);
        assert!(framed.starts_with(XERIAL_MAGIC));
        assert_eq!(
            decompress(Codec::Snappy, &framed, data.len()).unwrap(),
            data
        );
        let raw = compress_raw_snappy(&data);
        assert!(!raw.starts_with(XERIAL_MAGIC));
        assert_eq!(decompress(Codec::Snappy, &raw, data.len()).unwrap(), data);
    }

    #[test]
    fn zstd_windows_beyond_what_the_limit_needs_are_refused() {
        // A streamed frame without a content size keeps its declared 128 MiB window: the
        // decoder would allocate it up front for a few bytes of output.
        let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        enc.window_log(27).unwrap();
        enc.include_contentsize(false).unwrap();
        enc.write_all(b"tiny").unwrap();
        let packed = enc.finish().unwrap();
        assert_eq!(
            decompress(Codec::Zstd, &packed, 1 << 20),
            Err(ErrorCode::CorruptMessage)
        );
        assert_eq!(decompress(Codec::Zstd, &packed, 1 << 27).unwrap(), b"tiny");
    }

    #[test]
    fn lz4_frames_use_java_block_size() {
        let packed = compress(Codec::Lz4, &sample(300_000));
        assert_eq!(&packed[..4], &[0x04, 0x22, 0x4d, 0x18], "LZ4 frame magic");
        assert_eq!(packed[5] & 0x70, 0x40, "64 KiB blocks");
    }

    #[test]
    fn output_beyond_the_limit_is_corrupt() {
        let data = vec![0u8; 1 << 20];
        for codec in ALL {
            let packed = compress(codec, &data);
            assert_eq!(
                decompress(codec, &packed, data.len() - 1),
                Err(ErrorCode::CorruptMessage),
                "{codec:?}"
            );
            assert!(decompress(codec, &packed, data.len()).is_ok());
        }
        let raw = compress_raw_snappy(&data);
        assert_eq!(
            decompress(Codec::Snappy, &raw, 1000),
            Err(ErrorCode::CorruptMessage)
        );
    }

    #[test]
    fn truncated_and_garbage_input_is_corrupt() {
        let data = sample(5000);
        for codec in [Codec::Gzip, Codec::Snappy, Codec::Lz4, Codec::Zstd] {
            let packed = compress(codec, &data);
            let cut = &packed[..packed.len() / 2];
            assert_eq!(
                decompress(codec, cut, 1 << 20),
                Err(ErrorCode::CorruptMessage),
                "{codec:?}"
            );
            assert!(
                decompress(codec, b"definitely not compressed", 1 << 20).is_err(),
                "{codec:?}"
            );
        }
        let mut bad_xerial = XERIAL_MAGIC.to_vec();
        bad_xerial.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff, 1]);
        assert_eq!(
            decompress(Codec::Snappy, &bad_xerial, 1 << 20),
            Err(ErrorCode::CorruptMessage)
        );
    }

    #[test]
    fn unknown_codec_bits_are_unsupported() {
        assert_eq!(
            Codec::from_attributes(5),
            Err(ErrorCode::UnsupportedCompressionType)
        );
        assert_eq!(Codec::from_attributes(0x13), Ok(Codec::Lz4));
    }

    proptest! {
        #[test]
        fn decompressing_random_bytes_never_panics(
            codec in 0i16..5,
            bytes in proptest::collection::vec(any::<u8>(), 0..512),
        ) {
            let codec = Codec::from_attributes(codec).unwrap();
            let _ = decompress(codec, &bytes, 1 << 16);
            let mut framed = XERIAL_MAGIC.to_vec();
            framed.extend_from_slice(&bytes);
            let _ = decompress(Codec::Snappy, &framed, 1 << 16);
        }

        #[test]
        fn flipping_bytes_of_compressed_data_never_panics(
            codec in 1i16..5,
            flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        ) {
            let codec = Codec::from_attributes(codec).unwrap();
            let mut packed = compress(codec, &sample(3000));
            for (at, x) in flips {
                let i = at % packed.len();
                packed[i] ^= x | 1;
            }
            let _ = decompress(codec, &packed, 1 << 16);
        }
    }
}
