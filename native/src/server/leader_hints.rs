//! KIP-951's leader hints: a Produce (v10+) or Fetch (v16+) partition answered
//! NOT_LEADER_OR_FOLLOWER (or FENCED_LEADER_EPOCH, for Fetch) names the leader this broker
//! knows of and its epoch, and the response carries that leader's endpoint on the listener
//! the client came in through, so the client moves without a Metadata round trip.
//!
//! The endpoints are the live brokers' advertised listeners as the control plane last saw
//! them (`LiveBrokers::replace`); the leader is the local replica's (a follower knows its
//! leader). A partition this broker has no replica of is answered UNKNOWN_TOPIC_OR_PARTITION,
//! without a hint.

use std::collections::{BTreeMap, HashMap};

use parking_lot::RwLock;

pub use crate::protocol::fetch_writer::NodeEndpoint;
use crate::replica::Partition;

/// A broker's advertised listeners and rack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerNode {
    pub rack: Option<String>,
    /// (listener name, host, port)
    pub listeners: Vec<(String, String, i32)>,
}

#[derive(Debug, Default)]
pub struct LiveBrokers {
    nodes: RwLock<HashMap<i32, BrokerNode>>,
}

impl LiveBrokers {
    /// The control plane's whole view of the live brokers, replacing the last one.
    pub fn replace(&self, nodes: HashMap<i32, BrokerNode>) {
        *self.nodes.write() = nodes;
    }

    /// `node_id`'s endpoint on `listener`; None if it is not live or has no such listener
    /// (Kafka leaves such a broker out of what that listener's clients see).
    pub fn endpoint(&self, node_id: i32, listener: &str) -> Option<NodeEndpoint> {
        let nodes = self.nodes.read();
        let node = nodes.get(&node_id)?;
        let (_, host, port) = node
            .listeners
            .iter()
            .find(|(name, _, _)| name.eq_ignore_ascii_case(listener))?;
        Some(NodeEndpoint {
            node_id,
            host: host.clone(),
            port: *port,
            rack: node.rack.clone(),
        })
    }
}

/// The hints of one response: each hinted partition's leader, and the endpoints of those
/// leaders, each once.
pub struct LeaderHints<'a> {
    brokers: &'a LiveBrokers,
    listener: &'a str,
    nodes: BTreeMap<i32, NodeEndpoint>,
}

impl<'a> LeaderHints<'a> {
    pub fn new(brokers: &'a LiveBrokers, listener: &'a str) -> Self {
        LeaderHints {
            brokers,
            listener,
            nodes: BTreeMap::new(),
        }
    }

    /// The (leader id, leader epoch) a partition refused for its leadership answers with, if
    /// a leader is known; that leader's endpoint joins the response's.
    pub fn current_leader(&mut self, partition: &Partition) -> Option<(i32, i32)> {
        let (leader_id, leader_epoch) = partition.leader();
        if leader_id < 0 {
            return None;
        }
        if let Some(endpoint) = self.brokers.endpoint(leader_id, self.listener) {
            self.nodes.entry(leader_id).or_insert(endpoint);
        }
        Some((leader_id, leader_epoch))
    }

    /// The endpoints of the leaders hinted, by node id.
    pub fn into_endpoints(self) -> Vec<NodeEndpoint> {
        self.nodes.into_values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brokers() -> LiveBrokers {
        let live = LiveBrokers::default();
        live.replace(HashMap::from([(
            2,
            BrokerNode {
                rack: Some("r2".into()),
                listeners: vec![
                    ("PLAINTEXT".into(), "h2".into(), 9092),
                    ("SASL_SSL".into(), "h2".into(), 9093),
                ],
            },
        )]));
        live
    }

    #[test]
    fn an_endpoint_is_the_one_on_the_clients_listener() {
        let live = brokers();
        let on_sasl = live.endpoint(2, "sasl_ssl").expect("listener");
        assert_eq!((on_sasl.port, on_sasl.rack.as_deref()), (9093, Some("r2")));
        assert!(live.endpoint(2, "INTERNAL").is_none());
        assert!(live.endpoint(3, "PLAINTEXT").is_none());
        live.replace(HashMap::new());
        assert!(live.endpoint(2, "PLAINTEXT").is_none());
    }
}
