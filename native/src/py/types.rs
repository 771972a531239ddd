//! Read-only value classes handed to Python.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::control::{ControlRequest, SaslPhase};
use crate::server::{PartitionState, ReplicaState};

#[pyclass(frozen, subclass, name = "ControlRequest", module = "ferrolog_native")]
pub struct PyControlRequest {
    pub(crate) inner: ControlRequest,
}

#[pymethods]
impl PyControlRequest {
    #[getter]
    fn handle(&self) -> u64 {
        self.inner.handle
    }
    #[getter]
    fn connection_id(&self) -> u64 {
        self.inner.connection_id
    }
    #[getter]
    fn api_key(&self) -> i16 {
        self.inner.api_key
    }
    #[getter]
    fn api_version(&self) -> i16 {
        self.inner.api_version
    }
    #[getter]
    fn correlation_id(&self) -> i32 {
        self.inner.correlation_id
    }
    #[getter]
    fn peer(&self) -> &str {
        &self.inner.peer
    }
    /// The name of the listener the request came in through (empty: the broker's own).
    #[getter]
    fn listener_name(&self) -> &str {
        &self.inner.listener
    }
    /// Kafka's principal of the connection (`User:ANONYMOUS`, or from its client
    /// certificate).
    #[getter]
    fn principal(&self) -> &str {
        &self.inner.principal
    }
    /// Whether the connection authenticated with a delegation token.
    #[getter]
    fn token_authenticated(&self) -> bool {
        self.inner.token_authenticated
    }
    /// Where the connection is in SASL authentication: "done" (authenticated, or not a SASL
    /// listener), "handshake" (before it), "token" (the frame is a bare SASL token).
    #[getter]
    fn sasl_phase(&self) -> &'static str {
        match self.inner.sasl {
            SaslPhase::Done => "done",
            SaslPhase::Handshake => "handshake",
            SaslPhase::Token => "token",
        }
    }
    #[getter]
    fn frame<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.frame)
    }
    fn __repr__(&self) -> String {
        format!(
            "ControlRequest(handle={}, api_key={}, api_version={}, correlation_id={}, peer={:?}, {} bytes)",
            self.inner.handle,
            self.inner.api_key,
            self.inner.api_version,
            self.inner.correlation_id,
            self.inner.peer,
            self.inner.frame.len()
        )
    }
}

#[pyclass(frozen, subclass, name = "PartitionState", module = "ferrolog_native")]
pub struct PyPartitionState {
    pub(crate) inner: PartitionState,
}

#[pymethods]
impl PyPartitionState {
    #[getter]
    fn topic(&self) -> &str {
        &self.inner.topic
    }
    #[getter]
    fn partition(&self) -> i32 {
        self.inner.partition
    }
    #[getter]
    fn topic_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.topic_id)
    }
    #[getter]
    fn is_leader(&self) -> bool {
        self.inner.is_leader
    }
    #[getter]
    fn leader_epoch(&self) -> i32 {
        self.inner.leader_epoch
    }
    #[getter]
    fn log_start_offset(&self) -> i64 {
        self.inner.log_start_offset
    }
    #[getter]
    fn log_end_offset(&self) -> i64 {
        self.inner.log_end_offset
    }
    #[getter]
    fn high_watermark(&self) -> i64 {
        self.inner.high_watermark
    }
    #[getter]
    fn size_bytes(&self) -> u64 {
        self.inner.size_bytes
    }
    #[getter]
    fn role(&self) -> &str {
        self.inner.role
    }
    #[getter]
    fn leader_id(&self) -> i32 {
        self.inner.leader_id
    }
    #[getter]
    fn isr(&self) -> Vec<i32> {
        self.inner.isr.clone()
    }
    #[getter]
    fn replicas(&self) -> Vec<i32> {
        self.inner.replicas.clone()
    }
    #[getter]
    fn last_stable_offset(&self) -> i64 {
        self.inner.last_stable_offset
    }
    #[getter]
    fn log_dir(&self) -> &str {
        &self.inner.log_dir
    }
    fn __repr__(&self) -> String {
        let s = &self.inner;
        format!(
            "PartitionState({}-{}, role={}, leader={}, epoch={}, isr={:?}, start={}, hw={}, end={})",
            s.topic,
            s.partition,
            s.role,
            s.leader_id,
            s.leader_epoch,
            s.isr,
            s.log_start_offset,
            s.high_watermark,
            s.log_end_offset
        )
    }
}

#[pyclass(frozen, subclass, name = "ReplicaState", module = "ferrolog_native")]
pub struct PyReplicaState {
    pub(crate) inner: ReplicaState,
}

#[pymethods]
impl PyReplicaState {
    #[getter]
    fn topic(&self) -> &str {
        &self.inner.topic
    }
    #[getter]
    fn partition(&self) -> i32 {
        self.inner.partition
    }
    #[getter]
    fn replica_id(&self) -> i32 {
        self.inner.replica_id
    }
    #[getter]
    fn log_end_offset(&self) -> i64 {
        self.inner.log_end_offset
    }
    #[getter]
    fn last_caught_up_ms(&self) -> i64 {
        self.inner.last_caught_up_ms
    }
    fn __repr__(&self) -> String {
        let s = &self.inner;
        format!(
            "ReplicaState({}-{}, replica={}, end={}, caught_up_ms={})",
            s.topic, s.partition, s.replica_id, s.log_end_offset, s.last_caught_up_ms
        )
    }
}
