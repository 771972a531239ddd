//! Client quotas, enforced on the data path (Kafka's `ClientQuotaManager`).
//!
//! The control plane validates and stores the quota configuration (`/config/users`,
//! `/config/clients`) and pushes it here whole ([`QuotaConfig`]); the native core resolves, per
//! request, which configured entity applies to the connection's (user, client-id) with Kafka's
//! precedence ([`entity`]), meters the entity's bytes in Kafka's sampled windows ([`rate`]),
//! and answers the throttle time a request over quota earns ([`manager`]). No Python runs per
//! request.

pub mod entity;
pub mod manager;
pub mod rate;

pub use entity::{EntityName, MetricTags, QuotaConfig, QuotaEntity, QuotaType};
pub use manager::{ClientQuotaManager, Mutation, ThrottleStats};
pub use rate::{Rate, TokenBucket, WindowConfig};

/// The user that user quotas resolve against: the name of the connection's principal
/// `User:<name>` (Kafka's `session.sanitizedUser`, unsanitized as the pushed configuration
/// names users). Unauthenticated connections are `User:ANONYMOUS`, so a quota for user
/// `ANONYMOUS` applies to all of them.
pub fn user_of(principal: &str) -> &str {
    principal.strip_prefix("User:").unwrap_or(principal)
}
