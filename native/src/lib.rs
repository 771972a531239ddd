//! ferrolog's native core: the data path of a Kafka-compatible broker.
//!
//! Rust does bytes, Python does decisions. This crate stores partitions (`log`), validates and
//! rewrites record batches (`record`), serves Produce, Fetch and ListOffsets over TCP without
//! Python (`server`, `protocol`, `replica`), keeps share groups' records in flight (`share`),
//! and hands every other request to the Python control plane through one queue (`control`).
//! Its settings are the Python config table's, read through a table generated from it
//! (`properties`). pyo3 appears only in `py`, behind the `python` feature.

pub mod acl;
pub mod client;
pub mod control;
pub mod error;
pub mod log;
pub mod logging;
pub mod metrics;
pub mod properties;
pub mod protocol;
pub mod quota;
pub mod record;
pub mod replica;
pub mod server;
pub mod share;
pub mod tls;

#[cfg(feature = "python")]
mod py;
