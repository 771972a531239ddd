//! The properties the native core reads, for the control plane's check against its table.

use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::log::LogConfig;
use crate::server::ServerConfig;

/// `{"server": [...], "topic": [...]}`: the names `Server(config)` and `open_partition` read,
/// found by running their parsers.
#[pyfunction]
pub(crate) fn config_names() -> PyResult<HashMap<&'static str, Vec<&'static str>>> {
    let server = ServerConfig::property_names().map_err(PyValueError::new_err)?;
    let topic = LogConfig::property_names().map_err(PyValueError::new_err)?;
    Ok(HashMap::from([("server", server), ("topic", topic)]))
}
