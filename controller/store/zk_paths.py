"""Every ZooKeeper path ferrolog uses, in one place, and the JSON of each (that of the config
entities is in `zk_configs`, that of ACLs in `zk_acls`, beside the code that reads them).

The layout follows Kafka's ZooKeeper mode so that the tree reads familiarly in `zkCli.sh`:

- `/cluster/id` (persistent): `{"version":"1","id":<cluster id>}`
- `/brokers/ids/<id>` (ephemeral): host, port, endpoints, rack, timestamp
- `/brokers/topics/<t>` (persistent): `{"version":3,"topic_id":<base64>,"partitions":{...}}`
  where partitions maps `"0"` to the replica list, preferred leader first
- `/brokers/topics/<t>/partitions/<p>/state` (persistent): leader, leader_epoch, isr,
  controller_epoch
- `/config/topics/<t>` (persistent): `{"version":1,"config":{...}}`, the topic overrides
- `/config/clients/<client-id>`, `/config/users/<user>` and
  `/config/users/<user>/clients/<client-id>` (persistent): `{"version":1,"config":{...}}`, the
  client quotas of an entity; `<default>` names the default entity, other names are sanitized
  as Kafka's `Sanitizer` does (URL-encoded)
- `/config/brokers/<id>` and `/config/brokers/<default>` (persistent):
  `{"version":1,"config":{...}}`, the dynamic configs of one broker and the cluster default
- `/config/groups/<group>` (persistent): `{"version":1,"config":{...}}`, a group's configs
  (KIP-848's resource type GROUP; Kafka keeps them only in KRaft's metadata log, so ferrolog
  lays them out as the other config entities), the name sanitized as Kafka's `Sanitizer` does
- `/config/changes/config_change_<seq>` (persistent sequential): `{"version":2,
  "entity_path":"users/<user>/clients/<client-id>"}` (or `brokers/<id>`, `groups/<group>`, ...),
  one per changed quota, broker or group config entity, which every broker watches to re-read
  that entity; removed after `CONFIG_CHANGE_EXPIRATION_MS`
- `/kafka-acl/<ResourceType>/<name>` and `/kafka-acl-extended/prefixed/<ResourceType>/<name>`
  (persistent): `{"version":1,"acls":[{"principal","permissionType","operation","host"}]}`, the
  ACLs of a literal and of a prefixed resource pattern (`<ResourceType>` as Kafka names it:
  `Topic`, `Group`, `Cluster`, `TransactionalId`)
- `/kafka-acl-changes/acl_changes_<seq>` (`TOPIC:<name>`) and
  `/kafka-acl-extended-changes/acl_changes_<seq>` (`{"version":1,"resourceType","name",
  "patternType"}`) (persistent sequential): one per changed resource pattern, which every
  broker watches to re-read it
- `/delegation_token/tokens/<token id>` (persistent): `{"version":3,"owner","tokenRequester",
  "renewers","issueTimestamp","maxTimestamp","expiryTimestamp","tokenId"}`, a delegation token
  (principals sanitized: `User%3Aalice`), without its HMAC, as Kafka 3.x's
  `DelegationTokenManagerZk` writes it
- `/delegation_token/token_changes/token_change_<seq>` (persistent sequential): the id of a
  created, changed or removed token, which every broker watches to re-read it
- `/controller` (ephemeral): `{"version":1,"brokerid":<id>,"timestamp":...}`
- `/controller_epoch` (persistent): the epoch as a decimal string
- `/admin/reassign_partitions` (persistent): `{"version":1,"partitions":[{topic, partition,
  replicas}]}`, the pending reassignments
- `/admin/preferred_replica_election` (persistent): `{"version":1,"partitions":[{topic,
  partition}]}`
- `/feature` (persistent): `{"version":2,"status":1,"features":{"<name>":{"max_version_level":
  <level>}}}`, the finalized features (Kafka's `FeatureZNode` v2; status 1 is "enabled"),
  created empty by the controller; written only by the controller, and its `Stat.version` is
  the finalized features' epoch, as in Kafka
- `/latest_producer_id_block` (persistent): `{"version":1,"broker","block_start","block_end"}`
- `/ferrolog/controlled_shutdown/<id>` (ephemeral, empty): broker `<id>` asks to lose its
  leaderships
- `/ferrolog/unclean_leader_election` (persistent): as the preferred-election znode, the
  partitions an ElectLeaders request asked to elect uncleanly
- `/log_dir_event_notification/log_dir_event_<seq>` (persistent sequential):
  `{"version":1,"broker":<id>,"event":1}`, Kafka's notice that a log directory of broker
  `<id>` went offline (event 1: LogDirFailure); the controller acts on it and deletes it
- `/ferrolog/offline_replicas/<id>` (ephemeral): `{"version":1,"partitions":[{topic,
  partition}]}`, the replicas of broker `<id>` on its offline log directories. Kafka's
  controller learns them from the broker's LeaderAndIsr answers (KAFKA_STORAGE_ERROR per
  partition) and keeps them in memory until the broker restarts; ferrolog's controller sends
  no requests, so the broker publishes them, for as long as its session lives

The state znode's own ZooKeeper version (its `Stat.version`) is the compare-and-set token
exposed as `PartitionState.version`; the `"version"` key inside the JSON is the format version,
as in Kafka. Controlled shutdown and unclean election requests, and offline replicas, are
ferrolog's own (Kafka's ZK-mode brokers and controller exchanged those as RPCs).
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

from .base import BrokerRegistration, Endpoint, PartitionState, TopicRecord

CLUSTER_ID = "/cluster/id"
BROKER_IDS = "/brokers/ids"
TOPICS = "/brokers/topics"
TOPIC_CONFIGS = "/config/topics"
CONFIG_USERS = "/config/users"
CONFIG_CLIENTS = "/config/clients"
CONFIG_BROKERS = "/config/brokers"
CONFIG_GROUPS = "/config/groups"
CONFIG_CHANGES = "/config/changes"
CONFIG_CHANGE_PREFIX = "config_change_"
# Kafka's brokers purge change notifications this old.
CONFIG_CHANGE_EXPIRATION_MS = 15 * 60 * 1000
CONTROLLER = "/controller"
CONTROLLER_EPOCH = "/controller_epoch"
REASSIGN = "/admin/reassign_partitions"
PREFERRED_ELECTION = "/admin/preferred_replica_election"
PRODUCER_ID_BLOCK = "/latest_producer_id_block"
FEATURE = "/feature"
CONTROLLED_SHUTDOWN = "/ferrolog/controlled_shutdown"
UNCLEAN_ELECTION = "/ferrolog/unclean_leader_election"
LOG_DIR_EVENT_NOTIFICATION = "/log_dir_event_notification"
LOG_DIR_EVENT_PREFIX = "log_dir_event_"
LOG_DIR_FAILURE_EVENT = 1  # Kafka's LogDirEventNotificationHandler.LogDirFailureEvent
OFFLINE_REPLICAS = "/ferrolog/offline_replicas"
ACL_LITERAL = "/kafka-acl"
ACL_PREFIXED = "/kafka-acl-extended/prefixed"
ACL_LITERAL_CHANGES = "/kafka-acl-changes"
ACL_EXTENDED_CHANGES = "/kafka-acl-extended-changes"
ACL_CHANGE_PREFIX = "acl_changes_"
TOKENS = "/delegation_token/tokens"
TOKEN_CHANGES = "/delegation_token/token_changes"
TOKEN_CHANGE_PREFIX = "token_change_"

# Created at startup so that children watches and creates below them never miss a parent.
PERSISTENT_ROOTS = (
    BROKER_IDS,
    TOPICS,
    TOPIC_CONFIGS,
    CONFIG_USERS,
    CONFIG_CLIENTS,
    CONFIG_BROKERS,
    CONFIG_GROUPS,
    CONFIG_CHANGES,
    "/admin",
    "/cluster",
    CONTROLLED_SHUTDOWN,
    LOG_DIR_EVENT_NOTIFICATION,
    OFFLINE_REPLICAS,
    ACL_LITERAL,
    ACL_PREFIXED,
    ACL_LITERAL_CHANGES,
    ACL_EXTENDED_CHANGES,
    TOKENS,
    TOKEN_CHANGES,
)


def broker_path(node_id: int) -> str:
    return f"{BROKER_IDS}/{node_id}"


def topic_path(topic: str) -> str:
    return f"{TOPICS}/{topic}"


def partitions_path(topic: str) -> str:
    return f"{TOPICS}/{topic}/partitions"


def partition_path(topic: str, partition: int) -> str:
    return f"{TOPICS}/{topic}/partitions/{partition}"


def state_path(topic: str, partition: int) -> str:
    return f"{TOPICS}/{topic}/partitions/{partition}/state"


def topic_config_path(topic: str) -> str:
    return f"{TOPIC_CONFIGS}/{topic}"


def shutdown_path(node_id: int) -> str:
    return f"{CONTROLLED_SHUTDOWN}/{node_id}"


def offline_replicas_path(node_id: int) -> str:
    return f"{OFFLINE_REPLICAS}/{node_id}"


def dumps(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":"), sort_keys=True).encode()


def loads(data: bytes) -> dict[str, Any]:
    value = json.loads(data.decode())
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {data[:80]!r}")
    return value


# /cluster/id


def encode_cluster_id(cluster_id: str) -> bytes:
    return dumps({"version": "1", "id": cluster_id})


def decode_cluster_id(data: bytes) -> str:
    return str(loads(data)["id"])


# /brokers/ids/<id>


def encode_broker(registration: BrokerRegistration) -> bytes:
    """Kafka's layout (`BrokerIdZNode`, version 5): every listener in `endpoints` and
    `listener_security_protocol_map`; `host` and `port` are the first PLAINTEXT endpoint's,
    null and -1 without one, as Kafka writes them."""
    endpoints = registration.endpoints or (
        Endpoint("PLAINTEXT", registration.host, registration.port, "PLAINTEXT"),
    )
    plaintext = next((e for e in endpoints if e.security_protocol == "PLAINTEXT"), None)
    return dumps(
        {
            "version": 5,
            "host": plaintext.host if plaintext else None,
            "port": plaintext.port if plaintext else -1,
            "endpoints": [str(e) for e in endpoints],
            "listener_security_protocol_map": {
                e.listener_name: e.security_protocol for e in endpoints
            },
            "rack": registration.rack,
            "jmx_port": -1,
            "features": {},
            "timestamp": str(int(time.time() * 1000)),
            # ferrolog's extension (KRaft brokers tell their controller so in their
            # registration, KIP-966); Kafka's readers ignore a key they do not know.
            **({"unclean_shutdown": True} if registration.unclean_shutdown else {}),
        }
    )


def decode_broker(node_id: int, data: bytes) -> BrokerRegistration:
    raw = loads(data)
    rack = raw.get("rack")
    protocols = raw.get("listener_security_protocol_map") or {}
    endpoints = []
    for text in raw.get("endpoints") or []:
        name, _, address = str(text).partition("://")
        endpoint_host, _, endpoint_port = address.rpartition(":")
        # Before version 4 the listener name was the security protocol.
        protocol = str(protocols.get(name, name))
        endpoints.append(Endpoint(name, endpoint_host.strip("[]"), int(endpoint_port), protocol))
    host: str | None = raw.get("host")
    port = int(raw.get("port", -1))
    if (host is None or port < 0) and endpoints:
        host, port = endpoints[0].host, endpoints[0].port
    return BrokerRegistration(
        node_id=node_id,
        host=str(host),
        port=port,
        rack=rack,
        endpoints=tuple(endpoints),
        unclean_shutdown=bool(raw.get("unclean_shutdown", False)),
    )


# /brokers/topics/<t> and /config/topics/<t>


def encode_topic(topic: TopicRecord) -> bytes:
    return dumps(
        {
            "version": 3,
            "topic_id": base64.urlsafe_b64encode(topic.topic_id).rstrip(b"=").decode(),
            "partitions": {str(p): list(r) for p, r in sorted(topic.assignment.items())},
            "adding_replicas": {},
            "removing_replicas": {},
        }
    )


def decode_topic(name: str, data: bytes, configs: dict[str, str]) -> TopicRecord:
    raw = loads(data)
    encoded = str(raw["topic_id"])
    topic_id = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    return TopicRecord(
        name=name,
        topic_id=topic_id,
        assignment={int(p): [int(b) for b in r] for p, r in raw["partitions"].items()},
        configs=configs,
    )


def encode_topic_config(configs: dict[str, str]) -> bytes:
    """A topic's overrides, or a broker entity's dynamic configs (the same format)."""
    return dumps({"version": 1, "config": dict(configs)})


def decode_topic_config(data: bytes) -> dict[str, str]:
    if not data:
        return {}
    return {str(k): str(v) for k, v in loads(data).get("config", {}).items()}


# /brokers/topics/<t>/partitions/<p>/state


def encode_state(state: PartitionState) -> bytes:
    """Kafka's layout; KIP-966's lists (which Kafka only ever kept in KRaft) are ferrolog's
    extension, written only when not empty so that the znode is otherwise Kafka's own."""
    raw: dict[str, Any] = {
        "version": 1,
        "leader": state.leader,
        "leader_epoch": state.leader_epoch,
        "isr": list(state.isr),
        "controller_epoch": state.controller_epoch,
    }
    if state.elr:
        raw["eligible_leader_replicas"] = list(state.elr)
    if state.last_known_elr:
        raw["last_known_elr"] = list(state.last_known_elr)
    return dumps(raw)


