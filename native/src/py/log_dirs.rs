//! `Server.log_dirs`: moving replicas between this broker's log directories while they serve
//! (AlterReplicaLogDirs; the work is `log::dir_move`'s).

use std::sync::Arc;

use pyo3::prelude::*;

use super::without_gil;
use crate::server::{Broker, CommandError};

/// (topic, partition, destination log directory, size in bytes, offset lag) of a future log.
type FutureRow = (String, i32, String, u64, i64);

#[pyclass(frozen, name = "LogDirs", module = "ferrolog_native")]
pub struct PyLogDirs {
    broker: Arc<Broker>,
}

impl PyLogDirs {
    pub(super) fn new(broker: &Arc<Broker>) -> PyLogDirs {
        PyLogDirs {
            broker: Arc::clone(broker),
        }
    }
}

#[pymethods]
impl PyLogDirs {
    /// Moves the partition's log to `log_dir`; False when the partition is not hosted here.
    fn alter(&self, py: Python<'_>, topic: &str, partition: i32, log_dir: &str) -> PyResult<bool> {
        let path = std::path::Path::new(log_dir);
        let moved = without_gil(py, || self.broker.logs.alter_dir(topic, partition, path));
        Ok(moved.map_err(|(code, message)| CommandError::Kafka(code, message))?)
    }

    /// The logs being moved here, as DescribeLogDirs lists them.
    fn futures(&self, py: Python<'_>) -> Vec<FutureRow> {
        without_gil(py, || self.broker.logs.future_logs())
            .into_iter()
            .map(|f| {
                let dir = f.log_dir.to_string_lossy().into_owned();
                (f.topic, f.partition, dir, f.size_bytes, f.offset_lag)
            })
            .collect()
    }

    /// `replica.alter.log.dirs.io.max.bytes.per.second` changed (None: no limit).
    fn set_rate(&self, bytes_per_second: Option<i64>) {
        self.broker.logs.set_alter_log_dirs_rate(bytes_per_second);
    }
}
