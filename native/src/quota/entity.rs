//! Which configured quota applies to a request: Kafka's entities and their precedence
//! (`ClientQuotaManager`'s default quota callback).
//!
//! An entity is a user, a client id, or both, each named or the default (`<default>` in
//! ZooKeeper). For a request of user U with client id C the first entity configured with the
//! quota type wins, in this order:
//!
//! 1. user U, client C        2. user U, default client   3. user U
//! 4. default user, client C  5. default user and client  6. default user
//! 7. client C                8. default client
//!
//! The winning level also says what is metered together (Kafka's metric tags): a user-level
//! quota is shared by every client id of that user, a client-level quota by every user of
//! that client id, a (user, client) quota by exactly that pair; a default entity meters each
//! user or client id it applies to on its own, at the default's rate.

use std::collections::HashMap;

/// The name of one part of an entity.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EntityName {
    /// `<default>`: applies to every user (client id) without a quota of its own.
    Default,
    Name(String),
}

/// A configured entity; None: the entity has no such part.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct QuotaEntity {
    pub user: Option<EntityName>,
    pub client_id: Option<EntityName>,
}

/// Kafka's `QuotaType` names; each has its own quota key and meter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QuotaType {
    Produce,
    Fetch,
    /// `request_percentage` (KIP-124): the time the broker spends on a client's requests, as
    /// a percentage of one thread.
    Request,
    /// `controller_mutation_rate` (KIP-599): partitions created or deleted per second.
    ControllerMutation,
}

impl QuotaType {
    pub const ALL: [QuotaType; 4] = [
        QuotaType::Produce,
        QuotaType::Fetch,
        QuotaType::Request,
        QuotaType::ControllerMutation,
    ];

    /// The quota's configuration key.
    pub fn key(self) -> &'static str {
        match self {
            QuotaType::Produce => "producer_byte_rate",
            QuotaType::Fetch => "consumer_byte_rate",
            QuotaType::Request => "request_percentage",
            QuotaType::ControllerMutation => "controller_mutation_rate",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            QuotaType::Produce => "Produce",
            QuotaType::Fetch => "Fetch",
            QuotaType::Request => "Request",
            QuotaType::ControllerMutation => "ControllerMutation",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// What is metered together: Kafka's (user, client-id) metric tags, "" for a part the
/// applied quota does not distinguish.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MetricTags {
    pub user: String,
    pub client_id: String,
}

/// Every configured quota, as the control plane pushed it.
#[derive(Debug, Default, Clone)]
pub struct QuotaConfig {
    quotas: HashMap<QuotaEntity, [Option<f64>; QuotaType::ALL.len()]>,
    /// Per quota type: whether any entity sets it (none: nothing is metered at all).
    enabled: [bool; QuotaType::ALL.len()],
}

impl QuotaConfig {
    pub fn new<I>(entries: I) -> QuotaConfig
    where
        I: IntoIterator<Item = (QuotaEntity, HashMap<String, f64>)>,
    {
        let mut config = QuotaConfig::default();
        for (entity, values) in entries {
            let mut quotas = [None; QuotaType::ALL.len()];
            for kind in QuotaType::ALL {
                if let Some(&value) = values.get(kind.key()) {
                    quotas[kind.index()] = Some(value);
                    config.enabled[kind.index()] = true;
                }
            }
            if quotas.iter().any(Option::is_some) {
                config.quotas.insert(entity, quotas);
            }
        }
        config
    }

    pub fn enabled(&self, kind: QuotaType) -> bool {
        self.enabled[kind.index()]
    }

    fn get(
        &self,
        kind: QuotaType,
        user: Option<EntityName>,
        client: Option<EntityName>,
    ) -> Option<f64> {
        let entity = QuotaEntity {
            user,
            client_id: client,
        };
        self.quotas.get(&entity).and_then(|q| q[kind.index()])
    }

