//! The `Server` class: a thin shell over [`crate::server::Server`].

use std::collections::HashMap;
use std::time::Duration;

use bytes::Bytes;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::convert::{
    completed, failures, live_brokers, marker_requests, open_requests, outcomes, producer_row,
    sasl_step, topic_id, topic_metric_row, Completed, LiveBrokerRow, MarkerRow, OpenTuple,
    ProducerRow,
};
use super::types::{PyControlRequest, PyPartitionState, PyReplicaState};
use super::without_gil;
use super::{acl, quotas};
use crate::control::ControlReply;
use crate::log::now_ms;
use crate::metrics::{replica_families, ApiSnapshot, LATENCY_BUCKETS_MS};
use crate::server::request_log::Requester;
use crate::server::{CommandError, Server};

#[pyclass(frozen, subclass, name = "Server", module = "ferrolog_native")]
pub struct PyServer {
    inner: Server,
}

#[pymethods]
impl PyServer {
    /// `inter_broker_sasl`: (mechanism, username, password), the broker's own credentials
    /// when its inter-broker listener is SASL_PLAINTEXT or SASL_SSL.
    #[new]
    #[pyo3(signature = (config, inter_broker_sasl=None))]
    fn new(
        py: Python<'_>,
        config: HashMap<String, String>,
        inter_broker_sasl: Option<super::inter_broker::SaslTuple>,
    ) -> PyResult<Self> {
        let sasl = super::inter_broker::sasl_credentials(inter_broker_sasl)?;
        let inner = without_gil(py, || Server::with_inter_broker_sasl(&config, sasl))?;
        Ok(PyServer { inner })
    }

    fn start(&self, py: Python<'_>) -> PyResult<()> {
        without_gil(py, || self.inner.start()).map_err(CommandError::Io)?;
        Ok(())
    }

    #[getter]
    fn port(&self) -> PyResult<u16> {
        self.inner
            .port()
            .ok_or_else(|| PyRuntimeError::new_err("server not started"))
    }

    /// Each listener's name and bound port, in the order of `listeners`.
    #[getter]
    fn ports(&self) -> PyResult<Vec<(String, u16)>> {
        self.inner
            .ports()
            .ok_or_else(|| PyRuntimeError::new_err("server not started"))
    }

    fn wakeup_fd(&self) -> i32 {
        self.inner.broker().control.wakeup_fd()
    }

    #[pyo3(signature = (max_requests=256))]
    fn take_requests(&self, max_requests: usize) -> Vec<PyControlRequest> {
        let requests = self.inner.broker().control.take_requests(max_requests);
        requests
            .into_iter()
            .map(|inner| PyControlRequest { inner })
            .collect()
    }

    /// `throttle_ms` > 0: the client went over its request quota, and its connection reads
    /// nothing for that long once the response is out.
    #[pyo3(signature = (handle, response, throttle_ms = 0))]
    fn respond(&self, handle: u64, response: &[u8], throttle_ms: u64) {
        let body = Bytes::copy_from_slice(response);
        let reply = match throttle_ms {
            0 => ControlReply::Respond(body),
            ms => ControlReply::RespondThenMute(body, Duration::from_millis(ms)),
        };
        self.inner.broker().control.reply(handle, reply);
    }

    /// The answer to a SASL request, then what the connection does: `step` is "continue",
    /// "tokens" (bare tokens follow, after SaslHandshake v0), "authenticated[-by-token]" (as
    /// `principal`, for `lifetime_ms` if given) or "failed" (closed after the response).
    #[pyo3(signature = (handle, response, step, principal = None, lifetime_ms = None))]
    fn respond_sasl(
        &self,
        handle: u64,
        response: &[u8],
        step: &str,
        principal: Option<&str>,
        lifetime_ms: Option<u64>,
    ) -> PyResult<()> {
        let step = sasl_step(step, principal, lifetime_ms)?;
        let body = Bytes::copy_from_slice(response);
        let control = &self.inner.broker().control;
        control.reply(handle, ControlReply::Sasl(body, step));
        Ok(())
    }

    /// `permits` partitions created or deleted for `client_id` against its
    /// `controller_mutation_rate`: (accepted, throttle ms); `strict`: refused while in debt.
    #[pyo3(signature = (client_id, permits, strict, principal = "User:ANONYMOUS"))]
    fn record_controller_mutation(
        &self,
        client_id: Option<&str>,
        permits: f64,
        strict: bool,
        principal: &str,
    ) -> (bool, u64) {
        let answer = self.inner.broker().quotas.record_controller_mutation(
            crate::quota::user_of(principal),
            client_id.unwrap_or(""),
            permits,
            strict,
            now_ms(),
        );
        (answer.accepted, answer.throttle_ms.max(0) as u64)
    }

