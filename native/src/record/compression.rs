//! The four codecs of Kafka record batches (attributes bits 0-2).
//! (Interface fixed; bodies being implemented.)

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
}

/// Decompresses a batch's records section. Snappy accepts raw and xerial-framed input.
/// `limit` bounds the output (a decompression bomb is CORRUPT_MESSAGE, not an OOM).
pub fn decompress(codec: Codec, input: &[u8], limit: usize) -> Result<Vec<u8>, ErrorCode> {
    let _ = (codec, input, limit);
    todo!("record::compression::decompress")
}

/// Compresses a records section (Snappy in xerial framing, as the Java client writes it).
pub fn compress(codec: Codec, input: &[u8]) -> Vec<u8> {
    let _ = (codec, input);
    todo!("record::compression::compress")
}
