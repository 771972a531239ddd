//! `Server.share_groups`: the share groups' settings as the control plane pushes them to the
//! native core, which serves ShareFetch and ShareAcknowledge (`server::api::share`).

use std::sync::Arc;

use pyo3::prelude::*;

use crate::server::Broker;
use crate::share::{AutoReset, GroupSettings, Limits};

/// `(lock_ms, delivery_limit, max_record_locks, auto_reset, read_committed)`; auto_reset is
/// -2 for earliest, -1 for latest, else a by_duration in ms.
type SettingsRow = (u64, u16, i64, i64, bool);

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

#[pymethods]
impl PyShareGroups {
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
    let (lock_ms, delivery_limit, max_in_flight, auto_reset, read_committed) = row;
    GroupSettings {
        limits: Limits {
            lock_ms,
            delivery_limit,
            max_in_flight,
        },
        auto_reset: AutoReset::from_code(auto_reset),
        read_committed,
    }
}