    /// Meters `busy_ns` of a Python-served request against `request_percentage`: throttle ms.
    #[pyo3(signature = (client_id, busy_ns, principal = "User:ANONYMOUS"))]
    fn record_request_time(&self, client_id: Option<&str>, busy_ns: u64, principal: &str) -> u64 {
        let throttle = self.inner.broker().quotas.record_request_time(
            crate::quota::user_of(principal),
            client_id.unwrap_or(""),
            Duration::from_nanos(busy_ns),
            now_ms(),
        );
        throttle.max(0) as u64
    }

    fn close_connection(&self, handle: u64) {
        let control = &self.inner.broker().control;
        control.reply(handle, ControlReply::Close);
    }

    /// The share groups' side of the native core (ShareFetch, ShareAcknowledge).
    #[getter]
    fn share_groups(&self) -> super::share::PyShareGroups {
        super::share::PyShareGroups::new(self.inner.broker())
    }

    /// Moving replicas between this broker's log directories (AlterReplicaLogDirs).
    #[getter]
    fn log_dirs(&self) -> super::log_dirs::PyLogDirs {
        super::log_dirs::PyLogDirs::new(self.inner.broker())
    }

    fn shutdown(&self, py: Python<'_>) -> PyResult<()> {
        Ok(without_gil(py, || self.inner.shutdown()).map_err(CommandError::Io)?)
    }

    fn open_partition(
        &self,
        py: Python<'_>,
        topic: &str,
        partition: i32,
        topic_id: &[u8],
        config: HashMap<String, String>,
    ) -> PyResult<()> {
        let id = self::topic_id(topic_id)?;
        without_gil(py, || {
            self.inner.open_partition(topic, partition, id, &config)
        })
        .map_err(PyErr::from)
    }

    /// Many partitions at once: see `Server::open_partitions`. Each entry of `partitions` is
    /// `(topic, partition, topic_id, role, leader_epoch, leader_id, leader_host, leader_port,
    /// isr, replicas)` with `role` one of "none", "leader", "follower" (the fields a role does
    /// not use are ignored). Returns, in order, None or the exception of each partition.
    fn open_partitions(
        &self,
        py: Python<'_>,
        configs: HashMap<String, HashMap<String, String>>,
        partitions: Vec<OpenTuple>,
    ) -> PyResult<Vec<Option<Py<PyAny>>>> {
        let requests = open_requests(partitions)?;
        let outcomes = without_gil(py, || self.inner.open_partitions(&configs, &requests))
            .map_err(PyErr::from)?;
        Ok(failures(py, outcomes))
    }

    fn delete_partition(&self, py: Python<'_>, topic: &str, partition: i32) -> PyResult<()> {
        without_gil(py, || self.inner.delete_partition(topic, partition)).map_err(PyErr::from)
    }

    fn become_leader(
        &self,
        py: Python<'_>,
        topic: &str,
        partition: i32,
        leader_epoch: i32,
        isr: Vec<i32>,
        replicas: Vec<i32>,
    ) -> PyResult<()> {
        without_gil(py, || {
            self.inner
                .become_leader(topic, partition, leader_epoch, isr, replicas)
        })
        .map_err(PyErr::from)
    }

    #[allow(clippy::too_many_arguments)]
    fn become_follower(
        &self,
        py: Python<'_>,
        topic: &str,
        partition: i32,
        leader_epoch: i32,
        leader_id: i32,
        leader_host: &str,
        leader_port: u16,
        replicas: Vec<i32>,
    ) -> PyResult<()> {
        without_gil(py, || {
            self.inner.become_follower(
                topic,
                partition,
                leader_epoch,
                leader_id,
                leader_host,
                leader_port,
                replicas,
            )
        })
        .map_err(PyErr::from)
    }

    fn set_isr(
        &self,
        py: Python<'_>,
        topic: &str,
        partition: i32,
        isr: Vec<i32>,
        leader_epoch: i32,
    ) -> PyResult<()> {
        without_gil(py, || {
            self.inner.set_isr(topic, partition, isr, leader_epoch)
        })
        .map_err(PyErr::from)
    }

