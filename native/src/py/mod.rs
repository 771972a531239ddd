//! The Python extension module `ferrolog_native` (the only module that uses pyo3). Its surface
//! is `native/ferrolog_native.pyi`; errors cross in one place (`From<CommandError> for PyErr`
//! in [`error`]) and every call that touches disk or waits releases the GIL through one helper
//! ([`without_gil`]).

mod acl;
mod columns;
mod config;
mod convert;
mod error;
mod inter_broker;
mod log_dirs;
mod quotas;
mod server;
mod share;
mod types;

use std::collections::HashMap;

use bytes::BytesMut;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::error::ErrorCode;
use crate::log::LogConfig;
use crate::record::builder::{BatchBuilder, Record};
use crate::record::compression::{self, Codec};
use crate::server::CommandError;

/// Runs `f` with the GIL released (disk, waits); the one place the module lets go of it.
pub(crate) fn without_gil<T: Send, F: FnOnce() -> T + Send>(py: Python<'_>, f: F) -> T {
    py.detach(f)
}

fn codec(code: i32) -> PyResult<Codec> {
    i16::try_from(code)
        .ok()
        .filter(|c| (0..=4).contains(c))
        .and_then(|c| Codec::from_attributes(c).ok())
        .ok_or_else(|| PyValueError::new_err(format!("unknown codec {code}")))
}

#[pyfunction]
fn native_api_versions() -> HashMap<i16, (i16, i16)> {
    crate::protocol::NATIVE_API_VERSIONS
        .iter()
        .map(|(k, min, max)| (*k, (*min, *max)))
        .collect()
}

/// Whether every one of the log directories `dirs` was shut down cleanly, asked before the
/// broker opens them: a broker that stopped uncleanly may have lost records it acknowledged,
/// so its controller takes it out of the eligible leader replicas (KIP-966).
#[pyfunction]
fn shut_down_cleanly(dirs: Vec<String>) -> PyResult<bool> {
    for dir in dirs {
        if !crate::log::shut_down_cleanly(std::path::Path::new(&dir))? {
            return Ok(false);
        }
    }
    Ok(true)
}

#[pyfunction]
fn error_codes() -> HashMap<String, i16> {
    ErrorCode::ALL
        .iter()
        .map(|(code, name)| (crate::error::upper_snake(name), code.code()))
        .collect()
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pyfunction]
#[pyo3(name = "crc32c")]
fn crc32c_py(data: &[u8]) -> u32 {
    ::crc32c::crc32c(data)
}

#[pyfunction]
fn compress<'py>(py: Python<'py>, codec: i32, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let c = self::codec(codec)?;
    Ok(PyBytes::new(py, &compression::compress(c, data)))
}

#[pyfunction]
fn decompress<'py>(py: Python<'py>, codec: i32, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let c = self::codec(codec)?;
    let out = compression::decompress(c, data, i32::MAX as usize)
        .map_err(|e| CommandError::Kafka(e, "decompression failed".into()))?;
    Ok(PyBytes::new(py, &out))
}

type PyRecord<'py> = (
    Option<Bound<'py, PyBytes>>,
    Option<Bound<'py, PyBytes>>,
    Vec<(String, Option<Bound<'py, PyBytes>>)>,
    i64,
);

#[pyfunction]
#[pyo3(
    signature = (records, codec=0, producer_id=-1, producer_epoch=-1, base_sequence=-1, transactional=false),
    text_signature = "(records, codec=0, producer_id=-1, producer_epoch=-1, base_sequence=-1, transactional=False)"
)]
fn build_batch<'py>(
    py: Python<'py>,
    records: Vec<PyRecord<'py>>,
    codec: i32,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    transactional: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut builder = BatchBuilder::new(self::codec(codec)?);
    builder.producer_id = producer_id;
    builder.producer_epoch = producer_epoch;
    builder.base_sequence = base_sequence;
    builder.transactional = transactional;
    let bytes = |b: &Option<Bound<'py, PyBytes>>| b.as_ref().map(|b| b.as_bytes().to_vec());
    builder.records = records
        .iter()
        .map(|(key, value, headers, timestamp)| Record {
            key: bytes(key),
            value: bytes(value),
            headers: headers.iter().map(|(k, v)| (k.clone(), bytes(v))).collect(),
            timestamp: *timestamp,
        })
        .collect();
    Ok(PyBytes::new(py, &builder.build()))
}

