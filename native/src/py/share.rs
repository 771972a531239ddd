//! `Server.share_groups`: the share groups' settings as the control plane pushes them to the
//! native core, which serves ShareFetch and ShareAcknowledge (`server::api::share`).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use pyo3::prelude::*;

use crate::server::Broker;
use crate::share::{AutoReset, GroupSettings, Limits};

/// `(lock_ms, delivery_limit, max_record_locks, auto_reset, read_committed, renew)`;
/// auto_reset is -2 for earliest, -1 for latest, else a by_duration in ms.
type SettingsRow = (u64, u16, i64, i64, bool, bool);

#[pyclass(frozen, name = "ShareGroups", module = "ferrolog_native")]
pub struct PyShareGroups {
    broker: Arc<Broker>,
}

impl PyShareGroups {
    pub(super) fn new(broker: &Arc<Broker>) -> PyShareGroups {
        PyShareGroups {
            broker: Arc::clone(broker),
        }
    }
}

/// (group, topic, partition, in-flight records, in-flight batches, lock timeouts, lag).
type PartitionRow = (String, String, i32, i64, u64, u64, i64);

#[pymethods]
impl PyShareGroups {
    /// Each share-partition led here, as Kafka's SharePartitionMetrics count it. One being
    /// loaded or written at this moment is left out of this reading: the metrics never wait
    /// for the data path.
    fn partition_metrics(&self) -> Vec<PartitionRow> {
        let mut rows = Vec::new();
        for entry in self.broker.share.all() {
            let key = &entry.key;
            let Ok(state) = entry.state.try_lock() else {
                continue;
            };
            let Some(loaded) = state.as_ref() else {
                continue;
            };
            let sp = &loaded.partition;
            let (records, batches) = sp.in_flight();
            let timeouts = entry.lock_timeouts.load(Ordering::Relaxed);
            // What is left to deliver, as DescribeShareGroupOffsets measures it: the high
            // watermark less the start offset and the records past it already done with.
            let Ok(log) = self
                .broker
                .partitions
                .get_by_id(&key.topic_id, key.partition)
            else {
                continue;
            };
            let high_watermark = log.log().read().high_watermark();
            let lag = (high_watermark - sp.start_offset() - sp.delivery_complete()).max(0);
            let (group, partition) = (key.group.to_string(), key.partition);
            let topic = entry.topic.clone();
            rows.push((
                group,
                topic,
                partition,
                records,
                batches as u64,
                timeouts,
                lag,
            ));
        }
        rows
    }

    /// Replaces the settings: whether `share.version` is on, group.share.max.share.sessions,
    /// the broker's settings and each group's own.
    fn configure(
        &self,
        enabled: bool,
        max_sessions: usize,
        defaults: SettingsRow,
        groups: Vec<(String, SettingsRow)>,
    ) {
        let groups = groups
            .into_iter()
            .map(|(group, row)| (Arc::from(group), settings(row)))
            .collect();
        self.broker
            .share
            .configure(enabled, max_sessions, settings(defaults), groups);
    }
}

fn settings(row: SettingsRow) -> GroupSettings {
    let (lock_ms, delivery_limit, max_in_flight, auto_reset, read_committed, renew) = row;
    GroupSettings {
        limits: Limits {
            lock_ms,
            delivery_limit,
            max_in_flight,
        },
        auto_reset: AutoReset::from_code(auto_reset),
        read_committed,
        renew,
    }
}
