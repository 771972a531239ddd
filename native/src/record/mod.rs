//! Record batches: the v2 header, validation, compression codecs and producer state.

pub mod batch;
pub mod builder;
pub mod compression;
pub mod producer;
pub mod producer_snapshot;
pub mod records;
pub mod validate;
pub mod varint;

#[cfg(test)]
mod interop_tests;
#[cfg(test)]
mod proptests;
