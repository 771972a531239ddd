//! The authorizer: Kafka's ACL model and its decision, with Kafka's semantics (its
//! `AclAuthorizer`, whose ZooKeeper layout ferrolog shares, and `StandardAuthorizer`, which
//! decides the same way).
//!
//! The control plane keeps the ACLs in the metadata store and pushes the whole set here
//! ([`Authorizer::set_acls`], swapped atomically); the natively served APIs check it without
//! Python, and the Python handlers check the same rules through the pyo3 `Server`, so there is
//! one implementation of the matching logic. A connection's decisions are cached per
//! (resource, operation) in its [`Session`] until the next ACL set, so a produce or fetch costs
//! one hash lookup per topic, and nothing at all with authorization off.

mod set;
mod types;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

pub use set::AclSet;
pub use types::{AclBinding, Operation, PatternType, Permission, ResourceType};

/// The only name of the CLUSTER resource (Kafka's `CLUSTER_NAME`).
pub const CLUSTER_NAME: &str = "kafka-cluster";
/// The literal resource name that matches every resource of its type.
pub const WILDCARD_RESOURCE: &str = "*";
/// The principal that matches every principal.
pub const WILDCARD_PRINCIPAL: &str = "User:*";
/// The host that matches every host.
pub const WILDCARD_HOST: &str = "*";

/// Kafka's authorizer class names: either switches ferrolog's authorizer on.
pub const AUTHORIZER_CLASSES: [&str; 2] = [
    "kafka.security.authorizer.AclAuthorizer",
    "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
];

/// `authorizer.class.name`, `super.users` and `allow.everyone.if.no.acl.found`.
#[derive(Debug, Clone, Default)]
pub struct AuthorizerConfig {
    /// Off: every request is authorized, as in Kafka without an authorizer.
    pub enabled: bool,
    /// Principals allowed everything, whatever the ACLs say.
    pub super_users: Vec<String>,
    /// A resource no ACL matches is open to everyone (Kafka's default: closed).
    pub allow_everyone_if_no_acl_found: bool,
}

impl AuthorizerConfig {
    /// Parses the three properties; an authorizer class that is not Kafka's is an error.
    pub fn parse(class: &str, super_users: Option<&str>, allow: bool) -> Result<Self, String> {
        let class = class.trim();
        if !class.is_empty() && !AUTHORIZER_CLASSES.contains(&class) {
            return Err(format!(
                "authorizer.class.name: {class:?} is not an authorizer ferrolog has; set {} or {} \
                 for Kafka's ACLs (ferrolog's own authorizer), or leave it empty for none",
                AUTHORIZER_CLASSES[0], AUTHORIZER_CLASSES[1]
            ));
        }
        Ok(AuthorizerConfig {
            enabled: !class.is_empty(),
            // Kafka splits on ';' and trims each entry.
            super_users: super_users
                .unwrap_or("")
                .split(';')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
            allow_everyone_if_no_acl_found: allow,
        })
    }
}

/// The broker's authorizer: its configuration and the ACL set the control plane last pushed.
#[derive(Debug, Default)]
pub struct Authorizer {
    config: AuthorizerConfig,
    acls: RwLock<Arc<AclSet>>,
    /// Moves on with every new ACL set: connections' cached decisions older than it are stale.
    generation: AtomicU64,
}

impl Authorizer {
    pub fn new(config: AuthorizerConfig) -> Authorizer {
        Authorizer {
            config,
            ..Authorizer::default()
        }
    }

    /// Whether requests are authorized at all.
    #[inline]
    pub fn enabled(&self) -> bool {
        self.config.enabled
    }

    pub fn config(&self) -> &AuthorizerConfig {
        &self.config
    }

    /// Replaces every ACL; decisions from now on are made against `bindings`.
    pub fn set_acls(&self, bindings: &[AclBinding]) {
        let set = Arc::new(AclSet::new(bindings));
        *self.acls.write() = set;
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    fn snapshot(&self) -> Arc<AclSet> {
        Arc::clone(&self.acls.read())
    }

    fn is_super_user(&self, principal: &str) -> bool {
        self.config.super_users.iter().any(|s| s == principal)
    }

    /// Kafka's `authorize` of one action on a literal resource name.
    pub fn authorize(
        &self,
        principal: &str,
        host: &str,
        operation: Operation,
        resource_type: ResourceType,
        name: &str,
    ) -> bool {
        if !self.enabled() || self.is_super_user(principal) {
            return true;
        }
        self.snapshot().authorize(
            principal,
            host,
            operation,
            resource_type,
            name,
            self.config.allow_everyone_if_no_acl_found,
        )
    }

    /// Kafka's `authorizeByResourceType` (KIP-679): whether `principal` may do `operation` on
    /// at least one resource of the type, e.g. WRITE on some topic for an idempotent producer.
    pub fn authorize_by_resource_type(
        &self,
        principal: &str,
        host: &str,
        operation: Operation,
        resource_type: ResourceType,
    ) -> bool {
        if !self.enabled() || self.is_super_user(principal) {
            return true;
        }
        self.snapshot().authorize_by_resource_type(
            principal,
            host,
            operation,
            resource_type,
            self.config.allow_everyone_if_no_acl_found,
        )
    }
}

/// Caches a decision per (resource, operation) for one connection's principal and host until
/// the ACLs change.
const SESSION_CACHE_LIMIT: usize = 4096;

/// One connection's identity and its cached decisions. Owned by the connection's task, which
/// handles one request at a time, so it needs no lock.
#[derive(Debug)]
pub struct Session {
    principal: Arc<str>,
    /// The peer's IP address as Kafka writes it in ACLs (`getHostAddress`).
    host: String,
    generation: u64,
    /// Keyed by name under (type, operation), so a lookup borrows the name, allocating
    /// nothing.
    decisions: HashMap<(ResourceType, Operation), HashMap<Box<str>, bool>>,
    cached: usize,
}

impl Session {
    pub fn new(principal: Arc<str>, host: String) -> Session {
        Session {
            principal,
            host,
            generation: 0,
            decisions: HashMap::new(),
            cached: 0,
        }
    }

    pub fn principal(&self) -> &str {
        &self.principal
    }

    /// The principal, shared: for a handler that keeps it while it authorizes.
    pub fn principal_arc(&self) -> Arc<str> {
        Arc::clone(&self.principal)
    }

    /// Whether this connection may do `operation` on the resource; free when authorization
    /// is off.
    #[inline]
    pub fn authorize(
        &mut self,
        authorizer: &Authorizer,
        operation: Operation,
        resource_type: ResourceType,
        name: &str,
    ) -> bool {
        if !authorizer.enabled() {
            return true;
        }
        self.cached(authorizer, operation, resource_type, name)
    }

    fn cached(
        &mut self,
        authorizer: &Authorizer,
        operation: Operation,
        resource_type: ResourceType,
        name: &str,
    ) -> bool {
        let generation = authorizer.generation();
        if generation != self.generation || self.cached >= SESSION_CACHE_LIMIT {
            self.decisions.clear();
            self.cached = 0;
            self.generation = generation;
        }
        let by_name = self
            .decisions
            .entry((resource_type, operation))
            .or_default();
        if let Some(&decision) = by_name.get(name) {
            return decision;
        }
        let decision =
            authorizer.authorize(&self.principal, &self.host, operation, resource_type, name);
        by_name.insert(name.into(), decision);
        self.cached += 1;
        decision
    }
}