    /// The quota of `kind` for a request of `user` with `client_id`, and what meters it; None
    /// when no entity applies (the request is not metered).
    pub fn resolve(
        &self,
        kind: QuotaType,
        user: &str,
        client_id: &str,
    ) -> Option<(f64, MetricTags)> {
        if !self.enabled(kind) {
            return None;
        }
        let named_user = || Some(EntityName::Name(user.to_string()));
        let named_client = || Some(EntityName::Name(client_id.to_string()));
        let default = || Some(EntityName::Default);
        let tags = |user: &str, client_id: &str| MetricTags {
            user: user.to_string(),
            client_id: client_id.to_string(),
        };
        let levels = [
            (named_user(), named_client(), tags(user, client_id)),
            (named_user(), default(), tags(user, client_id)),
            (named_user(), None, tags(user, "")),
            (default(), named_client(), tags(user, client_id)),
            (default(), default(), tags(user, client_id)),
            (default(), None, tags(user, "")),
            (None, named_client(), tags("", client_id)),
            (None, default(), tags("", client_id)),
        ];
        levels
            .into_iter()
            .find_map(|(u, c, tags)| self.get(kind, u, c).map(|quota| (quota, tags)))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::{EntityName, MetricTags, QuotaConfig, QuotaEntity, QuotaType};

    fn part(name: &str) -> Option<EntityName> {
        match name {
            "" => None,
            "<default>" => Some(EntityName::Default),
            name => Some(EntityName::Name(name.to_string())),
        }
    }

    /// Every level configured, each with its own produce quota (1 for the first level, 8 for
    /// the last); `without` leaves out the levels before the one under test.
    fn levels(from: usize) -> QuotaConfig {
        let all = [
            ("alice", "app"),
            ("alice", "<default>"),
            ("alice", ""),
            ("<default>", "app"),
            ("<default>", "<default>"),
            ("<default>", ""),
            ("", "app"),
            ("", "<default>"),
        ];
        QuotaConfig::new(all.iter().enumerate().skip(from).map(|(i, (u, c))| {
            let entity = QuotaEntity {
                user: part(u),
                client_id: part(c),
            };
            let values = HashMap::from([("producer_byte_rate".to_string(), (i + 1) as f64)]);
            (entity, values)
        }))
    }

    fn tags(user: &str, client_id: &str) -> MetricTags {
        MetricTags {
            user: user.into(),
            client_id: client_id.into(),
        }
    }

    #[test]
    fn each_level_wins_over_the_ones_after_it() {
        let expected = [
            tags("alice", "app"),
            tags("alice", "app"),
            tags("alice", ""),
            tags("alice", "app"),
            tags("alice", "app"),
            tags("alice", ""),
            tags("", "app"),
            tags("", "app"),
        ];
        for (level, want) in expected.into_iter().enumerate() {
            let resolved = levels(level).resolve(QuotaType::Produce, "alice", "app");
            assert_eq!(
                resolved,
                Some(((level + 1) as f64, want)),
                "level {}",
                level + 1
            );
        }
    }

    #[test]
    fn named_entities_of_others_do_not_apply() {
        let config = levels(0);
        // bob has no user quota of his own: the default user's, for client app, applies.
        assert_eq!(
            config.resolve(QuotaType::Produce, "bob", "app"),
            Some((4.0, tags("bob", "app")))
        );
        // bob with another client: the default user and client.
        assert_eq!(
            config.resolve(QuotaType::Produce, "bob", "other"),
            Some((5.0, tags("bob", "other")))
        );
        // Only client levels configured: another client id gets the default client's.
        let clients = levels(6);
        assert_eq!(
            clients.resolve(QuotaType::Produce, "bob", "other"),
            Some((8.0, tags("", "other")))
        );
    }

    #[test]
    fn quota_types_resolve_apart() {
        let config = QuotaConfig::new([(
            QuotaEntity {
                user: None,
                client_id: part("app"),
            },
            HashMap::from([
                ("consumer_byte_rate".to_string(), 10.0),
                ("request_percentage".to_string(), 50.0),
            ]),
        )]);
        assert!(!config.enabled(QuotaType::Produce));
        assert_eq!(config.resolve(QuotaType::Produce, "u", "app"), None);
        assert_eq!(
            config.resolve(QuotaType::Request, "u", "app"),
            Some((50.0, tags("", "app")))
        );
        assert_eq!(
            config.resolve(QuotaType::Fetch, "u", "app"),
            Some((10.0, tags("", "app")))
        );
        assert_eq!(config.resolve(QuotaType::Fetch, "u", "other"), None);
    }
}
