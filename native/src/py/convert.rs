//! What crosses the boundary of the `Server` class as plain tuples (one per partition, marker
//! or producer, so a call with thousands of them builds no Python objects per field), and
//! the Python view of a command's outcomes.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use std::collections::HashMap;
use std::time::Duration;

use crate::control::SaslStep;
use crate::metrics::TopicMetrics;
use crate::server::commands::ActiveProducer;
use crate::server::completions::{MarkerWritten, Outcome};
use crate::server::leader_hints::BrokerNode;
use crate::server::{CommandError, MarkerRequest, OpenRequest, RoleRequest};

/// One producer of `describe_producers`: (producer id, epoch, last sequence, last timestamp,
/// coordinator epoch, current transaction start offset).
pub(super) type ProducerRow = (i64, i16, i32, i64, i32, i64);

/// What `take_completions` hands Python: the outcomes by token, and the markers committed in
/// `__consumer_offsets`.
pub(super) type Completed = (Vec<(u64, Vec<Py<PyAny>>)>, Vec<MarkerWritten>);

pub(super) fn completed(
    py: Python<'_>,
    (done, markers): (Vec<(u64, Outcome)>, Vec<MarkerWritten>),
) -> Completed {
    let done = done
        .into_iter()
        .map(|(t, o)| (t, outcomes(py, o)))
        .collect();
    (done, markers)
}

/// One marker of `write_markers`: (topic, partition, producer id, producer epoch, coordinator
/// epoch, commit, transaction version).
pub(super) type MarkerRow = (String, i32, i64, i16, i32, bool, i8);

pub(super) fn marker_requests(markers: Vec<MarkerRow>) -> Vec<MarkerRequest> {
    markers
        .into_iter()
        .map(
            |(
                topic,
                partition,
                producer_id,
                producer_epoch,
                coordinator_epoch,
                commit,
                version,
            )| {
                MarkerRequest {
                    topic,
                    partition,
                    producer_id,
                    producer_epoch,
                    coordinator_epoch,
                    commit,
                    transaction_version: version,
                }
            },
        )
        .collect()
}

/// Each result as Python sees it: the offset, or the exception the command raises for it.
pub(super) fn outcomes(py: Python<'_>, results: Vec<Result<i64, CommandError>>) -> Vec<Py<PyAny>> {
    results
        .into_iter()
        .map(|outcome| match outcome {
            Ok(offset) => offset.into_pyobject(py).expect("int").into_any().unbind(),
            Err(e) => PyErr::from(e).into_value(py).into_any(),
        })
        .collect()
}

pub(super) fn producer_row(p: ActiveProducer) -> ProducerRow {
    (
        p.producer_id,
        p.producer_epoch,
        p.last_sequence,
        p.last_timestamp,
        p.coordinator_epoch,
        p.current_txn_start_offset,
    )
}

pub(super) fn topic_id(bytes: &[u8]) -> PyResult<[u8; 16]> {
    bytes
        .try_into()
        .map_err(|_| PyValueError::new_err("topic_id must be 16 bytes"))
}

/// See `PyServer::open_partitions`.
pub(super) type OpenTuple = (
    String,
    i32,
    Vec<u8>,
    String,
    i32,
    i32,
    String,
    u16,
    Vec<i32>,
    Vec<i32>,
);

fn open_request(t: OpenTuple) -> PyResult<OpenRequest> {
    let (
        topic,
        partition,
        id,
        role,
        leader_epoch,
        leader_id,
        leader_host,
        leader_port,
        isr,
        replicas,
    ) = t;
    let role = match role.as_str() {
        "none" => RoleRequest::None,
        "leader" => RoleRequest::Leader {
            leader_epoch,
            isr,
            replicas,
        },
        "follower" => RoleRequest::Follower {
            leader_epoch,
            leader_id,
            leader_host,
            leader_port,
            replicas,
        },
        other => return Err(PyValueError::new_err(format!("unknown role {other:?}"))),
    };
    Ok(OpenRequest {
        topic,
        partition,
        topic_id: topic_id(&id)?,
        role,
    })
}

/// `respond_sasl`'s step: "continue", "tokens", "authenticated" or "authenticated-by-token"
/// (with the principal; the second marks a delegation-token login, which may not manage
/// tokens) or "failed".
pub(super) fn sasl_step(
    step: &str,
    principal: Option<&str>,
    lifetime_ms: Option<u64>,
) -> PyResult<SaslStep> {
    let lifetime = lifetime_ms.map(Duration::from_millis);
    Ok(match (step, principal) {
        ("continue", None) => SaslStep::Continue,
        ("tokens", None) => SaslStep::ExpectTokens,
        ("authenticated", Some(principal)) => SaslStep::Authenticated {
            principal: principal.into(),
            by_token: false,
            lifetime,
        },
        ("authenticated-by-token", Some(principal)) => SaslStep::Authenticated {
            principal: principal.into(),
            by_token: true,
            lifetime,
        },
        ("failed", None) => SaslStep::Failed,
        _ => {
            return Err(PyValueError::new_err(format!(
                "invalid SASL step {step:?} (principal {principal:?})"
            )))
        }
    })
}

/// `open_partitions`' tuples as requests (a tuple naming an unknown role: ValueError).
pub(super) fn open_requests(partitions: Vec<OpenTuple>) -> PyResult<Vec<OpenRequest>> {
    partitions.into_iter().map(open_request).collect()
}

/// Each outcome as Python sees it: None, or the exception the command raises for it.
pub(super) fn failures(
    py: Python<'_>,
    results: Vec<Result<(), CommandError>>,
) -> Vec<Option<Py<PyAny>>> {
    results
        .into_iter()
        .map(|o| o.err().map(|e| PyErr::from(e).into_value(py).into_any()))
        .collect()
}

/// One broker of `set_live_brokers`: (node id, rack, [(listener name, host, port)]).
pub(super) type LiveBrokerRow = (i32, Option<String>, Vec<(String, String, i32)>);

pub(super) fn live_brokers(rows: Vec<LiveBrokerRow>) -> HashMap<i32, BrokerNode> {
    rows.into_iter()
        .map(|(id, rack, listeners)| (id, BrokerNode { rack, listeners }))
        .collect()
}

/// One topic of `topic_metrics`: (topic, {field: count}), fields as in `TopicMetrics::values`.
pub(super) fn topic_metric_row(
    (topic, metrics): (String, std::sync::Arc<TopicMetrics>),
) -> (String, HashMap<&'static str, u64>) {
    (topic, metrics.values().into_iter().collect())
}