#[pyfunction]
fn validate_batch<'py>(
    py: Python<'py>,
    batch: &[u8],
    config: HashMap<String, String>,
    now_ms: i64,
) -> PyResult<Bound<'py, PyBytes>> {
    let config = LogConfig::from_map(&config).map_err(CommandError::Config)?;
    let validated = crate::record::validate::validate_batch(
        BytesMut::from(batch),
        &config.validation(),
        now_ms,
    )
    .map_err(|r| CommandError::from(r.code))?;
    Ok(PyBytes::new(py, &validated.bytes))
}

/// Installs the native core's logger: `level` as Python's logging names it (DEBUG, INFO,
/// WARNING, ERROR, CRITICAL), `fmt` one of `ferrolog.logs.FORMATS`.
/// A record's key and value, each absent when null.
type KeyValue = (Option<Py<PyBytes>>, Option<Py<PyBytes>>);
/// One batch of `decode_batches`: (base offset, last offset, producer id, producer epoch,
/// transactional, the marker's outcome (True: COMMIT) or None for a data batch, its records).
type ReplayRow = (i64, i64, i64, i16, bool, Option<bool>, Vec<KeyValue>);

/// The batches of a coordinator's internal topic as its load replays them: every whole
/// batch of `records` (a partial last one left out), decompressed, so Python never parses a
/// record batch.
#[pyfunction]
fn decode_batches(py: Python<'_>, records: &[u8]) -> PyResult<Vec<ReplayRow>> {
    let batches = without_gil(py, || {
        crate::record::records::replay_batches(records, i32::MAX as usize)
    })
    .map_err(|e| CommandError::Kafka(e, "cannot decode the coordinator's batches".into()))?;
    let bytes = |b: &Option<Vec<u8>>| b.as_deref().map(|b| PyBytes::new(py, b).unbind());
    Ok(batches
        .into_iter()
        .map(|b| {
            let h = b.header;
            let records = b.records.iter().map(|r| (bytes(&r.key), bytes(&r.value)));
            (
                h.base_offset,
                h.last_offset(),
                h.producer_id,
                h.producer_epoch,
                h.is_transactional(),
                b.marker.map(|m| m.commit),
                records.collect(),
            )
        })
        .collect())
}

#[pyfunction]
fn init_logging(level: &str, fmt: &str) -> PyResult<()> {
    let level = match level.to_ascii_uppercase().as_str() {
        "DEBUG" | "NOTSET" => ::log::LevelFilter::Debug,
        "INFO" => ::log::LevelFilter::Info,
        "WARNING" | "WARN" => ::log::LevelFilter::Warn,
        "ERROR" | "CRITICAL" | "FATAL" => ::log::LevelFilter::Error,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown log level {other:?}"
            )))
        }
    };
    let format = match fmt {
        "kv" => crate::logging::Format::KeyValue,
        "json" => crate::logging::Format::Json,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown log format {other:?}"
            )))
        }
    };
    crate::logging::init(level, format);
    Ok(())
}

#[pymodule(gil_used = false)]
#[pyo3(name = "ferrolog_native")]
fn init_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<server::PyServer>()?;
    m.add_class::<log_dirs::PyLogDirs>()?;
    m.add_class::<share::PyShareGroups>()?;
    m.add_class::<types::PyControlRequest>()?;
    m.add_class::<types::PyPartitionState>()?;
    m.add_class::<types::PyReplicaState>()?;
    m.add(
        "KafkaNativeError",
        m.py().get_type::<error::KafkaNativeError>(),
    )?;
    m.add_function(wrap_pyfunction!(native_api_versions, m)?)?;
    m.add_function(wrap_pyfunction!(error_codes, m)?)?;
    m.add_function(wrap_pyfunction!(shut_down_cleanly, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(init_logging, m)?)?;
    m.add_function(wrap_pyfunction!(crc32c_py, m)?)?;
    m.add_function(wrap_pyfunction!(compress, m)?)?;
    m.add_function(wrap_pyfunction!(decompress, m)?)?;
    m.add_function(wrap_pyfunction!(decode_batches, m)?)?;
    m.add_function(wrap_pyfunction!(build_batch, m)?)?;
    m.add_function(wrap_pyfunction!(validate_batch, m)?)?;
    m.add_function(wrap_pyfunction!(config::config_names, m)?)?;
    m.add_function(wrap_pyfunction!(inter_broker::inter_broker_tls, m)?)?;
    m.add_function(wrap_pyfunction!(inter_broker::probe_broker, m)?)?;
    m.add_class::<columns::PyDecodedColumns>()?;
    m.add_class::<columns::PyBinaryBuffers>()?;
    m.add_function(wrap_pyfunction!(columns::decode_columns, m)?)?;
    Ok(())
}
