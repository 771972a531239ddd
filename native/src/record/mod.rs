//! Record batches: the v2 header, validation, compression codecs and producer state.
//!
//! - `batch`: the fixed 61-byte header, read and patched in place; CRC-32C.
//! - `records`, `varint`: the records section, walked in place or decoded.
//! - `builder`: writes batches (tests, internal topics, transaction markers).
//! - `columns`: fetched batches decoded into Arrow-layout column buffers (consumers).
//! - `compression`: gzip, snappy (raw and xerial), lz4 frame, zstd; bounded decompression.
//! - `validate`: Kafka's produce validation and the rewrites it allows; `rejected`: why a
//!   batch was refused, per record (KIP-467).
//! - `producer`, `producer_snapshot`: idempotence and transaction state, and its snapshots.

pub mod batch;
pub mod builder;
pub mod columns;
pub mod compression;
pub mod producer;
pub mod producer_snapshot;
pub mod records;
pub mod rejected;
pub mod validate;
pub mod varint;

#[cfg(test)]
mod interop_tests;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod replay_tests;