    fn replica_states(&self, py: Python<'_>) -> Vec<PyReplicaState> {
        without_gil(py, || self.inner.replica_states())
            .into_iter()
            .map(|inner| PyReplicaState { inner })
            .collect()
    }

    fn update_topic_config(
        &self,
        py: Python<'_>,
        topic: &str,
        config: HashMap<String, String>,
    ) -> PyResult<()> {
        without_gil(py, || self.inner.update_topic_config(topic, &config)).map_err(PyErr::from)
    }

    /// Replaces the client quota configuration (every entity with its quotas).
    fn set_client_quotas(&self, entries: Vec<quotas::PyQuotaEntry>) -> PyResult<()> {
        quotas::set_config(&self.inner.broker().quotas, entries)
    }

    /// Whether authorization is on (`authorizer.class.name`).
    fn authorizer_enabled(&self) -> bool {
        self.inner.broker().authorizer.enabled()
    }

    /// The live brokers' advertised listeners, `(node_id, rack, [(listener, host, port)])`,
    /// replacing the last set: the leaders that Produce and Fetch errors name (KIP-951).
    fn set_live_brokers(&self, brokers: Vec<LiveBrokerRow>) {
        self.inner
            .broker()
            .live_brokers
            .replace(live_brokers(brokers));
    }

    /// Replaces every ACL the broker checks.
    fn set_acls(&self, acls: Vec<acl::PyAcl>) -> PyResult<()> {
        acl::set_acls(&self.inner.broker().authorizer, acls)
    }

    /// For each of `names`, whether `principal` from `host` may do `operation` on it.
    fn authorize(
        &self,
        principal: &str,
        host: &str,
        operation: i8,
        resource_type: i8,
        names: Vec<String>,
    ) -> PyResult<Vec<bool>> {
        let authorizer = &self.inner.broker().authorizer;
        acl::authorize(authorizer, principal, host, operation, resource_type, names)
    }

    /// Whether `principal` from `host` may do `operation` on some resource of the type.
    fn authorize_by_resource_type(
        &self,
        principal: &str,
        host: &str,
        operation: i8,
        resource_type: i8,
    ) -> PyResult<bool> {
        let authorizer = &self.inner.broker().authorizer;
        acl::authorize_by_resource_type(authorizer, principal, host, operation, resource_type)
    }

    fn client_quota_throttles(&self) -> Vec<quotas::ThrottleRow> {
        quotas::throttles(&self.inner.broker().quotas)
    }

    /// The log directories taken offline by an I/O error (Kafka's LogDirFailureChannel);
    /// they come back when the broker restarts.
    fn offline_log_dirs(&self) -> Vec<String> {
        self.inner
            .broker()
            .logs
            .offline_dirs()
            .into_iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect()
    }

    fn partition_states(&self, py: Python<'_>) -> Vec<PyPartitionState> {
        without_gil(py, || self.inner.partition_states())
            .into_iter()
            .map(|inner| PyPartitionState { inner })
            .collect()
    }

