//! An immutable, indexed set of ACLs and the decisions made against it.

use std::collections::{HashMap, HashSet};

use super::types::{AclBinding, Operation, PatternType, Permission, ResourceType};
use super::{WILDCARD_HOST, WILDCARD_PRINCIPAL, WILDCARD_RESOURCE};

/// One access control entry of a resource pattern.
#[derive(Debug, Clone)]
struct Entry {
    principal: Box<str>,
    host: Box<str>,
    operation: Operation,
    permission: Permission,
}

impl Entry {
    /// Whether the entry names this principal (or everyone) and host (or every host), and
    /// this operation (or ALL), with this permission: Kafka's `matchingAclExists`.
    fn matches(&self, principal: &str, host: &str, operation: Operation, p: Permission) -> bool {
        self.permission == p
            && (&*self.principal == principal || &*self.principal == WILDCARD_PRINCIPAL)
            && (self.operation == operation || self.operation == Operation::All)
            && (&*self.host == host || &*self.host == WILDCARD_HOST)
    }
}

/// The ACLs of one resource type, by pattern.
#[derive(Debug, Default)]
struct TypeAcls {
    literal: HashMap<Box<str>, Vec<Entry>>,
    prefixed: HashMap<Box<str>, Vec<Entry>>,
    /// The lengths (in bytes) of the prefixes present, so matching a name looks up only
    /// prefixes that exist.
    prefix_lengths: Vec<usize>,
}

/// Every ACL the broker knows, indexed for the check of one resource name: the wildcard
/// literal, the literal name, and each prefix of the name, each one hash lookup.
#[derive(Debug, Default)]
pub struct AclSet {
    by_type: HashMap<ResourceType, TypeAcls>,
}

impl AclSet {
    pub fn new(bindings: &[AclBinding]) -> AclSet {
        let mut by_type: HashMap<ResourceType, TypeAcls> = HashMap::new();
        for b in bindings {
            let acls = by_type.entry(b.resource_type).or_default();
            let patterns = match b.pattern_type {
                PatternType::Literal => &mut acls.literal,
                PatternType::Prefixed => &mut acls.prefixed,
            };
            patterns
                .entry(b.name.as_str().into())
                .or_default()
                .push(Entry {
                    principal: b.principal.as_str().into(),
                    host: b.host.as_str().into(),
                    operation: b.operation,
                    permission: b.permission,
                });
        }
        for acls in by_type.values_mut() {
            let mut lengths: Vec<usize> = acls.prefixed.keys().map(|k| k.len()).collect();
            lengths.sort_unstable();
            lengths.dedup();
            acls.prefix_lengths = lengths;
        }
        AclSet { by_type }
    }

    /// The entries of every pattern that matches `name`: Kafka's `matchingAcls`.
    fn matching<'a>(&'a self, resource_type: ResourceType, name: &str) -> Vec<&'a [Entry]> {
        let Some(acls) = self.by_type.get(&resource_type) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        if let Some(e) = acls.literal.get(WILDCARD_RESOURCE) {
            found.push(e.as_slice());
        }
        if name != WILDCARD_RESOURCE {
            if let Some(e) = acls.literal.get(name) {
                found.push(e.as_slice());
            }
        }
        for &len in &acls.prefix_lengths {
            if len > name.len() {
                break;
            }
            if let Some(e) = name.get(..len).and_then(|prefix| acls.prefixed.get(prefix)) {
                found.push(e.as_slice());
            }
        }
        found
    }

    /// Kafka's `authorizeAction` for a principal that is not a super user: with no ACL on
    /// the resource, `allow_if_none`; otherwise no matching DENY and a matching ALLOW (of the
    /// operation or one that implies it).
    pub fn authorize(
        &self,
        principal: &str,
        host: &str,
        operation: Operation,
        resource_type: ResourceType,
        name: &str,
        allow_if_none: bool,
    ) -> bool {
        let acls = self.matching(resource_type, name);
        if acls.is_empty() {
            return allow_if_none;
        }
        let entries = || acls.iter().flat_map(|e| e.iter());
        if entries().any(|e| e.matches(principal, host, operation, Permission::Deny)) {
            return false;
        }
        operation
            .implied_by()
            .iter()
            .any(|&op| entries().any(|e| e.matches(principal, host, op, Permission::Allow)))
    }

    /// Kafka's `AclAuthorizer.authorizeByResourceType`: allowed when some ALLOW of the
    /// operation on a resource of the type is not overridden by a DENY on every name it
    /// covers (a DENY on the wildcard, the same literal, or a prefix of the name).
    pub fn authorize_by_resource_type(
        &self,
        principal: &str,
        host: &str,
        operation: Operation,
        resource_type: ResourceType,
        allow_if_none: bool,
    ) -> bool {
        let mut deny_literals: HashSet<&str> = HashSet::new();
        let mut deny_prefixes: HashSet<&str> = HashSet::new();
        let mut allow_literals: Vec<&str> = Vec::new();
        let mut allow_prefixes: Vec<&str> = Vec::new();
        if let Some(acls) = self.by_type.get(&resource_type) {
            for (literal, patterns) in [(true, &acls.literal), (false, &acls.prefixed)] {
                for (name, entries) in patterns {
                    for e in entries {
                        if !e.matches(principal, host, operation, e.permission) {
                            continue;
                        }
                        match (e.permission, literal) {
                            (Permission::Deny, true) => deny_literals.insert(name),
                            (Permission::Deny, false) => deny_prefixes.insert(name),
                            (Permission::Allow, true) => {
                                allow_literals.push(name);
                                true
                            }
                            (Permission::Allow, false) => {
                                allow_prefixes.push(name);
                                true
                            }
                        };
                    }
                }
            }
        }
        if deny_literals.contains(WILDCARD_RESOURCE) {
            return false;
        }
        if allow_if_none {
            return true;
        }
        let dominated = |name: &str| {
            (1..=name.len()).any(|len| name.get(..len).is_some_and(|p| deny_prefixes.contains(p)))
        };
        allow_prefixes.iter().any(|p| !dominated(p))
            || allow_literals
                .iter()
                .any(|l| *l == WILDCARD_RESOURCE || (!deny_literals.contains(l) && !dominated(l)))
    }
}