def decode_state(data: bytes, zk_version: int) -> PartitionState:
    raw = loads(data)
    return PartitionState(
        leader=int(raw["leader"]),
        leader_epoch=int(raw["leader_epoch"]),
        isr=[int(b) for b in raw["isr"]],
        controller_epoch=int(raw["controller_epoch"]),
        version=zk_version,
        elr=[int(b) for b in raw.get("eligible_leader_replicas", ())],
        last_known_elr=[int(b) for b in raw.get("last_known_elr", ())],
    )


# /controller and /controller_epoch


def encode_controller(node_id: int) -> bytes:
    return dumps({"version": 1, "brokerid": node_id, "timestamp": str(int(time.time() * 1000))})


def decode_controller(data: bytes) -> int:
    return int(loads(data)["brokerid"])


def encode_controller_epoch(epoch: int) -> bytes:
    return str(epoch).encode()


def decode_controller_epoch(data: bytes) -> int:
    return int(data.decode() or "0")


# /admin/reassign_partitions and /admin/preferred_replica_election


def encode_reassignments(targets: dict[tuple[str, int], list[int]]) -> bytes:
    return dumps(
        {
            "version": 1,
            "partitions": [
                {"topic": t, "partition": p, "replicas": list(r)}
                for (t, p), r in sorted(targets.items())
            ],
        }
    )