    /// The replica families of `/metrics` (partition and leader counts, each partition's log
    /// gauges) as exposition text, written natively: see `metrics::replica_families`.
    fn replica_metrics<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let text = without_gil(py, || replica_families(self.inner.partition_states()));
        PyBytes::new(py, text.as_bytes())
    }

    fn partition_state(
        &self,
        py: Python<'_>,
        topic: &str,
        partition: i32,
    ) -> Option<PyPartitionState> {
        without_gil(py, || self.inner.partition_state(topic, partition))
            .map(|inner| PyPartitionState { inner })
    }

    /// Each hosted topic's data-path counters: `(topic, {field: count})`, fields as in
    /// `TopicMetrics::values`.
    fn topic_metrics(&self) -> Vec<(String, HashMap<&'static str, u64>)> {
        let topics = self.inner.broker().partitions.topic_metrics();
        topics.into_iter().map(topic_metric_row).collect()
    }

    /// Per API: `(api_key, requests, latency bucket counts, latency sum in ms, [(error
    /// code, count)])`; the buckets' bounds are `LATENCY_BUCKETS_MS`, plus one above them.
    fn request_metrics(&self) -> Vec<ApiSnapshot> {
        self.inner.broker().requests.snapshot()
    }

    #[staticmethod]
    fn latency_buckets_ms() -> Vec<u64> {
        LATENCY_BUCKETS_MS.to_vec()
    }

    /// A response Python answered: its error codes `(code, count)` are counted (Kafka's
    /// `ErrorsPerSec`), and logged, rate-limited, when they are not NONE.
    #[pyo3(signature = (api_key, api_version, client_id, peer, codes))]
    fn answered(
        &self,
        api_key: i16,
        api_version: i16,
        client_id: Option<&str>,
        peer: &str,
        codes: Vec<(i16, u64)>,
    ) {
        let broker = self.inner.broker();
        broker.requests.errors(api_key, &codes);
        let who = Requester::new(api_key, api_version, client_id, peer);
        broker.request_log.failed(who, &codes);
    }

    /// A request Python refused by closing its connection, for the request log.
    #[pyo3(signature = (api_key, api_version, client_id, peer, reason))]
    fn refused(
        &self,
        api_key: i16,
        api_version: i16,
        client_id: Option<&str>,
        peer: &str,
        reason: &str,
    ) {
        let who = Requester::new(api_key, api_version, client_id, peer);
        self.inner.broker().request_log.refused(who, reason);
    }

    /// Requests handed to Python and not answered yet (Kafka's `RequestQueueSize`).
    fn request_queue_size(&self) -> usize {
        self.inner.broker().control.pending_count()
    }

    /// `queued.max.request.bytes`' pool: (available, used) bytes, as Kafka's SocketServer
    /// gauges (`MemoryPoolAvailable`, `MemoryPoolUsed`).
    fn request_memory(&self) -> (i64, i64) {
        self.inner.broker().request_memory.gauges()
    }

    fn append(&self, py: Python<'_>, topic: &str, partition: i32, records: &[u8]) -> PyResult<i64> {
        without_gil(py, || self.inner.append(topic, partition, records)).map_err(PyErr::from)
    }

    /// `append` without a thread waiting: the outcome comes from `take_completions` under
    /// `token`, once `completions_fd` is readable.
    fn start_append(
        &self,
        py: Python<'_>,
        topic: &str,
        partition: i32,
        records: &[u8],
        token: u64,
    ) {
        without_gil(py, || {
            self.inner.start_append(topic, partition, records, token)
        });
    }

    /// `write_markers` without a thread waiting (see `start_append`).
    fn start_write_markers(&self, py: Python<'_>, markers: Vec<MarkerRow>, token: u64) {
        let requests = marker_requests(markers);
        without_gil(py, || self.inner.start_write_markers(&requests, token));
    }

    /// The eventfd that is readable while outcomes wait in `take_completions`.
    fn completions_fd(&self) -> i32 {
        self.inner.broker().completions.wakeup_fd()
    }

    /// `(token, outcomes)` of every command started since the last call, each outcome an
    /// offset or the exception the blocking form would have raised; and the markers committed
    /// in `__consumer_offsets` since, `(partition, producer_id, commit)`.
    fn take_completions(&self, py: Python<'_>) -> Completed {
        completed(py, self.inner.broker().completions.take())
    }

    /// Appends transaction markers and waits until they are committed. Each entry of
    /// `markers` is `(topic, partition, producer_id, producer_epoch, coordinator_epoch,
    /// commit)`. Returns, in order, each marker's offset or its exception.
    fn write_markers(&self, py: Python<'_>, markers: Vec<MarkerRow>) -> Vec<Py<PyAny>> {
        let requests = marker_requests(markers);
        outcomes(py, without_gil(py, || self.inner.write_markers(&requests)))
    }

    /// The producers with state in a partition this broker leads: `(producer_id, epoch,
    /// last_sequence, last_timestamp, coordinator_epoch, current_txn_start_offset)` each.
    fn describe_producers(
        &self,
        py: Python<'_>,
        topic: &str,
        partition: i32,
    ) -> PyResult<Vec<ProducerRow>> {
        let producers = without_gil(py, || self.inner.describe_producers(topic, partition))
            .map_err(PyErr::from)?;
        Ok(producers.into_iter().map(producer_row).collect())
    }

    fn read<'py>(
        &self,
        py: Python<'py>,
        topic: &str,
        partition: i32,
        offset: i64,
        max_bytes: i64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let max_bytes = max_bytes.clamp(0, i64::from(i32::MAX)) as u32;
        let data = without_gil(py, || self.inner.read(topic, partition, offset, max_bytes))
            .map_err(PyErr::from)?;
        Ok(PyBytes::new(py, &data))
    }

    fn delete_records(
        &self,
        py: Python<'_>,
        topic: &str,
        partition: i32,
        offset: i64,
    ) -> PyResult<i64> {
        without_gil(py, || self.inner.delete_records(topic, partition, offset)).map_err(PyErr::from)
    }
}
