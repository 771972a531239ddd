//! The one crossing of native failures into Python exceptions.
//!
//! A Kafka error becomes `KafkaNativeError(code, message)`: one exception type, carrying the
//! wire code of [`ErrorCode`], which `ferrolog.errors.from_native` turns into the Python
//! class of that code (the one place on the Python side). I/O failures become `OSError` and
//! bad configuration values `ValueError`, as Python code expects of them.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError, PyValueError};
use pyo3::PyErr;

use crate::server::CommandError;

create_exception!(
    ferrolog_native,
    KafkaNativeError,
    PyException,
    "A Kafka error from the native core: args == (code, message)."
);

impl From<CommandError> for PyErr {
    fn from(e: CommandError) -> PyErr {
        match e {
            CommandError::Kafka(code, message) => KafkaNativeError::new_err((code.code(), message)),
            CommandError::Io(io) => PyOSError::new_err(io.to_string()),
            CommandError::Config(message) => PyValueError::new_err(message),
        }
    }
}
