//! The client quota configuration as Python hands it over, and the throttle counts as it reads
//! them (`Server.set_client_quotas`, `Server.client_quota_throttles`).

use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::quota::{ClientQuotaManager, EntityName, QuotaConfig, QuotaEntity};

/// One configured entity as Kafka's `ClientQuotaEntity` spells it, `{"user": "alice",
/// "client-id": None}` (None: the default), with its quotas by key.
pub(super) type PyQuotaEntry = (HashMap<String, Option<String>>, HashMap<String, f64>);

/// (quota type, user, client-id, total throttle ms, throttled responses).
pub(super) type ThrottleRow = (String, String, String, u64, u64);

fn entity(parts: &HashMap<String, Option<String>>) -> PyResult<QuotaEntity> {
    let name = |part: &Option<String>| match part {
        None => EntityName::Default,
        Some(name) => EntityName::Name(name.clone()),
    };
    if let Some(other) = parts
        .keys()
        .find(|k| !matches!(k.as_str(), "user" | "client-id"))
    {
        return Err(PyValueError::new_err(format!(
            "unknown quota entity type {other:?}"
        )));
    }
    Ok(QuotaEntity {
        user: parts.get("user").map(name),
        client_id: parts.get("client-id").map(name),
    })
}

pub(super) fn set_config(quotas: &ClientQuotaManager, entries: Vec<PyQuotaEntry>) -> PyResult<()> {
    let mut parsed = Vec::with_capacity(entries.len());
    for (parts, values) in entries {
        parsed.push((entity(&parts)?, values));
    }
    quotas.set_config(QuotaConfig::new(parsed));
    Ok(())
}

pub(super) fn throttles(quotas: &ClientQuotaManager) -> Vec<ThrottleRow> {
    quotas
        .throttle_stats()
        .into_iter()
        .map(|(kind, tags, stats)| {
            (
                kind.name().to_string(),
                tags.user,
                tags.client_id,
                stats.total_ms,
                stats.count,
            )
        })
        .collect()
}