def decode_reassignments(data: bytes) -> dict[tuple[str, int], list[int]]:
    return {
        (str(e["topic"]), int(e["partition"])): [int(b) for b in e["replicas"]]
        for e in loads(data).get("partitions", [])
    }


def encode_preferred(partitions: set[tuple[str, int]]) -> bytes:
    return dumps(
        {"version": 1, "partitions": [{"topic": t, "partition": p} for t, p in sorted(partitions)]}
    )


def decode_preferred(data: bytes) -> set[tuple[str, int]]:
    return {(str(e["topic"]), int(e["partition"])) for e in loads(data).get("partitions", [])}


# /log_dir_event_notification and /ferrolog/offline_replicas


def encode_log_dir_event(node_id: int) -> bytes:
    return dumps({"version": 1, "broker": node_id, "event": LOG_DIR_FAILURE_EVENT})


def decode_log_dir_event(data: bytes) -> int:
    """The broker a log directory event names."""
    return int(loads(data)["broker"])


encode_offline_replicas = encode_preferred
decode_offline_replicas = decode_preferred


# /feature

FEATURE_ZNODE_VERSION = 2  # Kafka's FeatureZNode.V2 (3.3+): no min_version_level
FEATURE_ENABLED = 1  # FeatureZNodeStatus.Enabled; 0 (Disabled) means no feature is finalized


