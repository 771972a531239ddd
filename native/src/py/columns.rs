//! `decode_columns`: one Fetch response partition's records as Arrow-layout buffers, for the
//! PySpark data source (`ferrolog.spark`), which wraps them into a `pyarrow.RecordBatch`.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::record::columns::{decode_columns as decode, BinaryColumn, Columns, DecodeOptions};
use crate::server::CommandError;

/// A variable-width column's three buffers and its null count.
#[pyclass(name = "BinaryBuffers", module = "ferrolog_native", frozen)]
pub struct PyBinaryBuffers {
    #[pyo3(get)]
    offsets: Py<PyBytes>,
    #[pyo3(get)]
    data: Py<PyBytes>,
    #[pyo3(get)]
    validity: Py<PyBytes>,
    #[pyo3(get)]
    null_count: usize,
}

impl PyBinaryBuffers {
    fn new(py: Python<'_>, c: &BinaryColumn) -> Self {
        PyBinaryBuffers {
            offsets: PyBytes::new(py, &c.offsets).unbind(),
            data: PyBytes::new(py, &c.data).unbind(),
            validity: PyBytes::new(py, &c.validity).unbind(),
            null_count: c.null_count,
        }
    }
}

#[pyclass(name = "DecodedColumns", module = "ferrolog_native", frozen)]
pub struct PyDecodedColumns {
    #[pyo3(get)]
    rows: usize,
    #[pyo3(get)]
    next_offset: i64,
    #[pyo3(get)]
    offsets: Py<PyBytes>,
    #[pyo3(get)]
    timestamps: Py<PyBytes>,
    #[pyo3(get)]
    timestamp_types: Py<PyBytes>,
    #[pyo3(get)]
    keys: Py<PyBinaryBuffers>,
    #[pyo3(get)]
    values: Py<PyBinaryBuffers>,
    #[pyo3(get)]
    header_offsets: Py<PyBytes>,
    #[pyo3(get)]
    header_validity: Py<PyBytes>,
    #[pyo3(get)]
    header_null_count: usize,
    #[pyo3(get)]
    header_keys: Py<PyBinaryBuffers>,
    #[pyo3(get)]
    header_values: Py<PyBinaryBuffers>,
}

impl PyDecodedColumns {
    fn new(py: Python<'_>, c: &Columns) -> PyResult<Self> {
        let bytes = |b: &[u8]| PyBytes::new(py, b).unbind();
        let binary = |b: &BinaryColumn| Py::new(py, PyBinaryBuffers::new(py, b));
        Ok(PyDecodedColumns {
            rows: c.rows,
            next_offset: c.next_offset,
            offsets: bytes(&c.offsets),
            timestamps: bytes(&c.timestamps),
            timestamp_types: bytes(&c.timestamp_types),
            keys: binary(&c.keys)?,
            values: binary(&c.values)?,
            header_offsets: bytes(&c.header_offsets),
            header_validity: bytes(&c.header_validity),
            header_null_count: c.header_null_count,
            header_keys: binary(&c.header_keys)?,
            header_values: binary(&c.header_values)?,
        })
    }
}

#[pyfunction]
#[pyo3(signature = (records, start, end, include_headers=false, aborted=None, verify_crc=true))]
pub fn decode_columns(
    py: Python<'_>,
    records: &[u8],
    start: i64,
    end: i64,
    include_headers: bool,
    aborted: Option<Vec<(i64, i64)>>,
    verify_crc: bool,
) -> PyResult<PyDecodedColumns> {
    let opts = DecodeOptions {
        start,
        end,
        include_headers,
        verify_crc,
        aborted,
        // Kafka's own bound on a batch (message.max.bytes is an i32).
        max_decompressed: i32::MAX as usize,
    };
    // Decoding a fetch response is the long part of a Spark read task: other Python threads
    // (the task's fetcher) run meanwhile.
    let columns = super::without_gil(py, || decode(records, &opts))
        .map_err(|e| CommandError::Kafka(e, "cannot decode fetched records".into()))?;
    PyDecodedColumns::new(py, &columns)
}