def encode_features(levels: dict[str, int]) -> bytes:
    return dumps(
        {
            "version": FEATURE_ZNODE_VERSION,
            "status": FEATURE_ENABLED,
            "features": {n: {"max_version_level": v} for n, v in sorted(levels.items()) if v > 0},
        }
    )


def decode_features(data: bytes) -> tuple[bool, dict[str, int]]:
    """Whether the znode is enabled, and its finalized levels (none when disabled). Version 1
    (Kafka before 3.3) also had a `min_version_level` per feature, which is not needed. A
    znode that does not parse counts as disabled (the controller then rewrites it), rather
    than stopping every broker's reads of the cluster."""
    try:
        raw = loads(data)
        if raw.get("status") != FEATURE_ENABLED:
            return False, {}
        features = raw.get("features") or {}
        return True, {str(n): int(v["max_version_level"]) for n, v in features.items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return False, {}


# /latest_producer_id_block


def encode_producer_id_block(node_id: int, start: int, end: int) -> bytes:
    return dumps(
        {"version": 1, "broker": node_id, "block_start": str(start), "block_end": str(end)}
    )


def decode_producer_id_block_end(data: bytes) -> int:
    """The last id handed out so far (-1: none)."""
    if not data:
        return -1
    return int(loads(data)["block_end"])
